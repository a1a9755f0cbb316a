//! One UCI conversation: the position, the options, the table and the book, and one line
//! handled at a time.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cozy_chess::Move;
use transpo::{ChessEntry, Size, Table, persist::TableFile, table::Instrumented};
use transpo_chess::{Book, Position, SplitMix64};

use super::lag::Lag;
use super::options::{
    DEFAULT_HASH_MIB, MAX_PERFT_DEPTH, OptionChange, Options, SessionLimits, is_no_file,
    write_uci_answer,
};
use super::output::Output;
use super::parse::{bench_depth, file_argument, parse_go, parse_position, perft_depth};
use super::search_thread::{SearchJob, SearchThread, bench_job, perft_job};
use crate::eval::Evaluator;
use crate::search::{MAX_DEPTH, SearchConfig, Searcher};

/// Whether the loop should go on after a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` was received.
    Quit,
}

/// The state of one UCI conversation.
pub struct UciSession {
    position: Position,
    options: Options,
    limits: SessionLimits,
    table: Option<Arc<Table<ChessEntry>>>,
    book: Option<Book>,
    rng: SplitMix64,
    /// The search thread, running a `go`, `perft` or `bench`.
    thread: SearchThread,
    async_out: Output,
    /// What the GUI charges per move beyond the engine's own time (see `lag`).
    lag: Lag,
    /// Test hook: the next search panics (to test the last line of defence).
    #[cfg(test)]
    pub(super) panic_next_search: bool,
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
            .field("searching", &self.thread.has_job())
            .finish()
    }
}

