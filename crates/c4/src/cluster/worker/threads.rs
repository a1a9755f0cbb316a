//! A [`Worker`] whose orders are carried out on threads of this process ([`Threaded`]):
//! one solver whose table lasts the whole line, on a search thread of its own
//! ([`Threaded::start`]); or lanes, threads that each search a job of their own on one table
//! ([`Threaded::start_lanes`]). The transport (MPI in the binary, channels in the tests)
//! hands it the messages of the manager and the other workers ([`Threaded::take`]) and sends
//! what it answers and passes on ([`Threaded::next_messages`]).
//!
//! Why this shape: the thread that talks to the manager never searches, so a cancel or the
//! manager's big send is taken in while a job runs; the search thread carries out the
//! orders (bounds, jobs, a new line) in the manager's order. A manager may send a worker its
//! next job while the last still runs ([`crate::cluster::dispatch::Policy::ahead`]), so the
//! search thread starts it the moment the last ends instead of waiting a round trip for it.

use super::{Order, Outcome, Outgoing, Report, Route, Worker, WorkerSolver};
use crate::cluster::foreman::{Crew, Foreman, Relayed};
use crate::cluster::sharing::{Journal, Records, store_records};
use crate::cluster::wire::ToWorker;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use transpo_cli::Failure;
use transpo_connect4::pool::{self, SolverPool, Stop};
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::score::Window;

/// The most records of the other workers' bounds a one-solver worker holds waiting for its
/// search thread (which takes them in between jobs); past it a batch is dropped. Bounds are
/// facts the search may use, never need: a dropped batch costs positions, not a score. It
/// bounds the worker's memory while a long job runs and the others' bounds keep coming
/// (2^20 records: about 60 MB on a board of 64-bit keys).
pub const STORE_QUEUE_MAX: usize = 1 << 20;

/// A worker and the threads that carry out its orders.
pub struct Threaded<const W: usize, const H: usize, B: Bitboard> {
    worker: Worker<W, H, B>,
    /// The worker's own top tree over its lanes, if it splits its jobs.
    foreman: Option<Foreman<W, H, B>>,
    searches: Searches<W, H, B>,
    /// The worker's clock starts here.
    started: Instant,
}

impl<const W: usize, const H: usize, B: Bitboard> Threaded<W, H, B> {
    /// A worker searching with `solver` on a thread of its own, its bounds going by
    /// `route`.
    pub fn start(solver: WorkerSolver<W, H, B>, route: Route) -> Self {
        Self::on(Searches::one(solver), route)
    }

    /// A worker whose threads each search a job of their own on one table: `pool`, one
    /// slot a thread (its slots are the lanes). Each journals the bounds it stores of
    /// positions with at least `journal_empties` empty squares, passed on with the job's
    /// answer. Hold it as many jobs as it has lanes
    /// ([`crate::cluster::dispatch::Policy::ahead`]); it answers them as they end, in any
    /// order. A lane without a job helps those that run if the pool helps
    /// ([`SolverPool::set_helping`]).
    ///
    /// Why: a worker of T threads searching one job at a time with all of them waits at
    /// every job's start and end for its team, and jobs of a few dozen empty squares are
    /// small for sixteen threads; T jobs at once on one table keep every thread busy and
    /// share what each finds (docs/connect4/mpi.md).
    pub fn start_lanes(pool: SolverPool<W, H, B>, journal_empties: u32, route: Route) -> Self {
        Self::on(Searches::lanes(pool, journal_empties), route)
    }

    /// [`Threaded::start_lanes`], but each job the manager sends is split over the lanes
    /// by the worker's own top tree ([`Foreman`], of `crew`): hold it one job or two, as
    /// one search.
    pub fn start_crew(
        pool: SolverPool<W, H, B>,
        journal_empties: u32,
        route: Route,
        crew: Crew,
    ) -> Self {
        let mut threaded = Self::on(Searches::lanes(pool, journal_empties), route);
        threaded.foreman = Some(Foreman::new(crew));
        threaded
    }

    fn on(searches: Searches<W, H, B>, route: Route) -> Self {
        Threaded {
            worker: Worker::new(route),
            foreman: None,
            searches,
            started: Instant::now(),
        }
    }

