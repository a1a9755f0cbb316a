"""The Solver against known facts: Pons' test sets, published examples, a plain minimax on
small boards, and the command-line solver as another configuration."""

import os
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import transpo_c4
from transpo_c4 import Solver, to_grid, to_moves

from conftest import ROOT, SETS, minimax, test_set

# How many lines of each set: all of the quick ones, the first 20 of the slow ones.
LIMITS = {
    "Test_L3_R1": 1000,
    "Test_L2_R1": 1000,
    "Test_L2_R2": 300,
    "Test_L1_R1": 300,
    "Test_L1_R2": 20,
    "Test_L1_R3": 20,
}


@pytest.fixture(scope="module")
def solver():
    return Solver(threads=2, hash_mib=64)


@pytest.mark.parametrize("name", list(SETS))
def test_pons_sets_solve_many(solver, name):
    lines = test_set(name, LIMITS[name])
    solver.clear()
    scores = solver.solve_many([moves for moves, _ in lines])
    assert scores.dtype == np.int8 and scores.shape == (len(lines),)
    expected = np.array([score for _, score in lines])
    wrong = [(lines[i], int(scores[i])) for i in np.flatnonzero(scores != expected)]
    assert not wrong, f"{name}: {len(wrong)} wrong, e.g. {wrong[:3]}"


def test_pons_sets_weak_and_single():
    weak = Solver(weak=True, threads=1, hash_mib=32, book=None)
    strong = Solver(threads=1, hash_mib=32, book=None)
    for name in ["Test_L3_R1", "Test_L2_R2", "Test_L1_R2"]:
        for moves, score in test_set(name, 15):
            assert weak.solve(moves) == np.sign(score), moves
            assert strong.solve(moves) == score, moves
            columns = [int(c) - 1 for c in moves]
            assert strong.solve(columns) == score
            assert strong.solve(to_grid(moves)) == score
            assert strong.solve(np.array(to_grid(moves))) == score
            assert strong.solve(np.array(columns)) == score


def test_published_examples():
    solver = Solver(threads=1, hash_mib=16)
    # crates/connect4/README.md: its columns' scores after 4453.
    assert solver.analyse("4453") == [-5, -5, -2, -3, -4, -2, -2]
    assert solver.best_moves("4453") == [2, 5, 6]
    assert solver.solve("4453") == -2
    # The empty board: the first player wins with the last stone (+1); from the book.
    assert solver.solve("") == 1 == solver.solve([]) == solver.solve("-")
    # 6 columns of 7 rows: three stones in column 1 (Pons' column 1 is 0 here), the 7th wins.
    assert Solver("6x7", threads=1, hash_mib=16).solve("121212") == 18
    # A wide board (7x9, 70 bits): Steininger's solver gives -5 too.
    wide = Solver("7x9", threads=1, hash_mib=16)
    assert wide.solve("4172725614622737534114342365723443664367") == -5
    assert wide.board == "7x9" and wide.width == 7 and wide.height == 9
    assert wide.book is None  # the built-in book is of 7x6 only


