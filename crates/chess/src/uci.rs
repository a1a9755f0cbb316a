//! The UCI loop of the `transpo-chess` binary.
//!
//! [`UciSession::handle_line`] takes one line and a writer for the immediate answers, so
//! tests can drive it without I/O. A search runs in its own thread and writes its `info` and
//! `bestmove` lines through a shared [`Output`], so the loop keeps reading: `isready` is
//! answered at once during a search and `stop` within milliseconds. Commands that change
//! what a search uses (`ucinewgame`, `setoption`, `loadhash`, `go`, `bench`) first stop and
//! join the running search. A malformed or unknown line is answered with
//! `info string error: ...` and the loop goes on; no input makes it panic, and `bestmove` is
//! always a legal move (or `0000` when there is none).
//!
//! Commands: `uci`, `isready`, `ucinewgame`, `position startpos|fen <FEN> [moves ...]`,
//! `go [wtime|btime|winc|binc|movestogo|movetime|nodes|depth|mate N] [infinite] [ponder]`,
//! `go perft N`, `stop`, `ponderhit`, `setoption name <NAME> [value <VALUE>]`, `quit`, and
//! Stockfish's extras `d`, `eval`, `bench [DEPTH]`, `perft N`, plus `savehash FILE` and
//! `loadhash FILE` (the table's persistence).

use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use transpo::{ChessEntry, Config, Scheme, Size, Table};

use crate::book::{Book, SplitMix64};
use crate::eval::Evaluator;
use crate::perft;
use crate::position::Position;
use crate::search::{Control, Limits, Profile, SearchConfig, Searcher};

/// Deepest perft the loop accepts, so that a typo does not start a search of years.
pub const MAX_PERFT_DEPTH: u32 = 12;
/// Default table size in MiB.
pub const DEFAULT_HASH_MIB: u64 = 16;
/// Largest table size accepted, in MiB (64 GiB; the machine may still refuse it).
pub const MAX_HASH_MIB: u64 = 65_536;
/// Most search threads accepted.
pub const MAX_THREADS: usize = 256;
/// Stack of the search thread: frames hold move lists and plies go deep.
const SEARCH_STACK_BYTES: usize = 64 << 20;

/// Whether the loop should go on after a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` was received.
    Quit,
}

/// A writer shared between the loop and the search thread; each line goes out whole.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    /// Wraps a writer.
    pub fn new(out: impl Write + Send + 'static) -> Self {
        Output(Arc::new(Mutex::new(Box::new(out))))
    }

    /// Standard output.
    pub fn stdout() -> Self {
        Self::new(io::stdout())
    }

    /// Writes `bytes` in one piece and flushes. A poisoned lock (a panic while writing,
    /// which our code never does) is used anyway: output matters more than the poison.
    pub fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
        let mut out = self.0.lock().unwrap_or_else(|poison| poison.into_inner());
        out.write_all(bytes)?;
        out.flush()
    }

    /// Writes one line. Errors are dropped: a GUI that went away cannot be told.
    pub fn line(&self, text: &str) {
        let _ = self.write_all(format!("{text}\n").as_bytes());
    }
}

/// The engine's options, as `setoption` sets them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// `Hash`, MiB; 0 = no table.
    pub hash_mib: u64,
    /// `Threads`.
    pub threads: usize,
    /// `Replacement`: the table's scheme.
    pub scheme: Scheme,
    /// `Profile`.
    pub profile: Profile,
    /// `Move Overhead`, milliseconds.
    pub move_overhead_ms: u64,
    /// `OwnBook`.
    pub own_book: bool,
    /// `BookFile` (empty: none).
    pub book_file: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mib: DEFAULT_HASH_MIB,
            threads: 1,
            scheme: Config::default().scheme,
            profile: Profile::Full,
            move_overhead_ms: 10,
            own_book: false,
            book_file: String::new(),
        }
    }
}

/// The schemes the `Replacement` option offers.
const SCHEMES: [&str; 11] = [
    "depth-age-8",
    "depth-age-4",
    "priority",
    "deep",
    "new",
    "old",
    "big1",
    "bigall",
    "twodeep",
    "twobig1",
    "depth-age-2",
];

/// The state of one UCI conversation.
pub struct UciSession {
    position: Position,
    options: Options,
    table: Option<Arc<Table<ChessEntry>>>,
    book: Option<Book>,
    rng: SplitMix64,
    control: Arc<Control>,
    search: Option<JoinHandle<()>>,
    async_out: Output,
}

