//! Texel tuning: fitting the tapered evaluation's weights to the results of the engine's
//! own games.
//!
//! The data are positions from self-play (`transpo-chess datagen`): quiet positions (not in
//! check, a quiet move chosen, no mate score), each labelled with its game's result for
//! White, one per line as `FEN;R` with R = 1, 0.5 or 0. No outside engine labels anything.
//!
//! The evaluation is linear in its weights ([`crate::eval::tapered::terms`]), so each
//! position is reduced once to its terms, and the fit is a logistic regression: the
//! predicted result is `1 / (1 + e^(−K·eval))`, `K` is first fitted to the starting weights,
//! then the mean squared error of the predictions is minimised over the weights by gradient
//! descent with momentum on the whole set per step. Plain gradient steps, not Adam's: a
//! weight moves in proportion to the evidence for it, so a term that few positions have
//! (a queen on a corner square, eight-square knight mobility) barely moves, where Adam
//! would move every weight at the same pace and fit the noise of a few games. A tenth of
//! the positions (every tenth block of 100, about one game each) is held out, and its error
//! is reported beside the training error so that over-fitting shows.

use std::fmt::Write as _;

use cozy_chess::Board;

use crate::eval::tapered::{MAX_PHASE, Param, Terms, WEIGHT_COUNT, phase, terms};
use crate::eval::weights::WEIGHTS;

/// Positions reduced to their terms.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    /// All positions' term indices, position after position.
    index: Vec<u16>,
    /// The counts matching `index`.
    count: Vec<i16>,
    /// Where each position's terms end in `index` (a `usize`: a large set's term count may
    /// pass `u32::MAX`).
    ends: Vec<usize>,
    /// Each position's phase, 0 to [`MAX_PHASE`].
    phase: Vec<u8>,
    /// Each position's result for White: 1, 0.5 or 0.
    result: Vec<f32>,
}

/// Most positions [`Dataset::read`] takes: 10 million, ten times the largest set the weights
/// were fitted on, and a few GB of terms. A larger file, or a pipe that never ends, is an
/// error rather than memory spent without bound.
pub const MAX_POSITIONS: usize = 10_000_000;

/// Collects a position's terms, adding up repeated indices.
struct Collect(Vec<(u16, i32)>);

impl Terms for Collect {
    fn add(&mut self, index: usize, count: i32) {
        if count == 0 {
            return;
        }
        // In range: indices are below WEIGHT_COUNT (under 2^16).
        let index = index as u16;
        match self.0.iter_mut().find(|(i, _)| *i == index) {
            Some(slot) => slot.1 += count,
            None => self.0.push((index, count)),
        }
    }
}

impl Dataset {
    /// Positions in the set.
    pub fn len(&self) -> usize {
        self.result.len()
    }

    /// Whether the set has no positions.
    pub fn is_empty(&self) -> bool {
        self.result.is_empty()
    }

    /// Adds a position with its result for White.
    pub fn push(&mut self, board: &Board, result: f32) {
        let mut collect = Collect(Vec::with_capacity(96));
        terms(board, &mut collect);
        for (i, c) in collect.0 {
            self.index.push(i);
            self.count
                .push(c.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16);
        }
        self.ends.push(self.index.len());
        self.phase.push(phase(board) as u8);
        self.result.push(result);
    }

    /// Reads `FEN;R` lines; returns the set and the number of lines that did not parse.
    pub fn parse(text: &str) -> (Self, usize) {
        let mut set = Dataset::default();
        let mut bad = 0;
        for line in text.lines() {
            if !set.add_line(line) {
                bad += 1;
            }
        }
        (set, bad)
    }

    /// Reads `FEN;R` lines from `reader` (a file or a pipe), each at most
    /// [`transpo_files::TEXT_LINE_MAX`] bytes; returns the set and the number of lines
    /// rejected (that did not parse, were too long or were not UTF-8). A line too long or not
    /// UTF-8 is also reported to `rejected` as `NAME:N: line too long (over 4096 bytes)` or
    /// `NAME:N: not UTF-8`; reading goes on. Blank lines are skipped.
    ///
    /// # Errors
    ///
    /// A read error, or more than [`MAX_POSITIONS`] positions (`name` names the input in the
    /// message): an endless pipe of positions ends there instead of exhausting memory.
    pub fn read(
        reader: impl std::io::BufRead,
        name: &str,
        rejected: &mut dyn FnMut(String),
    ) -> Result<(Self, usize), String> {
        Self::read_within(reader, name, MAX_POSITIONS, rejected)
    }

