//! `elo`: replacement schemes in games. Configurations of the same engine that differ only
//! in the table (scheme, ways, stamping, size) play a fixed reference at a fixed number of
//! nodes per move, from openings played in pairs with colours swapped; the result is each
//! scheme's Elo with its 95% interval at several hash pressures, in both search profiles.
//!
//! Files: [`plan`] (cells, pairs, openings, pressure), [`record`] (one CSV row per pair,
//! resume, merge), [`stats`] (pentanomial Elo, GSPRT, rank correlation), [`report`] and
//! [`plots`]. This file plays pairs in parallel and writes them as they finish.

pub mod plan;
pub mod plots;
pub mod record;
pub mod report;
pub mod stats;

use crate::experiment::{
    List, csv, files,
    report_file::ReportFile,
    runner::RunArgs,
    schemes::{self, SchemeSpec},
    stamping::{self, Stamping},
};
use crate::failure::{
    self,
    Failure::{self, Run, Usage},
};
use plan::{Cell, Opening, Setup};
use record::{Result3, Row};
use stats::{Penta, SprtTest, Verdict};
use std::{
    collections::BTreeMap,
    fs::OpenOptions,
    path::{Path, PathBuf},
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering::Relaxed},
    },
    time::Instant,
};
use transpo_chess::Position;
use transpo_cli::progress;
use transpo_engine::search::{Profile, SearchConfig};
use transpo_engine::selfplay::{self, Match};

/// The openings, relative to the repository root (where the study is run from): the
/// engine's default.
pub use transpo_engine::selfplay::DEFAULT_OPENINGS;

/// The node counts of the `breuker` experiment, relative to the repository root.
pub const DEFAULT_NODE_COUNTS: &str = "docs/breuker/observations.csv";

/// The name of a run's CSV in its output directory.
pub const CSV: &str = "pairs.csv";

/// The output directory when `--out` is not given.
pub const DEFAULT_OUT: &str = "elo-run";

/// Arguments of `elo`. Without flags: the study of `docs/elo-schemes.md` (the paper's seven
/// schemes and depth-and-age with k = 4, 8 in 3- and 4-way buckets against depth-age-8:4, at
/// pressures 0.1, 1, 10 and 100, in the `full` and `paper` profiles, 5,000 nodes per move).
#[derive(clap::Args)]
#[command(mut_arg("out", |a| a.required(false).default_value(DEFAULT_OUT)))]
pub struct Args {
    /// Schemes to test: deep,new,old,big1,bigall,twodeep,twobig1, `all` (those seven),
    /// `modern` (depth-age-4 and -8 in 3- and 4-way buckets) or any scheme with optional
    /// ways; the reference itself is left out (default: all,modern).
    #[arg(long, value_parser = |s: &str| schemes::parse_schemes(s).map(List))]
    schemes: Option<List<SchemeSpec>>,
    /// The scheme every configuration plays. The default, depth-and-age with k = 8 in
    /// 4-way buckets, is the engine's own table (its `Replacement` default, four entries to
    /// a bucket), so each Elo says what a scheme would cost or gain the engine as it ships.
    #[arg(long, default_value = "depth-age-8:4")]
    reference: SchemeSpec,
    /// stamped (the paper's time stamping between moves), unstamped, or both; depth-and-age
    /// ages entries by its own rule and runs once (default: stamped).
    #[arg(long, value_parser = |s: &str| stamping::ELO.parse(s).map(List))]
    stamping: Option<List<Stamping>>,
    /// Hash pressures: table entries ÷ nodes per move, e.g. 0.1 (the table holds a tenth
    /// of one move's tree) to 100 (a hundred moves' trees: everything) (default:
    /// 0.1,1,10,100).
    #[arg(long, value_parser = |s: &str| plan::parse_pressures(s).map(List))]
    pressures: Option<List<f64>>,
    /// Search profiles: full, paper or both (default: both).
    #[arg(long, value_parser = |s: &str| plan::parse_profiles(s).map(List))]
    profiles: Option<List<Profile>>,
    /// Nodes per move, both sides (a fixed budget: results do not depend on the machine).
    #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(plan::NODES))]
    nodes: u64,
    /// Game pairs per cell (each opening played twice, colours swapped).
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(plan::PAIRS))]
    pairs: u64,
    /// Openings (EPD or FEN lines), shuffled by `--seed`; every cell plays the same ones.
    #[arg(long, default_value = DEFAULT_OPENINGS)]
    openings: PathBuf,
    /// Seed of the openings' order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Plies after which a game is adjudicated a draw.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(plan::MAX_PLIES))]
    max_plies: u32,
    /// Win adjudication: both sides' scores at least this many centipawns for one side …
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(i32).range(plan::RESIGN_CP))]
    resign_cp: i32,
    /// … in this many consecutive plies (0: play every game out).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(plan::RESIGN_PLIES))]
    resign_plies: u32,
    /// A yes/no question per cell: `elo0,elo1[,alpha,beta]`, a GSPRT on the pentanomial
    /// counts (e.g. `-10,0`: is the scheme no more than 10 Elo worse?); a cell stops once
    /// its test is decided, and the report shows each LLR.
    #[arg(long)]
    sprt: Option<SprtTest>,
    /// Where and how to run: `--out` (pairs.csv), `--threads` (each plays one pair at a
    /// time), `--shard`, `--report`, `--report-only`.
    #[command(flatten)]
    run: RunArgs,
    /// A `breuker` observations CSV whose node counts are ranked against the Elo.
    #[arg(long, default_value = DEFAULT_NODE_COUNTS)]
    node_counts: PathBuf,
}