impl Default for UciSession {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for UciSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UciSession")
            .field("position", &self.position.fen())
            .field("options", &self.options)
            .field("searching", &self.search.is_some())
            .finish()
    }
}

impl Drop for UciSession {
    fn drop(&mut self) {
        self.stop_search();
    }
}

impl UciSession {
    /// A session at the starting position whose searches write to standard output.
    pub fn new() -> Self {
        Self::with_output(Output::stdout())
    }

    /// A session whose searches write their `info` and `bestmove` lines to `out`.
    pub fn with_output(out: Output) -> Self {
        let mut session = UciSession {
            position: Position::startpos(),
            options: Options::default(),
            table: None,
            book: None,
            rng: SplitMix64::new(0x0074_7261_6e73_706f),
            control: Arc::default(),
            search: None,
            async_out: out,
        };
        // The default table is small; if even that fails, the engine runs without one.
        session.table = session.make_table(DEFAULT_HASH_MIB).ok().map(Arc::new);
        session
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The current options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Whether a search thread is running (or finished and not yet joined).
    pub fn is_searching(&self) -> bool {
        self.search.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Handles one input line, writing any immediate answer to `out`.
    pub fn handle_line(&mut self, line: &str, out: &mut impl Write) -> io::Result<Flow> {
        let mut words = line.split_ascii_whitespace();
        let Some(command) = words.next() else {
            return Ok(Flow::Continue);
        };
        let rest: Vec<&str> = words.collect();
        let result = match command {
            "uci" => self.uci(out).map(Ok)?,
            "isready" => {
                writeln!(out, "readyok")?;
                Ok(())
            }
            "ucinewgame" => {
                self.stop_search();
                if let Some(table) = &self.table {
                    table.clear();
                }
                self.position = Position::startpos();
                Ok(())
            }
            "position" => self.set_position(&rest),
            "go" => self.go(&rest, out)?,
            "stop" => {
                self.stop_search();
                Ok(())
            }
            "ponderhit" => {
                self.control.ponderhit();
                Ok(())
            }
            "setoption" => self.set_option(&rest),
            "d" => {
                writeln!(out, "{}", self.position)?;
                Ok(())
            }
            "eval" => {
                let board = self.position.board();
                let tapered = Evaluator::Tapered.evaluate(board);
                let paper = Evaluator::paper(board).evaluate(board);
                writeln!(
                    out,
                    "eval (side to move, centipawns): full {tapered} paper {paper}"
                )?;
                Ok(())
            }
            "perft" => self.perft(&rest, out)?,
            "bench" => self.bench(&rest, out)?,
            "savehash" => self.save_hash(&rest),
            "loadhash" => self.load_hash(&rest),
            "quit" => {
                self.stop_search();
                return Ok(Flow::Quit);
            }
            other => Err(format!("unknown command {other:?}")),
        };
        if let Err(message) = result {
            writeln!(out, "info string error: {message}")?;
        }
        out.flush()?;
        Ok(Flow::Continue)
    }

    fn uci(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "id name transpo-chess {}", env!("CARGO_PKG_VERSION"))?;
        writeln!(out, "id author the transpo developers")?;
        writeln!(
            out,
            "option name Hash type spin default {DEFAULT_HASH_MIB} min 0 max {MAX_HASH_MIB}"
        )?;
        writeln!(
            out,
            "option name Threads type spin default 1 min 1 max {MAX_THREADS}"
        )?;
        writeln!(out, "option name Clear Hash type button")?;
        let vars: String = SCHEMES.iter().map(|s| format!(" var {s}")).collect();
        writeln!(
            out,
            "option name Replacement type combo default {}{vars}",
            Options::default().scheme
        )?;
        writeln!(
            out,
            "option name Profile type combo default full var full var paper"
        )?;
        writeln!(
            out,
            "option name Move Overhead type spin default 10 min 0 max 5000"
        )?;
        writeln!(out, "option name Ponder type check default false")?;
        writeln!(out, "option name OwnBook type check default false")?;
        writeln!(out, "option name BookFile type string default <empty>")?;
        writeln!(out, "uciok")
    }

    /// A table of `mib` MiB with the current scheme.
    fn make_table(&self, mib: u64) -> Result<Table<ChessEntry>, String> {
        let config = Config {
            scheme: self.options.scheme,
            ..Config::default()
        };
        Table::new(Size::Mib(mib), config).map_err(|e| e.to_string())
    }

    /// Stops the running search, if any, and waits for its `bestmove`.
    fn stop_search(&mut self) {
        if let Some(handle) = self.search.take() {
            self.control.stop();
            // A search thread that panicked has nothing left to print; go on.
            let _ = handle.join();
        }
    }

    /// `position startpos|fen <FEN> [moves ...]`; on any error the position is unchanged.
    fn set_position(&mut self, args: &[&str]) -> Result<(), String> {
        let moves_at = args.iter().position(|&word| word == "moves");
        let (setup, moves) = match moves_at {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let mut position = match setup.split_first() {
            Some((&"startpos", [])) => Position::startpos(),
            Some((&"startpos", extra)) => {
                return Err(format!(
                    "unexpected {:?} after \"position startpos\"",
                    extra.join(" ")
                ));
            }
            Some((&"fen", fields)) => {
                Position::from_fen(&fields.join(" ")).map_err(|e| e.to_string())?
            }
            Some((other, _)) => {
                return Err(format!(
                    "\"position\" needs \"startpos\" or \"fen\", got {other:?}"
                ));
            }
            None => return Err("\"position\" needs \"startpos\" or \"fen\"".to_string()),
        };
        for (index, text) in moves.iter().enumerate() {
            let mv = position
                .parse_uci_move(text)
                .map_err(|e| format!("move {} of the list: {e}", index + 1))?;
            position.play_unchecked(mv);
        }
        self.position = position;
        Ok(())
    }

    /// `go ...`: starts a search thread (or answers from the book, or runs `go perft N`).
    fn go(&mut self, args: &[&str], out: &mut impl Write) -> io::Result<Result<(), String>> {
        if args.first() == Some(&"perft") {
            return self.perft(&args[1..], out);
        }
        let limits = match parse_go(args) {
            Ok(limits) => limits,
            Err(e) => return Ok(Err(e)),
        };
        self.stop_search();
        if self.options.own_book
            && !limits.infinite
            && !limits.ponder
            && let Some(book) = &self.book
            && let Some(pick) = book.pick(&self.position, &mut self.rng)
        {
            writeln!(out, "info string book move {}", pick.uci)?;
            writeln!(out, "bestmove {}", pick.uci)?;
            return Ok(Ok(()));
        }
        self.control.reset(limits.ponder);
        let config = SearchConfig {
            threads: self.options.threads,
            move_overhead: Duration::from_millis(self.options.move_overhead_ms),
            ..SearchConfig::with_profile(self.options.profile)
        };
        let searcher = Searcher::with_control(config, Arc::clone(&self.control));
        let table = self.table.clone();
        let mut position = self.position.clone();
        let output = self.async_out.clone();
        let control = Arc::clone(&self.control);
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let result =
                    searcher.search(&mut position, &limits, table.as_deref(), &mut |info| {
                        output.line(&info.to_string())
                    });
                // UCI: after `go infinite` or while pondering, bestmove waits for stop.
                while (limits.infinite || control.is_pondering()) && !control.is_stopped() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let line = match (result.best_move_uci(), result.ponder_uci()) {
                    (None, _) => "bestmove 0000".to_string(),
                    (Some(best), Some(ponder)) => format!("bestmove {best} ponder {ponder}"),
                    (Some(best), None) => format!("bestmove {best}"),
                };
                output.line(&line);
            });
        match spawned {
            Ok(handle) => {
                self.search = Some(handle);
                Ok(Ok(()))
            }
            Err(e) => {
                // No thread: answer with any legal move so the GUI is not left waiting.
                let fallback = self.position.legal_moves().first().copied();
                let text = fallback.map_or("0000".to_string(), |mv| self.position.move_to_uci(mv));
                writeln!(out, "bestmove {text}")?;
                Ok(Err(format!("could not start the search thread: {e}")))
            }
        }
    }

