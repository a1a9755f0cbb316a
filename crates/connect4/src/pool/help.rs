//! Threads of a pool with nothing to solve helping the solves that run
//! ([`SolverPool::set_helping`](super::SolverPool::set_helping)).
//!
//! **The design.** Every [`SolverPool::solve_window`](super::SolverPool::solve_window) is the
//! master of a team of its own ([`crate::team`]), registered here while it runs, with no
//! helper at first. A thread with nothing to do attaches to the running solve with the
//! fewest helpers (the oldest of those), and is counted idle in its team; the master then
//! splits as a parallel solve does ([`crate::parallel`]): far from the end of the game, a
//! node whose eldest children did not cut off offers its younger ones, and the helper takes
//! them. A team's nodes search as many children alone before they split as a team of its
//! size does now ([`alone_before_split`] of the master and its helpers), so a solve with one
//! helper speculates as two threads do, not as the pool's sixteen. A helper leaves between
//! two children, when its caller has work of its own or the solve ends, and attaches to the
//! next solve.
//!
//! **Why.** A cluster's worker of T threads searches up to T jobs at once (lanes), but the
//! jobs along the main line come one at a time, so a worker of lanes loses much of its time
//! waiting (docs/connect4/mpi.md). A lane without a job speeds up the jobs that have one
//! instead of waiting.
//!
//! **Measured, not kept** (docs/connect4/mpi.md): every helper attaching to the oldest solve
//! was no faster, and slower with many lanes; teams splitting after one child whatever their
//! size (the rule for the pool's sixteen threads) searched more positions and took longer.
//!
//! **Why the answers stay exact.** As in a parallel solve: every bound stored comes from a
//! search that finished; a split point decided, or a solve stopped, stops every thread below
//! it before it stores anything. A helper that leaves does so between children, never inside
//! one, so no split point waits for a child nobody searches.

use super::{Journal, Pooled, Stop};
use crate::book::Book;
use crate::bounds::ThreadView;
use crate::parallel::{SPLIT_EMPTY, alone_before_split};
use crate::position::{Bitboard, Position};
use crate::score::Window;
use crate::search::Search;
use crate::team::{Backoff, Team, lock};
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The solves that run, open to helpers.
pub(super) struct Running<const W: usize, const H: usize, B: Bitboard> {
    solves: Mutex<Vec<Arc<Helped<W, H, B>>>>,
    /// Positions the helpers and the masters explored, over every solve.
    #[cfg(test)]
    helped: AtomicU64,
    #[cfg(test)]
    mastered: AtomicU64,
}

/// One running solve's team and the helpers attached to it.
struct Helped<const W: usize, const H: usize, B: Bitboard> {
    team: Team<W, H, B>,
    helpers: AtomicUsize,
    /// Positions the helpers that left explored for this solve.
    nodes: AtomicU64,
}

impl<const W: usize, const H: usize, B: Bitboard> Helped<W, H, B> {
    /// Counts a helper in; the team's nodes then search as many children alone before they
    /// split as a team of that many threads does ([`alone_before_split`]): a solve with one
    /// helper splits as two threads do.
    fn join(&self) {
        let helpers = self.helpers.fetch_add(1, Ordering::AcqRel) + 1;
        self.team.set_alone(alone_before_split(1 + helpers));
    }

    /// Counts a helper out, the team's rule following as for [`Helped::join`].
    fn leave(&self) {
        // Release: the master that sees a helper gone sees the positions it counted.
        let helpers = self
            .helpers
            .fetch_sub(1, Ordering::AcqRel)
            .saturating_sub(1);
        self.team.set_alone(alone_before_split(1 + helpers));
    }
}

/// A solve registered while it runs: its team is ended and taken off the list when this is
/// dropped, also in a panic, so that no helper waits for it.
struct Registered<'r, const W: usize, const H: usize, B: Bitboard> {
    running: &'r Running<W, H, B>,
    helped: Arc<Helped<W, H, B>>,
}

