//! Helpers shared by the integration tests: finding the shared data folder.

#![allow(dead_code)]

use std::path::PathBuf;

/// A file under `shared/data/` beside the repository, if present. When it is missing the
/// test fails under CI (`CI` set) and is skipped with a message otherwise.
pub fn shared_data(relative: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(relative);
    if path.is_file() {
        return Some(path);
    }
    if std::env::var_os("CI").is_some() {
        panic!("{} is missing, and CI is set", path.display());
    }
    eprintln!(
        "skipping: {} is missing (set CI to make this fail)",
        path.display()
    );
    None
}
