//! Many threads solving one position on one shared table, without locks.
//!
//! The scheme is Lazy SMP, as in Steininger's solver: every thread runs the same binary
//! search on the score (the same null windows, in the same order) over the one
//! [`BoundTable`], and what one thread stores, the others find. To keep the threads from
//! walking the same subtrees in step, nodes near the root are marked while a thread searches
//! them, and a thread leaves a marked child for last (`Busy`, ABDADA's idea without its
//! table fields): by the time it comes back, the other thread has usually stored the child's
//! bound. A node's first move is never left for last: if it cuts off, it is all the node
//! needs, so every thread helps with it. (Steininger's threads jitter their move order instead; here jitter of up to a
//! threat near the root explored 60–90% more positions than one thread and was slower than
//! the marks, which explore about 20% more.) When a thread answers a window, it narrows the
//! score's range for all, and every thread still searching that window drops it and takes
//! the next one: the first to finish answers.
//!
//! Why Lazy SMP rather than ABDADA or parallel windows: a null-window search of Connect Four
//! is a single deep, narrow tree, so splitting the window gives the second thread nothing
//! to do most of the time (the weak solve has at most two windows), and ABDADA's "this node
//! is being searched" marks need a table entry with a busy flag and a counter per node, which
//! would cost the one-byte entries their exact keys. Lazy SMP needs nothing of the table but
//! that it can be shared, which [`transpo::Table`] is built for; measured figures are in the
//! crate README.
//!
//! Why the answer is exact whatever the threads do: every bound a thread stores comes from a
//! search that finished (a thread told to drop its window returns through every frame
//! without storing), so the table only ever holds true bounds, and every window's answer
//! is a true bound on the score, whichever thread found it.
//!
//! **Rounds.** The big table starts small after a clear and doubles as the solve stores more
//! (see [`crate::bounds`]), but doubling moves entries and needs the table to itself. So a
//! solve runs in rounds: threads stop when their stores reach the growth point; with no
//! thread running the table grows, and the next round takes up the binary search where the
//! last one left it (the score's range is kept; the subtrees searched are in the table). A
//! solve also starts on one thread: most positions of a test set are solved in a fraction of
//! the time it takes to start a thread, so helpers join only once the first
//! [`PARALLEL_AFTER`] positions have been explored.

use crate::book::Book;
use crate::bounds::{BoundTable, ScoreBound, ThreadView};
use crate::position::Bitboard;
use crate::position::Position;
use crate::score::{Window, initial_window};
use crate::search::{Access, Busy, HEARTBEAT_FIRST, Heartbeat, Search, Step};
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Positions a solve explores on one thread before helpers join, unless
/// [`crate::Solver::set_parallel_after`] says otherwise: about 2 ms of solving, a hundred
/// times what starting a thread costs. Begin-Medium's positions take 1.1 M on average.
pub const PARALLEL_AFTER: u64 = 1 << 16;
/// Nodes with fewer than this many stones more than the root mark themselves busy and leave
/// busy children for last ([`Busy`]). Measured on Begin-Hard (10 lines, 2 threads, 3 runs
/// each): 0 plies 0.89 s, 12 plies 0.51–0.69 s, 20 plies 0.50–0.66 s, every node 1.1–1.3 s
/// (the marks of deep nodes cost more than they save), one thread 0.86 s; on Begin-Medium
/// (200 lines, 2 runs each) 8 plies 25.0 ms, 12 plies 24.7 ms, 16 plies 25.4 ms, 20 plies
/// 27.0 ms; on the empty board (weak) 16 and 22 plies alike.
const DEFER_PLIES: u32 = 12;

/// The outcome of a parallel solve.
pub(crate) struct Solved {
    /// The range the score lies in: one score, or a range the window asked no more of.
    pub(crate) score: RangeInclusive<i32>,
    /// Positions explored by all threads.
    pub(crate) nodes: u64,
}

