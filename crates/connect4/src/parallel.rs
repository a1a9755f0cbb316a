//! Many threads solving one position on one shared table: split points after the eldest
//! child ("young brothers wait", Feldmann, Monien, Mysliwietz & Vornberger 1990), inside the
//! null-window searches of the score's binary search.
//!
//! **The design.** One thread, the master, runs the binary search on the score alone; the
//! others wait for work. A node far enough from the end of the game
//! ([`Solver::set_split_empty`](crate::solver::Solver::set_split_empty)) searches its eldest
//! child (the table's move, else the first in order) alone, as one thread would; only when
//! that child has not cut off, and some thread is idle, does the node become a *split point*
//! and offer its younger children, all with the same null window, to idle threads. The
//! thread that made it takes children too, and once none is left to hand out it helps the
//! threads still busy below it (the helpful master) until they are done. The first child
//! that fails high decides the split point: every thread below it stops within
//! 256 positions (`search::STOP_CHECK_EVERY`) and returns without
//! storing, so the table only ever holds true bounds, and the split point stores its lower
//! bound; when every child failed low it stores its upper bound. So the threads search the
//! nodes one thread searches, bar the younger children started beside a sibling that then
//! cut off: the work a cut node's younger moves would have cost, started speculatively, is
//! what YBWC never does before the eldest has answered.
//!
//! **How many children alone.** A node whose eldest failed low still often cuts off with a
//! younger child, so a node may search its first few children alone before it splits
//! ([`alone_before_split`]): fewer wastes more positions on children started beside a
//! cutoff, more leaves threads idle. Which costs more depends on how many threads wait:
//! with many, an idle thread costs more than a speculative child; with few, the other way
//! round. So one child (YBWC's rule) from six threads, three from three to five, two with
//! two; but the top of the tree, up to
//! [`ALONE_ONCE_UP_TO_MOVES`](crate::team::ALONE_ONCE_UP_TO_MOVES) stones, splits after the
//! eldest whatever the team's size, since a thread idle beside one of its children idles
//! longest (measured: docs/connect4/parallel.md, 2026-11-27, “on the 16-core machine: one
//! child alone with many threads” and “the top of the tree splits at once”).
//!
//! **Why not Lazy SMP any more.** Until this design the threads ran Lazy SMP: every thread
//! the same binary search over the shared table, busy marks near the root to keep them
//! apart. Its sixteen threads searched far more positions than one, and few of them were
//! repeats of one (position, window): most were nodes one thread never enters, because at a
//! cut node every thread started its own refutation. A split point starts younger children
//! only at a node that turned out not to be a cut node (its eldest failed low), which is
//! where one thread searches them all anyway; on the same kind of machine split points
//! search fewer positions and solve faster (measured: docs/connect4/parallel.md, 2026-11-26,
//! “on the 16-core machine”; 2026-11-25, “where sixteen threads' extra positions come from”;
//! 2026-11-27, “one child alone with many threads”).
//!
//! **Why the answer is exact whatever the threads do.** Every bound stored comes from a
//! search that finished: a thread told to stop returns through every frame without storing,
//! and a split point stores nothing when a split point above it was decided or the solve was
//! stopped. A split point's lower bound is a child's fail-high, a true bound whichever
//! thread found it; its upper bound needs every child to have failed low, which the master
//! knows once it has handed out every child and every thread that took one has returned
//! without being stopped.
//!
//! **The table.** The big table starts small after a clear and doubles as a solve stores
//! more ([`crate::bounds`]), which keeps small solves in the cache but needs the table to
//! itself for each doubling. A solve starts on one thread, which grows the table as it
//! likes; most positions of a test set are solved in a fraction of the time it takes to
//! start a thread, and only a solve that goes past [`PARALLEL_AFTER`] positions calls the
//! other threads. From then on the table grows at the same points as one thread's: the
//! threads count what they store, and when the next doubling is due they all stop as on a
//! decided split point (nothing half-searched is stored), the table doubles, and the window
//! starts again, finding what was finished in the table. That is a stop of every thread,
//! but only at the doublings, at most log2(all buckets ÷ buckets at the join) times a
//! solve (six or seven on 128 MiB) and never once the table is whole; between windows the
//! helpers are started afresh, so the table also grows there. Growing the table to all of
//! its buckets when the helpers joined instead (a pass over 128 MiB, paid again by every
//! line) made 2-thread Pons' middle sets several times slower; without growth after the join,
//! the empty board's weak solve, nearly one window, ran on the table as it was at the join
//! and explored far more positions (measured: docs/connect4/parallel.md, 2026-11-27, “Pons'
//! sets on 1 and 2 threads” and “the table grows under the team”).

