//! A UCI session with the `transpo-chess` binary, line by line through stdin/stdout, with
//! deadlines: options, positions with moves, `go depth/nodes/movetime/infinite`, `stop` and
//! `isready` during a search, malformed lines, illegal moves, Hash 0 and an impossible Hash.

use std::time::{Duration, Instant};

use transpo_chess::Position;
use transpo_testkit::{DEADLINE, Run, Session, scratch, shared_data};

mod common;

/// The prefix of this file's scratch directories.
const SCRATCH: &str = "transpo-uci";

/// The binary's UCI loop, with its stdout read line by line on a thread.
struct Engine(Session);

impl Engine {
    fn start() -> Self {
        Engine(Run::new(env!("CARGO_BIN_EXE_transpo-chess")).session())
    }

    fn send(&mut self, line: &str) {
        self.0.send(line);
    }

    /// Lines up to and including the first that starts with `prefix`, within `limit`.
    fn until(&mut self, prefix: &str, limit: Duration) -> Vec<String> {
        self.0.until(prefix, limit, |line| line.starts_with(prefix))
    }

    /// Waits for the engine to end after `quit`, within `limit`.
    fn wait(&mut self, limit: Duration) -> std::process::ExitStatus {
        self.0.wait(limit)
    }

    /// The `bestmove` line's move, checked to be legal in `pos`.
    fn bestmove(&mut self, pos: &Position, limit: Duration) -> String {
        let lines = self.until("bestmove", limit);
        let last = lines.last().expect("until returns the match");
        let mv = last.split_whitespace().nth(1).expect("bestmove has a move");
        assert!(
            pos.parse_uci_move(mv).is_ok(),
            "illegal {last:?} in {}",
            pos.fen()
        );
        mv.to_string()
    }
}

const SECOND: Duration = Duration::from_secs(1);

/// One session through every phase below, in order, then the paper profile and `quit`
/// with a search running.
#[test]
fn a_whole_session() {
    let mut e = Engine::start();
    options(&mut e);
    let mut pos = Position::startpos();
    for mv in ["e2e4", "e7e5", "g1f3"] {
        pos.play(pos.parse_uci_move(mv).unwrap()).unwrap();
    }
    searches(&mut e, &pos);
    infinite_and_ponder(&mut e, &pos);
    malformed_lines(&mut e, &pos);
    table_files(&mut e, &pos);
    // No legal move: bestmove 0000. Checkmated side too.
    e.send("position fen 8/8/8/8/8/6k1/6p1/6K1 w - - 0 1");
    e.send("go depth 3");
    let lines = e.until("bestmove", SECOND * 5);
    assert_eq!(lines.last().unwrap(), "bestmove 0000");

    // The paper profile, a book move, and quit with a search running.
    e.send("setoption name Profile value paper");
    e.send("position startpos");
    e.send("go depth 3");
    e.bestmove(&Position::startpos(), SECOND * 10);
    e.send("go infinite");
    e.send("quit");
    let status = e.wait(DEADLINE);
    assert!(status.success());
}

/// `uci` declares the options; setting them and `ucinewgame` leave the engine ready.
fn options(e: &mut Engine) {
    e.send("uci");
    let lines = e.until("uciok", SECOND * 5);
    for option in [
        "Hash",
        "Threads",
        "Clear Hash",
        "Replacement",
        "Profile",
        "Move Overhead",
        "OwnBook",
        "BookFile",
        "NeverClearHash",
        "HashFile",
        "SaveHashtoFile",
        "LoadHashfromFile",
    ] {
        let wanted = format!("option name {option} type");
        assert!(lines.iter().any(|l| l.starts_with(&wanted)), "{option}");
    }
    e.send("setoption name Hash value 32");
    e.send("setoption name Threads value 2");
    e.send("setoption name Replacement value twobig1");
    e.send("setoption name Move Overhead value 20");
    e.send("ucinewgame");
    e.send("isready");
    e.until("readyok", SECOND * 5);
}

/// Positions with moves; depth, nodes and movetime searches, at `pos`.
fn searches(e: &mut Engine, pos: &Position) {
    e.send("position startpos moves e2e4 e7e5 g1f3");
    e.send("go depth 6");
    let lines = e.until("bestmove", SECOND * 30);
    let info = lines
        .iter()
        .find(|l| l.starts_with("info depth 6 "))
        .expect("an info line for depth 6");
    for field in [
        " seldepth ",
        " score cp ",
        " nodes ",
        " nps ",
        " hashfull ",
        " time ",
        " pv ",
    ] {
        assert!(info.contains(field), "{field} missing in {info}");
    }
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
    assert!(pos.parse_uci_move(best).is_ok(), "{best}");

    e.send("setoption name Threads value 1");
    e.send("go nodes 5000");
    e.bestmove(pos, SECOND * 10);
    let start = Instant::now();
    e.send("go movetime 200");
    e.bestmove(pos, SECOND * 5);
    let took = start.elapsed();
    assert!(took >= Duration::from_millis(150), "{took:?}");
}

