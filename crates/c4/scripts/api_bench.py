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

    # stalled connections: 1,100 half-sent request heads held open, then 20 health probes
    (ulimit -n 1024; exec transpo-c4 serve --port 8080) &
    crates/connect4/scripts/api_bench.py stall --connections 1100 --probes 20 \
        --pid $(pgrep -f 'transpo-c4 serve')
    # shutdown: SIGINT with 500 half-sent requests, an idle connection and a solve open, 10 times
    crates/connect4/scripts/api_bench.py shutdown --connections 500 --count 10
    # games: what a person playing from the empty board waits for (7x6, served as it comes):
    # every position of 10 random games asked one at a time; p50/p90/p99/max, over 1 s and 3 s
    transpo-c4 serve --port 8080 &
    crates/connect4/scripts/api_bench.py games --count 10 --seed 1 [--csv games.csv]
    # soak: 30 minutes of mixed load (good requests from test sets, bad requests, clients that
    # leave mid-solve, half-sent requests, idle connections), a line every minute
    transpo-c4 serve --port 8080 --threads 2 &
    crates/connect4/scripts/api_bench.py soak ../shared/data/connect4/Test_L3_R1 \
        ../shared/data/connect4/Test_L2_R1 --minutes 30 --pid $(pgrep -f 'transpo-c4 serve')

Every answer is checked: status 200, and the score equal to the test set's (sign when weak).
A request counts as failed on any other status, a wrong score or a connection error.
Standard library only.
"""

import argparse
import os
import http.client
import json
import random
import resource
import signal
import socket
import subprocess
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


def random_game(rng):
    """The move sequences of one random game's positions, from the empty board: columns with
    room at random until the next move would win or fill the board (the API answers only
    positions that are not over)."""
    board = [[0] * HEIGHT for _ in range(WIDTH)]
    heights = [0] * WIDTH
    moves = ""
    positions = [moves]
    while True:
        player = 1 + len(moves) % 2
        c = rng.choice([c for c in range(WIDTH) if heights[c] < HEIGHT])
        if wins(board, c, heights[c], player) or len(moves) + 1 == WIDTH * HEIGHT:
            return positions
        board[c][heights[c]] = player
        heights[c] += 1
        moves += str(c + 1)
        positions.append(moves)


def games(args):
    """Every position of `args.count` random games, one request at a time on one connection,
    as the page asks them; a row each to `args.csv` (game,stones,moves,ms,book) if given.
    Returns whether a request failed."""
    rng = random.Random(args.seed)
    client = Client(args.host, args.port, args.weak)
    rows, failed = [], 0
    for g in range(args.count):
        for moves in random_game(rng):
            status, body, seconds = client.solve(moves)
            if status != 200 or len(body.get("columns", [])) != WIDTH:
                failed += 1
                print(f"game {g}, {moves or '-'}: {status} {body}", file=sys.stderr)
            rows.append((g, len(moves), moves, seconds * 1e3, bool(body.get("book"))))
    if args.csv:
        with open(args.csv, "w") as out:
            out.write("game,stones,moves,ms,book\n")
            for g, stones, moves, ms, book in rows:
                out.write(f"{g},{stones},{moves or '-'},{ms:.1f},{int(book)}\n")
    ms = sorted(r[3] for r in rows)
    worst = max(rows, key=lambda r: r[3])
    print(f"games: {len(rows)} requests, {args.count} games, {failed} failed")
    print(f"  client time: p50 {percentile(ms, 50):.0f} ms, p90 {percentile(ms, 90):.0f} ms, "
          f"p99 {percentile(ms, 99):.0f} ms, max {ms[-1]:.0f} ms ({worst[2] or '-'}), "
          f"over 1 s: {sum(m > 1000 for m in ms)}, over 3 s: {sum(m > 3000 for m in ms)}")
    return failed > 0


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


def open_fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def raise_fd_limit(wanted):
    """Raises this process's open-file limit towards `wanted` (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))


def health_probe(host, port, timeout=10):
    """Seconds for one /api/health on a new connection, or None if it failed."""
    started = time.perf_counter()
    try:
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
        conn.request("GET", "/api/health")
        response = conn.getresponse()
        body = json.loads(response.read())
        conn.close()
        if response.status != 200 or body.get("status") != "ok":
            return None
    except (OSError, http.client.HTTPException, ValueError):
        return None
    return time.perf_counter() - started


