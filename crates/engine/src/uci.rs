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
//! Nothing a line asks for can hang the loop: every long command (`go`, `perft`, `go perft`,
//! `bench`) runs in the search thread, where `stop`, `quit`, a new command that needs the
//! thread, or the end of input ends it. Should the search itself panic (it must not; this is
//! the last line of defence), the thread reports `info string error: ...` and still answers
//! `bestmove` with a legal move, so a GUI is never left waiting. Every numeric argument has a
//! checked range, stated in the error that rejects it and, for options, in the `uci` answer:
//!
//! | argument | range |
//! |---|---|
//! | `go depth` | 1 to [`MAX_DEPTH`] |
//! | `go mate` | 1 to [`MAX_GO_MATE`] |
//! | `go nodes` | 1 to 2⁶³ − 1 |
//! | `go wtime btime winc binc movetime` (ms) | any whole number up to 2⁶³ − 1; negative clocks (a flagging GUI) read as 0 |
//! | `go movestogo` | 0 to 2⁶³ − 1 (0 and values above 60 are clamped to 1 and 60) |
//! | `perft`, `go perft` | 0 to [`MAX_PERFT_DEPTH`] |
//! | `bench` | 1 to [`MAX_DEPTH`] |
//! | options | the `min`/`max` of the `uci` answer |
//!
//! [`SessionLimits`] narrows these further, for a fuzz target or a shared server: a cap on
//! the table size, threads, nodes per search and perft and bench depths, and no file access.
//!
//! Commands: `uci`, `isready`, `ucinewgame`, `position startpos|fen <FEN> [moves ...]`,
//! `go [wtime|btime|winc|binc|movestogo|movetime|nodes|depth|mate N] [infinite] [ponder]`,
//! `go perft N`, `stop`, `ponderhit`, `setoption name <NAME> [value <VALUE>]`, `quit`, and
//! Stockfish's extras `d`, `eval`, `bench [DEPTH]`, `perft N`, plus `savehash FILE` and
//! `loadhash FILE` (the table's persistence).

use std::io::{self, BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use transpo::{ChessEntry, Config, Scheme, Size, Table};

use crate::eval::Evaluator;
use crate::search::{Control, Limits, MAX_DEPTH, Profile, SearchConfig, Searcher};
use transpo_chess::book::{Book, SplitMix64};
use transpo_chess::perft;
use transpo_chess::position::Position;

/// Deepest perft the loop accepts (the same as the binary's `perft`): the recursion stays
/// shallow, and anything deeper would take years anyway (it can still be stopped).
pub const MAX_PERFT_DEPTH: u32 = perft::MAX_DEPTH;
/// Largest `go mate N`.
pub const MAX_GO_MATE: u32 = 50;
/// Largest `Move Overhead`, milliseconds.
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5000;
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

/// Writes through [`Output::write_all`]; wrap it in an [`io::LineWriter`] so that lines
/// written piecemeal (`writeln!`) still go out whole.
impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.put(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

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
        self.put(bytes)
    }

    fn put(&self, bytes: &[u8]) -> io::Result<()> {
        let mut out = self.0.lock().unwrap_or_else(|poison| poison.into_inner());
        out.write_all(bytes)?;
        out.flush()
    }

    /// Writes one line. Errors are dropped: a GUI that went away cannot be told.
    pub fn line(&self, text: &str) {
        let _ = self.write_all(format!("{text}\n").as_bytes());
    }
}

/// What a session may use at most: the engine's own limits by default, much less for a fuzz
/// target ([`SessionLimits::fuzz`]) or a shared server. A value beyond a limit is rejected
/// like any out-of-range value (`info string error: ...`), except `go` node counts, which
/// are capped silently so that any `go` ends after at most [`SessionLimits::max_nodes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionLimits {
    /// Largest `Hash`, MiB (also the default table's size cap).
    pub max_hash_mib: u64,
    /// Most `Threads`.
    pub max_threads: usize,
    /// Most nodes one `go` searches (`None`: no cap).
    pub max_nodes: Option<u64>,
    /// Deepest `perft` / `go perft`.
    pub max_perft_depth: u32,
    /// Deepest `bench`.
    pub max_bench_depth: u32,
    /// Whether `BookFile`, `savehash` and `loadhash` may touch files.
    pub files: bool,
}

