//! The loop's own tests: sessions driven line by line, with a test hook that makes a
//! search panic.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::*;

/// A writer the test can read back.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// Every line handled in turn, each command waited for; all output, in order.
fn session_output(lines: &[&str]) -> String {
    let buffer = Buffer::default();
    let mut output = Output::new(buffer.clone());
    let mut session = UciSession::with_output(output.clone());
    for line in lines {
        session.handle_line(line, &mut output).unwrap();
        session.wait_for_search();
    }
    drop(session);
    buffer.text()
}

#[test]
fn a_panicking_search_still_answers_bestmove() {
    let buffer = Buffer::default();
    let mut output = Output::new(buffer.clone());
    let mut session = UciSession::with_output(output.clone());
    session
        .handle_line("position startpos moves e2e4", &mut output)
        .unwrap();
    session.panic_next_search = true;
    session.handle_line("go depth 3", &mut output).unwrap();
    session.wait_for_search();
    let text = buffer.text();
    assert!(
        text.contains("info string error: the search failed (test hook"),
        "{text}"
    );
    let best = text
        .lines()
        .find_map(|line| line.strip_prefix("bestmove "))
        .expect("a bestmove line");
    assert!(session.position().parse_uci_move(best).is_ok(), "{text}");
    // The next search is a normal one.
    session.handle_line("go depth 2", &mut output).unwrap();
    session.wait_for_search();
    assert_eq!(buffer.text().matches("bestmove").count(), 2);
}

