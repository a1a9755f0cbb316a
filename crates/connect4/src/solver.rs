//! The search: negamax alpha-beta over non-losing moves, null windows, and the binary search
//! on the score that turns null-window answers into an exact (strong) or a win/draw/loss
//! (weak) result.
//!
//! Why this shape (Pons, "Solving Connect 4", Parts 4–12): a null-window search `[s, s+1]`
//! only answers "is the score above `s`?", but answers it with far fewer nodes than a wide
//! window, and every answer is a bound worth keeping in the table. Binary search on `s`,
//! starting near 0 where most scores lie, needs a handful of such searches for the exact
//! score; the weak solver asks only about `[-1, 1]`.
//!
//! Scores are from the side to move, as [`crate::score`] defines them: on 7×6 a win with the
//! player's `k`-th stone is `22 − k`, a loss to the opponent's `k`-th stone `−(22 − k)`, a
//! draw 0.

use crate::book::Book;
use crate::bounds::{BoundStore, BoundTable, TableError};
use crate::parallel::Plan;
use crate::position::Bitboard;
use crate::position::Position;
use crate::score::{Strength, Window, column_scores, finish, win_now_score};
use crate::search::{HEARTBEAT_FIRST, Heartbeat, Progress, Search, Step};
use std::ops::RangeInclusive;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

pub use crate::parallel::{PARALLEL_AFTER, SPLIT_EMPTY};

/// A solver for the board of `W` columns and `H` rows (7×6 unless said otherwise): a bound
/// table (by default the exact [`BoundTable`]), an optional opening book, a node counter,
/// and how many threads to solve with.
pub struct Solver<
    const W: usize = 7,
    const H: usize = 6,
    B: Bitboard = u64,
    T: BoundStore<W, H, B> = BoundTable<W, H, B>,
> {
    table: T,
    book: Option<Book<W, H, B>>,
    nodes: u64,
    /// See [`Solver::waited`].
    waited: Duration,
    /// Subtree sizes as a replacement scheme counts them: `nodes`, except that a cutoff by a
    /// stored bound counts [`BoundStore::hit_weight`] (BIGALL's stored subtree size).
    weight: u64,
    threads: usize,
    parallel_after: u64,
    split_empty: u32,
    /// See [`Solver::set_alone`].
    alone: Option<u32>,
    progress: Option<Progress>,
}

impl<const W: usize, const H: usize, B: Bitboard> Solver<W, H, B> {
    /// A solver with a table of `hash_mib` MiB, on one thread.
    pub fn new(hash_mib: u64) -> Result<Self, TableError> {
        Ok(Solver::with_table(BoundTable::new(hash_mib)?))
    }
}

impl<const W: usize, const H: usize, B: Bitboard, T: BoundStore<W, H, B>> Solver<W, H, B, T> {
    /// A solver on any bound store, e.g. a table configured for an experiment.
    pub fn with_table(table: T) -> Self {
        Solver {
            table,
            book: None,
            nodes: 0,
            waited: Duration::ZERO,
            weight: 0,
            threads: 1,
            parallel_after: PARALLEL_AFTER,
            split_empty: SPLIT_EMPTY,
            alone: None,
            progress: None,
        }
    }

    /// The bound store.
    pub fn table(&self) -> &T {
        &self.table
    }

    /// The bound store, to change it between solves: to save or load it
    /// ([`BoundTable::save_far`], [`BoundTable::load_far`]), or to add bounds proved
    /// elsewhere.
    pub fn table_mut(&mut self) -> &mut T {
        &mut self.table
    }

    /// Uses `book` for the positions it holds.
    pub fn set_book(&mut self, book: Book<W, H, B>) {
        self.book = Some(book);
    }

