//! A worker of the cluster as a state machine without I/O ([`Worker`]): the manager's and
//! the other workers' messages and the time go in; orders for its searches ([`Order`]) and
//! messages for the manager and the other workers ([`Outgoing`]) come out, as
//! [`super::dispatch::Dispatch`] does on the manager's side.
//!
//! Why this shape: every driver runs this one worker. The binary's MPI pump and the
//! in-process tests carry its orders out on real search threads ([`threads`]); the
//! simulator ([`super::simulate`]) carries them out in virtual time. So what a worker
//! refuses, how a cancel meets a job that has not started or has already answered, and what
//! it says after the run is over are decided once, here, and a simulation's figures come
//! from the worker that ships.

pub mod threads;

use super::relay;
use super::sharing::{Records, SharingTable, far_records};
use super::wire::{JobAnswer, Passed, ToManager, ToWorker};
use std::collections::VecDeque;
use std::time::Duration;
use transpo_cli::Failure;
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::score::Window;
use transpo_connect4::solver::Solver;

/// A worker's solver: its table passes on the bounds worth sharing.
pub type WorkerSolver<const W: usize, const H: usize, B> = Solver<W, H, B, SharingTable<W, H, B>>;

/// How often the jobs that run pass on the bounds they journaled so far: the other workers
/// learn them sooner, and a run killed in the middle of a long job loses less (the manager
/// keeps them for the state file).
pub const PASS_EVERY: Duration = Duration::from_millis(500);

/// What the worker asks of its searches, in the order the manager sent it.
#[derive(Debug)]
pub enum Order<const W: usize, const H: usize, B: Bitboard> {
    /// Search this job (its id) in this window, and report its [`Outcome`].
    Search(u64, Position<W, H, B>, Window),
    /// Stop the job of this id: if it runs, end it; if it waits, report it stopped
    /// without searching it. Always about a job ordered and not yet reported.
    Stop(u64),
    /// Store the other workers' bounds (checked to be bounds of this board).
    Store(Records<W, H, B>),
    /// A new line: forget the table and the count of positions. Never with a job out.
    NewLine,
    /// Pass on the bounds the running jobs journaled so far ([`Report::Bounds`]).
    Pass,
}

/// A message a worker sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outgoing {
    /// To the manager.
    Manager(ToManager),
    /// To another worker (its number: MPI rank − 1): bounds passed along the tree.
    Worker(usize, ToWorker),
}

/// Where a worker's bounds go: to the other workers along the tree of [`relay`], never
/// through the manager; and to the manager as well when it keeps them for a state file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// This worker's number, from 0 (MPI rank − 1).
    pub me: usize,
    /// The workers of the run.
    pub workers: usize,
    /// With a state file: the manager keeps every bound the worker journals, and only
    /// those of positions with at least this many empty squares pass to the other workers
    /// (it journals deeper than it shares). `None`: every bound journaled passes to the
    /// other workers, and none goes to the manager.
    pub keep: Option<u32>,
}

impl Route {
    /// A worker on its own: its bounds go nowhere.
    pub fn alone() -> Self {
        Route {
            me: 0,
            workers: 1,
            keep: None,
        }
    }
}

/// What a message taken gives: orders for the searches, and messages to pass on.
pub type Taken<const W: usize, const H: usize, B> = (Vec<Order<W, H, B>>, Vec<Outgoing>);

/// What a worker's searches report back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Report {
    /// A job's outcome.
    Done(Outcome),
    /// Bounds journaled by a job that runs, passed on before its end ([`Order::Pass`]).
    Bounds(Vec<u8>),
}

/// A job's outcome, from the searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The job's id.
    pub id: u64,
    /// The range found, `None` if the job was stopped first.
    pub range: Option<(i32, i32)>,
    /// The worker's positions on this line, this job's included.
    pub positions: u64,
    /// The bounds it journaled and did not pass on yet.
    pub bounds: Vec<u8>,
    /// Microseconds the job searched (ticks, in virtual time).
    pub micros: u64,
}

/// A worker: which jobs its searches hold, where its bounds go, and whether the run is over.
#[derive(Debug)]
pub struct Worker<const W: usize, const H: usize, B: Bitboard> {
    route: Route,
    /// The ids of the jobs ordered and not yet reported, in the order they were sent.
    held: VecDeque<u64>,
    /// Whether the manager said the run is over.
    ended: bool,
    /// When the last [`Order::Pass`] was given (or the first job ordered).
    last_pass: Option<Duration>,
    board: std::marker::PhantomData<Position<W, H, B>>,
}

