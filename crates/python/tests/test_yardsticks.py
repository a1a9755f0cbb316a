"""The yardsticks: ``Solver.rate`` gives the solver's own moves 100 %, a random agent the
rate it computes for one, and counts junk answers as wrong; ``Solver.opponent`` errs as
often as asked, reproducibly, and refuses bad settings."""

import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA, test_set
from transpo_c4 import FULL_COLUMN, Miss, Opponent, Rating, Solver, to_grid

# Middle-Easy solves in about 2 ms a position here, Begin-Easy in about 80: a few Begin
# lines only, so that the file runs in seconds.
MIDDLE = 300
BEGIN = 12


@pytest.fixture(scope="module")
def solver():
    return Solver(threads=2, hash_mib=64)


@pytest.fixture(scope="module")
def middle():
    return [moves for moves, _ in test_set("Test_L2_R1", MIDDLE)]


@pytest.fixture(scope="module")
def begin():
    return [moves for moves, _ in test_set("Test_L1_R1", BEGIN)]


@pytest.fixture(scope="module")
def columns(solver, middle):
    """Each Middle-Easy position's (legal, perfect) columns, from analyse_many."""
    table = solver.analyse_many(middle).tolist()
    out = []
    for scores in table:
        legal = [c for c, s in enumerate(scores) if s != FULL_COLUMN]
        best = max(scores[c] for c in legal)
        out.append((legal, [c for c in legal if scores[c] == best]))
    return out


def test_the_solver_rates_itself_perfect(solver, middle, begin):
    def agent(moves):
        return solver.best_moves(moves)[0]

    for lines in (middle[:100], begin):
        rating = solver.rate(agent, lines)
        assert isinstance(rating, Rating)
        assert rating.positions == len(lines)
        assert rating.perfect == rating.good == len(lines)
        assert rating.perfect_rate == rating.good_rate == 1.0
        assert rating.illegal == 0 and rating.missed == []
        assert 0 < rating.random_perfect_rate <= rating.random_good_rate <= 1


def test_a_pons_file_is_read_as_its_lines(solver, middle):
    def agent(moves):
        return 3

    from_file = solver.rate(agent, DATA / "Test_L2_R1", limit=50)
    assert from_file == solver.rate(agent, middle[:50])
    assert from_file == solver.rate(agent, str(DATA / "Test_L2_R1"), limit=50)
    assert solver.rate(agent, iter(middle), limit=50) == from_file


def test_a_random_agent_scores_the_expected_rate(solver, middle, columns):
    # The agent draws a legal column uniformly, from the grid it is handed (row 0 the top).
    rng = random.Random(2026)

    def agent(grid):
        return rng.choice([c for c, cell in enumerate(grid[0]) if cell == 0])

    rating = solver.rate(agent, middle, form="grid")
    p = [len(perfect) / len(legal) for legal, perfect in columns]
    assert rating.random_perfect_rate == pytest.approx(sum(p) / len(p), abs=1e-12)
    # The count of perfect answers is a sum of independent Bernoulli(p_i): mean sum(p_i),
    # variance sum(p_i (1 - p_i)). 4 sigma: Chebyshev bounds a miss by 1/16 for any seed,
    # the normal approximation (300 terms) by 6e-5.
    sigma = math.sqrt(sum(q * (1 - q) for q in p))
    assert abs(rating.perfect - sum(p)) <= 4 * sigma, (rating.perfect, sum(p), sigma)
    assert rating.illegal == 0
    assert rating.perfect_rate < 0.9  # a random agent is far from perfect here
    assert len(rating.missed) == rating.positions - rating.perfect


def test_the_position_is_handed_as_asked(solver):
    seen = []

    def agent(position):
        seen.append(position)
        return 3

    for form in ("moves", "columns", "grid"):
        solver.rate(agent, ["4453"], form=form)
    assert seen == ["4453", [3, 3, 4, 2], to_grid("4453")]


