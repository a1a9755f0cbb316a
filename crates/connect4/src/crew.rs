//! Batches of solves on threads kept between batches, on one shared table that starts small
//! and grows: what Python's `solve_many` calls (`crates/python`), where a call may be 1,000
//! positions solved in a few milliseconds in all.
//!
//! Why not [`SolverPool::solve_each`](crate::pool::SolverPool::solve_each): it starts its
//! helper threads for each batch and joins them at the end. On a loaded machine each start,
//! join and wake can wait a time slice for the scheduler, which is longer than a batch of
//! short solves. Here:
//! - **The caller works.** The calling thread solves positions from the start, as one of the
//!   crew, so a batch never waits for a thread to be scheduled before it begins.
//! - **Nobody is waited for.** The helpers are started once, with the crew, and sleep
//!   between batches; a batch only posts itself and wakes them. Once every position is taken,
//!   a thread out of work solves a position another thread has taken but not finished (its
//!   score is the same, and both share the table, so the second solve is a search with help,
//!   not a waste), and a solve stops as soon as another thread has stored that position's
//!   score. The caller returns when every score is in, whatever the helpers are doing; a
//!   helper late to a batch that is over finds nothing to do.
//! - **The table grows as a solve needs.** Like a [`Solver`](crate::solver::Solver)'s after a
//!   clear, the big table starts at 2 MiB and doubles its buckets, keeping every entry; it
//!   does so when one solve has stored half as many bounds in it as it has buckets. Short
//!   solves (Pons' Begin-Easy set) then probe a table that stays in the cache, however many
//!   of them a batch holds, while a long one grows it to all of its size.
//!   Growing needs the table to itself: the thread that asks stops its solve, every other
//!   thread stops its own within some microseconds, one of them doubles the table, and all
//!   start their positions again. What a stopped solve had finished is in the table, so it
//!   starts again fast. [`Crew::clear`] makes it small again.
//!
//! Why sharing is safe: as in [`crate::pool`], every bound stored comes from a search that
//! finished, so the table holds only true bounds, whoever stored them.

use crate::book::Book;
use crate::bounds::{BoundStore, BoundTable, ScoreBound, TableError, ThreadView};
use crate::pool::{Stopped, claim};
use crate::position::{Bitboard, Position};
use crate::score::{Strength, Window, finish, win_now_score};
use crate::search::{Access, Search};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock, RwLockReadGuard, TryLockError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the caller's `check` runs while it solves ([`Crew::solve_each`]).
pub const CHECK_EVERY: Duration = Duration::from_millis(10);

/// A score not yet known: no position has it (scores are within ±41).
const UNSOLVED: i32 = i32::MIN;

/// The positions of a batch, made on the thread that solves each.
type PositionOf<const W: usize, const H: usize, B> =
    Box<dyn Fn(usize) -> Position<W, H, B> + Send + Sync>;

/// One batch: its positions and what is known of them, shared by the threads that solve it.
struct Job<const W: usize, const H: usize, B: Bitboard> {
    count: usize,
    position: PositionOf<W, H, B>,
    strength: Strength,
    /// The next position not yet taken.
    next: AtomicUsize,
    /// Each position's score, or [`UNSOLVED`].
    scores: Vec<AtomicI32>,
    /// Positions whose score is not in yet.
    left: AtomicUsize,
    /// The caller gave up.
    cancelled: AtomicBool,
    /// A solve asked for the table to grow: every thread stops until it has.
    grow: AtomicBool,
    /// Positions explored by every search.
    explored: AtomicU64,
}

impl<const W: usize, const H: usize, B: Bitboard> Job<W, H, B> {
    /// Whether nothing is left to do: every score is in, or the caller gave up.
    fn over(&self) -> bool {
        self.left.load(Ordering::Acquire) == 0 || self.cancelled.load(Ordering::Relaxed)
    }

    fn solved(&self, i: usize) -> bool {
        self.scores[i].load(Ordering::Acquire) != UNSOLVED
    }

