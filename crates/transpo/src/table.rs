//! The table: a few verbs over shared, bucketed, lockless memory.
//!
//! A key selects a bucket of `ways` consecutive cells by the high 64 bits of
//! `key × bucket_count` (a 128-bit product), which maps keys evenly onto any bucket count,
//! so a table can use every byte it is given rather than the largest power of two. Entries
//! check the key's low bits, which the index barely uses. Buckets of `ways × cell size = 64`
//! bytes fill exactly one cache line, so a probe costs one memory access.
//!
//! Every thread works through `&Table`: cells are atomics accessed with relaxed ordering,
//! which compiles to plain loads and stores on x86-64 and ARM. Two threads storing into one
//! bucket at once may lose one of the two entries, never mix them up (see [`crate::cell`]).

use crate::{
    Error,
    cell::Cell,
    entry::{Entry, Generation},
    raw::RawCells,
    scheme::Scheme,
    stats::{Counters, Stats, Usage},
};
use std::{
    marker::PhantomData,
    sync::atomic::{AtomicU32, Ordering::Relaxed},
};

mod grow;
mod size;
mod store;

pub use grow::Buckets;
pub use size::{Count, Shape, Size};
pub use store::Stored;

/// The most ways a bucket may have (sixteen 4-byte cells fill a cache line).
pub const MAX_WAYS: usize = 16;

/// How a table replaces entries and what it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// The replacement scheme.
    pub scheme: Scheme,
    /// Time stamping: entries from an earlier search (before the last
    /// [`Table::new_search`]) count as empty slots when storing. They are still found by
    /// [`Table::probe`].
    pub stamping: bool,
    /// Entries per bucket; `None` picks what the scheme requires, or else a full cache line.
    pub ways: Option<usize>,
    /// Whether to keep the [`Stats`] counters (a relaxed atomic add per operation).
    pub counting: bool,
}

impl crate::scheme::Replace for Config {
    /// The configured scheme's [`Scheme::place`], with the configured time stamping.
    #[inline]
    fn place(
        &self,
        slots: &[crate::scheme::Slot],
        new: &crate::scheme::Candidate,
    ) -> crate::scheme::Placement {
        self.scheme.place(slots, new, self.stamping)
    }
}

impl Default for Config {
    /// Depth-and-age replacement with `k = 8`, full cache-line buckets, no counters.
    fn default() -> Self {
        Config {
            scheme: Scheme::DepthAge { k: 8 },
            stamping: false,
            ways: None,
            counting: false,
        }
    }
}

/// A transposition table of entries `E`, shared between threads through `&self`.
///
/// The verbs, on one screen:
///
/// | | |
/// |---|---|
/// | make | [`Table::with_mib`], [`Table::new`] ([`Size`], [`Config`]) |
/// | search | [`Table::probe`], [`Table::store`], [`Table::store_by`] (your own [`Replace`](crate::scheme::Replace) rule), [`Table::prefetch`] |
/// | between searches | [`Table::new_search`], [`Table::generation`], [`Table::hashfull`] |
/// | memory | [`Table::reset`] (size, clear and prefault in one: `setoption Hash`, `ucinewgame`), [`Table::clear`], [`Table::prefault`], [`Table::resize`], [`Table::use_buckets`] |
/// | look | [`Table::shape`] ([`Shape`]), [`Table::stats`], [`Table::take_stats`] ([`Stats`]), [`Table::usage`] ([`Usage`]), [`Table::set_counting`] |
/// | files | [`Table::save`], [`Table::load`] (a writer or reader, or a [`TableFile`]) |
///
/// How many ways and entries a size gives is [`Config::ways_for`] and
/// [`Config::entries_for`].
///
/// ```
/// use transpo::{Bound, ChessEntry, Table};
///
/// let table = Table::<ChessEntry>::with_mib(16)?;
/// let key = 0x463b_9618_1691_fc9c;
/// table.prefetch(key);
/// assert_eq!(table.probe(key), None);
/// let entry = ChessEntry { mv: 796, score: 35, eval: 20, depth: 12, bound: Bound::Exact, pv: true };
/// table.store(key, entry);
/// assert_eq!(table.probe(key), Some(entry));
/// table.new_search();
/// assert_eq!(table.hashfull(), 0); // the entry is from the previous search now
/// # Ok::<(), transpo::Error>(())
/// ```
///
/// [`TableFile`]: crate::TableFile
pub struct Table<E: Entry> {
    cells: RawCells<E::Cell>,
    buckets: usize,
    /// Buckets probes and stores use: a prefix of the memory (see [`Table::use_buckets`]).
    in_use: usize,
    ways: usize,
    config: Config,
    generation: AtomicU32,
    counters: Counters,
    _entry: PhantomData<E>,
}

