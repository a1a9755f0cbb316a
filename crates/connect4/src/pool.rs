//! Many solves at once on one shared table, each on its own thread and each able to stop:
//! what a server answering concurrent requests needs (`transpo-c4 serve`).
//!
//! Why not a lock around one [`Solver`](crate::Solver): it would answer one request at a
//! time, and a slow solve would hold every other one up. Here every solve runs on the caller's
//! thread through its own [`ThreadView`] of one [`BoundTable`] (the big table shared, a near
//! table per slot, as the threads of a parallel solve have), so `workers` solves run at once
//! and each finds what the others stored. The pool hands out those views, not threads: a
//! caller that finds every slot taken waits for one, or gives up when its [`Stop`] says so.
//!
//! Why sharing is safe: every bound a solve stores comes from a search that finished (a
//! search told to stop returns through every frame without storing), so the table holds only
//! true bounds, whoever stored them; and positions, not requests, are the keys. The big table
//! is used whole from the start and never grows ([`BoundTable::use_whole_table`]): growing
//! needs every solve paused, and independent solves have no rounds to pause at.

use crate::board::Board;
use crate::book::Book;
use crate::bounds::{BoundTable, ScoreBound, TableError, ThreadView};
use crate::position::{Bitboard, EMPTY_BOARD, ParseError, Position};
use crate::score::{Strength, Window, column_scores, finish, win_now_score};
use crate::search::{Access, Search};
use crate::team::Team;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// When a solve should give up: at a deadline, or when someone cancels it (say, the client
/// that asked went away). Checked about every 100 µs of search.
#[derive(Debug, Default)]
pub struct Stop {
    deadline: Option<Instant>,
    cancelled: AtomicBool,
}

impl Stop {
    /// A stop that only [`Stop::cancel`] triggers.
    pub fn never() -> Stop {
        Stop::default()
    }

    /// A stop that triggers `limit` from now (or when cancelled).
    pub fn after(limit: Duration) -> Stop {
        Stop {
            // A limit too far to represent is no limit.
            deadline: Instant::now().checked_add(limit),
            cancelled: AtomicBool::new(false),
        }
    }

    /// Tells the solve to give up as soon as it looks.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether the solve should give up now.
    pub fn is_due(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// A solve that gave up: its [`Stop`] triggered before the score was known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped {
    /// Time spent, waiting for a slot included.
    pub after: Duration,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stopped after {} ms", self.after.as_millis())
    }
}

impl std::error::Error for Stopped {}

/// Every column's score of a position, from the side to move's view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The position's score: the best column's (exact, or its sign when weak).
    pub score: i32,
    /// Each column's score; `None` for a full column. One a column of the board.
    pub columns: Vec<Option<i32>>,
    /// Positions explored.
    pub positions: u64,
    /// Whether the opening book answered: it gave some column's score, and no column needed
    /// a search.
    pub from_book: bool,
}

impl Analysis {
    /// The 0-based columns whose score is the best.
    pub fn best(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&c| self.columns[c] == Some(self.score))
            .collect()
    }
}

/// Options of a pooled solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Strong or weak.
    pub strength: Strength,
    /// Solve as if the table were empty (see [`BoundTable::isolated_view`]): for measuring a
    /// solve's own cost while other solves share the table.
    pub fresh: bool,
}

/// A bound table of the board of `W` columns and `H` rows (7×6 unless said otherwise) shared
/// by up to `workers` solves at a time, with an optional opening book.
pub struct SolverPool<const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    table: BoundTable<W, H, B>,
    book: Option<Book<W, H, B>>,
    /// Slots (thread views of the table) not in use.
    free: Mutex<Vec<usize>>,
    freed: Condvar,
    workers: usize,
    /// The solves of [`SolverPool::solve_window`] that idle callers of [`SolverPool::help`]
    /// may help, if helping is on ([`SolverPool::set_helping`]).
    helping: Option<help::Running<W, H, B>>,
    /// Positions [`SolverPool::solve_window`] and [`SolverPool::help`] explored on the table
    /// since it was last cleared: their searches probe children's bounds (enhanced
    /// transposition cutoffs) once the table holds enough ([`Search::after`]), not after
    /// 10^5 positions of their own each.
    explored: AtomicU64,
}

mod help;