    /// Acts on one message from the manager or another worker ([`Worker::take`]); the
    /// messages that pass it on, to send.
    ///
    /// # Errors
    ///
    /// What [`Worker::take`] refuses, or a search thread that is gone (it panicked: a bug).
    pub fn take(&mut self, message: ToWorker) -> Result<Vec<Outgoing>, Failure> {
        let (orders, mut on) = self.worker.take(message)?;
        for order in orders {
            match self.foreman.as_mut() {
                Some(foreman) => {
                    let relayed = foreman.order(order)?;
                    on.extend(self.relay(relayed)?);
                }
                None => self.searches.carry_out(order)?,
            }
        }
        Ok(on)
    }

    /// Carries out what the foreman gave: its orders to the lanes, its reports to the
    /// worker; the worker's messages to send.
    fn relay(&mut self, (orders, reports): Relayed<W, H, B>) -> Result<Vec<Outgoing>, Failure> {
        for order in orders {
            self.searches.carry_out(order)?;
        }
        let mut messages = Vec::new();
        for report in reports {
            messages.extend(self.worker.report(report)?);
        }
        Ok(messages)
    }

    /// The next messages to send, waiting at most `wait` for the searches to report
    /// ([`Worker::report`]); `None` if nothing came by then.
    ///
    /// # Errors
    ///
    /// A search thread that is gone, or a report [`Worker::report`] refuses (a bug).
    pub fn next_messages(&mut self, wait: Duration) -> Result<Option<Vec<Outgoing>>, Failure> {
        if let Some(order) = self.worker.tick(self.started.elapsed()) {
            self.searches.carry_out(order)?;
        }
        let Some(report) = self.searches.next_report(wait)? else {
            return Ok(None);
        };
        let Some(foreman) = self.foreman.as_mut() else {
            return self.worker.report(report).map(Some);
        };
        // The reports already in go to the foreman together: its tree steps once for them.
        let mut reports = vec![report];
        while let Some(more) = self.searches.next_report(Duration::ZERO)? {
            reports.push(more);
        }
        let relayed = foreman.reports(reports)?;
        self.relay(relayed).map(Some)
    }

    /// Whether it holds no job.
    pub fn idle(&self) -> bool {
        self.worker.idle()
    }

    /// Whether the run is over for it ([`Worker::finished`]).
    pub fn finished(&self) -> bool {
        self.worker.finished()
    }
}

/// What a one-solver worker's search thread is asked, in the order the manager sent it.
enum ThreadOrder<const W: usize, const H: usize, B: Bitboard> {
    /// Search this job (its id) until its stop is raised (raised before it starts: skip
    /// it).
    Job(u64, Position<W, H, B>, Window, Arc<AtomicBool>),
    /// Store the other workers' bounds.
    Store(Records<W, H, B>),
    /// A new line: forget the table and the count.
    NewLine,
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
    /// Counts the passes asked for ([`Order::Pass`]): a lane whose search sees it move
    /// passes its journal on at its next bound journaled.
    pass_round: AtomicU64,
    /// Jobs in the queue, and whether it closes: read without its lock by the lanes that
    /// help ([`SolverPool::help`]), which leave for a job of their own.
    queued: AtomicUsize,
    closing: AtomicBool,
    /// Whether the pool helps ([`SolverPool::set_helping`]).
    helping: bool,
}

/// A job waiting for a lane: its id, position, window and stop.
type LaneJob<const W: usize, const H: usize, B> = (u64, Position<W, H, B>, Window, Arc<Stop>);

/// The jobs waiting for a lane, and whether the worker is closing.
struct LaneQueue<const W: usize, const H: usize, B: Bitboard> {
    jobs: VecDeque<LaneJob<W, H, B>>,
    closed: bool,
}