    /// `setoption name <NAME> [value <VALUE>]`.
    fn set_option(&mut self, args: &[&str]) -> Result<(), String> {
        let usage = "usage: setoption name <NAME> [value <VALUE>]";
        let (name, value) = match args.split_first() {
            Some((&"name", rest)) => match rest.iter().position(|&w| w == "value") {
                Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
                None => (rest.join(" "), None),
            },
            _ => return Err(usage.to_string()),
        };
        if name.is_empty() {
            return Err(usage.to_string());
        }
        let value_of = |what: &str| {
            value
                .clone()
                .filter(|v| !v.is_empty() || what == "BookFile")
                .ok_or(format!("option {what} needs a value"))
        };
        let number = |what: &str, min: u64, max: u64| -> Result<u64, String> {
            let text = value_of(what)?;
            text.parse::<u64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or(format!(
                    "option {what}: {text:?} is not a whole number from {min} to {max}"
                ))
        };
        match name.to_ascii_lowercase().as_str() {
            "hash" => {
                let mib = number("Hash", 0, MAX_HASH_MIB)?;
                self.stop_search();
                self.table = match mib {
                    0 => None,
                    _ => Some(Arc::new(self.make_table(mib)?)),
                };
                self.options.hash_mib = mib;
            }
            "threads" => {
                self.options.threads = number("Threads", 1, MAX_THREADS as u64)? as usize;
            }
            "clear hash" => {
                self.stop_search();
                if let Some(table) = &self.table {
                    table.clear();
                }
            }
            "replacement" => {
                let scheme: Scheme = value_of("Replacement")?
                    .parse()
                    .map_err(|e: transpo::scheme::UnknownScheme| e.to_string())?;
                self.stop_search();
                let old = std::mem::replace(&mut self.options.scheme, scheme);
                if self.options.hash_mib > 0 {
                    match self.make_table(self.options.hash_mib) {
                        Ok(table) => self.table = Some(Arc::new(table)),
                        Err(e) => {
                            self.options.scheme = old;
                            return Err(e);
                        }
                    }
                }
            }
            "profile" => {
                self.options.profile = value_of("Profile")?
                    .parse()
                    .map_err(|e: crate::search::UnknownProfile| e.to_string())?;
            }
            "move overhead" => {
                self.options.move_overhead_ms = number("Move Overhead", 0, 5000)?;
            }
            "ownbook" => {
                self.options.own_book = match value_of("OwnBook")?.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    other => return Err(format!("option OwnBook: {other:?} is not true or false")),
                };
            }
            "bookfile" => {
                let path = value_of("BookFile")?;
                if path.is_empty() || path == "<empty>" {
                    self.book = None;
                } else {
                    self.book = Some(Book::open(&path).map_err(|e| e.to_string())?);
                }
                self.options.book_file = path;
            }
            "ponder" => {}
            _ => return Err(format!("unknown option {name:?}")),
        }
        Ok(())
    }

    /// `perft N`: per-move counts, a blank line, then `Nodes searched: N`.
    fn perft(&mut self, args: &[&str], out: &mut impl Write) -> io::Result<Result<(), String>> {
        let depth = match args {
            [text] => match text.parse::<u32>() {
                Ok(depth) if depth <= MAX_PERFT_DEPTH => depth,
                _ => {
                    return Ok(Err(format!(
                        "perft depth {text:?} is not a whole number from 0 to {MAX_PERFT_DEPTH}"
                    )));
                }
            },
            _ => return Ok(Err("usage: perft <depth>".to_string())),
        };
        write_divide(&mut self.position, depth, out)?;
        Ok(Ok(()))
    }

    /// `bench [DEPTH]`: the bench with the session's table, threads and profile.
    fn bench(&mut self, args: &[&str], out: &mut impl Write) -> io::Result<Result<(), String>> {
        let depth = match args {
            [] => crate::bench::DEFAULT_DEPTH,
            [text] => match text.parse::<u32>() {
                Ok(d) if (1..=crate::search::MAX_DEPTH).contains(&d) => d,
                _ => return Ok(Err(format!("bench depth {text:?} is not 1 to 100"))),
            },
            _ => return Ok(Err("usage: bench [depth]".to_string())),
        };
        self.stop_search();
        let config = SearchConfig {
            threads: self.options.threads,
            ..SearchConfig::with_profile(self.options.profile)
        };
        crate::bench::run(depth, config, self.table.as_deref(), out)?;
        Ok(Ok(()))
    }

    fn file_argument(args: &[&str], command: &str) -> Result<String, String> {
        if args.is_empty() {
            Err(format!("usage: {command} <file>"))
        } else {
            Ok(args.join(" "))
        }
    }

    /// `savehash FILE`.
    fn save_hash(&mut self, args: &[&str]) -> Result<(), String> {
        let path = Self::file_argument(args, "savehash")?;
        self.stop_search();
        let table = self.table.as_ref().ok_or("there is no table (Hash is 0)")?;
        table.save_file(&path).map_err(|e| e.to_string())
    }

    /// `loadhash FILE`: the file must hold a table of the current size and layout.
    fn load_hash(&mut self, args: &[&str]) -> Result<(), String> {
        let path = Self::file_argument(args, "loadhash")?;
        self.stop_search();
        let table = self.table.as_mut().ok_or("there is no table (Hash is 0)")?;
        let table = Arc::get_mut(table).ok_or("the table is still in use by a search")?;
        table.load_file(&path).map_err(|e| e.to_string())
    }
}

