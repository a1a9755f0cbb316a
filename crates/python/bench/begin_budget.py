"""The share of perfect moves within a time a move, on Pons' Begin sets: ``best_move(position,
max_seconds=S)`` of a fresh ``Solver`` (2 threads; the built-in book, then none), and
connect-four-ai's HARD and IMPOSSIBLE players when its Python package is installed.

    python crates/python/bench/begin_budget.py --lines 1000 --seconds 0.1

Each set (``../shared/data/connect4/Test_L1_R1``, ``_R2``, ``_R3``: Begin-Easy, -Medium,
-Hard) is read from its first ``--lines`` lines. Each move is asked on a cleared table, so
that no position profits from the one before; its time is the call's, from Python. The moves
are rated by ``Solver.rate`` with another solver (unbudgeted), so the budgeted solver's table
holds only what its own searches stored.

connect-four-ai has no time budget: its ``AIPlayer``
solves every column to the end, then IMPOSSIBLE plays the best and HARD draws by a softmax
over the scores (temperature 0.025 of the largest score possible). Its rows say so and give
its time a move, its solver reset before each. PyPI has Windows wheels of it only; elsewhere
build it from source (docs/connect4/python.md, 2026-11-29, "a late move within a budget"):

    git clone https://github.com/benjaminrall/connect-four-ai /tmp/c4ai-src
    cd /tmp/c4ai-src/crates
    maturin build --release -m python/Cargo.toml -i "$(which python)" -o /tmp/c4ai-wheels
    pip install --ignore-requires-python /tmp/c4ai-wheels/connect_four_ai-*.whl
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from transpo_c4 import Solver

DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "connect4"
BEGIN = {"Test_L1_R1": "Begin-Easy", "Test_L1_R2": "Begin-Medium", "Test_L1_R3": "Begin-Hard"}


def first_lines(path, count):
    with open(path) as f:
        return [line.split()[0] for _, line in zip(range(count), f) if line.strip()]


def timed(move, clear):
    """``move`` as an agent that clears before each call and records each call's time."""
    times = []

    def agent(moves):
        clear()
        start = time.perf_counter()
        column = move(moves)
        times.append(time.perf_counter() - start)
        return column

    return agent, times


def ours(lines, judge, seconds, threads, book):
    solver = Solver(threads=threads, book=book)
    proven = []

    def move(moves):
        answer = solver.best_move(moves, max_seconds=seconds)
        proven.append(answer.proven)
        return answer.column

    agent, times = timed(move, solver.clear)
    rating = judge.rate(agent, lines)
    return rating, times, f"{sum(proven)}"


def theirs(lines, judge, difficulty):
    import connect_four_ai as cfai

    player = cfai.AIPlayer(getattr(cfai.Difficulty, difficulty))
    agent, times = timed(
        lambda moves: player.get_move(cfai.Position.from_moves(moves)), player.reset
    )
    rating = judge.rate(agent, lines)
    return rating, times, "all (no budget)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1000, help="lines of each set (1000: all)")
    parser.add_argument("--seconds", type=float, default=0.1, help="time a move, in seconds")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--without-peer", action="store_true", help="leave connect-four-ai out even if installed"
    )
    args = parser.parse_args()
    try:
        if args.without_peer:
            raise ImportError("left out")
        import connect_four_ai  # noqa: F401

        others = ["HARD", "IMPOSSIBLE"]
    except ImportError:
        others = []
        print(
            "connect-four-ai is left out (--without-peer) or not installed (see this script's "
            "docstring): its rows are left out",
            file=sys.stderr,
        )

    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"first {args.lines} lines of each set, {args.seconds} s a move, {args.threads} "
        f"threads, load {load}, {time.strftime('%Y-%m-%d')}\n",
        flush=True,
    )
    print("| set | player | positions | perfect | good | proven | mean move s | longest move s |")
    print("|---|---|---|---|---|---|---|---|")
    for name, label in BEGIN.items():
        path = DATA / name
        if not path.is_file():
            print(f"{path} is missing", file=sys.stderr)
            continue
        lines = first_lines(path, args.lines)
        judge = Solver(threads=args.threads)
        players = [
            (f"transpo_c4, book {book or 'none'}", lambda b=book: ours(
                lines, judge, args.seconds, args.threads, b
            ))
            for book in ("built-in", None)
        ] + [
            (f"connect-four-ai {d}", lambda d=d: theirs(lines, judge, d)) for d in others
        ]
        for index, (player, run) in enumerate(players):
            rating, times, proven = run()
            if index == 0:
                print(
                    f"| {label} | a random agent (expected) | {rating.positions} "
                    f"| {rating.random_perfect_rate:.1%} | {rating.random_good_rate:.1%} "
                    "| | | |"
                )
            print(
                f"| {label} | {player} | {rating.positions} | {rating.perfect_rate:.1%} "
                f"| {rating.good_rate:.1%} | {proven} | {statistics.mean(times):.4f} "
                f"| {max(times):.4f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