impl<const W: usize, const H: usize, B: Bitboard> SolverPool<W, H, B> {
    /// A pool of `workers` slots (at least 1) on a table of `hash_mib` MiB (as
    /// [`BoundTable::new`]), plus a near table per slot ([`BoundTable::NEAR_MIB`]).
    ///
    /// # Errors
    ///
    /// If the tables cannot be made at that size.
    pub fn new(hash_mib: u64, workers: usize) -> Result<Self, TableError> {
        let workers = workers.max(1);
        let mut table = BoundTable::new(hash_mib)?;
        table.use_whole_table();
        table.set_helpers(workers - 1)?;
        Ok(SolverPool {
            table,
            book: None,
            free: Mutex::new((0..workers).rev().collect()),
            freed: Condvar::new(),
            workers,
            helping: None,
            explored: AtomicU64::new(0),
        })
    }

    /// Uses `book` for the positions it holds.
    pub fn set_book(&mut self, book: Book<W, H, B>) {
        self.book = Some(book);
    }

    /// Lets threads with nothing to solve help the solves of [`SolverPool::solve_window`]
    /// that run ([`SolverPool::help`]), or not (the default). With it, each such solve is the
    /// master of a team that threads join and leave as they come: far from the end of the
    /// game, a node whose eldest children did not cut off offers its younger ones to the
    /// helpers attached to it (split points, as in a solve on many threads). Without a helper
    /// attached, a solve searches as it would alone.
    pub fn set_helping(&mut self, on: bool) {
        self.helping = on.then(help::Running::new);
    }

    /// Whether threads with nothing to solve may help ([`SolverPool::set_helping`]).
    pub fn helps(&self) -> bool {
        self.helping.is_some()
    }

    /// Helps the solves of [`SolverPool::solve_window`] that run, on a free slot, until
    /// `until` says to stop (asked between the children it takes) or no solve runs; writes
    /// the far bounds it stores to `journal` as [`SolverPool::solve_window`] does. Returns
    /// whether it helped any solve (not if none ran, helping is off, or no slot was free:
    /// the caller may then wait for work of its own). The positions it explored count in the
    /// answer of the solve it helped, which waits for its helpers to leave.
    ///
    /// For the threads of a cluster's worker that have no job: they search beside the
    /// jobs that run instead of waiting (`transpo-c4` under `mpirun`).
    pub fn help(&self, journal: Option<Journal<'_, W, H, B>>, until: &dyn Fn() -> bool) -> bool {
        let Some(running) = &self.helping else {
            return false;
        };
        let Some(slot) = self.take_free_slots(1).pop() else {
            return false;
        };
        let view = self.table.view(slot.0);
        let explored = self.explored.load(Ordering::Relaxed);
        running.help(&view, self.book.as_ref(), explored, journal, until)
    }

    /// The opening book, if any.
    pub fn book(&self) -> Option<&Book<W, H, B>> {
        self.book.as_ref()
    }

    /// Solves that can run at once.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Slots solving now: a request's, or a helper an analysis borrowed.
    pub fn busy(&self) -> usize {
        // A poisoned list is still a list of free slots: no code panics while holding it.
        let free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        self.workers.saturating_sub(free.len())
    }

    /// Entries of all the tables.
    pub fn capacity(&self) -> usize {
        use crate::bounds::BoundStore;
        self.table.capacity()
    }

    /// The score of `pos` (exact, or its sign when weak) and the positions explored, or
    /// [`Stopped`] if `stop` triggered first. Waits for a free slot if all are taken.
    pub fn solve(
        &self,
        pos: &Position<W, H, B>,
        request: Request,
        stop: &Stop,
    ) -> Result<(i32, u64), Stopped> {
        let started = Instant::now();
        let slot = self.take_slot(stop, started)?;
        let mut solve = self.start(&slot, request, stop);
        let score = solve.score(pos, request.strength);
        score.map(|s| (s, solve.positions)).ok_or(Stopped {
            after: started.elapsed(),
        })
    }

