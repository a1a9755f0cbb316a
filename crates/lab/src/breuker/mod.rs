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
    List, files, runner,
    schemes::{self, SchemeSpec},
    sizes,
};
use matrix::{Cell, Matrix, Shard, Stamping};
use positions::GamePosition;
use record::Row;
use std::{
    fs::OpenOptions,
    path::{Path, PathBuf},
    sync::Mutex,
    time::Instant,
};
use transpo::Table;
use transpo_engine::search::{Limits, Profile, Score, SearchConfig, Searcher};

/// Arguments of `breuker`.
#[derive(clap::Args)]
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
    #[arg(long, value_parser = |s: &str| matrix::parse_stampings(s).map(List))]
    stamping: Option<List<Stamping>>,
    /// Run every size at every depth (the paper ran 8 ply only at 16K, 64K, 256K, 1024K).
    #[arg(long)]
    all_sizes_deep: bool,
    /// An EPD file of positions, searched in file order (default: the paper's 18).
    #[arg(long)]
    positions: Option<PathBuf>,
    /// Output directory: observations.csv and report.md (created; an existing run resumes).
    #[arg(long, default_value = "breuker-run")]
    out: PathBuf,
    /// Worker threads (default: all cores). Each searches one cell on one thread.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
    /// Run only shard I of N (1-based), e.g. `--shard $SLURM_ARRAY_TASK_ID/16`.
    #[arg(long, default_value = "1/1")]
    shard: Shard,
    /// Where to write the Markdown report (default: report.md in the output directory);
    /// figure links are made relative to it.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Only write the report from the observations already in the output directory.
    #[arg(long)]
    report_only: bool,
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
pub fn run(args: &Args) -> Result<(), String> {
    let positions = positions::load(args.positions.as_deref())?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let _lock = files::lock_run(&args.out)?;
    let csv = args.out.join("observations.csv");
    let done = record::complete_cells(record::read(&csv)?, positions.len());
    record::write_all(&csv, done.values().flatten().cloned())?;
    let cells = args.shard.select(args.matrix().cells());
    let total = cells.len();
    let mut pending = record::pending(cells, &done);
    // With --report-only nothing runs and the pending cells stay missing from the report.
    let missing = if args.report_only {
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
        .open(&csv)
        .map_err(|e| format!("{}: {e}", csv.display()))?;
    let out = Mutex::new(file);
    let bar = runner::progress_bar(pending.len(), "cells");
    let started = Instant::now();
    runner::run_cells(args.threads, &pending, |cell| {
        let rows = observe(cell, &positions)?;
        let mut file = out.lock().map_err(|_| "a worker panicked".to_string())?;
        record::append(&mut *file, &rows).map_err(|e| format!("{}: {e}", csv.display()))?;
        bar.inc(1);
        Ok(())
    })?;
    bar.finish_and_clear();
    eprintln!(
        "ran {} cells in {:.1} s",
        pending.len(),
        started.elapsed().as_secs_f64()
    );
    let status = (missing > 0).then(|| {
        format!(
            "This run is incomplete: {} of {total} cells are done. The command above resumes it \
             and completes the report.",
            total - missing
        )
    });
    write_report(&args.out, positions.len(), args.report.as_deref(), status)
}

/// Merges the observations of several runs (shards) into `out` and writes its report.
pub fn merge(out: &Path, inputs: &[PathBuf]) -> Result<(), String> {
    let mut runs = Vec::new();
    for input in inputs {
        let csv = if input.is_dir() {
            input.join("observations.csv")
        } else {
            input.clone()
        };
        if !csv.exists() {
            return Err(format!("{}: no such file", csv.display()));
        }
        runs.push(record::read(&csv)?);
    }
    let merged = record::merge(runs)?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let _lock = files::lock_run(out)?;
    let positions = merged.iter().map(|r| r.position + 1).max().unwrap_or(0);
    record::write_all(&out.join("observations.csv"), merged)?;
    write_report(out, positions, None, None)
}

fn write_report(
    out: &Path,
    positions: usize,
    report: Option<&Path>,
    status: Option<String>,
) -> Result<(), String> {
    let rows: Vec<Row> =
        record::complete_cells(record::read(&out.join("observations.csv"))?, positions)
            .into_values()
            .flatten()
            .collect();
    let path = report.map_or_else(|| out.join("report.md"), Path::to_path_buf);
    // Figures are linked relative to the report when they lie below its folder.
    let report_dir = path.parent().unwrap_or(Path::new(""));
    let link = |figure: &Path| match figure.strip_prefix(report_dir) {
        Ok(relative) => relative.display().to_string(),
        Err(_) => std::path::absolute(figure)
            .unwrap_or(figure.to_path_buf())
            .display()
            .to_string(),
    };
    let mut markdown = report::markdown(&rows);
    markdown.insert_str(
        markdown.find('\n').map_or(0, |i| i + 1),
        &format!(
            "\nGenerated by `{}`.{}\n",
            runner::command_line(),
            status.map_or(String::new(), |s| format!("\n\n**{s}**"))
        ),
    );
    let figures = plots::figures(&report::totals(&rows), out)?;
    if !figures.is_empty() {
        markdown.push_str("## Figures\n\n");
        for figure in &figures {
            if let Some(name) = figure.file_name().and_then(|n| n.to_str()) {
                markdown.push_str(&format!("![{name}]({})\n\n", link(figure)));
            }
        }
    }
    files::write_whole(&path, &markdown)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// Searches every position of the set with one cell's table, in order.
pub fn observe(cell: &Cell, positions: &[GamePosition]) -> Result<Vec<Row>, String> {
    let searcher = Searcher::new(SearchConfig::with_profile(Profile::Paper));
    let table = match cell.table {
        Some(setup) => {
            // "Stamped" keeps the table between positions. The paper's schemes then treat
            // old entries as empty; depth-and-age weighs their age by its own rule.
            let stamping =
                setup.stamping == Stamping::Stamped && setup.scheme.uses_paper_stamping();
            Some(setup.scheme.research_table(setup.entries, stamping)?)
        }
        None => None,
    };
    let mut rows = Vec::with_capacity(positions.len());
    for (index, game_position) in positions.iter().enumerate() {
        if let (Some(table), Some(setup)) = (&table, cell.table) {
            match setup.stamping {
                Stamping::Cleared => table.clear(),
                Stamping::Stamped => table.new_search(),
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
