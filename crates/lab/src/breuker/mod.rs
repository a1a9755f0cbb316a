//! `breuker`: the replacement-scheme experiment of Breuker, Uiterwijk & van den Herik (1994),
//! run with the chess engine's `paper` search profile.
//!
//! Files: [`matrix`] (which cells to run, shards), [`positions`] (the position set with its
//! game history), [`record`] (CSV rows, resume, merge), [`report`] (the paper's tables beside
//! ours), [`plots`] (its figures). Scheme lists, sizes, the parallel runner and the paired
//! statistics are the lab's shared [`crate::experiment`]. This file runs cells in parallel
//! and writes them as they finish.

pub mod matrix;
pub mod plots;
pub mod positions;
pub mod record;
pub mod report;

use crate::experiment::{
    List, csv, files,
    report_file::ReportFile,
    runner::{self, RunArgs},
    schemes::{self, SchemeSpec},
    sizes,
    stamping::{self, Stamping},
};
use crate::failure::{
    self,
    Failure::{self, Run, Usage},
};
use matrix::{Cell, Matrix};
use positions::GamePosition;
use record::Row;
use std::{
    fs::OpenOptions,
    path::{Path, PathBuf},
    sync::Mutex,
    time::Instant,
};
use transpo::{Table, table::Instrumented};
use transpo_cli::progress;
use transpo_engine::search::{Limits, Profile, Score, SearchConfig, Searcher};

/// The name of a run's CSV in its output directory.
pub const CSV: &str = "observations.csv";

/// The output directory when `--out` is not given.
pub const DEFAULT_OUT: &str = "breuker-run";

/// Arguments of `breuker`.
#[derive(clap::Args)]
#[command(mut_arg("out", |a| a.required(false).default_value(DEFAULT_OUT)))]
pub struct Args {
    /// Depths, as a range `3..8` or a list `3,5,7` (default: the paper's 3 to 8).
    #[arg(long, value_parser = |s: &str| matrix::parse_depths(s).map(List))]
    depths: Option<List<u32>>,
    /// Table sizes in entries: a list `8K,16K` or a range of powers of two `8K..1024K`.
    #[arg(long, value_parser = |s: &str| sizes::parse_sizes(s).map(List))]
    sizes: Option<List<u64>>,
    /// Schemes: a comma-separated list of deep,new,old,big1,bigall,twodeep,twobig1, `all`
    /// (those seven), `modern` (depth-age-4 and -8 in 3- and 4-way buckets), or any scheme
    /// transpo knows with optional ways, e.g. depth-age-8:4, priority:2.
    #[arg(long, value_parser = |s: &str| schemes::parse_schemes(s).map(List))]
    schemes: Option<List<SchemeSpec>>,
    /// cleared, stamped or both.
    #[arg(long, value_parser = |s: &str| stamping::BREUKER.parse(s).map(List))]
    stamping: Option<List<Stamping>>,
    /// Run every size at every depth (the paper ran 8 ply only at 16K, 64K, 256K, 1024K).
    #[arg(long)]
    all_sizes_deep: bool,
    /// An EPD file of positions, searched in file order (default: the paper's 18).
    #[arg(long)]
    positions: Option<PathBuf>,
    /// Where and how to run: `--out` (observations.csv), `--threads` (each searches one cell),
    /// `--shard`, `--report`, `--report-only`.
    #[command(flatten)]
    run: RunArgs,
}

impl Args {
    fn matrix(&self) -> Matrix {
        let paper = Matrix::paper();
        Matrix {
            schemes: List::or(&self.schemes, paper.schemes),
            stampings: List::or(&self.stamping, paper.stampings),
            sizes: List::or(&self.sizes, paper.sizes),
            depths: List::or(&self.depths, paper.depths),
            deep_from: if self.all_sizes_deep {
                None
            } else {
                paper.deep_from
            },
            deep_sizes: paper.deep_sizes,
        }
    }
}

