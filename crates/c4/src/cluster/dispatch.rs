//! What the manager decides about its workers, as plain code: which job goes to which
//! worker, which is cancelled, which an idle worker takes from another, and how many a
//! worker holds ahead. (The bounds the workers prove pass between them without the manager:
//! [`super::relay`].) Every decision returns
//! the messages to send ([`Orders`]); the MPI pump (`commands/mpi/`) only sends them and
//! hands back what comes, so unit tests drive the whole policy without a cluster.
//!
//! The rules, each once:
//! - A job goes to the worker that owns its group ([`super::owner`]): transposition-driven
//!   placement (Romein et al. 1999), so a position reached twice meets one table.
//! - A job sent before answers a needed one if it is the same position with a window that
//!   holds the needed one's ([`Job::covers`]); it is not sent again.
//! - A sent job no step needs any more (a brother cut its parent off) is cancelled; its
//!   answer, if it comes anyway, is still learnt.
//! - A worker holds at most [`Policy::ahead`] jobs that matter: the one it searches and the
//!   next ones waiting at the worker.
//! - A worker that holds nothing and has nothing of its own takes the front of the longest
//!   queue ([`Policy::steal`]).
//! - A worker still left with nothing takes a guess, a job the search may need next
//!   ([`TopTree::guesses`]); a guess is stopped once no step guesses or needs it, or once a
//!   needed job could take its worker.

use super::wire::{JobAnswer, ToWorker};
use super::{Job, TopTree, holds, owner};
use std::collections::VecDeque;
use std::time::Duration;
use transpo_connect4::position::Bitboard;
use transpo_connect4::score::Window;

/// Messages to send, in order: the worker (numbered from 0; MPI rank − 1) and the message.
pub type Orders = Vec<(usize, ToWorker)>;

/// The end of the run, for each of `workers` workers (whatever the run's outcome: no worker
/// is left waiting).
pub fn end(workers: usize) -> Orders {
    (0..workers).map(|w| (w, ToWorker::End)).collect()
}

/// The knobs of the policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Jobs a worker holds at once (at least 1).
    pub ahead: usize,
    /// Whether an idle worker takes another's job.
    pub steal: bool,
    /// Whether only one job runs at a time (for measuring what splitting the table costs
    /// apart from running jobs side by side).
    pub serial: bool,
}

impl Default for Policy {
    /// One job held, stealing on, jobs side by side.
    fn default() -> Self {
        Policy {
            ahead: 1,
            steal: true,
            serial: false,
        }
    }
}

/// A job sent to a worker and not yet answered.
#[derive(Clone, Debug)]
struct Sent<const W: usize, const H: usize, B: Bitboard> {
    id: u64,
    job: Job<W, H, B>,
    /// Whether the worker was told to stop it (or not to start it).
    cancelled: bool,
    /// Whether it is a guess ([`Dispatch::plan_with_guesses`]) no step has needed yet.
    guess: bool,
}

/// What one line cost so far, by worker.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineCount {
    /// Jobs answered.
    pub answered: u64,
    /// Jobs cancelled before their answer.
    pub stopped: u64,
    /// Each worker's positions on the line.
    pub positions: Vec<u64>,
    /// Microseconds each worker searched on the line.
    pub searched: Vec<u64>,
}

/// The manager's side of its workers.
#[derive(Clone, Debug)]
pub struct Dispatch<const W: usize, const H: usize, B: Bitboard> {
    policy: Policy,
    /// The jobs each worker was sent and has not answered, in the order it searches them.
    sent: Vec<VecDeque<Sent<W, H, B>>>,
    /// The jobs waiting for each worker.
    queues: Vec<VecDeque<Job<W, H, B>>>,
    next_id: u64,
    count: LineCount,
}

impl<const W: usize, const H: usize, B: Bitboard> Dispatch<W, H, B> {
    /// The side of `workers` workers (at least one), holding nothing.
    pub fn new(workers: usize, policy: Policy) -> Self {
        let n = workers.max(1);
        Dispatch {
            policy: Policy {
                ahead: policy.ahead.max(1),
                ..policy
            },
            sent: vec![VecDeque::new(); n],
            queues: vec![VecDeque::new(); n],
            next_id: 0,
            count: LineCount {
                positions: vec![0; n],
                searched: vec![0; n],
                ..LineCount::default()
            },
        }
    }

