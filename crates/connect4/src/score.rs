//! What a score is: strong or weak, the win, draw and loss scores and the bounds they put on a
//! position, the windows of the binary search on the score, and the scores of a position's
//! columns.
//!
//! Why a module of its own, below the search: the opening book, the search, the tree of a
//! split and the line protocol all speak of scores, and each must mean the same by them
//! without depending on the others; every rule of the convention is stated here once.
//!
//! Scores are from the side to move (Pons' convention): on 7×6 a win with the player's
//! `k`-th stone is `22 − k`, a loss to the opponent's `k`-th stone `−(22 − k)`, a draw 0; in
//! general, on a board of `squares` squares, a win with the stone played when `n` stones are
//! down is worth `⌊(squares + 1 − n) / 2⌋` ([`win_now_score`]).

use crate::position::Bitboard;
use crate::position::Position;

/// Strong (exact score) or weak (sign of the score) solving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    /// The exact score.
    Strong,
    /// Only win (1), draw (0) or loss (−1).
    Weak,
}

/// The score of a draw: the board fills up and no one wins.
pub const DRAW: i32 = 0;

/// The score of a win with the side to move's next stone, when `moves` stones are down on a
/// board of `squares` squares: `⌊(squares + 1 − moves) / 2⌋` (Pons' convention, 22 − k for a
/// win with one's k-th stone on 7×6).
#[inline]
pub const fn win_now_score(squares: usize, moves: u32) -> i32 {
    (squares as i32 + 1 - moves as i32) / 2
}

/// The score of a loss to the opponent's next stone, when `moves` stones are down: the
/// opponent's [`win_now_score`] one stone later, negated. The lowest score a position with
/// `moves` stones can have.
#[inline]
pub const fn loss_next_score(squares: usize, moves: u32) -> i32 {
    -win_now_score(squares, moves + 1)
}

/// The most a position with `moves` stones can score when its side to move cannot win with
/// this stone: a win with their next one, [`win_now_score`] two stones later.
#[inline]
pub const fn win_later_max(squares: usize, moves: u32) -> i32 {
    win_now_score(squares, moves + 2)
}

/// The least a position with `moves` stones can score when the opponent cannot win with
/// their next stone: a loss to the one after, [`loss_next_score`] two stones later.
#[inline]
pub const fn loss_later_min(squares: usize, moves: u32) -> i32 {
    loss_next_score(squares, moves + 2)
}

/// The move (the number of the stone, counted from the first one on the empty board) on which
/// the game ends with perfect play from a position with `moves` stones whose exact score is
/// `score`, on a board of `squares` squares: the inverse of [`win_now_score`]. A win's score
/// `s` is `⌊(squares + 2 − m) / 2⌋` for the winning stone `m`, so `m` is `squares + 2 − 2s` or
/// one less, whichever the winner plays (the side to move plays stones `moves + 1`,
/// `moves + 3`, …); a draw fills the board. (A score larger than any win's saturates at 0.)
pub const fn last_move(squares: usize, moves: u32, score: i32) -> u32 {
    if score == DRAW {
        return squares as u32;
    }
    let latest = (squares as u32 + 2).saturating_sub(2 * score.unsigned_abs());
    let winner_plays_odd = moves.is_multiple_of(2) == (score > 0);
    if (latest % 2 == 1) == winner_plays_odd {
        latest
    } else {
        latest.saturating_sub(1)
    }
}

/// The reported score: as is when strong, its sign when weak. Also what an expected score
/// from a test set is compared against a weak solve as.
#[inline]
pub fn finish(score: i32, strength: Strength) -> i32 {
    match strength {
        Strength::Strong => score,
        Strength::Weak => score.signum(),
    }
}

