//! Pons-style benchmarks: solve every line of a test set with a cleared table per position,
//! check the expected score, and report mean time, mean positions explored and speed.
//!
//! Why a module of its own: the same runner serves the `bench` command, the CI test over
//! the test sets, and the README's tables, so all three measure the same thing. Timing
//! covers the solve only, as in Pons' runs; clearing is O(1) anyway (see [`crate::bounds`]).

use crate::cli::parse_line;
use crate::solver::{Solver, Strength};
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

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
pub struct Failure {
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
    /// Lines with a wrong score or that could not be read.
    pub failures: Vec<Failure>,
    /// Time spent solving.
    pub time: Duration,
    /// Positions explored, summed.
    pub nodes: u64,
}

impl SetResult {
    /// Mean time per position.
    pub fn mean_time(&self) -> Duration {
        self.time / (self.positions.max(1) as u32)
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

/// Solves the first `limit` lines of the test-set text `text` (all if `None`), calling
/// `progress(done, total)` after each.
pub fn run_set<const W: usize, const H: usize>(
    solver: &mut Solver<W, H>,
    name: &str,
    text: &str,
    strength: Strength,
    limit: Option<usize>,
    mut progress: impl FnMut(usize, usize),
) -> SetResult {
    let lines: Vec<&str> = text.lines().take(limit.unwrap_or(usize::MAX)).collect();
    let mut result = SetResult {
        name: name.to_string(),
        positions: 0,
        failures: Vec::new(),
        time: Duration::ZERO,
        nodes: 0,
    };
    for (i, line) in lines.iter().enumerate() {
        let line_number = i + 1;
        match parse_line::<W, H>(line) {
            Err(e) => result.failures.push(Failure {
                line: line_number,
                reason: e.to_string(),
            }),
            Ok(problem) => {
                solver.reset();
                let start = Instant::now();
                let score = solver.solve(&problem.position, strength);
                result.time += start.elapsed();
                result.nodes += solver.nodes();
                result.positions += 1;
                let expected = problem.expected.map(|e| match strength {
                    Strength::Strong => e,
                    Strength::Weak => e.signum(),
                });
                match expected {
                    Some(e) if e == score => {}
                    Some(e) => result.failures.push(Failure {
                        line: line_number,
                        reason: format!("{}: expected {e}, solved {score}", problem.moves),
                    }),
                    None => result.failures.push(Failure {
                        line: line_number,
                        reason: "no expected score".into(),
                    }),
                }
            }
        }
        progress(i + 1, lines.len());
    }
    result
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
            r.failures.len(),
            format_duration(r.mean_time()),
            r.mean_nodes(),
            r.kpos_per_sec()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_durations() {
        assert_eq!(set_name(Path::new("/x/Test_L1_R3")), "Begin-Hard");
        assert_eq!(set_name(Path::new("mine.txt")), "mine.txt");
        assert_eq!(format_duration(Duration::from_nanos(4568)), "4.568 µs");
        assert_eq!(format_duration(Duration::from_micros(3212)), "3.212 ms");
        assert_eq!(format_duration(Duration::from_millis(96_630)), "96.63 s");
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
