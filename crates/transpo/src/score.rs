//! Mate-like scores in the table: stored relative to the node, read back relative to the root;
//! and the one call a search makes at a node to turn a probed entry into a cut-off or a move.
//!
//! A search scores "mate in 5 plies from here" as `MATE - (ply + 5)`, a distance from the
//! root. The same position reached at another ply is just as far from mate, but not from the
//! root, so the table stores the distance from the node (`score + ply`) and a probe at a
//! different ply converts back (`stored - ply`). Scores within `mate_threshold` of zero are
//! ordinary evaluations and pass through unchanged. Negative mates mirror positive ones.
//!
//! **The threshold is inclusive:** a score `s` is a mate score when `s >= mate_threshold` or
//! `s <= -mate_threshold`. Pass the smallest score your search gives a mate (for example
//! `MATE - MAX_PLY`); an engine whose own test is `s > T` passes `T + 1`.
//!
//! The helpers take the integer types engines use: scores `i16`, `i32` or `i64` ([`Score`]),
//! plies and depths any of `u8`, `u16`, `u32`, `u64`, `usize`, `i8`, `i16`, `i32`, `i64`
//! ([`Plies`]), so no casts are needed at the call sites. A converted score that would leave
//! the score type's range saturates at its end, for every score type (`i64` included) and
//! every ply, threshold and score, instead of wrapping round to the other end (it cannot
//! happen for scores within `±(MAX - max ply)`). Plies are taken exactly, a `u64` beyond
//! `i64::MAX` included.
//!
//! At a node, after a probe (all of Breuker et al.'s protocol in one place: depth test, mate
//! adjustment, bound against the window):
//!
//! ```
//! use transpo::{Bound, ChessEntry, Table, score::Verdict};
//!
//! const MATE_THRESHOLD: i16 = 32000 - 128;
//! let tt = Table::<ChessEntry>::with_mib(1)?;
//! let (key, depth, ply, alpha, beta) = (0x1234_u64, 5u8, 3usize, -20i16, 40i16);
//! tt.store(key, ChessEntry { mv: 796, score: 55, depth: 6, bound: Bound::Lower, ..Default::default() });
//! match tt.probe(key).map(|e| e.verdict(depth, ply, (alpha, beta), MATE_THRESHOLD)) {
//!     Some(Verdict::Cut(score)) => assert_eq!(score, 55), // return score
//!     Some(Verdict::Search { mv }) => unreachable!("search, trying {mv} first if legal"),
//!     None => unreachable!("search"),
//! }
//! // After the moves: the bound the result proves, the score made node-relative.
//! let (best, best_move) = (-25i16, 0u16);
//! let stored = ChessEntry {
//!     mv: best_move,
//!     score: transpo::score::to_table(best, ply, MATE_THRESHOLD),
//!     depth: depth as i8,
//!     bound: Bound::from_window(best, (alpha, beta)),
//!     ..Default::default()
//! };
//! assert_eq!(stored.bound, Bound::Upper);
//! # Ok::<(), transpo::Error>(())
//! ```

use crate::{
    entry::{Bound, ChessEntry},
    plies::wide,
};

pub use crate::plies::{Plies, Score};

/// Converts a root-relative score found at `ply` into the node-relative score to store.
/// Saturates at the ends of `S` (see the [module docs](self)).
#[inline]
pub fn to_table<S: Score>(score: S, ply: impl Plies, mate_threshold: S) -> S {
    shift(score, wide(ply), mate_threshold)
}

/// Converts a node-relative stored score into a root-relative one at `ply`.
/// Saturates at the ends of `S` (see the [module docs](self)).
#[inline]
pub fn from_table<S: Score>(stored: S, ply: impl Plies, mate_threshold: S) -> S {
    shift(stored, -wide(ply), mate_threshold)
}

/// A mate score `s` moved `by` plies away from zero (a winning one up, a losing one down),
/// saturating at the ends of `S`; other scores unchanged. In `i128`, where nothing overflows.
#[inline]
fn shift<S: Score>(score: S, by: i128, mate_threshold: S) -> S {
    let (s, threshold) = (wide(score), wide(mate_threshold));
    let moved = if s >= threshold {
        s + by
    } else if s <= -threshold {
        s - by
    } else {
        return score;
    };
    // Within `i64` after the clamp, so the cast keeps the value; `saturate` narrows further.
    S::saturate(moved.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
}

/// The score a node at `ply` searched with `(alpha, beta)` returns from an entry holding the
/// node-relative `stored` score with `bound`, when that bound settles the window: exact; a
/// lower bound `>= beta`; an upper bound `<= alpha` (compared after the mate conversion of
/// [`from_table`]). `None` when the node must be searched. The depth test is the caller's
/// (or [`ChessEntry::verdict`]'s).
#[inline]
pub fn cut<S: Score>(
    stored: S,
    bound: Bound,
    ply: impl Plies,
    (alpha, beta): (S, S),
    mate_threshold: S,
) -> Option<S> {
    let score = from_table(stored, ply, mate_threshold);
    let settles = match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    };
    settles.then_some(score)
}

