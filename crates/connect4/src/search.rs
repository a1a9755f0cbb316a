//! One thread's search: negamax alpha-beta over non-losing moves with the table's bounds,
//! static claimeven bounds and enhanced transposition cutoffs, the binary search on the
//! score over it, and the progress steps a long solve reports. [`crate::solver`] runs it
//! alone, `crate::parallel` on many threads at once, [`crate::pool`] for the server. What
//! a score is (strength, bounds, windows) is [`crate::score`]'s.

use crate::book::Book;
use crate::bounds::{BoundStore, ScoreBound};
use crate::moves::MoveSorter;
use crate::position::Bitboard;
use crate::position::Position;
use crate::score::{DRAW, Window, initial_window, loss_later_min, loss_next_score, win_later_max};
use crate::team::{SplitPoint, Team};
use std::ops::{ControlFlow, RangeInclusive};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// Enhanced transposition cutoffs only where at least 20 squares are empty: nearer the end
/// the subtrees are too small to pay for probing every child (measured on Begin-Hard) ...
const ETC_MIN_EMPTY: i32 = 20;
/// ... and only once the table holds what this many positions stored since it was last
/// cleared: before that it holds too little for the extra probes to find anything (they
/// slowed Begin-Easy down). Counted over every search on the table since it was cleared
/// ([`Search::after`]), not over one search's own positions: a cluster's worker runs
/// thousands of jobs of about 10^5 positions each on one table, and a job that waited for
/// its own 10^5 positions left its cutoffs out (8×5 strong, one worker: 1.04× one solve's
/// positions, docs/connect4/mpi.md).
const ETC_AFTER_NODES: u64 = 100_000;

/// A callback told of each step of the score search (see [`crate::Solver::set_progress`]).
pub type Progress = Box<dyn Fn(&Step) + Send + Sync>;

/// A step of a solve's score search, what a user watching a long solve is shown: a null
/// window answered, or, every few seconds while one is searched, a sign of life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The window `[window, window + 1]`: "is the score above `window`?".
    pub window: i32,
    /// Whether the window has been answered; `false` for a report during its search
    /// ([`HEARTBEAT_FIRST`], then every [`HEARTBEAT_EVERY`]).
    pub answered: bool,
    /// The score is known to lie in `min..=max`.
    pub min: i32,
    /// See `min`.
    pub max: i32,
    /// Positions explored so far in this solve, by all threads (those of other threads as
    /// last published, so a little behind).
    pub nodes: u64,
    /// Time since the solve began.
    pub elapsed: std::time::Duration,
}

/// When a solve first reports that a window is still being searched ...
pub const HEARTBEAT_FIRST: Duration = Duration::from_secs(2);
/// ... and how often after that.
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(5);

/// The reports during a window's search, for one thread of a solve (the first thread).
pub(crate) struct Heartbeat<'a> {
    pub(crate) progress: &'a (dyn Fn(&Step) + Send + Sync),
    pub(crate) started: Instant,
    /// When the next report is due, from `started`.
    pub(crate) due: Duration,
    /// The window being searched, with `nodes` the positions of the solve before this
    /// thread's count (or before the round's, with `published`).
    pub(crate) step: Step,
    /// The positions all threads of a round have published, if the search is shared.
    pub(crate) published: Option<&'a AtomicU64>,
}

impl Heartbeat<'_> {
    /// Reports if a report is due, with `nodes` the calling thread's positions.
    #[cold]
    fn beat(&mut self, nodes: u64) {
        let elapsed = self.started.elapsed();
        if elapsed < self.due {
            return;
        }
        self.due = elapsed + HEARTBEAT_EVERY;
        let nodes = self.published.map_or(nodes, |p| p.load(Relaxed));
        (self.progress)(&Step {
            nodes: self.step.nodes.wrapping_add(nodes),
            elapsed,
            ..self.step
        });
    }
}

