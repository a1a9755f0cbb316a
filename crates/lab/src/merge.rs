//! `merge`: unites the runs (shards) of one study into one run with its report. Which study
//! the runs belong to is read from their CSVs: `elo` runs hold a `pairs.csv`, `breuker` runs
//! an `observations.csv`; each study merges its own.

use crate::{breuker, elo, failure::Failure};
use std::path::PathBuf;

/// Arguments of `merge`.
#[derive(clap::Args)]
pub struct Args {
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
    /// Run directories (or their observations.csv / pairs.csv files) to merge.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
}

/// Merges `breuker` runs or `elo` runs, whichever the inputs are (not a mixture).
pub fn run(args: &Args) -> Result<(), Failure> {
    let inputs = &args.inputs;
    if let Some(missing) = inputs.iter().find(|i| !i.exists()) {
        return Err(Failure::Usage(format!(
            "{}: no such file or directory",
            missing.display()
        )));
    }
    let (elo_runs, others): (Vec<_>, Vec<_>) = inputs.iter().partition(|i| elo::is_elo_input(i));
    match (elo_runs.first(), others.first()) {
        (Some(elo), Some(other)) => Err(Failure::Usage(format!(
            "{} is an elo run (pairs.csv) but {} is not: merge runs of one kind",
            elo.display(),
            other.display()
        ))),
        (Some(_), None) => elo::merge(&args.out, inputs),
        _ => breuker::merge(&args.out, inputs),
    }
}
