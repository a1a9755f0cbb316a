//! The cluster in virtual time: the real manager, dispatch, top tree and workers
//! ([`Worker`], the one every driver runs), with a clock that counts positions instead of
//! seconds, so that a run of many workers can be timed on a machine with fewer cores than
//! workers (or on a busy one). What is virtual is only the clock, the messages' delays and
//! how a search spends time.
//!
//! Why: the goals of a solve over many machines are in time on many cores, and the knobs
//! that matter pull apart there: releasing younger brothers early keeps the workers busy but
//! searches jobs a brother's cutoff makes needless; waiting searches fewer but idles them;
//! passing more bounds on spares positions but costs the manager and every worker time
//! (docs/connect4/mpi.md). An oversubscribed `mpirun` counts positions truly but times
//! nothing. Here each worker searches one position per tick, every message takes
//! [`Costs::latency`] ticks, and the manager's own work and each worker's intake of the
//! others' bounds are timed on this machine's clock and charged at its one-thread rate
//! ([`Costs::manager_rate`]). The manager reads the virtual clock ([`Link::now`]). The
//! makespan in ticks, set beside one solve's positions, is the speed-up the policy would
//! give on a machine whose cores each search at one solve's rate; the busy share, the
//! manager's share and the intake's share say where the rest went. A worker may search
//! several jobs at once on one table (lanes: a worker of that many threads, one job each).
//!
//! What it leaves out: a job is searched whole the moment it starts, so by default a job
//! stopped halfway counts only the positions of its ticks but leaves its whole search in its
//! worker's table, and a lane's job sees the whole of the jobs started before it on its
//! worker's other lanes ([`Stops`] bounds the first from both sides and models it closer);
//! the bounds a running job passes on mid-search ([`super::worker::PASS_EVERY`]) go out
//! with its answer instead; memory that slows many cores at once is not modelled. How it
//! compares with real runs is in docs/connect4/mpi.md.

use super::KeyHash;
use super::foreman::{Crew, Foreman, StopCause};
use super::manager::{Link, Manager, Setup};
use super::sharing::SharingTable;
use super::wire::{ToManager, ToWorker};
use super::worker::{Order, Outcome, Outgoing, Report as Reported, Route, Worker};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use transpo_cli::Failure;
use transpo_connect4::bounds::{BoundStore, BoundTable, ScoreBound};
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::protocol::{self, Options};
use transpo_connect4::score::Window;
use transpo_connect4::solver::Solver;

/// What time costs in the virtual cluster, in ticks (one tick: one position searched by
/// one worker).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Costs {
    /// Ticks a message takes from its sender to its receiver, either way.
    pub latency: u64,
    /// Ticks a second of the manager's own time (its replays of the top tree, measured on
    /// this machine's clock) and of a worker taking in bounds costs: this machine's
    /// positions a second on one thread, so that searching and the rest keep their real
    /// proportion; 0: both take no time.
    pub manager_rate: f64,
    /// Workers journal only the bounds whose search explored at least this many positions
    /// ([`SharingTable::set_min_nodes`]; 1: all, as the binary's workers do).
    pub min_nodes: u64,
    /// What a job stopped while it searches costs and leaves ([`Stops`]).
    pub stops: Stops,
    /// The share of a foreman's time charged to its worker (at [`Costs::manager_rate`]): 1,
    /// all of it; 0, none, so that a run shows what the foremen's time costs it.
    pub foreman_share: f64,
}

/// What a job stopped while it searches costs in ticks and leaves in its worker's table.
///
/// Why three: a virtual job is searched whole at its start (its length is its positions),
/// so a job stopped halfway has already left its whole search in its worker's table and
/// journal. When most positions are searched in jobs later stopped (at 256 searches, over
/// half), that flatters a policy that stops many jobs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stops {
    /// It ends at its stop, and its whole search stays in the table: the lower bound of
    /// the cost.
    #[default]
    Cut,
    /// It takes its whole search's ticks (its answer dropped), and its whole search stays
    /// in the table: an upper bound of the cost, as if stops were ignored.
    Whole,
    /// It ends at its stop, and the table holds what a search stopped there holds: what a
    /// job stores is held aside until it ends (the worker's other lanes do not see it
    /// before), and a stopped job's is dropped and searched again up to the positions its
    /// ticks paid for.
    Partial,
}

impl Default for Costs {
    /// 1,000 ticks a message (about 80 µs at 12.4 M positions a second, one thread of the
    /// 16-core Xeon on 7×6: an MPI send on one machine, with room to spare); the manager and
    /// the intake in no time.
    fn default() -> Self {
        Costs {
            latency: 1_000,
            manager_rate: 0.0,
            min_nodes: 1,
            stops: Stops::Cut,
            foreman_share: 1.0,
        }
    }
}

/// How each virtual worker's lanes get their jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// This many lanes (at least one), each taking the manager's jobs: give the manager's
    /// setup a [`super::dispatch::Policy::ahead`] of at least as many, or the lanes wait.
    Own(usize),
    /// The worker splits the manager's jobs over the crew's lanes ([`Foreman`]).
    Crew(Crew),
}

