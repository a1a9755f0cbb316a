//! A worker: one solver whose table lasts the whole line, searching the jobs the manager
//! sends on a search thread that lives as long as the worker ([`Worker::start`]); or lanes,
//! threads that each search a job of their own on one table ([`Worker::start_lanes`]). The
//! transport (MPI in the binary, channels in the tests) hands it the manager's messages
//! ([`Worker::take`]) and sends what it answers ([`Worker::next_messages`]).
//!
//! Why this shape: the thread that talks to the manager never searches, so a cancel or the
//! manager's big send is taken in while a job runs; the search thread carries out the
//! orders (bounds, jobs, a new line) in the manager's order. A manager may send a worker its
//! next job while the last still runs ([`super::dispatch::Policy::ahead`]), so the search
//! thread starts it the moment the last ends instead of waiting a round trip for it (a lone
//! worker on 8×5 strong searched 97% of the time holding two jobs, 87% holding one).

use super::wire::{JobAnswer, ToManager, ToWorker};
use crate::sharing::{Journal, SharingTable, store_records};
use std::collections::VecDeque;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use transpo_cli::Failure;
use transpo_connect4::pool::{self, SolverPool, Stop};
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::score::Window;
use transpo_connect4::solver::Solver;

/// A worker's solver: its table passes on the bounds worth sharing.
pub type WorkerSolver<const W: usize, const H: usize, B> = Solver<W, H, B, SharingTable<W, H, B>>;

/// What the worker asks of its search thread, in the order the manager sent it.
enum Order<const W: usize, const H: usize, B: Bitboard> {
    /// Search this job (its id) until its stop is raised (raised before it starts: skip
    /// it).
    Job(u64, Position<W, H, B>, Window, Arc<AtomicBool>),
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
    /// The job's id.
    id: u64,
    /// The range found, `None` if the job was stopped first.
    range: Option<RangeInclusive<i32>>,
    /// The worker's positions on this line.
    nodes: u64,
    /// The bounds to pass on ([`SharingTable::take_journal`]).
    bounds: Vec<u8>,
    /// Microseconds the job searched.
    micros: u64,
}

/// How a job is told to stop: a one-solver worker's flag, or a lane's [`Stop`].
enum Halt {
    Flag(Arc<AtomicBool>),
    Stop(Arc<Stop>),
}

impl Halt {
    fn raise(&self) {
        match self {
            Halt::Flag(flag) => flag.store(true, Ordering::Relaxed),
            Halt::Stop(stop) => stop.cancel(),
        }
    }
}

/// What a worker of lanes shares with its lane threads: the table (as a pool of one slot
/// a lane), the jobs waiting, and the positions of the line so far.
struct Lanes<const W: usize, const H: usize, B: Bitboard> {
    pool: RwLock<SolverPool<W, H, B>>,
    queue: Mutex<LaneQueue<W, H, B>>,
    ready: Condvar,
    nodes: AtomicU64,
    /// Bounds of positions with at most this many stones are journaled.
    most_moves: Option<u32>,
    /// Counts the worker's calls for the journals ([`PASS_EVERY`]): a lane whose search
    /// sees it move passes its journal on at its next bound journaled.
    pass_round: AtomicU64,
    /// Jobs in the queue, and whether it closes: read without its lock by the lanes that
    /// help ([`SolverPool::help`]), which leave for a job of their own.
    queued: AtomicUsize,
    closing: AtomicBool,
    /// Whether the pool helps ([`SolverPool::set_helping`]).
    helping: bool,
}

/// The jobs waiting for a lane, and whether the worker is closing.
struct LaneQueue<const W: usize, const H: usize, B: Bitboard> {
    jobs: VecDeque<(u64, Position<W, H, B>, Window, Arc<Stop>)>,
    closed: bool,
}

