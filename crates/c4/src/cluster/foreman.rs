//! A worker's own top tree over its lanes ([`Foreman`]): a job from the manager is split
//! into smaller jobs for the worker's lanes, as the manager splits the root for its workers,
//! and answered once the worker's tree has decided its window.
//!
//! Why: with workers of many lanes, the manager kept one job out for every lane (256 at 16
//! workers of 16 lanes), replayed its tree over all of them after every batch of answers, and
//! was busy three quarters of the run (docs/connect4/mpi.md, 2026-11-30). Two levels keep the
//! manager's tree as small as the workers (Feldmann's distributed YBW over a cluster of
//! shared-memory nodes): the manager holds one job a worker, and each worker splits its job
//! over its lanes on its own time, its answers never crossing the network.
//!
//! A worker may hold several of the manager's jobs at once
//! ([`Policy::ahead`](super::dispatch::Policy::ahead)). Its lanes then go to the oldest job
//! first: at most one lane job a lane is given out (and [`Crew::spare`] more, waiting in the
//! lanes' queue), and a younger job's lane jobs wait in the foreman until no older job has
//! one waiting. So a second job takes only the lanes the first job's tree leaves idle, and
//! never holds back the first.
//!
//! It sits between the [`Worker`](super::worker::Worker) and its searches, as a pure state
//! machine: the worker's orders go in, and orders for the lanes come out; the lanes' reports
//! go in, and reports for the worker come out. So the worker, the simulator and the threads
//! that search are the same with it or without it.

use super::dispatch::{Dispatch, Policy};
use super::wire::{JobAnswer, ToWorker};
use super::worker::{Order, Outcome, Report};
use super::{Step, TopTree};
use std::collections::{HashMap, VecDeque};
use transpo_cli::Failure;
use transpo_connect4::position::{Bitboard, Position, column_from_char};
use transpo_connect4::score::Window;

/// How a foreman splits a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crew {
    /// The lanes its jobs go to (at least one).
    pub lanes: usize,
    /// Stones below the manager's job its own jobs are.
    pub stones: u32,
    /// Stones further its tree splits a job while it needs fewer jobs than the lanes
    /// ([`TopTree::set_deepen`]).
    pub deepen: u32,
    /// Children a node of its tree answers before it releases the rest
    /// ([`TopTree::set_alone`]).
    pub alone: u32,
    /// Jobs guessed ahead for lanes that would wait ([`TopTree::set_guesses`]).
    pub guesses: usize,
    /// Stones above a job its placement's ancestor is ([`TopTree::new`]).
    pub group: usize,
    /// Lane jobs given out beyond one a lane ([`super::crew_spare`]): they wait in the
    /// lanes' queue for the first lane free.
    pub spare: usize,
    /// Whether a lane job split while it runs keeps running beside its children's jobs
    /// ([`TopTree::set_beside`]; [`super::CREW_BESIDE`]).
    pub beside: bool,
}

/// Why a lane job given to a lane was stopped ([`Foreman::stop_cause`]): for the
/// simulator's account of the positions searched in stopped jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopCause {
    /// The manager stopped its job.
    Lead,
    /// Its job's tree decided the job without it.
    Solved,
    /// It was a guess no step guessed or needed any more, or one that gave way to a needed
    /// lane job.
    Guess,
    /// Its position was split while it ran: it gave way to its children's jobs
    /// ([`Crew::beside`] false), or beside them they (or a brother's cutoff) settled it
    /// first.
    Split,
    /// A brother's cutoff made it needless.
    Cut,
}

/// What the foreman gives: orders for the lanes, and reports for the worker.
pub type Relayed<const W: usize, const H: usize, B> = (Vec<Order<W, H, B>>, Vec<Report>);

/// The root's moves as a lead's tree is told them: none, so that its jobs' paths start at
/// the lead's position ([`after_path`]).
const RELATIVE: &str = "";

