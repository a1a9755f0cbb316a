//! How big a solve of the empty board would be, from a sample of smaller solves: the
//! positions it would explore, and its time on some number of cores, for a board too big to
//! solve here (`transpo-c4 estimate`).
//!
//! The method: solve random positions (random play that never wins or hands the opponent a
//! win at once, as [`crate::bench::sample`] makes them) with `e` empty squares, a level for
//! each `e` of the board's parity from [`FIRST_EMPTY`] up, each with a cleared table, and
//! count the positions each solve explores. The mean count grows about geometrically with
//! `e`; a least-squares line through `ln(mean)` of the upper half of the levels (those with
//! at least half the last level's empty squares), extended to `e = W·H`, is the estimate
//! for the empty board ([`Fit`]). Why that half: the growth quickens as `e` grows, so a line
//! through every level falls short (×0.57 on average over 25 known solves, 8 squares short of
//! the root), while one through the last three follows the noise of their means (×0.01 to
//! ×60); the upper half missed by ×0.25–1.9 there (`docs/connect4/estimate.md`). Levels go up while
//! the next one, at the growth seen so far, fits in the time left ([`affordable`]); a level
//! cut short by the time limit is dropped. A level whose `e` is the board's squares is the
//! empty board itself: then the count is measured, not estimated.
//!
//! What it cannot know: how far the line bends between the last level and the root. Its
//! error on the boards whose solves are known is stated in `crates/c4/README.md` and
//! `docs/connect4/estimate.md`; on a bigger board the line is extended further, so the error
//! there can only be larger. A ladder of whole solves of smaller boards of the same family
//! does better that far out ([`ladder`]).

pub mod ladder;

use crate::bench;
use crate::position::{Bitboard, Position};
use crate::score::{Strength, Window};
use crate::solver::Solver;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The fewest empty squares of a sampled level (or one more, for the board's parity): below
/// this, solves are a few dozen positions and say nothing of the growth.
pub const FIRST_EMPTY: u32 = 10;

/// How a sample is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Positions solved at each level (fewer where random play finds fewer distinct ones).
    pub samples: usize,
    /// The seed of the random play.
    pub seed: u64,
    /// The most empty squares of a level (at most the board's squares).
    pub max_empty: u32,
    /// The time limit of the whole sample: a solve still running then is stopped.
    pub budget: Duration,
}

/// The solves of one level: every sampled position with `empty` squares left.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    /// Empty squares of its positions.
    pub empty: u32,
    /// Positions each solve explored.
    pub positions: Vec<u64>,
    /// Seconds the solves took, together.
    pub seconds: f64,
}

impl Level {
    /// The mean positions of a solve (0 for a level with no solve).
    pub fn mean(&self) -> f64 {
        if self.positions.is_empty() {
            return 0.0;
        }
        self.positions.iter().sum::<u64>() as f64 / self.positions.len() as f64
    }

    /// Positions explored a second over the level's solves (0 if it took no measurable time).
    pub fn rate(&self) -> f64 {
        let total = self.positions.iter().sum::<u64>() as f64;
        if self.seconds > 0.0 {
            total / self.seconds
        } else {
            0.0
        }
    }
}

/// The line `ln(mean positions) = intercept + slope · empty` through some levels, by least
/// squares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// `ln(mean)` at zero empty squares.
    pub intercept: f64,
    /// Growth of `ln(mean)` an empty square.
    pub slope: f64,
}

impl Fit {
    /// The line through the upper half of `levels` (each a different `empty`, the last the
    /// most): those with at least half the last one's empty squares, if at least two of them
    /// have solves of more than one position (the others are left out).
    pub fn of(levels: &[Level]) -> Option<Fit> {
        let top = levels.iter().map(|level| level.empty).max().unwrap_or(0);
        let points: Vec<(f64, f64)> = levels
            .iter()
            .filter(|level| level.empty * 2 >= top && level.mean() > 1.0)
            .map(|level| (f64::from(level.empty), level.mean().ln()))
            .collect();
        Fit::through(&points)
    }

