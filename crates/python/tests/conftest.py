"""Shared helpers of the transpo_c4 tests: Pons' test sets, and a plain minimax to check
scores against on small boards."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT.parent / "shared" / "data" / "connect4"

SETS = {
    "Test_L3_R1": "End-Easy",
    "Test_L2_R1": "Middle-Easy",
    "Test_L2_R2": "Middle-Medium",
    "Test_L1_R1": "Begin-Easy",
    "Test_L1_R2": "Begin-Medium",
    "Test_L1_R3": "Begin-Hard",
}


def test_set(name, limit=None):
    """[(moves, expected score)] of Pons' test set ``name``; skips (fails on CI) if missing."""
    path = DATA / name
    if not path.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing (required when CI is set)")
        pytest.skip(f"{path} is missing")
    lines = []
    with open(path) as f:
        for line in f:
            moves, score = line.split()
            lines.append((moves, int(score)))
            if limit is not None and len(lines) == limit:
                break
    return lines


test_set.__test__ = False  # a helper, not a test


def minimax(width, height, moves):
    """The score of the position after ``moves`` (0-based columns), by plain negamax over
    every move: a win by playing when n stones are on the board scores
    (width*height + 1 - n) // 2, a full board 0. Exponential: small boards, late positions."""
    grid = [[0] * height for _ in range(width)]
    heights = [0] * width
    for i, col in enumerate(moves):
        grid[col][heights[col]] = 1 + i % 2
        heights[col] += 1

    def four(col, row, player):
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            n = 1
            for sign in (1, -1):
                c, r = col + sign * dc, row + sign * dr
                while 0 <= c < width and 0 <= r < height and grid[c][r] == player:
                    n += 1
                    c += sign * dc
                    r += sign * dr
            if n >= 4:
                return True
        return False

    def negamax(n):
        if n == width * height:
            return 0
        player = 1 + n % 2
        for col in range(width):
            if heights[col] < height and four(col, heights[col], player):
                return (width * height + 1 - n) // 2
        best = -width * height
        for col in range(width):
            if heights[col] < height:
                grid[col][heights[col]] = player
                heights[col] += 1
                best = max(best, -negamax(n + 1))
                heights[col] -= 1
                grid[col][heights[col]] = 0
        return best

    return negamax(len(moves))


# Hypothesis keeps no example database in the working tree (CI runs from a clean clone).
from hypothesis import settings as _settings  # noqa: E402

_settings.register_profile("transpo", database=None)
_settings.load_profile("transpo")