    /// [`Dataset::read`] with at most `max` positions.
    fn read_within(
        reader: impl std::io::BufRead,
        name: &str,
        max: usize,
        rejected: &mut dyn FnMut(String),
    ) -> Result<(Self, usize), String> {
        let mut set = Dataset::default();
        let mut bad = 0;
        for line in transpo_files::Lines::new(reader, transpo_files::TEXT_LINE_MAX) {
            let line = line.map_err(|e| format!("cannot read {name}: {e}"))?;
            match line.text {
                Ok(text) => {
                    if !set.add_line(&text) {
                        bad += 1;
                    } else if set.len() > max {
                        return Err(format!(
                            "{name} holds more than {max} positions, the most tune holds; \
                             tune on a sample of it"
                        ));
                    }
                }
                Err(why) => {
                    rejected(format!("{name}:{}: {why}", line.number));
                    bad += 1;
                }
            }
        }
        Ok((set, bad))
    }

    /// Adds the position of one `FEN;R` line; `false` if the line is not blank and does not
    /// parse (a blank line adds nothing and counts as read).
    fn add_line(&mut self, line: &str) -> bool {
        if line.trim().is_empty() {
            return true;
        }
        match parse_line(line) {
            Some((board, result)) => {
                self.push(&board, result);
                true
            }
            None => false,
        }
    }

    /// The terms of position `n`.
    fn terms(&self, n: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let start = if n == 0 { 0 } else { self.ends[n - 1] };
        let end = self.ends[n];
        self.index[start..end]
            .iter()
            .zip(&self.count[start..end])
            .map(|(&i, &c)| (usize::from(i), f64::from(c)))
    }

    /// The evaluation of position `n` under `weights`, for White.
    fn eval(&self, n: usize, weights: &[(f64, f64)]) -> f64 {
        let (mut mg, mut eg) = (0.0, 0.0);
        for (i, c) in self.terms(n) {
            mg += weights[i].0 * c;
            eg += weights[i].1 * c;
        }
        let p = f64::from(self.phase[n]) / f64::from(MAX_PHASE);
        mg * p + eg * (1.0 - p)
    }
}

/// One `FEN;R` line: the position and its result for White.
pub fn parse_line(line: &str) -> Option<(Board, f32)> {
    let (fen, result) = line.rsplit_once(';')?;
    let result: f32 = result.trim().parse().ok()?;
    if ![0.0, 0.5, 1.0].contains(&result) {
        return None;
    }
    let board = Board::from_fen(fen.trim(), false).ok()?;
    Some((board, result))
}

/// The predicted result for an evaluation.
fn predict(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + (-k * eval).exp())
}

/// Mean squared error of the predictions over the positions `n` with `pick(n)`.
fn error(set: &Dataset, weights: &[(f64, f64)], k: f64, pick: impl Fn(usize) -> bool) -> f64 {
    let (mut sum, mut count) = (0.0, 0usize);
    for n in (0..set.len()).filter(|&n| pick(n)) {
        let e = f64::from(set.result[n]) - predict(k, set.eval(n, weights));
        sum += e * e;
        count += 1;
    }
    sum / count.max(1) as f64
}

/// Whether position `n` is held out of the fit: every tenth block of 100 positions, so that
/// held-out positions mostly come from games the fit did not see.
fn held_out(n: usize) -> bool {
    n / 100 % 10 == 9
}

/// The compiled-in weights as floats.
pub fn current_weights() -> Vec<(f64, f64)> {
    WEIGHTS
        .iter()
        .map(|&(mg, eg)| (f64::from(mg), f64::from(eg)))
        .collect()
}

/// What a fit did.
#[derive(Clone, Debug)]
pub struct Fit {
    /// The fitted weights.
    pub weights: Vec<(f64, f64)>,
    /// The scale `K` of the predictions.
    pub k: f64,
    /// Training and held-out error before the fit.
    pub before: (f64, f64),
    /// Training and held-out error after it.
    pub after: (f64, f64),
}

impl Fit {
    /// Whether the weights, `K` and the errors are all finite numbers. A step too large
    /// (`tune --rate 1e308`) overflows to infinities and NaNs, which must not be written as
    /// weights.
    pub fn is_finite(&self) -> bool {
        self.k.is_finite()
            && [self.before.0, self.before.1, self.after.0, self.after.1]
                .iter()
                .all(|e| e.is_finite())
            && self
                .weights
                .iter()
                .all(|(mg, eg)| mg.is_finite() && eg.is_finite())
    }
}