impl Lanes {
    /// How many lanes a worker has.
    pub fn count(self) -> usize {
        match self {
            Lanes::Own(lanes) => lanes.max(1),
            Lanes::Crew(crew) => crew.lanes.max(1),
        }
    }
}

/// What a simulated solve cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The score the manager printed.
    pub score: i32,
    /// The positions the manager counted: the workers' (a cancelled job's up to its stop)
    /// and its own.
    pub positions: u64,
    /// Ticks from the line's start to its answer.
    pub makespan: u64,
    /// Ticks the workers spent searching, all together.
    pub busy: u64,
    /// Jobs searched to their answer, and jobs stopped while searching.
    pub jobs: (u64, u64),
    /// Ticks the workers spent on jobs that were stopped.
    pub stopped_ticks: u64,
    /// The same, by why a worker's foreman stopped them, in the order of
    /// [`STOP_CAUSES`]; the last, jobs no foreman stopped (workers without a crew).
    pub stopped_by: [u64; STOP_CAUSES.len() + 1],
    /// Ticks the manager spent thinking ([`Costs::manager_rate`]).
    pub thinking: u64,
    /// The manager's own CPU time, charged or not: with no charge the run's events come in
    /// the same order every time, so two builds of the manager compare on the same work.
    pub manager_cpu: Duration,
    /// Ticks the workers spent taking in each other's bounds, all together (charged as
    /// the manager's time is).
    pub intake: u64,
    /// Ticks the workers' foremen spent splitting their jobs, all together (charged as the
    /// manager's time is).
    pub foremen: u64,
    /// What one reading of the CPU clock costs ([`clock_cost`]), taken off every charge
    /// (the manager's, the intake's and the foremen's), and how many charges there were.
    pub clock: (Duration, u64),
}

/// The causes [`Report::stopped_by`] counts, in its order.
pub const STOP_CAUSES: [StopCause; 5] = [
    StopCause::Lead,
    StopCause::Solved,
    StopCause::Guess,
    StopCause::Split,
    StopCause::Cut,
];

impl Report {
    /// The share of the workers' time spent searching.
    pub fn busy_share(&self, workers: usize) -> f64 {
        self.busy as f64 / (self.makespan.max(1) as f64 * workers.max(1) as f64)
    }
}

/// A job a worker runs: it is searched whole at its start, and ends at `end` unless stopped.
struct Running<const W: usize, const H: usize, B: Bitboard> {
    id: u64,
    position: Position<W, H, B>,
    window: Window,
    start: u64,
    end: u64,
    nodes: u64,
    range: Option<(i32, i32)>,
    bounds: Vec<u8>,
    /// What it stored, held aside until it ends ([`Stops::Partial`]).
    held: Vec<Held<B>>,
}

/// A store held aside: the position's key, the bound, its best column and its positions
/// (the last store of each position only: a later one replaces it in a table too).
type Held<B> = (B, ScoreBound, Option<u8>, u64);

/// Entries of a held job's map kept allocated for the next ([`Aside::release`]).
const HELD_KEPT: usize = 1 << 12;

/// A worker's table in virtual time: its [`SharingTable`], and while a job is searched with
/// [`Stops::Partial`], what the job stores held aside (read back by the same job, its mirror
/// images too), to be stored for good when the job ends or dropped when it is stopped.
struct Aside<const W: usize, const H: usize, B: Bitboard> {
    base: SharingTable<W, H, B>,
    holding: bool,
    /// Hashed as the top tree's maps are ([`KeyHash`]): a held job looks up every position
    /// it searches twice (its mirror image too), and SipHash made that several times slower
    /// than the table.
    held: HashMap<B, (ScoreBound, Option<u8>, u64), KeyHash>,
}

impl<const W: usize, const H: usize, B: Bitboard> Aside<W, H, B> {
    /// Stores what a job held aside (journaled as it is stored).
    fn keep(&mut self, held: Vec<Held<B>>) {
        for (key, bound, best, nodes) in held {
            // The key of a position the job searched, which `from_key` takes back.
            if let Some(pos) = Position::from_key(key) {
                self.base.put(&pos, bound, best.map(usize::from), nodes);
            }
        }
    }

    /// Holds what is stored aside from now on.
    fn hold(&mut self) {
        self.holding = true;
    }

    /// Stops holding; what was held.
    fn release(&mut self) -> Vec<Held<B>> {
        self.holding = false;
        let held = self
            .held
            .drain()
            .map(|(key, (bound, best, nodes))| (key, bound, best, nodes))
            .collect();
        // A big job's map, emptied, would cost every later job a sweep of its size.
        self.held.shrink_to(HELD_KEPT);
        held
    }
}

impl<const W: usize, const H: usize, B: Bitboard> BoundStore<W, H, B> for Aside<W, H, B> {
    const WEIGHS_SUBTREES: bool = <SharingTable<W, H, B> as BoundStore<W, H, B>>::WEIGHS_SUBTREES;

    fn clear(&mut self) {
        self.base.clear();
        self.release();
    }

    fn prefetch(&self, pos: &Position<W, H, B>) {
        self.base.prefetch(pos);
    }

