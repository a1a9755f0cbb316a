//! Pons-style benchmarks: solve every line of a test set with a cleared table per position,
//! check the expected score, and report mean time, mean positions explored and speed.
//!
//! Why a module of its own: the same runner serves the `bench` command, the CI test over
//! the test sets, and the README's tables, so all three measure the same thing. Timing
//! covers the solve only, as in Pons' runs; clearing is O(1) anyway (see [`crate::bounds`]).

use crate::position::Bitboard;
use crate::position::{Position, column_char};
use crate::protocol::parse_line;
use crate::score::{Strength, finish};
use crate::solver::Solver;
use std::fmt::Write as _;
use std::io::{self, BufRead};
use std::path::Path;
use std::time::{Duration, Instant};
use transpo_files::{Lines, TEXT_LINE_MAX};

/// Pons' name for a test-set file (`Test_L3_R1` is End-Easy), or the file name itself.
pub fn set_name(path: &Path) -> String {
    let file = path
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    let name = match file.as_str() {
        "Test_L3_R1" => "End-Easy",
        "Test_L2_R1" => "Middle-Easy",
        "Test_L2_R2" => "Middle-Medium",
        "Test_L1_R1" => "Begin-Easy",
        "Test_L1_R2" => "Begin-Medium",
        "Test_L1_R3" => "Begin-Hard",
        other => other,
    };
    name.to_string()
}

/// A wrong or unreadable line of a test set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based line number.
    pub line: usize,
    /// What went wrong.
    pub reason: String,
}

/// The outcome of one test set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetResult {
    /// Set name (see [`set_name`]).
    pub name: String,
    /// Lines solved.
    pub positions: usize,
    /// Lines with a wrong score or that could not be read: the first [`FAILURES_KEPT`] of
    /// them (an endless input of bad lines costs bounded memory).
    pub failures: Vec<BadLine>,
    /// Every such line, counted: `failures.len()`, or more when some were not kept.
    pub failed: usize,
    /// Time spent solving.
    pub time: Duration,
    /// Positions explored, summed.
    pub nodes: u64,
    /// Time the threads spent looking for work, summed over lines and threads
    /// ([`Solver::waited`]).
    pub waited: Duration,
}

impl SetResult {
    /// The result of a set named `name` before any line is read.
    fn empty(name: &str) -> SetResult {
        SetResult {
            name: name.to_string(),
            positions: 0,
            failures: Vec::new(),
            failed: 0,
            time: Duration::ZERO,
            nodes: 0,
            waited: Duration::ZERO,
        }
    }

    /// Mean time per position.
    pub fn mean_time(&self) -> Duration {
        // Divided as a float: a count past u32 would truncate to a wrong (or zero) divisor.
        self.time.div_f64(self.positions.max(1) as f64)
    }

    /// Mean positions explored per position.
    pub fn mean_nodes(&self) -> f64 {
        self.nodes as f64 / self.positions.max(1) as f64
    }

    /// Thousands of positions explored per second.
    pub fn kpos_per_sec(&self) -> f64 {
        self.nodes as f64 / self.time.as_secs_f64().max(1e-9) / 1000.0
    }
}

/// The most [`BadLine`]s a [`SetResult`] keeps; the rest are only counted.
pub const FAILURES_KEPT: usize = 1000;

/// Solves the first `limit` lines of the test-set text `text` (all if `None`), calling
/// `progress(done, total)` after each. See [`run_lines`].
pub fn run_set<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver<W, H, B>,
    name: &str,
    text: &str,
    strength: Strength,
    limit: Option<usize>,
    mut progress: impl FnMut(usize, usize),
) -> SetResult {
    let total = text.lines().count().min(limit.unwrap_or(usize::MAX));
    let run = run_lines(solver, name, text.as_bytes(), strength, limit, |done| {
        progress(done, total)
    });
    // Reading a slice of memory never fails; were it to, an empty result is the honest one.
    run.unwrap_or_else(|_| SetResult::empty(name))
}

