#!/usr/bin/env python3
"""How fast solve_many reads a batch, by the form it comes in: Pons' End-Easy set (1,000
positions, 2 ms of solving) given as move strings, column lists, nested-list grids, and as
numpy arrays of grids (N×6×7), Kaggle boards (N×42) and PettingZoo planes (N×6×7×2 with the
agents to move), and Kaggle boards read one at a time through from_kaggle.

    python crates/python/bench/read_speed.py [--repeat 20] [--threads 2] [--copies 10] [--forms strings]

Each form is timed as one solve_many call on a Solver(threads, hash_mib=128, book=None)
cleared (untimed) just before it, so that each call solves the same way; `--copies` repeats
the set in the batch. The median of `--repeat` calls is printed, with microseconds per
position; every call's scores are checked against the set's. A form this version of the
package does not take prints "refused" with the exception.
"""

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

import transpo_c4
from transpo_c4 import Solver


def load(path):
    lines = [line.split() for line in open(path)]
    return [moves for moves, _ in lines], np.array([int(score) for _, score in lines])


def forms(moves):
    """Every form of the positions, built here from the move strings."""
    columns = [[int(c) - 1 for c in m] for m in moves]
    grids = np.zeros((len(moves), 6, 7), dtype=np.int8)
    for n, cols in enumerate(columns):
        heights = [0] * 7
        for i, c in enumerate(cols):
            heights[c] += 1
            grids[n, 6 - heights[c], c] = 1 + i % 2
    agents = np.array([len(c) % 2 for c in columns])
    mine = agents.reshape(-1, 1, 1) + 1
    planes = np.stack([grids == mine, (grids != 0) & (grids != mine)], axis=3).astype(np.int8)
    config = {"rows": 6, "columns": 7, "inarow": 4}
    boards = grids.reshape(len(moves), 42)
    return {
        "move strings": lambda s: s.solve_many(moves),
        "column lists": lambda s: s.solve_many(columns),
        "grids, nested lists": lambda s: s.solve_many(grids.tolist()),
        "grids, N×6×7 array": lambda s: s.solve_many(grids),
        "Kaggle boards, N×42 array": lambda s: s.solve_many(boards),
        "PettingZoo planes, N×6×7×2 array + agents": lambda s: s.solve_many(planes, agents=agents),
        "Kaggle boards, from_kaggle each": lambda s: s.solve_many(
            [transpo_c4.from_kaggle({"board": b}, config) for b in boards.tolist()]
        ),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[4] / "shared/data/connect4"))
    parser.add_argument("--set", default="Test_L3_R1")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--forms", default="", help="only the forms whose names contain this")
    args = parser.parse_args()
    moves, scores = load(Path(args.data) / args.set)
    moves, scores = moves * args.copies, np.tile(scores, args.copies)
    solver = Solver(threads=args.threads, hash_mib=128, book=None)
    solver.solve_many(moves[:10])  # the crew's table made, its helpers started
    print(f"transpo_c4 {getattr(transpo_c4, '__version__', '?')} from {Path(transpo_c4.__file__).parent}")
    print(f"{args.set}: {len(moves)} positions, {args.threads} threads, median of {args.repeat}")
    for name, call in forms(moves).items():
        if args.forms not in name:
            continue
        times = []
        try:
            for _ in range(args.repeat):
                solver.clear()
                start = time.perf_counter()
                got = call(solver)
                times.append(time.perf_counter() - start)
                assert (got == scores).all(), name
        except (TypeError, ValueError) as e:
            print(f"  {name:45} refused: {type(e).__name__}: {str(e)[:60]}")
            continue
        median = statistics.median(times)
        print(f"  {name:45} {median * 1e3:8.2f} ms  {median / len(moves) * 1e6:6.2f} µs a position")


if __name__ == "__main__":
    main()