    /// The number of workers.
    pub fn workers(&self) -> usize {
        self.sent.len()
    }

    /// A new line: every worker forgets its table and count, and so do these counts. Call
    /// it with no job out ([`Dispatch::busy`] false).
    pub fn new_line(&mut self) -> Orders {
        let n = self.workers();
        self.queues.iter_mut().for_each(VecDeque::clear);
        self.count = LineCount {
            positions: vec![0; n],
            searched: vec![0; n],
            ..LineCount::default()
        };
        (0..n).map(|w| (w, ToWorker::Line)).collect()
    }

    /// Makes `needed` (one step's jobs, in the search's order) the work to do (the rules
    /// are in the module's docs).
    pub fn plan(&mut self, needed: Vec<Job<W, H, B>>) -> Orders {
        self.plan_with_guesses(needed, &[])
    }

    /// [`Dispatch::plan`], and a worker left with nothing to search takes the first of
    /// `guesses` (jobs the search may need next, [`TopTree::guesses`]) that none holds. A
    /// guess is stopped when no step guesses or needs it any more, or when its worker could
    /// take a needed job instead.
    pub fn plan_with_guesses(
        &mut self,
        needed: Vec<Job<W, H, B>>,
        guesses: &[Job<W, H, B>],
    ) -> Orders {
        let mut orders = Orders::new();
        let n = self.workers();
        let wanted = ByKey::new(needed.iter());
        for w in 0..n {
            for i in 0..self.sent[w].len() {
                let sent = &mut self.sent[w][i];
                if sent.cancelled {
                    continue;
                }
                let key = sent.job.key();
                if wanted.any(key, |window| sent.job.covers(window)) {
                    sent.guess = false;
                } else if !sent.guess || !guesses.iter().any(|job| answers(sent, job)) {
                    orders.push(self.cancel(w, i));
                }
            }
        }
        self.queues.iter_mut().for_each(VecDeque::clear);
        let first = needed.first().cloned();
        let out = self.sent.iter().flatten().filter(|sent| !sent.cancelled);
        let out = ByKey::new(out.map(|sent| &sent.job));
        for job in needed {
            if !out.any(job.key(), |window| holds(window, job.window)) {
                self.queues[owner(job.group, n)].push_back(job);
            }
        }
        if self.policy.serial {
            // One job at a time, the search's first, at its owner.
            if let (false, Some(job)) = (self.busy(), first) {
                self.send(owner(job.group, n), job, false, &mut orders);
            }
            return orders;
        }
        for w in 0..n {
            self.fill(w, &mut orders);
        }
        // A needed job goes before a guess: a worker that holds only guesses stops them for
        // a needed job it can take (its own, or another's if it may steal).
        for w in 0..n {
            let guessing = |sent: &Sent<W, H, B>| sent.cancelled || sent.guess;
            let can_take = !self.queues[w].is_empty()
                || (self.policy.steal && self.queues.iter().any(|q| !q.is_empty()));
            if can_take && self.held(w) > 0 && self.sent[w].iter().all(guessing) {
                for i in 0..self.sent[w].len() {
                    if !self.sent[w][i].cancelled {
                        orders.push(self.cancel(w, i));
                    }
                }
                self.fill(w, &mut orders);
            }
        }
        let mut guesses = guesses.iter();
        for w in 0..n {
            if self.held(w) > 0 {
                continue;
            }
            let Some(job) = guesses.by_ref().find(|job| !self.covered(job)) else {
                break;
            };
            self.send(w, job.clone(), true, &mut orders);
        }
        orders
    }

    /// Sends worker `w` needed jobs up to what it may hold: its own queue's, or if it holds
    /// nothing and has nothing of its own, the front of the longest queue (if it may steal).
    fn fill(&mut self, w: usize, orders: &mut Orders) {
        let n = self.workers();
        while self.held(w) < self.policy.ahead {
            let idle = self.queues[w].is_empty() && self.held(w) == 0;
            let from = if idle && self.policy.steal {
                (0..n).max_by_key(|&q| self.queues[q].len()).unwrap_or(w)
            } else {
                w
            };
            let Some(job) = self.queues[from].pop_front() else {
                break;
            };
            self.send(w, job, false, orders);
        }
    }