    /// The least-squares line through `points` (`x`, `ln` of a count), if there are two of
    /// distinct `x` at least.
    pub fn through(points: &[(f64, f64)]) -> Option<Fit> {
        if points.len() < 2 {
            return None;
        }
        let n = points.len() as f64;
        let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
        let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
        if sxx <= 0.0 {
            return None;
        }
        let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
        let slope = sxy / sxx;
        Some(Fit {
            intercept: mean_y - slope * mean_x,
            slope,
        })
    }

    /// The mean positions the line gives at `empty` empty squares.
    pub fn at(&self, empty: u32) -> f64 {
        (self.intercept + self.slope * f64::from(empty)).exp()
    }

    /// The factor the mean grows by an empty square.
    pub fn growth(&self) -> f64 {
        self.slope.exp()
    }
}

/// What a sample says of the empty board's solve.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// The levels solved, by empty squares.
    pub levels: Vec<Level>,
    /// The line through the upper half of the levels, if there were two there.
    pub fit: Option<Fit>,
    /// The positions the empty board's solve explores: measured if the last level is the
    /// empty board, else the line at the board's squares; `None` with fewer than two levels.
    pub positions: Option<f64>,
    /// Whether `positions` was measured (the empty board solved) rather than estimated.
    pub measured: bool,
    /// Positions a second on one thread, over the last level's solves (the largest, most
    /// like a long solve's).
    pub rate: f64,
    /// Whether the time limit stopped a level (then dropped).
    pub stopped: bool,
}

impl Estimate {
    /// What `levels` say of the empty board of `squares` squares, `stopped` whether the time
    /// limit cut a level off.
    pub fn of(levels: Vec<Level>, squares: u32, stopped: bool) -> Estimate {
        let fit = Fit::of(&levels);
        let last = levels.last();
        let measured = last.is_some_and(|level| level.empty == squares);
        let positions = if measured {
            last.map(Level::mean)
        } else {
            fit.map(|fit| fit.at(squares))
        };
        Estimate {
            rate: last.map_or(0.0, Level::rate),
            levels,
            fit,
            positions,
            measured,
            stopped,
        }
    }

    /// Hours the estimated solve takes on `cores` cores at [`Estimate::rate`] each, as if
    /// the cores shared the work perfectly; `None` without an estimate or a rate.
    pub fn hours(&self, cores: u32) -> Option<f64> {
        let positions = self.positions?;
        (self.rate > 0.0 && cores > 0).then(|| positions / (self.rate * f64::from(cores)) / 3600.0)
    }
}

/// The levels of a board of `squares` squares up to `max_empty` empty squares: from
/// [`FIRST_EMPTY`] (or one more, or fewer on a board that small), every second number of
/// the parity of `squares`, so that the same player is to move as on the empty board.
pub fn levels(squares: u32, max_empty: u32) -> impl Iterator<Item = u32> {
    let top = max_empty.min(squares);
    let first = if FIRST_EMPTY % 2 == squares % 2 {
        FIRST_EMPTY
    } else {
        FIRST_EMPTY + 1
    };
    // A board smaller than the first level: its empty board alone.
    let first = if first > top { top } else { first };
    (first..=top).filter(move |e| e % 2 == squares % 2)
}

/// Whether the level after `last` (two more empty squares) may be tried with `left` time
/// left: its solves take, at the growth `fit` gives (4 a level without a fit), the time of
/// `last`'s times the growth of two squares.
pub fn affordable(last: &Level, fit: Option<&Fit>, left: Duration) -> bool {
    let growth = fit.map_or(4.0, |fit| fit.growth().powi(2).max(1.0));
    last.seconds * growth <= left.as_secs_f64()
}