    fn get(&self, pos: &Position<W, H, B>) -> Option<(ScoreBound, Option<usize>)> {
        if self.holding {
            if let Some(&(bound, best, _)) = self.held.get(&pos.key()) {
                return Some((bound, best.map(usize::from)));
            }
            if let Some(&(bound, best, _)) = self.held.get(&pos.mirror_key()) {
                return Some((bound, best.map(|col| W - 1 - usize::from(col))));
            }
        }
        self.base.get(pos)
    }

    fn put(&mut self, pos: &Position<W, H, B>, bound: ScoreBound, best: Option<usize>, nodes: u64) {
        if self.holding {
            // A column fits a byte: a board has at most 16.
            let best = best.and_then(|col| u8::try_from(col).ok());
            self.held.insert(pos.key(), (bound, best, nodes));
        } else {
            self.base.put(pos, bound, best, nodes);
        }
    }

    fn capacity(&self) -> usize {
        self.base.capacity()
    }
}

/// One worker: the shipped [`Worker`], and its searches in virtual time.
struct SimWorker<const W: usize, const H: usize, B: Bitboard> {
    worker: Worker<W, H, B>,
    /// Its own top tree over its lanes, if it splits its jobs.
    foreman: Option<Foreman<W, H, B>>,
    solver: Solver<W, H, B, Aside<W, H, B>>,
    /// Messages on their way: arrival tick and message.
    inbox: VecDeque<(u64, ToWorker)>,
    /// The worker's orders for its searches, in order, each with the tick it was given.
    orders: VecDeque<(u64, Order<W, H, B>)>,
    /// Jobs stopped before they started.
    stopped: Vec<u64>,
    /// The jobs searching, one a lane.
    running: Vec<Running<W, H, B>>,
    /// When the next order may be taken (a lane free, the last intake done).
    free_at: u64,
    /// Its lanes' reports that came in while its foreman was busy (before `free_at`): the
    /// foreman takes them together once it is free, as the threads do.
    deferred: Vec<Reported>,
    /// Positions counted on this line.
    counted: u64,
    /// The tick of its last event: its own clock, which an event never puts back.
    at: u64,
}

/// The virtual cluster: a [`Link`] whose workers live in virtual time.
pub struct Cluster<const W: usize, const H: usize, B: Bitboard> {
    costs: Costs,
    /// Jobs a worker searches at once, on one table.
    lanes: usize,
    workers: Vec<SimWorker<W, H, B>>,
    /// Messages on their way to the manager: arrival tick, worker, message.
    outbox: VecDeque<(u64, usize, ToManager)>,
    /// The manager's clock.
    now: u64,
    /// The real instant the virtual clock started at ([`Link::now`]).
    origin: Instant,
    busy: u64,
    stopped_ticks: u64,
    stopped_by: [u64; STOP_CAUSES.len() + 1],
    jobs: (u64, u64),
    /// When the manager last got control back from the link (its time since then is its
    /// own thinking).
    mark: Option<Duration>,
    /// Ticks the manager spent thinking.
    thinking: u64,
    /// The manager's CPU time.
    manager_cpu: Duration,
    /// Ticks the workers spent taking in bounds.
    intake: u64,
    /// Ticks the workers' foremen spent.
    foremen: u64,
    /// What one reading of the CPU clock costs, and the charges made.
    clock: (Duration, u64),
}

/// Ticks a second, to show the manager its virtual clock when no rate is set: one thread
/// of the 16-core Xeon on 7×6 ([`Costs::default`]).
const NOMINAL_RATE: f64 = 12.4e6;

impl<const W: usize, const H: usize, B: Bitboard> Cluster<W, H, B> {
    /// `workers` workers (at least one), each searching as many jobs at once as it has
    /// `lanes`, on one table of `hash_mib` MiB that journals the bounds of positions with at
    /// least `shared_empties` empty squares for the others.
    ///
    /// # Errors
    ///
    /// A table of that size cannot be had.
    pub fn new(
        workers: usize,
        lanes: Lanes,
        hash_mib: u64,
        shared_empties: u32,
        costs: Costs,
    ) -> Result<Self, Failure> {
        let count = workers.max(1);
        let crew = match lanes {
            Lanes::Crew(crew) => Some(crew),
            Lanes::Own(_) => None,
        };
        let workers = (0..count)
            .map(|me| {
                let table = BoundTable::<W, H, B>::new(hash_mib)
                    .map_err(|e| Failure::usage(format!("a worker's table: {e}")))?;
                let mut table = SharingTable::new(table, shared_empties);
                table.set_min_nodes(costs.min_nodes);
                Ok(SimWorker {
                    worker: Worker::new(Route {
                        me,
                        workers: count,
                        keep: None,
                    }),
                    foreman: crew.map(Foreman::new),
                    solver: Solver::with_table(Aside {
                        base: table,
                        holding: false,
                        held: HashMap::default(),
                    }),
                    inbox: VecDeque::new(),
                    orders: VecDeque::new(),
                    stopped: Vec::new(),
                    running: Vec::new(),
                    free_at: 0,
                    deferred: Vec::new(),
                    counted: 0,
                    at: 0,
                })
            })
            .collect::<Result<Vec<_>, Failure>>()?;
        Ok(Cluster {
            costs,
            lanes: lanes.count(),
            workers,
            outbox: VecDeque::new(),
            now: 0,
            origin: Instant::now(),
            busy: 0,
            stopped_ticks: 0,
            stopped_by: [0; STOP_CAUSES.len() + 1],
            jobs: (0, 0),
            mark: None,
            thinking: 0,
            manager_cpu: Duration::ZERO,
            intake: 0,
            foremen: 0,
            clock: (clock_cost(), 0),
        })
    }

