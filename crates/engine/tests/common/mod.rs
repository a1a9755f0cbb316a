//! Helpers shared by the integration tests: finding the shared data folder and running the
//! binary.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

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

/// Runs the `transpo-chess` binary with `args`, asserts that it succeeds and returns its
/// standard output.
pub fn chess_stdout<I: IntoIterator<Item = S>, S: AsRef<std::ffi::OsStr>>(args: I) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_transpo-chess"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}
