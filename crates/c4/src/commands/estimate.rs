//! `transpo-c4 estimate`: how many positions the empty board's solve would explore, and how
//! long it would take on some cores, from solves of random positions nearer the end
//! ([`transpo_connect4::estimate`]), within a time limit.

use super::Solving;
use std::io::{self, Write};
use std::time::Duration;
use transpo_cli::Failure;
use transpo_connect4::Strength;
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
}

/// `transpo-c4 estimate`: each level on stderr as it is done, the estimate on stdout.
pub(crate) fn run<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    args: &Args,
) -> Result<(), Failure> {
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
    let kind = match strength {
        Strength::Strong => "strong",
        Strength::Weak => "weak",
    };
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
