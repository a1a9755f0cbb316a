//! `transpo-lab`: experiments on transposition tables.
//!
//! `tt-bench` measures what a probe of the table costs against the hardware's floor, one
//! dependent DRAM access; `breuker` reproduces the replacement-scheme study of Breuker,
//! Uiterwijk & van den Herik (1994) with the chess engine (`merge` joins its shards); `c4`
//! runs the same schemes under the Connect Four solver; `elo` plays the schemes against a
//! reference in games (`merge` joins its shards too); [`experiment`] holds what the studies
//! share.

mod breuker;
mod c4;
mod elo;
mod experiment;
mod tt_bench;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Experiments on transposition tables.
#[derive(Parser)]
#[command(name = "transpo-lab", version, about)]
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
    Merge {
        /// Output directory.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Run directories (or their observations.csv / pairs.csv files) to merge.
        #[arg(required = true)]
        inputs: Vec<std::path::PathBuf>,
    },
}

/// Merges `breuker` runs or `elo` runs, whichever the inputs are (not a mixture).
fn merge(out: &std::path::Path, inputs: &[std::path::PathBuf]) -> Result<(), String> {
    if let Some(missing) = inputs.iter().find(|i| !i.exists()) {
        return Err(format!("{}: no such file or directory", missing.display()));
    }
    let (elo_runs, others): (Vec<_>, Vec<_>) = inputs.iter().partition(|i| elo::is_elo_input(i));
    match (elo_runs.first(), others.first()) {
        (Some(elo), Some(other)) => Err(format!(
            "{} is an elo run (pairs.csv) but {} is not: merge runs of one kind",
            elo.display(),
            other.display()
        )),
        (Some(_), None) => elo::merge(out, inputs),
        _ => breuker::merge(out, inputs),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::TtBench(args) => tt_bench::run(&args),
        Command::Breuker(args) => breuker::run(&args).map_err(Into::into),
        Command::C4(args) => c4::run(&args).map_err(Into::into),
        Command::Elo(args) => elo::run(&args).map_err(Into::into),
        Command::Merge { out, inputs } => merge(&out, &inputs).map_err(Into::into),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("transpo-lab: error: {e}");
            ExitCode::FAILURE
        }
    }
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