/// What the threads of one round share.
struct Round<'a, const W: usize, const H: usize, B: Bitboard> {
    pos: &'a Position<W, H, B>,
    /// What the solve must find out.
    window: Window,
    /// Changed whenever the window being searched stops mattering: the range narrowed, or the
    /// round pauses.
    signal: AtomicU32,
    /// The score lies in `min..=max`.
    min: AtomicI32,
    max: AtomicI32,
    /// Set when the round ends before the score is known.
    paused: AtomicBool,
    /// Positions explored and stores of far positions, as published by the threads.
    nodes: AtomicU64,
    far_stores: AtomicU64,
    /// The round pauses once the published counts reach these.
    pause_at_nodes: u64,
    pause_at_stores: u64,
    /// Positions explored in earlier rounds of this solve, for progress reports.
    nodes_before: u64,
    started: Instant,
    /// The nodes near the root being searched (none between rounds: every mark is taken off
    /// as its node returns, aborted or not).
    busy: &'a Busy,
    /// Nodes with fewer stones than this mark themselves busy: none in a round alone.
    defer_until: u32,
    progress: Option<&'a (dyn Fn(&Step) + Send + Sync)>,
}

impl<const W: usize, const H: usize, B: Bitboard> Round<'_, W, H, B> {
    /// Tells every thread to drop its window.
    fn raise(&self) {
        self.signal.fetch_add(1, Ordering::Release);
    }

    /// Adds a thread's counts since its last report; pauses the round if they reached a limit.
    fn publish(&self, nodes: u64, far_stores: u64) {
        let total_nodes = self.nodes.fetch_add(nodes, Ordering::Relaxed) + nodes;
        let total_stores = self.far_stores.fetch_add(far_stores, Ordering::Relaxed) + far_stores;
        if (total_nodes >= self.pause_at_nodes || total_stores >= self.pause_at_stores)
            && !self.paused.swap(true, Ordering::Relaxed)
        {
            self.raise();
        }
    }

    /// Records the answer `r` to the window `[med, med + 1]` and tells the others.
    fn answer(&self, med: i32, r: i32) {
        let (min, max) = if r <= med {
            let max = self.max.fetch_min(r, Ordering::Relaxed).min(r);
            (self.min.load(Ordering::Relaxed), max)
        } else {
            let min = self.min.fetch_max(r, Ordering::Relaxed).max(r);
            (min, self.max.load(Ordering::Relaxed))
        };
        self.raise();
        if let Some(progress) = self.progress {
            progress(&Step {
                window: med,
                answered: true,
                min,
                max,
                nodes: self.nodes_before + self.nodes.load(Ordering::Relaxed),
                elapsed: self.started.elapsed(),
            });
        }
    }
}

/// The table as one thread of a parallel solve reaches it: shared, with the thread's own count
/// of stores and the round it reports them to.
struct Shared<'a, const W: usize, const H: usize, B: Bitboard> {
    table: ThreadView<'a, W, H, B>,
    round: &'a Round<'a, W, H, B>,
    /// Stores of far positions since the last report.
    far_stores: u64,
    /// Positions explored at the last report.
    reported_nodes: u64,
}

impl<const W: usize, const H: usize, B: Bitboard> Access<W, H, B> for Shared<'_, W, H, B> {
    const SHARED: bool = true;
    const WEIGHS_SUBTREES: bool = false;
    #[inline]
    fn get(&self, pos: &Position<W, H, B>) -> Option<(ScoreBound, Option<usize>)> {
        self.table.get(pos)
    }
    #[inline]
    fn put(
        &mut self,
        pos: &Position<W, H, B>,
        bound: ScoreBound,
        best: Option<usize>,
        _nodes: u64,
    ) {
        self.far_stores += u64::from(self.table.put(pos, bound, best));
    }
    #[inline]
    fn prefetch(&self, pos: &Position<W, H, B>) {
        self.table.prefetch(pos);
    }
    #[inline]
    fn hit_weight(&self, _pos: &Position<W, H, B>) -> u64 {
        1
    }
    fn tick(&mut self, nodes: u64) {
        self.round.publish(
            nodes - self.reported_nodes,
            std::mem::take(&mut self.far_stores),
        );
        self.reported_nodes = nodes;
    }
}

/// What a parallel solve works with besides the table, from the [`crate::Solver`].
pub(crate) struct Team<'a, const W: usize, const H: usize, B: Bitboard> {
    pub(crate) book: Option<&'a Book<W, H, B>>,
    pub(crate) busy: &'a Busy,
    /// Threads in all, the caller's included.
    pub(crate) threads: usize,
    /// See [`crate::Solver::set_parallel_after`].
    pub(crate) parallel_after: u64,
    pub(crate) progress: Option<&'a (dyn Fn(&Step) + Send + Sync)>,
}

