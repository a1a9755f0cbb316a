#!/usr/bin/env python3
"""What a person playing from the empty board waits for: random games on a running
`transpo-c4 serve`, every position of each asked of `/api/solve` one at a time, as the page
asks it, and the latency of each (client side, wall clock).

    scripts/game_latency.py BASE_URL [--games 10] [--seed 1] [--think-ms 0] [--csv FILE]

A game starts at the empty board and plays uniformly random columns with room until the
next move would win or fill the board (the API answers positions that are not over, so the
game's last position is the one before that move). `--think-ms` waits that long between an
answer and the next request, like a person thinking (for a server that uses the time).
Prints p50, p90, p99, max and the count over 1 s and over 3 s; `--csv` keeps every request
(`game,stones,moves,ms,book`). Standard library only.
"""

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request


def board_of(base):
    """The served board's width and height (7x6 for a server that does not say)."""
    with urllib.request.urlopen(f"{base}/api/health", timeout=30) as answer:
        health = json.load(answer)
    return health.get("width", 7), health.get("height", 6)


def column_name(col):
    """1-9, then a, b, ... for columns 10, 11, ... (0-based col)."""
    return str(col + 1) if col < 9 else chr(ord("a") + col - 9)


def wins(grid, width, height, col, row, player):
    """Whether `player`'s disc at (col, row) makes four in a row."""
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while 0 <= c < width and 0 <= r < height and grid[c][r] == player:
                run += 1
                c, r = c + sign * dc, r + sign * dr
        if run >= 4:
            return True
    return False


def game(rng, width, height):
    """The move sequences of one random game's positions, from the empty board."""
    grid = [[0] * height for _ in range(width)]
    heights = [0] * width
    moves = ""
    positions = [moves]
    while True:
        player = 1 + len(moves) % 2
        col = rng.choice([c for c in range(width) if heights[c] < height])
        row = heights[col]
        if wins(grid, width, height, col, row, player) or len(moves) + 1 == width * height:
            return positions
        grid[col][row] = player
        heights[col] += 1
        moves += column_name(col)
        positions.append(moves)


def percentile(sorted_ms, p):
    """The nearest-rank percentile."""
    rank = max(1, -(-p * len(sorted_ms) // 100))
    return sorted_ms[int(rank) - 1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--think-ms", type=int, default=0)
    parser.add_argument("--csv")
    args = parser.parse_args()
    base = args.base.rstrip("/")
    width, height = board_of(base)
    rng = random.Random(args.seed)
    rows = []
    for g in range(args.games):
        for moves in game(rng, width, height):
            started = time.monotonic()
            try:
                with urllib.request.urlopen(f"{base}/api/solve?pos={moves}", timeout=600) as answer:
                    body = json.load(answer)
            except urllib.error.HTTPError as e:
                sys.exit(f"game {g}, {moves!r}: HTTP {e.code}: {e.read().decode(errors='replace')}")
            ms = (time.monotonic() - started) * 1000
            rows.append((g, len(moves), moves, ms, body.get("book", False)))
            if args.think_ms:
                time.sleep(args.think_ms / 1000)
    if args.csv:
        with open(args.csv, "w") as out:
            out.write("game,stones,moves,ms,book\n")
            for g, stones, moves, ms, book in rows:
                out.write(f"{g},{stones},{moves or '-'},{ms:.1f},{int(book)}\n")
    ms = sorted(r[3] for r in rows)
    worst = max(rows, key=lambda r: r[3])
    print(
        f"{len(rows)} requests, {args.games} games: p50 {percentile(ms, 50):.0f} ms, "
        f"p90 {percentile(ms, 90):.0f} ms, p99 {percentile(ms, 99):.0f} ms, max {ms[-1]:.0f} ms "
        f"({worst[2] or '-'}), over 1 s: {sum(m > 1000 for m in ms)}, "
        f"over 3 s: {sum(m > 3000 for m in ms)}"
    )


if __name__ == "__main__":
    main()
