//! Answers within a budget: the budget's arguments checked (`max_seconds`, `max_nodes`), and
//! the policy that narrows each column's score with null-window searches until the best move
//! (or every column) is proven, so that a search stopped at any moment leaves the best
//! column found so far and true bounds on every column.
//!
//! Why null windows column by column: a solve stopped part-way gives nothing (the library
//! keeps only finished searches), but each null window that finished is a true bound. The
//! root's score is bisected as the library bisects a position's ([`next_window`]: the middle,
//! pulled towards 0 where most scores lie), each threshold asked of the columns most likely
//! to pass it first: the best lower bound, then the library's move order. A column that
//! passes raises the root's lower bound; when every column has failed, the root's upper
//! bound falls. When the two meet, the best column and its score are proven; an analysis
//! then bisects every other column too.

use crate::read::{Refusal, Value};
use std::time::Duration;

/// The most seconds a budget takes: about 31 years, past any use, and well within what a
/// `Duration` holds.
pub const MAX_SECONDS: f64 = 1e9;
/// The most positions a budget takes: 2^60, past any machine's years of search.
pub const MAX_NODES: u64 = 1 << 60;

/// The time of `max_seconds=` (already a number: the Python layer refuses other types),
/// checked: a finite number from 0 to [`MAX_SECONDS`].
pub fn seconds(value: f64) -> Result<Duration, Refusal> {
    let expected = format!("a number of seconds from 0 to {MAX_SECONDS:e}, or None");
    if value.is_nan() || !(0.0..=MAX_SECONDS).contains(&value) {
        let shown = if value.is_nan() {
            "nan".to_string()
        } else {
            format!("{value}")
        };
        return Err(Refusal::Value(format!("max_seconds={shown}: {expected}")));
    }
    Ok(Duration::from_secs_f64(value))
}

/// The count of `max_nodes=`, checked: an int (not a bool) from 1 to [`MAX_NODES`].
pub fn nodes(value: &Value) -> Result<u64, Refusal> {
    let expected = "the most positions to explore, an int from 1 to 2**60, or None";
    match value {
        Value::Int(i) if (1..=MAX_NODES as i64).contains(i) => Ok(*i as u64),
        Value::Int(i) => Err(Refusal::Value(format!("max_nodes={i}: {expected}"))),
        Value::BigInt(digits) => Err(Refusal::Value(format!("max_nodes={digits}: {expected}"))),
        other => Err(Refusal::Type(format!(
            "max_nodes is {}, not an int: {expected}",
            other.describe()
        ))),
    }
}

/// The next null window for a score in `min..=max`: the library's rule, so that a budgeted
/// answer asks the windows the library's search would.
pub use transpo_connect4::score::next_window;

/// What an answer must prove.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// A best column and its score (`best_move`): the best column's score exact, every
    /// other column's at most that.
    Best,
    /// Every column's score (`analyse`).
    All,
}

/// What is known of the scores of a position's columns, from the side to move: bounds
/// `(lo, hi)` on each, `None` for a full column, all within `clamp` (for a weak solver
/// `(-1, 1)`: win, draw or loss).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    bounds: Vec<Option<(i32, i32)>>,
    /// Each column's rank in the move order (0 first).
    rank: Vec<usize>,
    clamp: (i32, i32),
}

impl Columns {
    /// The columns of `bounds` (`None` for a full column; at least one not full), tried in
    /// `order` (every column once, the most promising first), scores within `clamp`.
    pub fn new(bounds: Vec<Option<(i32, i32)>>, order: &[usize], clamp: (i32, i32)) -> Self {
        let mut rank = vec![order.len(); bounds.len()];
        for (i, &col) in order.iter().enumerate() {
            if let Some(r) = rank.get_mut(col) {
                *r = i;
            }
        }
        let clamped =
            |(lo, hi): (i32, i32)| (lo.clamp(clamp.0, clamp.1), hi.clamp(clamp.0, clamp.1));
        Columns {
            bounds: bounds.into_iter().map(|b| b.map(clamped)).collect(),
            rank,
            clamp,
        }
    }

    /// Each column's bounds, `None` for a full column.
    pub fn bounds(&self) -> &[Option<(i32, i32)>] {
        &self.bounds
    }

