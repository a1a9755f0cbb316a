//! Helpers shared by the lab's integration tests.

use std::path::Path;

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
