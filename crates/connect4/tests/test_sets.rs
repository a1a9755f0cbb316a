//! Pons' test sets, checked line by line with zero wrong scores, on one thread and on two
//! sharing the table: every line of End-Easy, Middle-Easy, Middle-Medium and Begin-Easy, the
//! first 20 of Begin-Medium and Begin-Hard.
//!
//! The files live outside the repository (`../shared/data/connect4/`). When one is missing
//! the test fails if the environment variable `CI` is set, and otherwise skips with a message.

use std::path::PathBuf;
use transpo_connect4::protocol::{Problem, parse_line};
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
/// position, over positions from every set: each score is the set's. Split points at the
/// default distance from the end, and at every node (so that children are handed out, cut
/// off and cancelled on every small problem).
#[test]
fn many_threads_on_a_tiny_table_score_exactly() {
    for split_empty in [transpo_connect4::solver::SPLIT_EMPTY, 0] {
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
            solver.set_split_empty(split_empty);
            for strength in [Strength::Strong, Strength::Weak] {
                let result = run_set(&mut solver, file, &text, strength, Some(limit), |_, _| {});
                assert_eq!(result.positions, limit, "{file}");
                assert!(result.failures.is_empty(), "{file}: {:?}", result.failures);
            }
        }
    }
}

/// The first `n` lines of a set, read with the protocol's parser; each holds its score.
fn problems(text: &str, n: usize) -> Vec<Problem<'_>> {
    let parse = |line| parse_line(line).expect("a set's line");
    let problems: Vec<Problem<'_>> = text.lines().take(n).map(parse).collect();
    assert!(
        problems.iter().all(|p| p.expected.is_some()),
        "a line without a score"
    );
    problems
}

/// A team whose big table grows under it (16 MiB, of which 2 MiB in use after a clear;
/// helpers from the first position; two Begin-Hard lines, which grow it to all of its
/// buckets): the threads stop for each doubling and the window starts again. Every score is
/// the set's, on 2 and on 4 threads.
#[test]
fn a_team_on_a_growing_table_scores_exactly() {
    let Some(text) = read("Test_L1_R3") else {
        return;
    };
    for threads in [2, 4] {
        let mut solver = Solver::new(16).expect("16 MiB");
        solver.set_threads(threads).expect("helper tables");
        solver.set_parallel_after(0);
        let start = solver.table().buckets_in_use();
        let mut grew = 0;
        for Problem {
            moves,
            position: pos,
            expected,
        } in problems(&text, 2)
        {
            assert_eq!(
                solver.solve(&pos, Strength::Strong),
                expected.expect("a score"),
                "{moves}"
            );
            if solver.table().buckets_in_use() > start {
                grew += 1;
            }
        }
        assert!(grew > 0, "no solve grew the table on {threads} threads");
    }
}

/// Runs `check(solver, threads, problem, score)` on the first two positions of Begin-Hard
/// (`Test_L1_R3`), on a 16 MiB solver of one thread and one of four that splits from the
/// root; nothing without the set.
fn on_hard_positions(check: impl Fn(&mut Solver, usize, &Problem<'_>, i32)) {
    let Some(text) = read("Test_L1_R3") else {
        return;
    };
    for threads in [1, 4] {
        let mut solver = Solver::new(16).expect("16 MiB");
        solver.set_threads(threads).expect("helper tables");
        solver.set_parallel_after(0);
        for problem in problems(&text, 2) {
            let score = problem.expected.expect("a score");
            check(&mut solver, threads, &problem, score);
        }
    }
}

/// A solve stopped part-way answers `None` and leaves only true bounds in the table: solved
/// again on the same table, on one thread and on four, every score is the set's.
#[test]
fn a_stopped_solve_leaves_only_true_bounds() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use transpo_connect4::score::Window;
    on_hard_positions(|solver, _, problem, score| {
        let (moves, pos) = (problem.moves, &problem.position);
        // Raised at once: the solve stops at its first look, after a few hundred positions.
        let stop = AtomicBool::new(true);
        assert_eq!(solver.solve_window_until(pos, Window::EXACT, &stop), None);
        // Raised part-way through, from another thread.
        let stop = AtomicBool::new(false);
        let stopped = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(20));
                stop.store(true, Ordering::Relaxed);
            });
            solver.solve_window_until(pos, Window::EXACT, &stop)
        });
        // Finished before the stop or stopped: either way never a wrong score.
        if let Some(range) = stopped {
            assert_eq!(range, score..=score, "{moves}");
        }
        assert_eq!(solver.solve(pos, Strength::Strong), score, "{moves}");
    });
}

/// A solve limited to some positions stops near the limit (on one thread at the first look
/// past it; on four, within a few thousand positions of each thread) and leaves only true
/// bounds: solved again on the same table, every score is the set's.
#[test]
fn a_solve_within_a_node_limit_stops_near_it() {
    use std::sync::atomic::AtomicBool;
    use transpo_connect4::score::Window;
    on_hard_positions(|solver, threads, problem, score| {
        let (moves, pos) = (problem.moves, &problem.position);
        let stop = AtomicBool::new(false);
        let before = solver.nodes();
        let limited = solver.solve_window_within(pos, Window::EXACT, &stop, 10_000);
        let explored = solver.nodes() - before;
        let slack = if threads == 1 { 256 } else { 4 * 4_096 + 256 };
        match limited {
            Some(range) => assert_eq!(range, score..=score, "{moves}"),
            None => assert!(explored <= 10_000 + slack, "{moves}: {explored} positions"),
        }
        assert_eq!(solver.solve(pos, Strength::Strong), score, "{moves}");
    });
}
