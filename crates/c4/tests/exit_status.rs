//! The exit convention, one for every binary of the project, through `transpo-c4`: `error: …`
//! on stderr; 0 success; 1 a failed check or a failure while running (I/O, memory); 2 bad
//! usage or bad input; 3 only for `merge` when another round is needed. `--help` states it.
//! (The cases the other tests meet — bad lines, devices, FIFOs, locks, corrupt or missing
//! shards — assert their status where they are.)

use std::io::Write;
use std::process::Stdio;
use transpo_testkit::{Output, Run, finish, scratch};

const BIN: &str = env!("CARGO_BIN_EXE_transpo-c4");

/// The scratch directories' prefix.
const PREFIX: &str = "transpo-c4-exit";

/// The binary run with `args`, within the testkit's deadline.
fn c4(args: &[&str]) -> Output {
    Run::new(BIN).args(args).output()
}

#[test]
fn help_states_the_convention() {
    let out = c4(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for words in [
        "Exit status:",
        "0  success",
        "1  a failed check",
        "2  bad usage or bad input",
        "3  transpo-c4 merge only: another round is needed",
        "error: ...",
    ] {
        assert!(help.contains(words), "{words:?} not in:\n{help}");
    }
}

/// Bad usage: clap's own errors, a table size that is no table, a `--from` that is no
/// position, a book that is not there, a board a split contradicts.
#[test]
fn bad_usage_is_2() {
    for args in [
        &["--no-such-option"][..],
        &["--threads", "0"],
        &["--threads", "1,300"],
        &["--threads", "1,2"],
        &["--threads", "2,", "bench", "/no/such/set"],
        &["--hash-mib", "0"],
        &[
            "book", "--board", "4x4", "--depth", "2", "--from", "9", "--out", "x",
        ],
        &["--book", "/no/such/book"],
        &["merge", "/no/such/split"],
    ] {
        let out = c4(args);
        out.assert_refused_with(args, "error");
        assert!(out.stderr_text().starts_with("error"), "{args:?}");
    }
    let out = c4(&["--hash-mib", "0"]);
    assert!(
        out.stderr_text().starts_with("error: table: "),
        "{}",
        out.stderr_text()
    );
}

/// A failure while running: the output cannot be written (the reader of stdout went away).
#[test]
fn an_output_that_cannot_be_written_is_1() {
    let mut running = Run::new(BIN)
        .args(["--board", "4x4", "--hash-mib", "4", "--threads", "1"])
        .stdin(Stdio::piped())
        .spawn();
    drop(running.child.stdout.take());
    let mut stdin = running.child.stdin.take().expect("piped");
    // Ignored: the child may have ended already.
    let _ = stdin.write_all(b"1\n11\n");
    drop(stdin);
    let out = finish(running);
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr_text());
    assert!(
        out.stderr_text()
            .starts_with("error: standard input or output: "),
        "{}",
        out.stderr_text()
    );
}

/// `merge` of a split no shard has run yet, or whose shard stopped before its header was
/// whole: more work, 3. Once the shard ran, 3 again with the next round's list written (no
/// `error:`: it is none), until the root is solved: 0.
#[test]
fn a_merge_that_needs_another_round_is_3() {
    let dir = scratch(PREFIX, "round");
    let d = dir.display().to_string();
    let ok = |args: &[&str]| {
        let out = c4(args);
        assert!(out.status.success(), "{args:?}: {}", out.stderr_text());
    };
    ok(&["split", "--board", "4x4", "--depth", "2", "--out", &d]);
    let out = c4(&["merge", &d]);
    assert_eq!(out.status.code(), Some(3), "{}", out.stderr_text());
    assert_eq!(out.stderr_text(), "error: round 1: no results files\n");
    std::fs::write(
        dir.join("round-1-results-1-of-1.txt"),
        "# transpo-c4 solve-list",
    )
    .expect("write");
    let out = c4(&["merge", &d]);
    assert_eq!(out.status.code(), Some(3), "{}", out.stderr_text());
    assert!(
        out.stderr_text().contains("no complete header"),
        "{}",
        out.stderr_text()
    );
    for round in 2.. {
        ok(&["solve-list", &d, "--threads", "1", "--hash-mib", "4"]);
        let out = c4(&["merge", &d]);
        if out.status.success() {
            break;
        }
        assert_eq!(out.status.code(), Some(3), "{}", out.stderr_text());
        assert!(
            out.stderr_text().starts_with(&format!("round {round}: ")),
            "{}",
            out.stderr_text()
        );
        assert!(round < 20, "too many rounds");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