impl<E: Entry> Table<E> {
    /// A table of `mib` MiB with the default [`Config`]. `mib` may be any integer type
    /// (`u64`, `usize`, `u32`, a literal, ...).
    ///
    /// # Errors
    ///
    /// Only for a size no table can have, or memory the machine will not give:
    /// [`Error::InvalidSize`] for 0 or a negative count, [`Error::TooLarge`] for more than
    /// the machine's physical memory (or the address space), [`Error::Alloc`] when the
    /// system refuses the memory. The default configuration is always valid, so from 1 MiB
    /// up to what the machine can spare it succeeds: an engine whose `Hash` maximum is
    /// within its memory may treat an error as "not enough memory now" and keep its old
    /// table.
    ///
    /// ```
    /// use transpo::{ChessEntry, Error, Table};
    ///
    /// let hash: usize = 16;
    /// let table = Table::<ChessEntry>::with_mib(hash)?;
    /// assert_eq!(table.shape().bytes, 16 << 20);
    /// assert!(matches!(Table::<ChessEntry>::with_mib(0), Err(Error::InvalidSize(_))));
    /// assert!(matches!(Table::<ChessEntry>::with_mib(-4), Err(Error::InvalidSize(_))));
    /// assert!(matches!(Table::<ChessEntry>::with_mib(u64::MAX), Err(Error::TooLarge { .. })));
    /// # Ok::<(), transpo::Error>(())
    /// ```
    pub fn with_mib(mib: impl size::Count) -> Result<Self, Error> {
        Self::new(Size::Mib(size::mib_count(mib)?), Config::default())
    }

    /// A table of the given size and configuration.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for a configuration [`Config::ways_for`] refuses,
    /// [`Error::InvalidSize`] for no MiB or for [`Size::Entries`] that are not whole
    /// buckets ([`Config::entries_for`] rounds a count down to whole buckets), and the
    /// allocation errors.
    pub fn new(size: Size, config: Config) -> Result<Self, Error> {
        let ways = config.ways_for::<E>()?;
        let buckets = Self::buckets_for(size, ways)?;
        let len = buckets
            .checked_mul(ways / <E::Cell as Cell>::SLOTS)
            .ok_or(Error::InvalidSize(format!("{size:?} overflows")))?;
        Ok(Table {
            cells: RawCells::zeroed(len)?,
            buckets,
            in_use: buckets,
            ways,
            config,
            generation: AtomicU32::new(0),
            counters: Counters::default(),
            _entry: PhantomData,
        })
    }

    /// The buckets of `ways` entries a table of `size` has, or why there can be none.
    fn buckets_for(size: Size, ways: usize) -> Result<usize, Error> {
        if let Size::Entries(n) = size
            && (n == 0 || n % ways as u64 != 0)
        {
            return Err(Error::InvalidSize(format!(
                "{n} entries is not a positive multiple of {ways} way(s)"
            )));
        }
        size::whole_buckets::<E>(size, ways)
    }

    /// Cells per bucket: the ways, unless a cell holds several slots.
    #[inline]
    fn cells_per_bucket(&self) -> usize {
        self.ways / <E::Cell as Cell>::SLOTS
    }

