//! One solve spread over shards (`transpo-c4 split`, `solve-list`, `merge`), run as a user
//! runs it: through the binary, in a scratch directory. The merged root and book must equal
//! one solve's; a shard killed mid-run and started again must finish what it began; a
//! missing, corrupt, foreign or unfinished shard must stop the merge with its name.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};
use transpo_connect4::Strength;
use transpo_connect4::book::Book;
use transpo_connect4::position::Position;
use transpo_connect4::solver::Solver;

const BIN: &str = env!("CARGO_BIN_EXE_transpo-c4");

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("transpo-c4-split-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn c4(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("transpo-c4 runs")
}

fn ok(args: &[&str]) -> String {
    let out = c4(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?} failed: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The merge's error, which must fail with exit status `code`: 3 when another round of
/// solve-list is needed (a shard missing or unfinished), 2 for bad input. The message is on
/// stderr as `error: …`.
fn merge_error(dir: &Path, code: i32) -> String {
    let out = c4(&["merge", &dir.display().to_string()]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr
}

/// Splits `board` at `depth` into `dir` and solves its `shards` shards, each with `flags`.
fn split_and_solve(dir: &Path, board: &str, depth: u32, shards: usize, flags: &[&str]) {
    let d = dir.display().to_string();
    let depth = depth.to_string();
    ok(&["split", "--board", board, "--depth", &depth, "--out", &d]);
    for i in 1..=shards {
        let shard = format!("{i}/{shards}");
        let mut args = vec!["solve-list", &d, "--shard", &shard, "--threads", "1"];
        args.extend_from_slice(flags);
        ok(&args);
    }
}

#[test]
fn three_shards_give_the_root_and_book_of_one_solve() {
    let dir = scratch("same");
    split_and_solve(&dir, "6x5", 4, 3, &[]);
    let d = dir.display().to_string();
    let line = ok(&["merge", &d]);
    let fields: Vec<&str> = line.split_whitespace().collect();
    // 6×5 is a draw (Tromp); the merge's root line is `- score nodes micros`.
    assert_eq!(fields[..2], ["-", "0"], "{line}");
    let mut solver = Solver::<6, 5>::new(16).expect("16 MiB");
    let root = Position::<6, 5>::new();
    let merged = Book::<6, 5>::load(&dir.join("book.bin")).expect("the merged book");
    let book = Book::generate(
        &root,
        4,
        |pos| solver.solve(pos, Strength::Strong),
        |_, _| {},
    )
    .expect("a small book");
    assert_eq!(merged, book);
    assert_eq!(
        merged.get(&root),
        Some(solver.solve(&root, Strength::Strong))
    );
    // solve-list and merge take the board from the list; another one is refused.
    let out = c4(&["merge", &d, "--board", "7x6"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a 6x5 split"));
    // Splitting again into the same directory is fine; another split there is not.
    ok(&["split", "--board", "6x5", "--depth", "4", "--out", &d]);
    let out = c4(&["split", "--board", "6x5", "--depth", "3", "--out", &d]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds another split"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_killed_shard_goes_on_where_it_stopped() {
    let dir = scratch("killed");
    let d = dir.display().to_string();
    ok(&["split", "--board", "6x5", "--depth", "5", "--out", &d]);
    let results = dir.join("results-1-of-2.txt");
    let mut child = Command::new(BIN)
        .args(["solve-list", &d, "--shard", "1/2", "--threads", "1"])
        .spawn()
        .expect("transpo-c4 starts");
    // Kill it once it has written some lines, long before it is done.
    let lines = || std::fs::read_to_string(&results).map_or(0, |t| t.lines().count());
    let start = Instant::now();
    while lines() < 20 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("kill");
    child.wait().expect("wait");
    let before = lines();
    let total = std::fs::read_to_string(dir.join("positions.txt"))
        .expect("list")
        .lines()
        .count()
        - 1;
    assert!(
        before > 1 && before - 1 < total.div_ceil(2),
        "{before} lines of {total}"
    );
    // A line cut off mid-write, as a kill at the wrong moment leaves it.
    let mut text = std::fs::read_to_string(&results).expect("results");
    text.push_str("4444 1 12");
    std::fs::write(&results, &text).expect("write");
    let out = c4(&["solve-list", &d, "--shard", "1/2", "--threads", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.contains("cut off"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{} before", before - 1)),
        "{stderr}"
    );
    ok(&["solve-list", &d, "--shard", "2/2", "--threads", "1"]);
    // Every position once, and the merge agrees with one solve (6×5: a draw).
    let solved = std::fs::read_to_string(&results).expect("results");
    let mut moves: Vec<&str> = solved
        .lines()
        .skip(1)
        .map(|l| l.split(' ').next().unwrap_or(""))
        .collect();
    let n = moves.len();
    moves.dedup();
    assert_eq!(moves.len(), n, "a position solved twice");
    assert!(ok(&["merge", &d]).starts_with("- 0 "));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_shards_stop_the_merge_with_their_name() {
    let dir = scratch("bad");
    split_and_solve(&dir, "5x5", 3, 3, &[]);
    let file = |i: usize| dir.join(format!("results-{i}-of-3.txt"));
    let original = std::fs::read_to_string(file(2)).expect("shard 2");
    // Missing.
    std::fs::remove_file(file(2)).expect("remove");
    assert!(merge_error(&dir, 3).contains("shard 2/3: no results file"));
    // A score changed by hand: its line's check fails.
    let mut lines: Vec<String> = original.lines().map(str::to_string).collect();
    let fields: Vec<&str> = lines[3].split(' ').collect();
    let changed = format!(
        "{} {} {}",
        fields[0],
        fields[1].parse::<i32>().unwrap_or(0) + 1,
        fields[2..].join(" ")
    );
    lines[3] = changed;
    std::fs::write(file(2), lines.join("\n") + "\n").expect("write");
    let e = merge_error(&dir, 2);
    assert!(e.contains("results-2-of-3.txt: line 4: corrupt"), "{e}");
    // Unfinished: its last lines gone.
    let kept: Vec<&str> = original.lines().take(5).collect();
    std::fs::write(file(2), kept.join("\n") + "\n").expect("write");
    let e = merge_error(&dir, 3);
    assert!(e.contains("shard 2/3") && e.contains("incomplete"), "{e}");
    // Another split's results.
    let other = scratch("other");
    split_and_solve(&other, "5x5", 2, 3, &[]);
    std::fs::copy(other.join("results-2-of-3.txt"), file(2)).expect("copy");
    let e = merge_error(&dir, 2);
    assert!(
        e.contains("results-2-of-3.txt") && e.contains("not for this list"),
        "{e}"
    );
    // Given twice; and whole again, it merges (5×5 is a draw).
    std::fs::write(file(2), &original).expect("write");
    let d = dir.display().to_string();
    let twice = c4(&[
        "merge",
        &d,
        &file(1).display().to_string(),
        &file(1).display().to_string(),
    ]);
    assert!(String::from_utf8_lossy(&twice.stderr).contains("shard 1/3 again"));
    assert!(ok(&["merge", &d]).starts_with("- 0 "));
    // A damaged list is refused by every step.
    let list = dir.join("positions.txt");
    let text = std::fs::read_to_string(&list).expect("list");
    std::fs::write(&list, text.replacen("\n1", "\n2", 1)).expect("write");
    assert!(merge_error(&dir, 2).contains("checksum mismatch"));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&other);
}

/// A depth whose tree no machine could hold is refused after a bounded walk, for a split and
/// for a book, instead of taking memory without end.
#[test]
fn an_impossible_depth_is_a_clear_error() {
    let dir = scratch("huge");
    let d = dir.display().to_string();
    for args in [
        [
            "split",
            "--board",
            "12x4",
            "--depth",
            "40",
            "--out",
            d.as_str(),
        ],
        [
            "book",
            "--board",
            "12x4",
            "--depth",
            "40",
            "--out",
            &format!("{d}/b.book"),
        ],
    ] {
        let out = c4(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("choose a smaller depth"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Weak shards give the root's weak score (the outcome) and no book; weak and strong results
/// do not mix, in a shard or in a merge.
#[test]
fn weak_shards_give_the_outcome() {
    let dir = scratch("weak");
    let d = dir.display().to_string();
    // 6×4: the second player wins (Tromp).
    split_and_solve(&dir, "6x4", 3, 2, &["--weak"]);
    let out = c4(&["merge", &d]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("- -1 "));
    assert!(
        stderr.contains("second player wins") && stderr.contains("no book"),
        "{stderr}"
    );
    assert!(!dir.join("book.bin").exists());
    // A weak shard run again strongly is refused; a strong shard beside weak ones too.
    let again = c4(&["solve-list", &d, "--shard", "1/2", "--threads", "1"]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("--weak"));
    std::fs::remove_file(dir.join("results-2-of-2.txt")).expect("remove");
    ok(&["solve-list", &d, "--shard", "2/2", "--threads", "1"]);
    assert!(merge_error(&dir, 2).contains("the other way"));
    let _ = std::fs::remove_dir_all(&dir);
}
