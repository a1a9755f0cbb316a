//! Pons' test sets, checked line by line with zero wrong scores, on one thread and on two
//! sharing the table: every line of End-Easy, Middle-Easy, Middle-Medium and Begin-Easy, the
//! first 20 of Begin-Medium and Begin-Hard.
//!
//! The files live outside the repository (`../shared/data/connect4/`). When one is missing
//! the test fails if the environment variable `CI` is set, and otherwise skips with a message.

use std::path::PathBuf;
use transpo_connect4::{Solver, Strength, bench::run_set};

/// The text of test set `file`, or `None` (with a message) when it is missing outside CI.
fn read(file: &str) -> Option<String> {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "..",
        "shared",
        "data",
        "connect4",
        file,
    ]
    .iter()
    .collect();
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if std::env::var_os("CI").is_some() => {
            panic!("{}: {e} (required when CI is set)", path.display())
        }
        Err(e) => {
            eprintln!("skipping {file}: {}: {e}", path.display());
            None
        }
    }
}

fn check(file: &str, limit: Option<usize>, strength: Strength) {
    let Some(text) = read(file) else { return };
    for threads in [1, 2] {
        let mut solver = Solver::new(64).expect("64 MiB");
        solver.set_threads(threads).expect("helper tables");
        let result = run_set(&mut solver, file, &text, strength, limit, |_, _| {});
        let expected = limit.unwrap_or(1000).min(text.lines().count());
        assert_eq!(result.positions, expected, "{file}");
        assert!(
            result.failures.is_empty(),
            "{file}, {threads} threads: {:?}",
            result.failures
        );
    }
}

#[test]
fn end_easy() {
    check("Test_L3_R1", None, Strength::Strong);
    check("Test_L3_R1", None, Strength::Weak);
}

#[test]
fn middle_easy() {
    check("Test_L2_R1", None, Strength::Strong);
    check("Test_L2_R1", None, Strength::Weak);
}

#[test]
fn middle_medium() {
    check("Test_L2_R2", None, Strength::Strong);
}

#[test]
fn begin_easy() {
    check("Test_L1_R1", None, Strength::Strong);
}

#[test]
fn begin_medium_first_20() {
    check("Test_L1_R2", Some(20), Strength::Strong);
}

#[test]
fn begin_hard_first_20() {
    check("Test_L1_R3", Some(20), Strength::Strong);
}

/// Many threads on a table of the smallest size, joining every solve from its first
/// position, over positions from every set: each score is the set's.
#[test]
fn many_threads_on_a_tiny_table_score_exactly() {
    for (file, limit) in [
        ("Test_L3_R1", 100),
        ("Test_L2_R1", 100),
        ("Test_L2_R2", 60),
        ("Test_L1_R1", 60),
        ("Test_L1_R2", 6),
    ] {
        let Some(text) = read(file) else { continue };
        let mut solver = Solver::new(1).expect("1 MiB");
        solver.set_threads(8).expect("helper tables");
        solver.set_parallel_after(0);
        for strength in [Strength::Strong, Strength::Weak] {
            let result = run_set(&mut solver, file, &text, strength, Some(limit), |_, _| {});
            assert_eq!(result.positions, limit, "{file}");
            assert!(result.failures.is_empty(), "{file}: {:?}", result.failures);
        }
    }
}