/// How one search thread reaches the bound table: with `&mut` when it has it to itself (and
/// may grow it as it stores), or through a shared reference when threads share it.
pub(crate) trait Access<const W: usize, const H: usize, B: Bitboard> {
    /// Whether the search may be told to give up its window ([`Access::tick`]) or share its
    /// nodes with other threads ([`crate::parallel`]): only then does it look every
    /// [`STOP_CHECK_EVERY`] positions whether it must stop. A plain search alone pays for
    /// neither.
    const STOPPABLE: bool;
    /// [`BoundStore::WEIGHS_SUBTREES`].
    const WEIGHS_SUBTREES: bool;
    /// [`BoundStore::get`].
    fn get(&self, pos: &Position<W, H, B>) -> Option<(ScoreBound, Option<usize>)>;
    /// [`BoundStore::put`].
    fn put(&mut self, pos: &Position<W, H, B>, bound: ScoreBound, best: Option<usize>, nodes: u64);
    /// [`BoundStore::prefetch`].
    fn prefetch(&self, pos: &Position<W, H, B>);
    /// [`BoundStore::hit_weight`].
    fn hit_weight(&self, pos: &Position<W, H, B>) -> u64;
    /// Called by a stoppable search every [`STOP_CHECK_EVERY`] positions explored, with the
    /// count so far: the moment to tell the other threads, and to say whether the search
    /// must give up its window now (`true`).
    #[inline]
    fn tick(&mut self, nodes: u64) -> bool {
        let _ = nodes;
        false
    }
}

/// A stoppable search looks whether it must stop (its [`Access::tick`], and the split
/// points it works under) every this many positions, a power of two: a stop comes some
/// microseconds after its cause, and the checks cost nothing measurable.
pub(crate) const STOP_CHECK_EVERY: u64 = 1 << 8;

/// A search reports its counts to the others and to the heartbeat every this many positions
/// explored, a power of two: seldom enough that the shared counters cost nothing measurable.
pub(crate) const PUBLISH_EVERY: u64 = 1 << 12;

impl<const W: usize, const H: usize, B: Bitboard, T: BoundStore<W, H, B>> Access<W, H, B>
    for &mut T
{
    const STOPPABLE: bool = false;
    const WEIGHS_SUBTREES: bool = T::WEIGHS_SUBTREES;
    #[inline]
    fn get(&self, pos: &Position<W, H, B>) -> Option<(ScoreBound, Option<usize>)> {
        (**self).get(pos)
    }
    #[inline]
    fn put(&mut self, pos: &Position<W, H, B>, bound: ScoreBound, best: Option<usize>, nodes: u64) {
        (**self).put(pos, bound, best, nodes);
    }
    #[inline]
    fn prefetch(&self, pos: &Position<W, H, B>) {
        (**self).prefetch(pos);
    }
    #[inline]
    fn hit_weight(&self, pos: &Position<W, H, B>) -> u64 {
        (**self).hit_weight(pos)
    }
}

/// One thread's search: negamax over a table reached through `A`, with its own counters.
pub(crate) struct Search<'a, A: Access<W, H, B>, const W: usize, const H: usize, B: Bitboard> {
    pub(crate) table: A,
    pub(crate) book: Option<&'a Book<W, H, B>>,
    /// Positions explored (calls to [`Search::negamax`]).
    pub(crate) nodes: u64,
    /// See [`Solver`]'s field of the same name.
    pub(crate) weight: u64,
    /// Set once the search must stop: every frame then returns at once, storing nothing, and
    /// the caller discards the result. Only ever set when `A::STOPPABLE`.
    pub(crate) aborted: bool,
    /// The threads this search shares its nodes with, if any: far from the end of the game
    /// a node whose eldest child did not cut off offers its younger ones to them.
    pub(crate) team: Option<&'a Team<W, H, B>>,
    /// The innermost split point whose child this thread searches, if any: the search stops
    /// when it or any split point above it is decided.
    pub(crate) under: Option<Arc<SplitPoint<W, H, B>>>,
    /// Reports while a window is searched, if anyone listens.
    pub(crate) heartbeat: Option<Heartbeat<'a>>,
    /// Enhanced transposition cutoffs once [`Search::nodes`] passes this ([`ETC_AFTER_NODES`]
    /// less what earlier searches on the table explored, [`Search::after`]).
    etc_after: u64,
}

