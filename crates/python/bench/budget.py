"""Answers within a budget, measured: Kaggle ConnectX games against kaggle's ``negamax``
agent with ``best_move(..., max_seconds=S)`` (move times, W/D/L). The share of perfect moves
on Pons' Begin sets at a fixed time a move is ``begin_budget.py``'s.

    python crates/python/bench/budget.py kaggle --games 100 --seconds 1 --threads 2 --minutes 15

``kaggle`` plays first (``[ours, "negamax"]``) and stops starting games after ``--minutes``;
one solver plays every game, its table kept between moves and games, as an agent file's
module-level solver would. A move's time is from the agent's call to its return, reading the
board included.
"""

import argparse
import json
import statistics
import sys
import time

from transpo_c4 import Solver, from_kaggle


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def kaggle(args):
    from kaggle_environments import make

    solver = Solver(threads=args.threads, hash_mib=args.hash_mib)
    times, proven, results = [], [], []

    def agent(observation, configuration):
        start = time.perf_counter()
        answer = solver.best_move(
            from_kaggle(observation, configuration), max_seconds=args.seconds
        )
        times.append(time.perf_counter() - start)
        proven.append(answer.proven)
        return answer.column

    began = time.perf_counter()
    for game in range(args.games):
        if time.perf_counter() - began > args.minutes * 60:
            break
        env = make("connectx", debug=True)
        env.run([agent, "negamax"])
        ours, theirs = env.state[0], env.state[1]
        outcome = {1: "W", 0: "D", -1: "L"}.get(ours.reward, f"? {ours.status}/{theirs.status}")
        results.append(outcome)
        print(
            f"game {game + 1}: {outcome}, {len(env.steps) - 1} plies, "
            f"max move so far {max(times):.3f} s",
            file=sys.stderr,
            flush=True,
        )
    summary = {
        "games": len(results),
        "W": results.count("W"),
        "D": results.count("D"),
        "L": results.count("L"),
        "other": len(results) - results.count("W") - results.count("D") - results.count("L"),
        "moves": len(times),
        "proven_moves": sum(proven),
        "max_move_s": round(max(times), 4),
        "p99_move_s": round(percentile(times, 99), 4),
        "median_move_s": round(statistics.median(times), 4),
        "over_1_2_s": sum(t > 1.2 for t in times),
        "wall_s": round(time.perf_counter() - began, 1),
        "seconds": args.seconds,
        "threads": args.threads,
    }
    print(json.dumps(summary))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["kaggle"])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--hash-mib", type=int, default=128)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--minutes", type=float, default=15)
    args = parser.parse_args()
    kaggle(args)


if __name__ == "__main__":
    main()
