//! `transpo-lab c4` on a few positions with known scores (the Connect Four crate's fixture of
//! facts): the run checks every score, writes one row per solve, is deterministic across
//! thread counts, and stops with a clear error on a wrong expected score (exit status 1, a
//! failed check) or a bad line (2, bad input).

mod common;
use std::path::PathBuf;

use transpo_testkit::scratch;

/// The prefix of this file's scratch directories.
const SCRATCH: &str = "transpo-lab-c4";

/// The first `n` positions of the Connect Four facts fixture (Pons' test-set lines and their
/// children, scores from his sets and cross-checked there).
fn facts(dir: &std::path::Path, n: usize, tamper: impl Fn(&str) -> String) -> PathBuf {
    let fixture = include_str!("../../connect4/tests/fixtures/facts.txt");
    let lines: Vec<String> = fixture
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .take(n)
        .map(tamper)
        .collect();
    let path = dir.join("facts.txt");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write positions");
    path
}

/// Runs `transpo-lab args`: (exit status, stderr); -1 for a process killed by a signal.
fn lab(args: &[&str]) -> (i32, String) {
    let out = common::lab(args);
    (out.code().unwrap_or(-1), out.stderr_text())
}

fn run(positions: &std::path::Path, out: &std::path::Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec![
        "c4",
        "--positions",
        positions.to_str().expect("utf-8"),
        "--schemes",
        "new,twobig1,bigall",
        "--sizes",
        "4K,64K",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    args.extend(extra);
    lab(&args)
}

/// The CSV's lines without the wall-time column (column 4), sorted.
fn nodes(out: &std::path::Path) -> Vec<String> {
    common::observations_without(out, 4)
}

#[test]
fn a_small_study_checks_scores_and_is_deterministic() {
    let dir = scratch(SCRATCH, "study");
    let positions = facts(&dir, 8, str::to_string);
    let (status, log) = run(&positions, &dir.join("a"), &["--threads", "1"]);
    assert_eq!(status, 0, "{log}");
    let rows = nodes(&dir.join("a"));
    assert_eq!(rows.len(), 3 * 2 * 8, "schemes × sizes × positions");
    // A position the side to move wins at once is solved without a search (0 nodes).
    assert!(
        rows.iter()
            .filter(|r| r.split(',').nth(3) != Some("0"))
            .count()
            > rows.len() / 2
    );
    let report = std::fs::read_to_string(dir.join("a").join("report.md")).expect("report");
    for part in [
        "## Positions explored",
        "| 4K | 64K |",
        "## Paired comparisons",
        "## Verdict",
    ] {
        assert!(report.contains(part), "{part} missing:\n{report}");
    }
    let (status, log) = run(&positions, &dir.join("b"), &["--threads", "2", "--weak"]);
    assert_eq!(status, 0, "{log}");
    let (status, log) = run(&positions, &dir.join("c"), &["--threads", "2"]);
    assert_eq!(status, 0, "{log}");
    assert_eq!(
        nodes(&dir.join("c")),
        rows,
        "node counts must not depend on threads"
    );
}

#[test]
fn a_wrong_expected_score_or_a_bad_line_stops_the_run() {
    let dir = scratch(SCRATCH, "bad");
    // Flip the sign of the first position's score (-1 in the fixture).
    let wrong = facts(&dir, 3, |l| l.replacen(" -1", " 1", 1));
    // A wrong score is a failed check: status 1.
    let (status, log) = run(&wrong, &dir.join("out"), &[]);
    assert!(status == 1 && log.contains("the set says 1"), "{log}");

    std::fs::write(dir.join("junk.txt"), "4455 0\n44x 3\n").expect("write");
    // A malformed test set is bad input, like a bad flag: status 2.
    let (status, log) = run(&dir.join("junk.txt"), &dir.join("out"), &[]);
    assert!(
        status == 2
            && log.contains("error: ")
            && log.contains("junk.txt:2: ")
            && log.contains("not a column"),
        "{log}"
    );

    let (status, log) = lab(&["c4", "--schemes", "deeper"]);
    assert!(status == 2 && log.contains("deeper"), "{log}");
}