#[test]
fn long_commands_are_stopped_by_stop_quit_and_the_end_of_input() {
    let start = std::time::Instant::now();
    let out = session_output_unwaited(&["perft 12", "stop", "go perft 12", "quit"]);
    assert_eq!(out.matches("info string perft stopped").count(), 2, "{out}");
    let out = session_output_unwaited(&["bench 100", "stop"]);
    assert!(out.contains("info string bench stopped"), "{out}");
    // The end of input stops `go infinite` (which answers bestmove) and a perft.
    for input in ["go infinite\n", "go ponder\n", "perft 12"] {
        let buffer = Buffer::default();
        run(io::Cursor::new(input), buffer.clone()).unwrap();
        let text = buffer.text();
        assert!(
            text.contains("bestmove") || text.contains("stopped"),
            "{text}"
        );
    }
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

/// Every line handled at once (no waiting); then the session is dropped.
fn session_output_unwaited(lines: &[&str]) -> String {
    let buffer = Buffer::default();
    let mut output = Output::new(buffer.clone());
    let mut session = UciSession::with_output(output.clone());
    for line in lines {
        std::thread::sleep(Duration::from_millis(20));
        session.handle_line(line, &mut output).unwrap();
    }
    drop(session);
    buffer.text()
}

#[test]
fn impossible_positions_are_refused_and_the_search_answers() {
    // Kings side by side must be refused: cozy-chess would panic in the search, and no
    // bestmove would come.
    let out = session_output(&["position fen 8/8/8/8/8/8/8/Kk6 w - - 0 1", "go depth 3"]);
    assert!(
        out.contains("info string error: invalid position: the kings stand side by side"),
        "{out}"
    );
    assert!(out.contains("bestmove "), "{out}");
    let out = session_output(&["position fen 8/8/8/8/8/8/8/Kk6 b - - 0 1", "perft 2"]);
    assert!(out.contains("info string error"), "{out}");
    assert!(out.contains("Nodes searched: 400"), "{out}");
}

#[test]
fn fuzz_limits_bound_everything() {
    let input = "setoption name Hash value 2\nsetoption name Threads value 3\n\
                 setoption name BookFile value /dev/zero\nsavehash /tmp/x\nperft 4\n\
                 setoption name HashFile value /tmp/x\n\
                 bench 2\ngo nodes 100000000\nisready\n";
    let buffer = Buffer::default();
    run_with_limits(
        io::Cursor::new(input),
        buffer.clone(),
        SessionLimits::fuzz(),
    )
    .unwrap();
    let text = buffer.text();
    assert_eq!(text.matches("info string error").count(), 7, "{text}");
    assert!(text.contains("files are disabled"), "{text}");
    let nodes: u64 = text
        .lines()
        .filter_map(|l| l.split(" nodes ").nth(1)?.split(' ').next()?.parse().ok())
        .max()
        .unwrap_or(0);
    assert!(nodes <= 2_000 + 1024, "{text}");
}

#[test]
fn position_moves_and_d() {
    let out = session_output(&["position startpos moves e2e4 d7d5 e4e5 f7f5", "d"]);
    assert!(out.contains("Key: 22a48b5a8e47ff78"), "{out}");
}

#[test]
fn errors_keep_the_old_position() {
    let out = session_output(&[
        "position startpos moves e2e4",
        "position startpos moves e2e4 e2e4",
        "position fen 8/8/8 w - - 0 1",
        "frobnicate",
        "perft x",
        "d",
    ]);
    assert_eq!(out.matches("info string error:").count(), 4, "{out}");
    assert!(out.contains("Key: 823c9b50fd114196"), "{out}");
}

#[test]
fn perft_command() {
    let out = session_output(&["perft 2"]);
    assert!(out.ends_with("\nNodes searched: 400\n"), "{out}");
    assert_eq!(out.lines().count(), 22);
}

#[test]
fn go_arguments() {
    let go = parse_go(&["wtime", "-5", "btime", "1000", "movestogo", "3"]);
    assert!(go.errors.is_empty(), "{go:?}");
    assert_eq!(go.limits.wtime, Some(Duration::ZERO));
    assert_eq!(go.limits.movestogo, Some(3));
    assert_eq!(go.limits_to_search(), go.limits);
    for bad in [
        &["depth"][..],
        &["depth", "x"],
        &["depth", "0"],
        &["mate", "0"],
        &["frob"],
        &["nodes", "1.5"],
        &["nodes", "0"],
        &["depth", "101"],
        &["mate", "51"],
        &["wtime", "99999999999999999999"],
        &["movetime", "18446744073709551615"],
        &["infinite", "depth", "0"],
        &["ponder", "mate", "0"],
    ] {
        let go = parse_go(bad);
        assert_eq!(go.errors.len(), 1, "{bad:?}: {go:?}");
        // Answered at once from a depth-1 search: no long search, no wait for `stop`.
        assert_eq!(
            go.limits_to_search(),
            crate::search::Limits::depth(1),
            "{bad:?}"
        );
    }
    // A parameter word is never read as the number of the one before.
    let go = parse_go(&["depth", "searchmoves", "e2e4", "d2d4", "nodes", "500"]);
    assert_eq!(go.errors, ["\"go depth\" needs a number"]);
    assert_eq!(go.searchmoves, Some(vec!["e2e4".into(), "d2d4".into()]));
    assert_eq!(go.limits.nodes, Some(500));
    let go = parse_go(&["searchmoves"]);
    assert_eq!((go.searchmoves, go.errors.len()), (Some(Vec::new()), 0));
    assert_eq!(parse_go(&[]).searchmoves, None);
}

/// An error quotes the number as the user typed it (`"go mate -1"`, not the value it was
/// read as).
#[test]
fn go_errors_echo_what_was_typed() {
    for (args, said) in [
        (&["mate", "-1"][..], "\"go mate -1\": must be 1 to 50 moves"),
        (&["depth", "-3"], "\"go depth -3\": depth must be 1 to 100"),
        (
            &["nodes", "-1"],
            "\"go nodes -1\": nodes must be 1 to 9223372036854775807",
        ),
        (
            &["depth", "+101"],
            "\"go depth +101\": depth must be 1 to 100",
        ),
        (&["mate", "0051"], "\"go mate 0051\": must be 1 to 50 moves"),
        (
            &["mate", "-9223372036854775808"],
            "\"go mate -9223372036854775808\": must be 1 to 50 moves",
        ),
        (
            &["nodes", "0"],
            "\"go nodes 0\": nodes must be 1 to 9223372036854775807",
        ),
    ] {
        assert_eq!(parse_go(args).errors, [said], "{args:?}");
    }
    // Negative clocks and movestogo still read as 0, without an error.
    let go = parse_go(&[
        "btime",
        "-20",
        "binc",
        "-1",
        "movestogo",
        "-4",
        "movetime",
        "-7",
    ]);
    assert!(go.errors.is_empty(), "{go:?}");
    assert_eq!(go.limits.btime, Some(Duration::ZERO));
    assert_eq!(go.limits.binc, Some(Duration::ZERO));
    assert_eq!(go.limits.movestogo, Some(0));
    assert_eq!(go.limits.movetime, Some(Duration::ZERO));
}

/// A GUI that charges far more than the engine's own time for a move (here 2,050
/// ms, against at most the hard limit of about 600 ms the search may take) raises the
/// overhead the next search subtracts, and the engine says so; a move of another game, or
/// the same clocks again, does not.
#[test]
fn the_overhead_learns_what_the_gui_charged() {
    let clocks = |w: u32| format!("go wtime {w} btime 5000 winc 50 binc 50");
    let out = session_output(&[
        "position startpos",
        &clocks(5000),
        "position startpos moves e2e4 e7e5",
        &clocks(3000),
    ]);
    let said: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info string move overhead"))
        .collect();
    assert_eq!(said.len(), 1, "{out}");
    let ms: u64 = said[0]
        .split_whitespace()
        .nth(4)
        .and_then(|n| n.parse().ok())
        .expect("a number of ms");
    assert!((1400..=2050).contains(&ms), "{out}");
    assert_eq!(out.matches("bestmove").count(), 2, "{out}");
    // Not consecutive moves of one game: nothing learnt.
    for lines in [
        [
            "position startpos",
            "position startpos moves e2e4 e7e5 g1f3 b8c6",
        ],
        ["position startpos", "position startpos"],
    ] {
        let out = session_output(&[lines[0], &clocks(5000), lines[1], &clocks(3000)]);
        assert!(!out.contains("move overhead"), "{lines:?}: {out}");
    }
    let out = session_output(&[
        "position startpos",
        &clocks(5000),
        "ucinewgame",
        "position startpos moves e2e4 e7e5",
        &clocks(3000),
    ]);
    assert!(!out.contains("move overhead"), "{out}");
}

/// The `bestmove` of a session's output (the last one).
fn best_move(out: &str) -> &str {
    out.lines()
        .filter_map(|line| line.strip_prefix("bestmove "))
        .next_back()
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("no bestmove in {out}"))
}

