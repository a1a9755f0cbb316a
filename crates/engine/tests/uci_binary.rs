//! Drives the `transpo-chess` binary through stdin/stdout and its `perft` subcommand.

use std::process::Stdio;

use transpo_testkit::{Output, Run};

mod common;

/// Runs the binary with `args`, within the testkit's default deadline.
fn chess(args: &[&str]) -> Output {
    Run::new(env!("CARGO_BIN_EXE_transpo-chess"))
        .args(args)
        .output()
}

/// Feeds `input` to the UCI loop, asserts that it ends well and returns its stdout.
fn run_uci(input: &str) -> String {
    let output = Run::new(env!("CARGO_BIN_EXE_transpo-chess"))
        .input(input)
        .output();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn d_prints_board_fen_and_key() {
    let out = run_uci("uci\nisready\nposition startpos moves e2e4 d7d5\nd\nquit\n");
    assert!(out.contains("uciok\n"), "{out}");
    assert!(out.contains("readyok\n"), "{out}");
    assert!(
        out.contains("Fen: rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2\n"),
        "{out}"
    );
    // ANCHORS.md §3: after e2e4 d7d5.
    assert!(out.contains("Key: 0756b94461c50fb0\n"), "{out}");
    assert!(
        out.contains(" | r | n | b | q | k | b | n | r | 8"),
        "{out}"
    );
}

#[test]
fn malformed_lines_are_answered_and_the_loop_goes_on() {
    let out = run_uci(
        "hello world\nposition fen 8/8/8/8/8/8/8/8 w - - 0 1\nposition startpos moves e2e4 e7e9\n\
         position fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1\nd\n",
    );
    let errors: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info string error: "))
        .collect();
    assert_eq!(errors.len(), 3, "{out}");
    assert!(errors[0].contains("unknown command \"hello\""), "{out}");
    assert!(errors[1].contains("white has no king"), "{out}");
    assert!(errors[2].contains("\"e9\" is not a square"), "{out}");
    // The loop kept going (and ended at end of input without `quit`).
    assert!(out.contains("Fen: 4k3/8/8/8/8/8/8/4K3 w - - 0 1"), "{out}");
}

#[test]
fn perft_subcommand_divides_like_stockfish() {
    let out = common::chess_stdout(["perft", "3"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 22, "{out}");
    assert!(lines.contains(&"e2e4: 600"), "{out}");
    assert_eq!(lines[20], "");
    assert_eq!(lines[21], "Nodes searched: 8902");

    // An unquoted FEN after the depth (Kiwipete, CPW: 2039 at depth 2).
    let out = common::chess_stdout(
        "perft 2 r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1".split(' '),
    );
    assert!(out.ends_with("\nNodes searched: 2039\n"), "{out}");
    assert!(out.contains("e1g1: "), "{out}");

    let output = chess(&["perft", "2", "not a fen"]);
    assert!(!output.status.success());
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(err.contains("error: invalid FEN: 3 fields"), "{err}");
}

/// Issue 14: `perft 1000000` overflowed the stack, and an impossible FEN made `analyse` and
/// `perft` panic (exit code 101). Out-of-range numbers are clap errors (code 2) naming the
/// range; impossible positions are bad input (code 2 too, since issue 32; it was 1).
#[test]
fn subcommands_check_their_arguments() {
    for args in [
        &["perft", "1000000"][..],
        &["bench-perft", "1000000"],
        &["bench", "101"],
        &["bench", "1", "--threads", "1000000"],
        &["analyse", "--depth", "0"],
        &["analyse", "--hash", "99999999"],
    ] {
        let out = chess(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = out.stderr_text();
        assert!(err.contains("is not in"), "{args:?}: {err}");
    }
    for command in ["perft 2", "analyse --depth 3", "bench-perft 2"] {
        let mut args: Vec<&str> = command.split(' ').collect();
        args.extend("8/8/8/8/8/8/8/Kk6 w - - 0 1".split(' '));
        let out = chess(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = out.stderr_text();
        assert!(err.contains("side by side"), "{args:?}: {err}");
    }
    let help = String::from_utf8(chess(&["perft", "--help"]).stdout).unwrap();
    assert!(help.contains("0 to 12"), "{help}");
}

/// Issue 32: one exit convention for the project's binaries, stated in `--help`: bad usage
/// or bad input is 2 and a failure while running is 1, each with `error: ...` on stderr.
/// (An unknown feature was 1; output that could not be written made `analyse` panic, 101.)
#[test]
fn exit_status_follows_the_projects_convention() {
    let run = |args: &[&str], stdout: Stdio| {
        Run::new(env!("CARGO_BIN_EXE_transpo-chess"))
            .args(args)
            .stdout(stdout)
            .output()
    };
    let help = String::from_utf8(run(&["--help"], Stdio::piped()).stdout).unwrap();
    assert!(help.contains("Exit status:\n  0  success\n  1  "), "{help}");
    assert!(help.contains("\n  2  bad usage or bad input"), "{help}");
    for args in [
        &["bench", "1", "--without", "nonsense"][..],
        &["selfplay", "--a-without", "nonsense"],
    ] {
        let out = run(args, Stdio::piped());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = out.stderr_text();
        assert!(err.starts_with("error: unknown feature"), "{args:?}: {err}");
    }
    // A full disk under stdout: a failure while running.
    if std::path::Path::new("/dev/full").exists() {
        for args in [
            &["perft", "2"][..],
            &["analyse", "--depth", "2"],
            &["bench-perft", "1"],
        ] {
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap();
            let out = run(args, Stdio::from(full));
            assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
            let err = out.stderr_text();
            assert!(err.starts_with("error: "), "{args:?}: {err}");
        }
    }
}