/// One of the manager's jobs being split.
#[derive(Debug)]
struct Lead<const W: usize, const H: usize, B: Bitboard> {
    /// The manager's id of the job.
    id: u64,
    position: Position<W, H, B>,
    window: Window,
    top: TopTree<W, H, B>,
    dispatch: Dispatch<W, H, B>,
    /// The lane job of each of the dispatch's (its worker and id).
    lanes: HashMap<(usize, u64), u64>,
    /// `Some` once its answer is known (`None` inside: stopped), waiting for the lane jobs
    /// still out.
    ended: Option<Option<(i32, i32)>>,
    /// Microseconds its lane jobs searched, summed.
    micros: u64,
    /// The worker's positions when it began.
    began: u64,
    /// Its lane jobs not yet given to a lane (the lanes were taken by older jobs' or its
    /// own earlier ones), in the order its tree released them.
    waiting: VecDeque<Order<W, H, B>>,
}

/// A worker's own top tree over its lanes (the module's docs).
#[derive(Debug)]
pub struct Foreman<const W: usize, const H: usize, B: Bitboard> {
    crew: Crew,
    leads: Vec<Lead<W, H, B>>,
    /// For each lane job out (given to a lane or waiting): its lead's id, and the
    /// dispatch's worker and id.
    out: HashMap<u64, (u64, usize, u64)>,
    /// Lane jobs given to the lanes and not yet reported: at most one a lane and the
    /// [`Crew::spare`].
    on_lanes: usize,
    /// Lane jobs stopped while they waited, to be answered as stopped without a lane.
    unsent: Vec<u64>,
    next: u64,
    /// The worker's positions on this line, as the lanes last reported them.
    positions: u64,
    /// Why each lane job stopped on its lane and not yet reported was stopped.
    causes: HashMap<u64, StopCause>,
}

impl<const W: usize, const H: usize, B: Bitboard> Foreman<W, H, B> {
    /// A foreman holding nothing.
    pub fn new(crew: Crew) -> Self {
        Foreman {
            crew: Crew {
                lanes: crew.lanes.max(1),
                ..crew
            },
            leads: Vec::new(),
            out: HashMap::new(),
            on_lanes: 0,
            unsent: Vec::new(),
            next: 0,
            positions: 0,
            causes: HashMap::new(),
        }
    }

    /// Why lane job `id` was stopped, if it was stopped on its lane and has not reported
    /// since.
    pub fn stop_cause(&self, id: u64) -> Option<StopCause> {
        self.causes.get(&id).copied()
    }

    /// The orders for the lanes and the reports for the worker that the worker's `order`
    /// gives: a job is split, a stop stops its lane jobs; the rest goes to the lanes as it
    /// is.
    ///
    /// # Errors
    ///
    /// A job the foreman already holds (the worker refuses those first), or a lane job its
    /// tree writes that is no move of the job: a bug.
    pub fn order(&mut self, order: Order<W, H, B>) -> Result<Relayed<W, H, B>, Failure> {
        let relayed = match order {
            Order::Search(id, position, window) => {
                if self.leads.iter().any(|lead| lead.id == id) {
                    return Err(Failure::run(format!("job {id} split twice (a bug)")));
                }
                let stones = position.moves().saturating_add(self.crew.stones);
                let leaf_empties = ((W * H) as u32).saturating_sub(stones);
                let mut top = TopTree::new(leaf_empties, self.crew.group);
                top.set_alone(self.crew.alone);
                top.set_guesses(self.crew.guesses);
                top.set_deepen(self.crew.deepen, self.crew.lanes);
                top.set_beside(self.crew.beside);
                self.leads.push(Lead {
                    id,
                    position,
                    window,
                    top,
                    // One job a lane, an idle lane taking another's.
                    dispatch: Dispatch::new(self.crew.lanes, Policy::default()),
                    lanes: HashMap::new(),
                    ended: None,
                    micros: 0,
                    began: self.positions,
                    waiting: VecDeque::new(),
                });
                self.drive(self.leads.len() - 1)?
            }
            Order::Stop(id) => {
                let Some(at) = self.leads.iter().position(|lead| lead.id == id) else {
                    return Ok((Vec::new(), Vec::new()));
                };
                let lead = &mut self.leads[at];
                if lead.ended.is_none() {
                    lead.ended = Some(None);
                }
                let orders = lead.dispatch.cancel_all();
                let orders = self.lane_orders(at, orders)?;
                (orders, self.finish_if_done(at))
            }
            Order::NewLine => {
                self.positions = 0;
                return Ok((vec![Order::NewLine], Vec::new()));
            }
            order => return Ok((vec![order], Vec::new())),
        };
        self.settle(relayed)
    }

