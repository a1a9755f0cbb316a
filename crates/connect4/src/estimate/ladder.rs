//! A ladder: the counts of empty-board solves of one family of boards (one height and more
//! and more columns, or one width and more and more rows), extended to a bigger board of the
//! family (`transpo-c4 estimate --ladder`).
//!
//! Why not the sample alone ([`super::estimate`]): it extends its line 20 to 28 squares on
//! the open boards and falls short there by ×70 or more (`docs/connect4/estimate.md`). A
//! ladder extends what whole solves did, a column at a time. The rule: the least-squares
//! line through `ln(positions)` of the last [`FITTED`] rungs (two if the ladder has two),
//! against the rung's size, extended to the size asked for. Why the last three: back-tested
//! on the 32 steps of the ladders solved here with three boards before them, each board
//! predicted from the ones before it, the last two follow one step's jumps (×0.07–15), every
//! rung drags in the small boards' slower growth (×0.23–4.4), the last four ×0.23–3.6 (on
//! the 20 steps they could try), while the last three missed by ×0.40–3.0, 26 steps of 32
//! within ×2 (`docs/connect4/open-boards.md`; with the 17 steps solved since, still
//! ×0.40–3.0, 39 of 49). A ladder of two boards is the last-two line,
//! and is given the wider band it showed.
//!
//! A ladder of columns is then raised by [`COLUMN_GROWTH`] for each column past its last
//! rung: on those ladders the line came out short, step after step (a wider board's growth a
//! column quickens), and rows showed no such lean.
//!
//! The interval: the slowest and the fastest step of the fitted rungs, held for every size
//! past the last rung, times the back-test's worst misses ([`MISS`], [`MISS_TWO`]). It
//! covers every one-step back-test; further out, it assumes the growth stays within what the
//! ladder has shown.

use super::Fit;
use std::fmt;

/// Rungs the line goes through: the last three (or two).
pub const FITTED: usize = 3;

/// The most rungs a ladder holds: more than any family of solvable boards has.
pub const MAX_RUNGS: usize = 64;

/// The worst one-step misses of the line through three rungs, actual ÷ predicted, in the
/// back-test of `docs/connect4/open-boards.md`: the interval's floor and ceiling beyond the
/// growth seen.
pub const MISS: (f64, f64) = (0.40, 3.1);

/// The same for a ladder of two rungs, whose one step is all the growth it knows.
pub const MISS_TWO: (f64, f64) = (0.04, 6.7);

/// How much faster a ladder of columns grows, a column past its last rung, than its line
/// says: the geometric mean of actual ÷ predicted over the 20 one-step back-tests of the
/// column ladders solved here (4- to 7-high, strong and weak; 2026-12-01,
/// `docs/connect4/open-boards.md`, “a column grows faster than its line”). Each of those
/// steps, predicted with the mean of the other 19, landed within ×2 in 14 of 20 (12 of 20
/// by the line alone); the rows' 29 steps lean neither way (×0.96) and are not raised.
pub const COLUMN_GROWTH: f64 = 1.38;

/// What a ladder's boards grow along.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Along {
    /// One height, more and more columns.
    Columns,
    /// One width, more and more rows.
    Rows,
}

impl Along {
    /// `column` or `row`, as a report names a step.
    pub fn step_name(self) -> &'static str {
        match self {
            Along::Columns => "column",
            Along::Rows => "row",
        }
    }

    /// What a step's line is multiplied by, each step past the last rung: [`COLUMN_GROWTH`]
    /// along columns, 1 along rows.
    pub fn lean(self) -> f64 {
        match self {
            Along::Columns => COLUMN_GROWTH,
            Along::Rows => 1.0,
        }
    }
}

/// One solved board of a ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rung {
    /// Its size along the ladder: columns on a ladder of one height, rows on one of one width.
    pub size: u32,
    /// Positions its empty board's solve explored.
    pub positions: u64,
}

