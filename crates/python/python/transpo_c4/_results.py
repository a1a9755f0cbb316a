"""The answers of a search within a budget (``max_seconds``, ``max_nodes``)."""

from typing import List, NamedTuple, Optional, Tuple

import numpy as np
import numpy.typing as npt

#: What is known of one score: ``(lo, hi)``, the score within them (equal once proven).
Bounds = Tuple[int, int]


class Answer(NamedTuple):
    """``Solver.best_move``'s answer.

    ``column``: the 0-based column to play; ``score``: its exact score from the side to move,
    ``None`` unless ``proven``; ``proven``: the column's score is exact and no column scores
    more; ``bounds``: each column's ``(lo, hi)``, ``None`` for a full column; ``nodes``:
    positions explored.
    """

    column: int
    score: Optional[int]
    proven: bool
    bounds: List[Optional[Bounds]]
    nodes: int


class Analysis(NamedTuple):
    """``Solver.analyse``'s answer within a budget.

    ``scores``: each column's score where proven, else ``None`` (also for a full column);
    ``bounds``: each column's ``(lo, hi)``, ``None`` for a full column; ``proven``: every
    score is exact; ``column``: the best column found so far; ``nodes``: positions explored.
    """

    scores: List[Optional[int]]
    bounds: List[Optional[Bounds]]
    proven: bool
    column: int
    nodes: int


class Scores(NamedTuple):
    """``Solver.solve_many``'s answer within a budget.

    ``lo``, ``hi``: each position's score lies within them (``int8``); ``proven``: where
    they are equal (``bool``); ``nodes``: positions explored.
    """

    lo: npt.NDArray[np.int8]
    hi: npt.NDArray[np.int8]
    proven: npt.NDArray[np.bool_]
    nodes: int