impl Default for SessionLimits {
    /// The engine's own limits: everything the UCI front accepts.
    fn default() -> Self {
        SessionLimits {
            max_hash_mib: MAX_HASH_MIB,
            max_threads: MAX_THREADS,
            max_nodes: None,
            max_perft_depth: MAX_PERFT_DEPTH,
            max_bench_depth: MAX_DEPTH,
            files: true,
        }
    }
}

impl SessionLimits {
    /// Tiny limits for fuzzing: 1 MiB table, 2 threads, 2,000 nodes per search, perft depth
    /// 3, bench depth 1, no files. Every command then ends within milliseconds.
    pub fn fuzz() -> Self {
        SessionLimits {
            max_hash_mib: 1,
            max_threads: 2,
            max_nodes: Some(2_000),
            max_perft_depth: 3,
            max_bench_depth: 1,
            files: false,
        }
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
    limits: SessionLimits,
    table: Option<Arc<Table<ChessEntry>>>,
    book: Option<Book>,
    rng: SplitMix64,
    control: Arc<Control>,
    /// The search thread, running a `go`, `perft` or `bench`.
    search: Option<JoinHandle<()>>,
    async_out: Output,
    /// Test hook: the next search panics (to test the last line of defence).
    #[cfg(test)]
    panic_next_search: bool,
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
        Self::with_limits(out, SessionLimits::default())
    }