    /// The orders for the lanes and the reports for the worker that the lanes' `reports`
    /// give: bounds go on to the worker at once; every answer teaches its lead's tree first,
    /// then each lead that learnt steps once, and asks for more or decides the job
    /// (answered once its last lane job is); the lanes freed take the lane jobs waiting.
    ///
    /// Why many at once: a step replays its lead's tree from the lead, whatever it learnt,
    /// so answers that came in while the foreman was busy cost one step, not one each.
    ///
    /// # Errors
    ///
    /// The outcome of a lane job the foreman does not hold, or an answer its tree refuses
    /// (a bug or a broken search).
    pub fn reports(
        &mut self,
        reports: impl IntoIterator<Item = Report>,
    ) -> Result<Relayed<W, H, B>, Failure> {
        let mut relayed = (Vec::new(), Vec::new());
        let mut learnt = Vec::new();
        for report in reports {
            match report {
                Report::Done(done) => {
                    self.on_lanes = self.on_lanes.saturating_sub(1);
                    self.learn(done, &mut learnt, &mut relayed.1)?;
                }
                bounds => relayed.1.push(bounds),
            }
        }
        self.step_learnt(&learnt, &mut relayed)?;
        self.settle(relayed)
    }

    /// Lane job `done`'s outcome taught to its lead's tree: its bounds go to `told`; the
    /// lead's id joins `learnt` (to step) unless the lead has ended, in which case its
    /// answer goes to `told` once no lane job of it is out.
    fn learn(
        &mut self,
        done: Outcome,
        learnt: &mut Vec<u64>,
        told: &mut Vec<Report>,
    ) -> Result<(), Failure> {
        let (lead_id, w, sub) = self.out.remove(&done.id).ok_or_else(|| {
            Failure::run(format!(
                "an answer to lane job {}, which no job holds (a bug)",
                done.id
            ))
        })?;
        self.positions = self.positions.max(done.positions);
        self.causes.remove(&done.id);
        if !done.bounds.is_empty() {
            told.push(Report::Bounds(done.bounds));
        }
        let Some(at) = self.leads.iter().position(|lead| lead.id == lead_id) else {
            return Err(Failure::run(format!(
                "lane job {} of job {lead_id}, which is gone (a bug)",
                done.id
            )));
        };
        let lead = &mut self.leads[at];
        lead.lanes.remove(&(w, sub));
        lead.micros += done.micros;
        let answer = JobAnswer {
            id: sub,
            range: done.range,
            positions: done.positions,
            micros: done.micros,
        };
        lead.dispatch
            .answer(w, answer, &mut lead.top)
            .map_err(|e| Failure::run(format!("job {lead_id}'s lanes: {e}")))?;
        match lead.ended {
            Some(_) => told.extend(self.finish_if_done(at)),
            None if !learnt.contains(&lead_id) => learnt.push(lead_id),
            None => {}
        }
        Ok(())
    }

    /// Steps each lead of `learnt` (by id) once, adding what follows to `relayed`.
    fn step_learnt(
        &mut self,
        learnt: &[u64],
        relayed: &mut Relayed<W, H, B>,
    ) -> Result<(), Failure> {
        for &id in learnt {
            // A lead that learnt and has not ended is still held.
            let Some(at) = self.leads.iter().position(|lead| lead.id == id) else {
                continue;
            };
            let (orders, reports) = self.drive(at)?;
            relayed.0.extend(orders);
            relayed.1.extend(reports);
        }
        Ok(())
    }

    /// `relayed` with what follows from it: the lane jobs stopped while they waited are
    /// answered as stopped, and free lanes take the waiting lane jobs, the oldest job's
    /// first.
    fn settle(&mut self, mut relayed: Relayed<W, H, B>) -> Result<Relayed<W, H, B>, Failure> {
        while !self.unsent.is_empty() {
            let mut learnt = Vec::new();
            for id in std::mem::take(&mut self.unsent) {
                let stopped = Outcome {
                    id,
                    range: None,
                    positions: self.positions,
                    bounds: Vec::new(),
                    micros: 0,
                };
                self.learn(stopped, &mut learnt, &mut relayed.1)?;
            }
            self.step_learnt(&learnt, &mut relayed)?;
        }
        while self.on_lanes < self.crew.lanes.saturating_add(self.crew.spare) {
            let Some(order) = self
                .leads
                .iter_mut()
                .find_map(|lead| lead.waiting.pop_front())
            else {
                break;
            };
            self.on_lanes += 1;
            relayed.0.push(order);
        }
        Ok(relayed)
    }

