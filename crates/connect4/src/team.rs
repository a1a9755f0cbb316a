//! The threads of one parallel solve and the split points they share: what a search needs to
//! know of them ([`crate::search`] offers children at a [`SplitPoint`] and watches whether it
//! was decided), apart from how a solve runs them ([`crate::parallel`]).

use crate::moves::MoveSorter;
use crate::position::{Bitboard, Position};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Children a node searches alone, the eldest first, before it may become a split point,
/// in a team of `threads` threads, below the top of the tree ([`ALONE_ONCE_UP_TO_MOVES`]).
/// One is YBWC's rule; but in a null-window search a node
/// whose eldest failed low still often cuts off with a younger child, and every child handed
/// out beside that one is searched for nothing. Waiting for more children wastes less work
/// but leaves threads idle, and which costs more depends on how many threads wait:
/// - 2 threads (2-core machine): 200 Begin-Medium lines 57 ms a line with 2 children, 71 ms
///   with 3; 20 Begin-Hard lines 1.03 s and 1.09 s. On the 16-core machine 20 Begin-Hard
///   lines took 0.88 s with 2, 1.04 s with 1.
/// - 4 threads (16-core machine, 20 Begin-Hard lines): 0.60 s a line with 3, 0.73 s with 1.
/// - 6 threads: 0.73 s with 3, 0.56 s with 1. 8 threads: 0.60 s with 3, 0.43 s with 1.
///   16 threads: 0.74 s with 3, 0.46 s with 2, 0.34 s with 1; the empty board 5.4–5.9 s
///   weak and 8.1–8.5 s strong with 3, 2.5–3.1 s and 3.7–4.5 s with 1, though 16 threads
///   search 1.8× one thread's positions with 3 and 2.1× with 1 (docs/connect4/parallel.md,
///   2026-11-27).
///
/// [`Solver::set_alone`](crate::solver::Solver::set_alone) replaces the rule by one count
/// for every node, for measurements (`transpo-c4` takes it from `TRANSPO_C4_ALONE`).
pub(crate) fn alone_before_split(threads: usize) -> u32 {
    match threads {
        0..=2 => 2,
        3..=5 => 3,
        _ => 1,
    }
}

/// Nodes with at most this many stones on the board split after their eldest child alone,
/// whatever the team's size ([`alone_before_split`] counts for the rest), unless
/// [`Solver::set_alone`](crate::solver::Solver::set_alone) fixes one count for every node.
/// The top of the tree is where a child's subtree is largest, so a thread idle beside one
/// costs the most there: on the empty 7×6 board, one child alone up to four stones searched
/// fewer positions and took less time than two children alone everywhere, weak and strong,
/// and Begin-Hard lines took as long (docs/connect4/parallel.md).
pub(crate) const ALONE_ONCE_UP_TO_MOVES: u32 = 4;

/// A node whose younger children are offered to the team: its eldest failed low.
pub(crate) struct SplitPoint<const W: usize, const H: usize, B: Bitboard> {
    pub(crate) pos: Position<W, H, B>,
    /// The node's null window (after its bounds narrowed it).
    pub(crate) alpha: i32,
    pub(crate) beta: i32,
    /// The split point whose child the master was searching when it made this one.
    pub(crate) parent: Option<Arc<SplitPoint<W, H, B>>>,
    /// Set once a child failed high: the node is decided, its children's searches stop.
    pub(crate) decided: AtomicBool,
    /// Whether children are left to hand out.
    pub(crate) open: AtomicBool,
    /// Threads searching a child now.
    pub(crate) working: AtomicUsize,
    /// The children not handed out yet, and the first fail-high.
    pub(crate) share: Mutex<Share<W, H, B>>,
}

/// What the threads at a split point change under its lock.
pub(crate) struct Share<const W: usize, const H: usize, B: Bitboard> {
    pub(crate) sorter: MoveSorter<W, H, B>,
    /// The first child to fail high: its score and column.
    pub(crate) cut: Option<(i32, usize)>,
}