use crate::book::Book;
use crate::bounds::{BoundStore, BoundTable, ScoreBound, ThreadView};
use crate::moves::MoveSorter;
use crate::position::{Bitboard, Position};
use crate::score::{Window, initial_window};
use crate::search::{Access, HEARTBEAT_FIRST, Heartbeat, PUBLISH_EVERY, Search, Step};
use crate::team::{Backoff, Share, SplitPoint, Team, lock};
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Positions a solve explores on one thread before the other threads join, unless
/// [`crate::Solver::set_parallel_after`] says otherwise: a few milliseconds of solving, so
/// that the small solves of a test set never start a thread; joining later left two
/// threads slower on Begin-Medium (measured: docs/connect4/parallel.md, 2026-11-27, “the
/// table grows under the team”).
pub const PARALLEL_AFTER: u64 = 1 << 16;

/// Nodes with at least this many empty squares may become split points, unless
/// [`crate::Solver::set_split_empty`] says otherwise (`transpo-c4` takes a value for
/// measurements from `TRANSPO_C4_SPLIT_EMPTY`). On the 16-core machine 16, 20, 24 and 28
/// were alike within the spread (measured: docs/connect4/parallel.md, 2026-11-27, “one child
/// alone with many threads”).
pub const SPLIT_EMPTY: u32 = 20;

pub(crate) use crate::team::alone_before_split;

/// The outcome of a solve that may have been stopped.
pub(crate) struct Solved {
    /// The range the score lies in: one score, or a range the window asked no more of; the
    /// range known when the solve stopped, if it did.
    pub(crate) score: RangeInclusive<i32>,
    /// Positions explored by all threads.
    pub(crate) nodes: u64,
    /// Whether the caller's stop ended the solve before `window` was decided.
    pub(crate) stopped: bool,
    /// Time the threads of the teams spent looking for work, summed over the threads
    /// ([`Team::waited`]).
    pub(crate) waited: Duration,
}

impl<'a, A: Access<W, H, B>, const W: usize, const H: usize, B: Bitboard> Search<'a, A, W, H, B> {
    /// Makes `pos` a split point: its eldest child failed low in `[alpha, beta]` (a null
    /// window), and `sorter` holds the younger ones. Searches them with the team, stores the
    /// node's bound and returns its score as [`Search::negamax`] would, or sets `aborted` if a
    /// split point above was decided or the solve stopped meanwhile.
    pub(crate) fn split(
        &mut self,
        team: &'a Team<W, H, B>,
        pos: &Position<W, H, B>,
        alpha: i32,
        beta: i32,
        sorter: MoveSorter<W, H, B>,
        hint: Option<usize>,
    ) -> i32 {
        let sp = Arc::new(SplitPoint {
            pos: *pos,
            alpha,
            beta,
            parent: self.under.clone(),
            decided: AtomicBool::new(false),
            open: AtomicBool::new(true),
            working: AtomicUsize::new(0),
            share: Mutex::new(Share { sorter, cut: None }),
        });
        team.offer(Arc::clone(&sp));
        self.work_at(&sp);
        // Nothing more to hand out, or the node is decided.
        sp.open.store(false, Ordering::Relaxed);
        team.withdraw(&sp);
        self.aborted = false;
        self.help_below(team, &sp);
        if team.stop.load(Ordering::Relaxed)
            || sp
                .parent
                .as_deref()
                .is_some_and(SplitPoint::decided_here_or_above)
        {
            self.aborted = true;
            return 0;
        }
        let cut = lock(&sp.share).cut;
        if let Some((score, col)) = cut {
            self.table.put(pos, ScoreBound::Lower(score), Some(col), 1);
            return score;
        }
        // Every child was searched to the end and failed low.
        self.table.put(pos, ScoreBound::Upper(alpha), hint, 1);
        alpha
    }

