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
>>> solver.best_move("4453", max_seconds=1).column   # within a budget: an Answer
5

A position is a move string in Pons' notation (columns from 1, then a-d), a list of
0-based columns, or a grid: H rows of W cells, row 0 the top, 0 empty, 1 the first player's
stones, 2 the second's (a numpy array or nested lists). ``from_pettingzoo``,
``from_kaggle`` and ``from_openspiel`` turn those clients' views into a position (a move
string that reaches the same board), or raise ``ValueError`` when the view cannot say
which position it is.

``Solver.rate`` measures an agent (a callable from position to column) by its share of
perfect and good moves; ``Solver.opponent`` makes an agent that errs as often as asked.
"""

from ._native import (
    FULL_COLUMN,
    Solver,
    __version__,
    from_kaggle,
    from_openspiel,
    from_pettingzoo,
    to_grid,
    to_moves,
)
from ._results import Analysis, Answer, Scores
from ._yardsticks import Miss, Opponent, Rating

__all__ = [
    "Solver",
    "Answer",
    "Analysis",
    "Scores",
    "Rating",
    "Miss",
    "Opponent",
    "to_grid",
    "to_moves",
    "from_pettingzoo",
    "from_kaggle",
    "from_openspiel",
    "FULL_COLUMN",
    "__version__",
]