/// The lock, whatever a panicking thread left: a split point's share is consistent at every
/// unlock.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<const W: usize, const H: usize, B: Bitboard> SplitPoint<W, H, B> {
    /// Whether this split point or one above it is decided: a search below must stop.
    pub(crate) fn decided_here_or_above(&self) -> bool {
        let mut at = Some(self);
        while let Some(sp) = at {
            if sp.decided.load(Ordering::Acquire) {
                return true;
            }
            at = sp.parent.as_deref();
        }
        false
    }

    /// Whether `ancestor` lies above this split point.
    pub(crate) fn is_below(&self, ancestor: &SplitPoint<W, H, B>) -> bool {
        let mut at = self.parent.as_deref();
        while let Some(sp) = at {
            if std::ptr::eq(sp, ancestor) {
                return true;
            }
            at = sp.parent.as_deref();
        }
        false
    }

    /// The next child to search, with its player's winning squares, counted as worked on;
    /// `None` once none is left or the node is decided.
    pub(crate) fn take(&self) -> Option<(B, B)> {
        let mut share = lock(&self.share);
        if self.decided.load(Ordering::Relaxed) || !self.open.load(Ordering::Relaxed) {
            return None;
        }
        let next = share.sorter.next(&self.pos);
        match next {
            Some(_) => {
                self.working.fetch_add(1, Ordering::Relaxed);
            }
            None => self.open.store(false, Ordering::Relaxed),
        }
        next
    }

    /// Hands back the child on `square`, with its score if its search finished.
    pub(crate) fn give_back(&self, square: B, score: Option<i32>) {
        let mut share = lock(&self.share);
        if let Some(score) = score
            && score >= self.beta
        {
            if share.cut.is_none() {
                share.cut = Some((score, Position::<W, H, B>::column_of(square)));
            }
            self.open.store(false, Ordering::Relaxed);
            self.decided.store(true, Ordering::Release);
        }
        // Under the lock, after the cut: a master that sees no one working sees the cut.
        self.working.fetch_sub(1, Ordering::Release);
    }
}

/// The threads of one solve: the split points open to them, and who is idle.
pub(crate) struct Team<const W: usize, const H: usize, B: Bitboard> {
    /// Split points with children to hand out (or about to be withdrawn).
    pub(crate) open: Mutex<Vec<Arc<SplitPoint<W, H, B>>>>,
    /// `open.len()`, read without the lock by threads looking for work.
    pub(crate) offered: AtomicUsize,
    /// Threads looking for work: helpers between jobs, and masters waiting at a split point.
    pub(crate) idle: AtomicUsize,
    /// Nodes with at least this many empty squares may split.
    pub(crate) split_empty: u32,
    /// Set when the caller stops the solve: every thread returns.
    pub(crate) stop: AtomicBool,
    /// Set when the master has answered the window asked of it: the helpers go home.
    pub(crate) done: AtomicBool,
    /// Positions explored, as the threads published them.
    pub(crate) nodes: AtomicU64,
    /// Entries put into the big table, as the threads published them.
    pub(crate) stores: AtomicU64,
    /// Nanoseconds the threads spent looking for work, summed over the threads: a helper
    /// from its start to the window's end, and the master waiting at its own split points,
    /// less the time each spent searching.
    pub(crate) waited: AtomicU64,
    /// Stores into the big table after which it must grow: the team stops (`stop`) so that
    /// it can.
    pub(crate) grow_after: u64,
    /// Children a node searches alone before it may split ([`alone_before_split`]); a team
    /// that threads join and leave changes it as they do ([`Team::set_alone`]).
    pub(crate) alone: AtomicU32,
    /// Children a node with at most [`ALONE_ONCE_UP_TO_MOVES`] stones searches alone.
    pub(crate) alone_at_top: u32,
    /// A panic the tests inject into a thread of the team.
    #[cfg(test)]
    pub(crate) inject: Option<Inject>,
}

/// A panic injected into a team's search, for the tests that show a panic ends a solve:
/// raised by the master or by a helper (then while it searches a child of a split point) at
/// the first look at the stop ([`crate::search::Access::tick`]) of that kind of thread.
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inject {
    /// In a helper (else in the master).
    pub(crate) helper: bool,
}