/// Why a ladder or a prediction was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LadderError {
    /// Fewer than two rungs: no growth to extend.
    TooFew(usize),
    /// More than [`MAX_RUNGS`].
    TooMany(usize),
    /// A rung whose solve explored no position.
    NoPositions {
        /// The rung's size.
        size: u32,
    },
    /// Sizes not strictly increasing, rung to rung.
    NotIncreasing {
        /// The earlier rung's size.
        before: u32,
        /// The next rung's size, not above it.
        after: u32,
    },
    /// A prediction asked for a size not above the last rung's.
    NotAbove {
        /// The size asked for.
        size: u32,
        /// The last rung's size.
        last: u32,
    },
}

impl fmt::Display for LadderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LadderError::TooFew(n) => {
                write!(
                    f,
                    "a ladder needs two boards at least, to show a growth ({n} given)"
                )
            }
            LadderError::TooMany(n) => write!(f, "at most {MAX_RUNGS} boards ({n} given)"),
            LadderError::NoPositions { size } => {
                write!(
                    f,
                    "the board of size {size} explored no positions: give its count"
                )
            }
            LadderError::NotIncreasing { before, after } => write!(
                f,
                "sizes must grow board to board, smallest first ({after} after {before})"
            ),
            LadderError::NotAbove { size, last } => write!(
                f,
                "the board to predict must be bigger than the ladder's last ({size}, not above {last})"
            ),
        }
    }
}

impl std::error::Error for LadderError {}

/// A ladder whose rungs were checked: two to [`MAX_RUNGS`], sizes increasing, counts above 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Ladder {
    rungs: Vec<Rung>,
    along: Along,
}

/// What a ladder says of a bigger board.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// Positions the empty board's solve explores: the line at the size, times the lean of
    /// its steps ([`Along::lean`]) for each step past the last rung.
    pub positions: f64,
    /// The line alone at the size.
    pub line: f64,
    /// The interval's floor.
    pub low: f64,
    /// The interval's ceiling.
    pub high: f64,
    /// The line's growth a size step (a column or a row).
    pub growth: f64,
    /// Size steps past the last rung.
    pub steps: u32,
}

impl Ladder {
    /// The ladder of `rungs`, smallest first, each a step further `along`.
    pub fn new(rungs: Vec<Rung>, along: Along) -> Result<Ladder, LadderError> {
        if rungs.len() < 2 {
            return Err(LadderError::TooFew(rungs.len()));
        }
        if rungs.len() > MAX_RUNGS {
            return Err(LadderError::TooMany(rungs.len()));
        }
        if let Some(rung) = rungs.iter().find(|rung| rung.positions == 0) {
            return Err(LadderError::NoPositions { size: rung.size });
        }
        if let Some(pair) = rungs.windows(2).find(|pair| pair[1].size <= pair[0].size) {
            return Err(LadderError::NotIncreasing {
                before: pair[0].size,
                after: pair[1].size,
            });
        }
        Ok(Ladder { rungs, along })
    }

    /// What its boards grow along.
    pub fn along(&self) -> Along {
        self.along
    }

    /// Every rung, smallest first.
    pub fn rungs(&self) -> &[Rung] {
        &self.rungs
    }

    /// The rungs the line goes through: the last [`FITTED`].
    pub fn fitted(&self) -> &[Rung] {
        &self.rungs[self.rungs.len().saturating_sub(FITTED)..]
    }

    /// The least-squares line through `ln(positions)` of the fitted rungs, against size.
    pub fn fit(&self) -> Fit {
        let points: Vec<(f64, f64)> = self
            .fitted()
            .iter()
            .map(|rung| (f64::from(rung.size), (rung.positions as f64).ln()))
            .collect();
        // Two points at least, of distinct sizes: checked by `new`.
        Fit::through(&points).expect("two rungs of distinct sizes")
    }