/// After 300 ms, `isready` is answered and no `bestmove` has come: the search still runs.
fn assert_still_searching(e: &mut Engine) {
    std::thread::sleep(Duration::from_millis(300));
    e.send("isready");
    let lines = e.until("readyok", SECOND);
    assert!(
        !lines.iter().any(|l| l.starts_with("bestmove")),
        "{lines:?}"
    );
}

/// `go infinite` and `go ponder` answer only after `stop` and `ponderhit`.
fn infinite_and_ponder(e: &mut Engine, pos: &Position) {
    // Infinite: nothing until stop; isready answered during the search, and stop, each
    // within a second. (How fast is a benchmark's question: asserts of 100 and 50 ms failed
    // with other work on both cores.)
    e.send("go infinite");
    assert_still_searching(e);
    e.send("stop");
    e.bestmove(pos, SECOND);

    // Ponder: bestmove only after ponderhit (then within the movetime).
    e.send("go ponder movetime 100");
    assert_still_searching(e);
    e.send("ponderhit");
    e.bestmove(pos, SECOND * 2);
}

/// Malformed lines and illegal moves: one error each, the position (`pos`) is kept.
fn malformed_lines(e: &mut Engine, pos: &Position) {
    for bad in [
        "frobnicate",
        "position startpos moves e2e5",
        "position fen 8/8/8/8 w - - 0 1",
        "go depth x",
        "go wibble",
        "setoption name Hash value -1",
        "setoption name Threads value 100000",
        "setoption name Hash value 65536",
        "loadhash /nonexistent/file.tt",
    ] {
        e.send(bad);
        e.send("isready");
        let lines = e.until("readyok", SECOND * 5);
        assert!(
            lines.iter().any(|l| l.starts_with("info string error: ")),
            "{bad:?} gave {lines:?}"
        );
    }
    e.send("d");
    let lines = e.until("Key:", SECOND);
    assert!(lines.iter().any(|l| l.contains(&pos.fen())), "{lines:?}");
}

/// `savehash` and `loadhash`; Hash 0 searches without a table.
fn table_files(e: &mut Engine, pos: &Position) {
    let dir = scratch(SCRATCH, "table-files");
    let file = dir.join("table.tt");
    e.send("setoption name Hash value 1");
    e.send("go depth 5");
    e.bestmove(pos, SECOND * 10);
    e.send(&format!("savehash {}", file.display()));
    e.send("setoption name Clear Hash");
    e.send(&format!("loadhash {}", file.display()));
    e.send("isready");
    let lines = e.until("readyok", SECOND * 5);
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    let _ = std::fs::remove_dir_all(&dir);
    e.send("setoption name Hash value 0");
    e.send("go depth 4");
    let lines = e.until("bestmove", SECOND * 10);
    assert!(
        lines.iter().any(|l| l.contains(" hashfull 0 ")),
        "{lines:?}"
    );
}

/// The table-file options GUIs know (Andscacs' convention): `HashFile`, `SaveHashtoFile`,
/// `LoadHashfromFile` and `NeverClearHash`; a bad path is an error the session survives.
#[test]
fn table_file_options() {
    let dir = scratch(SCRATCH, "table-file-options");
    let file = |name: &str| dir.join(format!("{name}.tt"));
    let (saved, kept, cleared) = (file("saved"), file("kept"), file("cleared"));
    let mut e = Engine::start();
    let ready_without_errors = |e: &mut Engine| {
        e.send("isready");
        let lines = e.until("readyok", SECOND * 5);
        assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    };
    e.send("setoption name Hash value 1");
    e.send(&format!(
        "setoption name HashFile value {}",
        saved.display()
    ));
    e.send("go depth 5");
    e.bestmove(&Position::startpos(), SECOND * 10);
    e.send("setoption name SaveHashtoFile");
    ready_without_errors(&mut e);
    // NeverClearHash true: ucinewgame keeps the table, so it saves the same bytes.
    e.send("setoption name NeverClearHash value true");
    e.send("ucinewgame");
    e.send(&format!("setoption name HashFile value {}", kept.display()));
    e.send("setoption name SaveHashtoFile");
    // NeverClearHash false: ucinewgame empties it; LoadHashfromFile brings it back.
    e.send("setoption name NeverClearHash value false");
    e.send("ucinewgame");
    e.send(&format!(
        "setoption name HashFile value {}",
        cleared.display()
    ));
    e.send("setoption name SaveHashtoFile");
    e.send(&format!(
        "setoption name HashFile value {}",
        saved.display()
    ));
    e.send("setoption name LoadHashfromFile");
    ready_without_errors(&mut e);
    let bytes = |path: &std::path::Path| std::fs::read(path).expect("the table was saved");
    assert_eq!(
        bytes(&kept),
        bytes(&saved),
        "NeverClearHash true keeps the table"
    );
    assert_ne!(
        bytes(&cleared),
        bytes(&saved),
        "ucinewgame clears the table"
    );
    let _ = std::fs::remove_dir_all(&dir);
    // A path that cannot be loaded or saved: an error each, and the session goes on.
    e.send("setoption name HashFile value /nonexistent/dir/table.tt");
    for button in ["LoadHashfromFile", "SaveHashtoFile"] {
        e.send(&format!("setoption name {button}"));
        let lines = e.until("info string error: ", SECOND * 5);
        assert!(lines.last().unwrap().contains(button), "{lines:?}");
    }
    e.send("go depth 3");
    e.bestmove(&Position::startpos(), SECOND * 10);
    e.send("quit");
    assert!(e.wait(DEADLINE).success());
}