    /// Steps lead `at`'s tree and hands out its jobs; once the tree decides the job, stops
    /// the lane jobs still out and answers when none is.
    fn drive(&mut self, at: usize) -> Result<Relayed<W, H, B>, Failure> {
        let lead = &mut self.leads[at];
        let explored = self.positions.saturating_sub(lead.began) + lead.top.positions();
        let step = lead
            .top
            .step(&lead.position, RELATIVE, lead.window, explored);
        let orders = match step {
            Step::Solved(range) => {
                lead.ended = Some(Some((*range.start(), *range.end())));
                lead.dispatch.cancel_all()
            }
            Step::Jobs(jobs) => lead.dispatch.plan_with_guesses(jobs, lead.top.guesses()),
        };
        let orders = self.lane_orders(at, orders)?;
        let reports = self.finish_if_done(at);
        Ok((orders, reports))
    }

    /// Lead `at`'s dispatch orders carried out: each job waits in the lead under an id of
    /// its own until a lane is free ([`Foreman::settle`]); a stop of a job given to a lane
    /// goes to the lanes, and a job stopped while it waits is taken back unsearched.
    fn lane_orders(
        &mut self,
        at: usize,
        orders: super::dispatch::Orders,
    ) -> Result<Vec<Order<W, H, B>>, Failure> {
        let lead = &mut self.leads[at];
        let mut lane = Vec::new();
        for (w, message) in orders {
            match message {
                ToWorker::Job { id, window, moves } => {
                    let position = after_path(&lead.position, &moves)?;
                    let own = self.next;
                    self.next += 1;
                    lead.lanes.insert((w, id), own);
                    self.out.insert(own, (lead.id, w, id));
                    lead.waiting.push_back(Order::Search(own, position, window));
                }
                ToWorker::Cancel { id } => {
                    let Some(&own) = lead.lanes.get(&(w, id)) else {
                        continue;
                    };
                    let waited = lead
                        .waiting
                        .iter()
                        .position(|o| matches!(o, Order::Search(job, ..) if *job == own));
                    match waited {
                        Some(i) => {
                            lead.waiting.remove(i);
                            self.unsent.push(own);
                        }
                        None => {
                            let cause = match (lead.ended, lead.dispatch.held_job(w, id)) {
                                (Some(None), _) => StopCause::Lead,
                                (Some(Some(_)), _) => StopCause::Solved,
                                (None, Some((_, true))) => StopCause::Guess,
                                (None, Some((job, false)))
                                    if lead.top.split_beside(&job.position) =>
                                {
                                    StopCause::Split
                                }
                                (None, _) => StopCause::Cut,
                            };
                            self.causes.insert(own, cause);
                            lane.push(Order::Stop(own));
                        }
                    }
                }
                // A dispatch of jobs sends nothing else mid-line.
                _ => {}
            }
        }
        Ok(lane)
    }

    /// The worker's report of lead `at`'s outcome, if it has ended and no lane job of it is
    /// out (the lead is then let go).
    fn finish_if_done(&mut self, at: usize) -> Vec<Report> {
        let lead = &self.leads[at];
        let Some(range) = lead.ended else {
            return Vec::new();
        };
        if lead.dispatch.busy() {
            return Vec::new();
        }
        let lead = self.leads.remove(at);
        vec![Report::Done(Outcome {
            id: lead.id,
            range,
            positions: self.positions,
            bounds: Vec::new(),
            micros: lead.micros,
        })]
    }

    /// Whether it holds no job.
    pub fn idle(&self) -> bool {
        self.leads.is_empty()
    }
}

/// The position `path` (columns as [`column_char`](transpo_connect4::position::column_char) writes them) reaches from `root`: a lane
/// job's, whose path the lead's tree writes from the lead's position.
fn after_path<const W: usize, const H: usize, B: Bitboard>(
    root: &Position<W, H, B>,
    path: &str,
) -> Result<Position<W, H, B>, Failure> {
    let mut position = *root;
    for ch in path.chars() {
        match column_from_char(ch) {
            Some(col) if col < W && position.can_play(col) => position.play_column(col),
            _ => {
                return Err(Failure::run(format!(
                    "lane job {path:?}: not a move of the job"
                )));
            }
        }
    }
    Ok(position)
}