    /// Searches children of `sp` until none is left, the node is decided, or this search
    /// must stop (`aborted` set). A panic while it searches a child stops the team and hands
    /// the child back unfinished ([`Held`]), so that no thread waits for it.
    fn work_at(&mut self, sp: &Arc<SplitPoint<W, H, B>>) {
        let outer = self.under.replace(Arc::clone(sp));
        while let Some((square, threats)) = sp.take() {
            let held = Held {
                sp,
                team: self.team,
                square,
            };
            let score = -self.negamax(&sp.pos.after(square), -sp.beta, -sp.alpha, threats);
            std::mem::forget(held);
            if self.aborted {
                sp.give_back(square, None);
                break;
            }
            sp.give_back(square, Some(score));
        }
        self.under = outer;
    }

    /// Takes children at the open split point of `team` nearest the root (below `within`,
    /// if given) until none is left there, counted busy meanwhile, as a thread looking for
    /// work does; whether there was one.
    pub(crate) fn help_once(
        &mut self,
        team: &'a Team<W, H, B>,
        within: Option<&SplitPoint<W, H, B>>,
    ) -> bool {
        let Some(sp) = team.pick(within) else {
            return false;
        };
        team.idle.fetch_sub(1, Ordering::Relaxed);
        self.work_at(&sp);
        self.aborted = false;
        team.idle.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Until no thread works at `sp` any more, helps at split points below it (the helpful
    /// master: the threads there work for `sp`).
    fn help_below(&mut self, team: &'a Team<W, H, B>, sp: &Arc<SplitPoint<W, H, B>>) {
        team.idle.fetch_add(1, Ordering::Relaxed);
        let (started, mut worked) = (Instant::now(), Duration::ZERO);
        let mut backoff = Backoff(0);
        while sp.working.load(Ordering::Acquire) > 0 {
            let work = Instant::now();
            if self.help_once(team, Some(sp)) {
                worked += work.elapsed();
                backoff = Backoff(0);
            } else {
                // The master waiting here still watches the caller's stop (and its limit):
                // the threads below see the team's stop at their next look.
                self.table.tick(self.nodes);
                backoff.snooze();
            }
        }
        team.idle.fetch_sub(1, Ordering::Relaxed);
        team.add_waited(started.elapsed().saturating_sub(worked));
    }
}

/// A child of a split point a thread is searching, dropped only if that search panics
/// (the search forgets it otherwise): it stops the team first, so that the master, which
/// sees the child handed back unfinished, stores nothing for the split point and returns,
/// and then hands the child back.
struct Held<'s, 't, const W: usize, const H: usize, B: Bitboard> {
    sp: &'s SplitPoint<W, H, B>,
    team: Option<&'t Team<W, H, B>>,
    square: B,
}

impl<const W: usize, const H: usize, B: Bitboard> Drop for Held<'_, '_, W, H, B> {
    fn drop(&mut self) {
        if let Some(team) = self.team {
            team.stop.store(true, Ordering::Relaxed);
        }
        self.sp.give_back(self.square, None);
    }
}

/// Ends a team when dropped in a panic: every thread stops and the helpers go home, so that
/// the scope that runs them can join them and pass the panic on to the caller.
struct EndOnPanic<'t, const W: usize, const H: usize, B: Bitboard>(&'t Team<W, H, B>);

impl<const W: usize, const H: usize, B: Bitboard> Drop for EndOnPanic<'_, W, H, B> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop.store(true, Ordering::Relaxed);
            self.0.done.store(true, Ordering::Release);
        }
    }
}

