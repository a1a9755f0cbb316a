//! Helpers shared by the lab's integration tests: running a study through the binary, and
//! the rows two runs must agree on.

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use transpo_testkit::{Output, Run};

/// How long one `transpo-lab` run of these studies may take before the test counts it as
/// hung: the studies take seconds in a release build; the margin is for a loaded machine.
pub const STUDY_DEADLINE: Duration = Duration::from_secs(300);

/// Runs `transpo-lab args` within [`STUDY_DEADLINE`].
pub fn lab<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(args: I) -> Output {
    Run::new(env!("CARGO_BIN_EXE_transpo-lab"))
        .args(args)
        .deadline(STUDY_DEADLINE)
        .output()
}

/// The lines of `dir/observations.csv` without its header, with the (wall-time) column
/// `column` blanked out, sorted: what two runs of the same experiment must agree on.
pub fn observations_without(dir: &Path, column: usize) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("observations.csv")).expect("observations.csv");
    let mut lines: Vec<String> = text
        .lines()
        .skip(1)
        .map(|l| {
            let mut f: Vec<&str> = l.split(',').collect();
            f[column] = "_";
            f.join(",")
        })
        .collect();
    lines.sort();
    lines
}