/// Runs (or resumes) the experiment and writes the report.
pub fn run(args: &Args) -> Result<(), Failure> {
    let positions = positions::load(args.positions.as_deref()).map_err(Usage)?;
    let _lock = files::lock_run(&args.run.out)?;
    let csv_path = args.run.out.join(CSV);
    let bounds = record::Bounds::of_set(positions.iter().map(|p| p.id.as_str()));
    let done = record::complete_cells(
        csv::read(&csv_path, &bounds).map_err(Usage)?,
        positions.len(),
    );
    csv::write_all(&csv_path, done.values().flatten()).map_err(Run)?;
    let cells = args.run.shard.select(args.matrix().cells());
    for setup in cells.iter().filter_map(|cell| cell.table) {
        setup.scheme.whole_entries(setup.entries)?;
    }
    let total = cells.len();
    let mut pending = record::pending(cells, &done);
    // With --report-only nothing runs and the pending cells stay missing from the report.
    let missing = if args.run.report_only {
        std::mem::take(&mut pending).len()
    } else {
        0
    };
    eprintln!(
        "{} positions, {total} cells in this shard, {} already done, {} to run",
        positions.len(),
        total - pending.len() - missing,
        pending.len()
    );
    let file = OpenOptions::new()
        .append(true)
        .open(&csv_path)
        .map_err(|e| Run(format!("{}: {e}", csv_path.display())))?;
    let out = Mutex::new(file);
    let bar = progress::bar(pending.len() as u64, "cells");
    let started = Instant::now();
    runner::run_cells(args.run.threads, &pending, |cell| {
        let rows = observe(cell, &positions)?;
        let mut file = out.lock().map_err(failure::poisoned)?;
        csv::append(&mut *file, &rows).map_err(|e| Run(format!("{}: {e}", csv_path.display())))?;
        bar.inc(1);
        Ok(())
    })?;
    bar.finish_and_clear();
    eprintln!(
        "ran {} cells in {:.1} s",
        pending.len(),
        started.elapsed().as_secs_f64()
    );
    let incomplete = (missing > 0).then(|| {
        format!(
            "This run is incomplete: {} of {total} cells are done.",
            total - missing
        )
    });
    let report = ReportFile::new(&args.run.out, args.run.report.as_deref());
    write_report(&args.run.out, &bounds, &report, incomplete.as_deref())
}

/// Merges the observations of several runs (shards) into `out` and writes its report. The
/// position set is not at hand: each run's is read from its rows
/// ([`record::read_without_set`]); runs must agree on it, and every cell of a run must hold
/// all of it (a run writes a cell whole).
pub fn merge(out: &Path, inputs: &[PathBuf]) -> Result<(), Failure> {
    let mut runs = Vec::new();
    let mut first: Option<(record::Bounds, PathBuf)> = None;
    for input in inputs {
        let path = csv::of_run(input, CSV).map_err(Usage)?;
        let (rows, set) = read_shard(&path, first.as_ref())?;
        if first.is_none() && set.positions > 0 {
            first = Some((set, path));
        }
        runs.push(rows);
    }
    // Node counts are deterministic: runs that disagree on one fail the merge's check.
    let merged = record::merge(runs).map_err(Run)?;
    let _lock = files::lock_run(out)?;
    csv::write_all(&out.join(CSV), &merged).map_err(Run)?;
    let set = first.map_or(
        record::Bounds {
            positions: 0,
            ids: None,
        },
        |(set, _)| set,
    );
    write_report(out, &set, &ReportFile::new(out, None), None)
}

/// Reads one run to merge, with its position set: every cell whole, and the set that of the
/// `first` run read (the same size, the same ids), if any.
fn read_shard(
    path: &Path,
    first: Option<&(record::Bounds, PathBuf)>,
) -> Result<(Vec<Row>, record::Bounds), Failure> {
    let (rows, set) = record::read_without_set(path, true).map_err(Usage)?;
    let positions = set.positions;
    if let Some((cell, held)) = record::incomplete_cell(&rows, positions) {
        return Err(Usage(format!(
            "{}: cell {cell} holds {held} of the {positions} positions: an unfinished shard \
             (run it again to finish it) or an edited file",
            path.display()
        )));
    }
    match first {
        Some((first, first_path)) if positions > 0 && first.positions != positions => {
            Err(Usage(format!(
                "{}: cells of {positions} positions, but {} has cells of {}: merge runs of \
                 one position set",
                path.display(),
                first_path.display(),
                first.positions
            )))
        }
        Some((first, first_path)) if positions > 0 && first.ids != set.ids => {
            // Read it against the first run's set: the error names the line whose id differs.
            csv::read_finished::<Row>(path, first)
                .map_err(|e| Usage(format!("{e} (as {} has it)", first_path.display())))?;
            Ok((rows, set))
        }
        _ => Ok((rows, set)),
    }
}

