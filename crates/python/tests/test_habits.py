"""What Python code expects of a library object: a Solver pickles (as its settings; its
tables start empty on the other side), copies, goes to multiprocessing's spawned workers,
and the package has a __version__."""

import copy
import importlib.metadata
import multiprocessing
import pickle
import re
from pathlib import Path

import pytest

import transpo_c4
from transpo_c4 import Solver

from conftest import ROOT

POSITIONS = ["4453", "2252576253462244111563365343671351441", "44", "1122"]


def settings(solver):
    return (solver.board, solver.weak, solver.threads, solver.hash_mib, solver.book)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_solver_pickles_as_its_settings(protocol):
    book = str(ROOT / "crates" / "connect4" / "books" / "depth8.book")
    for solver, positions in [
        (Solver(threads=1, hash_mib=8), POSITIONS),
        (Solver("5x4", weak=True, threads=2, hash_mib=4, book=None), ["1", "12"]),
        (Solver(threads=1, hash_mib=8, book=book), POSITIONS),
        # "built-in" on a board without a built-in book: no book. 121212: a win next.
        (Solver("6x7", threads=1, hash_mib=8), ["121212"]),
    ]:
        scores = solver.solve_many(positions).tolist()
        again = pickle.loads(pickle.dumps(solver, protocol=protocol))
        assert type(again) is Solver and again is not solver
        assert settings(again) == settings(solver) and repr(again) == repr(solver)
        assert again.solve_many(positions).tolist() == scores


def test_threads_none_stays_every_core():
    solver = Solver(hash_mib=8)
    rebuilt, args = solver.__reduce__()[0], solver.__reduce__()[1]
    assert args[0] is Solver and args[1] == ("7x6",)
    assert args[2] == {"weak": False, "threads": None, "hash_mib": 8, "book": "built-in"}
    assert rebuilt(*args).threads == solver.threads


def test_a_solver_copies():
    solver = Solver(threads=1, hash_mib=8, weak=True)
    for again in [copy.copy(solver), copy.deepcopy(solver)]:
        assert again is not solver and settings(again) == settings(solver)
        assert again.solve("4453") == solver.solve("4453") == -1


def solve_in_a_worker(solver, positions):
    """Run in a spawned process: what the solver it was sent gives there."""
    return repr(solver), solver.solve_many(positions).tolist(), solver.analyse(positions[0])


def test_a_solver_goes_to_spawned_workers():
    solver = Solver(threads=1, hash_mib=8)
    want = (repr(solver), solver.solve_many(POSITIONS).tolist(), solver.analyse(POSITIONS[0]))
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        jobs = [pool.apply_async(solve_in_a_worker, (solver, POSITIONS)) for _ in range(2)]
        got = [job.get(timeout=300) for job in jobs]
    assert got == [want, want]


def test_the_version_is_the_packages():
    assert transpo_c4.__version__ == importlib.metadata.version("transpo_c4")
    cargo = (Path(__file__).resolve().parents[1] / "Cargo.toml").read_text()
    assert transpo_c4.__version__ == re.search(r'^version = "(.*)"$', cargo, re.M).group(1)
