//! A worker: one solver whose table lasts the whole line, searching the jobs the manager
//! sends on a search thread that lives as long as the worker. The transport (MPI in the
//! binary, channels in the tests) hands it the manager's messages ([`Worker::take`]) and
//! sends what it answers ([`Worker::next_messages`]).
//!
//! Why this shape: the thread that talks to the manager never searches, so a cancel or the
//! manager's big send is taken in while a job runs; the search thread carries out the
//! orders (bounds, jobs, a new line) in the manager's order. A manager may send a worker its
//! next job while the last still runs ([`super::dispatch::Policy::ahead`]), so the search
//! thread starts it the moment the last ends instead of waiting a round trip for it (a lone
//! worker on 8×5 strong searched 97% of the time holding two jobs, 87% holding one).

use super::wire::{JobAnswer, ToManager, ToWorker};
use crate::sharing::SharingTable;
use std::collections::VecDeque;
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use transpo_cli::Failure;
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::score::Window;
use transpo_connect4::solver::Solver;

/// A worker's solver: its table passes on the bounds worth sharing.
pub type WorkerSolver<const W: usize, const H: usize, B> = Solver<W, H, B, SharingTable<W, H, B>>;

/// What the worker asks of its search thread, in the order the manager sent it.
enum Order<const W: usize, const H: usize, B: Bitboard> {
    /// Search this job until its stop is raised (raised before it starts: skip it).
    Job(Position<W, H, B>, Window, Arc<AtomicBool>),
    /// Take in the other workers' bounds.
    Bounds(Vec<u8>),
    /// A new line: forget the table and the count.
    NewLine,
}

/// What the search thread tells the worker.
enum Report {
    /// A job's outcome.
    Done(Done),
    /// Bounds to pass on, journaled by the job that runs ([`PASS_EVERY`]).
    Bounds(Vec<u8>),
}

/// How often a job that runs passes on the bounds it journaled so far: the other workers
/// learn them sooner, and a run killed in the middle of a long job loses less (the
/// manager keeps them for the state file).
pub const PASS_EVERY: Duration = Duration::from_millis(500);

/// A job's outcome, from the search thread.
struct Done {
    /// The range found, `None` if the job was stopped first.
    range: Option<RangeInclusive<i32>>,
    /// The worker's positions on this line.
    nodes: u64,
    /// The bounds to pass on ([`SharingTable::take_journal`]).
    bounds: Vec<u8>,
    /// Microseconds the job searched.
    micros: u64,
}

/// A worker and its search thread.
pub struct Worker<const W: usize, const H: usize, B: Bitboard> {
    orders: Option<Sender<Order<W, H, B>>>,
    reports: Receiver<Result<Report, String>>,
    /// Raised to have the running job's journal passed on.
    pass: Arc<AtomicBool>,
    /// When the journal was last asked for.
    last_pass: Instant,
    /// The jobs handed to the search thread and not yet answered, in its order: their ids
    /// and stops.
    held: VecDeque<(u64, Arc<AtomicBool>)>,
    /// Whether the manager said the run is over.
    ended: bool,
    thread: Option<JoinHandle<()>>,
}

impl<const W: usize, const H: usize, B: Bitboard> Worker<W, H, B> {
    /// A worker searching with `solver` on a thread of its own.
    pub fn start(mut solver: WorkerSolver<W, H, B>) -> Self {
        let (orders, ordered) = channel();
        let (report, reports) = channel();
        let pass = Arc::new(AtomicBool::new(false));
        let passing = report.clone();
        solver.table_mut().set_outlet(
            Arc::clone(&pass),
            Box::new(move |records| {
                // A worker that stopped listening has ended the run.
                let _ = passing.send(Ok(Report::Bounds(records)));
            }),
        );
        let thread = std::thread::spawn(move || search(solver, &ordered, &report));
        Worker {
            orders: Some(orders),
            reports,
            pass,
            last_pass: Instant::now(),
            held: VecDeque::new(),
            ended: false,
            thread: Some(thread),
        }
    }

