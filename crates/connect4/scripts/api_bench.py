#!/usr/bin/env python3
"""Latency and load of `transpo-c4 serve`'s API, measured from a client on the same machine.

Start the server first (release build), then run one of:

    transpo-c4 serve --port 8080 --threads 2 --fresh-table &
    # latency: 1,000 requests of a test set, one at a time; p50/p99 of the client's time
    crates/connect4/scripts/api_bench.py latency ../shared/data/connect4/Test_L2_R1 --limit 1000
    # book positions: every request's position has at most DEPTH - 1 stones
    transpo-c4 book --depth 4 --out c4.book
    transpo-c4 serve --port 8080 --book c4.book --fresh-table &
    crates/connect4/scripts/api_bench.py book --depth 4 --count 1000
    # load: 8 clients for 60 s over a test set; failures, requests/s, the server's memory
    crates/connect4/scripts/api_bench.py load ../shared/data/connect4/Test_L2_R1 \
        --clients 8 --seconds 60 --pid $(pgrep -f 'transpo-c4 serve')

Every answer is checked: status 200, and the score equal to the test set's (sign when weak).
A request counts as failed on any other status, a wrong score or a connection error.
Standard library only.
"""

import argparse
import http.client
import json
import random
import statistics
import sys
import threading
import time
import urllib.parse

WIDTH, HEIGHT = 7, 6


def read_set(path, limit):
    """(moves, score) of each line of a Pons test set."""
    out = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 2:
                out.append((fields[0], int(fields[1])))
            if limit and len(out) >= limit:
                break
    return out


def wins(board, col, row, player):
    """Whether `player`'s stone at (col, row) makes four."""
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while 0 <= c < WIDTH and 0 <= r < HEIGHT and board[c][r] == player:
                n += 1
                c, r = c + sign * dc, r + sign * dr
        if n >= 4:
            return True
    return False


def random_position(rng, stones):
    """A random move sequence of `stones` moves in which nobody has won; None if stuck."""
    board = [[0] * HEIGHT for _ in range(WIDTH)]
    heights = [0] * WIDTH
    moves = ""
    for i in range(stones):
        player = 1 + i % 2
        cols = [c for c in range(WIDTH) if heights[c] < HEIGHT
                and not wins(board, c, heights[c], player)]
        if not cols:
            return None
        c = rng.choice(cols)
        board[c][heights[c]] = player
        heights[c] += 1
        moves += str(c + 1)
    return moves


class Client:
    """One keep-alive connection."""

    def __init__(self, host, port, weak):
        self.host, self.port, self.weak = host, port, weak
        self.conn = None

    def solve(self, moves):
        """(status, body or None, seconds)."""
        query = urllib.parse.urlencode({"pos": moves, **({"weak": 1} if self.weak else {})})
        started = time.perf_counter()
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
            self.conn.request("GET", "/api/solve?" + query)
            response = self.conn.getresponse()
            body = response.read()
            elapsed = time.perf_counter() - started
            return response.status, json.loads(body), elapsed
        except (OSError, http.client.HTTPException, ValueError) as e:
            self.conn = None
            return None, {"error": str(e)}, time.perf_counter() - started


def correct(status, body, expected, weak):
    if status != 200:
        return False
    if expected == "book":
        return body.get("book") is True
    return body.get("score") == (((expected > 0) - (expected < 0)) if weak else expected)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def report(name, times, micros, failed):
    ms = [t * 1e3 for t in times]
    print(f"{name}: {len(ms)} requests, {failed} failed")
    print(f"  client time: p50 {percentile(ms, 50):.3f} ms, p99 {percentile(ms, 99):.3f} ms, "
          f"mean {statistics.mean(ms):.3f} ms, max {max(ms):.3f} ms")
    us = [m / 1e3 for m in micros]
    if us:
        print(f"  server time: p50 {percentile(us, 50):.3f} ms, p99 {percentile(us, 99):.3f} ms")


def one_at_a_time(args, problems, name):
    client = Client(args.host, args.port, args.weak)
    times, micros, failed = [], [], 0
    for moves, expected in problems:
        status, body, elapsed = client.solve(moves)
        if correct(status, body, expected, args.weak):
            times.append(elapsed)
            micros.append(body["micros"])
        else:
            failed += 1
            print(f"FAILED {moves}: {status} {body}", file=sys.stderr)
    report(name, times, micros, failed)
    return failed


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def load(args, problems):
    stop = time.monotonic() + args.seconds
    lock = threading.Lock()
    totals = {"ok": 0, "failed": 0}
    times = []

    def run(offset):
        client = Client(args.host, args.port, args.weak)
        i = offset
        ok, failed, mine = 0, 0, []
        while time.monotonic() < stop:
            moves, expected = problems[i % len(problems)]
            i += args.clients
            status, body, elapsed = client.solve(moves)
            if correct(status, body, expected, args.weak):
                ok += 1
                mine.append(elapsed)
            else:
                failed += 1
                print(f"FAILED {moves}: {status} {body}", file=sys.stderr)
        with lock:
            totals["ok"] += ok
            totals["failed"] += failed
            times.extend(mine)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(args.clients)]
    started = time.monotonic()
    for t in threads:
        t.start()
    samples = []
    while any(t.is_alive() for t in threads):
        if args.pid:
            samples.append(rss_kib(args.pid))
        time.sleep(5)
    for t in threads:
        t.join()
    wall = time.monotonic() - started
    n = totals["ok"] + totals["failed"]
    print(f"load: {args.clients} clients, {wall:.1f} s, {n} requests, {totals['failed']} failed, "
          f"{n / wall:.1f} requests/s")
    if times:
        ms = [t * 1e3 for t in times]
        print(f"  client time: p50 {percentile(ms, 50):.3f} ms, p99 {percentile(ms, 99):.3f} ms")
    if samples:
        kib = [s for s in samples if s is not None]
        print(f"  server RSS every 5 s (MiB): {' '.join(f'{s / 1024:.0f}' for s in kib)}")
    return totals["failed"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=["latency", "book", "load"])
    p.add_argument("file", nargs="?", help="a Pons test set (latency, load)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--weak", action="store_true")
    p.add_argument("--limit", type=int, default=1000, help="lines of the set (latency, load)")
    p.add_argument("--depth", type=int, default=4, help="the book's depth (book)")
    p.add_argument("--count", type=int, default=1000, help="requests (book)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--pid", type=int, help="the server's process, for its memory (load)")
    args = p.parse_args()
    if args.mode == "book":
        rng = random.Random(args.seed)
        problems = []
        while len(problems) < args.count:
            moves = random_position(rng, rng.randrange(args.depth))
            if moves is not None:
                problems.append((moves, "book"))
        failed = one_at_a_time(args, problems, f"book positions (< {args.depth} stones)")
    else:
        if not args.file:
            p.error(f"{args.mode} needs a test-set file")
        problems = read_set(args.file, args.limit)
        if args.mode == "latency":
            failed = one_at_a_time(args, problems, args.file)
        else:
            failed = load(args, problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