/// The `K` that fits `weights` best, by a shrinking grid search.
pub fn fit_k(set: &Dataset, weights: &[(f64, f64)]) -> f64 {
    let (mut low, mut high) = (0.0005, 0.02);
    for _ in 0..4 {
        let step = (high - low) / 10.0;
        let best = (0..=10)
            .map(|i| low + step * f64::from(i))
            .min_by(|a, b| {
                error(set, weights, *a, |n| !held_out(n))
                    .total_cmp(&error(set, weights, *b, |n| !held_out(n)))
            })
            .unwrap_or(low);
        low = (best - step).max(1e-5);
        high = best + step;
    }
    (low + high) / 2.0
}

/// Fits the weights to `set` from `start` by `steps` steps of gradient descent with
/// momentum, scaled so that the first step moves the weight with the steepest gradient by
/// `rate` centipawns, with `prior` × the squared distance from `start` added to the error
/// (a weight leaves its start only as far as the positions ask for); calls
/// `progress(step, training error)` every 50 steps. Should a weight stop being a finite
/// number (a rate far too large), the descent stops there; check [`Fit::is_finite`] before
/// using the weights.
pub fn tune(
    set: &Dataset,
    start: &[(f64, f64)],
    (steps, rate, prior): (usize, f64, f64),
    progress: &mut dyn FnMut(usize, f64),
) -> Fit {
    let k = fit_k(set, start);
    let before = (
        error(set, start, k, |n| !held_out(n)),
        error(set, start, k, held_out),
    );
    let mut w = start.to_vec();
    let mut velocity = vec![(0.0, 0.0); w.len()];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut scale = None;
    for step in 1..=steps {
        let mut gradient = gradient(set, &w, k, threads);
        for ((g, wi), si) in gradient.iter_mut().zip(&w).zip(start) {
            g.0 += 2.0 * prior * (wi.0 - si.0);
            g.1 += 2.0 * prior * (wi.1 - si.1);
        }
        let scale = *scale.get_or_insert_with(|| {
            let steepest = gradient
                .iter()
                .map(|g| g.0.abs().max(g.1.abs()))
                .fold(0.0, f64::max);
            if steepest > 0.0 { rate / steepest } else { 0.0 }
        });
        for ((wi, vi), g) in w.iter_mut().zip(&mut velocity).zip(&gradient) {
            vi.0 = MOMENTUM * vi.0 - scale * g.0;
            vi.1 = MOMENTUM * vi.1 - scale * g.1;
            wi.0 += vi.0;
            wi.1 += vi.1;
        }
        if !w.iter().all(|(mg, eg)| mg.is_finite() && eg.is_finite()) {
            break;
        }
        if step % 50 == 0 {
            progress(step, error(set, &w, k, |n| !held_out(n)));
        }
    }
    let after = (
        error(set, &w, k, |n| !held_out(n)),
        error(set, &w, k, held_out),
    );
    Fit {
        weights: w,
        k,
        before,
        after,
    }
}

/// The momentum of the gradient descent: the share of the last step carried into the next.
const MOMENTUM: f64 = 0.9;

/// The gradient of the training error, on `threads` threads.
fn gradient(set: &Dataset, w: &[(f64, f64)], k: f64, threads: usize) -> Vec<(f64, f64)> {
    let n = set.len();
    let chunk = n.div_ceil(threads.max(1)).max(1);
    let parts: Vec<Vec<(f64, f64)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .step_by(chunk)
            .map(|from| {
                scope.spawn(move || {
                    let mut g = vec![(0.0, 0.0); w.len()];
                    for p in (from..(from + chunk).min(n)).filter(|&p| !held_out(p)) {
                        let s = predict(k, set.eval(p, w));
                        let d = -2.0 * (f64::from(set.result[p]) - s) * s * (1.0 - s) * k;
                        let ph = f64::from(set.phase[p]) / f64::from(MAX_PHASE);
                        for (i, c) in set.terms(p) {
                            g[i].0 += d * c * ph;
                            g[i].1 += d * c * (1.0 - ph);
                        }
                    }
                    g
                })
            })
            .collect();
        handles
            .into_iter()
            // A worker panics only on a bug in the loop above; propagate it.
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let scale = 1.0 / n.max(1) as f64;
    let mut total = vec![(0.0, 0.0); w.len()];
    for part in parts {
        for (t, g) in total.iter_mut().zip(part) {
            t.0 += g.0 * scale;
            t.1 += g.1 * scale;
        }
    }
    total
}