impl Args {
    fn setup(&self) -> Setup {
        Setup {
            reference: self.reference,
            nodes: self.nodes,
            max_plies: self.max_plies,
            resign_cp: self.resign_cp,
            resign_plies: self.resign_plies,
        }
    }

    fn cells(&self) -> Vec<Cell> {
        let mut default_schemes = SchemeSpec::paper();
        default_schemes.extend(SchemeSpec::modern());
        plan::cells(
            &List::or(&self.profiles, vec![Profile::Full, Profile::Paper]),
            &List::or(&self.schemes, default_schemes),
            &List::or(&self.stamping, vec![Stamping::Stamped]),
            &List::or(&self.pressures, vec![0.1, 1.0, 10.0, 100.0]),
            &self.reference,
        )
    }
}

/// Runs (or resumes) the study and writes the report.
pub fn run(args: &Args) -> Result<(), Failure> {
    let setup = args.setup();
    let cells = args.cells();
    if cells.is_empty() {
        return Err(Usage(format!(
            "no cells to play: every scheme given is the reference {}",
            args.reference
        )));
    }
    // In range: clap bounds --pairs by a million.
    let pairs = args.pairs as usize;
    check_sizes(&setup, &cells, pairs)?;
    let _lock = files::lock_run(&args.run.out)?;
    let csv_path = args.run.out.join(CSV);
    let done = record::unite(csv::read(&csv_path, &()).map_err(Usage)?).map_err(Run)?;
    csv::write_all(&csv_path, done.values()).map_err(Run)?;
    let settings = ReportSettings {
        sprt: args.sprt,
        node_counts: args.node_counts.clone(),
        report: ReportFile::new(&args.run.out, args.run.report.as_deref()),
        out: args.run.out.clone(),
    };
    let keys: Vec<String> = cells.iter().map(|c| setup.key(c)).collect();
    let items = args.run.shard.select(plan::items(cells.len(), pairs));
    if args.run.report_only {
        let status = incomplete(&items, &keys, &done, args.sprt);
        return write_report(&settings, status.as_deref());
    }
    let name = args.openings.display().to_string();
    let text = files::read_input(&args.openings).map_err(|e| {
        Usage(format!("{e} (give the openings with --openings FILE, or run from the repository root beside ../shared)"))
    })?;
    let openings = plan::openings(&text, &name, args.seed, pairs).map_err(Usage)?;
    for ((cell, pair), row) in &done {
        if let Some(opening) = openings.get(*pair)
            && keys.contains(cell)
            && row.opening != opening.index
        {
            return Err(Usage(format!(
                "{}: pair {pair} of cell {cell} was played from opening {}, but these \
                 --openings and --seed give opening {}: resume with the same --openings and \
                 --seed, or use another --out",
                csv_path.display(),
                row.opening,
                opening.index
            )));
        }
    }
    let total = items.len();
    let pending: Vec<plan::Item> = items
        .iter()
        .copied()
        .filter(|item| !done.contains_key(&(keys[item.cell].clone(), item.pair)))
        .collect();
    eprintln!(
        "{} cells × {pairs} pairs at {} nodes/move: {total} pairs in this shard, {} already \
         done, {} to play",
        cells.len(),
        args.nodes,
        total - pending.len(),
        pending.len()
    );
    let file = OpenOptions::new()
        .append(true)
        .open(&csv_path)
        .map_err(|e| Run(format!("{}: {e}", csv_path.display())))?;
    let work = Work {
        setup: &setup,
        cells: &cells,
        keys: &keys,
        openings: &openings,
        sprt: args.sprt,
        out: Mutex::new(file),
        counts: Mutex::new(record::by_cell(done.values())),
        csv: &csv_path,
    };
    let started = Instant::now();
    let (played, skipped) = work.play(args.run.threads, &pending)?;
    eprintln!(
        "played {played} pairs in {:.1} s{}",
        started.elapsed().as_secs_f64(),
        if skipped > 0 {
            format!(", skipped {skipped} of cells whose SPRT was decided")
        } else {
            String::new()
        }
    );
    let done = record::unite(csv::read(&csv_path, &()).map_err(Usage)?).map_err(Run)?;
    let status = incomplete(&items, &keys, &done, args.sprt);
    write_report(&settings, status.as_deref())
}

