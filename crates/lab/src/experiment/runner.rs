//! Running a study: the options every resumable run shares ([`RunArgs`]), its work in
//! parallel on a pool of worker threads (each study shows its progress with the project's
//! one bar, `transpo_cli::progress::bar`), and the command line that started it, for
//! the report's first line.

use crate::failure::Failure;
use rayon::prelude::*;
use std::path::PathBuf;

/// `I/N`: run the units of work (cells, pairs) whose index modulo `N` is `I - 1` (1-based,
/// like Slurm array ids); the same shards as `transpo-c4 solve-list`.
pub use transpo_cli::Shard;

/// The options of a resumable, shardable study, shared by `breuker` and `elo` (flattened
/// into each one's arguments, which name the default of `--out`:
/// `#[command(mut_arg("out", |a| a.required(false).default_value("…")))]`). `c4` runs whole, so it has no
/// `--shard` or `--report-only`, and takes only the flags it uses.
#[derive(clap::Args)]
pub struct RunArgs {
    /// Output directory: the run's CSV, report.md and the figures (created; an existing run
    /// resumes).
    #[arg(long)]
    pub out: PathBuf,
    /// Worker threads (default: all cores). Each runs one unit of work (a cell, a pair) at a
    /// time, on one thread.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Option<u32>,
    /// Run only shard I of N (1-based), e.g. `--shard $SLURM_ARRAY_TASK_ID/16`.
    #[arg(long, default_value = "1/1")]
    pub shard: Shard,
    /// Where to write the Markdown report (default: report.md in the output directory);
    /// figure links are made relative to it.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Only write the report from the rows already in the output directory.
    #[arg(long)]
    pub report_only: bool,
}

/// Runs `work` on every cell on `threads` worker threads (all cores if `None`), one cell per
/// thread at a time, and returns the results in the cells' order; the first error stops
/// the run.
pub fn run_cells<C: Sync, R: Send>(
    threads: Option<u32>,
    cells: &[C],
    work: impl Fn(&C) -> Result<R, Failure> + Sync,
) -> Result<Vec<R>, Failure> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.map_or(0, |t| t as usize))
        .build()
        .map_err(|e| Failure::Run(format!("cannot start the worker threads: {e}")))?;
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