    /// Moves the manager's clock on by the time it spent thinking since it last got control.
    fn think(&mut self) {
        if let Some(mark) = self.mark.take() {
            let spent = self.spent_since(mark);
            self.manager_cpu += spent;
            let ticks = (spent.as_secs_f64() * self.costs.manager_rate) as u64;
            self.now += ticks;
            self.thinking += ticks;
        }
    }

    /// The tick of worker `w`'s next event, if it has one: its foreman taking the reports
    /// that waited for it, a message arriving, its job ending, or its searches taking the
    /// next order.
    fn next_event(&self, w: usize) -> Option<u64> {
        let worker = &self.workers[w];
        let flush = (!worker.deferred.is_empty()).then_some(worker.free_at);
        let arrival = worker.inbox.front().map(|(t, _)| *t);
        let end = worker.running.iter().map(|r| r.end).min();
        // A foreman's lane jobs wait for it only until they are given ([`Self::relay`]); a
        // job waiting while every lane was busy starts when one is free, not before.
        let gate = if worker.foreman.is_some() {
            worker.at
        } else {
            worker.free_at.max(worker.at)
        };
        let take = (worker.running.len() < self.lanes)
            .then(|| worker.orders.front().map(|(a, _)| gate.max(*a)))
            .flatten();
        [flush, arrival, end, take].into_iter().flatten().min()
    }

    /// Carries out worker `w`'s next event, at tick `t`.
    ///
    /// # Errors
    ///
    /// What the worker refuses ([`Worker::take`], [`Worker::report`]).
    fn run_event(&mut self, w: usize, t: u64) -> Result<(), Failure> {
        let trouble = |e: Failure| Failure::run(format!("worker {w}: {}", e.message()));
        if t < self.workers[w].at {
            return Err(Failure::run(format!(
                "worker {w}: an event at tick {t}, after one at tick {}",
                self.workers[w].at
            )));
        }
        self.workers[w].at = t;
        if !self.workers[w].deferred.is_empty() && self.workers[w].free_at <= t {
            let reports = std::mem::take(&mut self.workers[w].deferred);
            return self.hand_over(w, t, reports);
        }
        if self.workers[w].inbox.front().is_some_and(|(a, _)| *a == t) {
            let Some((_, message)) = self.workers[w].inbox.pop_front() else {
                return Ok(());
            };
            let (orders, on) = self.workers[w].worker.take(message).map_err(trouble)?;
            self.send(w, t, on);
            for order in orders {
                self.order(w, t, order)?;
            }
            return Ok(());
        }
        let worker = &mut self.workers[w];
        if let Some(lane) = worker.running.iter().position(|r| r.end == t) {
            let mut running = worker.running.swap_remove(lane);
            if !running.held.is_empty() {
                let table = worker.solver.table_mut();
                table.keep(std::mem::take(&mut running.held));
                running.bounds = table.base.take_journal();
            }
            let ticks = running.end - running.start;
            worker.counted += ticks.min(running.nodes);
            worker.free_at = worker.free_at.max(t);
            self.busy += ticks;
            if running.range.is_some() {
                self.jobs.0 += 1;
            } else {
                self.jobs.1 += 1;
                self.stopped_ticks += ticks;
                let cause = worker
                    .foreman
                    .as_ref()
                    .and_then(|f| f.stop_cause(running.id));
                let at = cause.and_then(|cause| STOP_CAUSES.iter().position(|c| *c == cause));
                self.stopped_by[at.unwrap_or(STOP_CAUSES.len())] += ticks;
            }
            let report = Reported::Done(Outcome {
                id: running.id,
                range: running.range,
                positions: worker.counted,
                bounds: running.bounds,
                micros: ticks,
            });
            return self.report(w, t, report);
        }
        if worker.running.len() >= self.lanes {
            return Ok(());
        }
        if let Some((_, order)) = worker.orders.pop_front() {
            worker.free_at = worker.free_at.max(t);
            self.search(w, t, order);
        }
        Ok(())
    }

    /// Gives worker `w`'s `order` at tick `t` to its foreman, if it has one, and what comes
    /// of it to its lanes and itself; else to its searches.
    fn order(&mut self, w: usize, t: u64, order: Order<W, H, B>) -> Result<(), Failure> {
        let started = thread_cpu_time();
        let Some(foreman) = self.workers[w].foreman.as_mut() else {
            self.give(w, t, order);
            return Ok(());
        };
        let relayed = foreman.order(order);
        self.relay(w, t, started, relayed)
    }