/// The threads that search a worker's jobs: a search thread, or lanes.
struct Searches<const W: usize, const H: usize, B: Bitboard> {
    /// The lanes, for a worker of several.
    lanes: Option<Arc<Lanes<W, H, B>>>,
    /// The search thread's orders, for a one-solver worker.
    orders: Option<Sender<ThreadOrder<W, H, B>>>,
    reports: Receiver<Report>,
    /// Raised to have the one solver's running job pass its journal on.
    pass: Arc<AtomicBool>,
    /// Records of bounds the search thread holds and has not taken in yet, and the most it
    /// may ([`STORE_QUEUE_MAX`]).
    waiting: (Arc<AtomicUsize>, usize),
    /// The stops of the jobs handed to the threads and not yet reported.
    halts: Vec<(u64, Halt)>,
    /// The search thread, or the lanes' threads.
    threads: Vec<JoinHandle<()>>,
}

impl<const W: usize, const H: usize, B: Bitboard> Searches<W, H, B> {
    /// `solver` on a search thread of its own.
    fn one(mut solver: WorkerSolver<W, H, B>) -> Self {
        let (orders, ordered) = channel();
        let (report, reports) = channel();
        let pass = Arc::new(AtomicBool::new(false));
        let passing = report.clone();
        solver.table_mut().set_outlet(
            Arc::clone(&pass),
            Box::new(move |records| {
                // A worker that stopped listening has ended the run.
                let _ = passing.send(Report::Bounds(records));
            }),
        );
        let waiting = Arc::new(AtomicUsize::new(0));
        let taken = Arc::clone(&waiting);
        let thread = std::thread::spawn(move || search(solver, &ordered, &report, &taken));
        Searches {
            lanes: None,
            orders: Some(orders),
            reports,
            pass,
            waiting: (waiting, STORE_QUEUE_MAX),
            halts: Vec::new(),
            threads: vec![thread],
        }
    }

    /// A lane a slot of `pool` ([`Threaded::start_lanes`]).
    fn lanes(pool: SolverPool<W, H, B>, journal_empties: u32) -> Self {
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
        Searches {
            lanes: Some(shared),
            orders: None,
            reports,
            pass: Arc::new(AtomicBool::new(false)),
            waiting: (Arc::new(AtomicUsize::new(0)), STORE_QUEUE_MAX),
            halts: Vec::new(),
            threads,
        }
    }

    /// Carries out one order of the worker. A one-solver worker's search thread takes its
    /// orders in turn; lanes store bounds and start a line at once (no lane holds the table
    /// then: the manager starts a line with no job out).
    fn carry_out(&mut self, order: Order<W, H, B>) -> Result<(), Failure> {
        let thread_order = match (order, &self.lanes) {
            (Order::Stop(id), _) => {
                if let Some((_, halt)) = self.halts.iter().find(|(held, _)| *held == id) {
                    halt.raise();
                }
                return Ok(());
            }
            (Order::Pass, lanes) => {
                self.pass.store(true, Ordering::Relaxed);
                if let Some(lanes) = lanes {
                    lanes.pass_round.fetch_add(1, Ordering::Relaxed);
                }
                return Ok(());
            }
            (Order::Search(id, pos, window), Some(lanes)) => {
                let stop = Arc::new(Stop::never());
                self.halts.push((id, Halt::Stop(Arc::clone(&stop))));
                let mut queue = lock(&lanes.queue);
                queue.jobs.push_back((id, pos, window, stop));
                // Counted under the lock, as a lane's pop is: the count never runs below 0.
                lanes.queued.fetch_add(1, Ordering::Release);
                drop(queue);
                lanes.ready.notify_one();
                return Ok(());
            }
            (Order::Store(records), Some(lanes)) => {
                let pool = lanes.pool.read().unwrap_or_else(PoisonError::into_inner);
                store_records(&pool, &records);
                return Ok(());
            }
            (Order::NewLine, Some(lanes)) => {
                let mut pool = lanes.pool.write().unwrap_or_else(PoisonError::into_inner);
                pool.clear();
                lanes.nodes.store(0, Ordering::Relaxed);
                return Ok(());
            }
            (Order::Search(id, pos, window), None) => {
                let stop = Arc::new(AtomicBool::new(false));
                self.halts.push((id, Halt::Flag(Arc::clone(&stop))));
                ThreadOrder::Job(id, pos, window, stop)
            }
            (Order::Store(records), None) => {
                let (waiting, most) = (&self.waiting.0, self.waiting.1);
                if waiting.load(Ordering::Acquire) + records.len() > most {
                    return Ok(());
                }
                waiting.fetch_add(records.len(), Ordering::AcqRel);
                ThreadOrder::Store(records)
            }
            (Order::NewLine, None) => ThreadOrder::NewLine,
        };
        let orders = self.orders.as_ref().ok_or_else(search_thread_gone)?;
        orders.send(thread_order).map_err(|_| search_thread_gone())
    }