/// Solves `pos` (which the side to move cannot win at once) until `window` is decided, with
/// `team` on `table`, which a caller cleared or not as it wishes, and made ready for the team's helpers
/// ([`BoundTable::set_helpers`]).
pub(crate) fn solve<const W: usize, const H: usize, B: Bitboard>(
    table: &mut BoundTable<W, H, B>,
    pos: &Position<W, H, B>,
    window: Window,
    team: Team<'_, W, H, B>,
) -> Solved {
    let Team {
        book,
        busy,
        threads,
        parallel_after,
        progress,
    } = team;
    let (mut min, mut max) = initial_window(pos);
    let mut nodes = 0;
    let started = Instant::now();
    let mut alone = parallel_after > 0;
    let mut heartbeat_due = HEARTBEAT_FIRST;
    while !window.decided(min, max) {
        let round = Round {
            pos,
            window,
            signal: AtomicU32::new(0),
            min: AtomicI32::new(min),
            max: AtomicI32::new(max),
            paused: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            far_stores: AtomicU64::new(0),
            pause_at_nodes: if alone { parallel_after } else { u64::MAX },
            pause_at_stores: table.stores_until_growth().unwrap_or(u64::MAX),
            nodes_before: nodes,
            started,
            busy,
            defer_until: if alone { 0 } else { pos.moves() + DEFER_PLIES },
            progress,
        };
        let shared: &BoundTable<W, H, B> = table;
        let helpers = if alone { 0 } else { threads - 1 };
        let due = std::thread::scope(|scope| {
            let round = &round;
            for helper in 1..=helpers {
                scope.spawn(move || work(shared.view(helper), book, round, None));
            }
            let heartbeat = progress.map(|progress| Heartbeat {
                progress,
                started,
                due: heartbeat_due,
                step: Step {
                    window: 0,
                    answered: false,
                    min,
                    max,
                    nodes: round.nodes_before,
                    elapsed: Duration::ZERO,
                },
                published: Some(&round.nodes),
            });
            work(shared.view(0), book, round, heartbeat)
        });
        if let Some(due) = due {
            heartbeat_due = due;
        }
        nodes += round.nodes.load(Ordering::Relaxed);
        min = round.min.load(Ordering::Relaxed);
        max = round.max.load(Ordering::Relaxed);
        table.credit_stores(round.far_stores.load(Ordering::Relaxed));
        alone = false;
    }
    Solved {
        score: min..=max,
        nodes,
    }
}

/// One thread of a round: answers windows until the score is known or the round pauses, then
/// reports its counts.
/// The first thread reports on its windows through `heartbeat`, and returns when its next
/// report is due (for the next round to go on from), or `None` without one.
fn work<'a, const W: usize, const H: usize, B: Bitboard>(
    table: ThreadView<'a, W, H, B>,
    book: Option<&'a Book<W, H, B>>,
    round: &'a Round<'a, W, H, B>,
    heartbeat: Option<Heartbeat<'a>>,
) -> Option<Duration> {
    let mut search = Search::new(
        Shared {
            table,
            round,
            far_stores: 0,
            reported_nodes: 0,
        },
        book,
    )
    .shared(&round.signal, round.busy, round.defer_until)
    .reporting(heartbeat);
    let pos = round.pos;
    let threats = pos.opponent_winning();
    loop {
        // The signal first: a range read after it is at least as new as the signal says.
        search.seen = round.signal.load(Ordering::Acquire);
        let (min, max) = (
            round.min.load(Ordering::Relaxed),
            round.max.load(Ordering::Relaxed),
        );
        if round.window.decided(min, max) || round.paused.load(Ordering::Relaxed) {
            break;
        }
        let med = round.window.next(min, max);
        search.searching(med, min, max);
        search.aborted = false;
        let r = search.negamax(pos, med, med + 1, threats);
        if !search.aborted {
            round.answer(med, r);
        }
    }
    let Shared {
        far_stores,
        reported_nodes,
        ..
    } = search.table;
    round.publish(search.nodes - reported_nodes, far_stores);
    search.heartbeat.map(|beat| beat.due)
}