/// The weights as the source of `eval/weights.rs`, rounded to whole centipawns.
pub fn weights_source(weights: &[(f64, f64)], provenance: &str) -> String {
    let mut out = String::new();
    out.push_str(
        "//! The tapered evaluation's weights, (middle game, end game) in centipawns, in the order of\n\
         //! `Param::ALL` (in `tapered.rs`). Written by `transpo-chess tune` (see `tune.rs`).\n",
    );
    for line in provenance.lines() {
        let _ = writeln!(out, "//! {line}");
    }
    let _ = writeln!(
        out,
        "\n/// The weights, (middle game, end game).\n#[rustfmt::skip]\npub static WEIGHTS: [(i16, i16); {WEIGHT_COUNT}] = ["
    );
    for p in Param::ALL {
        let _ = writeln!(out, "    // {}", p.name());
        let row: Vec<String> = weights[p.start()..p.start() + p.count()]
            .iter()
            .map(|&(mg, eg)| format!("({}, {}),", round(mg), round(eg)))
            .collect();
        for chunk in row.chunks(8) {
            let _ = writeln!(out, "    {}", chunk.join(" "));
        }
    }
    out.push_str("];\n");
    out
}

fn round(x: f64) -> i16 {
    x.round().clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_float_evaluation_matches_the_engine_and_tuning_lowers_the_error() {
        let fens = [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                0.5,
            ),
            ("4k3/8/8/3P4/8/8/8/4K3 w - - 0 1", 1.0),
            ("6k1/5ppp/8/8/8/8/1q3PPP/3R2K1 w - - 0 1", 0.0),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                0.5,
            ),
        ];
        let mut set = Dataset::default();
        let w = current_weights();
        for (n, (fen, result)) in fens.iter().enumerate() {
            let board = Board::from_fen(fen, false).unwrap();
            set.push(&board, *result);
            let engine = crate::eval::tapered::evaluate_white(&board);
            assert!((set.eval(n, &w) - f64::from(engine)).abs() <= 1.0, "{fen}");
        }
        let text: String = fens.iter().map(|(f, r)| format!("{f};{r}\n")).collect();
        let (parsed, bad) = Dataset::parse(&format!("{text}junk;1\nfen only\n8/8/8/8 w;2\n"));
        assert_eq!((parsed.len(), bad), (4, 3));
        let fit = tune(&set, &w, (100, 1.0, 0.0), &mut |_, _| {});
        assert!(fit.after.0 < fit.before.0, "{fit:?}");
        assert!(fit.is_finite());
        let source = weights_source(&fit.weights, "test");
        assert!(source.contains(&format!("[(i16, i16); {WEIGHT_COUNT}]")));
        // A rate far too large overflows: the fit says so.
        let fit = tune(&set, &w, (100, 1e308, 0.0), &mut |_, _| {});
        assert!(!fit.is_finite(), "{:?}", fit.after);
    }

    #[test]
    fn reading_reports_bad_lines_and_stops_at_the_cap() {
        let fen = "4k3/8/8/3P4/8/8/8/4K3 w - - 0 1;1";
        let mut bytes = format!("{fen}\n\n{}\n", "x".repeat(5000)).into_bytes();
        bytes.extend_from_slice(b"\xfe;1\n");
        bytes.extend_from_slice(format!("junk;1\n{fen}\n").as_bytes());
        let mut reports = Vec::new();
        let (set, bad) = Dataset::read(&bytes[..], "data", &mut |m| reports.push(m)).expect("read");
        assert_eq!((set.len(), bad), (2, 3));
        assert_eq!(
            reports,
            [
                "data:3: line too long (over 4096 bytes)",
                "data:4: not UTF-8"
            ]
        );
        let head = format!("{fen}\n").repeat(10);
        let endless = std::io::BufReader::new(std::io::Read::chain(
            head.as_bytes(),
            std::io::repeat(b'\n'),
        ));
        let error = Dataset::read_within(endless, "pipe", 5, &mut |_| {}).expect_err("capped");
        assert!(error.contains("more than 5 positions"), "{error}");
    }
}