/// Samples the levels of the board `W`×`H` with `solver` (its table cleared before each
/// solve, one thread), as `plan` says, the whole within `plan.budget`, and estimates the
/// empty board's solve. `progress` hears of each level done.
pub fn estimate<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver<W, H, B>,
    strength: Strength,
    plan: &Plan,
    mut progress: impl FnMut(&Level),
) -> Estimate {
    let squares = (W * H) as u32;
    let started = Instant::now();
    let stop = AtomicBool::new(false);
    let (done, watch) = mpsc::channel::<()>();
    let mut done_levels: Vec<Level> = Vec::new();
    std::thread::scope(|scope| {
        // The watchdog: raises `stop` at the time limit, or ends when the sample does.
        let stop = &stop;
        scope.spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = watch.recv_timeout(plan.budget) {
                stop.store(true, Ordering::Relaxed);
            }
        });
        for empty in levels(squares, plan.max_empty) {
            let fit = Fit::of(&done_levels);
            let left = plan.budget.saturating_sub(started.elapsed());
            if let Some(last) = done_levels.last()
                && !affordable(last, fit.as_ref(), left)
            {
                break;
            }
            let Some(level) = sample_level(solver, strength, empty, plan, stop) else {
                break;
            };
            progress(&level);
            done_levels.push(level);
        }
        drop(done);
    });
    Estimate::of(done_levels, squares, stop.load(Ordering::Relaxed))
}