    /// The next report of the threads, waiting at most `wait`.
    fn next_report(&mut self, wait: Duration) -> Result<Option<Report>, Failure> {
        match self.reports.recv_timeout(wait) {
            Ok(report) => {
                if let Report::Done(done) = &report {
                    self.halts.retain(|(id, _)| *id != done.id);
                }
                Ok(Some(report))
            }
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(search_thread_gone()),
        }
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Drop for Searches<W, H, B> {
    /// Stops what runs and waits for the threads.
    fn drop(&mut self) {
        self.halts.iter().for_each(|(_, halt)| halt.raise());
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

/// The search thread: carries out the orders until they end, each job's outcome sent on
/// `report`.
fn search<const W: usize, const H: usize, B: Bitboard>(
    mut solver: WorkerSolver<W, H, B>,
    orders: &Receiver<ThreadOrder<W, H, B>>,
    report: &Sender<Report>,
    waiting: &AtomicUsize,
) {
    for order in orders {
        match order {
            ThreadOrder::Job(id, pos, window, stop) => {
                let started = Instant::now();
                // A job stopped before it started is not searched at all.
                let range = if stop.load(Ordering::Relaxed) {
                    None
                } else {
                    solver.solve_window_until(&pos, window, &stop)
                };
                let done = Outcome {
                    id,
                    range: range.map(|r| (*r.start(), *r.end())),
                    positions: solver.nodes(),
                    bounds: solver.table_mut().take_journal(),
                    micros: started.elapsed().as_micros() as u64,
                };
                if report.send(Report::Done(done)).is_err() {
                    return;
                }
            }
            ThreadOrder::Store(records) => {
                solver.table_mut().take_in(&records);
                waiting.fetch_sub(records.len(), Ordering::AcqRel);
            }
            ThreadOrder::NewLine => solver.reset(),
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

/// The next job for a lane, helping the other lanes' jobs while none waits (if the pool
/// helps): `Some(None)` after helping (look again), `None` once the queue closes.
fn next_lane_job<const W: usize, const H: usize, B: Bitboard>(
    lanes: &Lanes<W, H, B>,
    report: &Sender<Report>,
) -> Option<Option<LaneJob<W, H, B>>> {
    let mut queue = lock(&lanes.queue);
    loop {
        if let Some(job) = queue.jobs.pop_front() {
            lanes.queued.fetch_sub(1, Ordering::Release);
            return Some(Some(job));
        }
        if queue.closed {
            return None;
        }
        drop(queue);
        // Its positions count in the answers of the jobs it helped.
        if lanes.helping && help(lanes, report) {
            return Some(None);
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
}

/// A lane of a worker: takes the next job waiting, searches it on the shared table with a
/// journal of its own, and reports it, until the queue closes; between jobs it helps the
/// jobs of the other lanes, if the pool helps.
fn lane<const W: usize, const H: usize, B: Bitboard>(
    lanes: &Lanes<W, H, B>,
    report: &Sender<Report>,
) {
    while let Some(job) = next_lane_job(lanes, report) {
        let Some((id, pos, window, stop)) = job else {
            continue;
        };
        let started = Instant::now();
        let (range, nodes, bounds) = if stop.is_due() {
            // A job stopped before it started is not searched at all.
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
        let done = Outcome {
            id,
            range: range.map(|r| (*r.start(), *r.end())),
            positions: total,
            bounds,
            micros: started.elapsed().as_micros() as u64,
        };
        if report.send(Report::Done(done)).is_err() {
            return;
        }
    }
}

/// Helps the jobs of the other lanes until one waits for this lane or the worker closes
/// ([`SolverPool::help`]); whether it helped any.
fn help<const W: usize, const H: usize, B: Bitboard>(
    lanes: &Lanes<W, H, B>,
    report: &Sender<Report>,
) -> bool {
    let mut journal = Journal::default();
    let helped = journaled_into(lanes, report, &mut journal, |noted| {
        let pool = lanes.pool.read().unwrap_or_else(PoisonError::into_inner);
        pool.help(noted, &|| {
            lanes.queued.load(Ordering::Acquire) > 0 || lanes.closing.load(Ordering::Acquire)
        })
    });
    if !journal.is_empty() {
        // A worker that stopped listening has ended the run.
        let _ = report.send(Report::Bounds(journal.take()));
    }
    helped
}

/// Runs `search` with a journal of the bounds it stores of positions far from the end (if
/// the worker journals any), passed on as it goes ([`Order::Pass`]), leaving in `journal`
/// what was not passed on yet (a job's answer carries it).
fn journaled_into<const W: usize, const H: usize, B: Bitboard, R>(
    lanes: &Lanes<W, H, B>,
    report: &Sender<Report>,
    journal: &mut Journal<B>,
    search: impl FnOnce(Option<pool::Journal<'_, W, H, B>>) -> R,
) -> R {
    let mut round = lanes.pass_round.load(Ordering::Relaxed);
    let mut write = |p: &Position<W, H, B>, bound, best| {
        journal.note::<W, H>(p, bound, best);
        let now = lanes.pass_round.load(Ordering::Relaxed);
        if now != round {
            round = now;
            // A worker that stopped listening has ended the run.
            let _ = report.send(Report::Bounds(journal.take()));
        }
    };
    let noted = lanes.most_moves.map(|most_moves| pool::Journal {
        most_moves,
        write: &mut write,
    });
    search(noted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::sharing::SharingTable;
    use crate::cluster::wire::{JobAnswer, ToManager};
    use transpo_connect4::bounds::BoundTable;
    use transpo_connect4::score::Strength;
    use transpo_connect4::solver::Solver;

    /// Runs `messages` through `worker`, then collects its messages until it is idle; the
    /// answers, by id.
    fn run_trace<const W: usize, const H: usize>(
        worker: &mut Threaded<W, H, u64>,
        messages: Vec<ToWorker>,
    ) -> Vec<JobAnswer> {
        let mut answers = Vec::new();
        let mut keep = |said: Vec<Outgoing>| {
            for message in said {
                if let Outgoing::Manager(ToManager::Answer(answer)) = message {
                    answers.push(answer);
                }
            }
        };
        // A job may be answered at once (a crew's job stopped before its lane jobs ran).
        for message in messages {
            keep(worker.take(message).expect("a good message"));
        }
        while !worker.idle() {
            let messages = worker.next_messages(Duration::from_millis(5));
            keep(messages.expect("a search").unwrap_or_default());
        }
        answers.sort_by_key(|a| a.id);
        answers
    }

    /// A scripted trace on a one-solver worker, on a worker of three lanes that help, and on
    /// one that splits its jobs over three lanes with three more lane jobs waiting
    /// ([`Threaded::start_crew`]): every job answered gives a range that decides its window
    /// and holds a lone solver's score (the first two: the lone solver's very range), a job
    /// cancelled before it starts answers stopped, and the end of the run stops what runs
    /// and finishes the worker.
    #[test]
    fn both_kinds_of_worker_answer_a_trace_as_a_lone_solver() {
        let lines = ["1", "2", "3", "44", "45", "4"];
        let mut plain = Solver::<6, 5, u64>::new(4).expect("4 MiB");
        let window = Window::of(Strength::Weak);
        let scores: Vec<i32> = lines
            .iter()
            .map(|m| plain.solve(&Position::from_moves(m).expect("legal"), Strength::Strong))
            .collect();
        let expected: Vec<(i32, i32)> = lines
            .iter()
            .map(|m| {
                let pos = Position::from_moves(m).expect("legal");
                let r = plain.solve_window(&pos, window);
                (*r.start(), *r.end())
            })
            .collect();
        let one = || {
            let table = BoundTable::<6, 5, u64>::new(4).expect("4 MiB");
            Threaded::start(
                Solver::with_table(SharingTable::new(table, 20)),
                Route::alone(),
            )
        };
        let lanes = || {
            let mut pool = SolverPool::<6, 5, u64>::new(4, 3).expect("4 MiB");
            pool.set_helping(true);
            Threaded::start_lanes(pool, 20, Route::alone())
        };
        let crew = || {
            let pool = SolverPool::<6, 5, u64>::new(4, 3).expect("4 MiB");
            let crew = Crew {
                lanes: 3,
                stones: 2,
                deepen: 2,
                alone: 1,
                guesses: 0,
                group: 2,
                // Three lane jobs more wait in the lanes' queue.
                spare: 3,
                beside: true,
            };
            Threaded::start_crew(pool, 20, Route::alone(), crew)
        };
        for (kind, mut worker) in [(0, one()), (1, lanes()), (2, crew())] {
            let mut trace: Vec<ToWorker> = lines
                .iter()
                .enumerate()
                .map(|(id, moves)| ToWorker::Job {
                    id: id as u64,
                    window,
                    moves: moves.to_string(),
                })
                .collect();
            // A job sent and cancelled at once: a one-solver worker never starts it.
            trace.push(ToWorker::Job {
                id: 99,
                window,
                moves: "12".into(),
            });
            trace.push(ToWorker::Cancel { id: 99 });
            let answers = run_trace(&mut worker, trace);
            assert_eq!(answers.len(), lines.len() + 1);
            for ((answer, range), score) in answers.iter().zip(&expected).zip(&scores) {
                let (lo, hi) = answer.range.expect("answered");
                assert!(window.decided(lo, hi), "{kind}: job {}", answer.id);
                assert!((lo..=hi).contains(score), "{kind}: job {}", answer.id);
                if kind < 2 {
                    assert_eq!(answer.range, Some(*range), "{kind}: job {}", answer.id);
                }
            }
            assert_eq!(answers[lines.len()].id, 99);
            worker.take(ToWorker::Line).expect("a new line");
            worker
                .take(ToWorker::Job {
                    id: 100,
                    window: Window::of(Strength::Strong),
                    moves: String::new(),
                })
                .expect("a job");
            worker.take(ToWorker::End).expect("the end");
            while !worker.finished() {
                let said = worker.next_messages(Duration::from_millis(5));
                assert!(said.expect("a search").unwrap_or_default().is_empty());
            }
        }
    }

    /// A one-solver worker whose job runs holds the others' bounds for its search thread up
    /// to its cap and drops what comes past it; once the job ends, the thread takes in what
    /// it held.
    #[test]
    fn bounds_waiting_for_a_running_job_are_capped() {
        // Real bounds of the 7×6 board: the journal of a solve near the end.
        let journaling = BoundTable::<7, 6, u64>::new(1).expect("1 MiB");
        let mut near_end = Solver::with_table(SharingTable::new(journaling, 4));
        let pos = Position::<7, 6, u64>::from_moves("141724165222235").expect("legal");
        near_end.solve(&pos, Strength::Strong);
        let records = Records::<7, 6, u64>::decode(&near_end.table_mut().take_journal())
            .expect("its own bounds");
        assert!(!records.is_empty());
        let table = BoundTable::<7, 6, u64>::new(4).expect("4 MiB");
        let mut worker = Threaded::start(
            Solver::with_table(SharingTable::new(table, 36)),
            Route::alone(),
        );
        worker.searches.waiting.1 = 2 * records.len();
        // The empty 7×6 board: a job that runs until it is stopped.
        worker
            .take(ToWorker::Job {
                id: 1,
                window: Window::of(Strength::Strong),
                moves: String::new(),
            })
            .expect("a job");
        let waiting = Arc::clone(&worker.searches.waiting.0);
        for _ in 0..3 {
            worker
                .searches
                .carry_out(Order::Store(records.clone()))
                .expect("taken or dropped");
        }
        assert_eq!(waiting.load(Ordering::Acquire), 2 * records.len());
        worker.take(ToWorker::Cancel { id: 1 }).expect("a cancel");
        while !worker.idle() {
            worker
                .next_messages(Duration::from_millis(5))
                .expect("a search");
        }
        // The thread takes in what it held after the job, before any later order.
        worker.take(ToWorker::Line).expect("a new line");
        let deadline = Instant::now() + Duration::from_secs(10);
        while waiting.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(waiting.load(Ordering::Acquire), 0);
    }
}