/// Solves the first `limit` lines read from `input` (all if `None`), calling
/// `progress(done)` after each. A line that does not parse, is longer than
/// [`TEXT_LINE_MAX`] bytes or is not UTF-8 is a [`BadLine`] naming its line, and the set goes
/// on; memory stays bounded whatever the input (one line at a time, at most
/// [`FAILURES_KEPT`] failures kept).
///
/// # Errors
///
/// An I/O error of `input`, which ends the set.
pub fn run_lines<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver<W, H, B>,
    name: &str,
    input: impl BufRead,
    strength: Strength,
    limit: Option<usize>,
    mut progress: impl FnMut(usize),
) -> io::Result<SetResult> {
    let mut result = SetResult::empty(name);
    let fail = |result: &mut SetResult, line: usize, reason: String| {
        result.failed += 1;
        if result.failures.len() < FAILURES_KEPT {
            result.failures.push(BadLine { line, reason });
        }
    };
    let lines = Lines::new(input, TEXT_LINE_MAX).take(limit.unwrap_or(usize::MAX));
    for (done, line) in lines.enumerate() {
        let line = line?;
        let line_number = line.number;
        let parsed = match &line.text {
            Ok(text) => parse_line::<W, H, B>(text).map_err(|e| e.to_string()),
            Err(bad) => Err(bad.to_string()),
        };
        match parsed {
            Err(reason) => fail(&mut result, line_number, reason),
            Ok(problem) => {
                solver.reset();
                let start = Instant::now();
                let score = solver.solve(&problem.position, strength);
                result.time += start.elapsed();
                result.nodes = result.nodes.saturating_add(solver.nodes());
                result.waited += solver.waited();
                result.positions += 1;
                let expected = problem.expected.map(|e| finish(e, strength));
                match expected {
                    Some(e) if e == score => {}
                    Some(e) => fail(
                        &mut result,
                        line_number,
                        format!("{}: expected {e}, solved {score}", problem.moves),
                    ),
                    None => fail(&mut result, line_number, "no expected score".into()),
                }
            }
        }
        progress(done + 1);
    }
    Ok(result)
}

/// Up to `count` distinct positions (no two mirrors of each other) with `depth` stones, made by
/// random play from the empty board that never wins and never lets the opponent win at once,
/// and in which the side to move cannot win at once either (so every one needs a search),
/// each with its score by `solve`: test sets like Pons' for any board, as `(moves, score)`
/// (the empty board, at depth 0, as [`crate::position::EMPTY_BOARD`]).
/// Fewer than `count` if random play keeps finding the same positions (a small depth) or
/// cannot reach `depth` (a board that fills up).
pub fn sample<const W: usize, const H: usize, B: Bitboard>(
    depth: u32,
    count: usize,
    seed: u64,
    mut solve: impl FnMut(&Position<W, H, B>) -> i32,
) -> Vec<(String, i32)> {
    let mut rng = transpo::key::SplitMix64::new(seed);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    // Give up after this many games that found nothing new (at most 10^8).
    let give_up = 1000 + 100 * count.min(1_000_000);
    let mut misses = 0;
    if depth as usize >= W * H {
        return out;
    }
    while out.len() < count && misses < give_up {
        let mut pos = Position::<W, H, B>::new();
        let mut moves = String::new();
        while pos.moves() < depth {
            let open: Vec<usize> = (0..W)
                .filter(|&c| {
                    pos.non_losing_moves() & Position::<W, H, B>::column_mask(c) != B::ZERO
                })
                .filter(|&c| !pos.is_winning_move(c))
                .collect();
            let Some(&col) = open.get(rng.below(open.len().max(1) as u64) as usize) else {
                break;
            };
            pos.play_column(col);
            moves.push(column_char(col));
        }
        if pos.moves() < depth
            || pos.moves() as usize == W * H
            || pos.can_win_next()
            || !seen.insert(pos.symmetric_key())
        {
            misses += 1;
            continue;
        }
        if moves.is_empty() {
            // Depth 0: the empty board, as the line protocol writes it.
            moves.push_str(crate::position::EMPTY_BOARD);
        }
        out.push((moves, solve(&pos)));
    }
    out
}

/// Formats a duration as Pons does: three or four significant digits and a unit.
pub fn format_duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    let (value, unit) = if secs >= 1.0 {
        (secs, "s")
    } else if secs >= 1e-3 {
        (secs * 1e3, "ms")
    } else {
        (secs * 1e6, "µs")
    };
    if value >= 100.0 {
        format!("{value:.1} {unit}")
    } else if value >= 10.0 {
        format!("{value:.2} {unit}")
    } else {
        format!("{value:.3} {unit}")
    }
}

/// A Markdown table of results, one row per set.
pub fn format_table(results: &[SetResult]) -> String {
    let mut out = String::from(
        "| set | positions | wrong | mean time | mean positions explored | K positions/s |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for r in results {
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.2} | {:.0} |",
            r.name,
            r.positions,
            r.failed,
            format_duration(r.mean_time()),
            r.mean_nodes(),
            r.kpos_per_sec()
        );
    }
    out
}

