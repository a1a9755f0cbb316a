//! `breuker`: the replacement-scheme experiment of Breuker, Uiterwijk & van den Herik (1994),
//! run with the chess engine's `paper` search profile.
//!
//! Files: [`matrix`] (which cells to run, shards), [`positions`] (the position set with its
//! game history), [`record`] (CSV rows, resume, merge), [`report`] (the paper's tables beside
//! ours). This file runs cells in parallel and writes them as they finish.

pub mod matrix;
pub mod plots;
pub mod positions;
pub mod record;
pub mod report;
pub mod stats;

use indicatif::{ProgressBar, ProgressStyle};
use matrix::{Cell, Matrix, Shard, Stamping};
use positions::GamePosition;
use rayon::prelude::*;
use record::Row;
use std::{
    fs::OpenOptions,
    path::{Path, PathBuf},
    sync::Mutex,
    time::Instant,
};
use transpo::{Config, ResearchEntry, Size, Table};
use transpo_engine::search::{Limits, Profile, Score, SearchConfig, Searcher};

/// Arguments of `breuker`.
#[derive(clap::Args)]
pub struct Args {
    /// Depths, as a range `3..8` or a list `3,5,7` (default: the paper's 3 to 8).
    #[arg(long, value_parser = |s: &str| matrix::parse_depths(s).map(List))]
    depths: Option<List<u32>>,
    /// Table sizes in entries: a list `8K,16K` or a range of powers of two `8K..1024K`.
    #[arg(long, value_parser = |s: &str| matrix::parse_sizes(s).map(List))]
    sizes: Option<List<u64>>,
    /// Schemes: a comma-separated list of deep,new,old,big1,bigall,twodeep,twobig1, `all`
    /// (those seven), `modern` (depth-age-4 and -8 in 3- and 4-way buckets), or any scheme
    /// transpo knows with optional ways, e.g. depth-age-8:4, priority:2.
    #[arg(long, value_parser = |s: &str| matrix::parse_schemes(s).map(List))]
    schemes: Option<List<matrix::SchemeSpec>>,
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

/// A comma-separated (or range) value parsed whole, so clap keeps it as one argument.
#[derive(Clone, Debug)]
pub struct List<T>(pub(crate) Vec<T>);

/// The given list, or the default.
pub(crate) fn or<T: Clone>(given: &Option<List<T>>, default: Vec<T>) -> Vec<T> {
    given.as_ref().map_or(default, |l| l.0.clone())
}

impl Args {
    fn matrix(&self) -> Matrix {
        let paper = Matrix::paper();
        Matrix {
            schemes: or(&self.schemes, paper.schemes),
            stampings: or(&self.stamping, paper.stampings),
            sizes: or(&self.sizes, paper.sizes),
            depths: or(&self.depths, paper.depths),
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
    let bar = ProgressBar::new(pending.len() as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} cells, {elapsed} elapsed, ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let started = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.map_or(0, |t| t as usize))
        .build()
        .map_err(|e| e.to_string())?;
    pool.install(|| {
        pending.par_iter().try_for_each(|cell| {
            let rows = observe(cell, &positions)?;
            let mut file = out.lock().map_err(|_| "a worker panicked".to_string())?;
            record::append(&mut *file, &rows).map_err(|e| format!("{}: {e}", csv.display()))?;
            bar.inc(1);
            Ok::<(), String>(())
        })
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
    let positions = merged.iter().map(|r| r.position + 1).max().unwrap_or(0);
    record::write_all(&out.join("observations.csv"), merged)?;
    write_report(out, positions, None, None)
}

/// The command line that produced a report, quoted where needed, for its first line.
fn command_line() -> String {
    // `--report-only` only rewrites the report; the command that makes it is the one without.
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
            command_line(),
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
    std::fs::write(&path, markdown).map_err(|e| format!("{}: {e}", path.display()))?;
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
            let config = Config {
                scheme: setup.scheme.scheme,
                stamping: setup.stamping == Stamping::Stamped && setup.scheme.uses_paper_stamping(),
                ways: setup.scheme.ways,
                counting: true,
            };
            // A bucket count must be whole: 3-way tables hold the largest multiple of 3.
            let ways = setup
                .scheme
                .ways
                .or(setup.scheme.scheme.required_ways())
                .unwrap_or(1) as u64;
            let entries = setup.entries - setup.entries % ways;
            Some(
                Table::<ResearchEntry>::new(Size::Entries(entries), config)
                    .map_err(|e| e.to_string())?,
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
            }
            table.reset_stats();
        }
        let mut position = game_position.position.clone();
        let result = searcher.search(
            &mut position,
            &Limits::depth(cell.depth),
            table.as_ref(),
            &mut |_| {},
        );
        let stats = table.as_ref().map(Table::stats).unwrap_or_default();
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