/// The score of every column of `pos` (not over) from the side to move's view, `None` for a
/// full column: a winning move scores the win, a move that fills the board a [`DRAW`], any
/// other minus `solve`'s score of the position after it (as [`finish`]ed for `strength`).
/// `None` if `solve` gave up.
pub fn column_scores<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
    strength: Strength,
    mut solve: impl FnMut(&Position<W, H, B>) -> Option<i32>,
) -> Option<[Option<i32>; W]> {
    let mut scores = [None; W];
    for (col, score) in scores.iter_mut().enumerate() {
        if !pos.can_play(col) {
            continue;
        }
        *score = Some(if pos.is_winning_move(col) {
            finish(win_now_score(W * H, pos.moves()), strength)
        } else {
            let mut next = *pos;
            next.play_column(col);
            if next.moves() as usize == W * H {
                DRAW
            } else {
                -solve(&next)?
            }
        });
    }
    Some(scores)
}

/// The score range of a position the side to move cannot win at once: `(min, max)` with the
/// score in `min..=max`, the range a solve's binary search starts from.
pub(crate) fn initial_window<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
) -> (i32, i32) {
    (
        loss_next_score(W * H, pos.moves()),
        win_now_score(W * H, pos.moves()),
    )
}

/// What a solve must find out about a score `s`: `s` itself when `alpha < s < beta`, else only
/// that `s ≤ alpha` or that `s ≥ beta` — alpha-beta's window, which the binary search on the
/// score narrows with null windows `[t, t + 1]` ("is `s` above `t`?") only for the thresholds
/// `alpha ≤ t < beta` that are still open. A strong solve asks everything ([`Window::EXACT`]),
/// a weak one only about the thresholds −1 and 0 ([`Window::WEAK`]); one leaf of a split
/// solved in rounds (`crate::split`) asks what the root's minimax needs of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Window {
    /// Below the scores asked about: `s ≤ alpha` is all a solve must show of a score there.
    pub alpha: i32,
    /// Above them: `s ≥ beta` is all a solve must show of a score there.
    pub beta: i32,
}

impl Window {
    /// Everything: the exact score.
    pub const EXACT: Window = Window {
        alpha: i32::MIN / 2,
        beta: i32::MAX / 2,
    };
    /// Win, draw or loss: whether the score is above 0, and above −1.
    pub const WEAK: Window = Window { alpha: -1, beta: 1 };

    /// The window of a solve of `strength`.
    pub const fn of(strength: Strength) -> Window {
        match strength {
            Strength::Strong => Window::EXACT,
            Strength::Weak => Window::WEAK,
        }
    }

    /// Whether a score known to lie in `min..=max` is decided: no threshold `t` with
    /// `alpha ≤ t < beta` is left for which the range holds scores on both sides of `t + ½`.
    #[inline]
    pub fn decided(&self, min: i32, max: i32) -> bool {
        min.max(self.alpha) >= max.min(self.beta)
    }

    /// The next null window `[t, t + 1]` of the binary search, for a score in `min..=max`
    /// not yet [`decided`](Window::decided): an open threshold, the middle of the open ones
    /// pulled towards 0 (`next_window`).
    #[inline]
    pub fn next(&self, min: i32, max: i32) -> i32 {
        next_window(min.max(self.alpha), max.min(self.beta))
    }

    /// [`Window::next`] for a solve that has explored `explored` positions so far: past
    /// [`NEIGHBOURS_AFTER`], 0 and its neighbours first (`next_window_near_zero`).
    #[inline]
    pub fn next_after(&self, min: i32, max: i32, explored: u64) -> i32 {
        let (min, max) = (min.max(self.alpha), max.min(self.beta));
        if explored < NEIGHBOURS_AFTER {
            next_window(min, max)
        } else {
            next_window_near_zero(min, max)
        }
    }
}

/// Positions a solve explores before [`Window::next_after`] asks about 0 and its neighbours
/// first rather than bisecting: 2^23, past the solves of every Pons set but Begin-Hard.
pub const NEIGHBOURS_AFTER: u64 = 1 << 23;