    /// Whether a job sent and not cancelled will answer `job`.
    fn covered(&self, job: &Job<W, H, B>) -> bool {
        self.sent
            .iter()
            .flatten()
            .any(|sent| !sent.cancelled && answers(sent, job))
    }

    /// Stops every job that still matters: the root is solved.
    pub fn cancel_all(&mut self) -> Orders {
        let mut orders = Orders::new();
        for w in 0..self.workers() {
            for i in 0..self.sent[w].len() {
                if !self.sent[w][i].cancelled {
                    orders.push(self.cancel(w, i));
                }
            }
        }
        orders
    }

    /// Takes in worker `w`'s answer, teaching `top` the range it proved.
    ///
    /// # Errors
    ///
    /// An answer from no worker, to a job the worker does not hold, or one that does not
    /// decide its window or contradicts what is known: a bug or a broken rank, which the
    /// run cannot trust. (A worker that searches several jobs at once may answer them in
    /// any order.)
    pub fn answer(
        &mut self,
        w: usize,
        answer: JobAnswer,
        top: &mut TopTree<W, H, B>,
    ) -> Result<(), String> {
        let held = self.sent.get_mut(w).ok_or("an answer from no worker")?;
        let Some(Sent { job, .. }) = held
            .iter()
            .position(|sent| sent.id == answer.id)
            .and_then(|i| held.remove(i))
        else {
            return Err(format!(
                "an answer to job {}, which it does not hold",
                answer.id
            ));
        };
        // A worker of lanes may answer a job whose count it took before another's.
        self.count.positions[w] = self.count.positions[w].max(answer.positions);
        self.count.searched[w] += answer.micros;
        let Some((lo, hi)) = answer.range else {
            self.count.stopped += 1;
            return Ok(());
        };
        if lo > hi || !job.window.decided(lo, hi) || !top.learn(&job.position, lo..=hi) {
            return Err(format!(
                "the answer {lo}..={hi} to {} in {:?} contradicts what is known",
                job.moves, job.window
            ));
        }
        self.count.answered += 1;
        Ok(())
    }

    /// Worker `w`'s job `id`, if it holds it (cancelled or not), and whether it is a guess
    /// no step has needed yet.
    pub fn held_job(&self, w: usize, id: u64) -> Option<(&Job<W, H, B>, bool)> {
        let sent = self.sent.get(w)?.iter().find(|sent| sent.id == id)?;
        Some((&sent.job, sent.guess))
    }

    /// Whether a worker holds a job not yet answered (cancelled or not).
    pub fn busy(&self) -> bool {
        self.sent.iter().any(|held| !held.is_empty())
    }

    /// Jobs the workers hold that still matter.
    pub fn running(&self) -> usize {
        (0..self.workers()).map(|w| self.held(w)).sum()
    }

    /// Positions of every worker on this line.
    pub fn positions(&self) -> u64 {
        self.count.positions.iter().sum()
    }

    /// What this line cost so far.
    pub fn count(&self) -> &LineCount {
        &self.count
    }

    /// Jobs searching at once, on average over the line's time `elapsed`: the workers'
    /// searching time summed over the workers (and over the lanes of a worker of several)
    /// ÷ `elapsed`. At most the workers for one-thread workers, the lanes for workers of
    /// lanes.
    pub fn searching_at_once(&self, elapsed: Duration) -> f64 {
        let searched = self.count.searched.iter().sum::<u64>() as f64;
        searched / (elapsed.as_micros() as f64).max(1.0)
    }

    /// Jobs worker `w` holds that still matter.
    fn held(&self, w: usize) -> usize {
        self.sent[w].iter().filter(|sent| !sent.cancelled).count()
    }

    /// The order to stop the `i`th job worker `w` holds.
    fn cancel(&mut self, w: usize, i: usize) -> (usize, ToWorker) {
        let sent = &mut self.sent[w][i];
        sent.cancelled = true;
        (w, ToWorker::Cancel { id: sent.id })
    }

    /// Sends `job` to worker `w`.
    fn send(&mut self, w: usize, job: Job<W, H, B>, guess: bool, orders: &mut Orders) {
        orders.push((
            w,
            ToWorker::Job {
                id: self.next_id,
                window: job.window,
                moves: job.moves.clone(),
            },
        ));
        self.sent[w].push_back(Sent {
            id: self.next_id,
            job,
            cancelled: false,
            guess,
        });
        self.next_id += 1;
    }
}