/// The table as one thread of a team reaches it: the shared big table, the thread's own near
/// table, and the team to publish its count to.
struct Shared<'a, const W: usize, const H: usize, B: Bitboard> {
    view: ThreadView<'a, W, H, B>,
    team: &'a Team<W, H, B>,
    /// The caller's stop, watched by the master only.
    stop: Option<&'a AtomicBool>,
    /// The team's count at which the master raises the caller's stop ([`Plan::max_nodes`]
    /// less the positions explored before this window); `u64::MAX` for a helper.
    limit: u64,
    /// Positions explored at the last report.
    reported: u64,
    /// Entries this thread put into the big table, for its growth
    /// ([`BoundTable::count_shared_stores`]).
    far_stores: u64,
    /// `far_stores` at the last report.
    published_stores: u64,
    /// Whether this is a helper's access, not the master's (for the tests' injected panics).
    #[cfg(test)]
    helper: bool,
}

impl<'a, const W: usize, const H: usize, B: Bitboard> Shared<'a, W, H, B> {
    fn new(
        view: ThreadView<'a, W, H, B>,
        team: &'a Team<W, H, B>,
        stop: Option<&'a AtomicBool>,
        limit: u64,
    ) -> Self {
        Shared {
            view,
            team,
            stop,
            limit,
            reported: 0,
            far_stores: 0,
            published_stores: 0,
            #[cfg(test)]
            helper: false,
        }
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Access<W, H, B> for Shared<'_, W, H, B> {
    const STOPPABLE: bool = true;
    const WEIGHS_SUBTREES: bool = false;
    #[inline]
    fn get(&self, pos: &Position<W, H, B>) -> Option<(ScoreBound, Option<usize>)> {
        self.view.get(pos)
    }
    #[inline]
    fn put(&mut self, pos: &Position<W, H, B>, bound: ScoreBound, best: Option<usize>, _: u64) {
        if self.view.put(pos, bound, best) {
            self.far_stores += 1;
        }
    }
    #[inline]
    fn prefetch(&self, pos: &Position<W, H, B>) {
        self.view.prefetch(pos);
    }
    #[inline]
    fn hit_weight(&self, _pos: &Position<W, H, B>) -> u64 {
        1
    }
    fn tick(&mut self, nodes: u64) -> bool {
        #[cfg(test)]
        if let Some(inject) = self.team.inject {
            inject.fire(self.helper);
        }
        if nodes & (PUBLISH_EVERY - 1) == 0 {
            self.team
                .nodes
                .fetch_add(nodes - self.reported, Ordering::Relaxed);
            self.reported = nodes;
            let stored = self.far_stores - self.published_stores;
            self.published_stores = self.far_stores;
            let stores = self.team.stores.fetch_add(stored, Ordering::Relaxed) + stored;
            if stores >= self.team.grow_after {
                // Stop every thread so that the table can grow (see `solve`).
                self.team.stop.store(true, Ordering::Relaxed);
            }
        }
        if let Some(stop) = self.stop
            && self.team.nodes.load(Ordering::Relaxed) >= self.limit
        {
            stop.store(true, Ordering::Relaxed);
        }
        if self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
            self.team.stop.store(true, Ordering::Relaxed);
        }
        self.team.stop.load(Ordering::Relaxed)
    }
}

/// The table as the first, lone phase of a solve reaches it: to itself (so it grows as it
/// fills), until `stop_at` positions or the caller's stop, which it raises itself at `limit`
/// positions ([`Plan::max_nodes`]).
struct Alone<'a, T> {
    table: &'a mut T,
    stop_at: u64,
    stop: Option<&'a AtomicBool>,
    limit: u64,
}

