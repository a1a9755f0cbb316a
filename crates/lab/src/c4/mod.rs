//! `c4`: the replacement-scheme study on Connect Four, with the workspace's solver.
//!
//! Breuker et al. compared schemes by the nodes a chess search needs; a solver is the other
//! classic client of a transposition table, and a harder one: an exact solve re-searches
//! the same positions under the many null windows of its binary search, so what the table
//! forgets is paid for again and again. This command runs `transpo-connect4`'s solver,
//! unchanged, on tables of every (scheme, size) and counts positions explored.
//!
//! The table is a [`transpo::Table`] of [`transpo::entry::ResearchEntry`] (full 64-bit keys,
//! so no false hit disturbs a comparison) behind the solver's
//! [`transpo_connect4::bounds::BoundStore`] trait ([`bounds`]). What the schemes weigh:
//! *depth* is the number of empty squares (the height of the game tree left below the
//! position, the analogue of search depth), *nodes* the positions the solver explored below
//! it. The table is cleared before every position; every score is checked against the test
//! set's, and a wrong one stops the run. [`record`] is a solve's CSV row, [`report`] the
//! study's Markdown report.

mod bounds;
mod record;
mod report;

use crate::experiment::{
    List, csv, files, runner,
    schemes::{self, SchemeSpec},
    sizes,
};
use crate::failure::Failure::{self, Run, Usage};
use bounds::ResearchBounds;
use record::Row;
use std::{
    path::{Path, PathBuf},
    time::Instant,
};
use transpo::{scheme::Scheme, table::Instrumented};
use transpo_cli::progress;
use transpo_cli::progress::ProgressBar;
use transpo_connect4::{Position, Solver, Strength, score};

/// Arguments of `c4`.
#[derive(clap::Args)]
pub struct Args {
    /// A test set of lines `moves score` (Pons' format; `#` starts a comment).
    #[arg(long, default_value = "../shared/data/connect4/Test_L1_R2")]
    positions: PathBuf,
    /// Solve only the first N positions of the set (at least 1).
    #[arg(long, default_value_t = 100, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    limit: usize,
    /// Schemes, as for `breuker`: deep,new,...,twobig1, `all`, `modern`, or name:ways
    /// (default: all seven and depth-age-8 in 4-way buckets).
    #[arg(long, value_parser = |s: &str| schemes::parse_schemes(s).map(List))]
    schemes: Option<List<SchemeSpec>>,
    /// Table sizes in entries: a list `4K,64K` or a range of powers of two `4K..1M`
    /// (default: 4K, 16K, 64K, 256K, 1M).
    #[arg(long, value_parser = |s: &str| sizes::parse_sizes(s).map(List))]
    sizes: Option<List<u64>>,
    /// Weak solving (win / draw / loss) instead of the exact score.
    #[arg(long)]
    weak: bool,
    /// Output directory: observations.csv and report.md.
    #[arg(long, default_value = "c4-run")]
    out: PathBuf,
    /// Where to write the Markdown report (default: report.md in the output directory).
    #[arg(long)]
    report: Option<PathBuf>,
    /// Worker threads (default: all cores). Each solves one (scheme, size) cell.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
}

/// One test-set line.
struct Problem {
    moves: String,
    position: Position,
    expected: i32,
}

/// Reads `moves score` lines, skipping blank and `#` lines, up to `limit` problems.
fn load(path: &Path, limit: usize) -> Result<Vec<Problem>, String> {
    let text = files::read_input(path)?;
    let mut problems = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if problems.len() == limit {
            break;
        }
        let bad = |why: String| format!("{}:{}: {why}", path.display(), n + 1);
        let mut fields = line.split_whitespace();
        let (Some(moves), Some(score), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(bad("expected `moves score`".into()));
        };
        let position = Position::from_moves(moves).map_err(|e| bad(e.to_string()))?;
        let expected: i32 = score
            .parse()
            .map_err(|_| bad(format!("{score:?} is not a score")))?;
        // The scores a position of this many stones can have: from a loss to the opponent's
        // next stone to a win with this one.
        let stones = position.moves();
        let possible = score::loss_next_score(Position::SQUARES, stones)
            ..=score::win_now_score(Position::SQUARES, stones);
        if !possible.contains(&expected) {
            return Err(bad(format!(
                "score {expected} is out of range for a position of {stones} stones ({} to {})",
                possible.start(),
                possible.end()
            )));
        }
        problems.push(Problem {
            moves: moves.to_string(),
            position,
            expected,
        });
    }
    if problems.is_empty() {
        return Err(format!("{}: no positions", path.display()));
    }
    Ok(problems)
}