    /// The scores of `count` positions, in their order, where `position(i)` makes the `i`th
    /// (none of them over: [`Position::from_moves`] makes only such positions), and the
    /// positions explored; or [`Stopped`] if `stop` triggered first. Waits for a free slot if
    /// all are taken; then every other slot free at that moment helps, each thread taking the
    /// next few positions left (in chunks that shrink near the end). `solved` counts the positions
    /// solved so far, for a progress report.
    ///
    /// Why not [`SolverPool::solve`] once a position: for positions that take microseconds
    /// (Pons' End-Easy set), taking and giving back a slot (two locks and a wake) and the
    /// clock cost about as much as the solve. Here each thread takes its slot once,
    /// and `position(i)` runs on the thread that solves it.
    pub fn solve_each(
        &self,
        count: usize,
        position: impl Fn(usize) -> Position<W, H, B> + Sync,
        request: Request,
        stop: &Stop,
        solved: &AtomicUsize,
    ) -> Result<(Vec<i32>, u64), Stopped> {
        let started = Instant::now();
        if count == 0 {
            return Ok((Vec::new(), 0));
        }
        let slot = self.take_slot(stop, started)?;
        let helpers = self.take_free_slots(count.min(self.workers) - 1);
        let (scores, positions) =
            self.solve_all(&slot, helpers, count, position, request, stop, solved);
        let scores = scores.ok_or(Stopped {
            after: started.elapsed(),
        })?;
        Ok((scores, positions))
    }

    /// What `window` asks of the score of `pos` (any position not over), as
    /// [`Solver::solve_window`](crate::Solver::solve_window) answers it (`None` if `stop`
    /// triggered first), and the positions explored either way. Waits for a free slot if
    /// all are taken. Each bound the solve stores of a position with at most
    /// `journal.most_moves` stones also goes to `journal.write`, if a journal is given.
    ///
    /// For the threads of a cluster's worker, each searching a job of its own on the one
    /// table (`transpo-c4` under `mpirun`): what one finds, the others do.
    pub fn solve_window(
        &self,
        pos: &Position<W, H, B>,
        window: Window,
        stop: &Stop,
        journal: Option<Journal<'_, W, H, B>>,
    ) -> (Option<RangeInclusive<i32>>, u64) {
        if pos.can_win_next() {
            let win = win_now_score(W * H, pos.moves());
            return (Some(win..=win), 0);
        }
        let Ok(slot) = self.take_slot(stop, Instant::now()) else {
            return (None, 0);
        };
        let view = self.table.view(slot.0);
        let explored = self.explored.load(Ordering::Relaxed);
        let (range, nodes) = if let Some(running) = &self.helping {
            let book = self.book.as_ref();
            running.solve(&view, book, explored, pos, window, stop, journal)
        } else {
            let pooled = Pooled {
                view: &view,
                stop,
                journal,
                team: None,
            };
            let mut search = Search::new(pooled, self.book.as_ref()).after(explored);
            let range = search.score(pos, window, |_, _, _, _| {});
            (range, search.nodes)
        };
        self.explored.fetch_add(nodes, Ordering::Relaxed);
        (range, nodes)
    }

    /// Stores `bound` and the best column for `pos` in the table, from any thread, while
    /// solves run: a bound proved elsewhere (a cluster's other workers). It must be true.
    pub fn store(&self, pos: &Position<W, H, B>, bound: ScoreBound, best: Option<usize>) {
        // Positions near the end go to the first slot's own near table: its cells are
        // atomic like the big table's, so a store beside that slot's solve is only a store.
        self.table.view(0).put(pos, bound, best);
    }

    /// Forgets what the table holds, in O(1) (a new epoch of keys; see [`BoundTable`]): the
    /// next solves start as on a new pool, without making its table again.
    pub fn clear(&mut self) {
        use crate::bounds::BoundStore;
        self.table.clear();
        self.explored.store(0, Ordering::Relaxed);
    }

