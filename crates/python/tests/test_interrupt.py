"""Ctrl-C (SIGINT) stops a long solve within 0.1 s, and the solver goes on working."""

import os
import signal
import threading
import time

import pytest

from transpo_c4 import Solver

LIMIT = 0.1


def interrupt_after(seconds):
    """Sends SIGINT to this process after ``seconds``; returns when it was sent."""
    sent = {}

    def fire():
        sent["at"] = time.perf_counter()
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(seconds, fire)
    timer.start()
    return timer, sent


@pytest.mark.skipif(os.name != "posix", reason="SIGINT to oneself needs POSIX")
@pytest.mark.parametrize(
    "call", ["solve", "analyse", "solve_many", "best_move", "analyse_within", "solve_many_within"]
)
def test_ctrl_c_stops_a_long_solve(call):
    # The empty 7x6 board without a book takes many seconds (14 s on two cores).
    solver = Solver(threads=2, hash_mib=64, book=None)
    work = {
        "solve": lambda: solver.solve(""),
        "analyse": lambda: solver.analyse(""),
        "solve_many": lambda: solver.solve_many(["", "4", "44", "444"]),
        # Within a budget far longer than the test: Ctrl-C still stops them.
        "best_move": lambda: solver.best_move("", max_seconds=60),
        "analyse_within": lambda: solver.analyse("", max_seconds=60, max_nodes=2**50),
        "solve_many_within": lambda: solver.solve_many(["", "4"], max_seconds=60),
    }[call]
    # Python's own handler, whatever this process inherited: a shell starts background
    # jobs with SIGINT ignored, and Python then leaves it ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer, sent = interrupt_after(0.5)
        start = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            work()
        caught = time.perf_counter()
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    took = caught - sent["at"]
    print(f"{call}: KeyboardInterrupt {took * 1000:.1f} ms after SIGINT")
    assert caught - start < 5, "the solve ended on its own, not by the interrupt"
    assert took < LIMIT, f"{call}: {took:.3f} s from SIGINT to KeyboardInterrupt"
    # The solver still answers, and rightly.
    assert solver.solve("2252576253462244111563365343671351441") == -1
    assert solver.solve_many(["4453"]).tolist() == [-2]