/// Jobs' windows by key, for the plan's matches of one step's jobs against the jobs out:
/// sorted once, each match a binary search, where a scan of one list for each job of the
/// other grew with the square of the searches.
struct ByKey<B: Bitboard>(Vec<(B, Window)>);

impl<B: Bitboard> ByKey<B> {
    /// The windows of `jobs`, by key.
    fn new<'a, const W: usize, const H: usize>(jobs: impl Iterator<Item = &'a Job<W, H, B>>) -> Self
    where
        B: 'a,
    {
        let mut windows: Vec<(B, Window)> = jobs.map(|job| (job.key(), job.window)).collect();
        windows.sort_unstable_by_key(|&(key, _)| key);
        ByKey(windows)
    }

    /// Whether a job of `key` has a window that `test` accepts.
    fn any(&self, key: B, test: impl Fn(Window) -> bool) -> bool {
        let first = self.0.partition_point(|&(k, _)| k < key);
        self.0[first..]
            .iter()
            .take_while(|&&(k, _)| k == key)
            .any(|&(_, window)| test(window))
    }
}

/// Whether `sent`'s answer, once it comes, also answers `job`: the same position, and a
/// window that holds `job`'s.
fn answers<const W: usize, const H: usize, B: Bitboard>(
    sent: &Sent<W, H, B>,
    job: &Job<W, H, B>,
) -> bool {
    sent.job.key() == job.key() && sent.job.covers(job.window)
}

#[cfg(test)]
mod tests {
    use super::super::Step;
    use super::*;
    use transpo_connect4::position::Position;
    use transpo_connect4::score::{Strength, Window, finish};
    use transpo_connect4::solver::Solver;

    /// A worker as the pump sees it: the messages it was sent and has not acted on.
    type Inbox = VecDeque<ToWorker>;

    /// A whole cluster without MPI: the top tree and the dispatch, and `workers` solvers
    /// that act on their messages in order and answer their jobs one at a time; which
    /// worker answers next is `pick`'s choice among those holding a job, as answers come
    /// back in any order; the top tree guesses up to `guesses` jobs for idle workers. Returns
    /// the score, the jobs answered and cancelled, and the most jobs that mattered any
    /// worker held at once.
    fn cluster<const W: usize, const H: usize, B: Bitboard>(
        moves: &str,
        leaf_empties: u32,
        strength: Strength,
        (workers, guesses): (usize, usize),
        policy: Policy,
        mut pick: impl FnMut(usize) -> usize,
    ) -> (i32, u64, u64, usize) {
        let root = Position::<W, H, B>::from_moves(moves).expect("a position");
        let mut top = TopTree::<W, H, B>::new(leaf_empties, 1);
        top.set_guesses(guesses);
        let mut dispatch = Dispatch::<W, H, B>::new(workers, policy);
        let mut solvers: Vec<Solver<W, H, B>> = (0..workers)
            .map(|_| Solver::new(2).expect("2 MiB"))
            .collect();
        let mut inboxes: Vec<Inbox> = vec![Inbox::new(); workers];
        let mut held_most = 0;
        let deliver = |orders: Orders, inboxes: &mut Vec<Inbox>| {
            for (w, message) in orders {
                inboxes[w].push_back(message);
            }
        };
        deliver(dispatch.new_line(), &mut inboxes);
        let explored = |solvers: &[Solver<W, H, B>], top: &TopTree<W, H, B>| {
            solvers.iter().map(Solver::nodes).sum::<u64>() + top.positions()
        };
        loop {
            match top.step(&root, moves, Window::of(strength), explored(&solvers, &top)) {
                Step::Solved(range) => {
                    deliver(dispatch.cancel_all(), &mut inboxes);
                    let count = dispatch.count();
                    return (
                        finish(*range.start(), strength),
                        count.answered,
                        count.stopped,
                        held_most,
                    );
                }
                Step::Jobs(jobs) => {
                    let orders = dispatch.plan_with_guesses(jobs, top.guesses());
                    deliver(orders, &mut inboxes);
                    held_most =
                        held_most.max((0..workers).map(|w| dispatch.held(w)).max().unwrap_or(0));
                }
            }
            assert!(dispatch.busy(), "a step that sent nothing");
            // The chosen worker acts on its messages up to and including its first job.
            let holding: Vec<usize> = (0..workers)
                .filter(|&w| inboxes[w].iter().any(|m| matches!(m, ToWorker::Job { .. })))
                .collect();
            let w = holding[pick(holding.len()) % holding.len()];
            let mut cancelled = Vec::new();
            // Cancels for a job still in the inbox are acted on before the job starts.
            for message in &inboxes[w] {
                if let ToWorker::Cancel { id } = message {
                    cancelled.push(*id);
                }
            }
            while let Some(message) = inboxes[w].pop_front() {
                match message {
                    ToWorker::Line => solvers[w].reset(),
                    ToWorker::Bounds(_)
                    | ToWorker::Passed(_)
                    | ToWorker::Cancel { .. }
                    | ToWorker::End => {}
                    ToWorker::Job { id, window, moves } => {
                        let range = if cancelled.contains(&id) {
                            None
                        } else {
                            let pos = Position::<W, H, B>::from_moves(&moves).expect("a job");
                            let range = solvers[w].solve_window(&pos, window);
                            Some((*range.start(), *range.end()))
                        };
                        let answer = JobAnswer {
                            id,
                            range,
                            positions: solvers[w].nodes(),
                            micros: 1,
                        };
                        dispatch.answer(w, answer, &mut top).expect("a good answer");
                        break;
                    }
                }
            }
        }
    }

