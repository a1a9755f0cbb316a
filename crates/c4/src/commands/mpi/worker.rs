//! A worker rank: one solver whose table lasts the whole line, searching the jobs the
//! manager sends, on a search thread that lives as long as the worker.
//!
//! Why this shape: the main thread only speaks MPI; the search thread carries out the
//! orders (bounds, jobs, a new line) in the manager's order. The manager may send a worker
//! its next job while the last still runs (`JOBS_AHEAD` in `manager.rs`), so the search
//! thread starts it the moment the last ends instead of waiting a round trip for it (a lone
//! worker on 8×5 strong searched 97% of the time holding two jobs, 87% holding one), and a
//! worker whose job was cancelled is sent the next at once.
//!
//! Two rules keep the two ranks from waiting on each other for ever. The main thread never
//! blocks on a send: a job's answer goes out as an immediate send, and while it is on its way
//! the thread goes on taking in what the manager sends (a big message of bounds waits for
//! its receiver under MPI's rendezvous protocol, so a manager sending bounds to a worker that
//! sends its own would otherwise wait for ever). And while a job runs the main thread looks
//! for messages every [`LOOK_EVERY`]: often enough that a manager's send waits little, not
//! so often that the searching core is woken for nothing (polling every 200 µs cost 12% of a
//! worker's search on 9×4).

use super::{IDLE_SLEEP, Setup, try_message};
use crate::commands::Solving;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::collections::VecDeque;
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};
use transpo_c4::cluster::wire::{JobAnswer, ToManager, ToWorker};
use transpo_c4::sharing::SharingTable;
use transpo_cli::Failure;
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::score::Window;
use transpo_connect4::solver::Solver;

/// What the main thread asks of the search thread, in the order the manager sent it.
enum Order<const W: usize, const H: usize, B: Bitboard> {
    /// Search this job until its stop is raised (raised before it starts: skip it).
    Job(Position<W, H, B>, Window, Arc<AtomicBool>),
    /// Take in the other workers' bounds.
    Bounds(Vec<u8>),
    /// A new line: forget the table and the count.
    NewLine,
}

/// How often the main thread looks for the manager's messages while a job runs. Each look
/// wakes a thread on the searching cores, so not too often; a cancel, or a manager's big
/// send, waits at most this long.
const LOOK_EVERY: Duration = Duration::from_millis(2);

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

/// A worker: says what it was started as, then searches every job it is sent until told the
/// run is over. Bounds of positions with at least the setup's shared empty squares go to
/// the manager after each job, for the other workers.
pub(super) fn worker<const W: usize, const H: usize, B: Bitboard>(
    world: &SimpleCommunicator,
    solving: Solving<W, H, B>,
    setup: &Setup,
) -> Result<(), Failure> {
    let hello = ToManager::hello(&setup.identity);
    world
        .process_at_rank(0)
        .send_with_tag(&hello.encode()[..], hello.tag());
    let shared_empties = setup.shared_empties;
    let solver = solving.solver_on(|table| SharingTable::new(table, shared_empties))?;
    let (orders, ordered) = channel();
    let (report, reports) = channel();
    std::thread::scope(|scope| {
        scope.spawn(move || search(solver, &ordered, &report));
        let mut main = Main {
            world,
            orders,
            held: VecDeque::new(),
            ended: false,
        };
        let outcome = main.serve(&reports);
        // Closing the orders ends the search thread; the scope waits for it.
        drop(main);
        outcome
    })
}

/// The main thread: the manager's messages in, the jobs' answers out.
struct Main<'w, const W: usize, const H: usize, B: Bitboard> {
    world: &'w SimpleCommunicator,
    orders: Sender<Order<W, H, B>>,
    /// The jobs handed to the search thread and not yet answered, in its order: their ids
    /// and stops.
    held: VecDeque<(u64, Arc<AtomicBool>)>,
    /// Whether the manager said the run is over.
    ended: bool,
}

