//! A small matrix (2 schemes, 2 sizes, depth 3, 3 positions) run through the binary, checked
//! for invariants that truly hold: identical node counts across runs, a resumed run (after an
//! interruption between rows or in the middle of one) equal to an uninterrupted one, the union of shards equal to the whole run, and a no-table baseline
//! that does not depend on the schemes and sizes around it.

mod common;
use std::path::{Path, PathBuf};

use transpo_testkit::scratch;

const POSITIONS: usize = 3;

/// The prefix of this file's scratch directories.
const SCRATCH: &str = "transpo-lab";

/// The first three positions of the paper's set, as an EPD file.
fn positions(dir: &Path) -> PathBuf {
    let fixture = include_str!("../data/breuker18.epd");
    let lines: Vec<&str> = fixture
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(POSITIONS)
        .collect();
    let path = dir.join("three.epd");
    std::fs::write(&path, lines.join("\n")).expect("write positions");
    path
}

/// Runs `transpo-lab args`, asserts that it succeeds and returns its stderr.
fn lab(args: &[&str]) -> String {
    let out = common::lab(args);
    assert!(
        out.status.success(),
        "transpo-lab {args:?} failed: {}",
        out.stderr_text()
    );
    out.stderr_text()
}

/// Runs `breuker` on `positions` into `dir` at depth 3; `matrix` defaults to the small
/// matrix (2 schemes, 2 sizes, both stampings). Returns what it said on stderr.
fn run(dir: &Path, positions: &Path, matrix: Option<&[&str]>, extra: &[&str]) -> String {
    let small: &[&str] = &["--schemes", "twobig1,deep", "--sizes", "8K,16K"];
    let mut args = vec!["breuker", "--depths", "3"];
    args.extend(matrix.unwrap_or(small));
    args.extend([
        "--positions",
        positions.to_str().expect("utf-8 path"),
        "--out",
        dir.to_str().expect("utf-8 path"),
    ]);
    args.extend(extra);
    lab(&args)
}

/// The CSV's lines without the wall-time column (column 7), sorted.
fn observations(dir: &Path) -> Vec<String> {
    common::observations_without(dir, 7)
}