impl<const W: usize, const H: usize, B: Bitboard> Worker<W, H, B> {
    /// A worker holding nothing, whose bounds go by `route`.
    pub fn new(route: Route) -> Self {
        Worker {
            route,
            held: VecDeque::new(),
            ended: false,
            last_pass: None,
            board: std::marker::PhantomData,
        }
    }

    /// The orders one message from the manager or another worker gives, and the messages
    /// it passes on: bounds from another worker go on to this worker's children in the
    /// tree of their origin ([`relay::next`]), until the run is over.
    ///
    /// # Errors
    ///
    /// A job whose moves are no position of this board, bounds that are not this board's,
    /// or a second job of one id: ranks run the same binary and flags (the manager checks
    /// at the handshake), so only a bug or a damaged message makes one.
    pub fn take(&mut self, message: ToWorker) -> Result<Taken<W, H, B>, Failure> {
        if let ToWorker::Passed(passed) = message {
            let origin = passed.origin() as usize;
            let records = Records::decode(passed.journal()).map_err(|e| {
                Failure::run(format!(
                    "bounds from worker {origin} (rank {}): {e}",
                    origin + 1
                ))
            })?;
            let Route { me, workers, .. } = self.route;
            let on = match self.ended {
                true => Vec::new(),
                false => relay::next(origin, me, workers)
                    .map(|child| Outgoing::Worker(child, ToWorker::Passed(passed.clone())))
                    .collect(),
            };
            return Ok((vec![Order::Store(records)], on));
        }
        self.take_from_manager(message)
            .map(|orders| (orders, Vec::new()))
    }

    /// The orders one message from the manager gives ([`Worker::take`]).
    fn take_from_manager(&mut self, message: ToWorker) -> Result<Vec<Order<W, H, B>>, Failure> {
        match message {
            ToWorker::Job { id, window, moves } => {
                let pos = Position::<W, H, B>::from_moves(&moves)
                    .map_err(|e| Failure::run(format!("job {moves:?}: {e}")))?;
                if self.held.contains(&id) {
                    return Err(Failure::run(format!("job {id} sent twice (a bug)")));
                }
                self.held.push_back(id);
                Ok(vec![Order::Search(id, pos, window)])
            }
            ToWorker::Bounds(bytes) => {
                let records = Records::decode(&bytes)
                    .map_err(|e| Failure::run(format!("bounds from the manager: {e}")))?;
                Ok(vec![Order::Store(records)])
            }
            ToWorker::Line if !self.held.is_empty() => Err(Failure::run(
                "a new line while jobs are out (a bug: the manager waits for them)",
            )),
            ToWorker::Line => Ok(vec![Order::NewLine]),
            // A cancel that crossed the job's answer on the way finds nothing to stop.
            ToWorker::Cancel { id } if self.held.contains(&id) => Ok(vec![Order::Stop(id)]),
            ToWorker::Cancel { .. } => Ok(Vec::new()),
            ToWorker::End => {
                // Only a manager that failed ends the run with jobs out: stop them.
                self.ended = true;
                Ok(self.held.iter().map(|&id| Order::Stop(id)).collect())
            }
            // Taken by `take`.
            ToWorker::Passed(_) => Ok(Vec::new()),
        }
    }

    /// The order the time `now` (since any fixed start) gives: [`Order::Pass`] every
    /// [`PASS_EVERY`] while jobs run.
    pub fn tick(&mut self, now: Duration) -> Option<Order<W, H, B>> {
        if self.held.is_empty() {
            self.last_pass = None;
            return None;
        }
        let last = *self.last_pass.get_or_insert(now);
        (now.saturating_sub(last) >= PASS_EVERY).then(|| {
            self.last_pass = Some(now);
            Order::Pass
        })
    }