/// Checks what the run's numbers size before they size anything: the list of its pairs
/// ([`plan::check_run_size`]) and each cell's two tables (asked of the table, as
/// [`SchemeSpec::whole_entries`] does).
fn check_sizes(setup: &Setup, cells: &[Cell], pairs: usize) -> Result<(), Failure> {
    plan::check_run_size(cells.len(), pairs).map_err(Usage)?;
    for cell in cells {
        let entries = setup.entries(cell.pressure);
        cell.scheme.whole_entries(entries)?;
        setup.reference.whole_entries(entries)?;
    }
    Ok(())
}

/// What the report says when pairs of this run (shard) are missing from the CSV, not
/// counting the pairs of cells whose SPRT is decided (they are not played).
fn incomplete(
    items: &[plan::Item],
    keys: &[String],
    done: &BTreeMap<(String, usize), Row>,
    sprt: Option<SprtTest>,
) -> Option<String> {
    let counts = record::by_cell(done.values());
    let decided = |key: &String| {
        sprt.is_some_and(|test| {
            counts
                .get(key)
                .is_some_and(|p| p.sprt(&test).verdict != Verdict::Continue)
        })
    };
    let missing = items
        .iter()
        .filter(|i| {
            let key = &keys[i.cell];
            !done.contains_key(&(key.clone(), i.pair)) && !decided(key)
        })
        .count();
    (missing > 0).then(|| {
        format!(
            "This run is incomplete: {missing} of its {} pairs are missing.",
            items.len()
        )
    })
}

/// Whether `input` (a run directory or a CSV) holds an `elo` run rather than a `breuker`
/// one: a directory with a pairs.csv, or a file that starts with the pairs header.
pub fn is_elo_input(input: &Path) -> bool {
    if input.is_dir() {
        return input.join(CSV).exists();
    }
    csv::holds::<Row>(input)
}