impl<const W: usize, const H: usize, B: Bitboard, T: BoundStore<W, H, B>> Access<W, H, B>
    for Alone<'_, T>
{
    const STOPPABLE: bool = true;
    const WEIGHS_SUBTREES: bool = T::WEIGHS_SUBTREES;
    #[inline]
    fn get(&self, pos: &Position<W, H, B>) -> Option<(ScoreBound, Option<usize>)> {
        self.table.get(pos)
    }
    #[inline]
    fn put(&mut self, pos: &Position<W, H, B>, bound: ScoreBound, best: Option<usize>, n: u64) {
        self.table.put(pos, bound, best, n);
    }
    #[inline]
    fn prefetch(&self, pos: &Position<W, H, B>) {
        self.table.prefetch(pos);
    }
    #[inline]
    fn hit_weight(&self, pos: &Position<W, H, B>) -> u64 {
        self.table.hit_weight(pos)
    }
    fn tick(&mut self, nodes: u64) -> bool {
        if let Some(stop) = self.stop
            && nodes >= self.limit
        {
            stop.store(true, Ordering::Relaxed);
        }
        nodes >= self.stop_at || self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
    }
}

/// What a solve works with besides the table, from the [`crate::Solver`].
pub(crate) struct Plan<'a, const W: usize, const H: usize, B: Bitboard> {
    pub(crate) book: Option<&'a Book<W, H, B>>,
    /// Threads in all, the caller's included.
    pub(crate) threads: usize,
    /// See [`crate::Solver::set_parallel_after`].
    pub(crate) parallel_after: u64,
    /// See [`crate::Solver::set_split_empty`].
    pub(crate) split_empty: u32,
    /// See [`crate::Solver::set_alone`].
    pub(crate) alone: Option<u32>,
    pub(crate) progress: Option<&'a (dyn Fn(&Step) + Send + Sync)>,
    /// The caller's stop, if any.
    pub(crate) stop: Option<&'a AtomicBool>,
    /// Positions the solve may explore, every thread's, before it raises `stop` itself
    /// (checked every [`crate::search::STOP_CHECK_EVERY`] positions alone, every [`PUBLISH_EVERY`] of each
    /// thread in a team); `u64::MAX` for no limit. Only with a `stop`.
    pub(crate) max_nodes: u64,
    /// Positions earlier solves explored on the table since it was last cleared.
    pub(crate) explored: u64,
    /// A panic the tests inject into a thread of the team.
    #[cfg(test)]
    pub(crate) inject: Option<crate::team::Inject>,
}

/// Solves `pos` (which the side to move cannot win at once) until `window` is decided or
/// `plan`'s stop is raised: alone first, then, past [`Plan::parallel_after`] positions, with
/// the team if there is one and the table can be shared.
///
/// # Panics
///
/// If a thread of the team panics: the others stop and go home ([`Held`], [`EndOnPanic`]),
/// and the panic goes on on the caller's thread. A solve never hangs on a thread that
/// panicked.
pub(crate) fn solve<const W: usize, const H: usize, B: Bitboard, T: BoundStore<W, H, B>>(
    table: &mut T,
    pos: &Position<W, H, B>,
    window: Window,
    plan: &Plan<'_, W, H, B>,
) -> Solved {
    let (min, max) = initial_window(pos);
    let mut range = min..=max;
    let started = Instant::now();
    let teamed = plan.threads > 1 && table.as_shared().is_some();
    let stop_at = if teamed {
        plan.parallel_after
    } else {
        u64::MAX
    };
    let beat = heartbeat(plan, started, HEARTBEAT_FIRST, &range, 0, None);
    let mut search = Search::new(
        Alone {
            table: &mut *table,
            stop_at,
            stop: plan.stop,
            limit: plan.max_nodes,
        },
        plan.book,
    )
    .after(plan.explored)
    .reporting(beat);
    let finished = search.bisect(pos, window, &mut range, |med, min, max, nodes| {
        report(plan, started, med, min, max, nodes);
    });
    let nodes = search.nodes;
    let due = search.heartbeat.map_or(HEARTBEAT_FIRST, |beat| beat.due);
    // Without a team the lone phase has no position limit, so it ended only if the window
    // was decided or the caller stopped it.
    let shared = if teamed { table.as_shared() } else { None };
    let Some(table) = shared.filter(|_| !finished) else {
        return Solved {
            score: range,
            nodes,
            stopped: !finished,
            waited: Duration::ZERO,
        };
    };
    if plan.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
        return Solved {
            score: range,
            nodes,
            stopped: true,
            waited: Duration::ZERO,
        };
    }
    let mut windowed = Windowed {
        answered: false,
        nodes,
        stored: 0,
        due,
        waited: Duration::ZERO,
    };
    while !window.decided(*range.start(), *range.end()) {
        // No thread holds a view between windows (or after a stop for growth), so the table
        // may grow here as one thread's would have grown on the way.
        table.count_shared_stores(windowed.stored);
        windowed = team_window(table, pos, window, &mut range, plan, started, windowed);
        // A window not answered was stopped by the caller, or for the table to grow.
        if !windowed.answered && plan.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
            break;
        }
    }
    Solved {
        stopped: !window.decided(*range.start(), *range.end()),
        score: range,
        nodes: windowed.nodes,
        waited: windowed.waited,
    }
}

