//! The table's memory and the verbs an engine calls on it: make, probe, prefetch, age,
//! fill, empty and resize ([`Table::store`] is in `store.rs`, [`Table::save`] and
//! [`Table::load`] in the `persist` module).

use super::{
    config::{Config, default_ways},
    size::{Count, Size, mib_count, whole_buckets},
};
use crate::{
    cell::Cell,
    entry::{Entry, Generation},
    error::Error,
    raw::RawCells,
    stats::Counters,
};
use std::{
    marker::PhantomData,
    sync::atomic::{AtomicU32, Ordering::Relaxed},
};

/// A transposition table of entries `E`, shared between threads through `&self`.
///
/// Its methods are what an engine calls, on one screen:
///
/// | | |
/// |---|---|
/// | make | [`Table::with_mib`], [`Table::new`] ([`Size`], [`Config`]) |
/// | search | [`Table::prefetch`], [`Table::probe`], [`Table::store`] |
/// | between searches | [`Table::new_search`] (at `go`), [`Table::hashfull`] (`info hashfull`) |
/// | memory | [`Table::resize`] (size, clear and prefault in one: `setoption Hash`), [`Table::clear`] (`ucinewgame`, `Clear Hash`), [`Table::prefault`] (the same with the engine's `Threads`) |
/// | files | [`Table::save`], [`Table::load`] (a writer or reader, or a [`TableFile`]; feature `persist`) |
///
/// What a lab measures and steers besides (counters, fill, shape, the buckets in use, a
/// replacement rule of its own, the generation) is the [`Instrumented`] trait, which the
/// lab imports. How many ways and entries a size gives is [`Config::ways_for`] and
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
/// [`TableFile`]: crate::persist::TableFile
/// [`Instrumented`]: super::Instrumented
pub struct Table<E: Entry> {
    /// The memory: `buckets × ways` slots, in cells.
    pub(super) cells: RawCells<E::Cell>,
    /// Buckets the memory holds.
    pub(super) buckets: usize,
    /// Buckets probes and stores use: a prefix of the memory (see
    /// [`Instrumented::use_buckets`](super::Instrumented::use_buckets)).
    pub(super) in_use: usize,
    /// Slots per bucket.
    pub(super) ways: usize,
    /// What the table was made with (counting may be turned on and off since).
    pub(super) config: Config,
    /// Searches since the table was made or emptied; entries keep its low bits.
    pub(super) generation: AtomicU32,
    /// The [`Stats`](crate::stats::Stats) counters.
    pub(super) counters: Counters,
    _entry: PhantomData<E>,
}

impl<E: Entry> Table<E> {
    /// Entries per bucket when neither the configuration nor its scheme says: as many cells
    /// of `E` as fill a cache line (4 [`ChessEntry`](crate::ChessEntry), 2
    /// [`ResearchEntry`](crate::entry::ResearchEntry), 16
    /// [`SolverEntry`](crate::entry::SolverEntry)), so that a probe reads one line.
    pub const DEFAULT_WAYS: usize = default_ways::<E>();

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
    /// assert_eq!(table.hashfull(), 0);
    /// assert!(matches!(Table::<ChessEntry>::with_mib(0), Err(Error::InvalidSize(_))));
    /// assert!(matches!(Table::<ChessEntry>::with_mib(-4), Err(Error::InvalidSize(_))));
    /// assert!(matches!(Table::<ChessEntry>::with_mib(u64::MAX), Err(Error::TooLarge { .. })));
    /// # Ok::<(), transpo::Error>(())
    /// ```
    pub fn with_mib(mib: impl Count) -> Result<Self, Error> {
        Self::new(Size::Mib(mib_count(mib)?), Config::default())
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
        whole_buckets::<E>(size, ways)
    }

    /// Cells per bucket: the ways, unless a cell holds several slots.
    #[inline]
    pub(super) fn cells_per_bucket(&self) -> usize {
        self.ways / <E::Cell as Cell>::SLOTS
    }

    /// The cells of the first `buckets` buckets.
    #[inline]
    pub(super) fn first_buckets(&self, buckets: usize) -> &[E::Cell] {
        &self.cells.cells()[..buckets * self.cells_per_bucket()]
    }

