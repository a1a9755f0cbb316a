//! Files, pipes and endless input as a hostile user gives them, through the binary:
//! nothing hangs, floods memory, ends a run early or destroys a file a user keeps. Every
//! child is killed if it runs past a deadline, so a hang fails the test instead of CI.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use transpo_connect4::book::Book;
use transpo_testkit::{Run, finish, mkfifo, scratch};

const BIN: &str = env!("CARGO_BIN_EXE_transpo-c4");

/// The scratch directories' prefix.
const PREFIX: &str = "transpo-c4-hostile";

/// How long a child may run before it counts as hung.
const DEADLINE: Duration = Duration::from_secs(20);

fn s(path: &Path) -> String {
    path.display().to_string()
}

/// Item 2: `--book` naming a FIFO waited forever for a writer; it is refused at once.
#[test]
fn a_fifo_book_is_refused_at_once() {
    let dir = scratch(PREFIX, "fifo-book");
    let fifo = dir.join("book");
    mkfifo(&fifo);
    let out = Run::new(BIN)
        .args(["--board", "4x4", "--book", &s(&fifo)])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    out.assert_refused("FIFO");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 3: `transpo-c4 < /dev/zero` (one endless line) aborted on a failed allocation; a
/// device on standard input is refused, as a device named on the command line is.
#[test]
fn an_endless_device_on_stdin_is_refused() {
    let zero = std::fs::File::open("/dev/zero").expect("/dev/zero");
    let out = Run::new(BIN)
        .args(["--board", "4x4", "--hash-mib", "4"])
        .stdin(Stdio::from(zero))
        .deadline(DEADLINE)
        .output();
    out.assert_refused("a device");
    // /dev/null is a device too, and an empty input: no lines, nothing wrong.
    let out = Run::new(BIN)
        .args(["--board", "4x4", "--hash-mib", "4"])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr_text());
}

/// The largest resident memory the process `pid` has had, in KiB (Linux), or `None`.
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Item 3: a 64 MiB line on a pipe is reported as too long, counted as rejected, and the next
/// line is solved; the process never holds the line (it used to grow a buffer for it, and
/// for an endless line until memory ran out).
#[test]
fn a_huge_stdin_line_is_rejected_in_bounded_memory() {
    let mut running = Run::new(BIN)
        .args(["--board", "4x4", "--hash-mib", "4", "--threads", "1"])
        .stdin(Stdio::piped())
        .deadline(DEADLINE)
        .spawn();
    let pid = running.child.id();
    let mut stdin = running.child.stdin.take().expect("piped");
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'1'; 1 << 20];
        for _ in 0..64 {
            if stdin.write_all(&chunk).is_err() {
                return;
            }
        }
        let _ = stdin.write_all(b"\n11\n");
        let _ = stdin.flush();
        // Keep standard input open until the test has measured the process.
        let _ = done_rx.recv_timeout(DEADLINE);
    });
    let stdout = running.child.stdout.take().expect("piped");
    let (line_tx, line_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut first = String::new();
        let _ = BufReader::new(stdout).read_line(&mut first);
        let _ = line_tx.send(first);
    });
    let first = line_rx.recv_timeout(DEADLINE);
    let peak = peak_kib(pid);
    let _ = done_tx.send(());
    writer.join().expect("writer");
    let out = finish(running);
    let first = first.expect("the line after the long one is solved");
    assert!(first.starts_with("11 0 "), "{first}");
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr_text());
    assert!(
        out.stderr_text()
            .contains("line 1: line too long (over 4096 bytes)"),
        "{}",
        out.stderr_text()
    );
    if let Some(peak) = peak {
        assert!(peak < 48 * 1024, "peak resident memory {peak} KiB");
    }
}

/// Item 4: a line that is not UTF-8 ended the run; it is one rejected line.
#[test]
fn a_line_not_utf8_is_rejected_and_the_run_goes_on() {
    let out = Run::new(BIN)
        .args(["--board", "4x4", "--hash-mib", "4", "--threads", "1"])
        .input(b"1\n\xff\xfe\n11\n")
        .deadline(DEADLINE)
        .output();
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr_text());
    let lines: Vec<String> = out.stdout_text().lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("1 0 ") && lines[1].starts_with("11 0 "));
    assert_eq!(
        out.stderr_text().trim(),
        "line 2: not UTF-8\nerror: 1 of 3 lines rejected, 0 scored other than expected"
    );
}