impl<'a, A: Access<W, H, B>, const W: usize, const H: usize, B: Bitboard> Search<'a, A, W, H, B> {
    /// A search on `table` (and `book`, if any) with nothing counted yet, as a search alone
    /// has it: in no team, reporting to no one.
    pub(crate) fn new(table: A, book: Option<&'a Book<W, H, B>>) -> Self {
        Search {
            table,
            book,
            nodes: 0,
            weight: 0,
            aborted: false,
            team: None,
            under: None,
            heartbeat: None,
            etc_after: ETC_AFTER_NODES,
        }
    }

    /// The search on a table that earlier searches, of `explored` positions in all, have
    /// filled since it was last cleared (the solver's count).
    pub(crate) fn after(self, explored: u64) -> Self {
        Search {
            etc_after: ETC_AFTER_NODES.saturating_sub(explored),
            ..self
        }
    }

    /// The search as one thread of `team` (see [`crate::parallel`]).
    pub(crate) fn in_team(self, team: &'a Team<W, H, B>) -> Self {
        Search {
            team: Some(team),
            ..self
        }
    }

    /// The search reporting through `heartbeat` while a window is searched.
    pub(crate) fn reporting(self, heartbeat: Option<Heartbeat<'a>>) -> Self {
        Search { heartbeat, ..self }
    }
}