    /// Driven by the policy, any number of workers answering in any order give one
    /// solve's score, strong and weak, holding one or two jobs ahead, stealing or not,
    /// one job at a time or side by side, guessing jobs ahead or not.
    #[test]
    fn the_policy_gives_one_solves_score() {
        fn check<const W: usize, const H: usize, B: Bitboard>(moves: &str, leaf: u32) {
            let root = Position::<W, H, B>::from_moves(moves).expect("a position");
            let mut one = Solver::<W, H, B>::new(4).expect("4 MiB");
            for strength in [Strength::Strong, Strength::Weak] {
                let expected = one.solve(&root, strength);
                for (workers, ahead, steal, serial, guesses) in [
                    (1, 1, true, false, 0),
                    (3, 1, true, false, 0),
                    (4, 2, true, false, 0),
                    (5, 1, false, false, 0),
                    (3, 1, true, true, 0),
                    (2, 1, true, false, 1),
                    (3, 1, true, false, 3),
                    (4, 2, true, false, 4),
                    (5, 1, false, false, 8),
                ] {
                    let policy = Policy {
                        ahead,
                        steal,
                        serial,
                    };
                    let mut turn = 0usize;
                    let (score, answered, _, held) = cluster::<W, H, B>(
                        moves,
                        leaf,
                        strength,
                        (workers, guesses),
                        policy,
                        |n| {
                            turn = turn.wrapping_mul(31).wrapping_add(7);
                            turn % n.max(1)
                        },
                    );
                    assert_eq!(
                        score, expected,
                        "{W}x{H} {moves:?} {strength:?} {workers} workers, ahead {ahead}, \
                         {guesses} guesses"
                    );
                    assert!(answered > 0);
                    assert!(held <= ahead, "{held} jobs held, {ahead} allowed");
                }
            }
        }
        check::<5, 4, u64>("", 14);
        check::<6, 4, u64>("3", 17);
        check::<5, 5, u64>("", 18);
    }

    fn job(moves: &str, alpha: i32, group: u64) -> Job<5, 4, u64> {
        Job {
            position: Position::from_moves(moves).expect("a position"),
            moves: moves.into(),
            window: Window {
                alpha,
                beta: alpha + 1,
            },
            group,
            rank: 0,
        }
    }

    /// The plan's index finds every window of a key, a mirror image's under the same key,
    /// and nothing for a key it does not hold, as a scan of the jobs would.
    #[test]
    fn jobs_by_key_match_as_a_scan_does() {
        let jobs = [
            job("11", 0, 0),
            job("3", -2, 0),
            job("11", 3, 0),
            job("55", 1, 0),
            job("1", 0, 0),
        ];
        let index = ByKey::new(jobs.iter());
        for probe in ["11", "3", "55", "1", "5", "12", "2", "4"] {
            let asked = job(probe, 0, 0);
            for alpha in -4..5 {
                let scan = jobs
                    .iter()
                    .any(|j| j.key() == asked.key() && j.window.alpha == alpha);
                let found = index.any(asked.key(), |window| window.alpha == alpha);
                assert_eq!(found, scan, "{probe} at {alpha}");
            }
        }
        // "5" is the mirror image of "1": one key, one window.
        assert!(index.any(job("5", 0, 0).key(), |window| window.alpha == 0));
    }

