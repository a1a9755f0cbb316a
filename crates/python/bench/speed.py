#!/usr/bin/env python3
"""Throughput of transpo_c4's solve_many on Pons' six test sets, beside `transpo-c4 bench`
with the same threads and beside Pons' binary driven the way c4a0 drives it (batches of
100 positions through a subprocess, one process per thread at a time).

    python crates/python/bench/speed.py --threads 2 --cli /tmp/transpo-c4 \
        --pons /tmp/pons/c4solver --runs 3 --min-time 1

What is compared, set by set (Begin-Medium: its first 200 lines; Begin-Hard: 20):
- ours: one `solve_many(set)` call on a `Solver(threads, hash_mib=128, book=None)` (no book,
  as `transpo-c4 bench` runs by default), cleared just before it (`clear()`, untimed: the
  table forgets everything, in O(1)). Its time is the whole call, reading the Python
  strings included. solve_many's table is made, and its helper threads started, before
  anything is timed.
- the bench: `transpo-c4 bench` with the same threads and `--hash-mib 128`; the time of a
  repetition is its result row, the bench's own sum of solve times (its table cleared
  before each line, reading the lines and making the table left out).
- Pons: the set through his `c4solver`, c4a0's way (batches of 100 positions, a fresh
  process each, `--threads` at a time, no book: he ships none), wall time.

A round is `pairs` pairs of repetitions of the set, one of the bench and then one of ours,
each right after the other; `pairs` is such that ours adds up to `--min-time` seconds (at
least 1, at most 500). One bench process runs a round's repetitions: it reads the set
from a named pipe per repetition, which this writes only once ours has run, and it opens
the next pipe only once it has solved the set. Pons' run comes after a round's pairs in
even rounds and before them in odd ones; there are `--runs` rounds.

Printed per set: the median and the best (least) time of a repetition, ours and the
bench's, over all rounds; bench ÷ ours as the median over all pairs of each pair's ratio
(the goal is >= 0.95), as the ratio of the bests, and as each round's median over its
pairs; Pons ÷ ours of each round (his time over the median of ours in that round) and of
all rounds (the sum of his times over the sum of those medians; the goal is >= 3). A ratio above 1 means ours is faster. Every score is checked against the set's.
"""

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
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


def ours_once(solver, positions, expected):
    """The time of one solve_many(positions) on `solver`, cleared before it (untimed)."""
    solver.clear()
    start = time.perf_counter()
    scores = solver.solve_many(positions)
    took = time.perf_counter() - start
    wrong = int((scores != expected).sum())
    assert wrong == 0, f"ours: {wrong} wrong scores"
    return took


def paired(solver, positions, expected, binary, limit, threads, reps):
    """`reps` pairs of one bench repetition and then one of ours, each pair right after the
    other: one `transpo-c4 bench` process reads the set `reps` times, each time from a named
    pipe this writes only once ours of the pair before has run, and whose next pipe it opens
    only once it has solved the set. Returns (ours' times, the bench's times)."""
    mine = []
    if binary is None:
        return [ours_once(solver, positions, expected) for _ in range(reps)], []
    # The set's first lines only: the bench closes the pipe after --limit lines.
    text = "".join(f"{m} {e}\n" for m, e in zip(positions, expected))
    with tempfile.TemporaryDirectory() as tmp:
        pipes = [os.path.join(tmp, f"set{i}") for i in range(reps)]
        for pipe in pipes:
            os.mkfifo(pipe)
        command = [binary, "bench"] + pipes
        command += ["--threads", str(threads), "--hash-mib", "128"]
        if limit is not None:
            command += ["--limit", str(limit)]
        bench = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for i, pipe in enumerate(pipes):
            # Opening blocks until the bench opens it: it has finished the set before.
            with open(pipe, "w") as f:
                if i > 0:
                    # The bench has solved set i - 1 (it opened this pipe): ours' turn.
                    mine.append(ours_once(solver, positions, expected))
                f.write(text)
        out, _ = bench.communicate()
        mine.append(ours_once(solver, positions, expected))
        if bench.returncode != 0:
            raise RuntimeError(f"the bench failed: {out!r}")
    times = []
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and cells[1].isdigit():
            count, wrong = int(cells[1]), int(cells[2])
            assert wrong == 0, f"the bench has {wrong} wrong"
            value, unit = cells[3].split()
            times.append(float(value) * UNITS[unit] * count)
    if len(times) != reps:
        raise RuntimeError(f"{len(times)} result rows, not {reps}, in {out!r}")
    return mine, times


