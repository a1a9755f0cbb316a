//! `tune`: Texel-tunes the tapered evaluation's weights ([`crate::tune`]) on `FEN;R` lines
//! from `datagen` and writes the source of `eval/weights.rs`. What is checked before the fit
//! (which may take minutes) and how the weights file is replaced.

use std::io::{self, Write};

use clap::Args;

use super::Failure;
use crate::tune::{self, Dataset, Fit};

/// The arguments of `tune`.
#[derive(Args, Clone, Debug)]
pub struct TuneArgs {
    /// The positions, `FEN;R` lines.
    pub data: String,
    /// Where to write the weights' source.
    #[arg(long)]
    pub out: String,
    /// Gradient steps over the whole set, 1 to 100000.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub steps: u64,
    /// The first step of the steepest weight, in centipawns (the others in proportion).
    #[arg(long, default_value_t = 2.0)]
    pub rate: f64,
    /// Weight of the squared distance from the starting weights, added to the error.
    #[arg(long, default_value_t = 1e-7)]
    pub prior: f64,
}

impl TuneArgs {
    /// Checks what can be checked before the fit: the rate and the prior are numbers in
    /// range, and the output can be replaced by a rename (a regular file or a new name, not
    /// a directory, a FIFO or a device such as `/dev/null`). All are bad usage.
    pub fn check(&self) -> Result<(), Failure> {
        let (rate, prior, out) = (self.rate, self.prior, &self.out);
        if !(rate.is_finite() && rate > 0.0) {
            return Err(Failure::usage(format!(
                "the rate must be a positive number, not {rate}"
            )));
        }
        if !(prior.is_finite() && prior >= 0.0) {
            return Err(Failure::usage(format!(
                "the prior must be a number at least 0, not {prior}"
            )));
        }
        transpo_files::check_replaceable(out).map_err(|e| {
            Failure::usage(format!(
                "cannot write {out}: {e}; the weights go to a regular file or a new name"
            ))
        })
    }

    /// Reads the data set (lines that do not parse are skipped and counted; those too long
    /// or not UTF-8 are reported to `warn`). A file that cannot be read, holds too many
    /// positions or none is bad input.
    pub fn dataset(&self, warn: &mut dyn FnMut(&str)) -> Result<(Dataset, usize), Failure> {
        let data = &self.data;
        let file = transpo_files::open_text(data)
            .map_err(|e| Failure::usage(format!("cannot read {data}: {e}")))?;
        let (set, bad) = Dataset::read(io::BufReader::new(file), data, &mut |why| warn(&why))
            .map_err(Failure::usage)?;
        if set.is_empty() {
            return Err(Failure::usage(format!("{data} holds no `FEN;R` line")));
        }
        Ok((set, bad))
    }

    /// Fits the weights to the data and writes their source to the output, replacing it
    /// whole (until the new file is complete and synced, it keeps its contents); progress
    /// lines go to `out`. A fit that diverges (non-finite weights or errors: the rate is too
    /// large) is a failed check, and the output is left as it was.
    pub fn run(&self, out: &mut impl Write, warn: &mut dyn FnMut(&str)) -> Result<(), Failure> {
        self.check()?;
        let (set, bad) = self.dataset(warn)?;
        writeln!(out, "{} positions ({bad} lines skipped)", set.len())?;
        let mut written = Ok(());
        let fit = tune::tune(
            &set,
            &tune::current_weights(),
            // In range for usize: clap checked it (at most 100000).
            (self.steps as usize, self.rate, self.prior),
            &mut |step, error| {
                if written.is_ok() {
                    written = writeln!(out, "step {step}: training error {error:.6}");
                }
            },
        );
        written?;
        writeln!(
            out,
            "K {:.6}; error before {:.6} (held out {:.6}), after {:.6} (held out {:.6})",
            fit.k, fit.before.0, fit.before.1, fit.after.0, fit.after.1
        )?;
        if !fit.is_finite() {
            return Err(Failure::run(format!(
                "the fit diverged to non-finite weights or errors (NaN or infinity): --rate \
                 {:?} is too large; {} is left as it was",
                self.rate, self.out
            )));
        }
        let source = tune::weights_source(&fit.weights, &self.provenance(set.len(), &fit));
        let path = &self.out;
        transpo_files::write_atomic(path, |file: &std::fs::File| {
            let mut writer = io::BufWriter::new(file);
            writer.write_all(source.as_bytes())?;
            writer.flush()
        })
        .map_err(|e: io::Error| Failure::run(format!("cannot write {path}: {e}")))?;
        writeln!(out, "weights written to {path}")?;
        Ok(())
    }

    /// Where the weights came from, for the generated file's header.
    fn provenance(&self, positions: usize, fit: &Fit) -> String {
        format!(
            "Fitted to {positions} positions of {} ({} steps at rate {}, prior {}): K = {:.6}, \
             mean squared\nerror {:.6} -> {:.6}, on the held-out tenth {:.6} -> {:.6}.",
            self.data,
            self.steps,
            self.rate,
            self.prior,
            fit.k,
            fit.before.0,
            fit.after.0,
            fit.before.1,
            fit.after.1
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(data: &str, out: &str) -> TuneArgs {
        TuneArgs {
            data: data.to_string(),
            out: out.to_string(),
            steps: 3,
            rate: 2.0,
            prior: 1e-7,
        }
    }

    #[test]
    fn bad_numbers_and_outputs_are_bad_usage() {
        let new_name =
            std::env::temp_dir().join(format!("transpo-never-{}.rs", std::process::id()));
        let new_name = new_name.to_str().unwrap();
        assert!(args("data", new_name).check().is_ok());
        for bad in [
            TuneArgs {
                rate: -1.0,
                ..args("data", new_name)
            },
            TuneArgs {
                rate: f64::INFINITY,
                ..args("data", new_name)
            },
            TuneArgs {
                prior: f64::NAN,
                ..args("data", new_name)
            },
            args("data", std::env::temp_dir().to_str().unwrap()),
        ] {
            let failure = bad.check().unwrap_err();
            assert_eq!(failure.exit_code(), 2, "{bad:?}: {failure}");
        }
    }

    #[test]
    fn missing_or_empty_data_is_bad_input() {
        let out = "never-written.rs";
        let failure = args("/nonexistent/data", out)
            .dataset(&mut |_| {})
            .unwrap_err();
        assert_eq!(failure.exit_code(), 2);
        assert!(
            failure
                .to_string()
                .starts_with("cannot read /nonexistent/data")
        );
        let junk = std::env::temp_dir().join(format!("transpo-junk-{}.txt", std::process::id()));
        std::fs::write(&junk, "not a position;1\n").unwrap();
        let failure = args(junk.to_str().unwrap(), out)
            .dataset(&mut |_| {})
            .unwrap_err();
        assert_eq!(failure.exit_code(), 2);
        assert!(
            failure.to_string().contains("holds no `FEN;R` line"),
            "{failure}"
        );
        std::fs::remove_file(&junk).unwrap();
    }

    #[test]
    fn the_provenance_names_the_data_and_the_fit() {
        let fit = Fit {
            weights: Vec::new(),
            k: 0.5,
            before: (0.25, 0.5),
            after: (0.125, 0.375),
        };
        assert_eq!(
            args("games.txt", "w.rs").provenance(7, &fit),
            "Fitted to 7 positions of games.txt (3 steps at rate 2, prior 0.0000001): \
             K = 0.500000, mean squared\nerror 0.250000 -> 0.125000, on the held-out tenth \
             0.500000 -> 0.375000."
        );
    }
}