/// A worker and its search thread (or its lanes).
pub struct Worker<const W: usize, const H: usize, B: Bitboard> {
    /// The lanes, for a worker of several.
    lanes: Option<Arc<Lanes<W, H, B>>>,
    orders: Option<Sender<Order<W, H, B>>>,
    reports: Receiver<Result<Report, String>>,
    /// Raised to have the running job's journal passed on.
    pass: Arc<AtomicBool>,
    /// When the journal was last asked for.
    last_pass: Instant,
    /// The jobs handed to the search thread and not yet answered, in its order: their ids
    /// and stops.
    held: VecDeque<(u64, Halt)>,
    /// Whether the manager said the run is over.
    ended: bool,
    /// The search thread, or the lanes' threads.
    threads: Vec<JoinHandle<()>>,
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
            lanes: None,
            orders: Some(orders),
            reports,
            pass,
            last_pass: Instant::now(),
            held: VecDeque::new(),
            ended: false,
            threads: vec![thread],
        }
    }

    /// A worker whose threads each search a job of their own on one table: `pool`, one
    /// slot a thread (its slots are the lanes). Each journals the bounds it stores of
    /// positions with at least `journal_empties` empty squares, passed on with the job's
    /// answer. Hold it as many jobs as it has lanes ([`super::dispatch::Policy::ahead`]);
    /// it answers them as they end, in any order. A lane without a job helps those that
    /// run if the pool helps ([`SolverPool::set_helping`]).
    ///
    /// Why: a worker of T threads searching one job at a time with all of them waits at
    /// every job's start and end for its team, and jobs of a few dozen empty squares are
    /// small for sixteen threads; T jobs at once on one table keep every thread busy and
    /// share what each finds (docs/connect4/mpi.md: 2 workers of 8 lanes would be 1.4–2×
    /// faster than 16 one-thread workers, at fewer positions).
    pub fn start_lanes(pool: SolverPool<W, H, B>, journal_empties: u32) -> Self {
        let (lanes, helping) = (pool.workers(), pool.helps());
        let shared = Arc::new(Lanes {
            pool: RwLock::new(pool),
            queue: Mutex::new(LaneQueue {
                jobs: VecDeque::new(),
                closed: false,
            }),
            ready: Condvar::new(),
            nodes: AtomicU64::new(0),
            most_moves: ((W * H) as u32).checked_sub(journal_empties),
            pass_round: AtomicU64::new(0),
            queued: AtomicUsize::new(0),
            closing: AtomicBool::new(false),
            helping,
        });
        let (report, reports) = channel();
        let threads = (0..lanes)
            .map(|_| {
                let (shared, report) = (Arc::clone(&shared), report.clone());
                std::thread::spawn(move || lane(&shared, &report))
            })
            .collect();
        Worker {
            lanes: Some(shared),
            orders: None,
            reports,
            pass: Arc::new(AtomicBool::new(false)),
            last_pass: Instant::now(),
            held: VecDeque::new(),
            ended: false,
            threads,
        }
    }

    /// Acts on one message from the manager, for a worker of lanes.
    fn take_lanes(&mut self, lanes: &Lanes<W, H, B>, message: ToWorker) -> Result<(), Failure> {
        match message {
            ToWorker::Job { id, window, moves } => {
                let pos = Position::<W, H, B>::from_moves(&moves)
                    .map_err(|e| Failure::run(format!("job {moves:?}: {e}")))?;
                let stop = Arc::new(Stop::never());
                self.held.push_back((id, Halt::Stop(Arc::clone(&stop))));
                let mut queue = lock(&lanes.queue);
                queue.jobs.push_back((id, pos, window, stop));
                // Counted under the lock, as a lane's pop is: the count never runs below 0.
                lanes.queued.fetch_add(1, Ordering::Release);
                drop(queue);
                lanes.ready.notify_one();
            }
            ToWorker::Bounds(bytes) => {
                let pool = lanes.pool.read().unwrap_or_else(PoisonError::into_inner);
                store_records(&pool, &bytes)
                    .map_err(|e| Failure::run(format!("bounds from the manager: {e}")))?;
            }
            ToWorker::Line => {
                // The manager starts a line with no job out: no lane holds the table.
                let mut pool = lanes.pool.write().unwrap_or_else(PoisonError::into_inner);
                pool.clear();
                lanes.nodes.store(0, Ordering::Relaxed);
            }
            ToWorker::Cancel { .. } | ToWorker::End => {}
        }
        Ok(())
    }

    /// Acts on one message from the manager.
    ///
    /// # Errors
    ///
    /// A job whose moves are no position of this board, or a search thread that is gone
    /// (it panicked: a bug).
    pub fn take(&mut self, message: ToWorker) -> Result<(), Failure> {
        match &message {
            ToWorker::Cancel { id } => {
                // A cancel that crossed the job's answer on the way finds nothing to stop.
                if let Some((_, stop)) = self.held.iter().find(|(held, _)| held == id) {
                    stop.raise();
                }
                return Ok(());
            }
            ToWorker::End => {
                // Only a manager that failed ends the run with jobs out: stop them.
                self.ended = true;
                self.held.iter().for_each(|(_, stop)| stop.raise());
                return Ok(());
            }
            _ => {}
        }
        if let Some(lanes) = self.lanes.clone() {
            return self.take_lanes(&lanes, message);
        }
        let order = match message {
            ToWorker::Job { id, window, moves } => {
                let pos = Position::<W, H, B>::from_moves(&moves)
                    .map_err(|e| Failure::run(format!("job {moves:?}: {e}")))?;
                let stop = Arc::new(AtomicBool::new(false));
                self.held.push_back((id, Halt::Flag(Arc::clone(&stop))));
                Order::Job(id, pos, window, stop)
            }
            ToWorker::Bounds(bytes) => Order::Bounds(bytes),
            ToWorker::Line => Order::NewLine,
            ToWorker::Cancel { .. } | ToWorker::End => return Ok(()),
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
            if let Some(lanes) = &self.lanes {
                lanes.pass_round.fetch_add(1, Ordering::Relaxed);
            }
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
        let Some((id, _)) = self
            .held
            .iter()
            .position(|(id, _)| *id == done.id)
            .and_then(|i| self.held.remove(i))
        else {
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
        self.held.iter().for_each(|(_, stop)| stop.raise());
        // Closing the orders ends the search thread; closing the queue, the lanes.
        self.orders = None;
        if let Some(lanes) = &self.lanes {
            lock(&lanes.queue).closed = true;
            lanes.closing.store(true, Ordering::Release);
            lanes.ready.notify_all();
        }
        for thread in self.threads.drain(..) {
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
            Order::Job(id, pos, window, stop) => {
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
                            id,
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

/// A lock whose holder cannot panic while holding it (the queue is only pushed to and
/// popped): a poisoned one is still whole.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How long a lane without a job waits before it looks again for a job to help, when none
/// ran: a job that starts meanwhile goes without that lane's help for at most this long.
const HELP_AGAIN: Duration = Duration::from_millis(1);

/// A lane of a worker: takes the next job waiting, searches it on the shared table with a
/// journal of its own, and reports it, until the queue closes; between jobs it helps the
/// jobs of the other lanes, if the pool helps.
fn lane<const W: usize, const H: usize, B: Bitboard>(
    lanes: &Lanes<W, H, B>,
    report: &Sender<Result<Report, String>>,
) {
    loop {
        let job = {
            let mut queue = lock(&lanes.queue);
            loop {
                if let Some(job) = queue.jobs.pop_front() {
                    lanes.queued.fetch_sub(1, Ordering::Release);
                    break Some(job);
                }
                if queue.closed {
                    return;
                }
                drop(queue);
                // Its positions count in the answers of the jobs it helped.
                if lanes.helping && help(lanes, report) {
                    break None;
                }
                queue = lock(&lanes.queue);
                if queue.jobs.is_empty() && !queue.closed {
                    // Helping is off (wait for a job), or no job ran (look again soon).
                    queue = if lanes.helping {
                        let waited = lanes.ready.wait_timeout(queue, HELP_AGAIN);
                        waited.unwrap_or_else(PoisonError::into_inner).0
                    } else {
                        let waited = lanes.ready.wait(queue);
                        waited.unwrap_or_else(PoisonError::into_inner)
                    };
                }
            }
        };
        let Some((id, pos, window, stop)) = job else {
            continue;
        };
        let started = Instant::now();
        let (range, nodes, bounds) = if stop.is_due() {
            // A job cancelled before it started is not searched at all.
            (None, 0, Vec::new())
        } else {
            let mut journal = Journal::default();
            let (range, nodes) = journaled_into(lanes, report, &mut journal, |noted| {
                let pool = lanes.pool.read().unwrap_or_else(PoisonError::into_inner);
                pool.solve_window(&pos, window, &stop, noted)
            });
            (range, nodes, journal.take())
        };
        let total = lanes.nodes.fetch_add(nodes, Ordering::Relaxed) + nodes;
        let done = Done {
            id,
            range,
            nodes: total,
            bounds,
            micros: started.elapsed().as_micros() as u64,
        };
        if report.send(Ok(Report::Done(done))).is_err() {
            return;
        }
    }
}

/// Helps the jobs of the other lanes until one waits for this lane or the worker closes
/// ([`SolverPool::help`]); whether it helped any.
fn help<const W: usize, const H: usize, B: Bitboard>(
    lanes: &Lanes<W, H, B>,
    report: &Sender<Result<Report, String>>,
) -> bool {
    journaled(lanes, report, |noted| {
        let pool = lanes.pool.read().unwrap_or_else(PoisonError::into_inner);
        pool.help(noted, &|| {
            lanes.queued.load(Ordering::Acquire) > 0 || lanes.closing.load(Ordering::Acquire)
        })
    })
}

/// Runs `search` with a journal of the bounds it stores of positions far from the end (if
/// the worker journals any), passed on as it goes ([`PASS_EVERY`]) and at the end.
fn journaled<const W: usize, const H: usize, B: Bitboard, R>(
    lanes: &Lanes<W, H, B>,
    report: &Sender<Result<Report, String>>,
    search: impl FnOnce(Option<pool::Journal<'_, W, H, B>>) -> R,
) -> R {
    let mut journal = Journal::default();
    let result = journaled_into(lanes, report, &mut journal, search);
    if !journal.is_empty() {
        // A worker that stopped listening has ended the run.
        let _ = report.send(Ok(Report::Bounds(journal.take())));
    }
    result
}

/// [`journaled`], leaving in `journal` what was not passed on yet (a job's answer carries it).
fn journaled_into<const W: usize, const H: usize, B: Bitboard, R>(
    lanes: &Lanes<W, H, B>,
    report: &Sender<Result<Report, String>>,
    journal: &mut Journal<B>,
    search: impl FnOnce(Option<pool::Journal<'_, W, H, B>>) -> R,
) -> R {
    // A long job passes its journal on every PASS_EVERY, as a one-thread worker's does: the
    // other workers learn it sooner, and a kill loses less of it.
    let mut round = lanes.pass_round.load(Ordering::Relaxed);
    let mut write = |p: &Position<W, H, B>, bound, best| {
        journal.note::<W, H>(p, bound, best);
        let now = lanes.pass_round.load(Ordering::Relaxed);
        if now != round {
            round = now;
            // A worker that stopped listening has ended the run.
            let _ = report.send(Ok(Report::Bounds(journal.take())));
        }
    };
    let noted = lanes.most_moves.map(|most_moves| pool::Journal {
        most_moves,
        write: &mut write,
    });
    search(noted)
}
