//! `transpo-c4 bench`: Pons' test sets solved line by line
//! ([`transpo_connect4::bench`]), a table like Pons' on stdout.

use super::Solving;
use std::io::{self, BufReader, Seek, Write};
use std::path::{Path, PathBuf};
use transpo_cli::{Failure, progress};
use transpo_connect4::bench;
use transpo_connect4::bounds::BoundTable;
use transpo_connect4::position::Bitboard;
use transpo_connect4::{Strength, solver::Solver};
use transpo_files::{Lines, TEXT_LINE_MAX};

/// `bench`'s own arguments.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Test-set files.
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,
    /// Solve only the first N lines of each file.
    #[arg(long)]
    pub(crate) limit: Option<usize>,
}

/// `transpo-c4 bench`: every test set solved ([`bench::run_lines`]), bad lines named on
/// stderr, the table on stdout; a failed check if some line failed. With several thread
/// counts (`--threads 1,2,4`), the sets are solved with each in turn, each count's table
/// printed, then one table a set comparing the counts with the first
/// ([`bench::format_scaling`]).
pub(crate) fn run<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    files: &[PathBuf],
    limit: Option<usize>,
) -> Result<(), Failure> {
    let (strength, hash_mib) = (solving.strength, solving.hash_mib);
    let with_book = solving.book.is_some();
    let counts = solving.thread_counts.clone();
    let mut solver = solving.solver()?;
    let kind = match strength {
        Strength::Strong => "strong",
        Strength::Weak => "weak",
    };
    let mut runs = Vec::new();
    let mut out = io::stdout().lock();
    for &threads in &counts {
        solver.set_threads(threads).map_err(super::table_failure)?;
        let mut results = Vec::new();
        for path in files {
            results.push(bench_set(&mut solver, path, strength, limit)?);
        }
        writeln!(
            out,
            "{kind} solve of {W}x{H}, {threads} thread{}, {hash_mib} MiB table + {} MiB near table ({} entries){}\n",
            if threads == 1 { "" } else { "s" },
            BoundTable::<W, H, B>::NEAR_MIB,
            solver.table_capacity(),
            if with_book {
                ", with book"
            } else {
                ", no book"
            }
        )?;
        write!(out, "{}", bench::format_table(&results))?;
        out.flush()?;
        runs.push((threads, results));
    }
    if runs.len() > 1 {
        for set in 0..files.len() {
            let rows: Vec<_> = runs
                .iter()
                .filter_map(|(threads, results)| Some((*threads, results.get(set)?)))
                .collect();
            write!(out, "\n{}", bench::format_scaling(&rows))?;
        }
        out.flush()?;
    }
    let failed: usize = runs
        .iter()
        .flat_map(|(_, results)| results)
        .map(|r| r.failed)
        .sum();
    match failed {
        0 => Ok(()),
        1 => Err(Failure::run("1 line of the test sets failed")),
        n => Err(Failure::run(format!("{n} lines of the test sets failed"))),
    }
}

/// One test set of `bench`, with its progress bar; its bad lines named on stderr. A file
/// that cannot be read is bad input.
fn bench_set<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver<W, H, B>,
    path: &Path,
    strength: Strength,
    limit: Option<usize>,
) -> Result<bench::SetResult, Failure> {
    let named = |e: io::Error| Failure::usage(format!("{}: {e}", path.display()));
    let mut file = transpo_files::open_text(path).map_err(named)?;
    let name = bench::set_name(path);
    // A regular file is counted first, for the progress bar; a pipe cannot be.
    let total = if file.metadata().map_err(named)?.is_file() {
        let lines = Lines::new(BufReader::new(&file), TEXT_LINE_MAX).count();
        file.rewind().map_err(named)?;
        lines.min(limit.unwrap_or(usize::MAX))
    } else {
        limit.unwrap_or(0)
    };
    let bar = progress::bar(total as u64, &name);
    let input = BufReader::new(file);
    let result = bench::run_lines(solver, &name, input, strength, limit, |done| {
        bar.set_position(done as u64)
    })
    .map_err(named)?;
    bar.finish_and_clear();
    for f in &result.failures {
        eprintln!("{}:{}: {}", path.display(), f.line, f.reason);
    }
    if result.failed > result.failures.len() {
        eprintln!(
            "{}: {} more failing lines not shown",
            path.display(),
            result.failed - result.failures.len()
        );
    }
    Ok(result)
}