impl<A: Access<W, H, B>, const W: usize, const H: usize, B: Bitboard> Search<'_, A, W, H, B> {
    /// Squares on the board.
    const SQUARES: i32 = (W * H) as i32;

    /// Tells the heartbeat, if any, that the window `[window, window + 1]` is being searched
    /// with the score in `min..=max`.
    pub(crate) fn searching(&mut self, window: i32, min: i32, max: i32) {
        if let Some(beat) = &mut self.heartbeat {
            beat.step = Step {
                window,
                min,
                max,
                ..beat.step
            };
        }
    }

    /// The binary search on the score of `pos`, which the side to move cannot win at once:
    /// null window after null window until `window` is [decided](Window::decided). After
    /// each answer, tells `answered` the window, the new range and the positions explored so
    /// far. Returns the range the score is known to lie in (one score when exact), or `None`
    /// if a stoppable search was told to stop.
    pub(crate) fn score(
        &mut self,
        pos: &Position<W, H, B>,
        window: Window,
        answered: impl FnMut(i32, i32, i32, u64),
    ) -> Option<RangeInclusive<i32>> {
        let (min, max) = initial_window(pos);
        let mut range = min..=max;
        self.bisect(pos, window, &mut range, answered)
            .then_some(range)
    }

    /// [`Search::score`] going on from a score known to lie in `range`, which it narrows as
    /// windows are answered. Returns whether `window` is decided; `false` if a stoppable
    /// search was told to stop (`range` then holds what was known).
    pub(crate) fn bisect(
        &mut self,
        pos: &Position<W, H, B>,
        window: Window,
        range: &mut RangeInclusive<i32>,
        mut answered: impl FnMut(i32, i32, i32, u64),
    ) -> bool {
        let started = self.nodes;
        while !window.decided(*range.start(), *range.end()) {
            if !self.next_window(pos, window, range, self.nodes - started, &mut answered) {
                return false;
            }
        }
        true
    }

    /// One step of [`Search::bisect`]: searches the next null window of `window` for a
    /// score in `range` (not yet decided) of a solve that has explored `explored` positions
    /// so far, and narrows `range` by its answer. Returns `false`, leaving `range` as it
    /// was, if a stoppable search was told to stop.
    pub(crate) fn next_window(
        &mut self,
        pos: &Position<W, H, B>,
        window: Window,
        range: &mut RangeInclusive<i32>,
        explored: u64,
        mut answered: impl FnMut(i32, i32, i32, u64),
    ) -> bool {
        let (mut min, mut max) = (*range.start(), *range.end());
        let med = window.next_after(min, max, explored);
        self.searching(med, min, max);
        let r = self.negamax(pos, med, med + 1, pos.opponent_winning());
        if A::STOPPABLE && self.aborted {
            self.aborted = false;
            return false;
        }
        if r <= med {
            max = r;
        } else {
            min = r;
        }
        *range = min..=max;
        answered(med, min, max, self.nodes);
        true
    }

    /// Negamax with alpha-beta in `[alpha, beta]`, for a position where the side to move
    /// cannot win at once, whose opponent's winning squares are `threats`
    /// ([`Position::opponent_winning`]: the parent computed them to order its moves). Returns
    /// the exact score if it lies inside the window, else a bound on the same side of the
    /// window as the score (fail-soft within the known bounds). When stoppable, returns a
    /// meaningless 0 with `aborted` set if the search had to stop.
    pub(crate) fn negamax(
        &mut self,
        pos: &Position<W, H, B>,
        alpha: i32,
        beta: i32,
        threats: B,
    ) -> i32 {
        debug_assert!(alpha < beta && !pos.can_win_next());
        self.nodes += 1;
        if self.nodes & (PUBLISH_EVERY - 1) == 0
            && let Some(beat) = &mut self.heartbeat
        {
            beat.beat(self.nodes);
        }
        if A::STOPPABLE && self.nodes & (STOP_CHECK_EVERY - 1) == 0 && self.must_stop() {
            self.aborted = true;
            return 0;
        }
        self.node(pos, alpha, beta, threats)
    }

    /// Whether a stoppable search must stop now: its table access says so, or a split point
    /// it works under is decided.
    #[cold]
    fn must_stop(&mut self) -> bool {
        self.table.tick(self.nodes)
            || self
                .under
                .as_deref()
                .is_some_and(SplitPoint::decided_here_or_above)
    }

    /// A score for the node without searching it, from a child already refuted at the
    /// window's top `beta`: by its claimeven bound, or by its stored upper bound (enhanced
    /// transposition cutoff). Stores the node's lower bound when it finds one.
    #[inline(always)]
    fn refuted_child(&mut self, pos: &Position<W, H, B>, candidates: B, beta: i32) -> Option<i32> {
        let moves = pos.moves() as i32;
        // A child that claimeven shows lost for the player to move there is won for us,
        // without a search. Only where the children have an even number of stones, when the
        // bound is claimeven's own; the weaker one of the other parity, tried on every child,
        // saved 1% of positions and no time (empty board, one thread).
        if moves % 2 == 1 && pos.children_may_have_claimeven_bounds() {
            let mut rest = candidates;
            while rest != B::ZERO {
                let square = rest.lowest();
                rest &= rest - B::ONE;
                if let Some(bound) = pos.after(square).claimeven_bound()
                    && -bound >= beta
                {
                    let col = Position::<W, H, B>::column_of(square);
                    self.table.put(pos, ScoreBound::Lower(-bound), Some(col), 1);
                    return Some(-bound);
                }
            }
        }
        // Enhanced transposition cutoff: a child whose stored upper bound already refutes
        // it at the window's top ends the node without a search.
        let mut rest = if moves + ETC_MIN_EMPTY <= Self::SQUARES && self.nodes > self.etc_after {
            candidates
        } else {
            B::ZERO
        };
        while rest != B::ZERO {
            let square = rest.lowest();
            rest &= rest - B::ONE;
            let child = pos.after(square);
            if let Some((ScoreBound::Upper(upper), _)) = self.table.get(&child)
                && -upper >= beta
            {
                let nodes = self.table.hit_weight(&child);
                self.weight += nodes;
                let col = Position::<W, H, B>::column_of(square);
                self.table
                    .put(pos, ScoreBound::Lower(-upper), Some(col), nodes + 1);
                return Some(-upper);
            }
        }
        None
    }

    #[inline(always)]
    fn node(&mut self, pos: &Position<W, H, B>, alpha: i32, beta: i32, threats: B) -> i32 {
        // Subtree sizes cost a counter per node: only for stores that keep them.
        if A::WEIGHS_SUBTREES {
            self.weight += 1;
        }
        let first = self.weight;
        let moves = pos.moves();
        let candidates = pos.non_losing_moves_against(threats);
        if candidates == B::ZERO {
            // Every move lets the opponent win with their next stone.
            return loss_next_score(W * H, moves);
        }
        if moves as i32 >= Self::SQUARES - 2 {
            // Two squares left and no one can win with them.
            return DRAW;
        }
        let (mut alpha, beta, hint) = match self.narrowed(pos, alpha, beta) {
            ControlFlow::Break(score) => return score,
            ControlFlow::Continue(narrowed) => narrowed,
        };
        self.prefetch_children(pos, candidates);
        if let Some(score) = self.refuted_child(pos, candidates, beta) {
            return score;
        }
        let mut sorter = MoveSorter::<W, H, B>::EMPTY;
        sorter.start(candidates, hint, threats);
        // Whether this node may offer its younger children to idle threads, once its eldest
        // children have not cut off (young brothers wait; see `crate::parallel`).
        let splits = self
            .team
            .filter(|team| A::STOPPABLE && team.splits_at(pos) && candidates.count_ones() > 1);
        let mut searched = 0;
        while let Some((square, threats)) = sorter.next(pos) {
            let score = -self.negamax(&pos.after(square), -beta, -alpha, threats);
            if A::STOPPABLE && self.aborted {
                return 0;
            }
            searched += 1;
            if score >= beta {
                let col = Position::<W, H, B>::column_of(square);
                let nodes = self.weight - first + 1;
                self.table
                    .put(pos, ScoreBound::Lower(score), Some(col), nodes);
                return score;
            }
            alpha = alpha.max(score);
            if let Some(team) = splits
                && searched >= team.alone_at(pos)
                && !sorter.is_empty()
                && team.has_idle()
            {
                return self.split(team, pos, alpha, beta, sorter, hint);
            }
        }
        let nodes = self.weight - first + 1;
        self.table.put(pos, ScoreBound::Upper(alpha), hint, nodes);
        alpha
    }

    /// The window `[alpha, beta]` of `pos` (which has a move that does not lose at once, and
    /// more than two empty squares) narrowed by what is known without searching it: the
    /// earliest loss and win the stones left allow, claimeven's bound, the book and the
    /// table. `Continue` with the narrowed window and the table's best move, if any, to try
    /// first; `Break(score)` when that settles the node (a book or table hit is weighed as
    /// the subtree it stands for).
    #[inline(always)]
    fn narrowed(
        &mut self,
        pos: &Position<W, H, B>,
        mut alpha: i32,
        mut beta: i32,
    ) -> ControlFlow<i32, (i32, i32, Option<usize>)> {
        let moves = pos.moves();
        // The opponent cannot win with their next stone, so we lose at the earliest later.
        let min = loss_later_min(W * H, moves);
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return ControlFlow::Break(alpha);
            }
        }
        // We cannot win with this stone, so at best with the next one.
        let mut max = win_later_max(W * H, moves);
        if let Some(bound) = pos.claimeven_bound() {
            max = max.min(bound);
        }
        if let Some(book) = self.book
            && let Some(score) = book.get(pos)
        {
            return ControlFlow::Break(score);
        }
        let mut hint = None;
        let mut hit = false;
        if let Some((bound, best)) = self.table.get(pos) {
            hint = best;
            hit = true;
            match bound {
                ScoreBound::Upper(upper) => max = max.min(upper),
                ScoreBound::Lower(lower) if alpha < lower => {
                    alpha = lower;
                    if alpha >= beta {
                        self.weight += self.table.hit_weight(pos) - 1;
                        return ControlFlow::Break(alpha);
                    }
                }
                ScoreBound::Lower(_) => {}
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                if hit {
                    self.weight += self.table.hit_weight(pos) - 1;
                }
                return ControlFlow::Break(beta);
            }
        }
        ControlFlow::Continue((alpha, beta, hint))
    }

    /// Starts loading the table's buckets of the children of `pos` on `candidates`: each
    /// child probes the table first thing, and these cache misses then overlap with move
    /// ordering and with each other.
    #[inline(always)]
    fn prefetch_children(&self, pos: &Position<W, H, B>, candidates: B) {
        let mut rest = candidates;
        while rest != B::ZERO {
            self.table.prefetch(&pos.after(rest.lowest()));
            rest &= rest - B::ONE;
        }
    }
}