    /// Puts in position `i`'s score, unless another thread did first; returns whether this
    /// call put it in. The caller counts it off [`Job::left`] later ([`Job::count_off`]).
    fn finish(&self, i: usize, score: i32) -> bool {
        self.scores[i]
            .compare_exchange(UNSOLVED, score, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Counts `finished` scores put in off [`Job::left`], and zeroes `finished`. A thread
    /// does it once per chunk of positions taken, not once per position: on Pons' End-Easy
    /// set (microseconds a position) a write per position to the counter, which every thread reads,
    /// moved its cache line between the cores at every position.
    fn count_off(&self, finished: &mut usize) {
        if *finished > 0 {
            self.left.fetch_sub(*finished, Ordering::AcqRel);
            *finished = 0;
        }
    }

    /// Positions whose score is in.
    fn done(&self) -> usize {
        self.count - self.left.load(Ordering::Relaxed)
    }
}

/// What the helpers read: the batch posted last, and whether to quit.
struct Post<const W: usize, const H: usize, B: Bitboard> {
    /// Batches posted so far.
    posted: u64,
    job: Option<Arc<Job<W, H, B>>>,
    closing: bool,
}

/// What the crew's threads share.
struct Shared<const W: usize, const H: usize, B: Bitboard> {
    /// Read by every solving thread; written only to grow or clear it, when no thread solves.
    table: RwLock<BoundTable<W, H, B>>,
    book: Option<Book<W, H, B>>,
    post: Mutex<Post<W, H, B>>,
    posted: Condvar,
    threads: usize,
}

/// Why a [`Crew`] could not be made.
#[derive(Debug)]
pub enum CrewError {
    /// The tables cannot be made at that size.
    Table(TableError),
    /// A helper thread could not be started.
    Thread(std::io::Error),
}

impl std::fmt::Display for CrewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CrewError::Table(e) => e.fmt(f),
            CrewError::Thread(e) => write!(f, "a helper thread: {e}"),
        }
    }
}

impl std::error::Error for CrewError {}

/// Threads that solve batches of positions of the board of `W` columns and `H` rows (7×6
/// unless said otherwise) on one shared table, kept between batches: the caller's thread and
/// `threads - 1` helpers (see the module docs).
pub struct Crew<const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    shared: Arc<Shared<W, H, B>>,
    helpers: Vec<JoinHandle<()>>,
}

impl<const W: usize, const H: usize, B: Bitboard> Crew<W, H, B> {
    /// A crew of `threads` threads (at least 1: the caller's, and a helper for each
    /// other, started now) on a table of `hash_mib` MiB (as [`BoundTable::new`], with a near
    /// table per thread), with `book` for the positions it holds.
    ///
    /// # Errors
    ///
    /// If the tables cannot be made at that size, or a thread cannot be started.
    pub fn new(
        hash_mib: u64,
        threads: usize,
        book: Option<Book<W, H, B>>,
    ) -> Result<Self, CrewError> {
        let threads = threads.max(1);
        let mut table = BoundTable::new(hash_mib).map_err(CrewError::Table)?;
        table.set_helpers(threads - 1).map_err(CrewError::Table)?;
        let shared = Arc::new(Shared {
            table: RwLock::new(table),
            book,
            post: Mutex::new(Post {
                posted: 0,
                job: None,
                closing: false,
            }),
            posted: Condvar::new(),
            threads,
        });
        let mut crew = Crew {
            shared,
            helpers: Vec::new(),
        };
        for view in 1..threads {
            let shared = Arc::clone(&crew.shared);
            let helper = std::thread::Builder::new()
                .name(format!("crew-{view}"))
                .spawn(move || help(&shared, view))
                .map_err(CrewError::Thread)?;
            crew.helpers.push(helper);
        }
        Ok(crew)
    }

    /// Threads that solve a batch, the caller's included.
    pub fn threads(&self) -> usize {
        self.shared.threads
    }

    /// The opening book, if any.
    pub fn book(&self) -> Option<&Book<W, H, B>> {
        self.shared.book.as_ref()
    }

    /// Buckets of the big table in use now: 2^18 after a clear, doubled each time a solve
    /// needed more.
    pub fn buckets_in_use(&self) -> usize {
        self.table().buckets_in_use()
    }

    /// Entries of all the tables.
    pub fn capacity(&self) -> usize {
        self.table().capacity()
    }

