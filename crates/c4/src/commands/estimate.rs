//! `transpo-c4 estimate`: how many positions the empty board's solve would explore, and how
//! long it would take on some cores, from solves of random positions nearer the end
//! ([`transpo_connect4::estimate`]), within a time limit; or, with `--ladder`, from the
//! counts of whole solves of smaller boards of its family ([`transpo_connect4::estimate::ladder`]).

use super::Solving;
use std::io::{self, Write};
use std::time::Duration;
use transpo_cli::Failure;
use transpo_connect4::Strength;
use transpo_connect4::board::Board;
use transpo_connect4::estimate::ladder::{Along, COLUMN_GROWTH, Ladder, MAX_RUNGS, Rung};
use transpo_connect4::estimate::{self, Estimate, FIRST_EMPTY, Level, Plan};
use transpo_connect4::position::Bitboard;

/// `estimate`'s own arguments.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Cores of the machine the hours are for (1 to 1000000): the positions over this many
    /// times the one-thread rate measured here.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub(crate) cores: u32,
    /// The time limit of the sample, in seconds (1 to 86400): a solve still running then is
    /// stopped and its level dropped.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub(crate) seconds: u64,
    /// Random positions solved at each level (1 to 10000).
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub(crate) samples: u64,
    /// The most empty squares of a sampled position (default: the board's squares, the
    /// empty board itself if the time allows).
    #[arg(long)]
    pub(crate) max_empty: Option<u32>,
    /// The seed of the random play: the same seed, the same positions.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Instead of a sample: the counts of empty-board solves of smaller boards of the same
    /// height (or width), smallest first, as `BOARD=POSITIONS,…` (`8x4=7940336,9x4=77744362`);
    /// the line through the last three, extended to --board, with an interval.
    #[arg(long, conflicts_with_all = ["seconds", "samples", "max_empty", "seed"])]
    pub(crate) ladder: Option<String>,
    /// With --ladder: million positions a second a core, for the hours (above 0, at most
    /// 10000; without it, no hours).
    #[arg(long, requires = "ladder")]
    pub(crate) rate: Option<f64>,
}

/// `transpo-c4 estimate`: each level on stderr as it is done, the estimate on stdout.
pub(crate) fn run<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    args: &Args,
) -> Result<(), Failure> {
    if let Some(ladder) = &args.ladder {
        let kind = strength_name(solving.strength);
        let text = ladder_report(board::<W, H>()?, kind, ladder, args.rate, args.cores)
            .map_err(Failure::usage)?;
        let mut out = io::stdout().lock();
        write!(out, "{text}")?;
        out.flush()?;
        return Ok(());
    }
    let squares = (W * H) as u32;
    let max_empty = args.max_empty.unwrap_or(squares);
    // Two levels at least: the first one and the next of the board's parity.
    let least = FIRST_EMPTY + 3;
    if !(least..=squares).contains(&max_empty) {
        return Err(Failure::usage(format!(
            "--max-empty {max_empty}: from {least} to the board's {squares} squares"
        )));
    }
    let plan = Plan {
        // At most 10000, checked by clap.
        samples: usize::try_from(args.samples).unwrap_or(10_000),
        seed: args.seed,
        max_empty,
        budget: Duration::from_secs(args.seconds),
    };
    let (strength, hash_mib) = (solving.strength, solving.hash_mib);
    let mut solver = solving.solver()?;
    solver.set_threads(1).map_err(super::table_failure)?;
    let kind = strength_name(strength);
    eprintln!(
        "{kind} solves of random {W}x{H} positions, one thread, {hash_mib} MiB table, \
         {} a level, at most {} s",
        plan.samples, args.seconds
    );
    let estimate = estimate::estimate(&mut solver, strength, &plan, |level| {
        eprintln!(
            "{} empty squares: {} solves in {:.2} s",
            level.empty,
            level.positions.len(),
            level.seconds
        );
    });
    let mut out = io::stdout().lock();
    write!(out, "{}", report::<W, H>(&estimate, kind, args.cores))?;
    out.flush()?;
    Ok(())
}

/// The board `W`×`H`, which the solver was compiled for, so the library has it.
fn board<const W: usize, const H: usize>() -> Result<Board, Failure> {
    Board::new(W, H).map_err(|e| Failure::usage(e.to_string()))
}

/// `strong` or `weak`, as the report names it.
fn strength_name(strength: Strength) -> &'static str {
    match strength {
        Strength::Strong => "strong",
        Strength::Weak => "weak",
    }
}

/// The rungs of `--ladder` (`BOARD=POSITIONS,…`) for `target`: their sizes along its family
/// (columns if every board has its height, else rows if every one has its width) and which.
fn parse_ladder(target: Board, text: &str) -> Result<(Vec<Rung>, Along), String> {
    let items: Vec<&str> = text.split(',').map(str::trim).collect();
    if items.len() > MAX_RUNGS {
        return Err(format!(
            "--ladder: at most {MAX_RUNGS} boards ({} given)",
            items.len()
        ));
    }
    let mut boards = Vec::with_capacity(items.len());
    for item in items {
        let (board, count) = item
            .split_once('=')
            .ok_or_else(|| format!("--ladder: {item:?} is not BOARD=POSITIONS"))?;
        let board: Board = board
            .trim()
            .parse()
            .map_err(|e| format!("--ladder: {item:?}: {e}"))?;
        let positions: u64 = count.trim().parse().map_err(|_| {
            format!("--ladder: {item:?}: the positions are not a whole number of at most 2^64")
        })?;
        boards.push((board, positions));
    }
    let along = if boards.iter().all(|(b, _)| b.height() == target.height()) {
        Along::Columns
    } else if boards.iter().all(|(b, _)| b.width() == target.width()) {
        Along::Rows
    } else {
        return Err(format!(
            "--ladder: every board must have {target}'s height (a ladder of columns) or its \
             width (a ladder of rows)"
        ));
    };
    let rungs = boards
        .iter()
        .map(|&(board, positions)| Rung {
            size: size_along(board, along),
            positions,
        })
        .collect();
    Ok((rungs, along))
}

