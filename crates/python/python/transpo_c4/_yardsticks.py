"""Yardsticks for agents: ``Solver.rate`` (how often an agent plays a perfect or a good
move) and ``Solver.opponent`` (an agent that errs as often as asked, for curriculum play).

Glue around the solver: ``rate`` scores every column of every position in one
``analyse_many`` batch (the heavy part, in Rust, on every thread), then calls the agent once
a position; an opponent analyses the position it is given and draws a column. The methods
on ``Solver`` call the functions here; their docstrings are the reference.
"""

import math
import numbers
import operator
import os
import random
from typing import Any, Callable, List, NamedTuple, Optional, Sequence

from ._native import FULL_COLUMN, to_grid, to_moves

#: How a position is handed to the agent: a move string ("4453"), a list of 0-based columns
#: ([3, 3, 4, 2]), or a grid (H rows of W cells, row 0 the top, 0 empty, 1 the first
#: player's stones, 2 the second's), as ``to_grid`` gives it.
FORMS = ("moves", "columns", "grid")
# The columns of a move string, from 1.
_DIGITS = "123456789abcd"


class Miss(NamedTuple):
    """A position where the agent's answer was not a perfect move.

    ``index``: the position's place in the list; ``position``: its move string;
    ``answer``: what the agent returned, as it returned it; ``legal``: the answer was an
    int naming a column with room; ``good``: the column keeps the position's outcome (see
    ``Rating``); ``perfect``: the perfect columns; ``scores``: each column's score, ``None``
    for a full column.
    """

    index: int
    position: str
    answer: Any
    legal: bool
    good: bool
    perfect: List[int]
    scores: List[Optional[int]]


class Rating(NamedTuple):
    """``Solver.rate``'s answer.

    A **perfect** move keeps the position's exact score: its column is among those whose
    score is the best. A **good** move keeps the game-theoretic outcome: its score has the
    sign of the best score, so a won position stays won, a drawn one drawn, and in a lost
    position every legal move is good. With a weak solver the scores are 1, 0 and -1, and
    perfect and good are the same. An answer that is not an int (a bool is not), names no
    column of the board or a full one is **illegal**: neither perfect nor good.

    ``positions``, ``perfect``, ``good``, ``illegal``: counts; ``perfect_rate``,
    ``good_rate``: ``perfect`` and ``good`` over ``positions``; ``random_perfect_rate``,
    ``random_good_rate``: what a uniformly random legal agent scores on average over the
    same positions (the mean of perfect, or good, columns over legal columns); ``missed``:
    a ``Miss`` for each position without a perfect answer, in order.
    """

    positions: int
    perfect: int
    good: int
    illegal: int
    perfect_rate: float
    good_rate: float
    random_perfect_rate: float
    random_good_rate: float
    missed: List[Miss]


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _read_lines(path: "os.PathLike[str] | str", limit: Optional[int]) -> List[str]:
    """The move strings of a file of Pons' test-set lines ("moves score"), the first field
    of each non-empty line."""
    moves = []
    with open(path) as lines:
        for line in lines:
            if limit is not None and len(moves) == limit:
                break
            fields = line.split()
            if fields:
                moves.append(fields[0])
    return moves


def _limit_of(limit: Any) -> Optional[int]:
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, numbers.Integral):
        raise TypeError(f"limit is {limit!r}: a number of positions (an int), or None")
    if limit < 1:
        raise ValueError(f"limit is {limit}: at least 1 position, or None for all")
    return int(limit)


def _column_of(answer: Any, scores: Sequence[int]) -> Optional[int]:
    """The column ``answer`` names if it is a legal move, else None."""
    if isinstance(answer, bool):
        return None
    try:
        column = operator.index(answer)
    except TypeError:
        return None
    if 0 <= column < len(scores) and scores[column] != FULL_COLUMN:
        return column
    return None


def _given(line: str, form: str, board: str) -> Any:
    """The position of the move string ``line`` in the form the agent asked for."""
    if form == "grid":
        return to_grid(line, board)
    if form == "columns":
        return [_DIGITS.index(c) for c in line]
    return line


def _with_note(error: BaseException, note: str) -> None:
    if hasattr(error, "add_note"):
        error.add_note(note)
    else:  # Python < 3.11 prints no notes; the attribute is where 3.11 keeps them.
        error.__notes__ = [*getattr(error, "__notes__", []), note]