    /// The cells of the bucket `key` belongs to.
    #[inline]
    pub(super) fn bucket(&self, key: u64) -> &[E::Cell] {
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
    pub(super) fn generation_bits(&self) -> Generation {
        (self.generation.load(Relaxed) & Self::GENERATION_MASK) as Generation
    }

    /// Searches between generation `then` and generation `now`, as entries count them
    /// (modulo `1 << E::GENERATION_BITS`).
    #[inline]
    pub(super) fn age(now: Generation, then: Generation) -> u8 {
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
    /// numbers). An engine calls `prefault` where it makes its table and at `ucinewgame`, with
    /// its `Threads` count, so the cost is paid before the clock runs ([`Table::resize`]
    /// prefaults the table it sets up).
    ///
    /// **What it costs:** one write of every byte of the table, spread over the threads:
    /// roughly the time the kernel takes to zero the pages (a few hundred milliseconds for
    /// 1 GiB on one core of a desktop, less with more threads), once. On a table already
    /// touched it is a plain clear. It empties the table: call it before searching, not
    /// between the searches of a game.
    ///
    /// **What it keeps:** the memory (nothing is reallocated), the buckets in use
    /// ([`Instrumented::use_buckets`](super::Instrumented::use_buckets)), the configuration
    /// and the [`Stats`](crate::stats::Stats) counters, which go on counting from where they
    /// were. The generation goes back to 0.
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

    /// "Set this size, clear it, prefault it": the one call an engine's `setoption Hash`
    /// needs. When `size` gives the buckets the table has, the memory is kept and emptied
    /// in place ([`Table::prefault`] with `threads`); otherwise a new table of `size`, with
    /// the same configuration, replaces it and is prefaulted. Either way the table is then
    /// empty, every bucket in use, at generation 0, touched by `threads` threads so the
    /// first search pays no page faults, with its configuration, and with its
    /// [`Stats`](crate::stats::Stats) counters as they were (they count the table's life, not
    /// its size). On error (the [`Table::new`] errors for `size`) the table is unchanged,
    /// entries included.
    ///
    /// ```
    /// use transpo::{ChessEntry, Size, Table};
    ///
    /// let (threads, hash_mib): (usize, usize) = (2, 16);
    /// let mut tt = Table::<ChessEntry>::with_mib(8)?;
    /// tt.resize(Size::mib(hash_mib), threads)?; // setoption name Hash value 16
    /// tt.store(1, ChessEntry { depth: 4, ..ChessEntry::default() });
    /// tt.resize(Size::mib(hash_mib), threads)?; // the same size: the same memory, emptied
    /// assert_eq!(tt.probe(1), None);
    /// assert!(tt.resize(Size::mib(0), threads).is_err()); // refused: the table stays
    /// # Ok::<(), transpo::Error>(())
    /// ```
    pub fn resize(&mut self, size: Size, threads: usize) -> Result<(), Error> {
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

    /// Empties `cells`.
    pub(super) fn empty(cells: &[E::Cell]) {
        for cell in cells {
            for slot in 0..<E::Cell as Cell>::SLOTS {
                cell.store(slot, <E::Cell as Cell>::EMPTY);
            }
        }
    }

    /// Adds one to the counter `which` picks, when counting is on.
    #[inline]
    pub(super) fn count(&self, which: impl FnOnce(&Counters) -> &std::sync::atomic::AtomicU64) {
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
pub(super) fn slots<C: Cell>(cells: &[C]) -> impl Iterator<Item = C::Bits> + '_ {
    cells
        .iter()
        .flat_map(|cell| (0..C::SLOTS).map(move |slot| cell.load(slot)))
}

/// Slot `i` of a bucket's `cells`.
#[inline]
pub(super) fn load_slot<C: Cell>(cells: &[C], i: usize) -> C::Bits {
    cells[i / C::SLOTS].load(i % C::SLOTS)
}

/// Writes slot `i` of a bucket's `cells`.
#[inline]
pub(super) fn store_slot<C: Cell>(cells: &[C], i: usize, bits: C::Bits) {
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
            .field("generation", &self.generation.load(Relaxed))
            .finish()
    }
}