/// Parses the arguments of `go` into [`Limits`].
pub fn parse_go(args: &[&str]) -> Result<Limits, String> {
    let mut limits = Limits::default();
    let mut words = args.iter();
    while let Some(&word) = words.next() {
        let mut value = || -> Result<u64, String> {
            let text = words
                .next()
                .ok_or(format!("\"go {word}\" needs a number"))?;
            // Some GUIs send negative clock times when flagging; read them as 0.
            text.parse::<i64>()
                .map(|n| n.max(0) as u64)
                .map_err(|_| format!("\"go {word}\": {text:?} is not a whole number"))
        };
        let ms = |n: u64| Some(Duration::from_millis(n));
        match word {
            "wtime" => limits.wtime = ms(value()?),
            "btime" => limits.btime = ms(value()?),
            "winc" => limits.winc = ms(value()?),
            "binc" => limits.binc = ms(value()?),
            "movestogo" => limits.movestogo = Some(value()?.min(u64::from(u32::MAX)) as u32),
            "movetime" => limits.movetime = ms(value()?),
            "nodes" => limits.nodes = Some(value()?),
            "depth" => {
                let depth = value()?;
                if depth == 0 || depth > u64::from(crate::search::MAX_DEPTH) {
                    return Err(format!("\"go depth {depth}\": depth must be 1 to 100"));
                }
                limits.depth = Some(depth as u32);
            }
            "mate" => {
                let mate = value()?;
                if mate == 0 || mate > 50 {
                    return Err(format!("\"go mate {mate}\": must be 1 to 50 moves"));
                }
                limits.mate = Some(mate as u32);
            }
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "searchmoves" => return Err("\"go searchmoves\" is not supported".into()),
            other => return Err(format!("unknown \"go\" parameter {other:?}")),
        }
    }
    Ok(limits)
}