    /// Solves with `threads` threads (at least 1) sharing the table, if the store can be
    /// shared ([`BoundStore::as_shared`]; the default [`BoundTable`] can). The scores are the
    /// same whatever the number (how the threads work together: `docs/connect4/design.md`).
    ///
    /// # Errors
    ///
    /// If the memory for the helpers' near tables ([`BoundTable::set_helpers`]) cannot be had;
    /// the solver then keeps its former thread count.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), TableError> {
        let threads = threads.max(1);
        if let Some(table) = self.table.as_shared() {
            table.set_helpers(threads - 1)?;
        }
        self.threads = threads;
        Ok(())
    }

    /// Helpers join a solve only once it has explored `positions` positions on one thread
    /// (default [`PARALLEL_AFTER`]; 0: from the start), so that the many small solves of a
    /// test set do not pay for starting threads. Tests set it low to make the threads meet
    /// on small problems.
    pub fn set_parallel_after(&mut self, positions: u64) {
        self.parallel_after = positions;
    }

    /// With several threads, nodes with at least `squares` empty squares may become split
    /// points (default [`SPLIT_EMPTY`]): nearer the end of the game a subtree is too small
    /// to be worth handing to another thread. Tests set it low to make split points on small
    /// problems.
    pub fn set_split_empty(&mut self, squares: u32) {
        self.split_empty = squares;
    }

    /// With several threads, every node searches `children` children alone, the eldest
    /// first, before it may become a split point, for measurements; `None` (the default)
    /// keeps the rule that fits the team's size (the more threads, the fewer children alone,
    /// and one child alone near the top of the tree).
    /// A count of 0 counts as 1: the eldest child is always searched alone. Scores do not
    /// depend on it.
    pub fn set_alone(&mut self, children: Option<u32>) {
        self.alone = children.map(|n| n.max(1));
    }

    /// Threads a solve uses.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Calls `progress` after each null-window search of every solve from now on, and while
    /// one is searched, after [`HEARTBEAT_FIRST`] and then every
    /// [`HEARTBEAT_EVERY`](crate::search::HEARTBEAT_EVERY).
    pub fn set_progress(&mut self, progress: Progress) {
        self.progress = Some(progress);
    }

    /// Forgets the table's contents and zeroes the node counter.
    pub fn reset(&mut self) {
        self.table.clear();
        self.nodes = 0;
        self.weight = 0;
        self.waited = Duration::ZERO;
    }

    /// Positions explored (calls to the search, summed over threads) since the last
    /// [`Solver::reset`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Time the threads of a parallel solve spent looking for work, summed over the threads,
    /// since the last [`Solver::reset`]: each helper from its start to its window's end and
    /// the master waiting at its own split points, less the time each spent searching. Zero
    /// on one thread. Over the solve's time × threads, the share of the team that idled.
    pub fn waited(&self) -> Duration {
        self.waited
    }

    /// Entries the table holds.
    pub fn table_capacity(&self) -> usize {
        self.table.capacity()
    }

    /// The score of `pos`: exact for [`Strength::Strong`], its sign for [`Strength::Weak`].
    pub fn solve(&mut self, pos: &Position<W, H, B>, strength: Strength) -> i32 {
        finish(
            *self.solve_window(pos, Window::of(strength)).start(),
            strength,
        )
    }

    /// What `window` asks of the score of `pos` (any position not over): the range it lies
    /// in, one score if it lies strictly inside the window, else a range wholly at or below
    /// `alpha`, or at or above `beta` (often narrower than the window needs: fail-soft).
    /// [`Solver::solve`] is this with [`Window::of`] its strength.
    pub fn solve_window(&mut self, pos: &Position<W, H, B>, window: Window) -> RangeInclusive<i32> {
        if pos.can_win_next() {
            let win = win_now_score(W * H, pos.moves());
            return win..=win;
        }
        if self.threads > 1 {
            self.solve_planned(pos, window, None, u64::MAX).score
        } else {
            self.solve_alone(pos, window)
        }
    }

    /// [`Solver::solve_window`] until `stop` is raised: `None` if it was raised before the
    /// window was decided (the solve then returns within some microseconds on every
    /// thread, and what it stored in the table stays true). For a caller that may find a
    /// solve's answer no longer matters, such as a cluster's worker.
    pub fn solve_window_until(
        &mut self,
        pos: &Position<W, H, B>,
        window: Window,
        stop: &AtomicBool,
    ) -> Option<RangeInclusive<i32>> {
        self.solve_window_within(pos, window, stop, u64::MAX)
    }

    /// [`Solver::solve_window_until`] that also raises `stop` itself once the solve has
    /// explored about `max_nodes` positions, every thread's (looked at every 256 positions
    /// on one thread, every 4,096 of each thread when several share the solve), for an
    /// answer within a budget of positions: `None` then, as for a stop by the caller, and
    /// the table holds only true bounds. [`Solver::nodes`] counts what the solve explored.
    pub fn solve_window_within(
        &mut self,
        pos: &Position<W, H, B>,
        window: Window,
        stop: &AtomicBool,
        max_nodes: u64,
    ) -> Option<RangeInclusive<i32>> {
        if pos.can_win_next() {
            let win = win_now_score(W * H, pos.moves());
            return Some(win..=win);
        }
        let solved = self.solve_planned(pos, window, Some(stop), max_nodes);
        (!solved.stopped).then_some(solved.score)
    }

    /// A solve that may use the other threads or be stopped ([`crate::parallel`]).
    fn solve_planned(
        &mut self,
        pos: &Position<W, H, B>,
        window: Window,
        stop: Option<&AtomicBool>,
        max_nodes: u64,
    ) -> crate::parallel::Solved {
        let plan = Plan {
            book: self.book.as_ref(),
            threads: self.threads,
            parallel_after: self.parallel_after,
            split_empty: self.split_empty,
            alone: self.alone,
            progress: self.progress.as_deref(),
            stop,
            max_nodes,
            explored: self.nodes,
            #[cfg(test)]
            inject: None,
        };
        let solved = crate::parallel::solve(&mut self.table, pos, window, &plan);
        self.nodes += solved.nodes;
        self.waited += solved.waited;
        solved
    }

    /// The binary search on the score, on this thread with the table to itself.
    fn solve_alone(&mut self, pos: &Position<W, H, B>, window: Window) -> RangeInclusive<i32> {
        let started = Instant::now();
        let heartbeat = self.progress.as_deref().map(|progress| Heartbeat {
            progress,
            started,
            due: HEARTBEAT_FIRST,
            // Reports count this solve's positions: the search's count minus those before.
            step: Step {
                window: 0,
                answered: false,
                min: 0,
                max: 0,
                nodes: self.nodes.wrapping_neg(),
                elapsed: Duration::ZERO,
            },
            published: None,
        });
        let mut search = Search::new(&mut self.table, self.book.as_ref()).reporting(heartbeat);
        // The counts go on from the solver's.
        search.nodes = self.nodes;
        search.weight = self.weight;
        let before = search.nodes;
        let progress = self.progress.as_deref();
        let score = search.score(pos, window, |med, min, max, nodes| {
            if let Some(progress) = progress {
                progress(&Step {
                    window: med,
                    answered: true,
                    min,
                    max,
                    nodes: nodes - before,
                    elapsed: started.elapsed(),
                });
            }
        });
        self.nodes = search.nodes;
        self.weight = search.weight;
        // A search that has the table to itself is never told to stop.
        score.unwrap_or(0..=0)
    }

    /// The score of every column of `pos` from the side to move's view (`None` for a full
    /// column): a winning move scores the win, any other move minus the reply's score.
    pub fn analyze(&mut self, pos: &Position<W, H, B>, strength: Strength) -> [Option<i32>; W] {
        // This solver's solves always finish.
        column_scores(pos, strength, |next| Some(self.solve(next, strength))).unwrap_or([None; W])
    }
}
