"""A solver used before a fork (a PyTorch DataLoader worker, multiprocessing's fork start)
still solves, clears and is dropped in the child: solve_many's helper threads do not come
along, and nothing may wait for them there."""

import os
import time

import pytest

from transpo_c4 import Solver

POSITIONS = ["4453", "2252576253462244111563365343671351441", "", "44", "1122"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
@pytest.mark.parametrize("then", ["solve_many", "clear", "drop"])
def test_a_forked_child_uses_or_drops_the_solver(then):
    solver = Solver(threads=2, hash_mib=8, book=None)
    want = solver.solve_many(POSITIONS[:2]).tolist()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            if then == "solve_many":
                ok = solver.solve_many(POSITIONS[:2]).tolist() == want
                solver.clear()
                ok = ok and solver.solve_many(POSITIONS[:2]).tolist() == want
            elif then == "clear":
                solver.clear()
                ok = solver.solve_many(POSITIONS[:1]).tolist() == want[:1]
            else:
                del solver
                ok = True
            code = 0 if ok else 1
        finally:
            os._exit(code)
    # A child that waited for threads it does not have would never end.
    for _ in range(600):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail(f"the child hung after {then}")
    assert os.waitstatus_to_exitcode(status) == 0
    assert solver.solve_many(POSITIONS[:2]).tolist() == want