/// What a probed entry means at a node ([`ChessEntry::verdict`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict<S> {
    /// Return this score (root-relative): the entry is deep enough and its bound settles
    /// the window. It is the stored score, as a fail-soft search returns it; a fail-hard
    /// search returns `score.clamp(alpha, beta)` (beta for a lower bound, alpha for an upper
    /// one).
    Cut(S),
    /// Search the node, trying the entry's move first: `mv` in the engine's encoding (0 for
    /// none), to be matched against the legal moves before it is played.
    Search {
        /// The entry's move.
        mv: u16,
    },
}

impl ChessEntry {
    /// What this entry, probed at a node `depth` plies from the horizon and `ply` plies from
    /// the root, searched with `(alpha, beta)`, tells the node: [`Verdict::Cut`] with the
    /// root-relative score when the entry is at least as deep (`self.depth >= depth`) and
    /// its bound settles the window ([`cut`]); otherwise [`Verdict::Search`] with its move.
    /// `mate_threshold` is inclusive (see the [module docs](self)).
    #[inline]
    pub fn verdict<S: Score>(
        &self,
        depth: impl Plies,
        ply: impl Plies,
        window: (S, S),
        mate_threshold: S,
    ) -> Verdict<S> {
        let stored = S::saturate(i64::from(self.score));
        if i64::from(self.depth) >= depth.plies()
            && let Some(score) = cut(stored, self.bound, ply, window, mate_threshold)
        {
            Verdict::Cut(score)
        } else {
            Verdict::Search { mv: self.mv }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATE: i32 = 32000;
    const THRESHOLD: i32 = MATE - 256;

    #[test]
    fn mate_distance_is_kept_across_plies() {
        // Mate in 3 plies from a node at ply 4 is `MATE - 7` at the root.
        let stored = to_table(MATE - 7, 4, THRESHOLD);
        assert_eq!(stored, MATE - 3);
        // Reached again at ply 10, the same node is mated 3 plies later: MATE - 13.
        assert_eq!(from_table(stored, 10, THRESHOLD), MATE - 13);
        assert_eq!(
            from_table(to_table(-MATE + 7, 4, THRESHOLD), 10, THRESHOLD),
            -MATE + 13
        );
    }

    #[test]
    fn ordinary_scores_pass_through() {
        for score in [-THRESHOLD + 1, -1, 0, 35, THRESHOLD - 1] {
            assert_eq!(to_table(score, 17, THRESHOLD), score);
            assert_eq!(from_table(score, 17, THRESHOLD), score);
        }
    }

    #[test]
    fn the_threshold_is_inclusive_and_every_type_agrees() {
        assert_eq!(to_table(THRESHOLD, 3u8, THRESHOLD), THRESHOLD + 3);
        assert_eq!(to_table(THRESHOLD - 1, 3usize, THRESHOLD), THRESHOLD - 1);
        assert_eq!(to_table(-THRESHOLD, 3u32, THRESHOLD), -THRESHOLD - 3);
        for score in [-MATE, -THRESHOLD, -5, 0, THRESHOLD - 1, THRESHOLD, MATE - 9] {
            for ply in [0u8, 1, 9, 127] {
                let wide = to_table(score, ply, THRESHOLD);
                let narrow = to_table(score as i16, ply, THRESHOLD as i16);
                assert_eq!(i32::from(narrow), wide, "{score} {ply}");
                assert_eq!(
                    to_table(i64::from(score), ply as usize, i64::from(THRESHOLD)),
                    i64::from(wide)
                );
                assert_eq!(
                    from_table(narrow, ply as i32, THRESHOLD as i16),
                    score as i16
                );
            }
        }
        assert_eq!(to_table(i16::MAX, 10u8, 30000), i16::MAX, "saturates");
    }

    #[test]
    fn cut_and_verdict_follow_the_bound_the_depth_and_the_mate_distance() {
        assert_eq!(cut(50, Bound::Lower, 0u8, (0, 50), THRESHOLD), Some(50));
        assert_eq!(cut(49, Bound::Lower, 0u8, (0, 50), THRESHOLD), None);
        assert_eq!(cut(0, Bound::Upper, 0u8, (0, 50), THRESHOLD), Some(0));
        assert_eq!(cut(1, Bound::Upper, 0u8, (0, 50), THRESHOLD), None);
        assert_eq!(cut(7, Bound::Exact, 0u8, (0, 50), THRESHOLD), Some(7));
        // Mate in 3 from the node, stored; read at ply 4 it is MATE - 7 from the root.
        let entry = ChessEntry {
            mv: 9,
            score: (MATE - 3) as i16,
            depth: 2,
            bound: Bound::Lower,
            ..ChessEntry::default()
        };
        let window = (0i16, 100i16);
        let threshold = THRESHOLD as i16;
        assert_eq!(
            entry.verdict(2u8, 4u8, window, threshold),
            Verdict::Cut((MATE - 7) as i16)
        );
        assert_eq!(
            entry.verdict(3i32, 4usize, window, threshold),
            Verdict::Search { mv: 9 }
        );
        let quiescence = ChessEntry { depth: -1, ..entry };
        assert_eq!(
            quiescence.verdict(0u8, 4u8, window, threshold),
            Verdict::Search { mv: 9 }
        );
        assert_eq!(
            quiescence.verdict(-1i32, 4u8, window, threshold),
            Verdict::Cut((MATE - 7) as i16)
        );
    }

    /// The reference: the conversion computed in `i128`, where nothing overflows, then
    /// clamped to the score type's range `[min, max]`.
    fn reference(score: i128, by: i128, threshold: i128, (min, max): (i128, i128)) -> i128 {
        let moved = if score >= threshold {
            score + by
        } else if score <= -threshold {
            score - by
        } else {
            score
        };
        moved.clamp(min, max)
    }

    /// Any value of a type, its extremes and the values next to them a quarter of the time
    /// each (proptest's plain integers rarely reach the ends).
    macro_rules! extreme {
        ($t:ty) => {
            prop_oneof![
                any::<$t>(),
                Just(<$t>::MIN),
                Just(<$t>::MAX),
                prop_oneof![
                    Just(<$t>::MIN.wrapping_add(1)),
                    Just(<$t>::MAX.wrapping_sub(1)),
                    Just(<$t>::MIN / 2),
                    Just(<$t>::MAX / 2),
                    Just(0 as $t),
                    Just(1 as $t),
                ],
            ]
        };
    }

    /// Checks `to_table` and `from_table` for score type `$s` and ply type `$p` against
    /// [`reference`], and that a mate never changes side.
    macro_rules! against_reference {
        ($name:ident, $s:ty, $p:ty) => {
            proptest::proptest! {
                #[test]
                fn $name(score in extreme!($s), ply in extreme!($p), threshold in extreme!($s)) {
                    let range = (i128::from(<$s>::MIN), i128::from(<$s>::MAX));
                    let (s, p, t) = (i128::from(score), ply as i128, i128::from(threshold));
                    let stored = to_table(score, ply, threshold);
                    proptest::prop_assert_eq!(i128::from(stored), reference(s, p, t, range));
                    let read = from_table(score, ply, threshold);
                    proptest::prop_assert_eq!(i128::from(read), reference(s, -p, t, range));
                    if t > 0 && s >= t && p >= 0 {
                        proptest::prop_assert!(stored >= score, "a winning mate stays winning");
                    }
                    if t > 0 && s <= -t && p >= 0 {
                        proptest::prop_assert!(stored <= score, "a losing mate stays losing");
                    }
                }
            }
        };
    }

    use proptest::prelude::*;
    against_reference!(saturates_i16_u8, i16, u8);
    against_reference!(saturates_i16_i64, i16, i64);
    against_reference!(saturates_i32_usize, i32, usize);
    against_reference!(saturates_i32_i8, i32, i8);
    against_reference!(saturates_i64_u8, i64, u8);
    against_reference!(saturates_i64_i32, i64, i32);
    against_reference!(saturates_i64_i64, i64, i64);
    against_reference!(saturates_i64_u64, i64, u64);

    #[test]
    fn the_audit_s_i64_cases_saturate() {
        // Each of these once wrapped round to the other end of `i64`.
        assert_eq!(to_table(i64::MAX, 1i64, 1000i64), i64::MAX);
        assert_eq!(to_table(i64::MIN, 1u8, 1000), i64::MIN);
        assert_eq!(from_table(i64::MAX, -1i32, 1000), i64::MAX);
        assert_eq!(from_table(i64::MIN, -1i32, 1000), i64::MIN);
        // A ply beyond `i64::MAX` moves a mate as far as it can, never backwards.
        assert_eq!(to_table(1000i64, u64::MAX, 1000), i64::MAX);
    }

    #[test]
    fn round_trip_at_the_same_ply_is_identity() {
        for score in [-MATE, -THRESHOLD, 0, THRESHOLD, MATE - 1] {
            for ply in [0, 1, 60, 200] {
                assert_eq!(
                    from_table(to_table(score, ply, THRESHOLD), ply, THRESHOLD),
                    score
                );
            }
        }
    }
}
