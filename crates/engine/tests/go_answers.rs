//! Issue 45, item 4, through the `transpo-chess` binary: every `go` line, however malformed,
//! is answered with exactly one `bestmove`, by the engine itself (stdin stays open and no
//! `stop` is sent: the end of input would stop a search and hide a `go` left waiting).
//! Before, `go depth 0`, `go searchmoves ...` and the like were answered only with
//! `info string error: ...`, and a GUI waited for `bestmove` until it lost on time. Each
//! answer is waited for with a deadline, so a missing one fails the test instead of hanging.

use std::time::Duration;

use transpo_testkit::{Run, Session};

/// How long an answer may take. The engine answers a malformed `go` from a depth-1 search
/// (milliseconds); the margin is for a loaded test machine, not for a search.
const DEADLINE: Duration = Duration::from_secs(10);

/// The binary's UCI loop, with its stdout read line by line on a thread.
struct Engine(Session);

impl Engine {
    fn start() -> Self {
        Engine(Run::new(env!("CARGO_BIN_EXE_transpo-chess")).session())
    }

    fn send(&mut self, line: &str) {
        self.0.send(line);
    }

    /// The lines up to and including the first one that `last` accepts; panics (naming
    /// `what` and what came) if none comes within [`DEADLINE`].
    fn read_until(&self, what: &str, last: impl Fn(&str) -> bool) -> Vec<String> {
        self.0.until(what, DEADLINE, last)
    }

    /// Sends `position` and `go`, waits for `bestmove`, then checks with `isready` that no
    /// second `bestmove` follows; the output of the `go`, up to `bestmove`.
    fn go(&mut self, position: &str, go: &str) -> Vec<String> {
        self.send(position);
        self.send(go);
        let what = format!("{position} / {go}");
        let answer = self.read_until(&what, |line| line.starts_with("bestmove"));
        self.send("isready");
        let after = self.read_until(&what, |line| line == "readyok");
        assert!(
            !after.iter().any(|line| line.starts_with("bestmove")),
            "{what}: a second bestmove: {answer:#?} {after:#?}"
        );
        answer
    }
}

/// The move of a `bestmove` line.
fn best(answer: &[String]) -> &str {
    let last = answer.last().expect("a bestmove line");
    last.split(' ').nth(1).expect("bestmove has a move")
}

#[test]
fn every_malformed_go_gets_one_bestmove_without_a_stop() {
    let mut engine = Engine::start();
    for go in [
        "go depth 0",
        "go depth 101",
        "go mate 0",
        "go mate 51",
        "go nodes 0",
        "go movetime 18446744073709551615",
        "go depth",
        "go depth x",
        "go wtime 99999999999999999999 btime 1000",
        "go frob",
        "go infinite depth 0",
        "go ponder mate 99",
    ] {
        let answer = engine.go("position startpos", go);
        assert!(
            answer.iter().any(|l| l.starts_with("info string error: ")),
            "{go}: {answer:#?}"
        );
        let position = transpo_chess::Position::startpos();
        let mv = position.parse_uci_move(best(&answer)).expect("a move");
        assert!(position.is_legal(mv), "{go}: {answer:#?}");
    }
}

#[test]
fn searchmoves_are_searched_and_bad_ones_reported() {
    let mut engine = Engine::start();
    let answer = engine.go("position startpos", "go depth 3 searchmoves e2e4 d2d4");
    assert!(["e2e4", "d2d4"].contains(&best(&answer)), "{answer:#?}");
    assert!(!answer.iter().any(|l| l.contains("error")), "{answer:#?}");
    // White mates with a1a8, which is not among the moves named.
    let mate = "position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
    let answer = engine.go(mate, "go depth 4 searchmoves a1a2 h9h9 e7e5 g1f1");
    assert!(["a1a2", "g1f1"].contains(&best(&answer)), "{answer:#?}");
    let reported = answer.iter().filter(|l| l.contains("left out")).count();
    assert_eq!(reported, 2, "{answer:#?}");
    // None legal: every move is searched, and the engine says so.
    let answer = engine.go(mate, "go depth 4 searchmoves e2e4");
    assert_eq!(best(&answer), "a1a8", "{answer:#?}");
    assert!(
        answer.iter().any(|l| l.contains("searching every move")),
        "{answer:#?}"
    );
}

#[test]
fn no_legal_move_is_bestmove_0000() {
    let mut engine = Engine::start();
    for position in [
        "position fen R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
        "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    ] {
        for go in [
            "go depth 4",
            "go depth 0",
            "go movetime 50",
            "go searchmoves h8g8",
        ] {
            let answer = engine.go(position, go);
            assert_eq!(best(&answer), "0000", "{position} / {go}: {answer:#?}");
        }
    }
}

#[test]
fn infinite_and_ponder_wait_for_stop_and_ponderhit() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go infinite");
    // `isready` is answered while the search runs, and no bestmove comes before `stop`.
    engine.send("isready");
    let before = engine.read_until("go infinite", |l| l == "readyok");
    assert!(
        !before.iter().any(|l| l.starts_with("bestmove")),
        "{before:#?}"
    );
    engine.send("stop");
    engine.read_until("go infinite, stop", |l| l.starts_with("bestmove"));
    // A ponder search with a clock: `ponderhit` starts the clock, which then ends it.
    engine.send("go ponder wtime 200 btime 200");
    engine.send("isready");
    let before = engine.read_until("go ponder", |l| l == "readyok");
    assert!(
        !before.iter().any(|l| l.starts_with("bestmove")),
        "{before:#?}"
    );
    engine.send("ponderhit");
    engine.read_until("go ponder, ponderhit", |l| l.starts_with("bestmove"));
}