def stall(args):
    """Opens `--connections` connections that send half a request head and stop, then times
    `--probes` health requests on new connections while they are open."""
    raise_fd_limit(args.connections + 256)
    stalled, refused = [], 0
    started = time.monotonic()
    for _ in range(args.connections):
        try:
            s = socket.create_connection((args.host, args.port), timeout=10)
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: stall\r\nX-Stalled: ")
            stalled.append(s)
        except OSError:
            refused += 1
    print(f"stall: {len(stalled)} stalled connections opened in "
          f"{time.monotonic() - started:.1f} s ({refused} refused)")
    if args.pid:
        print(f"  server: {open_fds(args.pid)} open files, "
              f"{(rss_kib(args.pid) or 0) / 1024:.0f} MiB RSS")
    times, failed = [], 0
    for _ in range(args.probes):
        t = health_probe(args.host, args.port)
        if t is None:
            failed += 1
        else:
            times.append(t)
    if times:
        ms = [t * 1e3 for t in times]
        print(f"  {args.probes} health probes: {failed} failed, p50 {percentile(ms, 50):.2f} ms, "
              f"p99 {percentile(ms, 99):.2f} ms, max {max(ms):.2f} ms")
    else:
        print(f"  {args.probes} health probes: all failed")
    closed = 0
    for s in stalled:
        s.setblocking(False)
        try:
            if s.recv(1) == b"":
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        s.close()
    print(f"  of the stalled connections, {closed} had been closed by the server")
    return failed + (1 if times and percentile(times, 99) > 1.0 else 0)


