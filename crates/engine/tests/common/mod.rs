//! Helpers shared by the integration tests: running the binary for its output.

#![allow(dead_code)]

use transpo_testkit::Run;

/// Runs the `transpo-chess` binary with `args` (within the testkit's default deadline),
/// asserts that it succeeds and returns its standard output.
pub fn chess_stdout<I: IntoIterator<Item = S>, S: AsRef<std::ffi::OsStr>>(args: I) -> String {
    let out = Run::new(env!("CARGO_BIN_EXE_transpo-chess"))
        .args(args)
        .output();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}