#[test]
fn small_matrix_is_deterministic_resumable_and_shardable() {
    let dir = scratch(SCRATCH, "matrix");
    let epd = positions(&dir);

    let whole = dir.join("whole");
    run(&whole, &epd, None, &[]);
    let rows = observations(&whole);
    // 1 baseline + 2 schemes × 2 stampings × 2 sizes = 9 cells of 3 positions.
    assert_eq!(rows.len(), 9 * POSITIONS);
    let report = std::fs::read_to_string(whole.join("report.md")).expect("report.md");
    assert!(
        report.contains("## Table 1") && report.contains("| 8K |") && report.contains("| 16K |"),
        "{report}"
    );

    let again = dir.join("again");
    run(&again, &epd, None, &["--threads", "2"]);
    assert_eq!(
        observations(&again),
        rows,
        "node counts must not change between runs"
    );

    // Interrupt: keep the header and the first cell plus half of the next, then resume.
    let resumed = dir.join("resumed");
    std::fs::create_dir_all(&resumed).expect("dir");
    let text = std::fs::read_to_string(whole.join("observations.csv")).expect("csv");
    let partial: Vec<&str> = text.lines().take(1 + POSITIONS + 1).collect();
    std::fs::write(resumed.join("observations.csv"), partial.join("\n") + "\n").expect("write");
    let log = run(&resumed, &epd, None, &["--threads", "1"]);
    assert!(log.contains("1 already done"), "{log}");
    assert_eq!(
        observations(&resumed),
        rows,
        "a resumed run must equal an uninterrupted one"
    );

    // Killed while writing a row: the torn last line is cut off and its cell runs again.
    let killed = dir.join("killed");
    std::fs::create_dir_all(&killed).expect("dir");
    let torn = format!(
        "{}\n{}",
        partial.join("\n"),
        &text.lines().nth(2 + POSITIONS).expect("a row")[..20]
    );
    std::fs::write(killed.join("observations.csv"), torn).expect("write");
    let log = run(&killed, &epd, None, &["--threads", "1"]);
    assert!(
        log.contains("line 6: a torn last line") && log.contains("1 already done"),
        "{log}"
    );
    assert_eq!(
        observations(&killed),
        rows,
        "a run killed mid-row must resume to the whole one"
    );

    let shards: Vec<PathBuf> = (1..=3).map(|i| dir.join(format!("shard{i}"))).collect();
    for (i, shard) in shards.iter().enumerate() {
        run(shard, &epd, None, &["--shard", &format!("{}/3", i + 1)]);
    }
    let merged = dir.join("merged");
    let mut args = vec!["merge", "--out", merged.to_str().expect("utf-8")];
    args.extend(shards.iter().map(|s| s.to_str().expect("utf-8")));
    lab(&args);
    assert_eq!(
        observations(&merged),
        rows,
        "the union of shards must equal the whole run"
    );
    // Runs that disagree on a node count fail the merge's check: exit status 1.
    let shard1 = shards[0].join("observations.csv");
    let text = std::fs::read_to_string(&shard1).expect("csv");
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut fields: Vec<&str> = lines[1].split(',').collect();
    let nodes = format!("{}1", fields[6]);
    fields[6] = &nodes;
    lines[1] = fields.join(",");
    std::fs::write(&shard1, lines.join("\n") + "\n").expect("write");
    let whole_csv = whole.join("observations.csv");
    let out = common::lab([
        "merge",
        "--out",
        merged.to_str().expect("utf-8"),
        shard1.to_str().expect("utf-8"),
        whole_csv.to_str().expect("utf-8"),
    ]);
    let err = out.stderr_text();
    assert!(
        out.status.code() == Some(1) && err.contains("error: runs disagree"),
        "{err}"
    );

    // A shard killed while writing a row is unfinished: merge refuses it (bad input, 2)
    // rather than report the run as whole.
    let shard2 = shards[1].join("observations.csv");
    let text = std::fs::read_to_string(&shard2).expect("csv");
    let torn = format!("{text}{}", &text.lines().nth(1).expect("a row")[..20]);
    std::fs::write(&shard2, torn).expect("write");
    let merged2 = dir.join("merged2");
    let mut args = vec!["merge", "--out", merged2.to_str().expect("utf-8")];
    args.extend(shards.iter().map(|s| s.to_str().expect("utf-8")));
    let out = common::lab(&args);
    let err = out.stderr_text();
    assert!(
        out.status.code() == Some(2) && err.contains("torn last line"),
        "{err}"
    );

    // The baseline does not depend on the schemes and sizes it ran beside.
    let other = dir.join("other");
    let elsewhere: &[&str] = &[
        "--schemes",
        "new",
        "--sizes",
        "32K",
        "--stamping",
        "cleared",
    ];
    run(&other, &epd, Some(elsewhere), &[]);
    let baseline = |rows: &[String]| {
        rows.iter()
            .filter(|r| r.starts_with("none,"))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(baseline(&observations(&other)), baseline(&rows));
    assert_eq!(baseline(&rows).len(), POSITIONS);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bad usage and bad input, flags and files alike, exit with status 2 and `error: …`.
#[test]
fn bad_flags_are_clear_errors() {
    for (args, expected) in [
        (vec!["breuker", "--schemes", "deep,shallow"], "shallow"),
        (vec!["breuker", "--sizes", "8K..12K"], "powers of two"),
        (vec!["breuker", "--depths", "9..3"], "bad depths"),
        (vec!["breuker", "--shard", "4/3"], "bad shard"),
        (
            vec!["breuker", "--stamping", "sometimes"],
            "unknown stamping",
        ),
        (
            vec!["breuker", "--positions", "/nonexistent/file.epd"],
            "nonexistent",
        ),
        (
            vec!["merge", "--out", "/tmp/x", "/nonexistent/run"],
            "no such file",
        ),
    ] {
        let out = common::lab(&args);
        let err = out.stderr_text();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("error: ") && err.contains(expected),
            "{args:?}: {err}"
        );
    }
}
