#!/usr/bin/env python3
"""Throughput of transpo_c4's solve_many on Pons' six test sets, beside `transpo-c4 bench`
with the same threads and beside Pons' binary driven the way c4a0 drives it (batches of
100 positions through a subprocess, one process per thread at a time).

    python crates/python/bench/speed.py --threads 2 --cli target/release/transpo-c4 \
        --pons /tmp/pons/c4solver --runs 2

Every score is checked against the set's expected one. Ratios are per run (ours and theirs
measured one after the other), sorted. Runs are interleaved (ours, the
CLI, Pons', then again) so that drifts of the machine's speed fall on all three. Times:
ours is the whole solve_many call (reading the positions included), on a fresh Solver
(128 MiB, no book, as `transpo-c4 bench` runs by default) whose pool a first, empty
solve_many made; the CLI's is its own sum of
solve times (its table cleared before each line, reading excluded); Pons' the wall time of
all his batches, process starts included.
"""

import argparse
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from transpo_c4 import Solver

SETS = [
    ("Test_L3_R1", "End-Easy", None),
    ("Test_L2_R1", "Middle-Easy", None),
    ("Test_L2_R2", "Middle-Medium", None),
    ("Test_L1_R1", "Begin-Easy", None),
    ("Test_L1_R2", "Begin-Medium", 200),
    ("Test_L1_R3", "Begin-Hard", 20),
]

UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def read_set(path, limit):
    lines = []
    with open(path) as f:
        for line in f:
            moves, score = line.split()
            lines.append((moves, int(score)))
            if limit is not None and len(lines) == limit:
                break
    return lines


def ours(lines, threads):
    solver = Solver(threads=threads, hash_mib=128, book=None)
    # The first solve_many makes the pool's table (128 MiB, every page touched: 0.1-0.5 s
    # here); the CLI's time leaves out making its table too.
    solver.solve_many([])
    positions = [m for m, _ in lines]
    start = time.perf_counter()
    scores = solver.solve_many(positions)
    took = time.perf_counter() - start
    expected = np.array([s for _, s in lines])
    wrong = int((scores != expected).sum())
    return took, wrong


def cli(binary, path, limit, threads):
    command = [binary, "bench", str(path), "--threads", str(threads), "--hash-mib", "128"]
    if limit is not None:
        command += ["--limit", str(limit)]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and cells[1].isdigit():
            positions, wrong = int(cells[1]), int(cells[2])
            value, unit = cells[3].split()
            return float(value) * UNITS[unit] * positions, wrong
    raise RuntimeError(f"no result in {out!r}")


def pons(binary, lines, threads, batch=100):
    """c4a0's way: chunks of `batch` positions to a fresh `c4solver` process each (his table
    made anew every time), `threads` processes at once."""
    chunks = [lines[i : i + batch] for i in range(0, len(lines), batch)]

    def run(chunk):
        text = "".join(m + "\n" for m, _ in chunk)
        # No book: his repository ships none (`-b` names a file that is not there).
        out = subprocess.run(
            [binary, "-b", "/nonexistent.book"], input=text, capture_output=True, text=True
        ).stdout.split()
        # Output: "moves score" per line.
        scores = [int(out[i + 1]) for i in range(0, len(out), 2)]
        return sum(1 for (m, s), got in zip(chunk, scores) if s != got) + len(chunk) - len(scores)

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        wrong = sum(pool.map(run, chunks))
    return time.perf_counter() - start, wrong


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[4] / "shared/data/connect4"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cli", help="transpo-c4 binary")
    parser.add_argument("--pons", help="Pons' c4solver binary")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--sets", default=",".join(s for s, _, _ in SETS))
    args = parser.parse_args()
    wanted = args.sets.split(",")
    import os

    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"threads {args.threads}, runs {args.runs}, load {load}; times per set")
    print("| set | lines | solve_many | transpo-c4 bench | ratio (bench/ours) | Pons c4a0-style | ratio (Pons/ours) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for file, name, limit in SETS:
        if file not in wanted:
            continue
        path = Path(args.data) / file
        lines = read_set(path, limit)
        runs = {"ours": [], "cli": [], "pons": []}
        for _ in range(args.runs):
            took, wrong = ours(lines, args.threads)
            assert wrong == 0, f"{name}: {wrong} wrong scores"
            runs["ours"].append(took)
            if args.cli:
                took, wrong = cli(args.cli, path, limit, args.threads)
                assert wrong == 0, f"{name}: the CLI has {wrong} wrong"
                runs["cli"].append(took)
            if args.pons:
                took, wrong = pons(args.pons, lines, args.threads)
                assert wrong == 0, f"{name}: Pons' has {wrong} wrong"
                runs["pons"].append(took)

        def cell(key):
            return ", ".join(f"{t:.3g} s" for t in runs[key]) if runs[key] else "-"

        def ratio(key):
            # Each run's pair (ours and theirs ran one after the other), lowest to highest.
            if not runs[key]:
                return "-"
            pairs = sorted(t / o for t, o in zip(runs[key], runs["ours"]))
            return ", ".join(f"{r:.2f}" for r in pairs)

        print(f"| {name} | {len(lines)} | {cell('ours')} | {cell('cli')} | {ratio('cli')} | {cell('pons')} | {ratio('pons')} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
