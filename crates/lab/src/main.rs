//! `transpo-lab`: experiments on transposition tables.
//!
//! `tt-bench` measures what a probe of the table costs against the hardware's floor, one
//! dependent DRAM access; `breuker` reproduces the replacement-scheme study of Breuker,
//! Uiterwijk & van den Herik (1994) with the chess engine (`merge` joins its shards); `c4`
//! runs the same schemes under the Connect Four solver; `elo` plays the schemes against a
//! reference in games (`merge` joins its shards too); [`experiment`] holds what the studies
//! share, [`failure`] the exit statuses of the workspace's convention.

mod breuker;
mod c4;
mod elo;
mod experiment;
mod failure;
mod merge;
mod tt_bench;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Experiments on transposition tables.
#[derive(Parser)]
#[command(name = "transpo-lab", version, about, after_help = failure::EXIT_STATUS)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Probe latency against a dependent DRAM access, prefetching, and multi-thread throughput.
    TtBench(tt_bench::Args),
    /// The replacement-scheme experiment of Breuker, Uiterwijk & van den Herik (1994).
    Breuker(breuker::Args),
    /// The replacement schemes under the Connect Four solver (schemes × sizes on a test set).
    C4(c4::Args),
    /// Replacement schemes in games: Elo against a reference at several hash pressures.
    Elo(elo::Args),
    /// Merge the observations of several runs or shards (of `breuker` or of `elo`, told
    /// apart by their CSV) into one run with its report.
    Merge(merge::Args),
}

/// Runs the command; a failure is reported as `error: …` with the exit status of its kind
/// (see [`failure`]).
fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::TtBench(args) => tt_bench::run(&args),
        Command::Breuker(args) => breuker::run(&args),
        Command::C4(args) => c4::run(&args),
        Command::Elo(args) => elo::run(&args),
        Command::Merge(args) => merge::run(&args),
    };
    failure::exit_status(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
