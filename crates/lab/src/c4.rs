//! `c4`: the replacement-scheme study on Connect Four, with the workspace's solver.
//!
//! Breuker et al. compared schemes by the nodes a chess search needs; a solver is the other
//! classic client of a transposition table, and a harder one: an exact solve re-searches
//! the same positions under the many null windows of its binary search, so what the table
//! forgets is paid for again and again. This command runs `transpo-connect4`'s solver,
//! unchanged, on tables of every (scheme, size) and counts positions explored.
//!
//! The table is a [`transpo::Table`] of [`ResearchEntry`] (full 64-bit keys, so no false hit
//! disturbs a comparison) behind the solver's [`BoundStore`] trait. What the schemes weigh:
//! *depth* is the number of empty squares (the height of the game tree left below the
//! position, the analogue of search depth), *nodes* the positions the solver explored below
//! it. The table is cleared before every position; every score is checked against the test
//! set's, and a wrong one stops the run.

use crate::breuker::{
    List,
    matrix::{self, SchemeSpec},
    or,
    report::size_name,
    stats,
};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::{
    collections::BTreeMap,
    fmt::Write as _,
    path::{Path, PathBuf},
    time::Instant,
};
use transpo::{Bound, Config, Entry, ResearchEntry, Size, Table, cell::Cell};
use transpo_connect4::{
    Position, Solver, Strength,
    bounds::{BoundStore, ScoreBound},
    position::SQUARES,
};

/// Arguments of `c4`.
#[derive(clap::Args)]
pub struct Args {
    /// A test set of lines `moves score` (Pons' format; `#` starts a comment).
    #[arg(long, default_value = "../shared/data/connect4/Test_L1_R2")]
    positions: PathBuf,
    /// Solve only the first N positions of the set.
    #[arg(long, default_value_t = 100)]
    limit: usize,
    /// Schemes, as for `breuker`: deep,new,...,twobig1, `all`, `modern`, or name:ways
    /// (default: all seven and depth-age-8 in 4-way buckets).
    #[arg(long, value_parser = |s: &str| matrix::parse_schemes(s).map(List))]
    schemes: Option<List<SchemeSpec>>,
    /// Table sizes in entries: a list `4K,64K` or a range of powers of two `4K..1M`
    /// (default: 4K, 16K, 64K, 256K, 1M).
    #[arg(long, value_parser = |s: &str| matrix::parse_sizes(s).map(List))]
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

/// One solve: a position under one (scheme, size).
#[derive(Clone, Debug)]
struct Row {
    scheme: SchemeSpec,
    size: u64,
    index: usize,
    nodes: u64,
    micros: u64,
    probes: u64,
    hits: u64,
    overwrites: u64,
}

const HEADER: &str = "scheme,size,position,nodes,micros,probes,hits,overwrites";

impl Row {
    fn to_csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{}",
            self.scheme,
            self.size,
            self.index,
            self.nodes,
            self.micros,
            self.probes,
            self.hits,
            self.overwrites
        )
    }
}

/// The study's bound store: a lab table under the solver.
struct ResearchBounds {
    table: Table<ResearchEntry>,
}

impl ResearchBounds {
    fn new(scheme: SchemeSpec, entries: u64) -> Result<Self, String> {
        let config = Config {
            scheme: scheme.scheme,
            stamping: false,
            ways: scheme.ways,
            counting: true,
        };
        // A 3-way bucket cannot divide a power of two: round down to whole buckets, as
        // `breuker` does.
        let ways = scheme
            .ways
            .or(scheme.scheme.required_ways())
            .unwrap_or_else(|| {
                // The table's default: as many cells as fill a cache line.
                let cell = <<ResearchEntry as Entry>::Cell as Cell>::BYTES;
                (64 / cell).clamp(1, transpo::MAX_WAYS)
            }) as u64;
        let entries = entries - entries % ways;
        let table = Table::new(Size::Entries(entries), config)
            .map_err(|e| format!("{scheme} with {entries} entries: {e}"))?;
        Ok(ResearchBounds { table })
    }

    /// Positions and their mirrors share a key; mixed bijectively, so keys stay exact.
    fn key(pos: &Position) -> u64 {
        transpo::key::mix(pos.symmetric_key())
    }
}

impl BoundStore for ResearchBounds {
    const WEIGHS_SUBTREES: bool = true;

    fn clear(&mut self) {
        self.table.clear();
        self.table.reset_stats();
    }

    fn prefetch(&self, pos: &Position) {
        self.table.prefetch(Self::key(pos));
    }

    fn get(&self, pos: &Position) -> Option<(ScoreBound, Option<usize>)> {
        self.table.probe(Self::key(pos)).map(|e| {
            let score = i32::from(e.score);
            let bound = match e.bound {
                Bound::Lower => ScoreBound::Lower(score),
                _ => ScoreBound::Upper(score),
            };
            (bound, usize::from(e.mv).checked_sub(1))
        })
    }