@pytest.mark.parametrize(
    "answer", [None, "3", 3.0, True, -1, 7, 2**70, [3], object(), 0]
)
def test_illegal_answers_count_as_wrong(solver, answer):
    # "111111": column 0 is full, so 0 is illegal there too.
    rating = solver.rate(lambda moves: answer, ["111111"])
    assert (rating.perfect, rating.good, rating.illegal) == (0, 0, 1)
    (miss,) = rating.missed
    assert isinstance(miss, Miss)
    assert miss.answer is answer and not miss.legal and not miss.good
    assert miss.scores[0] is None and miss.perfect == [3]


def test_numpy_ints_are_columns(solver):
    assert solver.rate(lambda moves: np.int64(3), ["111111"]).perfect == 1


def test_good_keeps_the_outcome(solver):
    # "4453": every column loses, so any legal one is good; "1": column 2 wins with the
    # best score, columns 3 and 6 win more slowly (good, not perfect), 0 and 4 lose.
    scores = solver.analyse_many(["4453", "1"]).tolist()
    assert scores[1] == [-1, 2, 1, 2, -1, 1, -2]
    rating = solver.rate(lambda moves: 0, ["4453", "1"])
    assert [m.good for m in rating.missed] == [True, False]
    rating = solver.rate(lambda moves: 2, ["1"])
    assert (rating.perfect, rating.good) == (0, 1)
    weak = Solver(weak=True, threads=2, hash_mib=16)
    rating = weak.rate(lambda moves: 2, ["1"])
    assert (rating.perfect, rating.good) == (1, 1)


def test_an_agent_that_raises_is_named_with_its_position(solver):
    def agent(moves):
        if moves == "44":
            raise RuntimeError("no idea")
        return 3

    with pytest.raises(RuntimeError, match="no idea") as caught:
        solver.rate(agent, ["4453", "44"])
    assert any("position 1" in note and "'44'" in note for note in caught.value.__notes__)


def test_bad_rate_arguments_are_refused(solver):
    agent = lambda moves: 3  # noqa: E731
    with pytest.raises(ValueError, match="form"):
        solver.rate(agent, ["4"], form="board")
    with pytest.raises(ValueError, match="limit"):
        solver.rate(agent, ["4"], limit=0)
    with pytest.raises(TypeError, match="limit"):
        solver.rate(agent, ["4"], limit=1.5)
    with pytest.raises(ValueError, match="no positions"):
        solver.rate(agent, [])
    with pytest.raises(TypeError, match="positions"):
        solver.rate(agent, 5)
    with pytest.raises(TypeError, match="callable"):
        solver.rate(3, ["4"])
    with pytest.raises(ValueError, match="position 1 of the list"):
        solver.rate(agent, ["4", "1111111"])
    with pytest.raises(OSError):
        solver.rate(agent, DATA / "no such file")


def test_an_opponent_without_error_is_perfect(solver, middle, columns):
    for opponent in (solver.opponent(error_rate=0, seed=1), solver.opponent(temperature=0)):
        assert isinstance(opponent, Opponent)
        assert solver.rate(opponent, middle[:100]).perfect_rate == 1.0


def test_an_opponent_that_always_errs_misses_wherever_it_can(solver, middle, columns):
    rating = solver.rate(solver.opponent(error_rate=1, seed=1), middle)
    forced = sum(len(legal) == len(perfect) for legal, perfect in columns)
    assert 0 < forced < len(middle)
    assert rating.perfect == forced
    assert rating.illegal == 0


def frequencies(opponent, moves, n):
    counts = [0] * 7
    for _ in range(n):
        counts[opponent(moves)] += 1
    return counts


def within(count, n, p):
    return abs(count - n * p) <= 4 * math.sqrt(n * p * (1 - p)) + 1e-9


def test_an_opponent_errs_as_often_as_asked(solver):
    # "4453": perfect columns 2, 5, 6 of scores [-5, -5, -2, -3, -4, -2, -2].
    n = 2000
    counts = frequencies(solver.opponent(error_rate=0.3, seed=5), "4453", n)
    assert within(counts[2] + counts[5] + counts[6], n, 0.7), counts
    for column in (0, 1, 3, 4):
        assert within(counts[column], n, 0.3 / 4), counts
    scores = [-5, -5, -2, -3, -4, -2, -2]
    weights = [math.exp(s / 1.5) for s in scores]
    counts = frequencies(solver.opponent(temperature=1.5, seed=5), "4453", n)
    for column, weight in enumerate(weights):
        assert within(counts[column], n, weight / sum(weights)), counts
    counts = frequencies(solver.opponent(temperature=math.inf, seed=5), "111111", n)
    assert counts[0] == 0
    assert all(within(c, n, 1 / 6) for c in counts[1:]), counts