#[test]
fn searchmoves_restrict_the_root() {
    // White mates with a1a8; asked to choose among a1a2 and g1f1 only, it plays one of them.
    let mate = "position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
    let out = session_output(&[mate, "go depth 4"]);
    assert_eq!(best_move(&out), "a1a8", "{out}");
    let out = session_output(&[mate, "go depth 4 searchmoves a1a2 g1f1"]);
    assert!(["a1a2", "g1f1"].contains(&best_move(&out)), "{out}");
    assert!(!out.contains("score mate"), "{out}");
    assert!(!out.contains("error"), "{out}");
    // One legal move named among bad ones: the bad ones are reported, that one is played.
    let out = session_output(&[mate, "go depth 3 searchmoves a1a9 e2e4 zz g1h1"]);
    assert_eq!(best_move(&out), "g1h1", "{out}");
    assert_eq!(out.matches("left out").count(), 3, "{out}");
    assert_eq!(out.matches("bestmove").count(), 1, "{out}");
    // None legal: said, and every move is searched.
    let out = session_output(&[mate, "go depth 3 searchmoves e2e4"]);
    assert!(
        out.contains("names no legal move; searching every move"),
        "{out}"
    );
    assert_eq!(best_move(&out), "a1a8", "{out}");
}

#[test]
fn a_malformed_go_is_reported_and_still_answered() {
    for go in [
        "go depth 0",
        "go depth 101",
        "go mate 0",
        "go mate 51",
        "go nodes 0",
        "go movetime 18446744073709551615",
        "go depth",
        "go frob 3",
        "go infinite depth 0",
        "go ponder nodes x",
    ] {
        // Waited for without a `stop`: this returns only because the search ends by itself.
        let out = session_output(&["position startpos", go]);
        assert!(out.starts_with("info string error: "), "{go}: {out}");
        assert!(
            out.contains("answering from a depth 1 search"),
            "{go}: {out}"
        );
        assert_eq!(out.matches("bestmove").count(), 1, "{go}: {out}");
        let best = best_move(&out);
        let position = transpo_chess::Position::startpos();
        let mv = position.parse_uci_move(best).expect("a move");
        assert!(position.is_legal(mv), "{go}: {out}");
    }
}