    fn put(&mut self, pos: &Position, bound: ScoreBound, best: Option<usize>, nodes: u64) {
        let (bound, score) = match bound {
            ScoreBound::Lower(s) => (Bound::Lower, s),
            ScoreBound::Upper(s) => (Bound::Upper, s),
        };
        let entry = ResearchEntry {
            // Columns are below 7, scores within ±21, empty squares at most 42.
            mv: best.map_or(0, |c| c as u16 + 1),
            score: score as i16,
            depth: (SQUARES as u32 - pos.moves()) as u8,
            bound,
            nodes,
        };
        self.table.store(Self::key(pos), entry);
    }

    fn capacity(&self) -> usize {
        self.table.capacity()
    }

    fn hit_weight(&self, pos: &Position) -> u64 {
        self.table.probe(Self::key(pos)).map_or(1, |e| {
            self.table.config().scheme.nodes_for_hit(e.nodes).max(1)
        })
    }
}

/// Reads `moves score` lines, skipping blank and `#` lines, up to `limit` problems.
fn load(path: &Path, limit: usize) -> Result<Vec<Problem>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
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
        let expected = score
            .parse()
            .map_err(|_| bad(format!("{score:?} is not a score")))?;
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
) -> Result<Vec<Row>, String> {
    let mut solver = Solver::with_table(ResearchBounds::new(scheme, size)?);
    let mut rows = Vec::with_capacity(problems.len());
    for (index, problem) in problems.iter().enumerate() {
        solver.reset();
        let started = Instant::now();
        let score = solver.solve(&problem.position, strength);
        let micros = started.elapsed().as_micros() as u64;
        let expected = match strength {
            Strength::Strong => problem.expected,
            Strength::Weak => problem.expected.signum(),
        };
        if score != expected {
            return Err(format!(
                "{scheme} at {size} entries: {} scored {score}, the set says {expected}",
                problem.moves
            ));
        }
        let stats = solver.table().table.stats();
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
pub fn run(args: &Args, command_line: &str) -> Result<(), String> {
    let problems = load(&args.positions, args.limit)?;
    let schemes = or(&args.schemes, {
        let mut s = SchemeSpec::paper();
        s.push("depth-age-8:4".parse()?);
        s
    });
    let sizes = or(
        &args.sizes,
        vec![4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20],
    );
    let strength = if args.weak {
        Strength::Weak
    } else {
        Strength::Strong
    };
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let cells: Vec<(SchemeSpec, u64)> = sizes
        .iter()
        .flat_map(|&size| schemes.iter().map(move |&s| (s, size)))
        .collect();
    eprintln!(
        "{} positions of {}, {} cells ({} schemes × {} sizes), {strength:?}",
        problems.len(),
        args.positions.display(),
        cells.len(),
        schemes.len(),
        sizes.len()
    );
    let bar = ProgressBar::new((cells.len() * problems.len()) as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} solves, {elapsed} elapsed, ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.map_or(0, |t| t as usize))
        .build()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let rows: Vec<Row> = pool
        .install(|| {
            cells
                .par_iter()
                .map(|&(scheme, size)| observe(scheme, size, &problems, strength, &bar))
                .collect::<Result<Vec<_>, String>>()
        })?
        .into_iter()
        .flatten()
        .collect();
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    eprintln!("ran {} solves in {seconds:.1} s", rows.len());
    let csv_path = args.out.join("observations.csv");
    let mut csv = String::from(HEADER);
    csv.push('\n');
    for row in &rows {
        csv.push_str(&row.to_csv());
        csv.push('\n');
    }
    std::fs::write(&csv_path, csv).map_err(|e| format!("{}: {e}", csv_path.display()))?;
    let report_path = args
        .report
        .clone()
        .unwrap_or_else(|| args.out.join("report.md"));
    let set = args
        .positions
        .file_name()
        .map_or_else(|| "positions".into(), |n| n.to_string_lossy().into_owned());
    let md = report(
        &rows,
        &Context {
            command_line,
            set: &set,
            positions: problems.len(),
            strength,
            seconds,
            schemes: &schemes,
            sizes: &sizes,
        },
    );
    std::fs::write(&report_path, md).map_err(|e| format!("{}: {e}", report_path.display()))?;
    eprintln!("wrote {} and {}", csv_path.display(), report_path.display());
    Ok(())
}

/// What the report says about the run besides its rows.
struct Context<'a> {
    command_line: &'a str,
    set: &'a str,
    positions: usize,
    strength: Strength,
    seconds: f64,
    schemes: &'a [SchemeSpec],
    sizes: &'a [u64],
}

/// Node counts per position, in position order, for one (scheme, size).
type Samples = BTreeMap<(String, u64), Vec<u64>>;

fn samples(rows: &[Row]) -> Samples {
    let mut map: Samples = BTreeMap::new();
    for row in rows {
        map.entry((row.scheme.to_string(), row.size))
            .or_default()
            .push(row.nodes);
    }
    map
}

fn mean(v: &[u64]) -> f64 {
    v.iter().sum::<u64>() as f64 / v.len().max(1) as f64
}

