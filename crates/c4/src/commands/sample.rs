//! `transpo-c4 sample`: a test set like Pons', made by random play on any board.

use super::{Solving, check_depth};
use std::io::{self, Write};
use transpo_cli::{Failure, progress};
use transpo_connect4::position::Bitboard;
use transpo_connect4::{Strength, bench};

/// `sample`'s own arguments.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Stones of the positions (below the board's squares).
    #[arg(long)]
    pub(crate) depth: u32,
    /// Positions, 1 to 1000000 (fewer if random play keeps finding the same ones).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_COUNT))]
    pub(crate) count: u64,
    /// The seed of the random play: the same seed, the same set.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
}

/// The most positions `sample --count` asks for: each is solved, and all are held until
/// printed.
const MAX_COUNT: u64 = 1_000_000;

/// `transpo-c4 sample`: a test set of `count` positions with `depth` stones from random play
/// ([`bench::sample`]), each with its strong score, on stdout.
pub(crate) fn run<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    depth: u32,
    count: u64,
    seed: u64,
) -> Result<(), Failure> {
    check_depth::<W, H>(depth)?;
    // At most MAX_COUNT, checked by clap.
    let count = usize::try_from(count).unwrap_or(usize::MAX);
    let mut solver = solving.solver()?;
    let bar = progress::bar(count as u64, "sample");
    let set = bench::sample::<W, H, B>(depth, count, seed, |pos| {
        solver.reset();
        bar.inc(1);
        solver.solve(pos, Strength::Strong)
    });
    bar.finish_and_clear();
    let mut out = io::stdout().lock();
    for (moves, score) in &set {
        writeln!(out, "{moves} {score}")?;
    }
    out.flush()?;
    if set.len() < count {
        eprintln!(
            "only {} distinct positions with {depth} stones found",
            set.len()
        );
    }
    Ok(())
}