    /// The messages that a report of the searches gives: bounds passed on while a job
    /// runs; a job's bounds still to pass on, then its answer. Bounds go by the worker's
    /// [`Route`]: to its children in its own tree, and to the manager if it keeps them. A
    /// job's bounds go out before its answer, so that, the messages being sent in turn,
    /// they have reached the other workers by the time the manager has every answer.
    /// Nothing once the run is over: no one listens.
    ///
    /// # Errors
    ///
    /// The outcome of a job it does not hold (a bug of the searches).
    pub fn report(&mut self, report: Report) -> Result<Vec<Outgoing>, Failure> {
        let done = match report {
            Report::Bounds(bounds) if self.ended || bounds.is_empty() => return Ok(Vec::new()),
            Report::Bounds(bounds) => return Ok(self.pass(bounds)),
            Report::Done(done) => done,
        };
        let Some(at) = self.held.iter().position(|&id| id == done.id) else {
            return Err(Failure::run(format!(
                "an answer to job {}, which it does not hold (a bug)",
                done.id
            )));
        };
        self.held.remove(at);
        if self.ended {
            return Ok(Vec::new());
        }
        let mut messages = match done.bounds.is_empty() {
            true => Vec::new(),
            false => self.pass(done.bounds),
        };
        messages.push(Outgoing::Manager(ToManager::Answer(JobAnswer {
            id: done.id,
            range: done.range,
            positions: done.positions,
            micros: done.micros,
        })));
        Ok(messages)
    }

    /// The messages that pass on `journal`, bounds this worker proved ([`Route`]).
    fn pass(&self, journal: Vec<u8>) -> Vec<Outgoing> {
        let Route { me, workers, keep } = self.route;
        let far;
        let shared = match keep {
            Some(empties) => {
                far = far_records::<W, H, B>(&journal, empties);
                &far
            }
            None => &journal,
        };
        let mut messages = Vec::new();
        if !shared.is_empty() {
            let passed = Passed::new(me as u32, shared);
            messages.extend(
                relay::next(me, me, workers)
                    .map(|child| Outgoing::Worker(child, ToWorker::Passed(passed.clone()))),
            );
        }
        if keep.is_some() {
            messages.push(Outgoing::Manager(ToManager::Bounds(journal)));
        }
        messages
    }

    /// Whether it holds no job.
    pub fn idle(&self) -> bool {
        self.held.is_empty()
    }

