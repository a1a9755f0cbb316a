//! The search thread: `go`, `perft` and `bench` run there, one at a time, so that the loop
//! keeps reading — `isready` is answered and `stop` obeyed while they run. Each job catches
//! its own panics (the last line of defence: none is expected) and reports them as
//! `info string error: ...`; a search still answers `bestmove` with a legal move.

use std::io::{self, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, PoisonError, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use transpo::{ChessEntry, Table};
use transpo_chess::{Position, perft};

use super::output::Output;
use crate::search::{Control, Limits, SearchConfig, Searcher};

/// Stack of the search thread: frames hold move lists and plies go deep.
const SEARCH_STACK_BYTES: usize = 64 << 20;

/// A job for the search thread.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// The thread that runs the jobs, one at a time, waiting for the next between them.
///
/// It is started once and kept: on a busy machine the scheduler queues a new thread behind
/// the running ones, so a thread spawned per `go` first runs far later than one woken from
/// its wait, and that time is on the engine's clock, which runs from the `go` (the
/// measurements are in `docs/engine/robustness.md`).
#[derive(Debug)]
struct Runner {
    jobs: mpsc::Sender<Job>,
    handle: JoinHandle<()>,
}

/// Whether a job runs: set when it is handed over, cleared by the runner when it returns.
#[derive(Debug, Default)]
struct Busy {
    running: Mutex<bool>,
    changed: Condvar,
}

impl Busy {
    fn set(&self, running: bool) {
        *self.running.lock().unwrap_or_else(PoisonError::into_inner) = running;
        self.changed.notify_all();
    }

    fn get(&self) -> bool {
        *self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A session's search thread, the job it runs if any, and the flags that steer it.
#[derive(Debug, Default)]
pub(super) struct SearchThread {
    control: Arc<Control>,
    runner: Option<Runner>,
    busy: Arc<Busy>,
    /// A job was handed over and not yet waited for.
    pending: bool,
}

impl Drop for SearchThread {
    /// Stops the running job; the runner ends when its channel closes, and is joined.
    fn drop(&mut self) {
        self.stop();
        if let Some(Runner { jobs, handle }) = self.runner.take() {
            drop(jobs);
            let _ = handle.join();
        }
    }
}

impl SearchThread {
    /// The stop and ponder flags of the jobs.
    pub(super) fn control(&self) -> &Arc<Control> {
        &self.control
    }

    /// Whether a job was started and not yet waited for (it may have finished).
    pub(super) fn has_job(&self) -> bool {
        self.pending
    }

    /// Whether a job is running.
    pub(super) fn is_running(&self) -> bool {
        self.busy.get()
    }

    /// Waits until the running job ends by itself, without stopping it.
    pub(super) fn wait(&mut self) {
        if !std::mem::take(&mut self.pending) {
            return;
        }
        let mut running = self
            .busy
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while *running {
            // The runner catches the panics of its jobs, so it always clears the flag;
            // should it be gone anyway (a panic that cannot unwind), nothing runs.
            if self.runner.as_ref().is_none_or(|r| r.handle.is_finished()) {
                *running = false;
                break;
            }
            running = self
                .busy
                .changed
                .wait_timeout(running, Duration::from_millis(50))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Stops the running job, if any, and waits for its end (a search's `bestmove`).
    pub(super) fn stop(&mut self) {
        if self.pending {
            self.control.stop();
            self.wait();
        }
    }

    /// Starts the thread now, if it is not running, so that even the first `go` wakes it
    /// rather than waiting for a new thread to run (3.3 s once beside the hogs); `Err` if
    /// the system refuses a thread (the first job tries again).
    pub(super) fn start(&mut self) -> Result<(), String> {
        if self.runner.as_ref().is_none_or(|r| r.handle.is_finished()) {
            self.runner = Some(self.start_runner()?);
        }
        Ok(())
    }

    /// Runs `job` in the search thread (after stopping the previous job), with the stop
    /// flag cleared; the thread is started at the first job, and again should it be gone.
    /// `Err` if the system refuses a thread.
    pub(super) fn spawn(
        &mut self,
        pondering: bool,
        job: impl FnOnce() + Send + 'static,
    ) -> Result<(), String> {
        self.stop();
        self.control.reset(pondering);
        let runner = match self.runner.take() {
            Some(runner) if !runner.handle.is_finished() => runner,
            _ => self.start_runner()?,
        };
        self.busy.set(true);
        match runner.jobs.send(Box::new(job)) {
            Ok(()) => {
                self.runner = Some(runner);
                self.pending = true;
                Ok(())
            }
            Err(_) => {
                self.busy.set(false);
                Err("the search thread is gone".to_string())
            }
        }
    }

    /// Starts the thread that runs the jobs.
    fn start_runner(&self) -> Result<Runner, String> {
        let (jobs, received) = mpsc::channel::<Job>();
        let busy = Arc::clone(&self.busy);
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                while let Ok(job) = received.recv() {
                    // Each job catches its own panics and answers; this keeps the thread
                    // for the next should one get through.
                    let _ = catch_unwind(AssertUnwindSafe(job));
                    busy.set(false);
                }
            })
            .map_err(|e| format!("could not start the search thread: {e}"))?;
        Ok(Runner { jobs, handle })
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    /// The jobs run on one thread, started once and woken for each (a new thread per `go`
    /// can start hundreds of milliseconds late on a busy machine).
    #[test]
    fn jobs_run_one_at_a_time_on_one_kept_thread() {
        let mut thread = SearchThread::default();
        assert!(!thread.has_job() && !thread.is_running());
        thread.start().expect("a thread");
        let started = thread.runner.as_ref().map(|r| r.handle.thread().id());
        assert!(started.is_some());
        let (ids, seen) = channel();
        for _ in 0..3 {
            let ids = ids.clone();
            thread
                .spawn(false, move || {
                    ids.send(std::thread::current().id())
                        .expect("the test listens");
                })
                .expect("a thread");
            assert!(thread.has_job());
            thread.wait();
            assert!(!thread.has_job() && !thread.is_running());
        }
        let ids: Vec<_> = seen.try_iter().collect();
        assert_eq!(ids.len(), 3);
        assert!(ids.iter().all(|&id| Some(id) == started), "{ids:?}");
        assert_ne!(ids[0], std::thread::current().id());
    }

    #[test]
    fn stop_ends_the_running_job_and_a_panic_does_not_end_the_thread() {
        let mut thread = SearchThread::default();
        let control = Arc::clone(thread.control());
        thread
            .spawn(false, move || {
                while !control.is_stopped() {
                    std::thread::sleep(Duration::from_millis(1));
                }
            })
            .expect("a thread");
        assert!(thread.is_running());
        thread.stop();
        assert!(!thread.is_running() && !thread.has_job());
        // A job that panics (the real ones catch their own) leaves the thread for the next.
        thread
            .spawn(false, || panic!("test: a job that panics"))
            .expect("a thread");
        thread.wait();
        let (done, seen) = channel();
        thread
            .spawn(false, move || done.send(()).expect("the test listens"))
            .expect("a thread");
        thread.wait();
        assert!(seen.try_recv().is_ok());
        // The stop flag is cleared for each new job.
        assert!(!thread.control().is_stopped());
    }
}