    /// A session within `limits` whose searches write to `out`.
    pub fn with_limits(out: Output, limits: SessionLimits) -> Self {
        let hash_mib = DEFAULT_HASH_MIB.min(limits.max_hash_mib);
        let mut session = UciSession {
            position: Position::startpos(),
            options: Options {
                hash_mib,
                ..Options::default()
            },
            limits,
            table: None,
            book: None,
            rng: SplitMix64::new(0x0074_7261_6e73_706f),
            control: Arc::default(),
            search: None,
            async_out: out,
            #[cfg(test)]
            panic_next_search: false,
        };
        // The default table is small; if even that fails, the engine runs without one.
        if hash_mib > 0 {
            session.table = session.make_table(hash_mib).ok().map(Arc::new);
        }
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

    /// Waits until the running command (`go`, `perft`, `bench`) ends by itself, without
    /// stopping it. Only for commands that do end: a `go infinite` or `go ponder` waits for
    /// a `stop` that this thread can then no longer send.
    pub fn wait_for_search(&mut self) {
        if let Some(handle) = self.search.take() {
            let _ = handle.join();
        }
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
            "perft" => self.perft(&rest),
            "bench" => self.bench(&rest),
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
            "option name Hash type spin default {} min 0 max {}",
            DEFAULT_HASH_MIB.min(self.limits.max_hash_mib),
            self.limits.max_hash_mib
        )?;
        writeln!(
            out,
            "option name Threads type spin default 1 min 1 max {}",
            self.limits.max_threads
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
            "option name Move Overhead type spin default 10 min 0 max {MAX_MOVE_OVERHEAD_MS}"
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

    /// Stops the running search (or perft, or bench), if any, and waits for its end (a
    /// search's `bestmove`).
    fn stop_search(&mut self) {
        if let Some(handle) = self.search.take() {
            self.control.stop();
            // The thread catches its own panics and answers anyway; a join error cannot
            // leave anything more to print.
            let _ = handle.join();
        }
    }

    /// Runs `job` in the search thread (after stopping the previous one), with the stop
    /// flag cleared; `Err` if the system refuses a thread.
    fn spawn_job(
        &mut self,
        pondering: bool,
        job: impl FnOnce() + Send + 'static,
    ) -> Result<(), String> {
        self.stop_search();
        self.control.reset(pondering);
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(job);
        match spawned {
            Ok(handle) => {
                self.search = Some(handle);
                Ok(())
            }
            Err(e) => Err(format!("could not start the search thread: {e}")),
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
            position
                .play(mv)
                .map_err(|e| format!("move {} of the list: {e}", index + 1))?;
        }
        self.position = position;
        Ok(())
    }

    /// `go ...`: starts a search thread (or answers from the book, or runs `go perft N`).
    fn go(&mut self, args: &[&str], out: &mut impl Write) -> io::Result<Result<(), String>> {
        if args.first() == Some(&"perft") {
            return Ok(self.perft(&args[1..]));
        }
        let mut limits = match parse_go(args) {
            Ok(limits) => limits,
            Err(e) => return Ok(Err(e)),
        };
        if let Some(cap) = self.limits.max_nodes {
            limits.nodes = Some(limits.nodes.map_or(cap, |n| n.min(cap)));
        }
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
        let config = SearchConfig {
            threads: self.options.threads,
            move_overhead: Duration::from_millis(self.options.move_overhead_ms),
            ..SearchConfig::with_profile(self.options.profile)
        };
        let searcher = Searcher::with_control(config, Arc::clone(&self.control));
        let table = self.table.clone();
        let mut position = self.position.clone();
        // The answer should the search fail: any legal move.
        let fallback = self
            .position
            .legal_moves()
            .first()
            .map_or("0000".to_string(), |&mv| self.position.move_to_uci(mv));
        let output = self.async_out.clone();
        let control = Arc::clone(&self.control);
        #[cfg(test)]
        let panic_now = std::mem::take(&mut self.panic_next_search);
        #[cfg(not(test))]
        let panic_now = false;
        let spawned = self.spawn_job(limits.ponder, move || {
            let searched = catch_unwind(AssertUnwindSafe(|| {
                if panic_now {
                    panic!("test hook: the search panics");
                }
                searcher.search(&mut position, &limits, table.as_deref(), &mut |info| {
                    output.line(&info.to_string())
                })
            }));
            // UCI: after `go infinite` or while pondering, bestmove waits for stop.
            while (limits.infinite || control.is_pondering()) && !control.is_stopped() {
                std::thread::sleep(Duration::from_millis(1));
            }
            let line = match searched {
                Ok(result) => match (result.best_move_uci(), result.ponder_uci()) {
                    (None, _) => "bestmove 0000".to_string(),
                    (Some(best), Some(ponder)) => format!("bestmove {best} ponder {ponder}"),
                    (Some(best), None) => format!("bestmove {best}"),
                },
                Err(panic) => {
                    output.line(&format!(
                        "info string error: the search failed ({}); answering with a legal move",
                        panic_message(panic.as_ref())
                    ));
                    format!("bestmove {fallback}")
                }
            };
            output.line(&line);
        });
        if let Err(e) = spawned {
            // No thread: answer with any legal move so the GUI is not left waiting.
            let fallback = self.position.legal_moves().first().copied();
            let text = fallback.map_or("0000".to_string(), |mv| self.position.move_to_uci(mv));
            writeln!(out, "bestmove {text}")?;
            return Ok(Err(e));
        }
        Ok(Ok(()))
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
        let files = self.limits.files;
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
                let mib = number("Hash", 0, self.limits.max_hash_mib)?;
                self.stop_search();
                self.table = match mib {
                    0 => None,
                    _ => Some(Arc::new(self.make_table(mib)?)),
                };
                self.options.hash_mib = mib;
            }
            "threads" => {
                self.options.threads =
                    number("Threads", 1, self.limits.max_threads as u64)? as usize;
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
                self.options.move_overhead_ms = number("Move Overhead", 0, MAX_MOVE_OVERHEAD_MS)?;
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
                } else if !files {
                    return Err("option BookFile: files are disabled in this session".into());
                } else {
                    self.book = Some(Book::open(&path).map_err(|e| e.to_string())?);
                }
                self.options.book_file = path;
            }
            "ponder" => {
                // Pondering is driven by `go ponder`; the option only has to be well formed.
                match value_of("Ponder")?.to_ascii_lowercase().as_str() {
                    "true" | "false" => {}
                    other => return Err(format!("option Ponder: {other:?} is not true or false")),
                }
            }
            _ => return Err(format!("unknown option {name:?}")),
        }
        Ok(())
    }

    /// `perft N` (and `go perft N`), in the search thread: per-move counts, a blank line,
    /// then `Nodes searched: N`; `stop` ends it early with `info string perft stopped`.
    fn perft(&mut self, args: &[&str]) -> Result<(), String> {
        let max = self.limits.max_perft_depth.min(MAX_PERFT_DEPTH);
        let depth = match args {
            [text] => match text.parse::<u32>() {
                Ok(depth) if depth <= max => depth,
                _ => {
                    return Err(format!(
                        "perft depth {text:?} is not a whole number from 0 to {max}"
                    ));
                }
            },
            _ => return Err(format!("usage: perft <depth>, depth 0 to {max}")),
        };
        let mut position = self.position.clone();
        let control = Arc::clone(&self.control);
        let output = self.async_out.clone();
        self.spawn_job(false, move || {
            let mut out = io::LineWriter::new(output.clone());
            let stop = || control.is_stopped();
            let done = catch_unwind(AssertUnwindSafe(|| {
                write_divide_until(&mut position, depth, &mut out, &stop)
            }));
            match done {
                Ok(Ok(true)) => {}
                Ok(Ok(false)) => output.line("info string perft stopped"),
                Ok(Err(_)) => {}
                Err(panic) => output.line(&format!(
                    "info string error: perft failed ({})",
                    panic_message(panic.as_ref())
                )),
            }
        })
    }

    /// `bench [DEPTH]`: the bench with the session's table, threads and profile, in the
    /// search thread; `stop` ends it after the current position.
    fn bench(&mut self, args: &[&str]) -> Result<(), String> {
        let max = self.limits.max_bench_depth.min(MAX_DEPTH);
        let depth = match args {
            [] => crate::bench::DEFAULT_DEPTH.min(max),
            [text] => match text.parse::<u32>() {
                Ok(d) if (1..=max).contains(&d) => d,
                _ => {
                    return Err(format!(
                        "bench depth {text:?} is not a whole number from 1 to {max}"
                    ));
                }
            },
            _ => return Err(format!("usage: bench [depth], depth 1 to {max}")),
        };
        let config = SearchConfig {
            threads: self.options.threads,
            ..SearchConfig::with_profile(self.options.profile)
        };
        let table = self.table.clone();
        let control = Arc::clone(&self.control);
        let output = self.async_out.clone();
        self.spawn_job(false, move || {
            let mut out = io::LineWriter::new(output.clone());
            let done = catch_unwind(AssertUnwindSafe(|| {
                crate::bench::run_with_control(depth, config, table.as_deref(), &mut out, control)
            }));
            if let Err(panic) = done {
                output.line(&format!(
                    "info string error: bench failed ({})",
                    panic_message(panic.as_ref())
                ));
            }
        })
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
        if !self.limits.files {
            return Err("savehash: files are disabled in this session".into());
        }
        self.stop_search();
        let table = self.table.as_ref().ok_or("there is no table (Hash is 0)")?;
        table.save_file(&path).map_err(|e| e.to_string())
    }

    /// `loadhash FILE`: the file must hold a table of the current size and layout.
    fn load_hash(&mut self, args: &[&str]) -> Result<(), String> {
        let path = Self::file_argument(args, "loadhash")?;
        if !self.limits.files {
            return Err("loadhash: files are disabled in this session".into());
        }
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
            text.parse::<i64>().map(|n| n.max(0) as u64).map_err(|_| {
                format!(
                    "\"go {word}\": {text:?} is not a whole number from {} to {}",
                    i64::MIN,
                    i64::MAX
                )
            })
        };
        let ms = |n: u64| Some(Duration::from_millis(n));
        match word {
            "wtime" => limits.wtime = ms(value()?),
            "btime" => limits.btime = ms(value()?),
            "winc" => limits.winc = ms(value()?),
            "binc" => limits.binc = ms(value()?),
            "movestogo" => limits.movestogo = Some(value()?.min(u64::from(u32::MAX)) as u32),
            "movetime" => limits.movetime = ms(value()?),
            "nodes" => {
                let nodes = value()?;
                if nodes == 0 {
                    return Err(format!("\"go nodes 0\": nodes must be 1 to {}", i64::MAX));
                }
                limits.nodes = Some(nodes);
            }
            "depth" => {
                let depth = value()?;
                if depth == 0 || depth > u64::from(MAX_DEPTH) {
                    return Err(format!(
                        "\"go depth {depth}\": depth must be 1 to {MAX_DEPTH}"
                    ));
                }
                limits.depth = Some(depth as u32);
            }
            "mate" => {
                let mate = value()?;
                if mate == 0 || mate > u64::from(MAX_GO_MATE) {
                    return Err(format!(
                        "\"go mate {mate}\": must be 1 to {MAX_GO_MATE} moves"
                    ));
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
    write_divide_until(pos, depth, out, &|| false).map(|_| ())
}

/// [`write_divide`] that gives up when `stop` returns `true` (asked every few thousand
/// nodes); `Ok(false)` if it stopped, having written the counts of the moves it finished.
pub fn write_divide_until(
    pos: &mut Position,
    depth: u32,
    out: &mut impl Write,
    stop: &dyn Fn() -> bool,
) -> io::Result<bool> {
    let total = if depth == 0 {
        1
    } else {
        let Some(counts) = perft::divide_until(pos, depth, stop) else {
            out.flush()?;
            return Ok(false);
        };
        for (uci, nodes) in &counts {
            writeln!(out, "{uci}: {nodes}")?;
        }
        counts.iter().map(|(_, nodes)| nodes).sum()
    };
    writeln!(out)?;
    writeln!(out, "Nodes searched: {total}")?;
    out.flush()?;
    Ok(true)
}

/// The message of a caught panic, for an `info string error` line.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic".to_string()
    }
}