/// Items 3 and 4 for `bench`: a bad line lost the whole file; now each is named
/// `FILE:N: reason` and the rest of the set is solved. A device is refused at once.
#[test]
fn bench_names_bad_lines_and_solves_the_rest() {
    let dir = scratch(PREFIX, "bench");
    let set = dir.join("set.txt");
    let mut bytes = b"1 0\n\xff\xfe 0\n".to_vec();
    bytes.extend_from_slice(&[b'1'; 5000]);
    bytes.extend_from_slice(b"\n11 0\n");
    std::fs::write(&set, &bytes).expect("write");
    let args = ["bench", &s(&set), "--board", "4x4", "--hash-mib", "4"];
    let out = Run::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    let err = out.stderr_text();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("{}:2: not UTF-8", s(&set))), "{err}");
    assert!(
        err.contains(&format!("{}:3: line too long (over 4096 bytes)", s(&set))),
        "{err}"
    );
    assert!(
        out.stdout_text().contains("| set.txt | 2 | 2 |"),
        "{}",
        out.stdout_text()
    );
    // The same set through a pipe (no length known beforehand), named as /dev/stdin.
    let out = Run::new(BIN)
        .args(["bench", "/dev/stdin", "--board", "4x4", "--hash-mib", "4"])
        .input(bytes.as_slice())
        .deadline(DEADLINE)
        .output();
    assert!(
        out.stdout_text().contains("| stdin | 2 | 2 |"),
        "{}",
        out.stderr_text()
    );
    assert!(
        out.stderr_text().contains("/dev/stdin:3: line too long"),
        "{}",
        out.stderr_text()
    );
    let out = Run::new(BIN)
        .args(["bench", "/dev/zero", "--board", "4x4"])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    out.assert_refused("/dev/zero: a device");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 4×4 split of the positions with 2 stones in `dir`, every leaf solved in round 1
/// (`--full-book`) in `shards` shards (none: only split).
fn solved_split(dir: &Path, shards: usize) {
    let d = s(dir);
    let out = Run::new(BIN)
        .args([
            "split",
            "--board",
            "4x4",
            "--depth",
            "2",
            "--full-book",
            "--out",
            &d,
        ])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    assert!(out.status.success(), "{}", out.stderr_text());
    for i in 1..=shards {
        let shard = format!("{i}/{shards}");
        let args = ["solve-list", &d, "--shard", &shard, "--threads", "1"];
        let out = Run::new(BIN)
            .args([&args[..], &["--hash-mib", "4"]].concat())
            .stdin(Stdio::null())
            .deadline(DEADLINE)
            .output();
        assert!(out.status.success(), "{}", out.stderr_text());
    }
}

/// Item 3: `merge DIR /dev/zero` read until memory ran out; a device is refused. A FIFO as
/// the split's list, or as a shard's results file, is refused at once (they hung).
#[test]
fn merge_and_solve_list_refuse_devices_and_fifos() {
    let dir = scratch(PREFIX, "merge-devices");
    // Split only: a solved run would have solve-list do nothing, whatever its results file.
    solved_split(&dir, 0);
    let d = s(&dir);
    let out = Run::new(BIN)
        .args(["merge", &d, "/dev/zero"])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    out.assert_refused("/dev/zero: a device");
    // A shard's results file that is a FIFO.
    let results = dir.join("round-1-results-1-of-2.txt");
    mkfifo(&results);
    let out = Run::new(BIN)
        .args(["solve-list", &d, "--shard", "1/2", "--hash-mib", "4"])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    out.assert_refused("FIFO");
    // The list itself a FIFO: every command that reads it, and split writing it.
    let list = dir.join("positions.txt");
    std::fs::remove_file(&list).expect("remove");
    mkfifo(&list);
    for args in [
        vec!["merge", d.as_str()],
        vec!["solve-list", d.as_str(), "--hash-mib", "4"],
        vec![
            "split",
            "--board",
            "4x4",
            "--depth",
            "2",
            "--out",
            d.as_str(),
        ],
    ] {
        let out = Run::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .deadline(DEADLINE)
            .output();
        out.assert_refused_with(&args, "FIFO");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 5: a book written where the old one was is complete or absent: a write that fails
/// (here the file size limit, as a full disk) leaves the old book whole, where it used to
/// leave it cut; and a link at the book's name is replaced, not written through.
#[test]
fn a_book_is_replaced_whole_or_not_at_all() {
    let dir = scratch(PREFIX, "atomic-book");
    let book = dir.join("b.book");
    let b = s(&book);
    let out = Run::new(BIN)
        .args(["book", "--board", "4x4", "--depth", "2", "--out", &b])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    assert!(out.status.success(), "{}", out.stderr_text());
    let old = Book::<4, 4>::load(&book).expect("the old book");
    // Depth 6 is 8 KiB, past a 2 KiB limit (`ulimit -f` counts 512- or 1024-byte blocks).
    let out = Run::new("sh")
        .args(["-c", "ulimit -f 2 && exec \"$0\" \"$@\"", BIN])
        .args(["book", "--board", "4x4", "--depth", "6", "--out", &b])
        .args(["--hash-mib", "4", "--threads", "1"])
        .deadline(DEADLINE)
        .output();
    assert!(!out.status.success(), "the limit should have stopped it");
    assert_eq!(
        Book::<4, 4>::load(&book).expect("the old book, whole"),
        old,
        "{}",
        out.stderr_text()
    );
    // A link at the book's name: the file it points to is left alone.
    let victim = dir.join("victim");
    std::fs::write(&victim, "keep me").expect("write");
    let link = dir.join("linked.book");
    std::os::unix::fs::symlink(&victim, &link).expect("symlink");
    let out = Run::new(BIN)
        .args(["book", "--board", "4x4", "--depth", "2", "--out", &s(&link)])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    assert!(out.status.success(), "{}", out.stderr_text());
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "keep me");
    assert_eq!(Book::<4, 4>::load(&link).expect("the new book"), old);
    // The same for merge's book and split's list.
    let split = dir.join("split");
    solved_split(&split, 1);
    let link = split.join("book.bin");
    std::os::unix::fs::symlink(&victim, &link).expect("symlink");
    let out = Run::new(BIN)
        .args(["merge", &s(&split)])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    assert!(out.status.success(), "{}", out.stderr_text());
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "keep me");
    let fresh = dir.join("fresh");
    std::fs::create_dir_all(&fresh).expect("dir");
    std::os::unix::fs::symlink(dir.join("absent"), fresh.join("positions.txt")).expect("link");
    let out = Run::new(BIN)
        .args([
            "split",
            "--board",
            "4x4",
            "--depth",
            "2",
            "--out",
            &s(&fresh),
        ])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    assert!(out.status.success(), "{}", out.stderr_text());
    assert!(!dir.join("absent").exists(), "split wrote through a link");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The header and the `moves score` of each line of a results text (times and counts vary
/// from run to run).
fn scores(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            if l.starts_with('#') {
                l.to_owned()
            } else {
                l.split(' ').take(2).collect::<Vec<_>>().join(" ")
            }
        })
        .collect()
}