    /// The cells of the first `buckets` buckets.
    #[inline]
    fn first_buckets(&self, buckets: usize) -> &[E::Cell] {
        &self.cells.cells()[..buckets * self.cells_per_bucket()]
    }

    /// The cells of the bucket `key` belongs to.
    #[inline]
    fn bucket(&self, key: u64) -> &[E::Cell] {
        let start = self.bucket_index(key) * self.cells_per_bucket();
        &self.cells.cells()[start..start + self.cells_per_bucket()]
    }

    /// Which bucket `key` maps to: the high 64 bits of `key × buckets in use`.
    #[inline]
    pub(crate) fn bucket_index(&self, key: u64) -> usize {
        ((u128::from(key) * self.in_use as u128) >> 64) as usize
    }

    /// The generation as entries store it.
    #[inline]
    fn generation_bits(&self) -> Generation {
        (self.generation.load(Relaxed) & Self::GENERATION_MASK) as Generation
    }

    /// Searches between generation `then` and generation `now`, as entries count them
    /// (modulo `1 << E::GENERATION_BITS`).
    #[inline]
    fn age(now: Generation, then: Generation) -> u8 {
        (u32::from(now.wrapping_sub(then)) & Self::GENERATION_MASK) as u8
    }

    /// The bits of the generation counter that entries keep.
    const GENERATION_MASK: u32 = (1 << E::GENERATION_BITS) - 1;

