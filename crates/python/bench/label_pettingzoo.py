#!/usr/bin/env python3
"""The README's notebook-sized example: label 10,000 positions of random PettingZoo
connect_four_v3 games with their exact scores, and time it.

    python crates/python/bench/label_pettingzoo.py [--positions 10000] [--threads N]
"""

import argparse
import random
import time

import numpy as np
from pettingzoo.classic import connect_four_v3

import transpo_c4


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    # --- the example, as in the README ---
    start = time.perf_counter()
    env = connect_four_v3.env()
    rng = random.Random(args.seed)
    observations, agents = [], []
    game = 0
    while len(observations) < args.positions:
        env.reset(seed=args.seed + game)
        game += 1
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                break
            observations.append(observation["observation"])
            agents.append(agent)  # the observer: its planes alone do not say who moved first
            if len(observations) == args.positions:
                break
            env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    played = time.perf_counter() - start

    solver = transpo_c4.Solver(threads=args.threads)  # 7x6, the built-in book
    start = time.perf_counter()
    labels = solver.solve_many(np.array(observations), agents=agents)  # numpy int8
    solved = time.perf_counter() - start
    # --- end of the example ---
    # The same positions read one at a time, and solved again from the table.
    start = time.perf_counter()
    positions = [transpo_c4.from_pettingzoo(o, agent=a) for o, a in zip(observations, agents)]
    read = time.perf_counter() - start
    assert solver.solve_many(positions).tolist() == labels.tolist()

    print(
        f"{len(labels)} positions from {game} games: playing {played:.2f} s, "
        f"solve_many of the planes {solved:.2f} s, from_pettingzoo each {read:.2f} s "
        f"({solver.threads} threads); wins {int((labels > 0).sum())}, "
        f"draws {int((labels == 0).sum())}, losses {int((labels < 0).sum())}"
    )


if __name__ == "__main__":
    main()