def rate(
    solver: Any,
    agent: Callable[[Any], Any],
    positions: Any,
    *,
    form: str = "moves",
    limit: Optional[int] = None,
) -> Rating:
    """``solver.rate(agent, positions, form=form, limit=limit)``: see ``Solver.rate``."""
    if form not in FORMS:
        raise ValueError(f"form is {form!r}: one of {', '.join(map(repr, FORMS))}")
    if not callable(agent):
        raise TypeError(f"agent is {type(agent).__name__}, not a callable: position -> column")
    limit = _limit_of(limit)
    board = solver.board
    if isinstance(positions, (str, os.PathLike)):
        given, where = _read_lines(positions, limit), f"of {os.fspath(positions)!r}"
    else:
        given, where = positions, "of the list"
    try:
        given = iter(given)
    except TypeError:
        raise TypeError(
            f"positions is {type(positions).__name__}: a list of positions, or the path of a "
            "file of Pons' test-set lines"
        ) from None
    moves = []
    for index, position in enumerate(given):
        if limit is not None and index == limit:
            break
        try:
            moves.append(to_moves(position, board))
        except (ValueError, TypeError) as error:
            _with_note(error, f"(position {index} {where})")
            raise
    if not moves:
        raise ValueError("no positions to rate")
    table = solver.analyse_many(moves).tolist()

    perfect = good = illegal = 0
    random_perfect = random_good = 0.0
    missed = []
    for index, (line, scores) in enumerate(zip(moves, table)):
        legal = [c for c, s in enumerate(scores) if s != FULL_COLUMN]
        best = max(scores[c] for c in legal)
        best_columns = [c for c in legal if scores[c] == best]
        good_columns = [c for c in legal if _sign(scores[c]) == _sign(best)]
        random_perfect += len(best_columns) / len(legal)
        random_good += len(good_columns) / len(legal)

        try:
            answer = agent(_given(line, form, board))
        except Exception as error:
            _with_note(error, f"(the agent, at position {index}: moves {line!r})")
            raise
        column = _column_of(answer, scores)
        is_perfect = column in best_columns
        is_good = column in good_columns
        perfect += is_perfect
        good += is_good
        illegal += column is None
        if not is_perfect:
            shown = [None if s == FULL_COLUMN else s for s in scores]
            missed.append(
                Miss(index, line, answer, column is not None, is_good, best_columns, shown)
            )
    n = len(moves)
    return Rating(
        n,
        perfect,
        good,
        illegal,
        perfect / n,
        good / n,
        random_perfect / n,
        random_good / n,
        missed,
    )


def _rate_argument(name: str, value: Any, top: float) -> Optional[float]:
    """``value`` checked as a number from 0 to ``top``, or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} is {value!r}, not a number")
    try:
        value = float(value)
    except OverflowError:  # an int beyond floats: as far out as infinity
        value = math.inf if value > 0 else -math.inf
    if math.isnan(value) or not 0 <= value <= top:
        bound = "infinity" if top == math.inf else f"{top:g}"
        raise ValueError(f"{name} is {value!r}: a number from 0 to {bound}")
    return value


class Opponent:
    """An agent that plays from a solver's scores: ``opponent(position)`` is a 0-based column.

    Made by ``Solver.opponent``, whose docstring says how it chooses. ``temperature``,
    ``error_rate`` and ``seed`` are as given (one of the first two is None).
    """

    def __init__(
        self,
        solver: Any,
        *,
        temperature: Optional[float] = None,
        error_rate: Optional[float] = None,
        seed: Optional[int] = None,
    ) -> None:
        temperature = _rate_argument("temperature", temperature, math.inf)
        error_rate = _rate_argument("error_rate", error_rate, 1.0)
        if (temperature is None) == (error_rate is None):
            given = "both" if temperature is not None else "neither"
            raise ValueError(
                f"an opponent errs by temperature= or by error_rate=; {given} given"
            )
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
            raise TypeError(f"seed is {seed!r}: an int, or None for a seed from the system")
        self.solver = solver
        self.temperature = temperature
        self.error_rate = error_rate
        self.seed = seed
        self._random = random.Random(seed)

    def __repr__(self) -> str:
        how = (
            f"temperature={self.temperature!r}"
            if self.error_rate is None
            else f"error_rate={self.error_rate!r}"
        )
        return f"Opponent({how}, seed={self.seed!r})"

    def __call__(self, position: Any) -> int:
        scores = self.solver.analyse(position)
        legal = [c for c, s in enumerate(scores) if s is not None]
        best = max(scores[c] for c in legal)
        perfect = [c for c in legal if scores[c] == best]
        if self.error_rate is not None:
            others = [c for c in legal if scores[c] != best]
            if others and self._random.random() < self.error_rate:
                return self._random.choice(others)
            return self._random.choice(perfect)
        if self.temperature == 0:
            return self._random.choice(perfect)
        # exp((s - best) / T): the best weighs 1, nothing overflows; at T = inf all weigh 1.
        weights = [math.exp((scores[c] - best) / self.temperature) for c in legal]
        return self._random.choices(legal, weights=weights)[0]


def opponent(solver: Any, **settings: Any) -> Opponent:
    """``solver.opponent(...)``: see ``Solver.opponent``."""
    return Opponent(solver, **settings)