def test_an_opponent_is_reproducible(solver):
    lines = ["4453", "1", "", "44", "4453"] * 4
    one = solver.opponent(temperature=2, seed=9)
    first = [one(m) for m in lines]
    one = solver.opponent(temperature=2, seed=9)
    assert [one(m) for m in lines] == first
    other = solver.opponent(temperature=2, seed=10)
    assert [other(m) for m in lines] != first
    assert repr(one) == "Opponent(temperature=2.0, seed=9)"


@pytest.mark.parametrize(
    "settings, error, words",
    [
        ({"temperature": -0.1}, ValueError, "temperature is -0.1: a number from 0 to infinity"),
        ({"temperature": math.nan}, ValueError, "temperature is nan"),
        ({"temperature": -math.inf}, ValueError, "temperature is -inf"),
        ({"error_rate": -0.01}, ValueError, "error_rate is -0.01: a number from 0 to 1"),
        ({"error_rate": 1.01}, ValueError, "error_rate is 1.01"),
        ({"error_rate": math.nan}, ValueError, "error_rate is nan"),
        ({"error_rate": math.inf}, ValueError, "error_rate is inf"),
        ({"error_rate": 2**2000}, ValueError, "error_rate is inf"),
        ({"temperature": 1, "error_rate": 0.1}, ValueError, "both given"),
        ({}, ValueError, "neither given"),
        ({"temperature": "1"}, TypeError, "temperature is '1', not a number"),
        ({"error_rate": True}, TypeError, "error_rate is True, not a number"),
        ({"temperature": 1, "seed": "x"}, TypeError, "seed is 'x'"),
        ({"temperature": 1, "seed": 1.5}, TypeError, "seed is 1.5"),
    ],
)
def test_bad_opponent_settings_are_refused(solver, settings, error, words):
    with pytest.raises(error) as caught:
        solver.opponent(**settings)
    assert words in str(caught.value)


def test_a_huge_temperature_plays_any_column(solver):
    assert solver.opponent(temperature=2**2000).temperature == math.inf


# Junk: nothing given to rate or an opponent crashes; what is refused raises ValueError or
# TypeError. A 4x4 board, so that any position solves at once.
SMALL = Solver("4x4", threads=2, hash_mib=4)
junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.integers(-2, 5),
    st.floats(allow_nan=True),
    st.text(max_size=4),
    st.lists(st.integers(-1, 4), max_size=4),
)
junk_positions = st.lists(
    st.one_of(st.text(alphabet="12345x", max_size=8), st.lists(st.integers(-1, 4), max_size=8), junk),
    max_size=5,
)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    positions=junk_positions,
    answers=st.lists(junk, min_size=1, max_size=5),
    form=st.sampled_from(["moves", "columns", "grid", "x"]),
    limit=st.one_of(st.none(), st.integers(-1, 6), st.floats()),
)
def test_junk_never_crashes(positions, answers, form, limit):
    calls = []

    def agent(position):
        calls.append(position)
        return answers[len(calls) % len(answers)]

    try:
        rating = SMALL.rate(agent, positions, form=form, limit=limit)
    except (ValueError, TypeError):
        return
    assert rating.positions == len(calls) >= 1
    assert rating.perfect <= rating.good <= rating.positions - rating.illegal
    assert len(rating.missed) == rating.positions - rating.perfect
    assert 0 <= rating.random_perfect_rate <= rating.random_good_rate <= 1


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(temperature=junk, error_rate=junk, seed=junk, position=junk_positions)
def test_junk_opponents_never_crash(temperature, error_rate, seed, position):
    try:
        opponent = SMALL.opponent(temperature=temperature, error_rate=error_rate, seed=seed)
    except (ValueError, TypeError):
        return
    for p in position:
        try:
            column = opponent(p)
        except (ValueError, TypeError):
            continue
        assert SMALL.analyse(p)[column] is not None
