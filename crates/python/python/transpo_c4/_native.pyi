"""Type stub of transpo_c4._native, the compiled half of transpo_c4 (re-exported there)."""

import os
from typing import (
    Any,
    Callable,
    Iterable,
    List,
    Literal,
    Optional,
    Sequence,
    Tuple,
    Union,
    overload,
)

import numpy as np
import numpy.typing as npt

from ._results import Analysis, Answer, Scores
from ._yardsticks import Opponent, Rating

#: A position: a move string ("4453": columns from 1, then a-d), a list of 0-based columns
#: ([3, 3, 4, 2]), or a grid (H rows of W cells, row 0 the top; 0 empty, 1 the first
#: player's stones, 2 the second's) as nested lists or a numpy array.
Position = Union[str, Sequence[int], Sequence[Sequence[int]], npt.NDArray[np.integer]]
#: An observing PettingZoo agent: "player_0" (the first player), "player_1", 0 or 1.
Agent = Union[Literal["player_0", "player_1"], int]

#: The version of the package (its Cargo version).
__version__: str
#: What ``analyse_many`` gives a full column.
FULL_COLUMN: int

class Solver:
    """A Connect Four solver of one board, its transposition table kept between calls.

    It answers one call at a time: a call from another thread waits for the one running
    (Ctrl-C stops the wait); one with ``max_seconds`` waits no longer than its budget and
    then raises ``TimeoutError``. Threads that solve at once want a ``Solver`` each.
    """

    def __init__(
        self,
        board: str = "7x6",
        *,
        weak: bool = False,
        threads: Optional[int] = None,
        hash_mib: int = 128,
        book: Union[Literal["built-in"], str, os.PathLike[str], None] = "built-in",
    ) -> None:
        """A solver of ``board`` ("WxH").

        Raises ``ValueError`` for a board the solver does not have, ``threads`` outside
        1-256 or ``hash_mib`` outside 1-2**30, a book file that is not a book of this board;
        ``OSError`` for a book file that cannot be read; ``MemoryError`` for a table the
        machine cannot give.
        """
    @property
    def board(self) -> str: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def weak(self) -> bool: ...
    @property
    def threads(self) -> int: ...
    @property
    def hash_mib(self) -> int: ...
    @property
    def book(self) -> Optional[str]:
        """"built-in", the book's path, or None (also when the board has no built-in book)."""
    def solve(self, position: Position) -> int:
        """The score of ``position`` from the side to move.

        Raises ``ValueError`` (with the reason) for a position that is not one to solve,
        ``TypeError`` for something that is not a position, ``KeyboardInterrupt`` on Ctrl-C.
        """
    @overload
    def analyse(
        self, position: Position, *, max_seconds: None = None, max_nodes: None = None
    ) -> List[Optional[int]]: ...
    @overload
    def analyse(
        self,
        position: Position,
        *,
        max_seconds: Optional[float] = None,
        max_nodes: Optional[int] = None,
    ) -> Union[List[Optional[int]], Analysis]:
        """Each column's score for the side to move; ``None`` for a full column.

        With ``max_seconds`` or ``max_nodes``, an ``Analysis``: each column's bounds, the
        best column first, narrowed until every score is proven or the budget is spent.

        >>> Solver().analyse("4453", max_seconds=1).scores
        [-5, -5, -2, -3, -4, -2, -2]

        Raises ``ValueError`` for ``max_seconds`` negative, NaN or infinite or ``max_nodes``
        outside 1 to 2**60, ``TypeError`` for a budget that is not a number (a bool is not).
        """
    def best_move(
        self,
        position: Position,
        *,
        max_seconds: Optional[float] = None,
        max_nodes: Optional[int] = None,
    ) -> Answer:
        """The best column, proven, or the best found within ``max_seconds`` (the answer
        comes a few milliseconds after it at most) or about ``max_nodes`` positions.

        >>> answer = Solver().best_move("4453", max_seconds=1)
        >>> answer.column, answer.score, answer.proven
        (5, -2, True)
        """
    def best_moves(self, position: Position) -> List[int]:
        """The 0-based columns that keep the best score."""
    @overload
    def solve_many(
        self,
        positions: Union[Iterable[Position], npt.NDArray[np.integer]],
        *,
        agents: Union[Agent, Sequence[Agent], npt.NDArray[np.integer], None] = None,
        progress: bool = False,
        max_seconds: None = None,
        max_nodes: None = None,
    ) -> npt.NDArray[np.int8]: ...
    @overload
    def solve_many(
        self,
        positions: Union[Iterable[Position], npt.NDArray[np.integer]],
        *,
        agents: Union[Agent, Sequence[Agent], npt.NDArray[np.integer], None] = None,
        progress: bool = False,
        max_seconds: Optional[float] = None,
        max_nodes: Optional[int] = None,
    ) -> Union[npt.NDArray[np.int8], Scores]:
        """The scores of ``positions`` in their order, solved on every thread without the GIL.

        A numpy array is read by its shape: N×k move lists, N×(W·H) Kaggle boards, N×H×W
        grids, N×H×W×2 PettingZoo planes (``agents``: the observing agent of each, or one
        for all). With ``max_seconds`` or ``max_nodes``, a ``Scores`` (``lo``, ``hi``,
        ``proven``, ``nodes``): the positions solved in order, every thread on each.

        >>> Solver().solve_many(["4453"], max_seconds=1).lo
        array([-2], dtype=int8)
        """
    def analyse_many(
        self,
        positions: Union[Iterable[Position], npt.NDArray[np.integer]],
        *,
        agents: Union[Agent, Sequence[Agent], npt.NDArray[np.integer], None] = None,
        progress: bool = False,
    ) -> npt.NDArray[np.int8]:
        """Each column's score of each position (N×W, ``FULL_COLUMN`` for a full column)."""
    def rate(
        self,
        agent: Callable[[Any], Any],
        positions: Union[Iterable[Position], str, os.PathLike[str]],
        *,
        form: Literal["moves", "columns", "grid"] = "moves",
        limit: Optional[int] = None,
    ) -> Rating:
        """How often ``agent(position) -> column`` plays a perfect move (one that keeps the
        exact score) and a good one (one that keeps the outcome) on ``positions`` (a list,
        or the path of a file of Pons' test-set lines), beside a random agent's expected
        rates. Illegal answers count as wrong; an exception the agent raises propagates.

        >>> solver = Solver()
        >>> solver.rate(lambda moves: solver.best_moves(moves)[0], ["4453", "44"]).perfect_rate
        1.0
        """
    def opponent(
        self,
        *,
        temperature: Optional[float] = None,
        error_rate: Optional[float] = None,
        seed: Optional[int] = None,
    ) -> Opponent:
        """An agent that draws by softmax over the columns' scores at ``temperature``
        (0: perfect), or plays a perfect move except with probability ``error_rate`` a legal
        non-perfect one; exactly one of the two, seeded by ``seed``. ``ValueError`` for a
        temperature below 0 or NaN, an error rate outside 0 to 1, both or neither."""
    def __reduce__(self) -> Tuple[Any, ...]:
        """Pickled as its settings; the tables start empty where it is unpickled."""
    def clear(self) -> None:
        """Forgets what the tables hold."""

def to_moves(position: Position, board: str = "7x6") -> str:
    """A move string reaching ``position`` (``ValueError`` with the reason if none does)."""

def to_grid(position: Position, board: str = "7x6") -> List[List[int]]:
    """The grid of ``position``: rows from the top, 0 empty, 1 first player, 2 second."""

def from_pettingzoo(observation: Any, agent: Optional[Agent] = None) -> str:
    """The position of a PettingZoo ``connect_four_v3`` observation (the dict, or its planes).

    Raises ``ValueError`` when the planes cannot say who moved first (as many stones each)
    and neither ``agent`` nor the dict's ``action_mask`` says it, or when they disagree.
    """

def from_kaggle(observation: Any, configuration: Any) -> str:
    """The position of a Kaggle ``connectx`` observation (its flat ``board``)."""

def from_openspiel(state: Any) -> str:
    """The position of an OpenSpiel ``connect_four`` state (from its observation tensor)."""