impl Drop for UciSession {
    fn drop(&mut self) {
        self.thread.stop();
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
            thread: SearchThread::default(),
            async_out: out,
            lag: Lag::default(),
            #[cfg(test)]
            panic_next_search: false,
        };
        // The search thread waits from the start, so that the first `go` wakes it rather
        // than waiting for a new thread; should the system refuse a thread now, the first
        // job asks again and reports it.
        let _ = session.thread.start();
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
        self.thread.wait();
    }

    /// Whether a search thread is running (or finished and not yet joined).
    pub fn is_searching(&self) -> bool {
        self.thread.is_running()
    }

    /// Handles one input line, writing any immediate answer to `out`.
    pub fn handle_line(&mut self, line: &str, out: &mut impl Write) -> io::Result<Flow> {
        // A `go`'s clock starts here, not when its search thread first runs: the GUI's
        // clock does too.
        let received = Instant::now();
        let mut words = line.split_ascii_whitespace();
        let Some(command) = words.next() else {
            return Ok(Flow::Continue);
        };
        let rest: Vec<&str> = words.collect();
        let result = match command {
            "uci" => write_uci_answer(out, &self.limits).map(Ok)?,
            "isready" => {
                writeln!(out, "readyok")?;
                Ok(())
            }
            "ucinewgame" => {
                self.thread.stop();
                if let Some(table) = &self.table
                    && !self.options.never_clear_hash
                {
                    table.prefault(self.options.threads);
                }
                self.position = Position::startpos();
                self.lag.new_game();
                Ok(())
            }
            "position" => parse_position(&rest).map(|position| self.position = position),
            "go" => self.go(&rest, received, out)?,
            "stop" => {
                self.thread.stop();
                Ok(())
            }
            "ponderhit" => {
                self.thread.control().ponderhit();
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
            "stats" => {
                // The table's fill, counted over every slot (between searches: a full scan).
                match &self.table {
                    Some(table) => writeln!(
                        out,
                        "info string hash {} hashfull {}",
                        table.usage(),
                        table.hashfull()
                    )?,
                    None => writeln!(out, "info string hash off")?,
                }
                Ok(())
            }
            "bench" => self.bench(&rest),
            "savehash" => self.save_hash(&rest),
            "loadhash" => self.load_hash(&rest),
            "quit" => {
                self.thread.stop();
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

    /// A table of `mib` MiB with the current scheme, its memory touched now with the
    /// session's threads ([`Table::prefault`]) so that the first search does not pay for it.
    fn make_table(&self, mib: u64) -> Result<Table<ChessEntry>, String> {
        let table =
            crate::search::engine_table(mib, self.options.scheme).map_err(|e| e.to_string())?;
        table.prefault(self.options.threads);
        Ok(table)
    }

    /// `go ...`: starts a search thread (or answers from the book, or runs `go perft N`).
    /// Every `go` but `go perft` is answered with one `bestmove`: a parameter that is
    /// unknown, has no number or a number out of range is reported as `info string error:
    /// ...` and the line is answered from a depth-1 search; `searchmoves` that do not parse
    /// or are not legal are reported and left out (every move is searched when none is
    /// left). The clock runs from `received`, when the line arrived: joining the previous
    /// search thread and starting this one count against the time budget, as they do on
    /// the GUI's clock.
    fn go(
        &mut self,
        args: &[&str],
        received: Instant,
        out: &mut impl Write,
    ) -> io::Result<Result<(), String>> {
        if args.first() == Some(&"perft") {
            return Ok(self.perft(&args[1..]));
        }
        let go = parse_go(args);
        // The previous search answers first; then what is wrong with this line, in order
        // before this search's lines (through the output the search thread writes to).
        self.thread.stop();
        let mut said = Vec::new();
        for error in &go.errors {
            writeln!(said, "info string error: {error}")?;
        }
        if !go.errors.is_empty() {
            writeln!(
                said,
                "info string error: \"go\" had errors; answering from a depth 1 search"
            )?;
        }
        let mut limits = go.limits_to_search();
        limits.clock_start = Some(received);
        if let Some(named) = &go.searchmoves {
            limits.searchmoves = self.searchmoves(named, &mut said)?;
        }
        self.async_out.write_all(&said)?;
        if let Some(cap) = self.limits.max_nodes {
            limits.nodes = Some(limits.nodes.map_or(cap, |n| n.min(cap)));
        }
        if self.options.own_book
            && limits.searchmoves.is_empty()
            && !limits.infinite
            && !limits.ponder
            && let Some(book) = &self.book
            && let Some(pick) = book.pick(&self.position, &mut self.rng)
        {
            writeln!(out, "info string book move {}", pick.uci)?;
            writeln!(out, "bestmove {}", pick.uci)?;
            return Ok(Ok(()));
        }
        // The overhead: the option, or what the GUI was seen to charge beyond the engine's
        // own time when that is more (a busy machine delays both processes).
        let option = Duration::from_millis(self.options.move_overhead_ms);
        let before = self.lag.estimate();
        let move_overhead = self.lag.overhead_at_go(&self.position, &limits, option);
        if move_overhead > option && self.lag.estimate() > before + before / 4 {
            writeln!(
                out,
                "info string move overhead {} ms: the GUI charged that much beyond this engine's own time (Move Overhead {} ms); the clock keeps {} ms",
                move_overhead.as_millis(),
                option.as_millis(),
                self.lag.reserve().as_millis()
            )?;
        }
        // And what the clock keeps back for the stalls seen (see `lag`).
        let clock_reserve = self.lag.reserve();
        let white = self.position.side_to_move() == cozy_chess::Color::White;
        let hard = limits
            .time_budget_keeping(white, move_overhead, clock_reserve)
            .map(|b| b.hard);
        self.lag.started(&self.position, &limits, hard);
        let config = SearchConfig {
            threads: self.options.threads,
            move_overhead,
            clock_reserve,
            ..SearchConfig::with_profile(self.options.profile)
        };
        let control = Arc::clone(self.thread.control());
        let searcher = Searcher::with_control(config, Arc::clone(&control));
        let pondering = limits.ponder;
        let job = SearchJob {
            position: self.position.clone(),
            limits,
            table: self.table.clone(),
            output: self.async_out.clone(),
            // The answer should the search fail: any legal move.
            fallback: self.any_legal_move(),
            own_time: self.lag.own_time(),
            #[cfg(test)]
            panic_now: std::mem::take(&mut self.panic_next_search),
            #[cfg(not(test))]
            panic_now: false,
        };
        let spawned = self
            .thread
            .spawn(pondering, move || job.run(searcher, control));
        if let Err(e) = spawned {
            // No thread: answer with any legal move so the GUI is not left waiting.
            writeln!(out, "bestmove {}", self.any_legal_move())?;
            return Ok(Err(e));
        }
        Ok(Ok(()))
    }

    /// The legal moves of the position among `named` (the words after `go searchmoves`),
    /// each once; each word that is no legal move here is reported to `out` and left out.
    /// Empty when none is left: every move is searched, and that is reported too.
    fn searchmoves(&self, named: &[String], out: &mut impl Write) -> io::Result<Vec<Move>> {
        let mut moves = Vec::new();
        for text in named {
            match self.position.parse_uci_move(text) {
                Ok(mv) if self.position.is_legal(mv) => {
                    if !moves.contains(&mv) {
                        moves.push(mv);
                    }
                }
                Ok(_) => writeln!(
                    out,
                    "info string error: \"go searchmoves\": {text:?} is not a legal move here; left out"
                )?,
                Err(e) => writeln!(
                    out,
                    "info string error: \"go searchmoves\": {text:?}: {e}; left out"
                )?,
            }
        }
        if moves.is_empty() {
            writeln!(
                out,
                "info string error: \"go searchmoves\" names no legal move; searching every move"
            )?;
        }
        Ok(moves)
    }

    /// The UCI text of a legal move of the position, `0000` when there is none.
    fn any_legal_move(&self) -> String {
        let first = self.position.legal_moves().first().copied();
        first.map_or("0000".to_string(), |mv| self.position.move_to_uci(mv))
    }

    /// `setoption name <NAME> [value <VALUE>]`: on any error the options, the table and the
    /// book stay as they were.
    fn set_option(&mut self, args: &[&str]) -> Result<(), String> {
        match OptionChange::parse(args, &self.limits)? {
            OptionChange::Hash(mib) => {
                self.thread.stop();
                // The search thread is joined, so the session holds the only reference and
                // the table is reset in place: set to the size, cleared and prefaulted,
                // its memory kept when the size is the same (`Table::resize`).
                match (mib, self.table.as_mut().and_then(Arc::get_mut)) {
                    (0, _) => self.table = None,
                    (_, Some(table)) => table
                        .resize(Size::Mib(mib), self.options.threads)
                        .map_err(|e| e.to_string())?,
                    (_, None) => self.table = Some(Arc::new(self.make_table(mib)?)),
                }
                self.options.hash_mib = mib;
            }
            OptionChange::Threads(threads) => self.options.threads = threads,
            OptionChange::ClearHash => {
                self.thread.stop();
                if let Some(table) = &self.table {
                    table.prefault(self.options.threads);
                }
            }
            OptionChange::Replacement(scheme) => {
                self.thread.stop();
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
            OptionChange::Profile(profile) => self.options.profile = profile,
            OptionChange::MoveOverhead(ms) => self.options.move_overhead_ms = ms,
            OptionChange::OwnBook(on) => self.options.own_book = on,
            OptionChange::BookFile(path) => {
                self.book = if is_no_file(&path) {
                    None
                } else {
                    Some(Book::open(&path).map_err(|e| e.to_string())?)
                };
                self.options.book_file = path;
            }
            OptionChange::Ponder => {}
            OptionChange::NeverClearHash(on) => self.options.never_clear_hash = on,
            OptionChange::HashFile(path) => self.options.hash_file = path,
            OptionChange::SaveHashToFile => {
                let path = self.hash_file("SaveHashtoFile")?;
                self.save_table(&path, "SaveHashtoFile")?;
            }
            OptionChange::LoadHashFromFile => {
                let path = self.hash_file("LoadHashfromFile")?;
                self.load_table(&path, "LoadHashfromFile")?;
            }
        }
        Ok(())
    }

    /// `perft N` (and `go perft N`), in the search thread: per-move counts, a blank line,
    /// then `Nodes searched: N`; `stop` ends it early with `info string perft stopped`.
    fn perft(&mut self, args: &[&str]) -> Result<(), String> {
        let depth = perft_depth(args, self.limits.max_perft_depth.min(MAX_PERFT_DEPTH))?;
        let position = self.position.clone();
        let control = Arc::clone(self.thread.control());
        let output = self.async_out.clone();
        self.thread
            .spawn(false, move || perft_job(position, depth, control, output))
    }

    /// `bench [DEPTH]`: the bench with the session's table, threads and profile, in the
    /// search thread; `stop` ends it after the current position.
    fn bench(&mut self, args: &[&str]) -> Result<(), String> {
        let depth = bench_depth(args, self.limits.max_bench_depth.min(MAX_DEPTH))?;
        let config = SearchConfig {
            threads: self.options.threads,
            ..SearchConfig::with_profile(self.options.profile)
        };
        let table = self.table.clone();
        let control = Arc::clone(self.thread.control());
        let output = self.async_out.clone();
        self.thread.spawn(false, move || {
            bench_job(depth, config, table, control, output)
        })
    }

    /// `savehash FILE`.
    fn save_hash(&mut self, args: &[&str]) -> Result<(), String> {
        let path = file_argument(args, "savehash")?;
        self.save_table(&path, "savehash")
    }

    /// `loadhash FILE`.
    fn load_hash(&mut self, args: &[&str]) -> Result<(), String> {
        let path = file_argument(args, "loadhash")?;
        self.load_table(&path, "loadhash")
    }

    /// The `HashFile` option's path, for the button `what`.
    fn hash_file(&self, what: &str) -> Result<String, String> {
        if is_no_file(&self.options.hash_file) {
            return Err(format!("{what}: set HashFile to a path first"));
        }
        Ok(self.options.hash_file.clone())
    }

    /// Saves the table to `path` (for `savehash` and `SaveHashtoFile`, named by `what`).
    fn save_table(&mut self, path: &str, what: &str) -> Result<(), String> {
        if !self.limits.files {
            return Err(format!("{what}: files are disabled in this session"));
        }
        self.thread.stop();
        let table = self.table.as_ref().ok_or("there is no table (Hash is 0)")?;
        table
            .save(TableFile(path))
            .map_err(|e| format!("{what} {path}: {e}"))
    }

    /// Loads the table from `path` (for `loadhash` and `LoadHashfromFile`, named by
    /// `what`): the file must hold a table of the current size and layout.
    fn load_table(&mut self, path: &str, what: &str) -> Result<(), String> {
        if !self.limits.files {
            return Err(format!("{what}: files are disabled in this session"));
        }
        self.thread.stop();
        let table = self.table.as_mut().ok_or("there is no table (Hash is 0)")?;
        let table = Arc::get_mut(table).ok_or("the table is still in use by a search")?;
        table
            .load(TableFile(path))
            .map_err(|e| format!("{what} {path}: {e}"))
    }
}