#[test]
fn go_without_legal_moves_answers_0000() {
    for fen in [
        // Checkmate (back rank) and stalemate.
        "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    ] {
        let position = transpo_chess::Position::from_fen(fen).expect("a legal FEN");
        assert!(position.legal_moves().is_empty(), "{fen}");
        let fen = format!("position fen {fen}");
        for go in [
            "go depth 5",
            "go depth 0",
            "go searchmoves e2e4",
            "go nodes 100",
        ] {
            let out = session_output(&[&fen, go]);
            assert_eq!(best_move(&out), "0000", "{fen} {go}: {out}");
            assert_eq!(out.matches("bestmove").count(), 1, "{fen} {go}: {out}");
        }
    }
}

#[test]
fn options_are_checked_and_failures_keep_the_old_state() {
    let out = session_output(&[
        "setoption name Hash value 65537",
        "setoption name Hash value x",
        "setoption name Threads value 0",
        "setoption name Replacement value nonsense",
        "setoption name Profile value fast",
        "setoption name Nonsense value 1",
        "setoption name BookFile value /nonexistent/book.bin",
        "setoption",
        "setoption name Hash value 0",
        "savehash /tmp/x",
        "setoption name Hash value 1",
        "setoption name Replacement value twobig1",
        "setoption name Profile value paper",
        "setoption name Clear Hash",
        "setoption name Ponder value maybe",
        "setoption name Ponder value true",
        "setoption name NeverClearHash value maybe",
        "setoption name NeverClearHash value true",
        "setoption name SaveHashtoFile",
        "setoption name LoadHashfromFile",
        "setoption name HashFile value <empty>",
    ]);
    assert_eq!(out.matches("info string error:").count(), 13, "{out}");
    assert_eq!(
        out.matches("set HashFile to a path first").count(),
        2,
        "{out}"
    );
}

/// `stats` prints the table's fill over every slot: none before a search, some after, and
/// says so when the table is off; a table made with several threads (prefaulted) searches
/// like any other.
#[test]
fn stats_prints_the_tables_fill() {
    let out = session_output(&[
        "setoption name Threads value 2",
        "setoption name Hash value 2",
        "stats",
        "go depth 3",
        "stats",
        "ucinewgame",
        "stats",
        "setoption name Hash value 0",
        "stats",
    ]);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info string hash"))
        .collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(
        lines[0].starts_with("info string hash entries 0 of "),
        "{out}"
    );
    assert!(
        !lines[1].starts_with("info string hash entries 0 of "),
        "{out}"
    );
    assert!(
        lines[2].starts_with("info string hash entries 0 of "),
        "{out}"
    );
    assert_eq!(lines[3], "info string hash off");
}