/// Where a solve stands after a window of its team.
struct Windowed {
    /// Whether the window was answered (else the team was stopped).
    answered: bool,
    /// Positions explored by the solve so far, every thread's.
    nodes: u64,
    /// Entries the threads put into the big table in the window.
    stored: u64,
    /// When the next heartbeat is due.
    due: Duration,
    /// Time the threads of the teams so far spent looking for work.
    waited: Duration,
}

/// One window of `pos`'s search by a team of `plan.threads` threads on `table`, `before`
/// being where the solve stood; narrows `range`.
fn team_window<const W: usize, const H: usize, B: Bitboard>(
    table: &BoundTable<W, H, B>,
    pos: &Position<W, H, B>,
    window: Window,
    range: &mut RangeInclusive<i32>,
    plan: &Plan<'_, W, H, B>,
    started: Instant,
    before: Windowed,
) -> Windowed {
    let team = Team::new(
        plan.split_empty,
        plan.alone,
        plan.threads,
        table.stores_before_growth(),
    );
    #[cfg(test)]
    let team = Team {
        inject: plan.inject,
        ..team
    };
    let nodes = before.nodes;
    // Positions searched on the table before this window, by every solve since it was last
    // cleared.
    let explored = plan.explored + nodes;
    std::thread::scope(|scope| {
        let team = &team;
        // A panic of the master (or a thread that cannot be started) sends the helpers home
        // before the scope joins them.
        let _end = EndOnPanic(team);
        let helpers: Vec<_> = (1..plan.threads)
            .map(|helper| scope.spawn(move || help(table.view(helper), plan.book, team, explored)))
            .collect();
        let beat = heartbeat(plan, started, before.due, range, nodes, Some(&team.nodes));
        let limit = plan.max_nodes.saturating_sub(nodes);
        let master = Shared::new(table.view(0), team, plan.stop, limit);
        let mut master = Search::new(master, plan.book)
            .in_team(team)
            .after(explored)
            .reporting(beat);
        let answered = master.next_window(pos, window, range, nodes, |med, min, max, _| {
            let published = team.nodes.load(Ordering::Relaxed);
            report(plan, started, med, min, max, nodes + published);
        });
        team.done.store(true, Ordering::Release);
        let (mut searched, mut stored) = (master.nodes, master.table.far_stores);
        for helper in helpers {
            // A helper's panic goes on here, once every other thread has gone home.
            let (n, s) = helper
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            searched += n;
            stored += s;
        }
        Windowed {
            answered,
            nodes: nodes + searched,
            stored,
            due: master.heartbeat.map_or(before.due, |beat| beat.due),
            waited: before.waited + Duration::from_nanos(team.waited.load(Ordering::Relaxed)),
        }
    })
}

/// Reports an answered null window to `plan`'s progress, if any: the window `med`, the
/// score's range `min..=max` and `nodes` positions explored since `started`.
fn report<const W: usize, const H: usize, B: Bitboard>(
    plan: &Plan<'_, W, H, B>,
    started: Instant,
    med: i32,
    min: i32,
    max: i32,
    nodes: u64,
) {
    if let Some(progress) = plan.progress {
        progress(&Step {
            window: med,
            answered: true,
            min,
            max,
            nodes,
            elapsed: started.elapsed(),
        });
    }
}