    /// Looks `key` up: the stored entry, or `None`.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<E> {
        self.count(|c| &c.probes);
        let bucket = self.bucket(key);
        if <E::Cell as Cell>::SLOTS == 1 {
            // One slot a cell (every layout but the dense one): the plain scan.
            for cell in bucket {
                let bits = cell.load(0);
                if E::verifies(bits, key)
                    && let Some((entry, _)) = E::unpack(bits)
                {
                    self.count(|c| &c.hits);
                    return Some(entry);
                }
            }
        } else {
            for bits in slots(bucket) {
                if E::verifies(bits, key)
                    && let Some((entry, _)) = E::unpack(bits)
                {
                    self.count(|c| &c.hits);
                    return Some(entry);
                }
            }
        }
        None
    }

    /// Starts a new search: entries stored before now age by one generation.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Relaxed);
    }

    /// How many times [`Table::new_search`] was called since the table was made, cleared or
    /// resized (wrapping at 2³²; entries only keep its low [`Entry::GENERATION_BITS`]).
    pub fn generation(&self) -> u32 {
        self.generation.load(Relaxed)
    }

    /// Permille of entries written in the current search, sampled over the first 1000
    /// buckets (Stockfish's convention for UCI `hashfull`). Entries without generation bits
    /// count when occupied.
    pub fn hashfull(&self) -> u16 {
        let sample = self.in_use.min(1000);
        let now = self.generation_bits();
        let current = slots(self.first_buckets(sample))
            .filter(|&bits| matches!(E::unpack(bits), Some((_, g)) if Self::age(now, g) == 0))
            .count();
        (current * 1000 / (sample * self.ways)) as u16
    }

    /// Asks the CPU to start loading `key`'s bucket into cache, so that a probe a little
    /// later finds it there. A no-op on targets without a prefetch instruction.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let cell = &self.cells.cells()[self.bucket_index(key) * self.cells_per_bucket()];
            // SAFETY: prefetching is a hint that never faults, and the pointer is to our own
            // live memory anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>((cell as *const E::Cell).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Empties every slot and resets the generation, on several threads for big tables:
    /// [`Table::prefault`] with one thread per core.
    pub fn clear(&self) {
        self.prefault(std::thread::available_parallelism().map_or(1, |n| n.get()));
    }

    /// Empties every slot and resets the generation, writing the memory with up to
    /// `threads` threads (at least one, and one per 32 MiB at most): Stockfish's threaded
    /// clear.
    ///
    /// **Why call it:** a new table costs nothing until it is touched, because the operating
    /// system maps its pages on first write ([`Table::new`] stays lazy, so that a solver or a
    /// short run never pays for memory it does not use). The search that touches them first
    /// pays instead, one page fault per page, on the search's own threads and in the middle
    /// of its time budget: with a 1 GiB table the first search of a game ran measurably slower
    /// than the same search on a warm table (`examples/first_search.rs` and the README give the
    /// numbers). An engine calls `prefault` where it makes or resizes its table (the UCI
    /// `Hash` option) and at `ucinewgame`, with its `Threads` count, so the cost is paid
    /// before the clock runs.
    ///
    /// **What it costs:** one write of every byte of the table, spread over the threads:
    /// roughly the time the kernel takes to zero the pages (a few hundred milliseconds for
    /// 1 GiB on one core of a desktop, less with more threads), once. On a table already
    /// touched it is a plain clear. It empties the table: call it before searching, not
    /// between the searches of a game.
    ///
    /// **What it keeps:** the memory (nothing is reallocated), the buckets in use
    /// ([`Table::use_buckets`]), the configuration and the [`Stats`] counters, which go on
    /// counting from where they were ([`Table::take_stats`] zeroes them). The generation
    /// goes back to 0.
    pub fn prefault(&self, threads: usize) {
        const PER_THREAD_MIN: usize = 32 << 20;
        let cells = self.cells.cells();
        let threads = threads
            .min(self.cells.bytes().div_ceil(PER_THREAD_MIN))
            .max(1);
        if threads == 1 {
            Self::empty(cells);
        } else {
            std::thread::scope(|scope| {
                for chunk in cells.chunks(cells.len().div_ceil(threads)) {
                    scope.spawn(move || Self::empty(chunk));
                }
            });
        }
        self.generation.store(0, Relaxed);
    }

    /// Replaces the table by an empty one of a new size, with the same configuration
    /// (counting on or off included). It always allocates new memory and drops the old,
    /// even for the size the table has: the new table is empty, lazily mapped (call
    /// [`Table::prefault`] before searching), at generation 0, with every bucket in use and
    /// its [`Stats`] counters at zero. On error the table is unchanged. For the UCI `Hash`
    /// option and `ucinewgame`, [`Table::reset`] does all of that in one call and keeps the
    /// memory when the size is the same.
    pub fn resize(&mut self, size: Size) -> Result<(), Error> {
        *self = Self::new(size, self.config)?;
        Ok(())
    }

    /// "Set this size, clear it, prefault it": the one call an engine's `setoption Hash`
    /// and `ucinewgame` need. When `size` gives the buckets the table has, the memory is
    /// kept and emptied in place ([`Table::prefault`] with `threads`); otherwise a table
    /// of the new size replaces it (as [`Table::resize`]) and is prefaulted. Either way the
    /// table is then empty, every bucket in use, at generation 0, touched by `threads`
    /// threads so the first search pays no page faults, with its configuration, and with
    /// its [`Stats`] counters as they were (they count the table's life, not its size;
    /// [`Table::take_stats`] zeroes them). On error (the [`Table::new`] errors for `size`)
    /// the table is unchanged, entries included.
    ///
    /// ```
    /// use transpo::{ChessEntry, Size, Table};
    ///
    /// let (threads, hash_mib): (usize, usize) = (2, 16);
    /// let mut tt = Table::<ChessEntry>::with_mib(8)?;
    /// tt.reset(Size::mib(hash_mib), threads)?; // setoption name Hash value 16
    /// assert_eq!(tt.shape().bytes, 16 << 20);
    /// tt.store(1, ChessEntry { depth: 4, ..ChessEntry::default() });
    /// tt.reset(Size::mib(hash_mib), threads)?; // ucinewgame: the same memory, emptied
    /// assert_eq!(tt.probe(1), None);
    /// # Ok::<(), transpo::Error>(())
    /// ```
    pub fn reset(&mut self, size: Size, threads: usize) -> Result<(), Error> {
        let buckets = Self::buckets_for(size, self.ways)?;
        if buckets != self.buckets {
            let mut fresh = Self::new(size, self.config)?;
            fresh.counters = std::mem::take(&mut self.counters);
            *self = fresh;
        }
        self.in_use = self.buckets;
        self.prefault(threads);
        Ok(())
    }

    /// What the table is: its memory's entries, buckets and bytes, the buckets in use, the
    /// ways per bucket and the configuration it was made with.
    #[inline]
    pub fn shape(&self) -> Shape {
        Shape {
            entries: self.buckets * self.ways,
            buckets: self.buckets,
            buckets_in_use: self.in_use,
            ways: self.ways,
            bytes: self.cells.bytes(),
            config: self.config,
        }
    }

    /// The counters since the table was made or since the last [`Table::take_stats`], left
    /// as they are (all zero unless [`Config::counting`] is on, or [`Table::set_counting`]).
    /// Each counter is read on its own, so a snapshot taken while other threads search may
    /// be a few counts out between counters.
    pub fn stats(&self) -> Stats {
        self.counters.read()
    }

    /// Turns the [`Stats`] counters on or off ([`Config::counting`]) without building a
    /// [`Config`]; the counts so far stay.
    ///
    /// ```
    /// let mut t = transpo::Table::<transpo::ChessEntry>::with_mib(1)?;
    /// t.set_counting(true);
    /// t.probe(42);
    /// assert_eq!((t.stats().probes, t.stats().hits), (1, 0)); // reading does not reset
    /// println!("{}", t.stats()); // probes 1 hits 0 (0.0%) stores 0 overwrites 0 refused 0
    /// # Ok::<(), transpo::Error>(())
    /// ```
    pub fn set_counting(&mut self, on: bool) {
        self.config.counting = on;
    }

    /// How many slots of the buckets in use hold an entry, and how many of those are from
    /// the current search: what an engine's `stats` command prints beside
    /// [`Table::hashfull`]. It reads every slot (a 1 GiB table takes about as long as a
    /// [`Table::clear`]), so call it between searches, not in one; `hashfull` samples 1000
    /// buckets instead.
    pub fn usage(&self) -> Usage {
        let now = self.generation_bits();
        let (mut used, mut current) = (0, 0);
        for bits in slots(self.first_buckets(self.in_use)) {
            if let Some((_, g)) = E::unpack(bits) {
                used += 1;
                current += u64::from(Self::age(now, g) == 0);
            }
        }
        Usage {
            slots: (self.in_use * self.ways) as u64,
            used,
            current,
        }
    }

    /// The counters since the table was made or since the last call, which sets them back
    /// to zero (all zero unless [`Config::counting`] is on). Each counter is read and zeroed
    /// in one atomic step, so a count made meanwhile by another thread goes to this snapshot
    /// or to the next, never to neither.
    pub fn take_stats(&self) -> Stats {
        self.counters.take()
    }

    /// Empties `cells`.
    fn empty(cells: &[E::Cell]) {
        for cell in cells {
            for slot in 0..<E::Cell as Cell>::SLOTS {
                cell.store(slot, <E::Cell as Cell>::EMPTY);
            }
        }
    }

    #[inline]
    fn count(&self, which: impl FnOnce(&Counters) -> &std::sync::atomic::AtomicU64) {
        if self.config.counting {
            which(&self.counters).fetch_add(1, Relaxed);
        }
    }

    /// The raw cells, for persistence.
    #[cfg(any(test, feature = "persist"))]
    pub(crate) fn cells(&self) -> &[E::Cell] {
        self.cells.cells()
    }

    /// Swaps in cells loaded from a file (same length) and their generation.
    #[cfg(feature = "persist")]
    pub(crate) fn adopt(&mut self, cells: RawCells<E::Cell>, generation: u32) {
        debug_assert_eq!(cells.cells().len(), self.buckets * self.cells_per_bucket());
        self.cells = cells;
        self.in_use = self.buckets;
        self.generation.store(generation, Relaxed);
    }

    /// Packed bits of every slot of `key`'s bucket, for tests.
    #[cfg(test)]
    pub(crate) fn bucket_bits(&self, key: u64) -> Vec<crate::entry::Bits<E>> {
        slots(self.bucket(key)).collect()
    }
}

