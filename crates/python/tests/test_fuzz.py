"""Nothing a caller passes crashes the interpreter: random strings, grids, move lists,
thread counts, table sizes and books raise a Python exception or give an answer."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transpo_c4 import Solver, from_kaggle, from_pettingzoo, to_grid, to_moves

# Small boards, so that any position that is one solves in milliseconds.
BOARDS = ["4x4", "5x4", "4x5"]
SOLVERS = {board: Solver(board, threads=2, hash_mib=4) for board in BOARDS}

junk_ints = st.one_of(
    st.integers(-3, 20), st.integers(-(2**70), 2**70), st.sampled_from([0, 1, 2])
)
junk_cell = st.one_of(
    st.sampled_from([0, 1, 2]),
    junk_ints,
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.text(max_size=2),
)
grids = st.integers(0, 7).flatmap(
    lambda w: st.lists(
        st.one_of(st.lists(junk_cell, min_size=w, max_size=w), junk_cell),
        min_size=0,
        max_size=7,
    )
)
positions = st.one_of(
    st.text(max_size=20),
    st.text(alphabet="1234567abcdx- ", max_size=20),
    st.lists(junk_ints, max_size=20),
    st.lists(st.integers(0, 4), max_size=20),
    grids,
    st.lists(st.lists(st.sampled_from([0, 0, 0, 1, 2]), min_size=4, max_size=4), min_size=4, max_size=4),
    st.binary(max_size=8),
    st.none(),
    st.floats(),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def answers(call):
    try:
        return call()
    except (ValueError, TypeError, OverflowError, OSError, MemoryError):
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(board=st.sampled_from(BOARDS), position=positions)
def test_junk_positions(board, position):
    solver = SOLVERS[board]
    score = answers(lambda: solver.solve(position))
    if score is not None:
        width, height = map(int, board.split("x"))
        assert abs(score) <= (width * height + 1) // 2
        columns = solver.analyse(position)
        assert len(columns) == width
        assert max(c for c in columns if c is not None) == score
        assert solver.solve_many([position]).tolist() == [score]
        assert solver.solve(to_grid(position, board=board)) == score
    answers(lambda: to_moves(position, board=board))
    answers(lambda: solver.solve_many([position, position]))
    answers(lambda: solver.solve_many(position))
    answers(lambda: solver.solve(np.array(position, dtype=object)))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    board=st.one_of(st.text(max_size=8), st.sampled_from(["4x4", "3x9", "0x0", "99x99", "7×6", "13x4"])),
    threads=st.one_of(st.none(), st.integers(-3, 4), st.integers(257, 2**80), st.floats()),
    hash_mib=st.one_of(st.integers(-5, 8), st.integers(2**30, 2**80), st.just(math.inf)),
    weak=st.booleans(),
    book=st.one_of(st.none(), st.just("built-in"), st.text(max_size=10), st.integers()),
)
def test_junk_solver_arguments(board, threads, hash_mib, weak, book):
    solver = answers(
        lambda: Solver(board, weak=weak, threads=threads, hash_mib=hash_mib, book=book)
    )
    if solver is not None:
        assert solver.solve_many([]).tolist() == []
        # Only on small boards: "1111" of 13x4 (a board since the library has 59) takes minutes.
        if solver.width * solver.height <= 27:
            assert answers(lambda: solver.solve("1111")) is not None or solver.height < 4


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    planes=st.one_of(
        st.lists(st.lists(st.lists(junk_cell, max_size=3), max_size=8), max_size=7),
        st.integers(),
        st.none(),
    ),
    board=st.lists(junk_cell, max_size=50),
    rows=junk_ints,
    columns=junk_ints,
    inarow=st.sampled_from([4, 4, 3, "4"]),
)
def test_junk_client_views(planes, board, rows, columns, inarow):
    answers(lambda: from_pettingzoo({"observation": planes}))
    answers(lambda: from_pettingzoo(np.array(planes, dtype=object) if planes is not None else planes))
    answers(
        lambda: from_kaggle({"board": board}, {"rows": rows, "columns": columns, "inarow": inarow})
    )


# Positions solve_many reads on its fast path (strings, lists and tuples of ints) or leaves
# to the slow one (numpy ints, bad positions): none of them fails to read, so a bad one fails
# its check, and solve_many names the first.
columns = st.lists(st.integers(-1, 5), max_size=24)
fast_or_not = st.one_of(
    st.tuples(st.sampled_from(["", " ", "\t", "\x0b"]), columns, st.sampled_from(["", " ", "\n"])).map(
        lambda t: t[0] + "".join("123456789"[c] if c >= 0 else "9" for c in t[1]) + t[2]
    ),
    st.sampled_from(["-", " - ", ""]),
    columns,
    columns.map(tuple),
    columns.map(lambda c: [np.int64(x) for x in c]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(board=st.sampled_from(BOARDS), batch=st.lists(fast_or_not, min_size=1, max_size=6))
def test_solve_many_reads_as_solve(board, batch):
    solver = SOLVERS[board]
    each = []
    for position in batch:
        try:
            each.append(solver.solve(position))
        except ValueError as e:
            each.append(e)
    bad = [(i, e) for i, e in enumerate(each) if isinstance(e, ValueError)]
    width, height = map(int, board.split("x"))
    looks_like_a_grid = len(batch) == height and all(
        not isinstance(p, str) and len(p) == width and all(0 <= c <= 2 for c in p) for p in batch
    )
    if looks_like_a_grid and (bad or answers(lambda: to_moves(list(batch), board=board)) is not None):
        # One grid, not a list of positions: said so, as a whole.
        with pytest.raises(ValueError, match="solve_many got one grid"):
            solver.solve_many(batch)
    elif bad:
        i, e = bad[0]
        with pytest.raises(ValueError) as raised:
            solver.solve_many(batch)
        assert str(raised.value) == f"position {i}: {e}"
    else:
        assert solver.solve_many(batch).tolist() == each


def grid_after(columns, width, height):
    """The grid of ``columns`` played in turn from the empty board, the four rule ignored (so
    stones may follow a four) and a full column skipped; row 0 the top."""
    grid = np.zeros((height, width), dtype=np.int8)
    heights = [0] * width
    for c in columns:
        if heights[c] < height:
            heights[c] += 1
            grid[height - heights[c], c] = 1 + (int(grid.astype(bool).sum()) % 2)
    return grid


@st.composite
def game_grids(draw):
    """Grids of random games: whole, played past a four, with full columns (a favourite
    column), and some spoilt: a cell changed, a stone lifted (floating), two stones of a
    column swapped, a stone's owner changed (wrong counts or no order)."""
    board = draw(st.sampled_from(BOARDS))
    width, height = map(int, board.split("x"))
    favourite = draw(st.integers(0, width - 1))
    columns = draw(
        st.lists(st.one_of(st.integers(0, width - 1), st.just(favourite)), max_size=width * height)
    )
    grid = grid_after(columns, width, height)
    spoil = draw(st.sampled_from(["none", "none", "cell", "lift", "swap", "owner"]))
    r, c = draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1))
    if spoil == "cell":
        grid[r, c] = draw(st.integers(0, 3))
    elif spoil == "lift" and r + 1 < height:
        grid[r + 1, c] = 0
    elif spoil == "swap" and r + 1 < height:
        grid[r, c], grid[r + 1, c] = grid[r + 1, c], grid[r, c]
    elif spoil == "owner" and grid[r, c]:
        grid[r, c] = 3 - grid[r, c]
    return board, grid


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=game_grids())
def test_arrays_of_grids_read_as_each_grid(case):
    """An array of grids (read straight into columns, the order search only where its first
    tries fail) reads each grid as ``solve`` reads it as a list (the order search): the same
    score, or the same refusal."""
    board, grid = case
    solver = SOLVERS[board]
    width, height = map(int, board.split("x"))
    try:
        expected = solver.solve(grid.tolist())
    except ValueError as e:
        for array in (grid[None], grid.reshape(1, width * height)):
            with pytest.raises(ValueError) as raised:
                solver.solve_many(array)
            assert str(raised.value) == f"position 0: {e}"
        return
    assert solver.solve_many(grid[None]).tolist() == [expected]
    assert solver.solve_many(grid.reshape(1, width * height)).tolist() == [expected]
    assert to_grid(to_moves(grid.tolist(), board=board), board=board) == grid.tolist()
