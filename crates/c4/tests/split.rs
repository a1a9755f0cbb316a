//! One solve spread over shards in rounds (`transpo-c4 split`, `solve-list`, `merge`), run as
//! a user runs it: through the binary, in a scratch directory, merging while merge exits 3.
//! The root must be one solve's on several boards, strong and weak, and the book's scores
//! true (with `--full-book`, the book of one solve); a shard killed mid-run and started
//! again must finish what it began, in round 1 or later; a shard of a past round, and a
//! missing, corrupt, foreign or unfinished shard must stop the merge with its name.

use std::path::Path;
use std::time::{Duration, Instant};
use transpo_connect4::Strength;
use transpo_connect4::book::{Book, Tree};
use transpo_connect4::position::Bitboard;
use transpo_connect4::position::Position;
use transpo_connect4::solver::Solver;
use transpo_testkit::{Output, Run, finish, scratch};

const BIN: &str = env!("CARGO_BIN_EXE_transpo-c4");

/// The scratch directories' prefix.
const PREFIX: &str = "transpo-c4-split";

/// The binary run with `args`, within the testkit's deadline.
fn c4(args: &[&str]) -> Output {
    Run::new(BIN).args(args).output()
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

/// Splits `board` at `depth` into `dir` with `split_flags` and solves round 1's `shards`
/// shards, each with `flags`.
fn split_and_solve(dir: &Path, board: &str, depth: u32, shards: usize, split_flags: &[&str]) {
    let d = dir.display().to_string();
    let depth = depth.to_string();
    let mut args = vec!["split", "--board", board, "--depth", &depth, "--out", &d];
    args.extend_from_slice(split_flags);
    ok(&args);
    solve_round(dir, shards);
}

/// Runs `shard` of the current round on one thread and a 16 MiB table (which its table
/// file keeps from round to round).
fn solve_list(dir: &Path, shard: &str) -> Output {
    let d = dir.display().to_string();
    c4(&[
        "solve-list",
        &d,
        "--shard",
        shard,
        "--threads",
        "1",
        "--hash-mib",
        "16",
    ])
}

/// Runs every shard of the current round, one after the other.
fn solve_round(dir: &Path, shards: usize) {
    for i in 1..=shards {
        let out = solve_list(dir, &format!("{i}/{shards}"));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Merges, and while merge says another round is needed (3), solves it in `shards` shards
/// and merges again, as the README's loop does; returns the root's line and the rounds.
fn rounds(dir: &Path, shards: usize) -> (String, usize) {
    let d = dir.display().to_string();
    for round in 1..=30 {
        let out = c4(&["merge", &d]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        match out.status.code() {
            Some(0) => return (String::from_utf8_lossy(&out.stdout).into_owned(), round),
            Some(3) => {
                assert!(
                    stderr.starts_with("round ") && stderr.contains("positions to search"),
                    "{stderr}"
                );
                solve_round(dir, shards);
            }
            other => panic!("merge exited {other:?}: {stderr}"),
        }
    }
    panic!("more than 30 rounds");
}

/// Rounds give the root's score of one solve, strong and weak, on several boards and roots,
/// with a book whose every position has its true score.
#[test]
fn rounds_give_the_root_of_one_solve() {
    fn check<const W: usize, const H: usize, B: Bitboard>(from: &str, depth: u32, shards: usize) {
        let board = format!("{W}x{H}");
        let root = Position::<W, H, B>::from_moves(from).expect("a root");
        let mut solver = Solver::<W, H, B>::new(16).expect("16 MiB");
        for weak in [false, true] {
            let dir = scratch(PREFIX, &format!("rounds-{board}-{from}-{weak}"));
            let d = dir.display().to_string();
            let depth = depth.to_string();
            let mut args = vec!["split", "--board", &board, "--depth", &depth, "--out", &d];
            if !from.is_empty() {
                args.extend_from_slice(&["--from", from]);
            }
            if weak {
                args.push("--weak");
            }
            ok(&args);
            solve_round(&dir, shards);
            let (line, rounds) = rounds(&dir, shards);
            let strength = if weak {
                Strength::Weak
            } else {
                Strength::Strong
            };
            let expected = solver.solve(&root, strength);
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(
                fields[1],
                expected.to_string(),
                "{board} {from:?} weak {weak}: {line} after {rounds} rounds"
            );
            if weak {
                assert!(!dir.join("book.bin").exists());
            } else {
                let book = Book::<W, H, B>::load(&dir.join("book.bin")).expect("the book");
                assert!(book.get(&root).is_some(), "the root is proved");
                let tree = Tree::new(&root, from, depth.parse().expect("depth")).expect("tree");
                for (pos, moves) in tree.positions() {
                    if let Some(score) = book.get(pos) {
                        assert_eq!(score, solver.solve(pos, Strength::Strong), "{moves}");
                    }
                }
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    check::<6, 5, u64>("", 4, 2);
    check::<5, 5, u64>("", 4, 3);
    check::<6, 4, u64>("", 4, 2);
    check::<7, 4, u64>("4", 4, 2);
    check::<5, 6, u64>("33", 5, 2);
    // Wide boards: u128 keys in the lists' positions, the tables and the book. The roots were
    // made by `transpo-c4 sample --board 7x9 --depth 40` and `--board 13x4 --depth 36`.
    check::<7, 9, u128>("4172725614622737534114342365723443664367", 43, 2);
    check::<13, 4, u128>("446d4868354939dbaba3669bb9aad3711155", 39, 2);
}

#[test]
fn full_book_gives_the_root_and_book_of_one_solve() {
    let dir = scratch(PREFIX, "same");
    split_and_solve(&dir, "6x5", 4, 3, &["--full-book"]);
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
    // solve-list and merge take the board from the split; another one is refused.
    let out = c4(&["merge", &d, "--board", "7x6"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a 6x5 split"));
    // Splitting again into the same directory is fine; another split there is not.
    ok(&[
        "split",
        "--board",
        "6x5",
        "--depth",
        "4",
        "--full-book",
        "--out",
        &d,
    ]);
    let out = c4(&["split", "--board", "6x5", "--depth", "3", "--out", &d]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds another split"));
    let out = c4(&["split", "--board", "6x5", "--depth", "4", "--out", &d]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds another split"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_killed_shard_goes_on_where_it_stopped() {
    let dir = scratch(PREFIX, "killed");
    let d = dir.display().to_string();
    ok(&[
        "split",
        "--board",
        "6x5",
        "--depth",
        "5",
        "--full-book",
        "--out",
        &d,
    ]);
    let results = dir.join("round-1-results-1-of-2.txt");
    let mut running = Run::new(BIN)
        .args(["solve-list", &d, "--shard", "1/2", "--threads", "1"])
        .spawn();
    // Kill it once it has written some lines, long before it is done.
    let lines = || std::fs::read_to_string(&results).map_or(0, |t| t.lines().count());
    let start = Instant::now();
    while lines() < 20 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    running.child.kill().expect("kill");
    finish(running);
    let before = lines();
    let total = std::fs::read_to_string(dir.join("round-1.txt"))
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
    text.push_str("4444 1..1 12");
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

/// A shard killed in a later round resumes too, and a results file of a past round under
/// the current round's name is refused by solve-list and merge.
#[test]
fn a_later_round_resumes_and_refuses_a_past_rounds_shard() {
    let dir = scratch(PREFIX, "later");
    let d = dir.display().to_string();
    split_and_solve(&dir, "6x5", 4, 2, &[]);
    let out = c4(&["merge", &d]);
    assert_eq!(out.status.code(), Some(3), "6x5 takes more than one round");
    assert!(dir.join("round-2.txt").exists());
    // Each shard kept its table for the next round; a damaged one is only not loaded.
    assert!(dir.join("table-1-of-2.bin").is_file());
    std::fs::write(dir.join("table-2-of-2.bin"), "not a table").expect("write");
    let out = solve_list(&dir, "2/2");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("table-2-of-2.bin: not loaded"), "{stderr}");
    let out = solve_list(&dir, "1/2");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the table of an earlier round loaded"),
        "{stderr}"
    );
    std::fs::remove_file(dir.join("round-2-results-1-of-2.txt")).expect("remove");
    // A past round's shard where round 2's belongs.
    let past = dir.join("round-1-results-1-of-2.txt");
    let here = dir.join("round-2-results-1-of-2.txt");
    std::fs::copy(&past, &here).expect("copy");
    let out = solve_list(&dir, "1/2");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("results of round 1, not of round 2"),
        "{stderr}"
    );
    // Given to merge by hand, it counts as round 1's shard, given twice.
    let out = c4(&[
        "merge",
        &d,
        &past.display().to_string(),
        &here.display().to_string(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("again"), "{stderr}");
    // Round 2's shard cut short mid-line, then resumed: the rounds still end in the root.
    std::fs::remove_file(&here).expect("remove");
    let out = solve_list(&dir, "1/2");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&here).expect("round 2's results");
    std::fs::write(&here, &text[..text.len() - 3]).expect("cut");
    let out = c4(&["merge", &d]);
    assert_eq!(out.status.code(), Some(3), "a shard lacking is more work");
    let (line, _) = {
        solve_round(&dir, 2);
        rounds(&dir, 2)
    };
    assert!(line.starts_with("- 0 "), "{line}");
    assert!(
        !dir.join("table-1-of-2.bin").exists(),
        "tables removed once solved"
    );
    // Merged again: the same answer, nothing written anew.
    assert_eq!(ok(&["merge", &d]), line);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_shards_stop_the_merge_with_their_name() {
    let dir = scratch(PREFIX, "bad");
    split_and_solve(&dir, "5x5", 3, 3, &["--full-book"]);
    let file = |i: usize| dir.join(format!("round-1-results-{i}-of-3.txt"));
    let original = std::fs::read_to_string(file(2)).expect("shard 2");
    // Missing.
    std::fs::remove_file(file(2)).expect("remove");
    assert!(merge_error(&dir, 3).contains("shard 2/3: no results file"));
    // A score changed by hand: its line's check fails.
    let mut lines: Vec<String> = original.lines().map(str::to_string).collect();
    let fields: Vec<&str> = lines[3].split(' ').collect();
    let (lo, _) = fields[1].split_once("..").expect("a range");
    let lo: i32 = lo.parse().expect("a score");
    let changed = format!(
        "{} {}..{} {}",
        fields[0],
        lo + 1,
        lo + 1,
        fields[2..].join(" ")
    );
    lines[3] = changed;
    std::fs::write(file(2), lines.join("\n") + "\n").expect("write");
    let e = merge_error(&dir, 2);
    assert!(
        e.contains("round-1-results-2-of-3.txt: line 4: corrupt"),
        "{e}"
    );
    // Unfinished: its last lines gone.
    let kept: Vec<&str> = original.lines().take(5).collect();
    std::fs::write(file(2), kept.join("\n") + "\n").expect("write");
    let e = merge_error(&dir, 3);
    assert!(e.contains("shard 2/3") && e.contains("incomplete"), "{e}");
    // Another split's results.
    let other = scratch(PREFIX, "other");
    split_and_solve(&other, "5x5", 2, 3, &["--full-book"]);
    std::fs::copy(other.join("round-1-results-2-of-3.txt"), file(2)).expect("copy");
    let e = merge_error(&dir, 2);
    assert!(
        e.contains("round-1-results-2-of-3.txt") && e.contains("not for this list"),
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
    assert!(String::from_utf8_lossy(&twice.stderr).contains("shard 1/3 of round 1 again"));
    assert!(ok(&["merge", &d]).starts_with("- 0 "));
    // A damaged list is refused by every step, and so is a damaged round.
    let list = dir.join("positions.txt");
    let text = std::fs::read_to_string(&list).expect("list");
    std::fs::write(&list, text.replacen("\n1", "\n2", 1)).expect("write");
    assert!(merge_error(&dir, 2).contains("checksum mismatch"));
    std::fs::write(&list, &text).expect("write");
    let round = dir.join("round-1.txt");
    let listed = std::fs::read_to_string(&round).expect("round 1");
    std::fs::write(&round, listed.replacen(" -", " -1", 1)).expect("write");
    assert!(merge_error(&dir, 2).contains("round-1.txt"));
    // A round's list of v2, whose positions were dealt to shards otherwise, is refused by
    // both steps with what to do.
    std::fs::write(&round, listed.replacen("round-list v3", "round-list v2", 1)).expect("write");
    for args in [vec!["merge", d.as_str()], vec!["solve-list", d.as_str()]] {
        let out = c4(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("earlier version (v2)"), "{stderr}");
    }
    std::fs::write(&round, &listed).expect("write");
    // A split of the format before rounds is refused with what to do.
    std::fs::write(
        &list,
        "# transpo-c4 split v1 board 5x5 depth 3 root - positions 0 checksum 0\n",
    )
    .expect("write");
    for args in [vec!["merge", d.as_str()], vec!["solve-list", d.as_str()]] {
        let out = c4(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("before rounds") && stderr.contains("split again"),
            "{stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&other);
}

/// A depth whose tree no machine could hold is refused after a bounded walk, for a split and
/// for a book, instead of taking memory without end.
#[test]
fn an_impossible_depth_is_a_clear_error() {
    let dir = scratch(PREFIX, "huge");
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

/// A weak split gives the root's weak score (the outcome) and no book; its strength is the
/// split's: `solve-list --weak` on a strong split is refused.
#[test]
fn weak_splits_give_the_outcome() {
    let dir = scratch(PREFIX, "weak");
    let d = dir.display().to_string();
    // 6×4: the second player wins (Tromp).
    split_and_solve(&dir, "6x4", 3, 2, &["--weak"]);
    let (line, _) = rounds(&dir, 2);
    assert!(line.starts_with("- -1 "), "{line}");
    let out = c4(&["merge", &d]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("second player wins") && stderr.contains("no book"),
        "{stderr}"
    );
    assert!(!dir.join("book.bin").exists());
    let strong = scratch(PREFIX, "strong");
    let s = strong.display().to_string();
    ok(&["split", "--board", "6x4", "--depth", "3", "--out", &s]);
    let out = c4(&["solve-list", &s, "--weak", "--threads", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is a strong split"), "{stderr}");
    // --weak and --full-book do not go together.
    let out = c4(&[
        "split",
        "--board",
        "6x4",
        "--depth",
        "3",
        "--weak",
        "--full-book",
        "--out",
        &s,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&strong);
}

/// `book` solves its deepest positions as a `--full-book` split in `OUT.work`, with two
/// solvers taking runs of neighbours: its book is one solver's (`Book::generate`). Stopped
/// midway (the work directory's results cut after some lines, the last one torn, as a kill
/// leaves them) and run again, it solves only what is missing, writes the same book and
/// removes its work; a work directory of another book is refused and left alone.
#[test]
fn a_book_goes_on_from_its_work_directory() {
    let dir = scratch(PREFIX, "book");
    let out = dir.join("d5.book");
    let o = out.display().to_string();
    let work = dir.join("d5.book.work");
    let w = work.display().to_string();
    let book_args = [
        "book",
        "--board",
        "5x4",
        "--depth",
        "5",
        "--out",
        &o,
        "--threads",
        "2",
        "--hash-mib",
        "8",
    ];
    ok(&book_args);
    assert!(!work.exists(), "the work directory is removed");
    let whole = Book::<5, 4>::load(&out).expect("the book");
    let mut solver = Solver::<5, 4>::new(16).expect("16 MiB");
    let one = Book::generate(
        &Position::<5, 4>::new(),
        5,
        |pos| solver.solve(pos, Strength::Strong),
        |_, _| {},
    )
    .expect("a small book");
    assert_eq!(whole, one);
    // A run stopped midway: the same split, some of its results, a torn last line.
    std::fs::remove_file(&out).expect("remove the book");
    ok(&[
        "split",
        "--board",
        "5x4",
        "--depth",
        "5",
        "--full-book",
        "--out",
        &w,
    ]);
    ok(&["solve-list", &w, "--threads", "1", "--hash-mib", "8"]);
    let results = work.join("round-1-results-1-of-1.txt");
    let text = std::fs::read_to_string(&results).expect("results");
    let lines: Vec<&str> = text.lines().collect();
    let kept = 40;
    let torn = &lines[kept + 1][..5];
    std::fs::write(&results, format!("{}\n{torn}", lines[..=kept].join("\n"))).expect("cut");
    std::fs::remove_file(work.join("table-1-of-1.bin")).expect("solve-list's table file");
    let run = c4(&book_args);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains("cut off an unfinished last line"),
        "{stderr}"
    );
    let leaves = lines.len() - 1;
    assert!(
        stderr.contains(&format!(
            "{leaves} positions with 5 stones solved, {} by this run",
            leaves - kept
        )),
        "{stderr}"
    );
    assert_eq!(Book::<5, 4>::load(&out).expect("the book"), one);
    assert!(!work.exists(), "the work directory is removed");
    // The work directory of another book (another depth) is refused, and left as it is.
    ok(&[
        "split",
        "--board",
        "5x4",
        "--depth",
        "4",
        "--full-book",
        "--out",
        &w,
    ]);
    let run = c4(&book_args);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("holds another split"), "{stderr}");
    assert!(work.join("positions.txt").exists());
    // A book holds exact scores: --weak is refused.
    let run = c4(&[&book_args[..], &["--weak"]].concat());
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("book takes no --weak"));
    let _ = std::fs::remove_dir_all(&dir);
}