    /// The open columns and their bounds.
    fn open(&self) -> impl Iterator<Item = (usize, i32, i32)> + '_ {
        self.bounds
            .iter()
            .enumerate()
            .filter_map(|(c, b)| b.map(|(lo, hi)| (c, lo, hi)))
    }

    /// The bounds of the position's score: the best lower bound and the best upper bound of
    /// its columns.
    pub fn root(&self) -> (i32, i32) {
        let lo = self.open().map(|(_, lo, _)| lo).max();
        let hi = self.open().map(|(_, _, hi)| hi).max();
        (lo.unwrap_or(0), hi.unwrap_or(0))
    }

    /// The column to play: the best lower bound, then the best upper bound, then the first
    /// in the move order. `None` only if every column is full.
    pub fn best(&self) -> Option<usize> {
        self.open()
            .max_by_key(|&(c, lo, hi)| (lo, hi, std::cmp::Reverse(self.rank[c])))
            .map(|(c, _, _)| c)
    }

    /// Whether `goal` is proven: the root's bounds meet (a column scores the best and none
    /// more), and for [`Goal::All`] every column's bounds meet.
    pub fn proven(&self, goal: Goal) -> bool {
        let (lo, hi) = self.root();
        lo == hi && (goal == Goal::Best || self.open().all(|(_, lo, hi)| lo == hi))
    }

    /// The next question, `(column, t)`: "is the column's score above `t`?", or `None` once
    /// `goal` is proven. While the root is open, its threshold [`next_window`] is asked of
    /// a column that may pass it (the best lower bound first, then the move order); then,
    /// for [`Goal::All`], each open column in the move order is bisected.
    pub fn next(&self, goal: Goal) -> Option<(usize, i32)> {
        let (lo, hi) = self.root();
        if lo < hi {
            let t = next_window(lo, hi);
            // Some column has `hi` above `t`, and none has `lo` above it (the root's `lo` is
            // at most `t`), so there is one to ask.
            return self
                .open()
                .filter(|&(_, _, h)| h > t)
                .min_by_key(|&(c, l, _)| (std::cmp::Reverse(l), self.rank[c]))
                .map(|(c, _, _)| (c, t));
        }
        if goal == Goal::Best {
            return None;
        }
        self.open()
            .filter(|&(_, l, h)| l < h)
            .min_by_key(|&(c, _, _)| self.rank[c])
            .map(|(c, l, h)| (c, next_window(l, h)))
    }

    /// Narrows `column`'s bounds by an answer: its score lies in `lo..=hi` (a search's
    /// fail-soft range, clamped here). A column out of range, full, or an answer that
    /// contradicts what is known (never, from true searches) changes nothing.
    pub fn narrow(&mut self, column: usize, lo: i32, hi: i32) {
        let (lo, hi) = (
            lo.clamp(self.clamp.0, self.clamp.1),
            hi.clamp(self.clamp.0, self.clamp.1),
        );
        if let Some(Some((l, h))) = self.bounds.get_mut(column) {
            let (new_lo, new_hi) = ((*l).max(lo), (*h).min(hi));
            if new_lo <= new_hi {
                (*l, *h) = (new_lo, new_hi);
            }
        }
    }
}