    fn table(&self) -> RwLockReadGuard<'_, BoundTable<W, H, B>> {
        // A poisoned table is still a table of true bounds: a store is one write of an
        // entry, and no code panics while it holds the lock.
        self.shared
            .table
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Forgets what the table holds, in O(1) (a new epoch of keys), and makes it small again.
    /// Waits for a helper still in a batch that is over to leave it (some microseconds).
    pub fn clear(&mut self) {
        self.shared
            .table
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// The scores of `count` positions, in their order, where `position(i)` makes the `i`th
    /// (none of them over: [`Position::from_moves`] makes only such positions), and the
    /// positions explored; or [`Stopped`] if `check` said to stop.
    ///
    /// The caller's thread solves with the helpers (module docs) and calls `check` with the
    /// count of positions solved so far about every [`CHECK_EVERY`] while the batch takes
    /// longer than that: between positions and from within a search. When it returns `false`
    /// every thread stops within some microseconds, stores nothing more, and this returns
    /// [`Stopped`] at once.
    pub fn solve_each(
        &self,
        count: usize,
        position: impl Fn(usize) -> Position<W, H, B> + Send + Sync + 'static,
        strength: Strength,
        mut check: impl FnMut(usize) -> bool,
    ) -> Result<(Vec<i32>, u64), Stopped> {
        let started = Instant::now();
        if count == 0 {
            return Ok((Vec::new(), 0));
        }
        let job = Arc::new(Job {
            count,
            position: Box::new(position),
            strength,
            next: AtomicUsize::new(0),
            scores: (0..count).map(|_| AtomicI32::new(UNSOLVED)).collect(),
            left: AtomicUsize::new(count),
            cancelled: AtomicBool::new(false),
            grow: AtomicBool::new(false),
            explored: AtomicU64::new(0),
        });
        let posted = self.shared.threads > 1 && count > 1;
        if posted {
            let mut post = self.post();
            post.posted += 1;
            post.job = Some(Arc::clone(&job));
            drop(post);
            self.shared.posted.notify_all();
        }
        let mut checker = Checker {
            check: &mut check,
            last: started,
            between: 0,
        };
        work(&self.shared, &job, 0, Some(&mut checker));
        if posted {
            // The batch is over: its memory need not wait for the next one.
            let mut post = self.post();
            if post.job.as_ref().is_some_and(|j| Arc::ptr_eq(j, &job)) {
                post.job = None;
            }
        }
        if job.cancelled.load(Ordering::Relaxed) {
            return Err(Stopped {
                after: started.elapsed(),
            });
        }
        let scores: Vec<i32> = job
            .scores
            .iter()
            .map(|s| s.load(Ordering::Acquire))
            .collect();
        // The caller leaves only once every score is in, or cancelled (above).
        debug_assert!(scores.iter().all(|&s| s != UNSOLVED));
        Ok((scores, job.explored.load(Ordering::Relaxed)))
    }

    fn post(&self) -> std::sync::MutexGuard<'_, Post<W, H, B>> {
        // A poisoned post is still a post: no code panics while holding it.
        self.shared
            .post
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Drop for Crew<W, H, B> {
    /// Stops the helpers (a batch they are still in is over) and waits for them to end.
    fn drop(&mut self) {
        let mut post = self.post();
        post.closing = true;
        if let Some(job) = post.job.take() {
            job.cancelled.store(true, Ordering::Relaxed);
        }
        drop(post);
        self.shared.posted.notify_all();
        for helper in self.helpers.drain(..) {
            // A helper that panicked has nothing left to clean up.
            let _ = helper.join();
        }
    }
}

/// A helper's life: wait for a batch, work on it, wait for the next, until the crew closes.
fn help<const W: usize, const H: usize, B: Bitboard>(shared: &Shared<W, H, B>, view: usize) {
    let mut seen = 0;
    loop {
        let job = {
            let mut post = shared.post.lock().unwrap_or_else(PoisonError::into_inner);
            loop {
                if post.closing {
                    return;
                }
                if post.posted != seen {
                    seen = post.posted;
                    if let Some(job) = &post.job {
                        break Arc::clone(job);
                    }
                }
                post = shared
                    .posted
                    .wait(post)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        work(shared, &job, view, None);
    }
}

/// The caller's `check`, run about every [`CHECK_EVERY`].
struct Checker<'c> {
    check: &'c mut dyn FnMut(usize) -> bool,
    last: Instant,
    /// Calls of [`Checker::poll_between`].
    between: u32,
}

impl Checker<'_> {
    /// [`Checker::poll`] between positions, which looks at the clock every 16th time only:
    /// for positions solved in microseconds, reading it each time showed in the profile
    /// (measured: docs/connect4/python.md, 2026-11-28, “solve_many on a crew”).
    fn poll_between<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        job: &Job<W, H, B>,
    ) -> bool {
        self.between = self.between.wrapping_add(1);
        self.between.is_multiple_of(16) && self.poll(job)
    }

    /// Runs the check if it is due; on `false`, cancels `job`. Returns whether it cancelled.
    fn poll<const W: usize, const H: usize, B: Bitboard>(&mut self, job: &Job<W, H, B>) -> bool {
        if self.last.elapsed() < CHECK_EVERY {
            return false;
        }
        self.last = Instant::now();
        if (self.check)(job.done()) {
            return false;
        }
        job.cancelled.store(true, Ordering::Relaxed);
        true
    }
}

/// Waits, holding no lock, until the table has grown for `job` (or the job is over), growing
/// it if this thread gets it to itself first; then reads the table.
fn read_table<'s, const W: usize, const H: usize, B: Bitboard>(
    shared: &'s Shared<W, H, B>,
    job: &Job<W, H, B>,
    checker: &mut Option<&mut Checker<'_>>,
) -> RwLockReadGuard<'s, BoundTable<W, H, B>> {
    loop {
        while job.grow.load(Ordering::Acquire) && !job.over() {
            let table = match shared.table.try_write() {
                Ok(table) => Some(table),
                Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
                Err(TryLockError::WouldBlock) => None,
            };
            if let Some(mut table) = table {
                // Another thread may have grown it between the look and the lock.
                if job.grow.load(Ordering::Acquire) {
                    // Stores that reach the next growth point: the table doubles once.
                    if let Some(stores) = table.stores_before_growth() {
                        table.count_shared_stores(stores);
                    }
                    job.grow.store(false, Ordering::Release);
                }
                break;
            }
            // Some thread still solves: it stops within microseconds, once it runs.
            if let Some(checker) = checker.as_deref_mut() {
                checker.poll(job);
            }
            std::thread::yield_now();
        }
        let table = shared.table.read().unwrap_or_else(PoisonError::into_inner);
        if !job.grow.load(Ordering::Acquire) || job.over() {
            return table;
        }
    }
}