    /// Takes worker `w`'s searches' `report` at tick `t`: through its foreman, if it has
    /// one, to the worker; one that comes while the foreman is busy waits for it (with the
    /// others that come meanwhile).
    fn report(&mut self, w: usize, t: u64, report: Reported) -> Result<(), Failure> {
        let worker = &mut self.workers[w];
        if worker.foreman.is_some() && (worker.free_at > t || !worker.deferred.is_empty()) {
            worker.deferred.push(report);
            return Ok(());
        }
        self.hand_over(w, t, vec![report])
    }

    /// Gives worker `w`'s searches' `reports` at tick `t` to its foreman together, if it has
    /// one, and what comes of it to its lanes and itself; else to the worker.
    fn hand_over(&mut self, w: usize, t: u64, reports: Vec<Reported>) -> Result<(), Failure> {
        let started = thread_cpu_time();
        let relayed = match self.workers[w].foreman.as_mut() {
            Some(foreman) => foreman.reports(reports),
            None => Ok((Vec::new(), reports)),
        };
        self.relay(w, t, started, relayed)
    }

    /// Carries out what worker `w`'s foreman gave at tick `t` (its work began at the CPU
    /// time `started`, charged to the worker: the lane jobs it gave are taken only once it
    /// is done, and the reports that come meanwhile wait for it): orders to the lanes,
    /// reports to the worker, whose messages go out.
    fn relay(
        &mut self,
        w: usize,
        t: u64,
        started: Duration,
        relayed: Result<super::foreman::Relayed<W, H, B>, Failure>,
    ) -> Result<(), Failure> {
        let trouble = |e: Failure| Failure::run(format!("worker {w}: {}", e.message()));
        let (orders, reports) = relayed.map_err(trouble)?;
        // The lane jobs a foreman gives are in the lanes' queue once it is done: a lane
        // takes one from there, even while the foreman works on something later.
        let mut ready = t;
        if self.workers[w].foreman.is_some() {
            let spent = self.spent_since(started);
            let rate = self.costs.manager_rate * self.costs.foreman_share;
            let ticks = (spent.as_secs_f64() * rate) as u64;
            let worker = &mut self.workers[w];
            worker.free_at = worker.free_at.max(t) + ticks;
            ready = worker.free_at;
            self.foremen += ticks;
        }
        for order in orders {
            match order {
                order @ Order::Search(..) => self.workers[w].orders.push_back((ready, order)),
                order => self.give(w, t, order),
            }
        }
        for report in reports {
            let sent = self.workers[w].worker.report(report).map_err(trouble)?;
            self.send(w, t, sent);
        }
        Ok(())
    }

    /// Sends worker `w`'s messages at tick `t`: each arrives [`Costs::latency`] later, at
    /// the manager or at another worker (after the messages due there before it).
    fn send(&mut self, w: usize, t: u64, messages: Vec<Outgoing>) {
        let arrival = t + self.costs.latency;
        for message in messages {
            match message {
                Outgoing::Manager(message) => self.outbox.push_back((arrival, w, message)),
                Outgoing::Worker(to, message) => {
                    if let Some(peer) = self.workers.get_mut(to) {
                        arrive(&mut peer.inbox, arrival, message);
                    }
                }
            }
        }
    }

    /// Gives worker `w`'s searches an order at tick `t`, as [`super::worker::threads`]
    /// carries it out: a stop or a pass at once; bounds and a new line at once for a worker
    /// of lanes, in turn for a one-solver worker; a job in turn.
    fn give(&mut self, w: usize, t: u64, order: Order<W, H, B>) {
        let worker = &mut self.workers[w];
        match order {
            Order::Stop(id) => match worker.running.iter_mut().find(|r| r.id == id && r.end > t) {
                Some(running) => {
                    running.range = None;
                    match self.costs.stops {
                        Stops::Whole => {}
                        Stops::Cut => running.end = t,
                        Stops::Partial => {
                            // What it held is dropped; a search stopped where it stops
                            // stores for good what it stores.
                            running.end = t;
                            running.held.clear();
                            let paid = t - running.start;
                            let never = AtomicBool::new(false);
                            worker.solver.solve_window_within(
                                &running.position,
                                running.window,
                                &never,
                                paid.max(1),
                            );
                            running.bounds = worker.solver.table_mut().base.take_journal();
                        }
                    }
                }
                None => worker.stopped.push(id),
            },
            // A virtual job is searched whole at its start: its bounds go with its answer.
            Order::Pass => {}
            order @ (Order::Store(_) | Order::NewLine) if self.lanes > 1 => {
                self.search(w, t, order)
            }
            order => worker.orders.push_back((t, order)),
        }
    }

    /// The CPU time this thread has used since `started` (a reading of
    /// [`thread_cpu_time`]), less what one reading of the clock costs: the part of the two
    /// readings that falls between them, which a run without the simulator's clock would
    /// not spend. Counts the charge.
    fn spent_since(&mut self, started: Duration) -> Duration {
        let spent = thread_cpu_time().saturating_sub(started);
        self.clock.1 += 1;
        spent.saturating_sub(self.clock.0)
    }

