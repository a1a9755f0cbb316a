#!/usr/bin/env python3
"""How fast solve_many reads a batch, by the form it comes in: Pons' End-Easy set (1,000
positions, 2 ms of solving) given as move strings, column lists, nested-list grids, and as
numpy arrays of grids (N×6×7), Kaggle boards (N×42) and PettingZoo planes (N×6×7×2 with the
agents to move), and Kaggle boards read one at a time through from_kaggle.

    python crates/python/bench/read_speed.py [--repeat 20] [--threads 2] [--copies 10] [--forms strings]

Each form is timed as one solve_many call on a Solver(threads, hash_mib=128, book=None)
cleared (untimed) just before it, so that each call solves the same way; `--copies` repeats
the set in the batch (every chosen form's input is built, untimed, before the first call).
The forms take turns, one call each a round, `--repeat` rounds; the median of each form's
calls is printed, with microseconds per position and its rate against move strings' (when
they are among the forms); every call's scores are checked against the set's. A form this version of the
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


def forms(moves, copies):
    """Every form of the positions `copies` times over, each built from the move strings
    when it is asked for (untimed): a name, and a function of nothing that gives the
    form's call."""
    columns = [[int(c) - 1 for c in m] for m in moves]
    grids = np.zeros((len(moves), 6, 7), dtype=np.int8)
    for n, cols in enumerate(columns):
        heights = [0] * 7
        for i, c in enumerate(cols):
            heights[c] += 1
            grids[n, 6 - heights[c], c] = 1 + i % 2
    agents = np.array([len(c) % 2 for c in columns])
    grids, agents = np.tile(grids, (copies, 1, 1)), np.tile(agents, copies)

    def planes():
        mine = agents.reshape(-1, 1, 1) + 1
        both = np.stack([grids == mine, (grids != 0) & (grids != mine)], axis=3)
        return both.astype(np.int8)

    config = {"rows": 6, "columns": 7, "inarow": 4}
    boards = grids.reshape(len(grids), 42)
    return {
        "move strings": lambda: (lambda s, m=moves * copies: s.solve_many(m)),
        "column lists": lambda: (lambda s, c=columns * copies: s.solve_many(c)),
        "grids, nested lists": lambda: (lambda s, g=grids.tolist(): s.solve_many(g)),
        "grids, N×6×7 array": lambda: (lambda s: s.solve_many(grids)),
        "Kaggle boards, N×42 array": lambda: (lambda s: s.solve_many(boards)),
        "PettingZoo planes, N×6×7×2 array + agents": lambda: (
            lambda s, p=planes(): s.solve_many(p, agents=agents)
        ),
        "Kaggle boards, from_kaggle each": lambda: (
            lambda s, b=boards.tolist(): s.solve_many(
                [transpo_c4.from_kaggle({"board": x}, config) for x in b]
            )
        ),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[4] / "shared/data/connect4"))
    parser.add_argument("--set", default="Test_L3_R1")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--forms", default="", help="only the forms whose names contain one of these (comma-separated)")
    args = parser.parse_args()
    moves, scores = load(Path(args.data) / args.set)
    count, scores = len(moves) * args.copies, np.tile(scores, args.copies)
    solver = Solver(threads=args.threads, hash_mib=128, book=None)
    solver.solve_many(moves[:10])  # the crew's table made, its helpers started
    print(f"transpo_c4 {getattr(transpo_c4, '__version__', '?')} from {Path(transpo_c4.__file__).parent}")
    print(f"{args.set}: {count} positions, {args.threads} threads, median of {args.repeat}")
    # The forms' calls take turns, one call each a round, so that the machine's drift
    # falls on every form alike and the ratios to move strings are of the same moments.
    calls = {
        name: build()
        for name, build in forms(moves, args.copies).items()
        if any(part in name for part in args.forms.split(","))
    }
    times = {name: [] for name in calls}
    for _ in range(args.repeat):
        for name, call in list(calls.items()):
            solver.clear()
            start = time.perf_counter()
            try:
                got = call(solver)
            except (TypeError, ValueError) as e:
                print(f"  {name:45} refused: {type(e).__name__}: {str(e)[:60]}")
                del calls[name], times[name]
                continue
            times[name].append(time.perf_counter() - start)
            assert (got == scores).all(), name
    strings = statistics.median(times["move strings"]) if "move strings" in times else None
    for name, taken in times.items():
        median = statistics.median(taken)
        ratio = f"  {strings / median:.2f}x strings' rate" if strings else ""
        print(f"  {name:45} {median * 1e3:8.2f} ms  {median / count * 1e6:6.2f} µs a position{ratio}")


if __name__ == "__main__":
    main()