    /// The positions of the board of `size`, above the last rung's, with the interval.
    pub fn predict(&self, size: u32) -> Result<Prediction, LadderError> {
        let fitted = self.fitted();
        // `new` keeps two rungs at least, so there is a last.
        let last = fitted[fitted.len() - 1];
        if size <= last.size {
            return Err(LadderError::NotAbove {
                size,
                last: last.size,
            });
        }
        let fit = self.fit();
        let line = fit.at(size);
        let steps = size - last.size;
        let positions = line * self.along.lean().powf(f64::from(steps));
        // Each fitted step's growth a size step (sizes may skip).
        let growths: Vec<f64> = fitted
            .windows(2)
            .map(|pair| {
                let ratio = pair[1].positions as f64 / pair[0].positions as f64;
                ratio.powf(1.0 / f64::from(pair[1].size - pair[0].size))
            })
            .collect();
        let slowest = growths.iter().copied().fold(f64::INFINITY, f64::min);
        let fastest = growths.iter().copied().fold(0.0, f64::max);
        let miss = if fitted.len() >= FITTED {
            MISS
        } else {
            MISS_TWO
        };
        let from = last.positions as f64;
        let low = from * slowest.powf(f64::from(steps)) * miss.0;
        let high = from * fastest.powf(f64::from(steps)) * miss.1;
        Ok(Prediction {
            positions,
            line,
            low: low.min(positions),
            high: high.max(positions),
            growth: fit.growth(),
            steps,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ladder(counts: &[(u32, u64)]) -> Result<Ladder, LadderError> {
        ladder_along(counts, Along::Rows)
    }

    fn ladder_along(counts: &[(u32, u64)], along: Along) -> Result<Ladder, LadderError> {
        Ladder::new(
            counts
                .iter()
                .map(|&(size, positions)| Rung { size, positions })
                .collect(),
            along,
        )
    }

    #[test]
    fn a_geometric_ladder_is_extended_exactly() {
        // 7 · 10^size: the line through any rungs of it gives ×10 a column.
        let ladder = ladder(&[(4, 70_000), (5, 700_000), (6, 7_000_000), (7, 70_000_000)])
            .expect("a ladder");
        assert_eq!(ladder.fitted().len(), 3);
        let prediction = ladder.predict(10).expect("a prediction");
        assert!((prediction.growth - 10.0).abs() < 1e-9, "{prediction:?}");
        assert!(
            (prediction.positions / 7e10 - 1.0).abs() < 1e-9,
            "{prediction:?}"
        );
        assert_eq!(prediction.steps, 3);
        // Every step ×10: the interval is the misses around the line.
        assert!((prediction.low / (7e10 * MISS.0) - 1.0).abs() < 1e-9);
        assert!((prediction.high / (7e10 * MISS.1) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_ladder_of_columns_is_raised_a_column_at_a_time() {
        let counts = [(4, 70_000), (5, 700_000), (6, 7_000_000), (7, 70_000_000)];
        let rows = ladder(&counts)
            .expect("a ladder")
            .predict(10)
            .expect("a prediction");
        let columns = ladder_along(&counts, Along::Columns)
            .expect("a ladder")
            .predict(10)
            .expect("a prediction");
        // The same line; three columns past the last rung, three times the lean.
        assert!((columns.line / rows.line - 1.0).abs() < 1e-12);
        assert!((rows.positions / rows.line - 1.0).abs() < 1e-12);
        assert!((columns.positions / (7e10 * COLUMN_GROWTH.powi(3)) - 1.0).abs() < 1e-9);
        // The interval is the steps seen and the misses, whichever way the ladder goes; it
        // holds the raised centre.
        assert_eq!((columns.low, columns.growth), (rows.low, rows.growth));
        assert!(columns.high >= columns.positions);
    }

    /// The one-step back-test of `docs/connect4/open-boards.md` (2026-12-01) on the 4-high
    /// ladder, strong: 10×4 from 7, 8 and 9 ×4 by the line is ×3.03 short of the count; raised
    /// a column, ×2.20.
    #[test]
    fn the_four_high_step_to_ten_columns_lands_as_recorded() {
        let counts = [(7, 912_642), (8, 9_385_515), (9, 85_426_625)];
        let actual = 2_551_353_435.0;
        let line = ladder(&counts)
            .expect("a ladder")
            .predict(10)
            .expect("a prediction");
        let raised = ladder_along(&counts, Along::Columns)
            .expect("a ladder")
            .predict(10)
            .expect("a prediction");
        assert!((actual / line.positions - 3.03).abs() < 0.01, "{line:?}");
        assert!((actual / raised.positions - 3.03 / COLUMN_GROWTH).abs() < 0.01);
    }

    #[test]
    fn only_the_last_three_rungs_are_fitted() {
        // The first rung's slow start moves nothing; the last three grow ×8, then ×512.
        let ladder = ladder(&[(4, 1), (5, 1_000), (6, 8_000), (7, 4_096_000)]).expect("a ladder");
        let prediction = ladder.predict(8).expect("a prediction");
        // The line through ln 1000, ln 8000, ln 4096000 at 5, 6, 7: ×64 a column (half of
        // ×4096 over two), through their mean, ln 32000, at 6; at 8, 32000 · 64².
        assert!((prediction.growth - 64.0).abs() < 1e-9, "{prediction:?}");
        assert!((prediction.positions / 131_072_000.0 - 1.0).abs() < 1e-9);
        // Slowest ×8, fastest ×512, one step from 4096000.
        assert!((prediction.low / (32_768_000.0 * MISS.0) - 1.0).abs() < 1e-9);
        assert!((prediction.high / (2_097_152_000.0 * MISS.1) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn sizes_that_skip_are_steps_of_one() {
        // ×100 over two columns is ×10 a column.
        let prediction = ladder(&[(4, 10), (6, 1_000)])
            .expect("a ladder")
            .predict(7)
            .expect("a prediction");
        assert!((prediction.growth - 10.0).abs() < 1e-9);
        assert!((prediction.positions / 10_000.0 - 1.0).abs() < 1e-9);
        // Two rungs: the wider band.
        assert!((prediction.low / (10_000.0 * MISS_TWO.0) - 1.0).abs() < 1e-9);
        assert!((prediction.high / (10_000.0 * MISS_TWO.1) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn junk_ladders_are_refused() {
        assert_eq!(ladder(&[]), Err(LadderError::TooFew(0)));
        assert_eq!(ladder(&[(4, 10)]), Err(LadderError::TooFew(1)));
        assert_eq!(
            ladder(&[(4, 10), (5, 0)]),
            Err(LadderError::NoPositions { size: 5 })
        );
        assert_eq!(
            ladder(&[(4, 10), (6, 20), (6, 30)]),
            Err(LadderError::NotIncreasing {
                before: 6,
                after: 6
            })
        );
        assert_eq!(
            ladder(&[(5, 10), (4, 20)]),
            Err(LadderError::NotIncreasing {
                before: 5,
                after: 4
            })
        );
        let many: Vec<(u32, u64)> = (1..=65).map(|size| (size, 1)).collect();
        assert_eq!(ladder(&many), Err(LadderError::TooMany(65)));
        let fine = ladder(&[(4, 10), (5, 100)]).expect("a ladder");
        assert_eq!(
            fine.predict(5),
            Err(LadderError::NotAbove { size: 5, last: 5 })
        );
        assert_eq!(
            fine.predict(3),
            Err(LadderError::NotAbove { size: 3, last: 5 })
        );
        // Each refusal says what to do, in words.
        assert!(LadderError::TooFew(1).to_string().contains("two boards"));
    }

    #[test]
    fn a_shrinking_ladder_predicts_fewer_positions_within_its_interval() {
        let prediction = ladder(&[(4, 1_000), (5, 500)])
            .expect("a ladder")
            .predict(6)
            .expect("a prediction");
        assert!((prediction.positions - 250.0).abs() < 1e-9);
        assert!(prediction.low <= prediction.positions && prediction.positions <= prediction.high);
    }
}