    /// Worker `w`'s searches take `order` at tick `t`.
    fn search(&mut self, w: usize, t: u64, order: Order<W, H, B>) {
        match order {
            Order::Store(records) => {
                let started = thread_cpu_time();
                self.workers[w].solver.table_mut().base.take_in(&records);
                let spent = self.spent_since(started);
                let worker = &mut self.workers[w];
                let ticks = (spent.as_secs_f64() * self.costs.manager_rate) as u64;
                if self.lanes == 1 {
                    worker.free_at = t + ticks;
                }
                self.intake += ticks;
            }
            Order::NewLine => {
                let worker = &mut self.workers[w];
                worker.solver.reset();
                worker.counted = 0;
                worker.free_at = t;
            }
            Order::Search(id, pos, window) => {
                let worker = &mut self.workers[w];
                let partial = self.costs.stops == Stops::Partial;
                let (range, nodes, bounds, held) =
                    match worker.stopped.iter().position(|stopped| *stopped == id) {
                        Some(i) => {
                            worker.stopped.swap_remove(i);
                            (None, 0, Vec::new(), Vec::new())
                        }
                        None => {
                            let before = worker.solver.nodes();
                            let never = AtomicBool::new(false);
                            if partial {
                                worker.solver.table_mut().hold();
                            }
                            let range = worker.solver.solve_window_until(&pos, window, &never);
                            let nodes = worker.solver.nodes() - before;
                            let held = worker.solver.table_mut().release();
                            let bounds = worker.solver.table_mut().base.take_journal();
                            (range.map(|r| (*r.start(), *r.end())), nodes, bounds, held)
                        }
                    };
                worker.running.push(Running {
                    id,
                    position: pos,
                    window,
                    start: t,
                    end: t + nodes,
                    nodes,
                    range,
                    bounds,
                    held,
                });
            }
            Order::Stop(_) | Order::Pass => {}
        }
    }

