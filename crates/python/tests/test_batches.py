"""solve_many and analyse_many on numpy arrays read by their shape (N×k move lists, N×42
Kaggle boards, N×6×7 grids, N×6×7×2 PettingZoo planes with their agents): the same scores
as the positions given one at a time."""

import random

import numpy as np
import pytest

from transpo_c4 import FULL_COLUMN, Solver, to_moves


@pytest.fixture(scope="module")
def solver():
    return Solver(threads=2, hash_mib=32)


def random_games(count, length, seed):
    """``count`` random move lists of ``length`` moves (0-based columns) of games not over."""
    rng = random.Random(seed)
    games = []
    while len(games) < count:
        moves = []
        for _ in range(length):
            moves.append(rng.choice([c for c in range(7) if moves.count(c) < 6]))
        try:
            to_moves(moves)
        except ValueError:
            continue
        games.append(moves)
    return games


def layouts(games):
    """The same positions as grids (N×6×7), Kaggle boards (N×42) and the planes the agent
    to move observes (N×6×7×2, and the agents), built here from the moves."""
    grids = np.zeros((len(games), 6, 7), dtype=np.int64)
    for n, moves in enumerate(games):
        heights = [0] * 7
        for i, column in enumerate(moves):
            heights[column] += 1
            grids[n, 6 - heights[column], column] = 1 + i % 2
    agents = [len(moves) % 2 for moves in games]
    mine = np.array(agents).reshape(-1, 1, 1) + 1
    planes = np.stack([grids == mine, (grids != 0) & (grids != mine)], axis=3).astype(np.int8)
    return grids, grids.reshape(len(games), 42), planes, agents


@pytest.mark.parametrize("length", [14, 20, 27])
def test_every_layout_gives_the_same_scores(solver, length):
    games = random_games(150, length, seed=length)
    expected = solver.solve_many([to_moves(g) for g in games]).tolist()
    assert expected[:10] == [solver.solve(g) for g in games[:10]]
    grids, boards, planes, agents = layouts(games)
    assert solver.solve_many(np.array(games)).tolist() == expected
    assert solver.solve_many(grids).tolist() == expected
    assert solver.solve_many(boards.astype(np.uint8)).tolist() == expected
    assert solver.solve_many(planes, agents=agents).tolist() == expected
    names = np.array(["player_0", "player_1"])[agents]
    assert solver.solve_many(planes, agents=names).tolist() == expected
    # One agent for all: those whose counts agree with it, or say it themselves.
    if length % 2 == 0:
        assert solver.solve_many(planes, agents="player_0").tolist() == expected


def test_analyse_many_is_analyse_of_each(solver):
    games = random_games(40, 16, seed=5) + [[0] * 6, []]
    want = [[FULL_COLUMN if s is None else s for s in solver.analyse(g)] for g in games]
    grids, boards, planes, agents = layouts(games)
    for given, extra in [(games, {}), (grids, {}), (boards, {}), (planes, {"agents": agents})]:
        got = solver.analyse_many(given, **extra)
        assert got.dtype == np.int8 and got.shape == (len(games), 7)
        assert got.tolist() == want
    weak = Solver(weak=True, threads=2, hash_mib=8).analyse_many(grids)
    assert weak.tolist() == [[s if s == FULL_COLUMN else int(np.sign(s)) for s in row] for row in want]
    assert solver.analyse_many([]).shape == (0, 7)


def test_arrays_that_are_not_positions_say_why(solver):
    grids, boards, planes, agents = layouts(random_games(5, 12, seed=1))
    with pytest.raises(ValueError, match="cannot say"):
        solver.solve_many(planes)  # 12 stones: as many each, no agents
    with pytest.raises(ValueError, match="agents: 3 given for 5 positions"):
        solver.solve_many(planes, agents=[0, 1, 0])
    _, _, odd, odd_agents = layouts(random_games(5, 13, seed=1))
    lying = [a if i != 2 else 1 - a for i, a in enumerate(odd_agents)]
    with pytest.raises(ValueError, match="position 2: not a PettingZoo observation: the observation contradicts"):
        solver.solve_many(odd, agents=lying)
    bad = grids.copy()
    bad[3, 0, 0] = 300
    with pytest.raises(ValueError, match="position 3: a value of 300, not a cell"):
        solver.solve_many(bad)
    bad[3, 0, 0] = 1
    with pytest.raises(ValueError, match=r"position 3: not a position to solve on 7x6: "):
        solver.solve_many(bad)
    with pytest.raises(ValueError, match="a 5×7×6 array: an array of N positions"):
        solver.solve_many(grids.transpose(0, 2, 1))
    with pytest.raises(TypeError, match="cells and columns are ints"):
        solver.solve_many(grids.astype(float))
    with pytest.raises(TypeError, match="agents= goes with"):
        solver.solve_many(grids, agents=agents)
    # A batch's refusal is solve's, with the position's index.
    with pytest.raises(ValueError) as one:
        solver.solve(grids[0].T.copy())
    assert "this one is 7 rows of 6" in str(one.value)