def shutdown(args):
    """Starts `--binary serve --port 0 --no-book` `--count` times; each time opens
    `--connections` half-sent requests, an idle kept-alive connection and a solve of the empty
    board (minutes without a book), sends SIGINT (or SIGTERM with --sigterm) and times the
    server's exit."""
    raise_fd_limit(args.connections + 256)
    signum = signal.SIGTERM if args.sigterm else signal.SIGINT
    times, bad = [], 0
    for _ in range(args.count):
        server = subprocess.Popen([args.binary, "serve", "--port", "0", "--threads", "1",
                                   "--hash-mib", "16", "--no-book"],
                                  stderr=subprocess.PIPE, text=True)
        line = server.stderr.readline()
        port = int(line.split("http://")[1].split("/")[0].rsplit(":", 1)[1])
        held = []
        for _ in range(args.connections):
            s = socket.create_connection((args.host, port), timeout=10)
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Half: ")
            held.append(s)
        idle = http.client.HTTPConnection(args.host, port, timeout=10)
        idle.request("GET", "/api/health")
        idle.getresponse().read()
        solving = socket.create_connection((args.host, port), timeout=10)
        solving.sendall(b"GET /api/solve?pos= HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.5)
        started = time.perf_counter()
        server.send_signal(signum)
        try:
            code = server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            code = None
        took = time.perf_counter() - started
        log = server.stderr.read()
        ok = code == 0 and "1 running solve cancelled" in log
        bad += not ok
        times.append(took)
        for s in held + [solving]:
            s.close()
        idle.close()
    ms = [t * 1e3 for t in times]
    print(f"shutdown on {signal.Signals(signum).name} with {args.connections} half-sent "
          f"requests, an idle connection and a running solve, {args.count} times: exit after "
          f"p50 {percentile(ms, 50):.1f} ms, max {max(ms):.1f} ms; {bad} not clean (status 0, "
          f"the solve's cancel logged)")
    return bad + sum(t > 5 for t in times)


BAD_QUERIES = [
    ("/api/solve?pos=48", 400), ("/api/solve?pos=4x", 400), ("/api/solve?pos=%FF", 400),
    ("/api/solve?pos=" + "4" * 43, 400), ("/api/solve?pos=" + "%E9" * 22, 400),
    ("/api/solve?pos=1111111", 400), ("/api/solve?pos=44&weak=maybe", 400),
    ("/api/solve?position=44", 400), ("/api/nothing", 404), ("/api/solve?pos=%", 400),
]


class Soak:
    """Mixed load on one server for a while; counters shared by its threads."""

    def __init__(self, args, problems, hard):
        self.args, self.problems, self.hard = args, problems, hard
        self.lock = threading.Lock()
        self.end = time.monotonic() + args.minutes * 60
        self.c = {k: 0 for k in ("good", "wrong", "failed", "retried", "bad", "bad_wrong",
                                 "left", "half", "idle", "idle_closed")}
        self.times = []
        self.half_open = 0
        self.idle_open = 0

    def add(self, key, n=1):
        with self.lock:
            self.c[key] += n

    def running(self):
        return time.monotonic() < self.end

    def good_client(self, seed):
        rng = random.Random(seed)
        conn = None
        while self.running():
            moves, expected = rng.choice(self.problems)
            weak = rng.random() < 0.25
            query = urllib.parse.urlencode({"pos": moves, **({"weak": 1} if weak else {})})
            started = time.perf_counter()
            result = None
            for attempt in range(2):
                fresh = conn is None
                try:
                    if conn is None:
                        conn = http.client.HTTPConnection(self.args.host, self.args.port,
                                                          timeout=120)
                    conn.request("GET", "/api/solve?" + query)
                    response = conn.getresponse()
                    result = (response.status, json.loads(response.read()))
                    break
                except (OSError, http.client.HTTPException, ValueError) as e:
                    conn = None
                    # A kept-alive connection the server closed (its idle timeout) before
                    # this request reached it: one retry on a new one, as a browser would.
                    if fresh or attempt == 1:
                        result = (None, {"error": repr(e)})
                        break
                    self.add("retried")
            elapsed = time.perf_counter() - started
            status, body = result
            self.add("good")
            if status != 200:
                self.add("failed")
                print(f"FAILED {moves}: {status} {body}", file=sys.stderr)
            elif not correct(status, body, expected, weak):
                self.add("wrong")
                print(f"WRONG {moves} weak={weak}: {body}", file=sys.stderr)
            else:
                with self.lock:
                    self.times.append(elapsed)
            time.sleep(rng.uniform(0, 2 * self.args.pause))
            if rng.random() < 0.02:
                # Now and then a pause past nothing in particular: the connection may be
                # closed by the server meanwhile if the pause is long.
                time.sleep(rng.uniform(0, 2))

    def bad_client(self, seed):
        rng = random.Random(seed)
        while self.running():
            path, expected = rng.choice(BAD_QUERIES)
            try:
                conn = http.client.HTTPConnection(self.args.host, self.args.port, timeout=30)
                conn.request("GET", path)
                response = conn.getresponse()
                body = json.loads(response.read())
                conn.close()
                ok = response.status == expected and isinstance(body.get("error"), str)
            except (OSError, http.client.HTTPException, ValueError):
                ok = False
            self.add("bad")
            if not ok:
                self.add("bad_wrong")
                print(f"BAD REQUEST MISHANDLED {path}", file=sys.stderr)
            time.sleep(rng.uniform(0.05, 0.3))

    def leaving_client(self, seed):
        """Asks for a hard position and leaves before the answer."""
        rng = random.Random(seed)
        while self.running():
            moves, _ = rng.choice(self.hard)
            try:
                s = socket.create_connection((self.args.host, self.args.port), timeout=10)
                s.sendall(f"GET /api/solve?pos={moves} HTTP/1.1\r\nHost: soak\r\n\r\n"
                          .encode())
                time.sleep(rng.uniform(0.01, 0.3))
                s.close()
                self.add("left")
            except OSError:
                pass
            time.sleep(rng.uniform(0.1, 1))

    def half_sender(self, seed):
        """Holds up to 40 half-sent request heads, each for 1 to 20 s."""
        rng = random.Random(seed)
        held = []
        while self.running():
            now = time.monotonic()
            for item in [h for h in held if h[1] <= now]:
                item[0].close()
                held.remove(item)
            if len(held) < 40:
                try:
                    s = socket.create_connection((self.args.host, self.args.port), timeout=10)
                    s.sendall(b"GET /api/solve?pos=4453 HTTP/1.1\r\nHost: soak\r\nX-Half")
                    held.append((s, now + rng.uniform(1, 20)))
                    self.add("half")
                except OSError:
                    pass
            with self.lock:
                self.half_open = len(held)
            time.sleep(0.1)
        for s, _ in held:
            s.close()

    def idler(self, seed):
        """Holds up to 40 kept-alive connections after one answer, each for 5 to 90 s; counts
        those the server closed (its idle timeout) meanwhile."""
        rng = random.Random(seed)
        held = []
        while self.running():
            now = time.monotonic()
            for item in [h for h in held if h[1] <= now]:
                s = item[0]
                s.setblocking(False)
                try:
                    if s.recv(1) == b"":
                        self.add("idle_closed")
                except BlockingIOError:
                    pass
                except OSError:
                    self.add("idle_closed")
                s.close()
                held.remove(item)
            if len(held) < 40:
                try:
                    s = socket.create_connection((self.args.host, self.args.port), timeout=10)
                    s.sendall(b"GET /api/health HTTP/1.1\r\nHost: soak\r\n\r\n")
                    got = b""
                    while b"\r\n\r\n" not in got or not got.rstrip().endswith(b"}"):
                        chunk = s.recv(4096)
                        if not chunk:
                            break
                        got += chunk
                    held.append((s, now + rng.uniform(5, 90)))
                    self.add("idle")
                except OSError:
                    pass
            with self.lock:
                self.idle_open = len(held)
            time.sleep(0.5)
        for s, _ in held:
            s.close()

    def run(self):
        a = self.args
        threads = [threading.Thread(target=self.good_client, args=(a.seed + k,))
                   for k in range(a.clients)]
        threads += [threading.Thread(target=f, args=(a.seed + 100 + k,)) for k, f in
                    enumerate((self.bad_client, self.leaving_client, self.half_sender,
                               self.idler))]
        for t in threads:
            t.daemon = True
            t.start()
        started = time.monotonic()
        print("min  good  wrong failed  p99 ms   bad bad-wrong  left  half idle idle-closed"
              "  fds  RSS MiB", flush=True)
        minute = 0
        last = dict(self.c)
        rows = []
        while any(t.is_alive() for t in threads):
            time.sleep(max(0.0, started + (minute + 1) * 60 - time.monotonic()))
            minute += 1
            with self.lock:
                c, times, self.times = dict(self.c), self.times, []
                half_open, idle_open = self.half_open, self.idle_open
            d = {k: c[k] - last[k] for k in c}
            last = c
            p99 = percentile([t * 1e3 for t in times], 99) if times else float("nan")
            fds = open_fds(a.pid) if a.pid else None
            rss = rss_kib(a.pid) if a.pid else None
            rows.append((fds, rss))
            print(f"{minute:3d} {d['good']:5d} {d['wrong']:6d} {d['failed']:6d} {p99:8.1f} "
                  f"{d['bad']:5d} {d['bad_wrong']:9d} {d['left']:5d} {half_open:5d} "
                  f"{idle_open:4d} {d['idle_closed']:11d} {fds if fds is not None else '-':>4} "
                  f"{(rss or 0) / 1024:8.1f}", flush=True)
            if time.monotonic() >= self.end:
                break
        for t in threads:
            t.join(timeout=150)
        c = self.c
        print(f"soak: {a.minutes:g} min, {c['good']} good requests ({c['wrong']} wrong, "
              f"{c['failed']} failed, {c['retried']} retried on a new connection after an idle "
              f"close), {c['bad']} bad ({c['bad_wrong']} mishandled), {c['left']} left mid-solve, "
              f"{c['half']} half-sent, {c['idle']} idle ({c['idle_closed']} closed by the server)")
        if rows and rows[0][0] is not None:
            fds = [r[0] for r in rows if r[0] is not None]
            rss = [r[1] / 1024 for r in rows if r[1] is not None]
            print(f"  server open files: min {min(fds)}, max {max(fds)}; RSS MiB: first "
                  f"{rss[0]:.1f}, last {rss[-1]:.1f}, max {max(rss):.1f}")
        return c["wrong"] + c["failed"] + c["bad_wrong"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode",
                   choices=["latency", "book", "games", "load", "stall", "soak", "shutdown"])
    p.add_argument("file", nargs="*", help="Pons test sets (latency and load: the first)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--weak", action="store_true")
    p.add_argument("--limit", type=int, default=1000, help="lines of the set (latency, load)")
    p.add_argument("--depth", type=int, default=4, help="the book's depth (book)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--clients", type=int, help="clients (load: 8, soak: 3 good ones)")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--pid", type=int,
                   help="the server's process, for its memory and open files (load, stall, soak)")
    p.add_argument("--connections", type=int, default=1100, help="stalled connections (stall)")
    p.add_argument("--probes", type=int, default=20, help="health probes (stall)")
    p.add_argument("--minutes", type=float, default=30, help="how long (soak)")
    p.add_argument("--binary", default="target/release/transpo-c4",
                   help="the server binary (shutdown)")
    p.add_argument("--count", type=int, default=1000,
                   help="requests (book), games (games), servers started (shutdown)")
    p.add_argument("--csv", help="every request's row (games)")
    p.add_argument("--sigterm", action="store_true", help="SIGTERM, not SIGINT (shutdown)")
    p.add_argument("--pause", type=float, default=0.05,
                   help="mean pause in seconds between a good client's requests (soak)")
    p.add_argument("--hard", help="a test set of hard positions the leaving clients ask for "
                   "(soak; default: the last file)")
    args = p.parse_args()
    if args.mode == "shutdown":
        sys.exit(1 if shutdown(args) else 0)
    if args.mode == "games":
        sys.exit(1 if games(args) else 0)
    if args.mode == "stall":
        sys.exit(1 if stall(args) else 0)
    if args.mode == "soak":
        if not args.file:
            p.error("soak needs test-set files")
        args.clients = args.clients or 3
        problems = [pr for f in args.file for pr in read_set(f, args.limit)]
        hard = read_set(args.hard or args.file[-1], args.limit)
        sys.exit(1 if Soak(args, problems, hard).run() else 0)
    args.clients = args.clients or 8
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
        problems = read_set(args.file[0], args.limit)
        if args.mode == "latency":
            failed = one_at_a_time(args, problems, args.file[0])
        else:
            failed = load(args, problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
