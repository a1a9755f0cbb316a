"""Real clients, installed from PyPI: PettingZoo's connect_four_v3, Kaggle's connectx and
OpenSpiel's connect_four. A client that is not installed is skipped with the reason
(pytest -rs prints it)."""

import random

import numpy as np
import pytest

from transpo_c4 import Solver, from_kaggle, from_openspiel, from_pettingzoo, to_grid, to_moves


def need(module):
    try:
        return pytest.importorskip(module, reason=f"{module} is not installed")
    except pytest.skip.Exception as skip:
        print(f"SKIPPED: {skip}")
        raise


@pytest.fixture(scope="module")
def solver():
    return Solver(threads=2, hash_mib=64)


def test_pettingzoo_observations_give_the_moves_positions(solver):
    need("pettingzoo")
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()
    rng = random.Random(1)
    from_obs, from_moves = [], []
    for game in range(100):
        env.reset(seed=game)
        moves = []
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            from_obs.append(from_pettingzoo(observation))
            from_moves.append(list(moves))
            # The observing agent named: the same position.
            assert to_grid(from_pettingzoo(observation, agent=agent)) == to_grid(moves)
            legal = np.flatnonzero(observation["action_mask"]).tolist()
            column = rng.choice(legal)
            env.step(column)
            moves.append(column)
    env.close()
    assert len(from_obs) > 1000
    assert [to_grid(p) for p in from_obs] == [to_grid(m) for m in from_moves]
    by_obs = solver.solve_many(from_obs)
    by_moves = solver.solve_many(from_moves)
    assert by_obs.tolist() == by_moves.tolist()


def plain_grid(moves):
    """The 6x7 grid (row 0 the top; 1 the first player, 2 the second) after ``moves``
    (0-based columns, or a move string from 1), built here without the package."""
    if isinstance(moves, str):
        moves = [int(c) - 1 for c in moves]
    grid = [[0] * 7 for _ in range(6)]
    heights = [0] * 7
    for i, column in enumerate(moves):
        heights[column] += 1
        grid[6 - heights[column]][column] = 1 + i % 2
    return grid


def test_pettingzoo_both_agents_views_are_read_right_or_refused(solver):
    """Both agents' views at every ply of 1,000 random games: with the agent named or the
    dict's action mask, every position is read right; bare planes with as many stones each
    (whose observer nobody can tell) are refused, never guessed; a game that is over is
    refused."""
    need("pettingzoo")
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()
    rng = random.Random(2)
    wrong, silent, refused_wrongly, right, refused = [], [], [], 0, 0
    planes, agents, truths = [], [], []
    for game in range(1000):
        env.reset(seed=game)
        moves = []
        while True:
            over = any(env.terminations.values()) or any(env.truncations.values())
            truth = None if over else plain_grid(moves)
            for agent in ("player_0", "player_1"):
                observation = env.observe(agent)
                bare = observation["observation"]
                equal = int(bare[..., 0].sum()) == int(bare[..., 1].sum())
                calls = {
                    "dict": lambda: from_pettingzoo(observation),
                    "dict, agent": lambda: from_pettingzoo(observation, agent=agent),
                    "planes, agent": lambda: from_pettingzoo(bare, agent=agent),
                    "planes": lambda: from_pettingzoo(bare),
                }
                for how, call in calls.items():
                    try:
                        got = plain_grid(call())
                    except ValueError:
                        refused += 1
                        if truth is not None and not (how == "planes" and equal):
                            refused_wrongly.append((game, moves[:], agent, how))
                        continue
                    if truth is None or got != truth:
                        wrong.append((game, moves[:], agent, how))
                    elif how == "planes" and equal:
                        silent.append((game, moves[:], agent, how))
                    else:
                        right += 1
                if truth is not None:
                    planes.append(bare)
                    agents.append(agent)
                    truths.append(moves[:])
            if over:
                break
            legal = [c for c in range(7) if plain_grid(moves)[0][c] == 0]
            column = rng.choice(legal)
            env.step(column)
            moves.append(column)
    env.close()
    print(f"PettingZoo views: {right} read right, {refused} refused, {len(wrong)} wrong, {len(silent)} guessed")
    assert not wrong, f"{len(wrong)} wrong, e.g. {wrong[:3]}"
    assert not silent, f"{len(silent)} guessed, e.g. {silent[:3]}"
    assert not refused_wrongly, f"{len(refused_wrongly)} refused, e.g. {refused_wrongly[:3]}"
    assert right > 100_000 and refused > 10_000, (right, refused)
    # The same views as one array of planes with their agents: the positions' scores.
    sample = random.Random(3).sample(range(len(planes)), 2000)
    by_planes = solver.solve_many(np.array([planes[i] for i in sample]), agents=[agents[i] for i in sample])
    by_moves = solver.solve_many([truths[i] for i in sample])
    assert by_planes.tolist() == by_moves.tolist()


def play_pettingzoo(solver, ours, seed):
    """A game of connect_four_v3: our agent (``ours``, "player_0" or "player_1") picks a best
    move, the other a random legal one. Our agent's final reward."""
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()
    env.reset(seed=seed)
    rng = random.Random(seed)
    rewards = {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        rewards[agent] = reward
        if terminated or truncated:
            env.step(None)
            continue
        if agent == ours:
            column = rng.choice(solver.best_moves(from_pettingzoo(observation)))
        else:
            column = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
        env.step(column)
    env.close()
    return rewards[ours]


def test_pettingzoo_our_agent_never_loses_to_random(solver):
    need("pettingzoo")
    results = [play_pettingzoo(solver, ours, seed) for seed in range(10) for ours in ["player_0", "player_1"]]
    assert min(results) >= 0, results
    # As the first player, perfect play wins every game.
    assert all(r == 1 for r in results[::2]), results


def kaggle_agent(solver, seed):
    rng = random.Random(seed)

    def agent(observation, configuration):
        position = from_kaggle(observation, configuration)
        return rng.choice(solver.best_moves(position))

    return agent


@pytest.mark.parametrize("seed", [1, 2])
def test_kaggle_our_agent_beats_negamax(solver, seed):
    need("kaggle_environments")
    from kaggle_environments import make

    for first in [True, False]:
        env = make("connectx", debug=True, configuration={"actTimeout": 60, "runTimeout": 1200})
        ours = kaggle_agent(solver, seed)
        agents = [ours, "negamax"] if first else ["negamax", ours]
        steps = env.run(agents)
        final = steps[-1]
        me = final[0] if first else final[1]
        assert me["status"] == "DONE", final
        if first:
            assert me["reward"] == 1, f"first player, seed {seed}: {final}"
        else:
            assert me["reward"] is not None and me["reward"] >= 0, f"second player, seed {seed}: {final}"


def test_openspiel_states_give_the_moves_positions(solver):
    pyspiel = need("pyspiel")
    game = pyspiel.load_game("connect_four")
    rng = random.Random(3)
    from_state, from_history = [], []
    while len(from_state) < 200:
        state = game.new_initial_state()
        for _ in range(rng.randrange(0, 30)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        from_state.append(from_openspiel(state))
        from_history.append(state.history())
    assert [to_grid(p) for p in from_state] == [to_grid(h) for h in from_history]
    assert solver.solve_many(from_state).tolist() == solver.solve_many(from_history).tolist()
    # The grid order need not be the history's, but it reaches the same board.
    assert any(to_moves(s) != to_moves(h) for s, h in zip(from_state, from_history))