/// Merges the pairs of several runs (shards) into `out` and writes its report. Every input
/// must be there, with pairs: a missing or empty file, or one with a bad line before its
/// last, is named and the merge refused (a torn last line is left out, as on resume).
pub fn merge(out: &Path, inputs: &[PathBuf]) -> Result<(), Failure> {
    let mut rows = Vec::new();
    for input in inputs {
        let path = csv::of_run(input, CSV).map_err(Usage)?;
        let run = csv::read_finished(&path, &()).map_err(Usage)?;
        if run.is_empty() {
            return Err(Usage(format!(
                "{}: no pairs (an empty or unfinished shard?)",
                path.display()
            )));
        }
        rows.extend(run);
    }
    // Games are deterministic: runs that disagree on one fail the merge's check.
    let merged = record::unite(rows).map_err(Run)?;
    let _lock = files::lock_run(out)?;
    csv::write_all(&out.join(CSV), merged.values()).map_err(Run)?;
    let settings = ReportSettings {
        sprt: None,
        node_counts: PathBuf::from(DEFAULT_NODE_COUNTS),
        report: ReportFile::new(out, None),
        out: out.to_path_buf(),
    };
    write_report(&settings, None)
}

/// What the report needs beyond the CSV.
struct ReportSettings {
    sprt: Option<SprtTest>,
    node_counts: PathBuf,
    report: ReportFile,
    out: PathBuf,
}

/// Writes the report of the pairs in the CSV of `settings.out`, with its figures.
fn write_report(settings: &ReportSettings, incomplete: Option<&str>) -> Result<(), Failure> {
    let rows: Vec<Row> = csv::read(&settings.out.join(CSV), &()).map_err(Usage)?;
    let cells = report::cells(&rows).map_err(Usage)?;
    let figures = plots::figures(&cells, &settings.out).map_err(Run)?;
    let node_counts = report::NodeCounts::read(&settings.node_counts).map_err(Usage)?;
    let context = report::Context {
        sprt: settings.sprt,
        node_counts: node_counts.as_ref(),
        node_counts_path: &settings.node_counts,
        figures: figures.iter().map(|f| settings.report.link(f)).collect(),
    };
    let markdown = report::markdown(&rows, &context).map_err(Usage)?;
    settings.report.write(markdown, incomplete).map_err(Run)
}

/// What the worker threads share.
struct Work<'a> {
    setup: &'a Setup,
    cells: &'a [Cell],
    keys: &'a [String],
    openings: &'a [Opening],
    sprt: Option<SprtTest>,
    out: Mutex<std::fs::File>,
    /// Counts per cell so far, for the SPRT.
    counts: Mutex<BTreeMap<String, Penta>>,
    csv: &'a Path,
}