/// Runs the loop until `quit` or the end of input (which also stops a running search).
pub fn run(input: impl BufRead, out: impl Write + Send + 'static) -> io::Result<()> {
    run_with_limits(input, out, SessionLimits::default())
}

/// [`run`] within `limits`: the entry point for a fuzz target, with
/// [`SessionLimits::fuzz`]. Any bytes as input end in bounded time: lines are handled as
/// they come, long commands run in the search thread, and at the end of input (or `quit`)
/// the running command is stopped and joined (a `go infinite` answers `bestmove`) before
/// this returns.
pub fn run_with_limits(
    input: impl BufRead,
    out: impl Write + Send + 'static,
    limits: SessionLimits,
) -> io::Result<()> {
    let output = Output::new(out);
    let mut session = UciSession::with_limits(output.clone(), limits);
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
        // Issue 14: kings side by side were accepted, and the search panicked in
        // cozy-chess without a bestmove.
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
                     bench 2\ngo nodes 100000000\nisready\n";
        let buffer = Buffer::default();
        run_with_limits(
            io::Cursor::new(input),
            buffer.clone(),
            SessionLimits::fuzz(),
        )
        .unwrap();
        let text = buffer.text();
        assert_eq!(text.matches("info string error").count(), 6, "{text}");
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
            &["nodes", "0"],
            &["depth", "101"],
            &["mate", "51"],
            &["wtime", "99999999999999999999"],
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
            "setoption name Ponder value maybe",
            "setoption name Ponder value true",
        ]);
        assert_eq!(out.matches("info string error:").count(), 10, "{out}");
    }
}
