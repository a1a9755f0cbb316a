"""Perfect Connect Four scores from Python, in bulk.

The transpo solver (crates/connect4 of https://github.com/transpo-rs/transpo) on 7x6 and
every other board the library has: exact scores, or win/draw/loss, of one position or of
many at once on every core, with an opening book and a transposition table kept between
calls.

>>> from transpo_c4 import Solver
>>> solver = Solver()
>>> solver.solve("4453")
-2
>>> solver.best_moves([3, 3, 4, 2])
[2, 5, 6]

A position is a move string in Pons' notation (columns from 1, then a-d), a list of
0-based columns, or a grid: H rows of W cells, row 0 the top, 0 empty, 1 the first player's
stones, 2 the second's (a numpy array or nested lists). ``from_pettingzoo``,
``from_kaggle`` and ``from_openspiel`` turn those clients' views into a position (a move
string that reaches the same board).
"""

from __future__ import annotations

from typing import Any, Optional, Union

from ._native import Solver, to_grid, to_moves

__all__ = [
    "Solver",
    "to_grid",
    "to_moves",
    "from_pettingzoo",
    "from_kaggle",
    "from_openspiel",
]


def _field(obj: Any, name: str) -> Any:
    """``obj[name]`` for a dict, ``obj.name`` otherwise (Kaggle's structs are both)."""
    if isinstance(obj, dict) and name in obj:
        return obj[name]
    if hasattr(obj, name):
        return getattr(obj, name)
    raise ValueError(f"the observation has no {name!r}")


def _tolist(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") else value


def from_pettingzoo(observation: Any, agent: Optional[Union[str, int]] = None) -> str:
    """The position of a PettingZoo ``connect_four_v3`` observation, as a move string.

    ``observation`` is what ``env.observe(agent)`` or ``env.last()`` gives: the dict with
    ``"observation"``, or that 6x7x2 array itself (plane 0 the observing agent's stones,
    plane 1 the opponent's, row 0 the top). PettingZoo does not say whose stones came first;
    the counts tell, except when both players have as many stones: then the observer is
    taken to be the one to move (as with ``env.last()``) unless ``agent`` says which player
    observes (``"player_0"``, the first player, or ``"player_1"``; or 0 or 1).

    >>> import numpy as np
    >>> planes = np.zeros((6, 7, 2), dtype=np.int8)
    >>> planes[5, 3, 1] = 1            # the opponent (first player) played column 3
    >>> from_pettingzoo({"observation": planes, "action_mask": np.ones(7)})
    '4'
    """
    if isinstance(observation, dict):
        observation = _field(observation, "observation")
    planes = _tolist(observation)
    if not isinstance(planes, list) or not planes or not isinstance(planes[0], list):
        raise ValueError("a PettingZoo observation is a rows x columns x 2 array")
    mine = []
    theirs = []
    for r, row in enumerate(planes):
        if not isinstance(row, list):
            raise ValueError(f"row {r} of the observation is not a row of cells")
        mine_row, theirs_row = [], []
        for c, cell in enumerate(row):
            if not isinstance(cell, list) or len(cell) != 2:
                raise ValueError(
                    f"cell (row {r}, column {c}) of the observation is not two planes"
                )
            a, b = int(cell[0]), int(cell[1])
            if a not in (0, 1) or b not in (0, 1) or a + b > 1:
                raise ValueError(f"cell (row {r}, column {c}) is {cell}: planes hold 0 or 1")
            mine_row.append(a)
            theirs_row.append(b)
        mine.append(mine_row)
        theirs.append(theirs_row)
    n_mine = sum(map(sum, mine))
    n_theirs = sum(map(sum, theirs))
    if agent is not None:
        index = {"player_0": 0, "player_1": 1, 0: 0, 1: 1}.get(agent)
        if index is None:
            raise ValueError(f"agent {agent!r}: give 'player_0', 'player_1', 0 or 1")
        observer_first = index == 0
    elif n_mine == n_theirs + 1:
        observer_first = True  # the first player has just moved
    elif n_mine + 1 == n_theirs:
        observer_first = False  # the second player, to move
    else:
        observer_first = True  # as many stones: the observer is to move, so first
    me, them = (1, 2) if observer_first else (2, 1)
    grid = [
        [me if m else them if t else 0 for m, t in zip(mine_row, theirs_row)]
        for mine_row, theirs_row in zip(mine, theirs)
    ]
    width = len(grid[0])
    return to_moves(grid, board=f"{width}x{len(grid)}")


def from_kaggle(observation: Any, configuration: Any) -> str:
    """The position of a Kaggle ``connectx`` observation, as a move string.

    ``observation.board`` is the flat list of ``configuration.rows * configuration.columns``
    cells, row 0 the top, 0 empty, 1 the first player's stones, 2 the second's;
    ``configuration.inarow`` must be 4.

    >>> config = {"rows": 6, "columns": 7, "inarow": 4}
    >>> board = [0] * 42
    >>> board[38] = 1                 # bottom row, column 3
    >>> from_kaggle({"board": board, "mark": 2}, config)
    '4'
    """
    rows = int(_field(configuration, "rows"))
    columns = int(_field(configuration, "columns"))
    inarow = int(_field(configuration, "inarow"))
    if inarow != 4:
        raise ValueError(f"inarow={inarow}: the solver plays connect four only")
    board = list(_tolist(_field(observation, "board")))
    if len(board) != rows * columns:
        raise ValueError(
            f"a board of {len(board)} cells, not rows x columns = {rows} x {columns}"
        )
    grid = [board[r * columns : (r + 1) * columns] for r in range(rows)]
    return to_moves(grid, board=f"{columns}x{rows}")


def from_openspiel(state: Any) -> str:
    """The position of an OpenSpiel ``connect_four`` state, as a move string.

    Read from the state's observation tensor (three planes: the first player's stones, the
    second's, the empty squares; row 0 the bottom), not from its history.

    >>> import pyspiel                                    # doctest: +SKIP
    >>> state = pyspiel.load_game("connect_four").new_initial_state()  # doctest: +SKIP
    >>> for column in [3, 3, 4, 2]:                       # doctest: +SKIP
    ...     state.apply_action(column)
    >>> from_openspiel(state)                             # doctest: +SKIP
    '4453'
    """
    game = state.get_game()
    params = game.get_parameters()
    rows = int(params.get("rows", 6))
    columns = int(params.get("columns", 7))
    if int(params.get("x_in_row", 4)) != 4:
        raise ValueError(f"x_in_row={params['x_in_row']}: the solver plays connect four only")
    player = state.current_player()
    observer = player if player in (0, 1) else 0
    tensor = list(state.observation_tensor(observer))
    if len(tensor) != 3 * rows * columns:
        raise ValueError(f"an observation tensor of {len(tensor)} values, not 3 x {rows} x {columns}")
    plane = rows * columns
    first, second = 0, 1
    if params.get("egocentric_obs_tensor", False) and observer == 1:
        first, second = 1, 0
    grid = []
    for r in reversed(range(rows)):
        row = []
        for c in range(columns):
            at = r * columns + c
            if tensor[first * plane + at] > 0.5:
                row.append(1)
            elif tensor[second * plane + at] > 0.5:
                row.append(2)
            else:
                row.append(0)
        grid.append(row)
    return to_moves(grid, board=f"{columns}x{rows}")