    /// Runs the workers' events up to tick `until` (all of them if `None`) or until a
    /// message for the manager is due by then; returns whether one is.
    fn advance(&mut self, until: Option<u64>) -> Result<bool, Failure> {
        loop {
            let due = self.outbox.iter().map(|(t, _, _)| *t).min();
            let next = (0..self.workers.len())
                .filter_map(|w| self.next_event(w).map(|t| (t, w)))
                .min();
            match (due, next) {
                (Some(d), Some((t, _))) if d <= t && until.is_none_or(|u| d <= u) => {
                    return Ok(true);
                }
                (_, Some((t, w))) if until.is_none_or(|u| t <= u) => self.run_event(w, t)?,
                (Some(d), _) => return Ok(until.is_none_or(|u| d <= u)),
                (None, _) => return Ok(false),
            }
        }
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Link for &mut Cluster<W, H, B> {
    fn post(&mut self, orders: super::dispatch::Orders) {
        self.think();
        let arrival = self.now + self.costs.latency;
        for (w, message) in orders {
            if let Some(worker) = self.workers.get_mut(w) {
                arrive(&mut worker.inbox, arrival, message);
            }
        }
        self.mark = Some(thread_cpu_time());
    }

    fn receive(&mut self, wait: bool) -> Result<Option<(usize, ToManager)>, Failure> {
        self.think();
        let received = self.deliver(wait);
        self.mark = Some(thread_cpu_time());
        received
    }

    fn now(&mut self) -> Instant {
        let rate = match self.costs.manager_rate {
            rate if rate > 0.0 => rate,
            _ => NOMINAL_RATE,
        };
        self.origin + Duration::from_secs_f64(self.now as f64 / rate)
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Cluster<W, H, B> {
    /// The next message for the manager: the first due, waiting (advancing the clock) for
    /// one if `wait`.
    fn deliver(&mut self, wait: bool) -> Result<Option<(usize, ToManager)>, Failure> {
        let until = (!wait).then_some(self.now);
        if !self.advance(until)? {
            return match wait {
                true => Err(Failure::run(
                    "the manager waits for workers that hold nothing",
                )),
                false => Ok(None),
            };
        }
        let Some(first) = (0..self.outbox.len()).min_by_key(|&i| self.outbox[i].0) else {
            return Ok(None);
        };
        let Some((t, w, message)) = self.outbox.remove(first) else {
            return Ok(None);
        };
        self.now = self.now.max(t);
        Ok(Some((w, message)))
    }
}

/// Puts `message`, arriving at tick `arrival`, into a worker's `inbox`, which is in the
/// order of arrival: after every message due by then (the manager's and the other
/// workers' messages interleave).
fn arrive(inbox: &mut VecDeque<(u64, ToWorker)>, arrival: u64, message: ToWorker) {
    let at = inbox.partition_point(|(a, _)| *a <= arrival);
    inbox.insert(at, (arrival, message));
}

/// The CPU time this thread has used: what the manager's work and a worker's intake are
/// charged by, and what a rate to charge them at ([`Costs::manager_rate`]) should be
/// measured by, so that other programs on a busy machine do not make them look dearer or
/// cheaper (the wall clock counts the time the thread waited for a core).
pub fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through the pointer, which points to a
    // live, writable one on this stack; CLOCK_THREAD_CPUTIME_ID is a clock Linux and the
    // BSDs have.
    let failed = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } != 0;
    if failed {
        // Not on this platform: no charge rather than a wrong one.
        return Duration::ZERO;
    }
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// What one reading of [`thread_cpu_time`] costs in the CPU time it reads: the least
/// difference of two readings one after the other, of 1,000 pairs (a lower bound: the
/// charges keep any part of the clock's cost above it). 0.5–0.7 µs on this project's
/// 2-core machine, where a system call reads the clock; a charge of the manager's work
/// includes one such cost.
pub fn clock_cost() -> Duration {
    (0..1000)
        .map(|_| {
            let first = thread_cpu_time();
            thread_cpu_time().saturating_sub(first)
        })
        .min()
        .unwrap_or(Duration::ZERO)
}

/// Solves the position reached by `moves` ("" for the empty board) with the manager of
/// `setup` and `workers` workers of `lanes` in virtual time ([`Cluster::new`]'s tables).
///
/// # Errors
///
/// A table that cannot be had, a bad line, or the manager's failure.
pub fn simulate<const W: usize, const H: usize, B: Bitboard>(
    moves: &str,
    workers: usize,
    lanes: Lanes,
    setup: &Setup,
    hash_mib: u64,
    shared_empties: u32,
    costs: Costs,
) -> Result<Report, Failure> {
    let mut cluster = Cluster::<W, H, B>::new(workers, lanes, hash_mib, shared_empties, costs)?;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let options = Options {
        strength: setup.strength,
        analyze: false,
    };
    let line = if moves.is_empty() { "-" } else { moves };
    {
        let mut manager = Manager::<_, W, H, B>::new(
            &mut cluster,
            workers.max(1),
            setup,
            None,
            Default::default(),
        );
        let summary = protocol::run(
            &mut manager,
            format!("{line}\n").as_bytes(),
            &mut out,
            &mut err,
            options,
        )
        .map_err(|stop| stop.0)?;
        manager.finish()?;
        if summary.rejected > 0 {
            let err = String::from_utf8_lossy(&err).into_owned();
            return Err(Failure::usage(format!("{line}: {}", err.trim())));
        }
    }
    let out = String::from_utf8_lossy(&out).into_owned();
    let words: Vec<&str> = out.split_whitespace().collect();
    let number = |i: usize| {
        words
            .get(i)
            .and_then(|w| w.parse::<i64>().ok())
            .ok_or_else(|| Failure::run(format!("the manager printed {out:?}")))
    };
    Ok(Report {
        score: number(1)? as i32,
        positions: number(2)? as u64,
        makespan: cluster.now,
        busy: cluster.busy,
        jobs: cluster.jobs,
        stopped_ticks: cluster.stopped_ticks,
        stopped_by: cluster.stopped_by,
        thinking: cluster.thinking,
        manager_cpu: cluster.manager_cpu,
        intake: cluster.intake,
        foremen: cluster.foremen,
        clock: cluster.clock,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::LEAF_STONES;
    use crate::cluster::dispatch::Policy;
    use std::time::Duration;
    use transpo_connect4::position::Position;
    use transpo_connect4::score::Strength;

    /// The thread's CPU clock counts work and not waiting: a sleep adds less than a tenth of
    /// itself, and a busy loop adds its work, never more than the time it took. (The loop
    /// runs until 200 ms of work are charged, not for 200 ms: on a loaded machine the
    /// thread gets only part of a core.)
    #[test]
    fn the_charge_counts_the_thread_s_work_and_not_its_waits() {
        let before = thread_cpu_time();
        std::thread::sleep(Duration::from_millis(200));
        let slept = thread_cpu_time() - before;
        assert!(
            slept < Duration::from_millis(20),
            "a sleep charged {slept:?}"
        );
        let (start, before) = (Instant::now(), thread_cpu_time());
        let mut x = 1u64;
        let mut worked = Duration::ZERO;
        while worked < Duration::from_millis(200) && start.elapsed() < Duration::from_secs(60) {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
            worked = thread_cpu_time() - before;
        }
        assert!(
            worked >= Duration::from_millis(200),
            "{:?} of a busy loop charged {worked:?}",
            start.elapsed()
        );
        assert!(worked <= start.elapsed() + Duration::from_millis(5));
    }

    /// The clock's own cost is what an empty charge reads at least: no more than another
    /// empty charge, and far below a charge of 20 ms of work.
    #[test]
    fn the_clock_s_cost_is_an_empty_charge() {
        let cost = clock_cost();
        let first = thread_cpu_time();
        let empty = thread_cpu_time().saturating_sub(first);
        // The least of 1,000 empty charges against one: the one may read a little lower
        // by chance, so allow a microsecond.
        assert!(
            cost <= empty + Duration::from_micros(1),
            "{cost:?} against {empty:?}"
        );
        assert!(cost < Duration::from_micros(100), "{cost:?}");
        let before = thread_cpu_time();
        let start = Instant::now();
        let mut x = 1u64;
        while start.elapsed() < Duration::from_millis(20) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let worked = thread_cpu_time().saturating_sub(before);
        assert!(cost * 100 < worked, "{cost:?} against {worked:?}");
    }

    fn setup(strength: Strength, squares: u32, alone: u32) -> Setup {
        Setup {
            strength,
            leaf_empties: squares.saturating_sub(LEAF_STONES),
            group: 2,
            alone,
            alone_all: alone,
            main_line: 0,
            guesses: 0,
            deepen: 0,
            searches: 1,
            policy: Policy::default(),
            state_every: Duration::from_secs(5),
        }
    }

    /// The virtual cluster prints one solve's score, strong and weak, with 1, 3 and 8
    /// workers; one worker with no latency takes exactly its positions in ticks, busy all
    /// along; with a latency, each of its jobs waits two messages' ticks (it holds one job at
    /// a time, so nothing starts before it arrives); more workers take fewer ticks than their
    /// positions.
    #[test]
    fn the_virtual_cluster_solves_as_one_solve() {
        let root = Position::<6, 5, u64>::new();
        for strength in [Strength::Strong, Strength::Weak] {
            let mut one = Solver::<6, 5, u64>::new(4).expect("4 MiB");
            let expected = one.solve(&root, strength);
            for (workers, lanes, latency) in [
                (1, 1, 0),
                (1, 1, 1_000),
                (3, 1, 1_000),
                (8, 1, 1_000),
                (2, 3, 1_000),
            ] {
                // Stopped jobs counted as searched in part, by a one-lane cluster and one of
                // lanes.
                let partial = workers == 8 || lanes == 3;
                let costs = Costs {
                    latency,
                    stops: if partial { Stops::Partial } else { Stops::Cut },
                    ..Costs::default()
                };
                let mut setup = setup(strength, 30, 1);
                setup.policy.ahead = lanes;
                let report =
                    simulate::<6, 5, u64>("", workers, Lanes::Own(lanes), &setup, 4, 12, costs)
                        .expect("a solve");
                assert_eq!(report.score, expected, "{strength:?} {workers} workers");
                let jobs = report.jobs.0 + report.jobs.1;
                match (workers, latency) {
                    (1, 0) => {
                        assert_eq!(report.busy, report.makespan, "{report:?}");
                        assert!(report.positions >= report.makespan, "{report:?}");
                    }
                    (1, _) => assert!(
                        report.makespan >= report.busy + 2 * latency * jobs,
                        "{report:?}"
                    ),
                    _ => assert!(report.makespan < report.positions, "{report:?}"),
                }
                assert!(report.busy_share(workers * lanes) <= 1.0, "{report:?}");
            }
        }
    }

    /// Workers that split their jobs over their lanes ([`Crew`]) print one solve's score,
    /// strong and weak, whichever way stopped jobs are counted ([`Stops`]); their foremen
    /// are charged when the manager is (unless their share is none), and name why each
    /// stopped job was stopped. Lane jobs wait in the queue while every lane is busy (spare
    /// jobs, guesses), and none starts before a lane is free: a worker's clock never goes
    /// back.
    #[test]
    fn workers_that_split_their_jobs_solve_as_one_solve() {
        let root = Position::<6, 5, u64>::new();
        for strength in [Strength::Strong, Strength::Weak] {
            let expected = Solver::<6, 5, u64>::new(4)
                .expect("4 MiB")
                .solve(&root, strength);
            // The workers, how stops count, the manager's rate and the foremen's share.
            let runs = [
                (1, Stops::Cut, 0.0, 1.0),
                (3, Stops::Whole, 0.0, 1.0),
                (4, Stops::Partial, 1e7, 1.0),
                (2, Stops::Partial, 0.0, 1.0),
                (4, Stops::Partial, 1e7, 0.0),
            ];
            for (workers, stops, rate, share) in runs {
                let costs = Costs {
                    manager_rate: rate,
                    stops,
                    foreman_share: share,
                    ..Costs::default()
                };
                let crew = Crew {
                    lanes: 4,
                    stones: 2,
                    deepen: 2,
                    alone: 1,
                    guesses: workers % 2,
                    group: 2,
                    spare: workers / 2,
                    beside: workers % 2 == 0,
                };
                let mut setup = setup(strength, 30, 1);
                setup.leaf_empties = 30 - 5;
                let report =
                    simulate::<6, 5, u64>("", workers, Lanes::Crew(crew), &setup, 4, 12, costs)
                        .expect("a solve");
                assert_eq!(report.score, expected, "{strength:?} {workers} workers");
                assert_eq!(report.foremen > 0, rate * share > 0.0, "{report:?}");
                if share == 0.0 {
                    // The manager is charged still.
                    assert!(report.thinking > 0, "{report:?}");
                }
                assert!(report.clock.1 > 0, "{report:?}");
                assert!(report.busy_share(workers * crew.lanes) <= 1.0, "{report:?}");
                // Every lane job stopped was stopped by its foreman, for one cause.
                let by_cause = report.stopped_by.iter().sum::<u64>();
                assert_eq!(by_cause, report.stopped_ticks, "{report:?}");
                assert_eq!(report.stopped_by[STOP_CAUSES.len()], 0, "{report:?}");
            }
        }
    }
}