/// Writes Stockfish-style perft output: `move: count` lines, a blank line, `Nodes searched`.
pub fn write_divide(pos: &mut Position, depth: u32, out: &mut impl Write) -> io::Result<()> {
    let total = if depth == 0 {
        1
    } else {
        let counts = perft::divide(pos, depth);
        for (uci, nodes) in &counts {
            writeln!(out, "{uci}: {nodes}")?;
        }
        counts.iter().map(|(_, nodes)| nodes).sum()
    };
    writeln!(out)?;
    writeln!(out, "Nodes searched: {total}")?;
    Ok(())
}

/// Runs the loop until `quit` or the end of input (which also stops a running search).
pub fn run(input: impl BufRead, out: impl Write + Send + 'static) -> io::Result<()> {
    let output = Output::new(out);
    let mut session = UciSession::with_output(output.clone());
    for line in input.lines() {
        let mut answer = Vec::new();
        let flow = match line {
            Ok(line) => session.handle_line(&line, &mut answer)?,
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                writeln!(answer, "info string error: input line is not UTF-8")?;
                Flow::Continue
            }
            Err(e) => return Err(e),
        };
        output.write_all(&answer)?;
        if flow == Flow::Quit {
            break;
        }
    }
    drop(session);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session_output(lines: &[&str]) -> String {
        let mut session = UciSession::new();
        let mut out = Vec::new();
        for line in lines {
            session.handle_line(line, &mut out).unwrap();
        }
        String::from_utf8(out).unwrap()
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
        let limits = parse_go(&["wtime", "-5", "btime", "1000", "movestogo", "3"]).unwrap();
        assert_eq!(limits.wtime, Some(Duration::ZERO));
        assert_eq!(limits.movestogo, Some(3));
        for bad in [
            &["depth"][..],
            &["depth", "x"],
            &["depth", "0"],
            &["mate", "0"],
            &["frob"],
            &["nodes", "1.5"],
        ] {
            assert!(parse_go(bad).is_err(), "{bad:?}");
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
        ]);
        assert_eq!(out.matches("info string error:").count(), 9, "{out}");
    }
}