/// Writes the report of the complete cells in `out`'s CSV, with its figures.
fn write_report(
    out: &Path,
    set: &record::Bounds,
    report: &ReportFile,
    incomplete: Option<&str>,
) -> Result<(), Failure> {
    let rows: Vec<Row> = record::complete_cells(
        csv::read(&out.join(CSV), set).map_err(Usage)?,
        set.positions,
    )
    .into_values()
    .flatten()
    .collect();
    let mut markdown = report::markdown(&rows);
    let figures = plots::figures(&report::totals(&rows), out).map_err(Run)?;
    if !figures.is_empty() {
        markdown.push_str("## Figures\n\n");
        for figure in &figures {
            if let Some(name) = figure.file_name().and_then(|n| n.to_str()) {
                markdown.push_str(&format!("![{name}]({})\n\n", report.link(figure)));
            }
        }
    }
    report.write(markdown, incomplete).map_err(Run)
}

/// Searches every position of the set with one cell's table, in order.
pub fn observe(cell: &Cell, positions: &[GamePosition]) -> Result<Vec<Row>, Failure> {
    let searcher = Searcher::new(SearchConfig::with_profile(Profile::Paper));
    let table = match cell.table {
        Some(setup) => {
            // "Stamped" keeps the table between positions. The paper's schemes then treat
            // old entries as empty; depth-and-age weighs their age by its own rule.
            Some(
                setup
                    .scheme
                    .research_table(setup.entries, setup.stamping.table_flag(&setup.scheme))?,
            )
        }
        None => None,
    };
    let mut rows = Vec::with_capacity(positions.len());
    for (index, game_position) in positions.iter().enumerate() {
        if let (Some(table), Some(setup)) = (&table, cell.table) {
            match setup.stamping {
                Stamping::Cleared => table.clear(),
                Stamping::Stamped => table.new_search(),
                // Kept as it is: the entries of earlier positions compete.
                Stamping::Unstamped => {}
            }
            // Zero the counters: the row counts this position alone.
            table.take_stats();
        }
        let mut position = game_position.position.clone();
        let result = searcher.search(
            &mut position,
            &Limits::depth(cell.depth),
            table.as_ref(),
            &mut |_| {},
        );
        let stats = table.as_ref().map(Table::take_stats).unwrap_or_default();
        rows.push(Row {
            cell: cell.key(),
            position: index,
            id: game_position.id.clone(),
            nodes: result.nodes,
            micros: result.time.as_micros() as u64,
            probes: stats.probes,
            hits: stats.hits,
            stores: stats.stores,
            overwrites: stats.overwrites,
            refused: stats.refused,
            tt_move_failures: result.tt_move_failures,
            best_move: result.best_move_uci().unwrap_or_else(|| "0000".into()),
            score: match result.score {
                Score::Mate(n) => format!("mate {n}"),
                Score::Cp(cp) => format!("cp {cp}"),
            },
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `breuker`'s arguments alone, as the binary parses them.
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn the_shared_run_options_take_breukers_default_directory() {
        let cli = Cli::try_parse_from(["breuker"]).expect("no flags");
        assert_eq!(cli.args.run.out, PathBuf::from(DEFAULT_OUT));
        assert_eq!(cli.args.run.shard.to_string(), "1/1");
        assert!(cli.args.run.threads.is_none() && !cli.args.run.report_only);
        let flags = ["breuker", "--out", "x", "--shard", "2/3", "--threads", "2"];
        let cli = Cli::try_parse_from(flags).expect("flags");
        assert_eq!(cli.args.run.out, PathBuf::from("x"));
        assert_eq!(
            (cli.args.run.shard.to_string(), cli.args.run.threads),
            ("2/3".into(), Some(2))
        );
        assert!(Cli::try_parse_from(["breuker", "--threads", "0"]).is_err());
    }
}