#[cfg(test)]
impl Inject {
    /// Panics if this thread is the kind to.
    pub(crate) fn fire(self, helper: bool) {
        if helper == self.helper {
            panic!(
                "a panic injected into the {}",
                if helper { "helper" } else { "master" }
            );
        }
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Team<W, H, B> {
    /// A team of `threads` threads in all, that splits nodes with at least `split_empty`
    /// empty squares after `alone` children searched alone (`None`: the rule,
    /// [`alone_before_split`] and [`ALONE_ONCE_UP_TO_MOVES`]), and stops after `grow_after`
    /// stores into the big table (if the table grows at all).
    pub(crate) fn new(
        split_empty: u32,
        alone: Option<u32>,
        threads: usize,
        grow_after: Option<u64>,
    ) -> Self {
        let helpers = threads - 1;
        Team {
            open: Mutex::new(Vec::new()),
            offered: AtomicUsize::new(0),
            idle: AtomicUsize::new(helpers),
            split_empty,
            stop: AtomicBool::new(false),
            done: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            stores: AtomicU64::new(0),
            waited: AtomicU64::new(0),
            grow_after: grow_after.unwrap_or(u64::MAX),
            alone: AtomicU32::new(alone.unwrap_or_else(|| alone_before_split(threads))),
            alone_at_top: alone.unwrap_or(1),
            #[cfg(test)]
            inject: None,
        }
    }

    /// Children `pos` searches alone, the eldest first, before it may split.
    #[inline]
    pub(crate) fn alone_at(&self, pos: &Position<W, H, B>) -> u32 {
        if pos.moves() <= ALONE_ONCE_UP_TO_MOVES {
            self.alone_at_top
        } else {
            self.alone.load(Ordering::Relaxed)
        }
    }

    /// Children a node below the top of the tree searches alone from now on.
    pub(crate) fn set_alone(&self, children: u32) {
        self.alone.store(children, Ordering::Relaxed);
    }

    /// Counts `time` a thread spent looking for work ([`Team::waited`]).
    pub(crate) fn add_waited(&self, time: Duration) {
        let nanos = u64::try_from(time.as_nanos()).unwrap_or(u64::MAX);
        self.waited.fetch_add(nanos, Ordering::Relaxed);
    }

    /// Whether `pos` is far enough from the end of the game to split.
    #[inline]
    pub(crate) fn splits_at(&self, pos: &Position<W, H, B>) -> bool {
        (W * H) as u32 - pos.moves() >= self.split_empty
    }

    /// Whether some thread looks for work.
    #[inline]
    pub(crate) fn has_idle(&self) -> bool {
        self.idle.load(Ordering::Relaxed) > 0
    }

    pub(crate) fn offer(&self, sp: Arc<SplitPoint<W, H, B>>) {
        let mut open = lock(&self.open);
        open.push(sp);
        self.offered.store(open.len(), Ordering::Release);
    }

    pub(crate) fn withdraw(&self, sp: &SplitPoint<W, H, B>) {
        let mut open = lock(&self.open);
        open.retain(|other| !std::ptr::eq(&**other, sp));
        self.offered.store(open.len(), Ordering::Release);
    }

    /// An open split point to help at (below `within`, if given): the one nearest the root,
    /// whose children are the biggest jobs.
    pub(crate) fn pick(
        &self,
        within: Option<&SplitPoint<W, H, B>>,
    ) -> Option<Arc<SplitPoint<W, H, B>>> {
        if self.offered.load(Ordering::Acquire) == 0 {
            return None;
        }
        let open = lock(&self.open);
        open.iter()
            .filter(|sp| {
                sp.open.load(Ordering::Relaxed)
                    && !sp.decided.load(Ordering::Relaxed)
                    && within.is_none_or(|top| sp.is_below(top))
            })
            .min_by_key(|sp| sp.pos.moves())
            .cloned()
    }
}

/// Waiting for work without taking a core another thread could use: spin a little, yield a
/// little, then sleep in short naps (16 threads on 2 cores that only spun and yielded left
/// the working threads a fraction of the machine).
pub(crate) struct Backoff(pub(crate) u32);

impl Backoff {
    /// Rounds of spinning, then of yielding, before napping.
    pub(crate) const SPINS: u32 = 64;
    pub(crate) const YIELDS: u32 = 128;
    /// A nap: short beside the subtrees handed out (split points are far from the leaves).
    pub(crate) const NAP: Duration = Duration::from_micros(50);

    pub(crate) fn snooze(&mut self) {
        if self.0 < Self::SPINS {
            for _ in 0..1 << (self.0 / 8) {
                std::hint::spin_loop();
            }
        } else if self.0 < Self::YIELDS {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Self::NAP);
        }
        self.0 = self.0.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Position;

    /// The top of the tree splits after the eldest; below it the team's size decides.
    #[test]
    fn the_top_of_the_tree_splits_after_the_eldest() {
        let team = Team::<7, 6, u64>::new(20, None, 2, None);
        let top = Position::from_moves("4444").expect("four legal moves");
        let below = Position::from_moves("44444").expect("five legal moves");
        assert_eq!(team.alone_at(&Position::new()), 1);
        assert_eq!(team.alone_at(&top), 1);
        assert_eq!(team.alone_at(&below), alone_before_split(2));
        assert_eq!(alone_before_split(2), 2);
    }

    /// A count given for measurements holds at every node, the top of the tree included.
    #[test]
    fn a_count_given_holds_everywhere() {
        let team = Team::<7, 6, u64>::new(20, Some(3), 16, None);
        let below = Position::from_moves("44444").expect("five legal moves");
        assert_eq!(team.alone_at(&Position::new()), 3);
        assert_eq!(team.alone_at(&below), 3);
        assert_eq!(alone_before_split(16), 1);
    }
}
