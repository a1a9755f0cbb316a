//! Running a matrix of cells: in parallel on a pool of worker threads, with a progress bar,
//! and the command line that started it, for the report's first line.

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

/// A progress bar of `len` steps, each one `unit` (`cells`, `solves`), with time and ETA.
pub fn progress_bar(len: usize, unit: &str) -> ProgressBar {
    ProgressBar::new(len as u64).with_style(
        ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {unit}, {{elapsed}} elapsed, ETA {{eta}}"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    )
}

/// Runs `work` on every cell on `threads` worker threads (all cores if `None`), one cell per
/// thread at a time, and returns the results in the cells' order; the first error stops
/// the run.
pub fn run_cells<C: Sync, R: Send>(
    threads: Option<u32>,
    cells: &[C],
    work: impl Fn(&C) -> Result<R, String> + Sync,
) -> Result<Vec<R>, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.map_or(0, |t| t as usize))
        .build()
        .map_err(|e| e.to_string())?;
    pool.install(|| cells.par_iter().map(&work).collect())
}

/// The command line that started this process, quoted where needed and without
/// `--report-only` (which only rewrites a report: the command that makes it is the one
/// without), for a report's first line.
pub fn command_line() -> String {
    let words: Vec<String> = std::env::args()
        .filter(|a| a != "--report-only")
        .enumerate()
        .map(|(i, a)| {
            let a = if i == 0 { "transpo-lab".to_string() } else { a };
            if a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a
            }
        })
        .collect();
    words.join(" ")
}