def late_positions(width, height, count, empty, seed):
    """Random positions of width x height with about ``empty`` empty squares, not over."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        moves = []
        for _ in range(width * height - empty):
            legal = [c for c in range(width) if moves.count(c) < height]
            moves.append(rng.choice(legal))
        try:
            to_moves(moves, board=f"{width}x{height}")
        except ValueError:
            continue  # over before the end
        out.append(moves)
    return out


@pytest.mark.parametrize(
    "board, empty", [("4x4", 9), ("5x4", 9), ("4x5", 9), ("6x4", 8), ("7x6", 8), ("9x7", 6)]
)
def test_against_minimax(board, empty):
    width, height = map(int, board.split("x"))
    positions = late_positions(width, height, 40, empty, seed=width * 100 + height)
    expected = [minimax(width, height, p) for p in positions]
    strong = Solver(board, threads=2, hash_mib=8)
    weak = Solver(board, weak=True, threads=1, hash_mib=8)
    assert strong.solve_many(positions).tolist() == expected
    assert weak.solve_many(positions).tolist() == [int(np.sign(e)) for e in expected]
    for p, e in zip(positions[:10], expected):
        assert strong.solve(p) == e
        columns = strong.analyse(p)
        assert max(s for s in columns if s is not None) == e
        for c, s in enumerate(columns):
            if s is None:
                assert p.count(c) == height
            elif to_moves_or_none(p + [c], board) is None:
                pass  # the move wins or fills the board: no minimax of the child
            else:
                assert s == -minimax(width, height, p + [c])
        assert all(columns[c] == e for c in strong.best_moves(p))


def to_moves_or_none(moves, board):
    try:
        return to_moves(moves, board=board)
    except ValueError:
        return None


def test_empty_small_boards_match_published_outcomes():
    # John Tromp's table: 4x4 and 5x4 are draws, 6x5? (not solved here, too slow); 4x5 draw.
    for board in ["4x4", "5x4", "4x5"]:
        assert Solver(board, threads=2, hash_mib=8, weak=True).solve("") == 0, board


def test_table_stays_and_clear_forgets():
    solver = Solver(threads=1, hash_mib=16, book=None)
    moves, score = test_set("Test_L1_R2", 1)[0]
    assert solver.solve(moves) == score
    assert solver.solve(moves) == score  # from the table
    solver.clear()
    assert solver.solve(moves) == score
    assert solver.solve_many([moves, moves]).tolist() == [score, score]
    solver.clear()
    assert solver.solve_many([moves]).tolist() == [score]


def test_books():
    book = ROOT / "crates" / "connect4" / "books" / "depth8.book"
    by_path = Solver(threads=1, hash_mib=16, book=str(book))
    by_pathlike = Solver(threads=1, hash_mib=16, book=book)
    none = Solver(threads=1, hash_mib=16, book=None)
    assert by_path.book == str(book) and none.book is None
    assert Solver(threads=1, hash_mib=16).book == "built-in"
    for moves in ["4453", "44", "1234567"]:
        assert by_path.analyse(moves) == by_pathlike.analyse(moves)
    # Without a book the same score, searched (a few seconds at most).
    assert by_path.solve("4453") == none.solve("4453") == -2
    with pytest.raises(OSError, match="book file"):
        Solver(book="/nonexistent/book")
    with pytest.raises(ValueError, match="not a valid opening book"):
        Solver(book=str(ROOT / "Cargo.toml"))
    with pytest.raises((ValueError, OSError)):
        Solver("6x7", book=str(book))  # a 7x6 book


def test_solve_many_inputs_and_progress(capsys):
    solver = Solver(threads=2, hash_mib=16)
    grids = np.array([to_grid(m) for m in ["4453", "44", "1"]])
    assert grids.shape == (3, 6, 7)
    by_grid = solver.solve_many(grids, progress=True)
    assert "solve_many: 3/3 positions" in capsys.readouterr().err
    by_moves = solver.solve_many(("4453", [3, 3], "1"))
    by_generator = solver.solve_many(m for m in ["4453", "44", "1"])
    assert by_grid.tolist() == by_moves.tolist() == by_generator.tolist()
    assert by_grid.tolist() == [solver.solve(m) for m in ["4453", "44", "1"]]
    assert solver.solve_many([]).tolist() == []
    with pytest.raises(ValueError, match="position 1: .*full"):
        solver.solve_many(["4", "1111111"])
    with pytest.raises(TypeError):
        solver.solve_many("4453")


@pytest.mark.parametrize(
    "position, reason",
    [
        ("1111111", "move 7 plays into column 0 \\(written 1\\), which is full"),
        ([0] * 7, "move 7 plays into column 0, which is full"),
        ("1212121", "move 7 \\(column 0 \\(written 1\\)\\) connects four: the game is over"),
        ("8", "move 1 is column 7 \\(written 8\\), not a column of the 7x6 board"),
        ([7], "move 1 is column 7, not a column"),
        ([-1], "move 1 is column -1, not a column"),
        ("44x", "move 3 of .* is 'x', not a column"),
        ([[0] * 7] * 5, "a grid of 5 rows, not the 6 rows"),
        ([[0] * 7] * 5 + [[0] * 6], "row 5 has 6 cells"),
        ([[0] * 7] * 5 + [[0, 0, 0, 3, 0, 0, 0]], "is 3: cells are 0"),
        ([[0] * 7] * 4 + [[0, 0, 0, 1, 0, 0, 0], [0] * 7], "floating stone at row 4, column 3"),
        ([[0] * 7] * 5 + [[0, 0, 1, 1, 0, 0, 0]], "stone counts"),
        ([[0] * 7] * 5 + [[0, 0, 0, 2, 0, 0, 0]], "stone counts"),
        (
            [[0] * 7] * 2 + [[1, 2, 0, 0, 0, 0, 0]] * 4,
            "both players have already connected four",
        ),
        (
            [[0] * 7] * 2 + [[1, 0, 0, 0, 0, 0, 0]] + [[1, 2, 0, 0, 0, 0, 0]] * 3,
            "player 1 has already connected four",
        ),
        ([[0] * 7] * 4 + [[1, 1, 0, 0, 0, 0, 0], [2, 2, 0, 0, 0, 0, 0]], "cannot be played in turn"),
    ],
)
def test_unreachable_positions_give_reasons(position, reason):
    solver = Solver(threads=1, hash_mib=8)
    with pytest.raises(ValueError, match=reason):
        solver.solve(position)
    with pytest.raises(ValueError, match=reason):
        to_moves(position)


def test_full_board_and_bad_arguments():
    # A drawn 4x4 game, found by random play and checked here: its 15 first moves are a
    # position, the 16th fills the board.
    assert to_moves("331332414442122", board="4x4")
    with pytest.raises(ValueError, match="board is full"):
        to_moves("3313324144421221", board="4x4")
    for bad in [None, 3.5, {"a": 1}, b"4453", [1.5], [True], [[0, 0.5]]]:
        with pytest.raises(TypeError):
            Solver(threads=1, hash_mib=8).solve(bad)
    with pytest.raises(ValueError, match="no 3x3 board"):
        Solver("3x3")
    with pytest.raises(ValueError, match="not a board"):
        Solver("seven by six")
    with pytest.raises(ValueError, match="threads=0"):
        Solver(threads=0)
    with pytest.raises(ValueError, match="threads=1000"):
        Solver(threads=1000)
    with pytest.raises(ValueError, match="hash_mib=0"):
        Solver(hash_mib=0)
    with pytest.raises(MemoryError, match="table"):
        Solver(hash_mib=1 << 30)  # a pebibyte


def test_to_moves_and_to_grid_round_trip():
    rng = random.Random(7)
    for _ in range(200):
        width, height = rng.choice([(7, 6), (4, 4), (9, 7), (13, 4)])
        board = f"{width}x{height}"
        moves = []
        for _ in range(rng.randrange(width * height)):
            legal = [c for c in range(width) if moves.count(c) < height]
            moves.append(rng.choice(legal))
        try:
            grid = to_grid(moves, board=board)
        except ValueError:
            continue
        again = to_moves(grid, board=board)
        assert to_grid(again, board=board) == grid
        assert sorted(again) == sorted(to_moves(moves, board=board))


def test_against_the_command_line_solver():
    """The CLI (`transpo-c4`, one process, its own table) as another configuration."""
    binary = os.environ.get("TRANSPO_C4_BIN") or shutil.which("transpo-c4")
    if not binary:
        built = ROOT / "target" / "release" / "transpo-c4"
        binary = str(built) if built.is_file() else None
    if not binary:
        pytest.skip("no transpo-c4 binary (cargo build --release -p transpo-c4, or TRANSPO_C4_BIN)")
    rng = random.Random(11)
    positions = []
    # Prefixes of Middle lines, at least 14 stones: milliseconds each.
    for name in ["Test_L2_R2", "Test_L2_R1"]:
        lines = test_set(name)
        positions += [moves[: rng.randrange(14, len(moves) + 1)] for moves, _ in lines[:60]]
    positions = [p for p in positions if to_moves_or_none(p, "7x6")]
    out = subprocess.run(
        [binary], input="\n".join(positions) + "\n", capture_output=True, text=True, check=True
    ).stdout.split("\n")
    cli = [int(line.split()[1]) for line in out if line.strip()]
    assert len(cli) == len(positions)
    ours = Solver(threads=2, hash_mib=32).solve_many(positions).tolist()
    assert ours == cli


def test_module_surface():
    assert set(transpo_c4.__all__) >= {
        "Solver", "from_pettingzoo", "from_kaggle", "from_openspiel", "to_moves", "to_grid"
    }
    package = Path(transpo_c4.__file__).parent
    assert (package / "py.typed").is_file() and (package / "_native.pyi").is_file()
    assert "Solver(" in repr(Solver(threads=1, hash_mib=8))