    /// Every column's score of `pos` (which must not be over: [`Position::from_moves`] makes
    /// only such positions), or [`Stopped`]. The book answers the columns it holds; the others
    /// are searched on this request's slot and on every other slot free when it starts, each
    /// taking the next column left (the slots share the table, so what one stores the others
    /// find). With one person at the page, the cores that would idle solve the columns
    /// beside each other, which halved the slowest analyses (measured: docs/connect4/serve.md,
    /// 2026-11-26, “a game from the empty board”). Under load no slot is free and each
    /// request keeps to its own.
    pub fn analyze(
        &self,
        pos: &Position<W, H, B>,
        request: Request,
        stop: &Stop,
    ) -> Result<Analysis, Stopped> {
        let started = Instant::now();
        let stopped = || Stopped {
            after: started.elapsed(),
        };
        let slot = self.take_slot(stop, started)?;
        // Each child's score as the book gives it, or `None` for those a search must give,
        // in the order the columns ask them.
        let book = self.book.as_ref();
        let (mut answers, mut searched) = (Vec::new(), Vec::new());
        column_scores(pos, request.strength, |next| {
            let answer = book
                .and_then(|b| b.get(next))
                .map(|s| finish(s, request.strength));
            if answer.is_none() {
                searched.push(*next);
            }
            answers.push(answer);
            Some(0)
        });
        let helpers = self.take_free_slots(searched.len().saturating_sub(1));
        let (scores, positions) = self.solve_all(
            &slot,
            helpers,
            searched.len(),
            |i| searched[i],
            request,
            stop,
            &AtomicUsize::new(0),
        );
        drop(slot);
        let scores = scores.ok_or_else(stopped)?;
        let from_book = answers.iter().any(Option::is_some) && searched.is_empty();
        let (mut answers, mut scores) = (answers.into_iter(), scores.into_iter());
        // The same columns asked in the same order: each takes its answer, or the next search's.
        let columns = column_scores(pos, request.strength, |_| match answers.next()? {
            Some(booked) => Some(booked),
            None => scores.next(),
        })
        .ok_or_else(stopped)?;
        Ok(Analysis {
            // A position that is not over has a playable column.
            score: columns.iter().flatten().max().copied().unwrap_or(0),
            columns: columns.to_vec(),
            positions,
            from_book,
        })
    }

    /// The scores of the `count` positions `position` makes, in their order (`None` if the
    /// stop triggered first), and the positions explored: solved on `slot` by the caller's
    /// thread and on each of `helpers` by a thread of its own; a helper's slot is given back
    /// as soon as no position is left. `solved` counts the positions solved.
    ///
    /// Each thread takes the next [`chunk`] positions left: a few at a time while many are
    /// left (one atomic step, and one count, for several short solves), one at a time near
    /// the end, so that no thread is left with a long run of them while the others idle.
    #[allow(clippy::too_many_arguments)]
    fn solve_all(
        &self,
        slot: &Slot<'_, W, H, B>,
        helpers: Vec<Slot<'_, W, H, B>>,
        count: usize,
        position: impl Fn(usize) -> Position<W, H, B> + Sync,
        request: Request,
        stop: &Stop,
        solved: &AtomicUsize,
    ) -> (Option<Vec<i32>>, u64) {
        let threads = helpers.len() + 1;
        let next = AtomicUsize::new(0);
        let scores: Vec<AtomicI32> = (0..count).map(|_| AtomicI32::new(0)).collect();
        let failed = AtomicBool::new(false);
        let explored = AtomicU64::new(0);
        let work = |slot: &Slot<'_, W, H, B>| {
            let mut solve = self.start(slot, request, stop);
            'claims: while let Some(claimed) = claim(&next, count, threads) {
                // A search looks at the stop only every few hundred positions explored: many
                // short solves in a row would never look.
                if stop.is_due() {
                    failed.store(true, Ordering::Relaxed);
                    break;
                }
                let done = claimed.len();
                for i in claimed {
                    match solve.score(&position(i), request.strength) {
                        Some(score) => scores[i].store(score, Ordering::Relaxed),
                        None => {
                            failed.store(true, Ordering::Relaxed);
                            break 'claims;
                        }
                    }
                }
                solved.fetch_add(done, Ordering::Relaxed);
            }
            explored.fetch_add(solve.positions, Ordering::Relaxed);
        };
        std::thread::scope(|scope| {
            for helper in helpers {
                let work = &work;
                scope.spawn(move || work(&helper));
            }
            work(slot);
        });
        let scores = (!failed.load(Ordering::Relaxed))
            .then(|| scores.into_iter().map(AtomicI32::into_inner).collect());
        (scores, explored.into_inner())
    }

    /// Up to `most` free slots, without waiting.
    fn take_free_slots(&self, most: usize) -> Vec<Slot<'_, W, H, B>> {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        let take = most.min(free.len());
        let at = free.len() - take;
        free.drain(at..).map(|slot| Slot(slot, self)).collect()
    }

    /// A solve in `slot`, on an isolated view of the table if the request wants it fresh.
    fn start<'a>(
        &'a self,
        slot: &Slot<'_, W, H, B>,
        request: Request,
        stop: &'a Stop,
    ) -> PooledSolve<'a, W, H, B> {
        let view = if request.fresh {
            self.table.isolated_view(slot.0)
        } else {
            self.table.view(slot.0)
        };
        PooledSolve {
            view,
            book: self.book.as_ref(),
            stop,
            positions: 0,
        }
    }

    /// A free slot, waiting for one if need be, or [`Stopped`] if `stop` triggers first.
    fn take_slot(&self, stop: &Stop, started: Instant) -> Result<Slot<'_, W, H, B>, Stopped> {
        // A poisoned list is still a list of free slots: no code panics while holding it.
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(slot) = free.pop() {
                return Ok(Slot(slot, self));
            }
            if stop.is_due() {
                return Err(Stopped {
                    after: started.elapsed(),
                });
            }
            // Wake now and then to look at the stop, which does not signal the condvar.
            free = self
                .freed
                .wait_timeout(free, Duration::from_millis(10))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// The most positions a thread takes at once ([`chunk`]).