/// A Markdown table of one set solved with several thread counts, `runs` as
/// `(threads, result)`, the first the base the others are compared with: mean time,
/// speed-up (the base's time over the row's), positions explored over the base's,
/// positions per second per thread, and the share of the threads' time spent looking for
/// work ([`SetResult::waited`] over time × threads).
pub fn format_scaling(runs: &[(usize, &SetResult)]) -> String {
    let Some(&(base_threads, base)) = runs.first() else {
        return String::new();
    };
    let mut out = format!(
        "| {} | threads | mean time | speed-up | positions ÷ {base_threads} thread{}'s | K positions/s a thread | waiting |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
        base.name,
        if base_threads == 1 { "" } else { "s" },
    );
    for &(threads, r) in runs {
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "| | {threads} | {} | {:.2}× | {:.3} | {:.0} | {:.1}% |",
            format_duration(r.mean_time()),
            base.time.as_secs_f64() / r.time.as_secs_f64().max(f64::MIN_POSITIVE),
            r.nodes as f64 / base.nodes.max(1) as f64,
            r.kpos_per_sec() / threads.max(1) as f64,
            100.0 * r.waited.as_secs_f64()
                / (r.time.as_secs_f64() * threads.max(1) as f64).max(f64::MIN_POSITIVE),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scaling table's ratios are the plain arithmetic of its rows.
    #[test]
    fn scaling_compares_each_row_with_the_first() {
        let run = |secs: u64, nodes: u64, waited: u64| SetResult {
            time: Duration::from_secs(secs),
            nodes,
            positions: 10,
            waited: Duration::from_millis(waited),
            ..SetResult::empty("Begin-Hard")
        };
        let (one, four) = (run(8, 1_000_000, 0), run(2, 1_200_000, 1_000));
        let table = format_scaling(&[(1, &one), (4, &four)]);
        let rows: Vec<&str> = table.lines().collect();
        assert_eq!(rows.len(), 4, "{table}");
        assert!(rows[0].starts_with("| Begin-Hard | threads |"), "{table}");
        // 8 s / 2 s = 4×; 1.2 M / 1 M = 1.2; 1.2 M / 2 s / 4 threads = 150 K/s a thread;
        // 1 s waited of 2 s × 4 threads = 12.5%.
        assert_eq!(
            rows[3], "| | 4 | 200.0 ms | 4.00× | 1.200 | 150 | 12.5% |",
            "{table}"
        );
        assert_eq!(
            rows[2], "| | 1 | 800.0 ms | 1.00× | 1.000 | 125 | 0.0% |",
            "{table}"
        );
    }

    #[test]
    fn names_and_durations() {
        assert_eq!(set_name(Path::new("/x/Test_L1_R3")), "Begin-Hard");
        assert_eq!(set_name(Path::new("mine.txt")), "mine.txt");
        assert_eq!(format_duration(Duration::from_nanos(4568)), "4.568 µs");
        assert_eq!(format_duration(Duration::from_micros(3212)), "3.212 ms");
        assert_eq!(format_duration(Duration::from_millis(96_630)), "96.63 s");
    }

    #[test]
    fn samples_are_distinct_positions_with_their_scores() {
        let mut solver = Solver::<5, 4>::new(1).expect("1 MiB");
        let mut solve = |pos: &Position<5, 4>| solver.solve(pos, Strength::Strong);
        let set = sample::<5, 4, u64>(6, 40, 1, &mut solve);
        assert_eq!(set.len(), 40);
        let mut keys = std::collections::HashSet::new();
        for (moves, score) in &set {
            let pos = Position::<5, 4>::from_moves(moves).expect("a position");
            assert_eq!(pos.moves(), 6);
            assert!(!pos.can_win_next() && keys.insert(pos.symmetric_key()));
            assert_eq!(*score, solve(&pos));
        }
        // The same seed, the same set; two stones on 5×4 make only 13 positions but mirrors
        // (25 sequences: 12 pairs of mirrors and 33).
        assert_eq!(sample::<5, 4, u64>(6, 40, 1, &mut solve), set);
        assert_eq!(sample::<5, 4, u64>(2, 40, 1, &mut solve).len(), 13);
    }

    #[test]
    fn wrong_and_bad_lines_are_failures() {
        let text = "2252576253462244111563365343671351441 -1\n\
                    2252576253462244111563365343671351441 5\n\
                    44x 1\n";
        let mut solver = crate::Solver::new(1).expect("1 MiB");
        let r = run_set(&mut solver, "t", text, Strength::Strong, None, |_, _| {});
        assert_eq!(r.positions, 2);
        let lines: Vec<usize> = r.failures.iter().map(|f| f.line).collect();
        assert_eq!(lines, [2, 3]);
        assert!(format_table(&[r]).contains("| t | 2 | 2 |"));
    }
}