#[cfg(test)]
mod tests {
    use super::*;
    use transpo_connect4::score::Strength;
    use transpo_connect4::solver::Solver;

    fn crew(lanes: usize, stones: u32, deepen: u32) -> Crew {
        Crew {
            lanes,
            stones,
            deepen,
            alone: 1,
            guesses: 0,
            group: 2,
            spare: 0,
            beside: true,
        }
    }

    /// The lanes of a worker as one solver that searches the lane jobs one at a time,
    /// `pick` choosing which of those waiting goes next (answers come back in any order),
    /// and reports them `batch` at a time (fewer if fewer wait); returns what the foreman
    /// reported to the worker and the lane jobs searched.
    fn run_lanes<const W: usize, const H: usize>(
        foreman: &mut Foreman<W, H, u64>,
        first: Relayed<W, H, u64>,
        batch: usize,
        mut pick: impl FnMut(usize) -> usize,
    ) -> (Vec<Report>, usize) {
        let mut solver = Solver::<W, H, u64>::new(4).expect("4 MiB");
        let (mut waiting, mut reports) = (Vec::new(), first.1);
        let mut stopped = Vec::new();
        let take = |orders: Vec<Order<W, H, u64>>, waiting: &mut Vec<_>, stopped: &mut Vec<u64>| {
            for order in orders {
                match order {
                    Order::Search(id, pos, window) => waiting.push((id, pos, window)),
                    Order::Stop(id) => stopped.push(id),
                    other => panic!("a lane order {other:?}"),
                }
            }
        };
        take(first.0, &mut waiting, &mut stopped);
        let mut searched = 0;
        while !waiting.is_empty() {
            let mut done = Vec::new();
            while done.len() < batch.max(1) && !waiting.is_empty() {
                let (id, pos, window) = waiting.remove(pick(waiting.len()) % waiting.len());
                let range = if stopped.contains(&id) {
                    None
                } else {
                    searched += 1;
                    let range = solver.solve_window(&pos, window);
                    assert!(window.decided(*range.start(), *range.end()));
                    Some((*range.start(), *range.end()))
                };
                done.push(Report::Done(Outcome {
                    id,
                    range,
                    positions: solver.nodes(),
                    bounds: Vec::new(),
                    micros: 1,
                }));
            }
            let (orders, more) = foreman.reports(done).expect("held");
            reports.extend(more);
            take(orders, &mut waiting, &mut stopped);
        }
        (reports, searched)
    }

    /// A job split over lanes is answered with a range that decides its window and agrees
    /// with one solve of the job, whatever order the lane jobs are answered in, one at a
    /// time or several together, strong and weak, on several boards, splits and depths; and
    /// the foreman is then idle.
    #[test]
    fn a_split_job_is_answered_as_one_solve() {
        fn check<const W: usize, const H: usize>(moves: &str, stones: u32, deepen: u32) {
            let pos = Position::<W, H, u64>::from_moves(moves).expect("a position");
            let mut one = Solver::<W, H, u64>::new(4).expect("4 MiB");
            let mut split_into = 0;
            for strength in [Strength::Strong, Strength::Weak] {
                let full = Window::of(strength);
                let score = one.solve_window(&pos, full);
                let mut windows = vec![full];
                // A null window either side of the score, as the manager asks them.
                let s = *score.start();
                windows.extend([
                    Window {
                        alpha: s - 1,
                        beta: s,
                    },
                    Window {
                        alpha: s,
                        beta: s + 1,
                    },
                ]);
                let runs = windows.into_iter().zip([0, 3, 7]);
                for ((window, shuffle), batch) in runs.flat_map(|run| [(run, 1), (run, 3)]) {
                    // A running lane job split beside its children's, or giving way.
                    let crew = Crew {
                        beside: shuffle != 3,
                        ..crew(4, stones, deepen)
                    };
                    let mut foreman = Foreman::<W, H, u64>::new(crew);
                    let first = foreman.order(Order::Search(9, pos, window)).expect("a job");
                    let mut turn = 0;
                    let (reports, searched) = run_lanes(&mut foreman, first, batch, |n| {
                        turn += 1;
                        (turn * shuffle) % n.max(1)
                    });
                    let [Report::Done(done)] = &reports[..] else {
                        panic!("{moves:?} {window:?}: {reports:?}");
                    };
                    let (lo, hi) = done.range.expect("answered");
                    assert_eq!(done.id, 9);
                    assert!(window.decided(lo, hi), "{moves:?} {window:?}: {lo}..={hi}");
                    let truth = one.solve_window(&pos, window);
                    assert!(
                        lo <= *truth.end() && *truth.start() <= hi,
                        "{moves:?} {window:?}: {lo}..={hi} against {truth:?}"
                    );
                    split_into = split_into.max(searched);
                    assert!(foreman.idle());
                }
            }
            assert!(split_into > 1, "{moves:?}: split into {split_into} at most");
        }
        check::<5, 4>("", 2, 0);
        check::<5, 4>("3", 1, 2);
        check::<6, 4>("34", 2, 2);
        check::<4, 5>("1122", 3, 0);
        check::<6, 5>("34", 2, 2);
    }