const CHUNK_MAX: usize = 16;

/// How many of the `left` positions not yet taken a thread of `threads` takes next: a
/// sixteenth of its share, from 1 to [`CHUNK_MAX`] (guided self-scheduling). On Pons'
/// End-Easy set (microseconds a position) 16 at a time make the shared counter's cost vanish; with
/// few positions left, or few in all (an analysis's columns), one at a time.
fn chunk(left: usize, threads: usize) -> usize {
    (left / (threads.max(1) * 16)).clamp(1, CHUNK_MAX)
}

/// The next positions a thread takes of `count`, from the shared counter `next`, or `None`
/// once none is left (the pool's and [`crate::crew`]'s).
pub(crate) fn claim(
    next: &AtomicUsize,
    count: usize,
    threads: usize,
) -> Option<std::ops::Range<usize>> {
    let mut from = next.load(Ordering::Relaxed);
    loop {
        let left = count.checked_sub(from).filter(|&left| left > 0)?;
        let to = from + chunk(left, threads);
        match next.compare_exchange_weak(from, to, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(from..to),
            Err(now) => from = now,
        }
    }
}

/// Why [`BoardPool::analyze_moves`] gave no analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolError {
    /// The move sequence is not a position of the pool's board that is not over.
    Moves(ParseError),
    /// The solve gave up.
    Stopped(Stopped),
}

/// A [`SolverPool`] of whichever board, as a server holds it: positions come as move
/// sequences and each pool parses them on its own board (`transpo-c4 serve --board`).
pub trait BoardPool: Send + Sync {
    /// The pool's board.
    fn board(&self) -> Board;
    /// Solves that can run at once.
    fn workers(&self) -> usize;
    /// Slots solving now ([`SolverPool::busy`]).
    fn busy(&self) -> usize;
    /// The opening book's positions and depth, if there is a book.
    fn book_size(&self) -> Option<(usize, u32)>;
    /// Whether `moves` (`""` or `"-"` for the empty board) is a position of the board that is
    /// not over.
    fn check(&self, moves: &str) -> Result<(), ParseError>;
    /// [`SolverPool::analyze`] of the position `moves` names.
    fn analyze_moves(
        &self,
        moves: &str,
        request: Request,
        stop: &Stop,
    ) -> Result<Analysis, PoolError>;
}

impl<const W: usize, const H: usize, B: Bitboard> SolverPool<W, H, B> {
    /// The position `moves` names: `""` or `"-"` is the empty board.
    fn parse(moves: &str) -> Result<Position<W, H, B>, ParseError> {
        match moves {
            "" | EMPTY_BOARD => Ok(Position::new()),
            moves => Position::from_moves(moves),
        }
    }
}

impl<const W: usize, const H: usize, B: Bitboard> BoardPool for SolverPool<W, H, B> {
    fn board(&self) -> Board {
        // Every pool's board is one the solver has: positions of it exist.
        Board::new(W, H).unwrap_or(Board::STANDARD)
    }

    fn workers(&self) -> usize {
        self.workers
    }

    fn busy(&self) -> usize {
        SolverPool::busy(self)
    }