/// The next null window `[t, t + 1]` of Pons' binary search on the score, within
/// `min < max`: the middle, pulled towards 0 where most scores lie (Part 9). The search
/// picks its windows by it; a caller that asks null windows of its own (an answer within a
/// budget) picks them the same way.
#[inline]
pub fn next_window(min: i32, max: i32) -> i32 {
    let mut med = min + (max - min) / 2;
    if med <= 0 && min / 2 < med {
        med = min / 2;
    } else if med >= 0 && max / 2 > med {
        med = max / 2;
    }
    med
}

/// The next null window `[t, t + 1]` for a score in `min..=max` with `min < max`, 0 and its
/// neighbours first: whether the score is above 0 (the weak solve's question), then, while
/// the bound found is 0's neighbour, whether the score is that neighbour; otherwise
/// [`next_window`].
///
/// Why, and why only for big solves ([`NEIGHBOURS_AFTER`]): a solve's costly windows are
/// those next to the score, where both bounds are tight, and most scores lie near 0.
/// Bisection spends windows far from the score on the way in (the empty board asks −4, +5,
/// +2, −1, +1, 0, where 0 then +1 settle it). But small solves, whose scores lie far from 0,
/// explore several times more from the first window on, and more again with doubling steps
/// from the neighbour (1, 3, 7, …) (measured: docs/connect4/parallel.md, 2026-11-27, “young
/// brothers wait replaces Lazy SMP”).
#[inline]
pub(crate) fn next_window_near_zero(min: i32, max: i32) -> i32 {
    debug_assert!(min < max);
    if min < 0 && 0 < max {
        0
    } else if min == 0 || min == 1 {
        // Is the score above its lower bound?
        min
    } else if max == 0 || max == -1 {
        // Is the score at its upper bound?
        max - 1
    } else {
        next_window(min, max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The named bounds are the arithmetic they replace in the search, on every board size
    /// and stone count a board can have.
    #[test]
    fn named_bounds_are_the_plain_arithmetic() {
        for squares in 16..=64usize {
            let sq = squares as i32;
            for moves in 0..=squares as u32 {
                let m = moves as i32;
                assert_eq!(loss_next_score(squares, moves), -(sq - m) / 2);
                assert_eq!(win_later_max(squares, moves), (sq - 1 - m) / 2);
                assert_eq!(loss_later_min(squares, moves), -(sq - 2 - m) / 2);
            }
        }
        assert_eq!(win_now_score(42, 0), 21);
        assert_eq!(loss_next_score(42, 0), -21);
    }

    /// Every score is reached: from any range, the windows the rule picks, answered as a
    /// score `s` answers them, narrow the range to `s` alone, each window an open threshold
    /// inside the range; and a score of 1 from the widest range takes the two windows 0, 1.
    #[test]
    fn windows_from_zero_and_its_neighbours_decide_every_score() {
        for lo in -21..=21 {
            for hi in lo + 1..=21 {
                for s in lo..=hi {
                    let (mut min, mut max, mut windows) = (lo, hi, Vec::new());
                    while min < max {
                        let t = next_window_near_zero(min, max);
                        assert!((min..max).contains(&t), "{lo}..={hi}, {s}: {t}");
                        windows.push(t);
                        if s > t { min = t + 1 } else { max = t }
                    }
                    assert_eq!(min, s, "{lo}..={hi}: {windows:?}");
                    assert!(windows.len() <= 12, "{lo}..={hi}, {s}: {windows:?}");
                }
            }
        }
        assert_eq!(next_window_near_zero(-21, 21), 0);
        assert_eq!(next_window_near_zero(1, 21), 1);
        assert_eq!(next_window_near_zero(-21, 0), -1);
        assert_eq!(next_window_near_zero(-21, -1), -2);
        assert_eq!(next_window_near_zero(4, 21), next_window(4, 21));
    }

    #[test]
    fn finish_keeps_a_strong_score_and_signs_a_weak_one() {
        assert_eq!(finish(-7, Strength::Strong), -7);
        assert_eq!(finish(-7, Strength::Weak), -1);
        assert_eq!(finish(DRAW, Strength::Weak), 0);
        assert_eq!(finish(3, Strength::Weak), 1);
    }
}