/// A board's size `along` a ladder: its columns or its rows.
fn size_along(board: Board, along: Along) -> u32 {
    let size = match along {
        Along::Columns => board.width(),
        Along::Rows => board.height(),
    };
    // A board's sides are at most its squares, at most 128.
    u32::try_from(size).unwrap_or(u32::MAX)
}

/// `estimate --ladder`: the ladder's line extended to `target`, with its interval, and the
/// hours at `rate` million positions a second on each of `cores`.
fn ladder_report(
    target: Board,
    kind: &str,
    ladder: &str,
    rate: Option<f64>,
    cores: u32,
) -> Result<String, String> {
    if let Some(rate) = rate
        && !(rate > 0.0 && rate <= 10_000.0)
    {
        return Err(format!(
            "--rate {rate}: above 0 and at most 10000 (M positions/s)"
        ));
    }
    let (rungs, along) = parse_ladder(target, ladder)?;
    let ladder = Ladder::new(rungs, along).map_err(|e| format!("--ladder: {e}"))?;
    let by = along.step_name();
    let prediction = ladder
        .predict(size_along(target, along))
        .map_err(|e| format!("--ladder: {e}"))?;
    let fitted: Vec<String> = ladder
        .fitted()
        .iter()
        .map(|rung| format!("{} {}s: {}", rung.size, by, rung.positions))
        .collect();
    let mut text = format!(
        "ladder of {} boards of one {}, the line through the last {} ({}): growth x{:.2} a \
         {by}\n",
        ladder.rungs().len(),
        match along {
            Along::Columns => "height",
            Along::Rows => "width",
        },
        fitted.len(),
        fitted.join(", "),
        prediction.growth,
    );
    let plural = if prediction.steps == 1 { "" } else { "s" };
    let lean = match along {
        Along::Columns => format!(
            "; the line {:.2e}, raised x{COLUMN_GROWTH} a column",
            prediction.line
        ),
        Along::Rows => String::new(),
    };
    text += &format!(
        "{target} {kind}, empty board: {:.0} positions ({:.2e}, predicted {} {by}{plural} past \
         the ladder{lean}; interval {:.2e} to {:.2e})\n",
        prediction.positions,
        prediction.positions,
        prediction.steps,
        prediction.low,
        prediction.high,
    );
    if let Some(rate) = rate {
        let hours = |positions: f64| positions / (rate * 1e6 * f64::from(cores)) / 3600.0;
        text += &format!(
            "time: {:.3} hours ({:.3} to {:.3}) on {cores} core{} at {rate} M positions/s \
             each, shared perfectly\n",
            hours(prediction.positions),
            hours(prediction.low),
            hours(prediction.high),
            if cores == 1 { "" } else { "s" }
        );
    }
    Ok(text)
}

/// One level's line: its empty squares, solves, mean positions and rate.
fn level_line(level: &Level) -> String {
    format!(
        "{:>3} empty: {:>5} solves, mean {:>12.0} positions, {:>7.2} s, {:.1} M positions/s",
        level.empty,
        level.positions.len(),
        level.mean(),
        level.seconds,
        level.rate() / 1e6
    )
}

/// The report on stdout: the levels, the growth, the positions and the hours.
fn report<const W: usize, const H: usize>(estimate: &Estimate, kind: &str, cores: u32) -> String {
    let mut text = String::new();
    for level in &estimate.levels {
        text += &level_line(level);
        text.push('\n');
    }
    if estimate.stopped {
        text += "(the time limit stopped the next level: dropped)\n";
    }
    if let Some(fit) = estimate.fit {
        text += &format!(
            "growth: x{:.3} an empty square (the line through the upper half of the levels)\n",
            fit.growth()
        );
    }
    let Some(positions) = estimate.positions else {
        text += &format!(
            "no estimate: fewer than two levels solved (give more --seconds, or a board \
             of fewer than {W}x{H}'s squares)\n"
        );
        return text;
    };
    let how = if estimate.measured {
        "measured: the empty board was the last level"
    } else {
        "estimated"
    };
    text += &format!(
        "{W}x{H} {kind}, empty board: {positions:.0} positions ({positions:.2e}, {how})\n"
    );
    text += &format!(
        "rate: {:.1} M positions/s on one thread (measured on the last level)\n",
        estimate.rate / 1e6
    );
    if let Some(hours) = estimate.hours(cores) {
        text += &format!(
            "time: {hours:.3} hours on {cores} core{} at that rate each, shared perfectly\n",
            if cores == 1 { "" } else { "s" }
        );
    }
    text
}
