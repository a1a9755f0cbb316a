#!/usr/bin/env python3
"""Labels a second where self-play lives: random positions of 8-20 stones, scored strong and
weak by transpo_c4's solve_many, beside Pons' binary driven the way c4a0 drives it (chunks
of 100 positions to a fresh `c4solver` process each, `--threads` processes at once).

    python crates/python/bench/labels.py --threads 2 --pons /tmp/pons/c4solver \
        --positions 400 --seed 1

The positions: for each, a stone count drawn uniformly from 8..=20 and a game of uniformly
random moves played to it, started again if a move wins before
the count is reached (so no position is over, as Pons' reader requires). One position per game: positions of one
game share their subtrees, which would flatter any solver that keeps its table.

What is timed, per strength:
- ours: one `solve_many(positions)` on `Solver(weak=, threads=, hash_mib=, book=)` made for
  the run (its table and helper threads made before the clock starts, empty);
- Pons: the same positions, c4a0's way, wall time; no book (his repository ships none).

Every score of ours is checked against Pons'. Printed: labels a second of each and their
ratio, then ours by stone count (each count's positions in a `solve_many` of their own on
a cleared table), to show where the time goes.
"""

import argparse
import os
import random
import subprocess
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

from transpo_c4 import Solver, to_moves

WIDTH, HEIGHT = 7, 6


def random_position(rng, stones):
    """Moves (a string of 1-based columns) of a random game `stones` long that nobody won:
    a column with room at random, and the game started again if the package's reader
    refuses the move (it connects four)."""
    moves = ""
    while len(moves) < stones:
        col = rng.choice([c for c in range(WIDTH) if moves.count(str(c + 1)) < HEIGHT])
        try:
            moves = to_moves(moves + str(col + 1))
        except ValueError:
            moves = ""
    return moves


def pons(binary, positions, weak, threads, batch=100):
    """c4a0's way: chunks of `batch` positions to a fresh process each. Scores and wall time."""
    chunks = [positions[i : i + batch] for i in range(0, len(positions), batch)]
    flags = ["-b", "/nonexistent.book"] + (["-w"] if weak else [])

    def run(chunk):
        text = "".join(m + "\n" for m in chunk)
        out = subprocess.run([binary, *flags], input=text, capture_output=True, text=True)
        words = out.stdout.split()
        return [int(words[i + 1]) for i in range(0, len(words), 2)]

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        scores = [s for part in pool.map(run, chunks) for s in part]
    return scores, time.perf_counter() - start


def ours(positions, weak, threads, hash_mib, book):
    solver = Solver(weak=weak, threads=threads, hash_mib=hash_mib, book=book)
    solver.solve_many(["4"])  # makes the table and starts the helpers
    solver.clear()
    start = time.perf_counter()
    scores = solver.solve_many(positions)
    return [int(s) for s in scores], time.perf_counter() - start, solver


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--hash-mib", type=int, default=128)
    parser.add_argument("--book", default="built-in", help='"built-in", a file, or "none"')
    parser.add_argument("--pons", help="Pons' c4solver binary (left out if not given)")
    parser.add_argument("--strength", choices=["strong", "weak", "both"], default="both")
    parser.add_argument("--by-stones", action="store_true", help="ours by stone count too")
    args = parser.parse_args()
    book = None if args.book == "none" else args.book

    rng = random.Random(args.seed)
    positions = [random_position(rng, rng.randint(8, 20)) for _ in range(args.positions)]
    mean = sum(map(len, positions)) / len(positions)
    print(
        f"{len(positions)} positions, {mean:.1f} stones on average, seed {args.seed}, "
        f"{args.threads} threads, {args.hash_mib} MiB, book {args.book}, "
        f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    strengths = {"strong": [False], "weak": [True], "both": [False, True]}[args.strength]
    for weak in strengths:
        name = "weak" if weak else "strong"
        mine, took, solver = ours(positions, weak, args.threads, args.hash_mib, book)
        line = f"{name:6} ours {len(positions) / took:8.1f} labels/s ({took:.2f} s)"
        if args.pons:
            theirs, their_took = pons(args.pons, positions, weak, args.threads)
            if weak:
                # His weak solve answers a win at once with its strong score: compare signs.
                theirs = [(s > 0) - (s < 0) for s in theirs]
            wrong = sum(a != b for a, b in zip(mine, theirs)) + abs(len(mine) - len(theirs))
            assert wrong == 0, f"{wrong} scores differ from Pons'"
            line += (
                f"   Pons {len(positions) / their_took:8.1f} labels/s ({their_took:.2f} s)"
                f"   ours / Pons {their_took / took:.2f}x   0 differ"
            )
        print(line, flush=True)
        if args.by_stones:
            groups = defaultdict(list)
            for p in positions:
                groups[len(p)].append(p)
            for stones in sorted(groups):
                solver.clear()
                start = time.perf_counter()
                solver.solve_many(groups[stones])
                t = time.perf_counter() - start
                print(
                    f"    {stones:2} stones: {len(groups[stones]):4} positions, "
                    f"{t:7.3f} s, {1e3 * t / len(groups[stones]):8.2f} ms each"
                )


if __name__ == "__main__":
    main()