/// The reports of a solve's searching thread, if anyone listens: the next due `due` after
/// `started`, the score in `range`, `nodes` positions explored before, and the count the
/// threads publish if they share the search.
fn heartbeat<'a, const W: usize, const H: usize, B: Bitboard>(
    plan: &Plan<'a, W, H, B>,
    started: Instant,
    due: Duration,
    range: &RangeInclusive<i32>,
    nodes: u64,
    published: Option<&'a AtomicU64>,
) -> Option<Heartbeat<'a>> {
    plan.progress.map(|progress| Heartbeat {
        progress,
        started,
        due,
        step: Step {
            window: 0,
            answered: false,
            min: *range.start(),
            max: *range.end(),
            nodes,
            elapsed: Duration::ZERO,
        },
        published,
    })
}

/// One helper thread of a team: takes children at open split points until the master is
/// done. Returns the positions it explored and the entries it put into the big table.
/// `explored`: the positions searched on the table before this window.
fn help<const W: usize, const H: usize, B: Bitboard>(
    view: ThreadView<'_, W, H, B>,
    book: Option<&Book<W, H, B>>,
    team: &Team<W, H, B>,
    explored: u64,
) -> (u64, u64) {
    // A panic of this helper outside a child it holds stops the team too.
    let _end = EndOnPanic(team);
    #[cfg_attr(
        not(test),
        expect(unused_mut, reason = "marked a helper in tests only")
    )]
    let mut shared = Shared::new(view, team, None, u64::MAX);
    #[cfg(test)]
    {
        shared.helper = true;
    }
    let mut search = Search::new(shared, book).in_team(team).after(explored);
    let (started, mut worked) = (Instant::now(), Duration::ZERO);
    let mut backoff = Backoff(0);
    while !team.done.load(Ordering::Acquire) {
        let work = Instant::now();
        if search.help_once(team, None) {
            worked += work.elapsed();
            backoff = Backoff(0);
        } else {
            backoff.snooze();
        }
    }
    team.add_waited(started.elapsed().saturating_sub(worked));
    (search.nodes, search.table.far_stores)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Strength;
    use crate::team::Inject;
    use std::sync::mpsc;

    /// Solves a position of many split points on 4 threads with `inject`'s panic, on a
    /// thread of its own: whether the solve ended in a panic (`None`: it did not end within
    /// a minute, so it hangs).
    fn panicked(inject: Inject) -> Option<bool> {
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let ended = std::panic::catch_unwind(|| {
                let mut table = BoundTable::<7, 6, u64>::new(4).expect("4 MiB");
                table.set_helpers(3).expect("near tables");
                let pos = Position::<7, 6, u64>::from_moves("4453").expect("legal moves");
                let plan = Plan {
                    book: None,
                    threads: 4,
                    parallel_after: 0,
                    split_empty: 8,
                    alone: Some(1),
                    progress: None,
                    stop: None,
                    max_nodes: u64::MAX,
                    explored: 0,
                    inject: Some(inject),
                };
                solve(&mut table, &pos, Window::of(Strength::Strong), &plan).score
            });
            let _ = sender.send(ended.is_err());
        });
        receiver.recv_timeout(Duration::from_secs(60)).ok()
    }

    /// A helper that panics while it searches a child of a split point ends the solve with
    /// its panic on the caller's thread; it does not leave the master waiting for the child.
    #[test]
    fn a_panic_in_a_helper_ends_the_solve() {
        assert_eq!(panicked(Inject { helper: true }), Some(true));
    }

    /// A master that panics sends its helpers home: the solve ends with the panic.
    #[test]
    fn a_panic_in_the_master_ends_the_solve() {
        assert_eq!(panicked(Inject { helper: false }), Some(true));
    }
}