/// One thread's work on `job` through view `view` of the table (0 the caller's, which
/// `checker` belongs to): positions from the shared counter, then those taken but not
/// finished, until every score is in or the job is cancelled.
fn work<const W: usize, const H: usize, B: Bitboard>(
    shared: &Shared<W, H, B>,
    job: &Job<W, H, B>,
    view: usize,
    mut checker: Option<&mut Checker<'_>>,
) {
    let mut table = read_table(shared, job, &mut checker);
    let mut taken = 0..0;
    // A position whose solve stopped for the table to grow, to start again.
    let mut again = None;
    // Positions below this one are solved (once the counter is spent).
    let mut unsolved_from = 0;
    let mut explored = 0;
    // Scores this thread put in, not yet counted off `job.left`.
    let mut finished = 0;
    loop {
        if job.over() || checker.as_deref_mut().is_some_and(|c| c.poll_between(job)) {
            break;
        }
        if job.grow.load(Ordering::Acquire) {
            drop(table);
            table = read_table(shared, job, &mut checker);
            continue;
        }
        let i = match again.take().or_else(|| taken.next()) {
            Some(i) => i,
            None => {
                job.count_off(&mut finished);
                if let Some(claimed) = claim(&job.next, job.count, shared.threads) {
                    taken = claimed;
                    continue;
                }
                // Every position is taken: help with one not finished yet.
                match (unsolved_from..job.count).find(|&i| !job.solved(i)) {
                    Some(i) => {
                        unsolved_from = i;
                        i
                    }
                    None => break,
                }
            }
        };
        if job.solved(i) {
            continue;
        }
        let far_view = table.view(view);
        let threshold = table.stores_before_growth();
        let access = Crewed {
            view: &far_view,
            job,
            index: i,
            far_stores: 0,
            threshold: threshold.unwrap_or(u64::MAX),
            checker: checker.as_deref_mut(),
        };
        let pos = (job.position)(i);
        let score = if pos.can_win_next() {
            Some(finish(win_now_score(W * H, pos.moves()), job.strength))
        } else {
            let mut search = Search::new(access, shared.book.as_ref());
            let score = search.score(&pos, Window::of(job.strength), |_, _, _, _| {});
            explored += search.nodes;
            score.map(|s| finish(*s.start(), job.strength))
        };
        match score {
            Some(score) => finished += usize::from(job.finish(i, score)),
            // Stopped: the job is over or cancelled, another thread solved `i`, or the
            // table must grow, after which `i` starts again.
            None if !job.over() && !job.solved(i) => again = Some(i),
            None => {}
        }
    }
    job.count_off(&mut finished);
    job.explored.fetch_add(explored, Ordering::Relaxed);
}

/// The table as a crew's search reaches it: shared; stopping when the job is over, when
/// another thread has solved its position, when the table must grow (which its own stores
/// may ask for), or when the caller's check says so.
struct Crewed<'a, 'c, const W: usize, const H: usize, B: Bitboard> {
    view: &'a ThreadView<'a, W, H, B>,
    job: &'a Job<W, H, B>,
    /// The position solved.
    index: usize,
    /// Stores into the big table by this solve.
    far_stores: u64,
    /// Stores into the big table after which this solve asks for it to grow.
    threshold: u64,
    checker: Option<&'a mut Checker<'c>>,
}

impl<const W: usize, const H: usize, B: Bitboard> Access<W, H, B> for Crewed<'_, '_, W, H, B> {
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
        if self.view.put(pos, bound, best) {
            self.far_stores += 1;
            if self.far_stores == self.threshold {
                self.job.grow.store(true, Ordering::Release);
            }
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
        self.job.over()
            || self.job.grow.load(Ordering::Relaxed)
            || self.job.solved(self.index)
            || self
                .checker
                .as_deref_mut()
                .is_some_and(|c| c.poll(self.job))
    }
}