impl<const W: usize, const H: usize, B: Bitboard> Main<'_, W, H, B> {
    /// Takes in messages and answers jobs until the run is over and every job is answered.
    fn serve(&mut self, reports: &Receiver<Result<Done, String>>) -> Result<(), Failure> {
        loop {
            let done = if self.held.is_empty() {
                if self.ended {
                    return Ok(());
                }
                if !self.take_waiting()? {
                    std::thread::sleep(IDLE_SLEEP);
                }
                continue;
            } else {
                match reports.recv_timeout(LOOK_EVERY) {
                    Ok(done) => done,
                    Err(RecvTimeoutError::Disconnected) => return Err(search_thread_gone()),
                    Err(RecvTimeoutError::Timeout) => {
                        while self.take_waiting()? {}
                        continue;
                    }
                }
            };
            let done = done.map_err(Failure::run)?;
            let Some((id, _)) = self.held.pop_front() else {
                return Err(Failure::run("an answer to no job (a bug)"));
            };
            if self.ended {
                // The manager stopped listening.
                continue;
            }
            if !done.bounds.is_empty() {
                self.send(ToManager::Bounds(done.bounds))?;
            }
            self.send(ToManager::Answer(JobAnswer {
                id,
                range: done.range.map(|r| (*r.start(), *r.end())),
                positions: done.nodes,
                micros: done.micros,
            }))?;
        }
    }

    /// Sends `message` to the manager without blocking on it: takes in the manager's
    /// messages until the send is done.
    fn send(&mut self, message: ToManager) -> Result<(), Failure> {
        let (world, bytes) = (self.world, message.encode());
        let manager = world.process_at_rank(0);
        mpi::request::scope(|scope| {
            let mut request = manager.immediate_send_with_tag(scope, &bytes[..], message.tag());
            // The first error is kept until the send is done: a request must complete
            // before its scope ends.
            let mut failed = Ok(());
            loop {
                match request.test() {
                    Ok(_) => return failed,
                    Err(pending) => request = pending,
                }
                match self.take_waiting() {
                    Ok(true) => {}
                    Ok(false) => std::thread::sleep(IDLE_SLEEP),
                    // The first error is the one returned; the messages after it are still
                    // taken in, so that the manager never waits on this worker.
                    Err(failure) => failed = failed.and(Err(failure)),
                }
            }
        })
    }

    /// Takes in the manager's next message if one has come; whether one had.
    fn take_waiting(&mut self) -> Result<bool, Failure> {
        let Some((bytes, tag, _)) = try_message(self.world) else {
            return Ok(false);
        };
        let message = ToWorker::decode(tag, &bytes).map_err(Failure::run)?;
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
                return Ok(true);
            }
            ToWorker::Bounds(bytes) => Order::Bounds(bytes),
            ToWorker::Line => Order::NewLine,
            ToWorker::End => {
                // Only a manager that failed ends the run with jobs out: stop them.
                self.ended = true;
                for (_, stop) in &self.held {
                    stop.store(true, Ordering::Relaxed);
                }
                return Ok(true);
            }
        };
        self.orders.send(order).map_err(|_| search_thread_gone())?;
        Ok(true)
    }
}

/// The error of a worker whose search thread is gone (it panicked: a bug).
fn search_thread_gone() -> Failure {
    Failure::run("the search thread ended (a bug: see its message above)")
}

/// The search thread: carries out the orders until they end. A job's outcome, or the first
/// bad bounds' error (answered at the next job), goes back on `report`.
fn search<const W: usize, const H: usize, B: Bitboard>(
    mut solver: Solver<W, H, B, SharingTable<W, H, B>>,
    orders: &Receiver<Order<W, H, B>>,
    report: &Sender<Result<Done, String>>,
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
                        Ok(Done {
                            range,
                            nodes: solver.nodes(),
                            bounds: solver.table_mut().take_journal(),
                            micros: started.elapsed().as_micros() as u64,
                        })
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
