//! `transpo-lab`: experiments on transposition tables.
//!
//! `tt-bench` measures what a probe of the table costs against the hardware's floor, one
//! dependent DRAM access; `breuker` reproduces the replacement-scheme study of Breuker,
//! Uiterwijk & van den Herik (1994) with the chess engine (`merge` joins its shards); `c4`
//! runs the same schemes under the Connect Four solver; [`experiment`] holds what the two
//! studies share.

mod breuker;
mod c4;
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
    /// Merge the observations of several runs or shards into one run with its report.
    Merge {
        /// Output directory.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Run directories (or their observations.csv files) to merge.
        #[arg(required = true)]
        inputs: Vec<std::path::PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::TtBench(args) => tt_bench::run(&args),
        Command::Breuker(args) => breuker::run(&args).map_err(Into::into),
        Command::C4(args) => c4::run(&args).map_err(Into::into),
        Command::Merge { out, inputs } => breuker::merge(&out, &inputs).map_err(Into::into),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("transpo-lab: error: {e}");
            ExitCode::FAILURE
        }
    }
}
