//! The search thread: `go`, `perft` and `bench` run there, one at a time, so that the loop
//! keeps reading — `isready` is answered and `stop` obeyed while they run. Each job catches
//! its own panics (the last line of defence: none is expected) and reports them as
//! `info string error: ...`; a search still answers `bestmove` with a legal move.

use std::io::{self, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::thread::JoinHandle;
use std::time::Duration;

use transpo::{ChessEntry, Table};
use transpo_chess::{Position, perft};

use super::output::Output;
use crate::search::{Control, Limits, SearchConfig, Searcher};

/// Stack of the search thread: frames hold move lists and plies go deep.
const SEARCH_STACK_BYTES: usize = 64 << 20;

/// A session's search thread, if one is running, and the flags that steer it.
#[derive(Debug, Default)]
pub(super) struct SearchThread {
    control: Arc<Control>,
    handle: Option<JoinHandle<()>>,
}

impl SearchThread {
    /// The stop and ponder flags of the jobs.
    pub(super) fn control(&self) -> &Arc<Control> {
        &self.control
    }

    /// Whether a job was started and not yet joined (it may have finished).
    pub(super) fn has_job(&self) -> bool {
        self.handle.is_some()
    }

    /// Whether a job is running.
    pub(super) fn is_running(&self) -> bool {
        self.handle.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Waits until the running job ends by itself, without stopping it.
    pub(super) fn wait(&mut self) {
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }

    /// Stops the running job, if any, and waits for its end (a search's `bestmove`).
    pub(super) fn stop(&mut self) {
        if let Some(handle) = self.handle.take() {
            self.control.stop();
            // The thread catches its own panics and answers anyway; a join error cannot
            // leave anything more to print.
            let _ = handle.join();
        }
    }

    /// Runs `job` in a new search thread (after stopping the previous job), with the stop
    /// flag cleared; `Err` if the system refuses a thread.
    pub(super) fn spawn(
        &mut self,
        pondering: bool,
        job: impl FnOnce() + Send + 'static,
    ) -> Result<(), String> {
        self.stop();
        self.control.reset(pondering);
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(job);
        match spawned {
            Ok(handle) => {
                self.handle = Some(handle);
                Ok(())
            }
            Err(e) => Err(format!("could not start the search thread: {e}")),
        }
    }
}

/// What a `go` job needs besides the searcher.
pub(super) struct SearchJob {
    /// The position to search (a copy: the session's may change meanwhile).
    pub(super) position: Position,
    /// The limits of the `go` line.
    pub(super) limits: Limits,
    /// The session's table, if any.
    pub(super) table: Option<Arc<Table<ChessEntry>>>,
    /// Where `info` and `bestmove` go.
    pub(super) output: Output,
    /// The move to answer should the search fail (`0000` when there is none).
    pub(super) fallback: String,
    /// Where to report how long the `go` took, from the line's arrival
    /// ([`Limits::clock_start`]) to `bestmove` written, in microseconds.
    pub(super) own_time: Arc<AtomicU64>,
    /// Test hook: panic instead of searching.
    pub(super) panic_now: bool,
}

impl SearchJob {
    /// The job: search, wait for `stop` after `go infinite` or while pondering, answer
    /// `bestmove` (the fallback move should the search panic).
    pub(super) fn run(self, searcher: Searcher, control: Arc<Control>) {
        let SearchJob {
            mut position,
            limits,
            table,
            output,
            fallback,
            own_time,
            panic_now,
        } = self;
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
        if let Some(received) = limits.clock_start {
            let micros = received.elapsed().as_micros();
            own_time.store(u64::try_from(micros).unwrap_or(u64::MAX).max(1), Relaxed);
        }
    }
}

/// The `perft` job: per-move counts, a blank line, `Nodes searched: N`; a stop ends it with
/// `info string perft stopped`.
pub(super) fn perft_job(mut position: Position, depth: u32, control: Arc<Control>, output: Output) {
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
}

/// The `bench` job; a stop ends it after the current position.
pub(super) fn bench_job(
    depth: u32,
    config: SearchConfig,
    table: Option<Arc<Table<ChessEntry>>>,
    control: Arc<Control>,
    output: Output,
) {
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