/// Item 6: a second `solve-list` of a shard whose results file another holds (its lock; the
/// test takes it, as a running solve-list would) is refused with a clear message and leaves
/// the file as it was, under any path to the directory (a symbolic link to it, `./`: the
/// lock is the file's, not its name's); once the lock is gone the shard finishes.
#[test]
fn a_second_solve_list_of_a_shard_is_refused() {
    let dir = scratch(PREFIX, "lock");
    solved_split(&dir, 1);
    let d = s(&dir);
    let results = dir.join("round-1-results-1-of-1.txt");
    // Take the last lines off, so that there is work left.
    let text = std::fs::read_to_string(&results).expect("results");
    let lines: Vec<&str> = text.lines().collect();
    let partial = lines[..lines.len() - 2].join("\n") + "\n";
    std::fs::write(&results, &partial).expect("write");
    let held = std::fs::File::open(&results).expect("open");
    held.try_lock().expect("the lock is free");
    let args = ["solve-list", &d, "--threads", "1", "--hash-mib", "4"];
    let out = Run::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr_text());
    assert!(
        out.stderr_text().contains(&format!(
            "{}: another solve-list holds it (lock); not started",
            s(&results)
        )),
        "{}",
        out.stderr_text()
    );
    assert_eq!(std::fs::read_to_string(&results).expect("results"), partial);
    let link = std::path::PathBuf::from(format!("{d}-link"));
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&dir, &link).expect("a link to the directory");
    for other in [s(&link), format!("{d}/.")] {
        let out = Run::new(BIN)
            .args(["solve-list", &other, "--threads", "1", "--hash-mib", "4"])
            .stdin(Stdio::null())
            .deadline(DEADLINE)
            .output();
        assert_eq!(out.status.code(), Some(2), "{other}: {}", out.stderr_text());
        assert!(
            out.stderr_text()
                .contains("another solve-list holds it (lock); not started"),
            "{other}: {}",
            out.stderr_text()
        );
    }
    let _ = std::fs::remove_file(&link);
    assert_eq!(std::fs::read_to_string(&results).expect("results"), partial);
    drop(held);
    let out = Run::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    assert!(out.status.success(), "{}", out.stderr_text());
    let now = std::fs::read_to_string(&results).expect("results");
    assert_eq!(scores(&now), scores(&text));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 7: a results file that is empty, or holds its header without the newline (a shard
/// killed while it started), is started over; it used to stop every later run. A complete
/// header of another solve is still an error, and the file is left alone.
#[test]
fn a_shard_killed_before_its_header_was_whole_starts_over() {
    let dir = scratch(PREFIX, "header");
    solved_split(&dir, 1);
    let d = s(&dir);
    let results = dir.join("round-1-results-1-of-1.txt");
    let whole = std::fs::read_to_string(&results).expect("results");
    let header_end = whole.find('\n').expect("a header");
    let args = ["solve-list", &d, "--threads", "1", "--hash-mib", "4"];
    for start in ["", &whole[..header_end], &whole[..10], "\0\0\0\0"] {
        std::fs::write(&results, start).expect("write");
        let out = Run::new(BIN)
            .args(args)
            .stdin(Stdio::null())
            .deadline(DEADLINE)
            .output();
        assert!(out.status.success(), "{start:?}: {}", out.stderr_text());
        let now = std::fs::read_to_string(&results).expect("results");
        assert_eq!(scores(&now), scores(&whole), "{start:?}");
        assert!(now.ends_with('\n'));
    }
    let foreign = whole[..header_end].replace("list ", "list f") + "\n";
    std::fs::write(&results, &foreign).expect("write");
    let out = Run::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    out.assert_refused("is not for this list");
    assert_eq!(std::fs::read_to_string(&results).expect("same"), foreign);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Beyond the list: a link at a shard's results name is refused, so results (and the cut a
/// restart makes) never land in the file it points to.
#[test]
fn a_link_as_results_file_is_refused() {
    let dir = scratch(PREFIX, "results-link");
    // Split only: a solved run would have solve-list do nothing, whatever its results file.
    solved_split(&dir, 0);
    let victim = dir.join("victim");
    let results = dir.join("round-1-results-1-of-2.txt");
    std::os::unix::fs::symlink(&victim, &results).expect("symlink");
    let out = Run::new(BIN)
        .args(["solve-list", &s(&dir), "--shard", "1/2", "--hash-mib", "4"])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    out.assert_refused("symbolic link");
    assert!(!victim.exists(), "solve-list wrote through a link");
    let _ = std::fs::remove_dir_all(&dir);
}

/// FNV-1a, 64-bit, as results lines' checks use it.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Item 8: a results line with score −2147483648 and a valid check was merged (`abs()`
/// wrapped) and the book stored 0; every field is range-checked now.
#[test]
fn merge_refuses_a_score_out_of_range() {
    let dir = scratch(PREFIX, "score");
    solved_split(&dir, 1);
    let results = dir.join("round-1-results-1-of-1.txt");
    let text = std::fs::read_to_string(&results).expect("results");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let moves = lines[1].split(' ').next().expect("moves").to_owned();
    for score in [i32::MIN, 17, -17] {
        let check = fnv1a(format!("{moves} {score}..{score}").as_bytes()) as u32;
        lines[1] = format!("{moves} {score}..{score} 1 1 {check:08x}");
        std::fs::write(&results, lines.join("\n") + "\n").expect("write");
        let out = Run::new(BIN)
            .args(["merge", &s(&dir)])
            .stdin(Stdio::null())
            .deadline(DEADLINE)
            .output();
        assert_eq!(out.status.code(), Some(2), "{score}: {}", out.stderr_text());
        assert!(
            out.stderr_text().contains("line 2: corrupt: scores")
                && out.stderr_text().contains("out of range"),
            "{score}: {}",
            out.stderr_text()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 9: a depth below the root's stones gave an empty split or book with status 0; it is
/// an error naming both. A depth equal to them makes the root the one leaf.
#[test]
fn a_depth_below_the_root_is_an_error() {
    let dir = scratch(PREFIX, "depth");
    let d = s(&dir);
    let book = s(&dir.join("b.book"));
    for out_args in [["split", "--out", &d], ["book", "--out", &book]] {
        let args = [
            &out_args[..],
            &["--board", "4x4", "--from", "1234", "--depth", "2"],
        ]
        .concat();
        let out = Run::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .deadline(DEADLINE)
            .output();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            out.stderr_text()
        );
        let err = out.stderr_text();
        assert!(err.contains("depth 2") && err.contains("4 stones"), "{err}");
    }
    assert!(!dir.join("positions.txt").exists() && !dir.join("b.book").exists());
    let out = Run::new(BIN)
        .args([
            "split", "--board", "4x4", "--from", "1234", "--depth", "4", "--out", &d,
        ])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    assert!(out.status.success(), "{}", out.stderr_text());
    let list = std::fs::read_to_string(dir.join("positions.txt")).expect("list");
    assert_eq!(list.lines().skip(1).collect::<Vec<_>>(), ["1234"]);
    let out = Run::new(BIN)
        .args([
            "book", "--board", "4x4", "--from", "1234", "--depth", "4", "--out", &book,
        ])
        .stdin(Stdio::null())
        .deadline(DEADLINE)
        .output();
    assert!(out.status.success(), "{}", out.stderr_text());
    assert_eq!(Book::<4, 4>::load(Path::new(&book)).expect("book").len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