/// The bounds `(lo, hi)` of one position's score narrowed by one null-window answer `lo..=hi`
/// (clamped to `clamp`), as [`Columns::narrow`] does for a column.
pub fn narrow_one(known: (i32, i32), answer: (i32, i32), clamp: (i32, i32)) -> (i32, i32) {
    let answer = (
        answer.0.clamp(clamp.0, clamp.1),
        answer.1.clamp(clamp.0, clamp.1),
    );
    let (lo, hi) = (known.0.max(answer.0), known.1.min(answer.1));
    if lo <= hi { (lo, hi) } else { known }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRONG: (i32, i32) = (-100, 100);

    /// Runs the policy against true column scores `scores`, answering each question as a
    /// null-window search does (the exact score when it lies in the window, else the side
    /// it lies on, no further); returns the questions asked and the final columns.
    fn run(scores: &[Option<i32>], range: i32, goal: Goal, clamp: (i32, i32)) -> (usize, Columns) {
        let bounds = scores.iter().map(|s| s.map(|_| (-range, range))).collect();
        let order: Vec<usize> = (0..scores.len()).collect();
        let mut columns = Columns::new(bounds, &order, clamp);
        let mut asked = 0;
        while let Some((c, t)) = columns.next(goal) {
            let s = scores[c].expect("an open column");
            asked += 1;
            assert!(asked < 1000, "no end");
            if s > t {
                columns.narrow(c, t + 1, range);
            } else {
                columns.narrow(c, -range, t);
            }
        }
        (asked, columns)
    }

    /// Each column's score after `4453` on 7×6 (Pons' scores, as `analyse` gives them).
    const AFTER_4453: [Option<i32>; 7] = [
        Some(-5),
        Some(-5),
        Some(-2),
        Some(-3),
        Some(-4),
        Some(-2),
        Some(-2),
    ];

    #[test]
    fn the_best_column_and_its_score_are_found() {
        for scores in [
            AFTER_4453.to_vec(),
            vec![None, Some(3), Some(0), Some(18), Some(-1)],
            vec![Some(0)],
            vec![Some(-18), None, Some(-18)],
        ] {
            let best = scores.iter().flatten().max().copied();
            let (_, columns) = run(&scores, 18, Goal::Best, STRONG);
            assert!(columns.proven(Goal::Best));
            let b = columns.best().expect("a column");
            assert_eq!(scores[b], best, "{scores:?}");
            assert_eq!(columns.root(), (best.unwrap_or(0), best.unwrap_or(0)));
            // Every column's bounds hold its score.
            for (bound, score) in columns.bounds().iter().zip(&scores) {
                match (bound, score) {
                    (Some((lo, hi)), Some(s)) => assert!(lo <= s && s <= hi),
                    (None, None) => {}
                    other => panic!("{other:?}"),
                }
            }
            let (_, all) = run(&scores, 18, Goal::All, STRONG);
            let exact: Vec<_> = all.bounds().iter().map(|b| b.map(|(lo, _)| lo)).collect();
            assert_eq!(exact, scores);
            assert!(all.proven(Goal::All));
        }
    }

    #[test]
    fn a_best_move_asks_fewer_questions_than_an_analysis() {
        let scores = AFTER_4453;
        let (best, _) = run(&scores, 18, Goal::Best, STRONG);
        let (all, _) = run(&scores, 18, Goal::All, STRONG);
        assert!(best < all, "{best} vs {all}");
    }

    #[test]
    fn weak_bounds_stay_within_win_draw_loss() {
        let scores = [Some(-3), Some(0), Some(5), None];
        let (_, columns) = run(&scores, 18, Goal::All, (-1, 1));
        assert_eq!(
            columns.bounds(),
            &[Some((-1, -1)), Some((0, 0)), Some((1, 1)), None]
        );
        assert_eq!(columns.best(), Some(2));
    }

    #[test]
    fn the_first_question_goes_to_the_first_column_in_the_order() {
        let columns = Columns::new(vec![Some((-18, 18)); 7], &[3, 2, 4, 1, 5, 0, 6], STRONG);
        assert_eq!(columns.next(Goal::Best), Some((3, -9)));
        // Ties on bounds go to the order; a better lower bound wins.
        assert_eq!(columns.best(), Some(3));
        let mut columns = columns;
        columns.narrow(6, 1, 18);
        assert_eq!(columns.best(), Some(6));
        // The root is above 0 now: the next threshold is asked of column 6 first.
        assert_eq!(columns.next(Goal::Best), Some((6, next_window(1, 18))));
    }

    #[test]
    fn a_contradiction_or_a_bad_column_changes_nothing() {
        let mut columns = Columns::new(vec![Some((-2, 2)), None], &[0, 1], STRONG);
        columns.narrow(0, 3, 5);
        columns.narrow(1, 0, 0);
        columns.narrow(9, 0, 0);
        assert_eq!(columns.bounds(), &[Some((-2, 2)), None]);
        assert_eq!(narrow_one((-2, 2), (3, 5), STRONG), (-2, 2));
        assert_eq!(narrow_one((-2, 2), (1, 9), STRONG), (1, 2));
    }

    #[test]
    fn budgets_are_checked() {
        assert_eq!(seconds(0.0), Ok(Duration::ZERO));
        assert_eq!(seconds(1.5), Ok(Duration::from_millis(1500)));
        for bad in [-1.0, f64::NAN, f64::INFINITY, -0.001, 2e9] {
            let refusal = seconds(bad).expect_err("refused");
            assert!(matches!(refusal, Refusal::Value(_)), "{bad}");
            assert!(refusal.message().starts_with("max_seconds="), "{refusal:?}");
        }
        assert_eq!(nodes(&Value::Int(1)), Ok(1));
        assert!(matches!(nodes(&Value::Int(0)), Err(Refusal::Value(_))));
        assert!(matches!(nodes(&Value::Int(-5)), Err(Refusal::Value(_))));
        assert!(matches!(
            nodes(&Value::Int(1 << 61)),
            Err(Refusal::Value(_))
        ));
        assert!(matches!(
            nodes(&Value::BigInt("9".repeat(30))),
            Err(Refusal::Value(_))
        ));
        let refusal = nodes(&Value::Bool(true)).expect_err("a bool");
        assert_eq!(
            refusal,
            Refusal::Type(
                "max_nodes is a bool (True), not an int: the most positions to explore, an \
                 int from 1 to 2**60, or None"
                    .into()
            )
        );
    }

    #[test]
    fn windows_match_the_librarys_rule() {
        // The middle pulled towards 0 goes half way to the bound on 0's side: from -21..21,
        // -10 (as the library's rule for small solves).
        assert_eq!(next_window(-21, 21), -10);
        assert_eq!(next_window(-10, 21), 10);
        assert_eq!(next_window(-1, 1), 0);
        assert_eq!(next_window(-1, 0), -1);
        assert_eq!(next_window(0, 1), 0);
        for lo in -21..21 {
            for hi in lo + 1..=21 {
                assert!((lo..hi).contains(&next_window(lo, hi)), "{lo}..{hi}");
            }
        }
    }
}