def pons(binary, lines, threads, batch=100):
    """c4a0's way: chunks of `batch` positions to a fresh `c4solver` process each (his table
    made anew every time), `threads` processes at once. Wall time."""
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
    took = time.perf_counter() - start
    assert wrong == 0, f"Pons' has {wrong} wrong"
    return took


def seconds(t):
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


def load():
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[4] / "shared/data/connect4"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cli", help="transpo-c4 binary")
    parser.add_argument("--pons", help="Pons' c4solver binary")
    parser.add_argument("--runs", type=int, default=3, help="rounds")
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds of ours a round")
    parser.add_argument("--sets", default=",".join(s for s, _, _ in SETS))
    args = parser.parse_args()
    wanted = args.sets.split(",")

    print(f"threads {args.threads}, rounds {args.runs}, min-time {args.min_time} s, load {load()}")
    print(
        "| set | lines | pairs a round | load | ours: median, best | bench: median, best "
        "| bench ÷ ours: pairs' median, bests | each round's pairs' median | Pons, each round "
        "| Pons ÷ ours: each round; all |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    solver = Solver(threads=args.threads, hash_mib=128, book=None)
    # Makes solve_many's table (128 MiB, every page touched: 0.5-1.5 s here) and starts its
    # helper threads, untimed: the bench's time leaves out making its table too.
    solver.solve_many([])
    for file, name, limit in SETS:
        if file not in wanted:
            continue
        lines = read_set(Path(args.data) / file, limit)
        positions = [m for m, _ in lines]
        expected = np.array([s for _, s in lines])
        load_before = load()
        # Pairs a round: enough for `--min-time` seconds of ours (a first, untimed run says).
        first = ours_once(solver, positions, expected)
        reps = max(1, min(500, math.ceil(args.min_time / first)))
        rounds = []
        for r in range(args.runs):
            got = {}
            if args.pons and r % 2 == 1:
                got["pons"] = pons(args.pons, lines, args.threads)
            got["ours"], got["cli"] = paired(
                solver, positions, expected, args.cli, limit, args.threads, reps
            )
            if args.pons and r % 2 == 0:
                got["pons"] = pons(args.pons, lines, args.threads)
            rounds.append(got)
        every = {k: [t for g in rounds for t in g[k]] for k in ("ours", "cli")}
        o_med, o_best = statistics.median(every["ours"]), min(every["ours"])
        cells = [name, str(len(lines)), str(reps), f"{load_before} → {load()}"]
        cells.append(f"{seconds(o_med)}, {seconds(o_best)}")
        if every["cli"]:
            c_med, c_best = statistics.median(every["cli"]), min(every["cli"])
            pairs = [c / o for g in rounds for c, o in zip(g["cli"], g["ours"])]
            each = [
                statistics.median(c / o for c, o in zip(g["cli"], g["ours"])) for g in rounds
            ]
            cells.append(f"{seconds(c_med)}, {seconds(c_best)}")
            cells.append(f"**{statistics.median(pairs):.2f}**, {c_best / o_best:.2f}")
            cells.append(", ".join(f"{x:.2f}" for x in each))
        else:
            cells += ["-", "-", "-"]
        if args.pons:
            cells.append(", ".join(seconds(g["pons"]) for g in rounds))
            each = [g["pons"] / statistics.median(g["ours"]) for g in rounds]
            pooled = sum(g["pons"] for g in rounds) / sum(statistics.median(g["ours"]) for g in rounds)
            cells.append(", ".join(f"{x:.1f}" for x in each) + f"; all: **{pooled:.1f}**")
        else:
            cells += ["-", "-"]
        print("| " + " | ".join(cells) + " |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
