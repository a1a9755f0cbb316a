//! Reliability, through the binary: numbers from the command line
//! or a file are checked before they size anything, outputs before the work, flags a command
//! does not honour are refused, and a finished run is left as it is. Every child runs under
//! the testkit's deadline, so a hang fails the test.

use std::path::Path;
use std::time::Duration;
use transpo_testkit::{Output, Run, scratch};

const BIN: &str = env!("CARGO_BIN_EXE_transpo-c4");

/// The scratch directories' prefix.
const PREFIX: &str = "transpo-c4-reliability";

/// The binary with `args`, killed (and the test failed) past 60 s.
fn c4(args: &[&str]) -> Output {
    Run::new(BIN).args(args).output()
}

/// The binary with `args`, which must succeed; its stderr.
fn ok(args: &[&str]) -> String {
    let out = c4(args);
    assert_eq!(out.code(), Some(0), "{args:?}: {}", out.stderr_text());
    out.stderr_text()
}

/// The binary with `args`, which must be refused as bad usage (2) with an `error:` line
/// containing every one of `words`.
fn refused(args: &[&str], words: &[&str]) {
    let out = c4(args);
    let stderr = out.stderr_text();
    assert_eq!(out.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    for word in words {
        assert!(stderr.contains(word), "{args:?}: no {word:?} in {stderr}");
    }
}

/// The names and contents of the files in `dir`, sorted.
fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("a directory")
        .map(|entry| {
            let entry = entry.expect("an entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(entry.path()).unwrap_or_default())
        })
        .collect();
    files.sort();
    files
}

/// Merges `dir` and runs its rounds in `shards` shards until the root is solved; the root's
/// line.
fn solve_in_rounds(dir: &str, shards: usize) -> String {
    for _ in 0..30 {
        for i in 1..=shards {
            let shard = format!("{i}/{shards}");
            ok(&[
                "solve-list",
                dir,
                "--shard",
                &shard,
                "--threads",
                "1",
                "--hash-mib",
                "4",
            ]);
        }
        let out = c4(&["merge", dir]);
        match out.code() {
            Some(0) => return out.stdout_text(),
            Some(3) => continue,
            other => panic!("merge: {other:?}: {}", out.stderr_text()),
        }
    }
    panic!("more than 30 rounds");
}

/// Item 1: a shard count sized allocations (24 GB for 1/1000000000, a panic for 2^64 − 1),
/// and a results header with such a count broke every later merge. A count past the split's
/// positions is refused before anything is written; a count up to them stays valid even
/// when a later round has fewer positions (the extra shards get nothing, exit 0); a merge
/// reading such a header refuses it as bad input.
#[test]
fn shard_counts_past_the_splits_positions_are_refused() {
    let dir = scratch(PREFIX, "shard-counts");
    let run = dir.join("run");
    let d = run.display().to_string();
    ok(&["split", "--board", "5x4", "--depth", "3", "--out", &d]);
    let positions = std::fs::read_to_string(run.join("positions.txt"))
        .expect("the split")
        .lines()
        .count()
        - 1;
    let before = listing(&run);
    for count in ["18446744073709551615", "1000000000"] {
        let shard = format!("{count}/{count}");
        let out = Run::new(BIN)
            .args(["solve-list", &d, "--shard", &shard, "--hash-mib", "4"])
            .deadline(Duration::from_secs(20))
            .output();
        let stderr = out.stderr_text();
        assert_eq!(out.code(), Some(2), "{shard}: {stderr}");
        assert!(
            stderr.contains(count) && stderr.contains(&format!("{positions} positions")),
            "{stderr}"
        );
        assert_eq!(listing(&run), before, "{shard}: nothing written");
    }
    // As many shards as positions: every round solves, though later rounds hold fewer
    // positions than shards.
    let root = solve_in_rounds(&d, positions);
    assert!(root.starts_with("- 0 "), "{root}");
    // A results header edited to a count past the positions: bad input (2), not more work.
    let results = run.join(format!("round-1-results-1-of-{positions}.txt"));
    let text = std::fs::read_to_string(&results).expect("results");
    let edited = text.replacen(
        &format!("shard 1/{positions} "),
        "shard 1/18446744073709551615 ",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&results, edited).expect("write");
    let out = Run::new(BIN)
        .args(["merge", &d])
        .deadline(Duration::from_secs(20))
        .output();
    assert_eq!(out.code(), Some(2), "{}", out.stderr_text());
    assert!(
        out.stderr_text().contains("18446744073709551615 shards"),
        "{}",
        out.stderr_text()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 2: `book` checked `--out` only after the whole solve, and made `OUT.work` first;
/// `merge --out` and `split --out` the same. Each target is now checked before anything
/// is made or solved.
#[test]
fn outputs_are_checked_before_the_work() {
    let dir = scratch(PREFIX, "outputs");
    let at = |name: &str| dir.join(name).display().to_string();
    std::fs::create_dir(dir.join("d")).expect("a directory");
    std::fs::write(dir.join("file"), "").expect("a file");
    let book = [
        "book",
        "--board",
        "6x5",
        "--depth",
        "6",
        "--threads",
        "1",
        "--out",
    ];
    for (out, words) in [
        (at("d"), "a directory"),
        ("/dev/full".to_string(), "not a regular file"),
        (at("missing/x.book"), "missing"),
        (at("file/x.book"), "not a directory"),
    ] {
        let existed = Path::new(&format!("{out}.work")).exists();
        refused(&[&book[..], &[&out]].concat(), &["--out", words]);
        assert!(
            existed || !Path::new(&format!("{out}.work")).exists(),
            "{out}.work made"
        );
    }
    assert!(!dir.join("missing").exists(), "missing/ made");
    // split --out: a file, or a path under one.
    let split = ["split", "--board", "4x4", "--depth", "2", "--out"];
    refused(
        &[&split[..], &[&at("file")]].concat(),
        &["--out", "not a directory"],
    );
    refused(
        &[&split[..], &[&at("file/run")]].concat(),
        &["--out", "not a directory"],
    );
    refused(
        &[&split[..], &["/dev/full"]].concat(),
        &["--out", "not a directory"],
    );
    // merge --out, on a solved split: the same checks as book's, the tables kept.
    let run = at("run");
    ok(&[&split[..], &[&run, "--full-book"]].concat());
    ok(&["solve-list", &run, "--threads", "1", "--hash-mib", "4"]);
    for (out, words) in [
        (at("missing/x.book"), "missing"),
        (at("d"), "a directory"),
        ("/dev/full".to_string(), "not a regular file"),
    ] {
        refused(&["merge", &run, "--out", &out], &["--out", words]);
    }
    assert!(!dir.join("missing").exists(), "missing/ made");
    ok(&["merge", &run, "--out", &at("x.book")]);
    assert!(dir.join("x.book").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 5: `solve-list` on a solved run searched its last round again, and with another
/// shard count wrote results that broke the finished run's merge. It now does nothing.
#[test]
fn solve_list_of_a_solved_run_does_nothing() {
    let dir = scratch(PREFIX, "solved");
    let d = dir.display().to_string();
    ok(&["split", "--board", "4x4", "--depth", "4", "--out", &d]);
    let root = solve_in_rounds(&d, 2);
    let before = listing(&dir);
    for shard in ["1/2", "2/2", "1/3", "1/1"] {
        let stderr = ok(&["solve-list", &d, "--shard", shard, "--hash-mib", "4"]);
        assert!(
            stderr.contains("solved: nothing to do"),
            "{shard}: {stderr}"
        );
        assert_eq!(listing(&dir), before, "{shard}: nothing written");
    }
    let out = c4(&["merge", &d]);
    assert_eq!(out.code(), Some(0), "{}", out.stderr_text());
    assert_eq!(out.stdout_text(), root);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 6: every global flag a command does not honour is refused (2), naming the flag and
/// the command, instead of being ignored (`serve --weak` and `sample --weak` gave strong
/// scores, `merge --weak` was taken on a strong split).
#[test]
fn flags_a_command_does_not_honour_are_refused() {
    let dir = scratch(PREFIX, "flags");
    let run = dir.join("run").display().to_string();
    ok(&["split", "--board", "4x4", "--depth", "2", "--out", &run]);
    let set = dir.join("set.txt");
    std::fs::write(&set, "11 1\n").expect("a test set");
    let set = set.display().to_string();
    let book = dir.join("b.book").display().to_string();
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            vec!["merge", &run, "--hash-mib", "4"],
            "merge",
            "--hash-mib",
        ),
        (vec!["merge", &run, "--threads", "1"], "merge", "--threads"),
        (vec!["merge", &run, "--book", &book], "merge", "--book"),
        (vec!["merge", &run, "--weak"], "merge", "--weak"),
        (vec!["merge", &run, "--analyze"], "merge", "--analyze"),
        (
            vec!["solve-list", &run, "--analyze"],
            "solve-list",
            "--analyze",
        ),
        (vec!["solve-list", &run, "--weak"], "solve-list", "--weak"),
        (
            vec!["split", "--depth", "2", "--out", &run, "--threads", "2"],
            "split",
            "--threads",
        ),
        (
            vec!["split", "--depth", "2", "--out", &run, "--hash-mib", "4"],
            "split",
            "--hash-mib",
        ),
        (
            vec!["split", "--depth", "2", "--out", &run, "--book", &book],
            "split",
            "--book",
        ),
        (
            vec!["--analyze", "split", "--depth", "2", "--out", &run],
            "split",
            "--analyze",
        ),
        (
            vec!["bench", &set, "--board", "4x4", "--analyze"],
            "bench",
            "--analyze",
        ),
        (
            vec!["sample", "--depth", "2", "--count", "1", "--weak"],
            "sample",
            "--weak",
        ),
        (
            vec!["sample", "--depth", "2", "--count", "1", "--analyze"],
            "sample",
            "--analyze",
        ),
        (
            vec!["book", "--depth", "2", "--out", &book, "--weak"],
            "book",
            "--weak",
        ),
        (
            vec!["book", "--depth", "2", "--out", &book, "--analyze"],
            "book",
            "--analyze",
        ),
        (
            vec!["serve", "--port", "0", "--analyze"],
            "serve",
            "--analyze",
        ),
    ];
    for (args, command, flag) in cases {
        refused(&args, &[command, flag]);
    }
    assert!(!Path::new(&book).exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 9 and beyond the list: `sample --depth 0` printed ` 0`, which `bench` rejects;
/// `--from -` (the empty board everywhere else) was refused; depths past the board's
/// squares were taken silently, and `sample --count`, `--hash-mib` had no bound.
#[test]
fn depths_counts_and_the_empty_board() {
    let dir = scratch(PREFIX, "small");
    let out = c4(&["sample", "--board", "4x4", "--depth", "0", "--count", "1"]);
    assert_eq!(out.code(), Some(0), "{}", out.stderr_text());
    // The empty 4x4 board is a draw.
    assert_eq!(out.stdout_text(), "- 0\n");
    let set = dir.join("set.txt");
    std::fs::write(&set, out.stdout_text()).expect("the set");
    ok(&[
        "bench",
        &set.display().to_string(),
        "--board",
        "4x4",
        "--hash-mib",
        "4",
    ]);
    // `--from -`: the empty board, as no --from.
    let with = dir.join("with").display().to_string();
    let without = dir.join("without").display().to_string();
    ok(&[
        "split", "--board", "4x4", "--depth", "3", "--from", "-", "--out", &with,
    ]);
    ok(&["split", "--board", "4x4", "--depth", "3", "--out", &without]);
    assert_eq!(
        std::fs::read(dir.join("with/positions.txt")).expect("split"),
        std::fs::read(dir.join("without/positions.txt")).expect("split")
    );
    let book = |name: &str, from: &[&str]| {
        let out = dir.join(name).display().to_string();
        let base = [
            "book",
            "--board",
            "4x4",
            "--depth",
            "3",
            "--threads",
            "1",
            "--out",
            &out,
        ];
        ok(&[&base[..], from, &["--hash-mib", "4"]].concat());
        std::fs::read(&out).expect("the book")
    };
    assert_eq!(
        book("with.book", &["--from", "-"]),
        book("without.book", &[])
    );
    // Depths past the board's squares, counts and tables past their bounds.
    let at = dir.join("deep").display().to_string();
    for depth in ["16", "4000000000"] {
        refused(
            &["split", "--board", "4x4", "--depth", depth, "--out", &at],
            &["--depth", "16 squares"],
        );
        refused(
            &["book", "--board", "4x4", "--depth", depth, "--out", &at],
            &["--depth", "16 squares"],
        );
        refused(
            &["sample", "--board", "4x4", "--depth", depth, "--count", "1"],
            &["--depth", "16 squares"],
        );
    }
    assert!(!Path::new(&at).exists());
    refused(
        &["sample", "--board", "4x4", "--depth", "2", "--count", "0"],
        &["--count"],
    );
    refused(
        &[
            "sample", "--board", "4x4", "--depth", "2", "--count", "1000001",
        ],
        &["--count"],
    );
    refused(
        &["--board", "4x4", "--hash-mib", "99999999999999"],
        &["--hash-mib"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 9: `merge` removed the shards' table files before it wrote its book; a merge that
/// fails writing the book now leaves them for the run that follows.
#[test]
fn merge_removes_the_tables_only_after_its_outputs() {
    let dir = scratch(PREFIX, "tables");
    let d = dir.display().to_string();
    ok(&[
        "split",
        "--board",
        "4x4",
        "--depth",
        "6",
        "--full-book",
        "--out",
        &d,
    ]);
    ok(&["solve-list", &d, "--threads", "1", "--hash-mib", "4"]);
    let table = dir.join("table-1-of-1.bin");
    assert!(table.is_file(), "the shard's table");
    // The book (8 KiB) past a 2 KiB file size limit.
    let out = Run::new("sh")
        .args(["-c", "ulimit -f 2 && exec \"$0\" \"$@\"", BIN, "merge", &d])
        .output();
    assert_ne!(out.code(), Some(0), "the limit should have stopped it");
    assert!(
        table.is_file(),
        "the table removed before the book was written"
    );
    let out = c4(&["merge", &d]);
    assert_eq!(out.code(), Some(0), "{}", out.stderr_text());
    assert!(dir.join("book.bin").is_file());
    assert!(!table.exists(), "the table of a solved run is removed");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The threads' measurement knobs (`TRANSPO_C4_ALONE`, `TRANSPO_C4_SPLIT_EMPTY`) are refused
/// out of range or unreadable, naming the variable; in range they change how the threads
/// share work, never the score (compared with the default rule on the same position).
#[test]
fn measurement_knobs_out_of_range_are_refused() {
    for (name, value) in [
        ("TRANSPO_C4_ALONE", "0"),
        ("TRANSPO_C4_ALONE", "8"),
        ("TRANSPO_C4_ALONE", "three"),
        ("TRANSPO_C4_SPLIT_EMPTY", "65"),
        ("TRANSPO_C4_SPLIT_EMPTY", "-1"),
    ] {
        let out = Run::new(BIN).env(name, value).input("4\n").output();
        let stderr = out.stderr_text();
        assert_eq!(out.code(), Some(2), "{name}={value}: {stderr}");
        assert!(stderr.contains(name), "{name}={value}: {stderr}");
        assert!(
            out.stdout_text().is_empty(),
            "{name}={value}: solved anyway"
        );
    }
    let solve = |knobs: &[(&str, &str)]| {
        let mut run = Run::new(BIN)
            .args(["--board", "6x5", "--weak", "--threads", "4"])
            .input("-\n");
        for (name, value) in knobs {
            run = run.env(name, value);
        }
        let out = run.output();
        assert_eq!(out.code(), Some(0), "{knobs:?}: {}", out.stderr_text());
        let stdout = out.stdout_text();
        stdout.split_whitespace().nth(1).map(str::to_owned)
    };
    let default = solve(&[]);
    assert!(default.is_some());
    for alone in ["1", "2", "7"] {
        let knobs = [("TRANSPO_C4_ALONE", alone), ("TRANSPO_C4_SPLIT_EMPTY", "8")];
        assert_eq!(solve(&knobs), default, "{knobs:?}");
    }
}