#[test]
fn the_book_answers_at_once() {
    let Some(book) = shared_data("chess/performance.bin") else {
        return;
    };
    let mut e = Engine::start();
    e.send(&format!("setoption name BookFile value {}", book.display()));
    e.send("setoption name OwnBook value true");
    e.send("position startpos moves e2e4 c7c5");
    e.send("go wtime 1000 btime 1000");
    let lines = e.until("bestmove", SECOND * 5);
    // ANCHORS §3: the book has g1f3, b1c3 and c2c3 after 1.e4 c5.
    let best = lines.last().unwrap();
    assert!(
        ["bestmove g1f3", "bestmove b1c3", "bestmove c2c3"].contains(&best.as_str()),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("info string book move")));
    e.send("quit");
    assert!(e.wait(DEADLINE).success());
}

#[test]
fn bench_and_analyse_subcommands() {
    let text = common::chess_stdout(["bench", "4"]);
    let last = text.lines().last().unwrap();
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(
        (words.len(), words[1], words[3]),
        (4, "nodes", "nps"),
        "{last}"
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with("position ")).count(),
        49
    );
    // Deterministic at one thread.
    let again = common::chess_stdout(["bench", "4"]);
    assert_eq!(
        words[0],
        again.lines().last().unwrap().split(' ').next().unwrap()
    );

    let text =
        common::chess_stdout("analyse --depth 5 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1".split(' '));
    assert!(text.contains("score mate 1"), "{text}");
    assert!(text.ends_with("bestmove a1a8\n"), "{text}");
}

/// Issue 14, through the binary: nothing a line asks for leaves the GUI waiting.
#[test]
fn nothing_hangs_the_engine() {
    let mut e = Engine::start();
    // Kings side by side: refused (it used to be accepted, and the search then panicked
    // inside cozy-chess without answering bestmove). The old position stays.
    e.send("position fen 8/8/8/8/8/8/8/Kk6 w - - 0 1");
    let lines = e.until("info string error", SECOND * 2);
    assert!(lines.last().unwrap().contains("side by side"), "{lines:?}");
    e.send("go depth 3");
    e.bestmove(&Position::startpos(), SECOND * 5);

    // A clock only for the side not to move: bounded as if we had the same (it used to
    // search without limit).
    let mut pos = Position::startpos();
    pos.play(pos.parse_uci_move("e2e4").unwrap()).unwrap();
    e.send("position startpos moves e2e4");
    e.send("go wtime 1000");
    e.bestmove(&pos, SECOND * 3);

    // Perft runs in the search thread: isready is answered, stop ends it.
    e.send("perft 12");
    let start = Instant::now();
    e.send("isready");
    e.until("readyok", SECOND);
    e.send("stop");
    e.until("info string perft stopped", SECOND);
    assert!(start.elapsed() < SECOND, "{:?}", start.elapsed());

    // A book file that never ends: refused at once.
    if std::path::Path::new("/dev/zero").exists() {
        e.send("setoption name BookFile value /dev/zero");
        let lines = e.until("info string error", SECOND * 2);
        assert!(
            lines.last().unwrap().contains("not a regular file"),
            "{lines:?}"
        );
    }

    // quit ends a perft of years at once.
    e.send("go perft 12");
    std::thread::sleep(Duration::from_millis(50));
    let start = Instant::now();
    e.send("quit");
    let status = e.wait(DEADLINE);
    assert!(status.success());
    assert!(start.elapsed() < SECOND * 2, "{:?}", start.elapsed());
}
