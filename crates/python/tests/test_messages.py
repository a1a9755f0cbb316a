"""Refusals say what was received and what was expected: an int beyond 64 bits, a flat
Kaggle board given as a position, one grid or one move list given to solve_many,
PettingZoo planes given as a grid, and the signature of Solver."""

import inspect

import numpy as np
import pytest

from transpo_c4 import Solver, from_kaggle, to_grid, to_moves


@pytest.fixture(scope="module")
def solver():
    return Solver(threads=1, hash_mib=8)


def test_an_int_beyond_64_bits_is_named_by_its_value(solver):
    # Said "move 1 is a int, not an int (or it is out of range)", a TypeError.
    with pytest.raises(ValueError) as raised:
        solver.solve([2**70])
    assert str(raised.value) == (
        "move 1 is 1180591620717411303424, not a column of the 7x6 board (0 to 6)"
    )
    with pytest.raises(ValueError, match=r"cell \(row 0, column 0\) is -1180591620717411303424, cells are 0"):
        solver.solve([[-(2**70)] * 7] * 6)
    for bad in [[3, 2**64], [2**63]]:
        with pytest.raises(ValueError, match="not a column of the 7x6 board"):
            to_moves(bad)


def kaggle_board(moves):
    """Kaggle's flat board (row 0 the top) after ``moves`` (0-based columns), built here."""
    board = [0] * 42
    heights = [0] * 7
    for i, column in enumerate(moves):
        heights[column] += 1
        board[(6 - heights[column]) * 7 + column] = 1 + i % 2
    return board


def test_a_flat_kaggle_board_is_not_read_as_moves(solver):
    board = kaggle_board([3, 3, 4, 2])
    # Was read as 42 columns: "move 7 plays into column 0, which is full".
    for given in [board, np.array(board), tuple(board)]:
        with pytest.raises(ValueError) as raised:
            solver.solve(given)
        message = str(raised.value)
        assert "a list of 42 numbers from 0 to 2: a flat board of 42 cells" in message
        assert "pass it through `from_kaggle`, or reshape it to 6×7" in message
    # Both ways it suggests give the position.
    config = {"rows": 6, "columns": 7, "inarow": 4}
    assert solver.solve(from_kaggle({"board": board}, config)) == -2
    assert solver.solve(np.array(board).reshape(6, 7)) == -2


def test_one_grid_given_to_solve_many_is_refused(solver):
    grid = to_grid("4453")
    # Was read as 6 positions of 7 columns each.
    for given in [grid, np.array(grid), tuple(map(tuple, grid))]:
        with pytest.raises(ValueError) as raised:
            solver.solve_many(given)
        assert str(raised.value).startswith(
            "solve_many got one grid (6 rows of 7 cells from 0 to 2), not a list of positions: "
            "call solve(grid), or pass [grid]"
        )
    assert solver.solve_many([grid]).tolist() == [solver.solve("4453")] == [-2]
    assert solver.solve_many(np.array([grid])).tolist() == [-2]
    # Six move lists of seven moves with a column above 2 are positions, not a grid.
    lists = [[3, 3, 4, 4, 5, 5, 0]] * 6
    assert solver.solve_many(lists).tolist() == [solver.solve(lists[0])] * 6


def test_one_move_list_given_to_solve_many_is_refused(solver):
    for given in [[3, 3, 4, 2], np.array([3, 3, 4, 2])]:
        with pytest.raises(TypeError, match=r"solve_many got a list of 4 ints, one position's columns\?"):
            solver.solve_many(given)
    with pytest.raises(TypeError, match="not one string"):
        solver.solve_many("4453")


def test_planes_and_transposed_grids_say_what_they_look_like(solver):
    planes = np.zeros((6, 7, 2), dtype=np.int8)
    with pytest.raises(TypeError, match="an array of 6 rows of 7 cells of 2 values each: PettingZoo"):
        solver.solve(planes)
    with pytest.raises(ValueError, match="this one is 7 rows of 6"):
        solver.solve(np.array(to_grid("4453")).T)
    with pytest.raises(TypeError, match=r"move 1 is a float, not an int"):
        solver.solve([3.0])
    with pytest.raises(TypeError, match=r"got a NoneType"):
        solver.solve(None)


def test_the_signature_shows_the_defaults():
    signature = inspect.signature(Solver)
    # Showed book=Ellipsis.
    assert str(signature) == (
        "(board='7x6', *, weak=False, threads=None, hash_mib=128, book='built-in')"
    )
    made = Solver(threads=1)
    defaults = {name: p.default for name, p in signature.parameters.items()}
    assert defaults["board"] == made.board
    assert defaults["weak"] == made.weak
    assert defaults["hash_mib"] == made.hash_mib
    assert defaults["book"] == made.book
    assert defaults["threads"] is None and Solver().threads >= 1


def test_bad_settings_say_what_they_got():
    with pytest.raises(ValueError, match="threads=1180591620717411303424: give from 1 to 256"):
        Solver(threads=2**70)
    with pytest.raises(TypeError, match=r"hash_mib is a float, not an int"):
        Solver(hash_mib=1.5)
    with pytest.raises(TypeError, match=r"threads is a bool \(True\), not an int"):
        Solver(threads=True)