/// The Markdown report: positions explored per scheme and size, paired tests, a verdict.
fn report(rows: &[Row], ctx: &Context) -> String {
    let samples = samples(rows);
    let names: Vec<String> = ctx.schemes.iter().map(ToString::to_string).collect();
    let get = |name: &str, size: u64| samples.get(&(name.to_string(), size));
    let mut md = String::from("# Replacement schemes on Connect Four\n\n");
    let _ = writeln!(
        md,
        "Generated by `{}` ({:.0} s on this machine).\n\n\
         The workspace's Connect Four solver (`transpo-connect4`, unchanged) solved the first {} \
         positions of `{}` ({}) once per table setup, the table cleared before each position, \
         every score checked against the set. The table holds `ResearchEntry`s (full keys: no \
         false hits); *depth* is the number of empty squares below the position, *nodes* the \
         positions explored below it. `new` in one-way buckets is the table of Pons' solver and \
         of `transpo-c4` (always replace). Numbers are mean positions explored per position; \
         the ratio is to `new` at the same size.\n",
        ctx.command_line,
        ctx.seconds,
        ctx.positions,
        ctx.set,
        match ctx.strength {
            Strength::Strong => "strong: the exact score",
            Strength::Weak => "weak: win, draw or loss",
        }
    );
    md.push_str("## Positions explored\n\n| scheme |");
    for &size in ctx.sizes {
        let _ = write!(md, " {} |", size_name(size));
    }
    md.push_str("\n|---|");
    md.push_str(&"---:|".repeat(ctx.sizes.len()));
    md.push('\n');
    // The scheme with the fewest positions explored, per size.
    let best: Vec<Option<&String>> = ctx
        .sizes
        .iter()
        .map(|&size| {
            names
                .iter()
                .filter_map(|n| get(n, size).map(|v| (n, mean(v))))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(n, _)| n)
        })
        .collect();
    for name in &names {
        let _ = write!(md, "| {name} |");
        for (i, &size) in ctx.sizes.iter().enumerate() {
            match (get(name, size), get("new", size)) {
                (Some(v), base) => {
                    let m = mean(v);
                    let ratio = base.map_or(String::new(), |b| format!(" ({:.3})", m / mean(b)));
                    let text = format!("{m:.0}{ratio}");
                    if best[i] == Some(name) {
                        let _ = write!(md, " **{text}** |");
                    } else {
                        let _ = write!(md, " {text} |");
                    }
                }
                (None, _) => md.push_str(" – |"),
            }
        }
        md.push('\n');
    }
    md.push_str(
        "\n## Paired comparisons\n\nPer position, the ratio of positions explored (geometric \
         mean over the positions, 95% confidence interval) and the two-sided Wilcoxon \
         signed-rank p-value.\n\n| size | comparison | ratio | 95% CI | Wilcoxon |\n|---|---|---:|---|---:|\n",
    );
    let mut verdict = Vec::new();
    for (i, &size) in ctx.sizes.iter().enumerate() {
        let mut pairs: Vec<(String, String)> = Vec::new();
        if let Some(best) = best[i]
            && best != "new"
        {
            pairs.push((best.clone(), "new".into()));
        }
        for (a, b) in [
            ("twodeep", "deep"),
            ("twobig1", "big1"),
            ("big1", "deep"),
            ("twobig1", "twodeep"),
            ("deep", "new"),
        ] {
            pairs.push((a.into(), b.into()));
        }
        for (a, b) in pairs {
            let (Some(x), Some(y)) = (get(&a, size), get(&b, size)) else {
                continue;
            };
            if let Some(p) = stats::paired(x, y) {
                let _ = writeln!(
                    md,
                    "| {} | {a} / {b} | {:.3} | {:.3}–{:.3} | {} |",
                    size_name(size),
                    p.ratio,
                    p.low,
                    p.high,
                    stats::p_text(p.p)
                );
            }
        }
        if let Some(best) = best[i]
            && let (Some(x), Some(y)) = (get(best, size), get("new", size))
        {
            verdict.push(format!(
                "- {}: best `{best}`, {:.1}% fewer positions than `new` (mean over positions)",
                size_name(size),
                100.0 * (1.0 - mean(x) / mean(y))
            ));
        }
    }
    md.push_str("\n## Verdict\n\n");
    for line in verdict {
        md.push_str(&line);
        md.push('\n');
    }
    for (a, b, claim) in [
        (
            "twodeep",
            "deep",
            "two-level beats one-level (TWODEEP vs DEEP)",
        ),
        (
            "twobig1",
            "big1",
            "two-level beats one-level (TWOBIG1 vs BIG1)",
        ),
        ("big1", "deep", "subtree size beats depth (BIG1 vs DEEP)"),
    ] {
        let wins = ctx
            .sizes
            .iter()
            .filter(|&&size| match (get(a, size), get(b, size)) {
                (Some(x), Some(y)) => mean(x) < mean(y),
                _ => false,
            })
            .count();
        let _ = writeln!(
            md,
            "- {claim}: holds at {wins} of {} sizes",
            ctx.sizes.len()
        );
    }
    md.push_str(
        "\nThe CSV beside the report has one row per solve: scheme, size, position, nodes, \
         micros, probes, hits, overwrites.\n",
    );
    md
}