    /// Whether the run is over for it: told so, and every job it held reported.
    pub fn finished(&self) -> bool {
        self.ended && self.held.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use transpo_connect4::bounds::BoundTable;
    use transpo_connect4::score::Strength;

    type Five = Worker<5, 4, u64>;

    /// Worker 0 of three: its bounds go to workers 1 and 2.
    fn five() -> Five {
        Five::new(Route {
            me: 0,
            workers: 3,
            keep: None,
        })
    }

    impl Five {
        /// The orders of [`Worker::take`], without the messages it passes on.
        fn take_orders(&mut self, message: ToWorker) -> Result<Vec<Order<5, 4, u64>>, Failure> {
            self.take(message).map(|(orders, _)| orders)
        }
    }

    /// The bytes of bounds passed to worker `to` in `sent`, in order.
    fn passed_to(sent: &[Outgoing], to: usize) -> Vec<Vec<u8>> {
        sent.iter()
            .filter_map(|m| match m {
                Outgoing::Worker(w, ToWorker::Passed(p)) if *w == to => Some(p.journal().to_vec()),
                _ => None,
            })
            .collect()
    }

    fn job(id: u64, moves: &str) -> ToWorker {
        ToWorker::Job {
            id,
            window: Window::of(Strength::Strong),
            moves: moves.into(),
        }
    }

    fn done(id: u64, range: Option<(i32, i32)>, bounds: Vec<u8>) -> Report {
        Report::Done(Outcome {
            id,
            range,
            positions: 7,
            bounds,
            micros: 3,
        })
    }

    fn searched(orders: &[Order<5, 4, u64>]) -> Vec<u64> {
        orders
            .iter()
            .filter_map(|o| match o {
                Order::Search(id, ..) => Some(*id),
                _ => None,
            })
            .collect()
    }

    fn stopped(orders: &[Order<5, 4, u64>]) -> Vec<u64> {
        orders
            .iter()
            .filter_map(|o| match o {
                Order::Stop(id) => Some(*id),
                _ => None,
            })
            .collect()
    }

    /// Real bounds of this board, as a worker's table journals them.
    fn real_bounds() -> Vec<u8> {
        let table = BoundTable::<5, 4, u64>::new(1).expect("1 MiB");
        let mut solver = Solver::with_table(SharingTable::new(table, 12));
        solver.solve(&Position::new(), Strength::Strong);
        let bounds = solver.table_mut().take_journal();
        assert!(!bounds.is_empty());
        bounds
    }

    /// Jobs answered in any order give their answers, each after its bounds, and the worker
    /// is idle once all are answered; a job reported twice, or never sent, is a bug.
    #[test]
    fn answers_in_any_order() {
        let mut worker = five();
        let mut orders = Vec::new();
        for (id, moves) in [(1, "1"), (2, "2"), (3, "33")] {
            orders.extend(worker.take_orders(job(id, moves)).expect("a job"));
        }
        assert_eq!(searched(&orders), [1, 2, 3]);
        let sent = worker.report(done(3, Some((1, 1)), vec![9])).expect("held");
        assert_eq!(
            (passed_to(&sent, 1), passed_to(&sent, 2)),
            (vec![vec![9]], vec![vec![9]])
        );
        assert!(
            matches!(&sent[..], [_, _, Outgoing::Manager(ToManager::Answer(a))]
            if a.id == 3 && a.range == Some((1, 1)) && a.positions == 7)
        );
        let sent = worker.report(done(1, None, Vec::new())).expect("held");
        assert!(
            matches!(&sent[..], [Outgoing::Manager(ToManager::Answer(a))] if a.id == 1 && a.range.is_none())
        );
        assert!(!worker.idle());
        assert!(worker.report(done(1, None, Vec::new())).is_err());
        assert!(worker.report(done(8, None, Vec::new())).is_err());
        worker
            .report(done(2, Some((0, 0)), Vec::new()))
            .expect("held");
        assert!(worker.idle() && !worker.finished());
    }

    /// A cancel stops a job held, whether it runs or waits; a cancel that crossed the job's
    /// answer stops nothing.
    #[test]
    fn cancels_reach_only_jobs_held() {
        let mut worker = five();
        worker.take_orders(job(1, "1")).expect("a job");
        worker.take_orders(job(2, "2")).expect("a job");
        assert_eq!(
            stopped(&worker.take_orders(ToWorker::Cancel { id: 2 }).expect("ok")),
            [2]
        );
        worker
            .report(done(1, Some((0, 0)), Vec::new()))
            .expect("held");
        assert!(
            worker
                .take_orders(ToWorker::Cancel { id: 1 })
                .expect("ok")
                .is_empty()
        );
        assert!(
            worker
                .take_orders(ToWorker::Cancel { id: 77 })
                .expect("ok")
                .is_empty()
        );
        worker.report(done(2, None, Vec::new())).expect("held");
        assert!(worker.idle());
    }

    /// The end of the run stops every job held, says nothing more to the manager (neither
    /// bounds nor answers), and finishes the worker once every job has reported.
    #[test]
    fn the_end_stops_everything_and_silences_the_worker() {
        let mut worker = five();
        assert!(worker.take_orders(ToWorker::End).expect("ok").is_empty());
        assert!(worker.finished());
        let mut worker = five();
        worker.take_orders(job(4, "4")).expect("a job");
        worker.take_orders(job(5, "44")).expect("a job");
        assert_eq!(
            stopped(&worker.take_orders(ToWorker::End).expect("ok")),
            [4, 5]
        );
        assert!(!worker.finished());
        assert!(
            worker
                .report(Report::Bounds(vec![1]))
                .expect("ok")
                .is_empty()
        );
        assert!(
            worker
                .report(done(5, None, vec![1]))
                .expect("held")
                .is_empty()
        );
        assert!(
            worker
                .report(done(4, None, vec![1]))
                .expect("held")
                .is_empty()
        );
        assert!(worker.finished());
    }

    /// Bounds of this board become an order to store them, every record checked; bounds cut
    /// short, or a key of no position, or a score past the board's, fail the worker.
    #[test]
    fn bad_bounds_fail_the_worker() {
        let bounds = real_bounds();
        let mut worker = five();
        let orders = worker
            .take_orders(ToWorker::Bounds(bounds.clone().into()))
            .expect("good bounds");
        assert!(matches!(&orders[..], [Order::Store(r)] if r.len() == bounds.len() / 11));
        let cut = bounds[..bounds.len() - 1].to_vec();
        let mut junk_key = bounds.clone();
        junk_key[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        let mut junk_score = bounds;
        junk_score[9] = 100;
        for bad in [cut, junk_key, junk_score] {
            let failure = five()
                .take_orders(ToWorker::Bounds(bad.into()))
                .expect_err("refused");
            assert!(
                failure.message().contains("bounds from the manager"),
                "{failure:?}"
            );
        }
    }

    /// A job that is no position of the board, a job sent twice, and a new line with jobs
    /// out fail the worker.
    #[test]
    fn bad_jobs_fail_the_worker() {
        assert!(five().take_orders(job(1, "6")).is_err());
        assert!(five().take_orders(job(1, "1111111")).is_err());
        let mut worker = five();
        worker.take_orders(job(1, "1")).expect("a job");
        assert!(worker.take_orders(job(1, "2")).is_err());
        assert!(worker.take_orders(ToWorker::Line).is_err());
        worker.report(done(1, None, Vec::new())).expect("held");
        assert!(matches!(
            &worker.take_orders(ToWorker::Line).expect("ok")[..],
            [Order::NewLine]
        ));
    }

    /// While jobs run, the time gives a pass every [`PASS_EVERY`], counted from the first
    /// job; an idle worker passes nothing; bounds passed mid-job go to the other workers
    /// unless empty.
    #[test]
    fn running_jobs_pass_their_bounds_on_a_beat() {
        let mut worker = five();
        let at = |ms: u64| Duration::from_millis(ms);
        assert!(worker.tick(at(0)).is_none());
        worker.take_orders(job(1, "1")).expect("a job");
        assert!(worker.tick(at(1_000)).is_none());
        assert!(worker.tick(at(1_499)).is_none());
        assert!(matches!(worker.tick(at(1_500)), Some(Order::Pass)));
        assert!(worker.tick(at(1_600)).is_none());
        assert!(matches!(worker.tick(at(2_000)), Some(Order::Pass)));
        assert!(
            worker
                .report(Report::Bounds(Vec::new()))
                .expect("ok")
                .is_empty()
        );
        let sent = worker.report(Report::Bounds(vec![3])).expect("ok");
        assert_eq!(sent.len(), 2);
        assert_eq!(
            (passed_to(&sent, 1), passed_to(&sent, 2)),
            (vec![vec![3]], vec![vec![3]])
        );
        worker.report(done(1, None, Vec::new())).expect("held");
        assert!(worker.tick(at(9_000)).is_none());
    }

    /// Bounds go along the tree, never through the manager: a worker passes what another
    /// proved on to its own children in the origin's tree, and stores it; with a state file
    /// the manager has the whole journal and the others only the far records; once the run
    /// is over nothing is passed on.
    #[test]
    fn bounds_go_along_the_tree() {
        let bounds = real_bounds();
        // Worker 5 of 16, a batch proved by worker 4: number 1 in that tree, it sends to
        // numbers 3, 5 and 9 (workers 7, 9 and 13).
        let route = |me, keep| Route {
            me,
            workers: 16,
            keep,
        };
        let mut worker = Five::new(route(5, None));
        let (orders, on) = worker
            .take(ToWorker::Passed(Passed::new(4, &bounds)))
            .expect("good bounds");
        assert!(matches!(&orders[..], [Order::Store(r)] if r.len() == bounds.len() / 11));
        let to: Vec<usize> = on
            .iter()
            .map(|m| match m {
                Outgoing::Worker(w, ToWorker::Passed(p)) if p.origin() == 4 => *w,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(to, [7, 9, 13]);
        // Its own bounds: to numbers 1, 2, 4 and 8 of its own tree.
        worker.take_orders(job(1, "1")).expect("a job");
        let sent = worker
            .report(done(1, Some((0, 0)), bounds.clone()))
            .expect("held");
        for w in [6, 7, 9, 13] {
            assert_eq!(passed_to(&sent, w), std::slice::from_ref(&bounds), "{w}");
        }
        assert_eq!(sent.len(), 5);
        // Kept for a state file: the manager has all; the others only what has at least
        // 16 empty squares (4 stones or fewer on 5×4).
        let mut keeping = Five::new(route(5, Some(16)));
        keeping.take_orders(job(2, "1")).expect("a job");
        let sent = keeping
            .report(done(2, Some((0, 0)), bounds.clone()))
            .expect("held");
        let far = far_records::<5, 4, u64>(&bounds, 16);
        assert!(!far.is_empty() && far.len() < bounds.len());
        assert_eq!(passed_to(&sent, 6), [far]);
        assert!(
            sent.iter()
                .any(|m| *m == Outgoing::Manager(ToManager::Bounds(bounds.clone())))
        );
        // Bad bounds from a worker fail this one, naming the sender.
        let failure = five()
            .take(ToWorker::Passed(Passed::new(2, &bounds[1..])))
            .expect_err("refused");
        assert!(
            failure.message().contains("worker 2 (rank 3)"),
            "{failure:?}"
        );
        // After the end: stored, not passed on.
        worker.take_orders(ToWorker::End).expect("ok");
        let (_, on) = worker
            .take(ToWorker::Passed(Passed::new(4, &bounds)))
            .expect("good bounds");
        assert!(on.is_empty());
    }
}