    /// The group whose owner among `n` workers is `w`.
    fn group_of(w: usize, n: usize) -> u64 {
        (0u64..).find(|&g| owner(g, n) == w).expect("some key")
    }

    /// Jobs go to their owners; a job needed again is not sent again; one no longer needed
    /// is cancelled; an idle worker steals from the longest queue.
    #[test]
    fn the_rules_one_by_one() {
        let mut d = Dispatch::<5, 4, u64>::new(2, Policy::default());
        let (g0, g1) = (group_of(0, 2), group_of(1, 2));
        let a = job("11", 0, g0);
        let b = job("12", 0, g0);
        let c = job("13", 0, g0);
        // Worker 0 owns all three: it gets the first, worker 1 (idle) steals the next.
        let orders = d.plan(vec![a.clone(), b.clone(), c.clone()]);
        let sent: Vec<(usize, String)> = orders
            .iter()
            .map(|(w, m)| match m {
                ToWorker::Job { moves, .. } => (*w, moves.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(sent, vec![(0, "11".to_string()), (1, "12".to_string())]);
        // The same needs again: nothing new; without "11" it is cancelled and "13" goes.
        assert_eq!(d.plan(vec![a.clone(), b.clone(), c.clone()]), vec![]);
        let orders = d.plan(vec![b.clone(), c.clone()]);
        assert_eq!(orders[0], (0, ToWorker::Cancel { id: 0 }));
        assert!(matches!(&orders[1], (0, ToWorker::Job { id: 2, moves, .. }) if moves == "13"));
        // A wider window than needed answers it; a narrower one does not.
        let mut wide = job("14", 0, g1);
        wide.window = Window { alpha: -5, beta: 5 };
        let mut d2 = Dispatch::<5, 4, u64>::new(1, Policy::default());
        assert_eq!(d2.plan(vec![wide.clone()]).len(), 1);
        assert_eq!(d2.plan(vec![job("14", 2, g1)]), vec![]);
        let orders = d2.plan(vec![Job {
            window: Window { alpha: -9, beta: 9 },
            ..wide
        }]);
        assert!(matches!(orders[0], (0, ToWorker::Cancel { id: 0 })));
        let mut top = TopTree::<5, 4, u64>::new(14, 1);
        // Worker 0 answers its cancelled job, then its second.
        let stopped = JobAnswer {
            id: 0,
            range: None,
            positions: 5,
            micros: 1,
        };
        d.answer(0, stopped, &mut top).expect("a good answer");
        assert_eq!(d.count().stopped, 1);
        let orders = d.plan(vec![b.clone(), job("15", 0, g0), c.clone()]);
        assert_eq!(orders, vec![]);
        d.answer(
            0,
            JobAnswer {
                id: 2,
                range: Some((1, 3)),
                positions: 9,
                micros: 1,
            },
            &mut top,
        )
        .expect("a good answer");
        let orders = d.plan(vec![b, job("15", 0, g0)]);
        assert!(matches!(&orders[..], [(0, ToWorker::Job { moves, .. })] if moves == "15"));
        assert_eq!(d.positions(), 9);
    }

    /// A worker with nothing to search takes a guess; a guess no step guesses or needs any
    /// more is stopped; one that a step needs is kept and not sent again; a worker that
    /// holds only a guess stops it for a needed job it may take.
    #[test]
    fn guesses_fill_idle_workers_and_give_way() {
        let mut d = Dispatch::<5, 4, u64>::new(2, Policy::default());
        let g0 = group_of(0, 2);
        let (a, b) = (job("11", 0, g0), job("12", 0, g0));
        let (x, y) = (job("13", 0, g0), job("14", 0, g0));
        let sent = |orders: &Orders| -> Vec<(usize, String)> {
            orders
                .iter()
                .filter_map(|(w, m)| match m {
                    ToWorker::Job { moves, .. } => Some((*w, moves.clone())),
                    _ => None,
                })
                .collect()
        };
        // Worker 0 takes the needed job, worker 1 (nothing to steal) the first guess.
        let orders = d.plan_with_guesses(vec![a.clone()], &[x.clone(), y.clone()]);
        assert_eq!(sent(&orders), [(0, "11".into()), (1, "13".into())]);
        // Guessed again: kept. Guessed no more: stopped, and the next guess goes.
        assert_eq!(
            d.plan_with_guesses(vec![a.clone()], std::slice::from_ref(&x)),
            vec![]
        );
        let orders = d.plan_with_guesses(vec![a.clone()], std::slice::from_ref(&y));
        assert_eq!(orders[0], (1, ToWorker::Cancel { id: 1 }));
        assert_eq!(sent(&orders), [(1, "14".into())]);
        // Needed now: kept, not sent again, and no longer a guess.
        assert_eq!(d.plan_with_guesses(vec![a.clone(), y.clone()], &[]), vec![]);
        assert!(d.sent[1].iter().any(|s| !s.cancelled && !s.guess));
        // Worker 1 answers; it takes a guess again, then stops it for a needed job it
        // steals from worker 0's queue.
        let mut top = TopTree::<5, 4, u64>::new(14, 1);
        let answer = JobAnswer {
            id: 2,
            range: Some((1, 3)),
            positions: 7,
            micros: 1,
        };
        d.answer(1, answer, &mut top).expect("a good answer");
        let orders = d.plan_with_guesses(vec![a.clone()], std::slice::from_ref(&x));
        assert_eq!(sent(&orders), [(1, "13".into())]);
        let orders = d.plan_with_guesses(vec![a.clone(), b.clone()], std::slice::from_ref(&x));
        assert_eq!(orders[0], (1, ToWorker::Cancel { id: 3 }));
        assert_eq!(sent(&orders), [(1, "12".into())]);
        assert_eq!(d.running(), 2);
    }

    /// Answers the pump cannot trust are errors: to no job, to another job, one that does
    /// not decide its window, or one that contradicts what the top tree knows.
    #[test]
    fn bad_answers_are_errors() {
        let mut top = TopTree::<5, 4, u64>::new(14, 1);
        let mut d = Dispatch::<5, 4, u64>::new(1, Policy::default());
        let answer = |id, range| JobAnswer {
            id,
            range,
            positions: 0,
            micros: 0,
        };
        assert!(d.answer(0, answer(0, Some((0, 0))), &mut top).is_err());
        assert!(d.answer(7, answer(0, Some((0, 0))), &mut top).is_err());
        d.plan(vec![job("11", 0, 0)]);
        assert!(d.answer(0, answer(5, Some((0, 0))), &mut top).is_err());
        // The window is 0..1: a range -2..=3 decides nothing.
        assert!(d.answer(0, answer(0, Some((-2, 3))), &mut top).is_err());
        d.plan(vec![job("11", 0, 0)]);
        assert_eq!(d.answer(0, answer(1, Some((2, 4))), &mut top), Ok(()));
        d.plan(vec![job("11", 5, 0)]);
        // 2..=4 is known: -3..=-1 contradicts it.
        assert!(d.answer(0, answer(2, Some((-3, -1))), &mut top).is_err());
    }

    /// A worker that holds two jobs may answer the younger first (it searches them at
    /// once); each answer is taken for its own job.
    #[test]
    fn answers_come_in_any_order() {
        let mut top = TopTree::<5, 4, u64>::new(14, 1);
        let policy = Policy {
            ahead: 2,
            ..Policy::default()
        };
        let mut d = Dispatch::<5, 4, u64>::new(1, policy);
        let orders = d.plan(vec![job("11", 0, 0), job("12", 0, 0)]);
        assert_eq!(orders.len(), 2);
        let answer = |id, range| JobAnswer {
            id,
            range,
            positions: 0,
            micros: 0,
        };
        assert_eq!(d.answer(0, answer(1, Some((2, 4))), &mut top), Ok(()));
        assert!(d.busy());
        assert_eq!(d.answer(0, answer(0, Some((-3, -1))), &mut top), Ok(()));
        assert!(!d.busy());
        // The younger's answer went to "12", the elder's to "11".
        let known = |moves: &str| {
            let pos = Position::<5, 4, u64>::from_moves(moves).expect("a position");
            top.entries()
                .find(|(k, _)| *k == pos.symmetric_key())
                .map(|(_, r)| r)
        };
        assert_eq!(known("12"), Some((2, 4)));
        assert_eq!(known("11"), Some((-3, -1)));
    }
}