/// Solves every problem with one table setup.
fn observe(
    scheme: SchemeSpec,
    size: u64,
    problems: &[Problem],
    strength: Strength,
    bar: &ProgressBar,
) -> Result<Vec<Row>, Failure> {
    let mut solver = Solver::with_table(ResearchBounds::new(scheme, size)?);
    let mut rows = Vec::with_capacity(problems.len());
    for (index, problem) in problems.iter().enumerate() {
        solver.reset();
        let started = Instant::now();
        let score = solver.solve(&problem.position, strength);
        let micros = started.elapsed().as_micros() as u64;
        let expected = transpo_connect4::score::finish(problem.expected, strength);
        if score != expected {
            return Err(Run(format!(
                "{scheme} at {size} entries: {} scored {score}, the set says {expected}",
                problem.moves
            )));
        }
        let stats = solver.table().table.take_stats();
        rows.push(Row {
            scheme,
            size,
            index,
            nodes: solver.nodes(),
            micros,
            probes: stats.probes,
            hits: stats.hits,
            overwrites: stats.overwrites,
        });
        bar.inc(1);
    }
    Ok(rows)
}

/// Runs the study and writes its CSV and report.
pub fn run(args: &Args) -> Result<(), Failure> {
    let problems = load(&args.positions, args.limit).map_err(Usage)?;
    let schemes = List::or(&args.schemes, {
        let mut s = SchemeSpec::paper();
        s.push(SchemeSpec {
            scheme: Scheme::DepthAge { k: 8 },
            ways: Some(4),
        });
        s
    });
    let sizes = List::or(
        &args.sizes,
        vec![4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20],
    );
    let strength = if args.weak {
        Strength::Weak
    } else {
        Strength::Strong
    };
    std::fs::create_dir_all(&args.out).map_err(|e| Run(format!("{}: {e}", args.out.display())))?;
    let cells: Vec<(SchemeSpec, u64)> = sizes
        .iter()
        .flat_map(|&size| schemes.iter().map(move |&s| (s, size)))
        .collect();
    for &(scheme, size) in &cells {
        scheme.whole_entries(size)?;
    }
    eprintln!(
        "{} positions of {}, {} cells ({} schemes × {} sizes), {strength:?}",
        problems.len(),
        args.positions.display(),
        cells.len(),
        schemes.len(),
        sizes.len()
    );
    let bar = progress::bar((cells.len() * problems.len()) as u64, "solves");
    let started = Instant::now();
    let rows: Vec<Row> = runner::run_cells(args.threads, &cells, |&(scheme, size)| {
        observe(scheme, size, &problems, strength, &bar)
    })?
    .into_iter()
    .flatten()
    .collect();
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    eprintln!("ran {} solves in {seconds:.1} s", rows.len());
    let csv_path = args.out.join("observations.csv");
    csv::write_all(&csv_path, &rows).map_err(Run)?;
    let report_path = args
        .report
        .clone()
        .unwrap_or_else(|| args.out.join("report.md"));
    let set = args
        .positions
        .file_name()
        .map_or_else(|| "positions".into(), |n| n.to_string_lossy().into_owned());
    let md = report::markdown(
        &rows,
        &report::Context {
            command_line: &runner::command_line(),
            set: &set,
            positions: problems.len(),
            strength,
            seconds,
            schemes: &schemes,
            sizes: &sizes,
        },
    );
    files::write_whole(&report_path, &md).map_err(Run)?;
    eprintln!("wrote {} and {}", csv_path.display(), report_path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_score_no_position_of_its_stones_can_have_is_refused_with_its_line() {
        let dir = std::env::temp_dir().join(format!("transpo-lab-c4-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let path = dir.join("set.txt");
        // 4 stones down: the side to move scores from −(42 + 1 − 5)/2 = −19 to (42 + 1 −
        // 4)/2 = 19 (Pons' convention).
        std::fs::write(&path, "4455 19\n4455 -19\n").expect("write");
        assert_eq!(load(&path, 10).map(|p| p.len()), Ok(2));
        for (line, bad) in [("4455 20", "20"), ("4455 -20", "-20"), ("4455 999", "999")] {
            std::fs::write(&path, format!("4455 0\n{line}\n")).expect("write");
            let err = load(&path, 10).map(|_| ()).expect_err("out of range");
            assert!(
                err.contains("set.txt:2: ")
                    && err.contains(&format!("score {bad} is out of range")),
                "{err}"
            );
        }
    }
}