/// Every slot of `cells`, in order.
#[inline]
fn slots<C: Cell>(cells: &[C]) -> impl Iterator<Item = C::Bits> + '_ {
    cells
        .iter()
        .flat_map(|cell| (0..C::SLOTS).map(move |slot| cell.load(slot)))
}

/// Slot `i` of a bucket's `cells`.
#[inline]
fn load_slot<C: Cell>(cells: &[C], i: usize) -> C::Bits {
    cells[i / C::SLOTS].load(i % C::SLOTS)
}

/// Writes slot `i` of a bucket's `cells`.
#[inline]
fn store_slot<C: Cell>(cells: &[C], i: usize, bits: C::Bits) {
    cells[i / C::SLOTS].store(i % C::SLOTS, bits)
}

impl<E: Entry> std::fmt::Debug for Table<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("layout", &E::LAYOUT)
            .field("buckets", &self.buckets)
            .field("in_use", &self.in_use)
            .field("ways", &self.ways)
            .field("bytes", &self.cells.bytes())
            .field("config", &self.config)
            .field("generation", &self.generation())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bound, ChessEntry, CompactEntry, ResearchEntry, SolverEntry, key::SplitMix64};

    pub(super) fn chess(depth: u8) -> ChessEntry {
        ChessEntry {
            mv: u16::from(depth) + 1,
            score: i16::from(depth) * 10,
            eval: -3,
            depth: depth as i8,
            bound: Bound::Exact,
            pv: false,
        }
    }

    pub(super) fn research(depth: u8) -> ResearchEntry {
        ResearchEntry {
            mv: 0,
            score: 0,
            depth,
            bound: Bound::Exact,
            nodes: 1,
        }
    }

    /// Keys that all land in bucket 0 of a table with `buckets` buckets.
    pub(super) fn keys_in_first_bucket(n: u64) -> impl Iterator<Item = u64> {
        (1..=n).map(|i| i * 0x10001)
    }

    /// Issue 60: what `resize`, `prefault` and `reset` keep and what they do not.
    #[test]
    fn reset_keeps_memory_and_counters_of_the_same_size_and_resize_does_not() {
        let mut t = Table::<ChessEntry>::with_mib(1usize).expect("1 MiB");
        t.set_counting(true);
        let memory = |t: &Table<ChessEntry>| t.cells.cells().as_ptr() as usize;
        let fill = |t: &Table<ChessEntry>| {
            t.new_search();
            t.store(7, chess(3));
            assert_eq!(t.probe(7), Some(chess(3)));
        };
        fill(&t);
        assert_eq!(t.use_buckets(Buckets::First(4)), 4);
        let before = memory(&t);
        // The same size: kept and emptied in place, every bucket in use, counts going on.
        t.reset(Size::mib(1u64), 2).expect("same size");
        assert_eq!(memory(&t), before, "no new memory for the same size");
        assert_eq!((t.probe(7), t.generation()), (None, 0));
        assert_eq!(t.shape().buckets_in_use, t.shape().buckets);
        assert_eq!((t.stats().probes, t.stats().stores), (2, 1));
        // Another size: a new table, prefaulted, counters carried over.
        fill(&t);
        t.reset(Size::mib(2i32), 2).expect("2 MiB");
        assert_eq!(t.shape().bytes, 2 << 20);
        assert_eq!((t.probe(7), t.generation()), (None, 0));
        assert_eq!((t.stats().probes, t.stats().stores), (4, 2));
        assert!(t.shape().config.counting, "the configuration stays");
        // A refused size changes nothing, entries included.
        fill(&t);
        assert!(t.reset(Size::mib(-1), 2).is_err());
        assert!(t.reset(Size::Mib(u64::MAX), 2).is_err());
        assert_eq!(t.probe(7), Some(chess(3)));
        // `prefault` keeps the counters; `resize`, even to the same size, starts afresh.
        let probes = t.stats().probes;
        t.prefault(1);
        assert_eq!(t.stats().probes, probes);
        t.store(7, chess(3));
        t.resize(Size::Mib(2)).expect("same size");
        assert_eq!((t.probe(7), t.stats().probes), (None, 1));
        assert!(t.shape().config.counting);
    }

    #[test]
    fn index_uses_the_high_bits_and_covers_every_bucket() {
        let t = Table::<ChessEntry>::new(Size::Entries(4 * 3), Config::default()).expect("small");
        assert_eq!(t.bucket_index(0), 0);
        assert_eq!(t.bucket_index(u64::MAX), 2);
        assert_eq!(t.bucket_index(1 << 63), 1);
        assert_eq!(
            t.bucket_index(0xffff),
            0,
            "low bits alone do not move the index"
        );
    }

    #[test]
    fn hashfull_counts_current_entries_in_the_first_thousand_buckets() {
        let t = Table::<CompactEntry>::new(Size::Entries(8 * 2000), Config::default())
            .expect("2000 buckets");
        assert_eq!(t.hashfull(), 0);
        // One entry in each of the first 1000 buckets: 1/8 of the sample.
        let per_bucket = u64::MAX / 2000 + 1;
        let entry = CompactEntry {
            mv: 0,
            score: 0,
            depth: 1,
            bound: Bound::Upper,
        };
        for b in 0..2000 {
            t.store(b * per_bucket + 7, entry);
        }
        assert_eq!(t.hashfull(), 125);
        t.new_search();
        assert_eq!(t.hashfull(), 0);
        t.store(7, entry);
        assert_eq!(t.hashfull(), 1000 / 8000);
        for i in 0..8 {
            t.store(i + 100, entry);
        }
        assert_eq!(t.hashfull(), 1, "8 of 8000 slots is one permille");
        // Over every slot: bucket 0 is full (its eighth store evicted key 7, the first
        // slot at equal depth and age), the other 1999 buckets keep one old entry each.
        let usage = t.usage();
        assert_eq!(
            (usage.slots, usage.used, usage.current),
            (16_000, 1999 + 8, 8)
        );
    }

    #[test]
    fn clear_and_resize_empty_the_table() {
        let mut t = Table::<ChessEntry>::with_mib(40).expect("40 MiB");
        for key in 0..10_000u64 {
            t.store(key.wrapping_mul(0x9e37_79b9_7f4a_7c15), chess(3));
        }
        t.new_search();
        t.clear();
        assert_eq!(t.generation(), 0);
        assert!((0..10_000u64).all(|k| t.probe(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)).is_none()));
        t.store(5, chess(1));
        t.resize(Size::Mib(2)).expect("2 MiB");
        assert_eq!((t.shape().bytes, t.probe(5)), (2 << 20, None));
        assert!(t.resize(Size::Mib(0)).is_err());
        assert_eq!(t.shape().bytes, 2 << 20, "a failed resize keeps the table");
    }

    #[test]
    fn prefetch_any_key_is_harmless() {
        let t = Table::<SolverEntry>::with_mib(1).expect("1 MiB");
        for key in [0, 1, u64::MAX, 1 << 63] {
            t.prefetch(key);
        }
    }

    /// Pseudo-random keys, reproducible from `seed`.
    pub(super) fn random_keys(n: usize, seed: u64) -> Vec<u64> {
        let mut rng = SplitMix64::new(seed);
        (0..n).map(|_| rng.next_u64()).collect()
    }

    /// A one-slot table of [`ResearchEntry`] made with `config`.
    pub(super) fn one_slot(config: Config) -> Table<ResearchEntry> {
        Table::new(Size::Entries(1), config).expect("one slot")
    }
}