    fn book_size(&self) -> Option<(usize, u32)> {
        self.book.as_ref().map(|b| (b.len(), b.depth()))
    }

    fn check(&self, moves: &str) -> Result<(), ParseError> {
        Self::parse(moves).map(|_| ())
    }

    fn analyze_moves(
        &self,
        moves: &str,
        request: Request,
        stop: &Stop,
    ) -> Result<Analysis, PoolError> {
        let pos = Self::parse(moves).map_err(PoolError::Moves)?;
        self.analyze(&pos, request, stop)
            .map_err(PoolError::Stopped)
    }
}

/// A slot taken from a pool, given back when dropped.
struct Slot<'a, const W: usize, const H: usize, B: Bitboard>(usize, &'a SolverPool<W, H, B>);

impl<const W: usize, const H: usize, B: Bitboard> Drop for Slot<'_, W, H, B> {
    fn drop(&mut self) {
        let pool = self.1;
        pool.free
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(self.0);
        pool.freed.notify_one();
    }
}

/// One slot's solves: the view they share and their count of positions.
struct PooledSolve<'a, const W: usize, const H: usize, B: Bitboard> {
    view: ThreadView<'a, W, H, B>,
    book: Option<&'a Book<W, H, B>>,
    stop: &'a Stop,
    positions: u64,
}

impl<const W: usize, const H: usize, B: Bitboard> PooledSolve<'_, W, H, B> {
    /// The score of `pos` (over or not), or `None` if the stop triggered.
    fn score(&mut self, pos: &Position<W, H, B>, strength: Strength) -> Option<i32> {
        if pos.can_win_next() {
            return Some(finish(win_now_score(W * H, pos.moves()), strength));
        }
        let mut search = Search::new(
            Pooled {
                view: &self.view,
                stop: self.stop,
                journal: None,
                team: None,
            },
            self.book,
        );
        let score = search.score(pos, Window::of(strength), |_, _, _, _| {});
        self.positions += search.nodes;
        score.map(|s| finish(*s.start(), strength))
    }
}

/// What takes each bound a [`Journal`] writes down: the position, its bound and its best
/// column if known.
pub type JournalWrite<'a, const W: usize, const H: usize, B> =
    &'a mut dyn FnMut(&Position<W, H, B>, ScoreBound, Option<usize>);

/// Where a pooled solve writes down the bounds it stores of positions far from the end
/// ([`SolverPool::solve_window`]).
pub struct Journal<'a, const W: usize, const H: usize, B: Bitboard> {
    /// Bounds of positions with at most this many stones are written down.
    pub most_moves: u32,
    /// Takes each.
    pub write: JournalWrite<'a, W, H, B>,
}

/// The table as a pooled solve reaches it: shared, watching its [`Stop`], writing down what
/// its journal asks for; in a team of helpers, if helping is on ([`SolverPool::help`]).
struct Pooled<'a, 'j, const W: usize, const H: usize, B: Bitboard> {
    view: &'a ThreadView<'a, W, H, B>,
    stop: &'a Stop,
    journal: Option<Journal<'j, W, H, B>>,
    /// The team of the solve this search is the master of or helps: the stop of either
    /// stops the team.
    team: Option<&'a Team<W, H, B>>,
}

impl<const W: usize, const H: usize, B: Bitboard> Access<W, H, B> for Pooled<'_, '_, W, H, B> {
    const STOPPABLE: bool = true;
    const WEIGHS_SUBTREES: bool = false;
    #[inline]
    fn get(&self, pos: &Position<W, H, B>) -> Option<(ScoreBound, Option<usize>)> {
        self.view.get(pos)
    }
    #[inline]
    fn put(
        &mut self,
        pos: &Position<W, H, B>,
        bound: ScoreBound,
        best: Option<usize>,
        _nodes: u64,
    ) {
        self.view.put(pos, bound, best);
        if let Some(journal) = self.journal.as_mut()
            && pos.moves() <= journal.most_moves
        {
            (journal.write)(pos, bound, best);
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
    fn tick(&mut self, _nodes: u64) -> bool {
        let Some(team) = self.team else {
            return self.stop.is_due();
        };
        if self.stop.is_due() {
            team.stop.store(true, Ordering::Relaxed);
        }
        team.stop.load(Ordering::Relaxed)
    }
}