    /// Acts on one message from the manager.
    ///
    /// # Errors
    ///
    /// A job whose moves are no position of this board, or a search thread that is gone
    /// (it panicked: a bug).
    pub fn take(&mut self, message: ToWorker) -> Result<(), Failure> {
        let order = match message {
            ToWorker::Job { id, window, moves } => {
                let pos = Position::<W, H, B>::from_moves(&moves)
                    .map_err(|e| Failure::run(format!("job {moves:?}: {e}")))?;
                let stop = Arc::new(AtomicBool::new(false));
                self.held.push_back((id, Arc::clone(&stop)));
                Order::Job(pos, window, stop)
            }
            ToWorker::Cancel { id } => {
                // A cancel that crossed the job's answer on the way finds nothing to stop.
                if let Some((_, stop)) = self.held.iter().find(|(held, _)| *held == id) {
                    stop.store(true, Ordering::Relaxed);
                }
                return Ok(());
            }
            ToWorker::Bounds(bytes) => Order::Bounds(bytes),
            ToWorker::Line => Order::NewLine,
            ToWorker::End => {
                // Only a manager that failed ends the run with jobs out: stop them.
                self.ended = true;
                for (_, stop) in &self.held {
                    stop.store(true, Ordering::Relaxed);
                }
                return Ok(());
            }
        };
        let orders = self.orders.as_ref().ok_or_else(search_thread_gone)?;
        orders.send(order).map_err(|_| search_thread_gone())
    }

    /// Whether it holds no job.
    pub fn idle(&self) -> bool {
        self.held.is_empty()
    }

    /// Whether the run is over for it: told so, and every job it held answered.
    pub fn finished(&self) -> bool {
        self.ended && self.held.is_empty()
    }

    /// The next messages for the manager, waiting at most `wait`: the bounds the running
    /// job journaled, every [`PASS_EVERY`]; once the job ends, the bounds still to pass on,
    /// then its answer (nothing after the end of the run). `None` if nothing came by then.
    ///
    /// # Errors
    ///
    /// Bad bounds from the manager, or a search thread that is gone.
    pub fn next_messages(&mut self, wait: Duration) -> Result<Option<Vec<ToManager>>, Failure> {
        if self.last_pass.elapsed() >= PASS_EVERY {
            self.last_pass = Instant::now();
            self.pass.store(true, Ordering::Relaxed);
        }
        let done = match self.reports.recv_timeout(wait) {
            Ok(Ok(Report::Done(done))) => done,
            Ok(Ok(Report::Bounds(bounds))) if self.ended || bounds.is_empty() => {
                return Ok(Some(Vec::new()));
            }
            Ok(Ok(Report::Bounds(bounds))) => return Ok(Some(vec![ToManager::Bounds(bounds)])),
            Ok(Err(error)) => return Err(Failure::run(error)),
            Err(RecvTimeoutError::Timeout) => return Ok(None),
            Err(RecvTimeoutError::Disconnected) => return Err(search_thread_gone()),
        };
        let Some((id, _)) = self.held.pop_front() else {
            return Err(Failure::run("an answer to no job (a bug)"));
        };
        let mut messages = Vec::new();
        if self.ended {
            // The manager stopped listening.
            return Ok(Some(messages));
        }
        if !done.bounds.is_empty() {
            messages.push(ToManager::Bounds(done.bounds));
        }
        messages.push(ToManager::Answer(JobAnswer {
            id,
            range: done.range.map(|r| (*r.start(), *r.end())),
            positions: done.nodes,
            micros: done.micros,
        }));
        Ok(Some(messages))
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Drop for Worker<W, H, B> {
    /// Stops what runs and waits for the search thread.
    fn drop(&mut self) {
        for (_, stop) in &self.held {
            stop.store(true, Ordering::Relaxed);
        }
        // Closing the orders ends the search thread.
        self.orders = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The error of a worker whose search thread is gone (it panicked: a bug).
fn search_thread_gone() -> Failure {
    Failure::run("the search thread ended (a bug: see its message above)")
}

/// The search thread: carries out the orders until they end. A job's outcome, or the first
/// bad bounds' error (answered at the next job), goes back on `report`.
fn search<const W: usize, const H: usize, B: Bitboard>(
    mut solver: WorkerSolver<W, H, B>,
    orders: &Receiver<Order<W, H, B>>,
    report: &Sender<Result<Report, String>>,
) {
    let mut failed = None;
    for order in orders {
        match order {
            Order::Job(pos, window, stop) => {
                let done = match failed.take() {
                    Some(error) => Err(error),
                    None => {
                        let started = Instant::now();
                        // A job cancelled before it started is not searched at all.
                        let range = if stop.load(Ordering::Relaxed) {
                            None
                        } else {
                            solver.solve_window_until(&pos, window, &stop)
                        };
                        Ok(Report::Done(Done {
                            range,
                            nodes: solver.nodes(),
                            bounds: solver.table_mut().take_journal(),
                            micros: started.elapsed().as_micros() as u64,
                        }))
                    }
                };
                if report.send(done).is_err() {
                    return;
                }
            }
            Order::Bounds(bytes) => {
                if let Err(error) = solver.table_mut().take_in(&bytes) {
                    failed.get_or_insert(format!("bounds from the manager: {error}"));
                }
            }
            Order::NewLine => solver.reset(),
        }
    }
}