impl<const W: usize, const H: usize, B: Bitboard> Drop for Registered<'_, W, H, B> {
    fn drop(&mut self) {
        let team = &self.helped.team;
        if std::thread::panicking() {
            team.stop.store(true, Ordering::Relaxed);
        }
        team.done.store(true, Ordering::Release);
        lock(&self.running.solves).retain(|other| !Arc::ptr_eq(other, &self.helped));
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Running<W, H, B> {
    /// Nothing running yet.
    pub(super) fn new() -> Self {
        Running {
            solves: Mutex::new(Vec::new()),
            #[cfg(test)]
            helped: AtomicU64::new(0),
            #[cfg(test)]
            mastered: AtomicU64::new(0),
        }
    }

    /// Solves running now.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        lock(&self.solves).len()
    }

    /// [`SolverPool::solve_window`](super::SolverPool::solve_window) as the master of a team
    /// open to helpers, on `view`: the range found (`None` if `stop` triggered first) and
    /// the positions explored, the helpers' included (it waits for them to leave, which
    /// they do at once: every child they took is done once the master's search is).
    /// `explored`: the positions searched on the table before ([`Search::after`]).
    #[expect(
        clippy::too_many_arguments,
        reason = "SolverPool::solve_window's, passed on"
    )]
    pub(super) fn solve(
        &self,
        view: &ThreadView<'_, W, H, B>,
        book: Option<&Book<W, H, B>>,
        explored: u64,
        pos: &Position<W, H, B>,
        window: Window,
        stop: &Stop,
        journal: Option<Journal<'_, W, H, B>>,
    ) -> (Option<RangeInclusive<i32>>, u64) {
        // A team of one thread: no helper counted idle until one attaches. The growth
        // limit is none: a pool's table is whole from the start.
        let helped = Arc::new(Helped {
            team: Team::new(SPLIT_EMPTY, None, 1, None),
            helpers: AtomicUsize::new(0),
            nodes: AtomicU64::new(0),
        });
        lock(&self.solves).push(Arc::clone(&helped));
        let registered = Registered {
            running: self,
            helped,
        };
        let team = &registered.helped.team;
        let mut search = Search::new(
            Pooled {
                view,
                stop,
                journal,
                team: Some(team),
            },
            book,
        )
        .in_team(team)
        .after(explored);
        let range = search.score(pos, window, |_, _, _, _| {});
        team.done.store(true, Ordering::Release);
        let helped = &registered.helped;
        let mut backoff = Backoff(0);
        while helped.helpers.load(Ordering::Acquire) > 0 {
            backoff.snooze();
        }
        #[cfg(test)]
        self.mastered.fetch_add(search.nodes, Ordering::Relaxed);
        (range, search.nodes + helped.nodes.load(Ordering::Acquire))
    }

    /// Attaches to the running solve with the fewest helpers (the oldest of those), counted
    /// as one more.
    fn attach(&self) -> Option<Arc<Helped<W, H, B>>> {
        let solves = lock(&self.solves);
        let helped = solves
            .iter()
            .filter(|helped| !helped.team.done.load(Ordering::Acquire))
            .min_by_key(|helped| helped.helpers.load(Ordering::Relaxed))?;
        helped.join();
        Some(Arc::clone(helped))
    }

    /// See [`SolverPool::help`](super::SolverPool::help): helps on `view` until `until` or
    /// no solve runs; whether it helped any. `explored`: the positions searched on the table
    /// before.
    pub(super) fn help(
        &self,
        view: &ThreadView<'_, W, H, B>,
        book: Option<&Book<W, H, B>>,
        explored: u64,
        mut journal: Option<Journal<'_, W, H, B>>,
        until: &dyn Fn() -> bool,
    ) -> bool {
        let never = Stop::never();
        let mut explored_here = None;
        while !until() {
            let Some(helped) = self.attach() else {
                break;
            };
            let team = &helped.team;
            team.idle.fetch_add(1, Ordering::Relaxed);
            let mut search = Search::new(
                Pooled {
                    view,
                    stop: &never,
                    journal: journal.take(),
                    team: Some(team),
                },
                book,
            )
            .in_team(team)
            .after(explored + explored_here.unwrap_or(0));
            let mut backoff = Backoff(0);
            while !team.done.load(Ordering::Acquire) && !until() {
                if search.help_once(team, None) {
                    backoff = Backoff(0);
                } else {
                    backoff.snooze();
                }
            }
            team.idle.fetch_sub(1, Ordering::Relaxed);
            // Counted before it leaves: the master waits for that.
            helped.nodes.fetch_add(search.nodes, Ordering::Release);
            #[cfg(test)]
            self.helped.fetch_add(search.nodes, Ordering::Relaxed);
            helped.leave();
            *explored_here.get_or_insert(0) += search.nodes;
            journal = search.table.journal.take();
        }
        explored_here.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::super::SolverPool;
    use super::*;
    use crate::score::Strength;
    use crate::solver::Solver;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    /// Positions of 7×6 a few dozen milliseconds deep: big enough to split.
    const LINES: [&str; 4] = ["4453", "444", "3344", "4455"];

    /// What a lone solver answers for `window` on `line`.
    fn alone(line: &str, window: Window) -> RangeInclusive<i32> {
        let pos = Position::<7, 6, u64>::from_moves(line).expect("legal moves");
        let mut solver = Solver::<7, 6>::new(16).expect("16 MiB");
        let stop = AtomicBool::new(false);
        solver
            .solve_window_until(&pos, window, &stop)
            .expect("never stopped")
    }

    /// Solves every line on one thread while `helpers` threads help, on a fresh pool each
    /// time: the ranges found and the positions the helpers explored. Every helper's
    /// positions count in the answers of the solves it helped.
    fn helped(window: Window, helpers: usize) -> (Vec<RangeInclusive<i32>>, u64) {
        let mut pool = SolverPool::<7, 6, u64>::new(16, helpers + 1).expect("16 MiB");
        pool.set_helping(true);
        let done = AtomicBool::new(false);
        let ranges = std::thread::scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(|| {
                    while !done.load(Ordering::Acquire) {
                        if !pool.help(None, &|| done.load(Ordering::Acquire)) {
                            std::thread::sleep(Duration::from_micros(100));
                        }
                    }
                });
            }
            let ranges = LINES
                .iter()
                .map(|line| {
                    let pos = Position::from_moves(line).expect("legal moves");
                    let (range, nodes) = pool.solve_window(&pos, window, &Stop::never(), None);
                    (range.expect("never stopped"), nodes)
                })
                .collect::<Vec<_>>();
            done.store(true, Ordering::Release);
            ranges
        });
        let running = pool.helping.as_ref().expect("helping");
        assert_eq!(running.len(), 0);
        let helped = running.helped.load(Ordering::Relaxed);
        let mastered = running.mastered.load(Ordering::Relaxed);
        let answered: u64 = ranges.iter().map(|(_, nodes)| nodes).sum();
        assert_eq!(
            answered,
            mastered + helped,
            "{mastered} mastered, {helped} helped"
        );
        assert!(
            answered > helped,
            "{answered} positions answered, {helped} helped"
        );
        (ranges.into_iter().map(|(range, _)| range).collect(), helped)
    }

    /// With helpers the answers are a lone solver's, strong and weak, and the helpers did
    /// search (else this tests nothing).
    #[test]
    fn helped_solves_answer_as_a_lone_solver() {
        for strength in [Strength::Strong, Strength::Weak] {
            let window = Window::of(strength);
            let (ranges, explored) = helped(window, 3);
            let expected: Vec<_> = LINES.iter().map(|line| alone(line, window)).collect();
            assert_eq!(ranges, expected, "{strength:?}");
            assert!(explored > 0, "the helpers searched nothing ({strength:?})");
        }
    }

    /// A solve stopped while helpers work under it answers `None` at once, and the helpers
    /// go on to nothing: no thread waits for the stopped team.
    #[test]
    fn a_stopped_solve_stops_its_helpers() {
        let mut pool = SolverPool::<7, 6, u64>::new(16, 3).expect("16 MiB");
        pool.set_helping(true);
        let done = AtomicBool::new(false);
        let stop = Stop::after(Duration::from_millis(50));
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    while !done.load(Ordering::Acquire) {
                        if !pool.help(None, &|| done.load(Ordering::Acquire)) {
                            std::thread::sleep(Duration::from_micros(100));
                        }
                    }
                });
            }
            // The empty board takes seconds even with three threads.
            let (range, _) =
                pool.solve_window(&Position::new(), Window::of(Strength::Strong), &stop, None);
            done.store(true, Ordering::Release);
            assert_eq!(range, None);
        });
        assert_eq!(pool.helping.as_ref().map(Running::len), Some(0));
    }

    /// Without helping, [`SolverPool::help`] helps nothing.
    #[test]
    fn help_is_off_by_default() {
        let pool = SolverPool::<7, 6, u64>::new(16, 2).expect("16 MiB");
        assert!(!pool.help(None, &|| false));
    }
}