impl Work<'_> {
    /// Plays `items` on `threads` threads (all cores if `None`), in order (each thread takes
    /// the next item), appending each pair as it finishes; returns the pairs played and
    /// those skipped because their cell's SPRT was decided. The first error stops the run.
    fn play(&self, threads: Option<u32>, items: &[plan::Item]) -> Result<(usize, usize), Failure> {
        let threads = threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            |t| t as usize,
        );
        let bar = progress::bar(items.len() as u64, "pairs");
        let next = AtomicUsize::new(0);
        let played = AtomicUsize::new(0);
        let skipped = AtomicUsize::new(0);
        let failure: Mutex<Option<Failure>> = Mutex::new(None);
        let failed = || failure.lock().map_or(true, |f| f.is_some());
        std::thread::scope(|scope| {
            for _ in 0..threads.min(items.len()).max(1) {
                scope.spawn(|| {
                    while !failed() {
                        let index = next.fetch_add(1, Relaxed);
                        let Some(item) = items.get(index) else { break };
                        match self.item(item) {
                            Ok(true) => played.fetch_add(1, Relaxed),
                            Ok(false) => skipped.fetch_add(1, Relaxed),
                            Err(e) => {
                                if let Ok(mut f) = failure.lock() {
                                    f.get_or_insert(e);
                                }
                                break;
                            }
                        };
                        bar.inc(1);
                    }
                });
            }
        });
        bar.finish_and_clear();
        match failure.into_inner() {
            Ok(None) => Ok((played.into_inner(), skipped.into_inner())),
            Ok(Some(e)) => Err(e),
            Err(e) => Err(failure::poisoned(e)),
        }
    }

    /// Plays one pair and records it; `false` if skipped (its cell's SPRT is decided).
    fn item(&self, item: &plan::Item) -> Result<bool, Failure> {
        let key = &self.keys[item.cell];
        if let Some(test) = &self.sprt {
            let counts = self.counts.lock().map_err(failure::poisoned)?;
            let decided = counts
                .get(key)
                .is_some_and(|p| p.sprt(test).verdict != Verdict::Continue);
            if decided {
                return Ok(false);
            }
        }
        let row = play_pair(
            self.setup,
            &self.cells[item.cell],
            key,
            item.pair,
            &self.openings[item.pair],
        )?;
        {
            let mut file = self.out.lock().map_err(failure::poisoned)?;
            csv::append(&mut *file, std::slice::from_ref(&row))
                .map_err(|e| Run(format!("{}: {e}", self.csv.display())))?;
        }
        let mut counts = self.counts.lock().map_err(failure::poisoned)?;
        counts
            .entry(key.clone())
            .or_default()
            .add(row.half_points())
            .map_err(Run)?;
        Ok(true)
    }
}

/// Plays one pair of a cell: the opening with the tested table as White, then as Black,
/// each side on a fresh table of `pressure × nodes` entries.
pub fn play_pair(
    setup: &Setup,
    cell: &Cell,
    key: &str,
    pair: usize,
    opening: &Opening,
) -> Result<Row, Failure> {
    let entries = setup.entries(cell.pressure);
    let tested = cell
        .scheme
        .research_table(entries, cell.stamping.table_flag(&cell.scheme))?;
    let reference = setup
        .reference
        .research_table(entries, Stamping::Stamped.table_flag(&setup.reference))?;
    let config = SearchConfig::with_profile(cell.profile);
    let rules = Match {
        nodes: setup.nodes,
        max_plies: setup.max_plies,
        resign_cp: setup.resign_cp,
        resign_plies: setup.resign_plies,
        concurrency: 1,
        ..Match::new(config, config, Vec::new())
    };
    let started = Instant::now();
    let mut games = Vec::with_capacity(2);
    for tested_white in [true, false] {
        tested.clear();
        reference.clear();
        // plan::openings parsed every opening: a failure here is the lab's, not the file's.
        let position = Position::from_fen(&opening.fen)
            .map_err(|e| Run(format!("opening {}: {e}", opening.index)))?;
        games.push(selfplay::play_game(
            &rules,
            position,
            opening.index,
            tested_white,
            &tested,
            &reference,
        ));
    }
    let [white, black] = &games[..] else {
        return Err(Run("a pair is two games".into()));
    };
    Ok(Row {
        cell: key.to_string(),
        pair,
        opening: opening.index,
        white: Result3::of_points(white.a_points()),
        black: Result3::of_points(black.a_points()),
        white_end: white.reason.to_string(),
        black_end: black.reason.to_string(),
        white_plies: white.plies,
        black_plies: black.plies,
        white_key: white.final_key,
        black_key: black.final_key,
        micros: started.elapsed().as_micros() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `elo`'s arguments alone, as the binary parses them.
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn the_shared_run_options_take_elos_default_directory() {
        let cli = Cli::try_parse_from(["elo"]).expect("no flags");
        assert_eq!(cli.args.run.out, PathBuf::from(DEFAULT_OUT));
        let cli = Cli::try_parse_from(["elo", "--report-only", "--report", "r.md"]).expect("flags");
        assert!(cli.args.run.report_only);
        assert_eq!(cli.args.run.report, Some(PathBuf::from("r.md")));
    }
}