/// The solves of the level with `empty` empty squares, or `None` if `stop` was raised
/// before they were all done.
fn sample_level<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver<W, H, B>,
    strength: Strength,
    empty: u32,
    plan: &Plan,
    stop: &AtomicBool,
) -> Option<Level> {
    let squares = (W * H) as u32;
    let mut level = Level {
        empty,
        positions: Vec::new(),
        seconds: 0.0,
    };
    let mut stopped = false;
    // Each level its own seed, so that a level's positions do not depend on the others.
    let seed = plan.seed ^ u64::from(empty).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    bench::sample::<W, H, B>(
        squares - empty,
        plan.samples,
        seed,
        |pos: &Position<W, H, B>| {
            if stopped {
                return 0;
            }
            solver.reset();
            let solve = Instant::now();
            match solver.solve_window_until(pos, Window::of(strength), stop) {
                Some(_) => {
                    level.seconds += solve.elapsed().as_secs_f64();
                    level.positions.push(solver.nodes());
                }
                None => stopped = true,
            }
            0
        },
    );
    (!stopped && !level.positions.is_empty()).then_some(level)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(empty: u32, positions: &[u64], seconds: f64) -> Level {
        Level {
            empty,
            positions: positions.to_vec(),
            seconds,
        }
    }

    #[test]
    fn levels_keep_the_parity_of_the_board_and_stop_at_its_squares() {
        assert_eq!(
            levels(42, 42).collect::<Vec<_>>(),
            [
                10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42
            ]
        );
        assert_eq!(levels(35, 20).collect::<Vec<_>>(), [11, 13, 15, 17, 19]);
        assert_eq!(levels(72, 99).last(), Some(72));
        // A board smaller than the first level: the empty board alone.
        assert_eq!(levels(9, 9).collect::<Vec<_>>(), [9]);
        assert_eq!(levels(16, 11).collect::<Vec<_>>(), [10]);
        assert_eq!(levels(16, 3).count(), 0);
    }

    #[test]
    fn the_line_fits_a_geometric_growth_exactly() {
        // 10 · 3^e: the line through any levels of it is ln 10 + e ln 3.
        let levels: Vec<Level> = (10..=20)
            .step_by(2)
            .map(|e| level(e, &[10 * 3u64.pow(e)], 1.0))
            .collect();
        let fit = Fit::of(&levels).expect("a fit");
        assert!((fit.growth() - 3.0).abs() < 1e-9, "{fit:?}");
        assert!((fit.at(30) / (10.0 * 3f64.powi(30)) - 1.0).abs() < 1e-9);
        // A level of one-position solves says nothing of the growth, and a level below half
        // the last one's empty squares is left out: neither moves the line.
        let mut more = vec![level(3, &[7], 1.0), level(11, &[1, 1], 1.0)];
        more.extend(levels.iter().cloned());
        assert_eq!(Fit::of(&more), Some(fit));
        // Up and down by the same factor around the middle: the same growth.
        let bent: Vec<Level> = [(10, 100), (12, 4000), (14, 10_000)]
            .iter()
            .map(|&(e, n)| level(e, &[n], 1.0))
            .collect();
        let fit = Fit::of(&bent).expect("a fit");
        assert!((fit.growth() - 10f64.sqrt()).abs() < 1e-9, "{fit:?}");
    }

    #[test]
    fn a_line_needs_two_distinct_points() {
        assert_eq!(Fit::through(&[(1.0, 0.0)]), None);
        assert_eq!(Fit::through(&[(1.0, 0.0), (1.0, 2.0)]), None);
        let fit = Fit::through(&[(1.0, 0.0), (3.0, 2.0)]).expect("a line");
        assert_eq!((fit.intercept, fit.slope), (-1.0, 1.0));
    }

    #[test]
    fn the_mean_of_a_level_is_its_arithmetic_mean() {
        assert_eq!(level(10, &[1, 2, 9], 1.0).mean(), 4.0);
        assert_eq!(level(10, &[], 1.0).mean(), 0.0);
        assert_eq!(level(10, &[300, 100], 2.0).rate(), 200.0);
    }

    #[test]
    fn an_estimate_needs_two_levels_and_measures_the_empty_board() {
        let one = Estimate::of(vec![level(10, &[50], 1.0)], 42, false);
        assert_eq!((one.positions, one.hours(4)), (None, None));
        let two = Estimate::of(
            vec![level(10, &[100], 1.0), level(12, &[400], 1.0)],
            16,
            false,
        );
        // ×2 an empty square, 4 more squares: 400 · 16.
        let positions = two.positions.expect("an estimate");
        assert!((positions - 6400.0).abs() < 1e-6, "{positions}");
        assert!(!two.measured);
        // 400 positions a second on one core; 6400 on 2 cores take 8 s.
        let hours = two.hours(2).expect("hours");
        assert!((hours * 3600.0 - 8.0).abs() < 1e-9, "{hours}");
        let root = Estimate::of(
            vec![level(10, &[100], 1.0), level(12, &[7], 1.0)],
            12,
            false,
        );
        assert_eq!((root.positions, root.measured), (Some(7.0), true));
    }

    #[test]
    fn a_level_is_tried_only_if_it_fits_the_time_left() {
        let last = level(20, &[1000], 2.0);
        let fit = Fit {
            intercept: 0.0,
            slope: 3f64.ln(),
        };
        // ×9 two squares on: 18 s (give or take the rounding of e^(ln 3)).
        assert!(affordable(&last, Some(&fit), Duration::from_millis(18_001)));
        assert!(!affordable(&last, Some(&fit), Duration::from_secs(17)));
        // No fit yet: ×4.
        assert!(affordable(&last, None, Duration::from_secs(8)));
        assert!(!affordable(&last, None, Duration::from_secs(7)));
    }

    /// A small board sampled up to its empty board measures the empty board's solve, the
    /// same count as a solve of it alone; every level solved within the time limit.
    #[test]
    fn sampling_up_to_the_empty_board_measures_it() {
        let mut solver = Solver::<4, 4>::new(4).expect("4 MiB");
        let plan = Plan {
            samples: 4,
            seed: 1,
            max_empty: 16,
            budget: Duration::from_secs(60),
        };
        let mut heard = 0;
        let estimate = estimate(&mut solver, Strength::Strong, &plan, |_| heard += 1);
        assert_eq!(
            estimate.levels.iter().map(|l| l.empty).collect::<Vec<_>>(),
            [10, 12, 14, 16]
        );
        assert_eq!(heard, 4);
        assert!(estimate.measured && !estimate.stopped);
        solver.reset();
        solver.solve(&Position::new(), Strength::Strong);
        assert_eq!(estimate.positions, Some(solver.nodes() as f64));
    }
}