    /// A stop stops every lane job of the job that is out (each stopped for that cause
    /// until it reports), and once they have reported, the job is reported stopped; the
    /// lanes' bounds go to the worker as they come; a report of a lane job no job holds, and
    /// a job split twice, are refused.
    #[test]
    fn a_stop_reaches_every_lane_job() {
        let pos = Position::<6, 5, u64>::from_moves("33").expect("a position");
        let mut foreman = Foreman::<6, 5, u64>::new(crew(4, 3, 2));
        let window = Window::of(Strength::Strong);
        let (orders, reports) = foreman.order(Order::Search(1, pos, window)).expect("a job");
        assert!(reports.is_empty());
        let ids: Vec<u64> = orders
            .iter()
            .map(|o| match o {
                Order::Search(id, ..) => *id,
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(!ids.is_empty());
        assert!(foreman.order(Order::Search(1, pos, window)).is_err());
        let passed = foreman
            .reports([Report::Bounds(vec![1, 2])])
            .expect("bounds");
        assert_eq!(passed.1, [Report::Bounds(vec![1, 2])]);
        let (stops, reports) = foreman.order(Order::Stop(1)).expect("a stop");
        let mut stopped: Vec<u64> = stops
            .iter()
            .map(|o| match o {
                Order::Stop(id) => *id,
                other => panic!("{other:?}"),
            })
            .collect();
        stopped.sort_unstable();
        assert_eq!(stopped, ids);
        assert!(reports.is_empty(), "answered before its lane jobs");
        // Each was stopped with its job, until it reports.
        for &id in &ids {
            assert_eq!(foreman.stop_cause(id), Some(StopCause::Lead));
        }
        let last = ids.len() - 1;
        for (i, &id) in ids.iter().enumerate() {
            let outcome = Outcome {
                id,
                range: None,
                positions: 5,
                bounds: vec![7],
                micros: 2,
            };
            let (orders, reports) = foreman.reports([Report::Done(outcome)]).expect("held");
            assert!(orders.is_empty());
            assert_eq!(foreman.stop_cause(id), None);
            let done: Vec<_> = reports
                .iter()
                .filter_map(|r| match r {
                    Report::Done(done) => Some(done.clone()),
                    Report::Bounds(b) => {
                        assert_eq!(b, &[7]);
                        None
                    }
                })
                .collect();
            if i == last {
                assert_eq!(done.len(), 1);
                assert_eq!((done[0].id, done[0].range), (1, None));
                assert_eq!(done[0].micros, 2 * ids.len() as u64);
            } else {
                assert!(done.is_empty());
            }
        }
        assert!(foreman.idle());
        let stray = Outcome {
            id: ids[0],
            range: None,
            positions: 5,
            bounds: Vec::new(),
            micros: 0,
        };
        assert!(foreman.reports([Report::Done(stray)]).is_err());
        // A stop of a job it does not hold (answered already) is nothing.
        let (orders, reports) = foreman.order(Order::Stop(1)).expect("nothing");
        assert!(orders.is_empty() && reports.is_empty());
    }

    /// With two jobs held, at most one lane job a lane is given out (and the spare ones, if
    /// any, all of them used), and the younger job's lane jobs go to the lanes only while
    /// none of the older job's waits; it still gets the lanes the older one leaves idle,
    /// before the older one is answered.
    #[test]
    fn the_older_job_takes_the_lanes_first() {
        for spare in [0, 2] {
            older_first(spare);
        }
    }

    fn older_first(spare: usize) {
        let lanes = 3;
        let mut foreman = Foreman::<6, 4, u64>::new(Crew {
            spare,
            ..crew(lanes, 2, 2)
        });
        let mut most = 0;
        let mut one = Solver::<6, 4, u64>::new(4).expect("4 MiB");
        let window = Window::of(Strength::Strong);
        let jobs = ["3", "4"].map(|m| Position::<6, 4, u64>::from_moves(m).expect("legal"));
        let mut given: Vec<(u64, Position<6, 4, u64>, Window)> = Vec::new();
        let (mut younger_early, mut answered) = (0, Vec::new());
        let mut take = |relayed: Relayed<6, 4, u64>,
                        foreman: &Foreman<6, 4, u64>,
                        given: &mut Vec<_>,
                        answered: &mut Vec<u64>| {
            for order in relayed.0 {
                if let Order::Search(id, pos, window) = order {
                    let lead = foreman.out[&id].0;
                    let older = foreman.leads.iter().find(|l| l.id == 1);
                    if let (2, Some(older)) = (lead, older) {
                        assert!(
                            older.waiting.is_empty(),
                            "job 2 took a lane job 1 waited for"
                        );
                        younger_early += 1;
                    }
                    given.push((id, pos, window));
                }
            }
            answered.extend(relayed.1.iter().filter_map(|r| match r {
                Report::Done(done) => Some(done.id),
                Report::Bounds(_) => None,
            }));
            assert!(
                given.len() <= lanes + spare,
                "{} lane jobs given to {lanes} lanes and {spare} spare",
                given.len()
            );
            most = most.max(given.len());
        };
        for (id, pos) in [1, 2].into_iter().zip(jobs) {
            let relayed = foreman
                .order(Order::Search(id, pos, window))
                .expect("a job");
            take(relayed, &foreman, &mut given, &mut answered);
        }
        while !given.is_empty() {
            let (id, pos, window) = given.remove(0);
            let range = one.solve_window(&pos, window);
            let outcome = Outcome {
                id,
                range: Some((*range.start(), *range.end())),
                positions: one.nodes(),
                bounds: Vec::new(),
                micros: 1,
            };
            let relayed = foreman.reports([Report::Done(outcome)]).expect("held");
            take(relayed, &foreman, &mut given, &mut answered);
        }
        answered.sort_unstable();
        assert_eq!(answered, [1, 2]);
        assert!(foreman.idle());
        assert!(younger_early > 0, "job 2 waited for job 1's end");
        assert_eq!(
            most,
            lanes + spare,
            "the lanes and spare slots were not all used"
        );
    }

    /// Two jobs held at once are each answered as one solve answers them, their lane jobs
    /// interleaved.
    #[test]
    fn two_jobs_split_at_once() {
        let mut foreman = Foreman::<6, 4, u64>::new(crew(3, 2, 2));
        let mut one = Solver::<6, 4, u64>::new(4).expect("4 MiB");
        let window = Window::of(Strength::Strong);
        let (a, b) = (
            Position::<6, 4, u64>::from_moves("3").expect("a position"),
            Position::<6, 4, u64>::from_moves("4").expect("a position"),
        );
        let (mut orders, mut reports) = foreman.order(Order::Search(1, a, window)).expect("a");
        let more = foreman.order(Order::Search(2, b, window)).expect("b");
        orders.extend(more.0);
        reports.extend(more.1);
        let mut turn = 0;
        let (reports, _) = run_lanes(&mut foreman, (orders, reports), 2, |n| {
            turn += 1;
            turn % n
        });
        assert_eq!(reports.len(), 2);
        for report in reports {
            let Report::Done(done) = report else {
                panic!("{report:?}");
            };
            let pos = if done.id == 1 { a } else { b };
            let want = one.solve(&pos, Strength::Strong);
            let (lo, hi) = done.range.expect("answered");
            assert!(
                window.decided(lo, hi) && (lo..=hi).contains(&want),
                "job {}",
                done.id
            );
        }
    }
}
