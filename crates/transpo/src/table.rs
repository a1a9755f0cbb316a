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
    raw::{CACHE_LINE, RawCells},
    scheme::{Candidate, Placement, Scheme, Slot},
    stats::{Counters, Stats},
};
use std::{
    marker::PhantomData,
    sync::atomic::{AtomicU32, Ordering::Relaxed},
};

/// The most ways a bucket may have (sixteen 4-byte cells fill a cache line).
pub const MAX_WAYS: usize = 16;

/// How big a table is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// As many buckets as fit in this many MiB (at least 1).
    Mib(u64),
    /// Exactly this many entries (a multiple of the number of ways), as a lab needs.
    Entries(u64),
}

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

/// What a [`Table::store`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// The entry went into an empty slot.
    Empty,
    /// The entry replaced an older entry for the same position.
    Updated,
    /// The entry replaced an entry for a different position (a collision).
    Overwrote,
    /// The scheme kept what the bucket held; the entry was dropped.
    Refused,
}

/// A transposition table of entries `E`, shared between threads through `&self`.
///
/// ```
/// use transpo::{Bound, ChessEntry, Table};
///
/// let table = Table::<ChessEntry>::with_mib(16)?;
/// let key = 0x463b_9618_1691_fc9c;
/// table.prefetch(key);
/// assert_eq!(table.probe(key), None);
/// let entry = ChessEntry { mv: 796, score: 35, eval: 20, depth: 12, bound: Bound::Exact };
/// table.store(key, entry);
/// assert_eq!(table.probe(key), Some(entry));
/// table.new_search();
/// assert_eq!(table.hashfull(), 0); // the entry is from the previous search now
/// # Ok::<(), transpo::Error>(())
/// ```
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
    /// A table of `mib` MiB with the default [`Config`].
    pub fn with_mib(mib: u64) -> Result<Self, Error> {
        Self::new(Size::Mib(mib), Config::default())
    }

    /// A table of the given size and configuration.
    pub fn new(size: Size, config: Config) -> Result<Self, Error> {
        let ways = Self::ways_for(&config)?;
        let buckets = Self::buckets_for(size, ways)?;
        let len = buckets
            .checked_mul(ways)
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

    fn ways_for(config: &Config) -> Result<usize, Error> {
        let natural = (CACHE_LINE / <E::Cell as Cell>::BYTES).clamp(1, MAX_WAYS);
        let ways = config
            .ways
            .or(config.scheme.required_ways())
            .unwrap_or(natural);
        if !(1..=MAX_WAYS).contains(&ways) {
            return Err(Error::Config(format!(
                "ways must be 1 to {MAX_WAYS}, not {ways}"
            )));
        }
        if let Some(required) = config.scheme.required_ways()
            && required != ways
        {
            return Err(Error::Config(format!(
                "scheme {} needs {required} way(s) per bucket, not {ways}",
                config.scheme
            )));
        }
        Ok(ways)
    }

    fn buckets_for(size: Size, ways: usize) -> Result<usize, Error> {
        let bucket_bytes = (ways * <E::Cell as Cell>::BYTES) as u64;
        let buckets = match size {
            Size::Mib(0) => {
                return Err(Error::InvalidSize("a table needs at least 1 MiB".into()));
            }
            Size::Mib(mib) => mib
                .checked_mul(1 << 20)
                .map(|bytes| bytes / bucket_bytes)
                .ok_or(Error::TooLarge {
                    bytes: u64::MAX,
                    limit: crate::raw::physical_memory(),
                })?,
            Size::Entries(n) if n == 0 || n % ways as u64 != 0 => {
                return Err(Error::InvalidSize(format!(
                    "{n} entries is not a positive multiple of {ways} way(s)"
                )));
            }
            Size::Entries(n) => n / ways as u64,
        };
        usize::try_from(buckets).map_err(|_| Error::TooLarge {
            bytes: u64::MAX,
            limit: crate::raw::physical_memory(),
        })
    }

    /// The bucket `key` belongs to.
    #[inline]
    fn bucket(&self, key: u64) -> &[E::Cell] {
        let start = self.bucket_index(key) * self.ways;
        &self.cells.cells()[start..start + self.ways]
    }

    /// Which bucket `key` maps to: the high 64 bits of `key × buckets in use`.
    #[inline]
    pub fn bucket_index(&self, key: u64) -> usize {
        ((u128::from(key) * self.in_use as u128) >> 64) as usize
    }

    /// The generation as entries store it.
    #[inline]
    fn generation_bits(&self) -> Generation {
        (self.generation.load(Relaxed) & Self::generation_mask()) as Generation
    }

    #[inline]
    const fn generation_mask() -> u32 {
        (1u32 << E::GENERATION_BITS) - 1
    }

    /// Looks `key` up: the stored entry, or `None`.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<E> {
        self.count(|c| &c.probes);
        for cell in self.bucket(key) {
            let bits = cell.load();
            if E::verifies(bits, key)
                && let Some((entry, _)) = E::unpack(bits)
            {
                self.count(|c| &c.hits);
                return Some(entry);
            }
        }
        None
    }

    /// Offers `entry` for `key` to the bucket; the scheme decides whether and where it goes.
    #[inline]
    pub fn store(&self, key: u64, entry: E) -> Stored {
        if self.ways == 1 && self.config.scheme == Scheme::New {
            return self.store_direct(key, entry);
        }
        if self.ways == 2 && matches!(self.config.scheme, Scheme::TwoDeep | Scheme::TwoBig1) {
            return self.store_two_level(key, entry);
        }
        self.store_general(key, entry)
    }

    /// [`Table::store`] through the scheme's [`Scheme::place`], for any configuration (the
    /// fast paths must agree with it; the tests check that they do).
    #[inline]
    fn store_general(&self, key: u64, entry: E) -> Stored {
        // Scratch arrays sized for the bucket, so a 4-way store does not fill 16 slots.
        match self.ways {
            1 => self.store_with::<1>(key, entry),
            2 => self.store_with::<2>(key, entry),
            3 | 4 => self.store_with::<4>(key, entry),
            5..=8 => self.store_with::<8>(key, entry),
            _ => self.store_with::<MAX_WAYS>(key, entry),
        }
    }

    /// [`Table::store`] for a one-way, always-replace table (a solver's usual table): what
    /// [`Scheme::New`] decides, without the general bucket scan (measured: 6% of a Connect
    /// Four solve went to that scan).
    #[inline]
    fn store_direct(&self, key: u64, entry: E) -> Stored {
        let cell = &self.bucket(key)[0];
        let old = cell.load();
        cell.store(entry.pack(key, self.generation_bits()));
        self.tally(Self::displaced(old, key))
    }

    /// What storing `key` over a slot holding `bits` does to that slot.
    #[inline]
    fn displaced(bits: crate::entry::Bits<E>, key: u64) -> Stored {
        match E::unpack(bits) {
            None => Stored::Empty,
            Some(_) if E::verifies(bits, key) => Stored::Updated,
            Some(_) => Stored::Overwrote,
        }
    }

    /// [`Table::store`] for TWODEEP and TWOBIG1 in two-way buckets: what [`Scheme::place`]
    /// decides, reading the second slot only when the first holds another position.
    #[inline]
    fn store_two_level(&self, key: u64, entry: E) -> Stored {
        let bucket = self.bucket(key);
        let now = self.generation_bits();
        let packed = entry.pack(key, now);
        let first_bits = bucket[0].load();
        let outcome = match E::unpack(first_bits) {
            None => Stored::Empty,
            Some(_) if E::verifies(first_bits, key) => Stored::Updated,
            Some((_, generation))
                if self.config.stamping
                    && (u32::from(now.wrapping_sub(generation)) & Self::generation_mask()) != 0 =>
            {
                // From an earlier search: as good as empty, with time stamping.
                Stored::Overwrote
            }
            Some((first, _)) => {
                let goes_first = match self.config.scheme {
                    Scheme::TwoBig1 => entry.nodes() >= first.nodes(),
                    _ => entry.depth() >= first.depth(),
                };
                let displaced = Self::displaced(bucket[1].load(), key);
                if goes_first {
                    bucket[1].store(first_bits);
                    bucket[0].store(packed);
                } else {
                    bucket[1].store(packed);
                }
                return self.tally(displaced);
            }
        };
        bucket[0].store(packed);
        self.tally(outcome)
    }

    /// Counts a store's outcome (when counting is on) and returns it.
    #[inline]
    fn tally(&self, outcome: Stored) -> Stored {
        self.count(|c| match outcome {
            Stored::Refused => &c.refused,
            _ => &c.stores,
        });
        if outcome == Stored::Overwrote {
            self.count(|c| &c.overwrites);
        }
        outcome
    }

    /// [`Table::store`] with scratch room for `N ≥ ways` slots.
    #[inline]
    fn store_with<const N: usize>(&self, key: u64, entry: E) -> Stored {
        let bucket = self.bucket(key);
        let now = self.generation_bits();
        let mut bits = [<E::Cell as Cell>::EMPTY; N];
        let mut slots = [Slot::EMPTY; N];
        for ((cell, bits), slot) in bucket.iter().zip(&mut bits).zip(&mut slots) {
            *bits = cell.load();
            if let Some((old, generation)) = E::unpack(*bits) {
                *slot = Slot {
                    occupied: true,
                    same_key: E::verifies(*bits, key),
                    depth: old.depth(),
                    nodes: old.nodes(),
                    bound: old.bound(),
                    age: (u32::from(now.wrapping_sub(generation)) & Self::generation_mask()) as u8,
                };
            }
        }
        let slots = &slots[..self.ways];
        let candidate = Candidate {
            depth: entry.depth(),
            nodes: entry.nodes(),
            bound: entry.bound(),
        };
        let packed = entry.pack(key, now);
        let outcome = match self
            .config
            .scheme
            .place(slots, &candidate, self.config.stamping)
        {
            Placement::Refuse => Stored::Refused,
            Placement::Replace(i) => {
                bucket[i].store(packed);
                Self::outcome(&slots[i])
            }
            Placement::PushFront => {
                bucket[1].store(bits[0]);
                bucket[0].store(packed);
                // The dropped entry is the second slot's; the first one only moved.
                Self::outcome(&slots[1])
            }
        };
        self.tally(outcome)
    }

    fn outcome(displaced: &Slot) -> Stored {
        match (displaced.occupied, displaced.same_key) {
            (false, _) => Stored::Empty,
            (true, true) => Stored::Updated,
            (true, false) => Stored::Overwrote,
        }
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
        let cells = &self.cells.cells()[..sample * self.ways];
        let current = cells
            .iter()
            .filter(|cell| matches!(E::unpack(cell.load()), Some((_, g)) if g == now))
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
            let cell = &self.cells.cells()[self.bucket_index(key) * self.ways];
            // SAFETY: prefetching is a hint that never faults, and the pointer is to our own
            // live memory anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>((cell as *const E::Cell).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Empties every slot and resets the generation, on several threads for big tables.
    pub fn clear(&self) {
        const PER_THREAD_MIN: usize = 32 << 20;
        let cells = self.cells.cells();
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(self.cells.bytes().div_ceil(PER_THREAD_MIN))
            .max(1);
        let clear =
            |chunk: &[E::Cell]| chunk.iter().for_each(|c| c.store(<E::Cell as Cell>::EMPTY));
        if threads == 1 {
            clear(cells);
        } else {
            std::thread::scope(|scope| {
                for chunk in cells.chunks(cells.len().div_ceil(threads)) {
                    scope.spawn(move || clear(chunk));
                }
            });
        }
        self.generation.store(0, Relaxed);
    }

    /// Replaces the table by an empty one of a new size. On error the table is unchanged.
    pub fn resize(&mut self, size: Size) -> Result<(), Error> {
        *self = Self::new(size, self.config)?;
        Ok(())
    }

    /// Number of entries the table's memory holds.
    pub fn capacity(&self) -> usize {
        self.buckets * self.ways
    }

    /// Number of buckets the table's memory holds.
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// Buckets that probes and stores use: all of them unless [`Table::use_buckets`] or
    /// [`Table::grow`] said otherwise.
    pub fn buckets_in_use(&self) -> usize {
        self.in_use
    }

    /// Makes probes and stores use only the first `n` buckets, and empties those: the table
    /// forgets everything, at the cost of clearing `n` buckets rather than all of them.
    ///
    /// Why: a small problem solved in a big table pays a cache miss for nearly every probe,
    /// because its few entries are spread over all the memory; kept in the first `n` buckets
    /// they stay in the cache. Start small and [`Table::grow`] as the search explores more
    /// positions. (A solver that needs exact keys, like [`crate::ExactEntry`], must keep `n`
    /// at or above its minimum bucket count.)
    ///
    /// # Errors
    ///
    /// [`Error::InvalidSize`] unless `1 ≤ n ≤` [`Table::buckets`]; the table is then unchanged.
    pub fn use_buckets(&mut self, n: usize) -> Result<(), Error> {
        if !(1..=self.buckets).contains(&n) {
            return Err(Error::InvalidSize(format!(
                "{n} buckets in use, the table has 1 to {}",
                self.buckets
            )));
        }
        self.in_use = n;
        Self::empty(&self.cells.cells()[..n * self.ways]);
        Ok(())
    }

    /// Doubles the buckets in use, or goes up to all of them, and returns the new count.
    ///
    /// When the count was a power of two and doubles, every entry moves to its bucket under
    /// the new count if the entry type knows the key bit that decides it
    /// ([`Entry::key_bit`]; [`crate::ExactEntry`] does), and is dropped otherwise: with
    /// `2^k` buckets in use a key's bucket is its top `k` bits, so bucket `i` splits into
    /// `2i` and `2i + 1` by key bit `63 − k`. Any other growth empties the buckets now in use.
    /// Costs one pass over the buckets that were in use.
    pub fn grow(&mut self) -> usize {
        let old = self.in_use;
        let new = old.saturating_mul(2).min(self.buckets);
        let ways = self.ways;
        let cells = self.cells.cells();
        if new == 2 * old && old.is_power_of_two() {
            let bit = 63 - old.trailing_zeros();
            // Descending, so each source is read before anything is written over it: bucket
            // i's destinations 2i and 2i + 1 are i itself or buckets already moved out.
            for i in (0..old).rev() {
                let mut halves = [[<E::Cell as Cell>::EMPTY; MAX_WAYS]; 2];
                let mut filled = [0; 2];
                for cell in &cells[i * ways..(i + 1) * ways] {
                    let bits = cell.load();
                    if E::unpack(bits).is_some()
                        && let Some(upper) = E::key_bit(bits, bit)
                    {
                        let half = usize::from(upper);
                        halves[half][filled[half]] = bits;
                        filled[half] += 1;
                    }
                }
                for (half, moved) in halves.iter().enumerate() {
                    let start = (2 * i + half) * ways;
                    for (cell, bits) in cells[start..start + ways].iter().zip(moved) {
                        cell.store(*bits);
                    }
                }
            }
        } else if new != old {
            Self::empty(&cells[..new * ways]);
        }
        self.in_use = new;
        new
    }

    fn empty(cells: &[E::Cell]) {
        cells.iter().for_each(|c| c.store(<E::Cell as Cell>::EMPTY));
    }

    /// Entries per bucket.
    pub fn ways(&self) -> usize {
        self.ways
    }

    /// Memory used by the entries, in bytes.
    pub fn bytes(&self) -> usize {
        self.cells.bytes()
    }

    /// The configuration the table was made with.
    pub fn config(&self) -> Config {
        self.config
    }

    /// The counters so far (all zero unless [`Config::counting`] is on).
    pub fn stats(&self) -> Stats {
        self.counters.snapshot()
    }

    /// Sets the counters back to zero.
    pub fn reset_stats(&self) {
        self.counters.reset();
    }

    #[inline]
    fn count(&self, which: impl FnOnce(&Counters) -> &std::sync::atomic::AtomicU64) {
        if self.config.counting {
            which(&self.counters).fetch_add(1, Relaxed);
        }
    }

    /// The raw cells, for persistence.
    pub(crate) fn cells(&self) -> &[E::Cell] {
        self.cells.cells()
    }

    /// Swaps in cells loaded from a file (same length) and their generation.
    pub(crate) fn adopt(&mut self, cells: RawCells<E::Cell>, generation: u32) {
        debug_assert_eq!(cells.cells().len(), self.capacity());
        self.cells = cells;
        self.in_use = self.buckets;
        self.generation.store(generation, Relaxed);
    }

    /// Packed bits of every slot of `key`'s bucket, for tests.
    #[cfg(test)]
    pub(crate) fn bucket_bits(&self, key: u64) -> Vec<crate::entry::Bits<E>> {
        self.bucket(key).iter().map(Cell::load).collect()
    }
}

impl<E: Entry> std::fmt::Debug for Table<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("layout", &E::LAYOUT)
            .field("buckets", &self.buckets)
            .field("in_use", &self.in_use)
            .field("ways", &self.ways)
            .field("bytes", &self.bytes())
            .field("config", &self.config)
            .field("generation", &self.generation())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bound, ChessEntry, CompactEntry, ResearchEntry, SolverEntry};

    fn chess(depth: u8) -> ChessEntry {
        ChessEntry {
            mv: u16::from(depth) + 1,
            score: i16::from(depth) * 10,
            eval: -3,
            depth,
            bound: Bound::Exact,
        }
    }

    fn research(depth: u8) -> ResearchEntry {
        ResearchEntry {
            mv: 0,
            score: 0,
            depth,
            bound: Bound::Exact,
            nodes: 1,
        }
    }

    /// Keys that all land in bucket 0 of a table with `buckets` buckets.
    fn keys_in_first_bucket(n: u64) -> impl Iterator<Item = u64> {
        (1..=n).map(|i| i * 0x10001)
    }

    #[test]
    fn sizes_in_mib_and_entries() {
        let t = Table::<ChessEntry>::with_mib(1).expect("1 MiB");
        assert_eq!((t.ways(), t.buckets(), t.bytes()), (4, 16384, 1 << 20));
        let t = Table::<SolverEntry>::with_mib(3).expect("3 MiB");
        assert_eq!((t.ways(), t.capacity(), t.bytes()), (16, 3 << 18, 3 << 20));
        let t = Table::<ResearchEntry>::new(
            Size::Entries(3000),
            Config {
                scheme: Scheme::Deep,
                ..Config::default()
            },
        )
        .expect("3000 entries");
        assert_eq!((t.ways(), t.buckets()), (1, 3000));
    }

    #[test]
    fn bad_sizes_and_configs_are_errors_with_reasons() {
        let err = |r: Result<Table<ResearchEntry>, Error>| r.expect_err("must fail").to_string();
        assert!(err(Table::with_mib(0)).contains("at least 1 MiB"));
        assert!(err(Table::new(Size::Entries(0), Config::default())).contains("multiple"));
        let two = Config {
            scheme: Scheme::TwoDeep,
            ..Config::default()
        };
        assert!(err(Table::new(Size::Entries(7), two)).contains("multiple of 2"));
        let wrong_ways = Config {
            ways: Some(4),
            ..two
        };
        assert!(err(Table::new(Size::Entries(8), wrong_ways)).contains("needs 2 way"));
        let too_many = Config {
            ways: Some(17),
            ..Config::default()
        };
        assert!(err(Table::new(Size::Entries(17), too_many)).contains("ways must be"));
        assert!(err(Table::with_mib(u64::MAX)).contains("overflows"));
        assert!(err(Table::with_mib(1 << 40)).contains("does not fit"));
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
    fn depth_age_fills_a_bucket_then_evicts_the_shallowest() {
        let t = Table::<ChessEntry>::new(Size::Entries(4), Config::default()).expect("one bucket");
        let keys: Vec<u64> = keys_in_first_bucket(5).collect();
        for (i, &key) in keys[..4].iter().enumerate() {
            assert_eq!(t.store(key, chess(10 - i as u8)), Stored::Empty);
        }
        assert_eq!(t.store(keys[1], chess(20)), Stored::Updated);
        assert_eq!(t.store(keys[4], chess(1)), Stored::Overwrote);
        assert_eq!(t.probe(keys[3]), None, "depth 7 was the shallowest");
        for key in [keys[0], keys[1], keys[2], keys[4]] {
            assert!(t.probe(key).is_some());
        }
    }

    #[test]
    fn push_front_moves_the_first_entry_down() {
        let config = Config {
            scheme: Scheme::TwoDeep,
            ..Config::default()
        };
        let t = Table::<ResearchEntry>::new(Size::Entries(2), config).expect("one bucket");
        t.store(1, research(3));
        t.store(2, research(5));
        let bits = t.bucket_bits(1);
        assert!(ResearchEntry::verifies(bits[0], 2) && ResearchEntry::verifies(bits[1], 1));
        t.store(3, research(4));
        let bits = t.bucket_bits(1);
        assert!(ResearchEntry::verifies(bits[0], 2) && ResearchEntry::verifies(bits[1], 3));
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
    }

    #[test]
    fn generations_wrap_around_the_entry_bits() {
        let config = Config {
            scheme: Scheme::Old,
            stamping: true,
            ..Config::default()
        };
        let t = Table::<ResearchEntry>::new(Size::Entries(1), config).expect("one slot");
        let entry = research(1);
        t.store(1, entry);
        // 64 searches later the 6-bit generation comes round: the entry looks current again.
        for _ in 0..64 {
            t.new_search();
        }
        assert_eq!(t.store(2, entry), Stored::Refused);
        t.new_search();
        assert_eq!(t.store(2, entry), Stored::Overwrote);
        assert_eq!(t.generation(), 65);
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
        assert_eq!((t.bytes(), t.probe(5)), (2 << 20, None));
        assert!(t.resize(Size::Mib(0)).is_err());
        assert_eq!(t.bytes(), 2 << 20, "a failed resize keeps the table");
    }

    #[test]
    fn counters_count_only_when_asked() {
        let quiet = Table::<ChessEntry>::with_mib(1).expect("1 MiB");
        quiet.probe(1);
        assert_eq!(quiet.stats(), Stats::default());
        let config = Config {
            scheme: Scheme::Old,
            counting: true,
            ..Config::default()
        };
        let t = Table::<ResearchEntry>::new(Size::Entries(1), config).expect("one slot");
        let entry = research(1);
        t.probe(1);
        t.store(1, entry);
        t.probe(1);
        t.store(2, entry);
        let s = t.stats();
        assert_eq!(
            (s.probes, s.hits, s.stores, s.refused, s.overwrites),
            (2, 1, 1, 1, 0)
        );
        t.reset_stats();
        assert_eq!(t.stats(), Stats::default());
    }

    #[test]
    fn prefetch_any_key_is_harmless() {
        let t = Table::<SolverEntry>::with_mib(1).expect("1 MiB");
        for key in [0, 1, u64::MAX, 1 << 63] {
            t.prefetch(key);
        }
    }

    /// The store fast paths (one-way NEW, two-way TWODEEP/TWOBIG1) decide exactly what the
    /// scheme's general `place` decides: same outcome for every store and the same cells
    /// after each, with time stamping on and off, across searches, over a pool of keys small
    /// enough that buckets fill and positions come back.
    #[test]
    fn fast_paths_agree_with_the_general_store() {
        let configs = [(Scheme::New, 1), (Scheme::TwoDeep, 2), (Scheme::TwoBig1, 2)];
        for (scheme, ways) in configs {
            for stamping in [false, true] {
                let config = Config {
                    scheme,
                    stamping,
                    ways: Some(ways),
                    counting: true,
                };
                let fast = Table::<ResearchEntry>::new(Size::Entries(64), config).expect("64");
                let general = Table::<ResearchEntry>::new(Size::Entries(64), config).expect("64");
                let pool = random_keys(200, 11);
                let mut state = 0x9e37_79b9_7f4a_7c15u64;
                for i in 0..20_000 {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let key = pool[(state % 200) as usize];
                    let entry = ResearchEntry {
                        depth: (state >> 8) as u8 % 12,
                        nodes: (state >> 16) % 1000,
                        ..research(0)
                    };
                    if i % 3000 == 2999 {
                        fast.new_search();
                        general.new_search();
                    }
                    let what = (scheme, stamping, i);
                    assert_eq!(
                        fast.store(key, entry),
                        general.store_general(key, entry),
                        "{what:?}"
                    );
                    let cells = |t: &Table<ResearchEntry>| {
                        t.cells.cells().iter().map(|c| c.load()).collect::<Vec<_>>()
                    };
                    assert_eq!(cells(&fast), cells(&general), "{what:?}");
                }
                assert_eq!(fast.stats(), general.stats(), "{scheme:?}");
            }
        }
    }

    /// Pseudo-random keys (splitmix64), reproducible.
    fn random_keys(n: usize, seed: u64) -> Vec<u64> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^ (z >> 31)
            })
            .collect()
    }

    fn exact_table(ways: usize) -> Table<crate::ExactEntry> {
        crate::entry::tests::exact_table(crate::ExactEntry::MIN_BUCKETS * 16, ways)
    }

    fn exact(key: u64) -> crate::ExactEntry {
        crate::ExactEntry {
            value: std::num::NonZeroU8::new((key >> 56) as u8 | 1).expect("or 1"),
            depth: key as u8,
        }
    }

    /// Growing keeps exactly what was retrievable (a bucket only ever splits in two), and
    /// every key is then found in its bucket under the new count.
    #[test]
    fn growing_keeps_every_retrievable_exact_entry() {
        for ways in [1, 4] {
            let mut t = exact_table(ways);
            t.use_buckets(crate::ExactEntry::MIN_BUCKETS).expect("fits");
            let keys = random_keys(300_000, ways as u64);
            for &k in &keys {
                t.store(k, exact(k));
            }
            let found = |t: &Table<crate::ExactEntry>| -> Vec<u64> {
                keys.iter()
                    .copied()
                    .filter(|&k| t.probe(k) == Some(exact(k)))
                    .collect()
            };
            let before = found(&t);
            assert!(before.len() > 50_000, "{}", before.len());
            for doubling in 1..=4 {
                assert_eq!(t.grow(), crate::ExactEntry::MIN_BUCKETS << doubling);
                assert_eq!(found(&t), before, "ways {ways}, doubling {doubling}");
            }
            // All buckets are in use now: growing again changes nothing.
            assert_eq!(t.grow(), t.buckets());
            assert_eq!(found(&t), before);
            // The entries really sit where the new count sends them.
            for &k in &before {
                assert!(
                    t.bucket_bits(k)
                        .iter()
                        .any(|&b| b & ((1 << 48) - 1) == k & ((1 << 48) - 1))
                );
            }
        }
    }

    #[test]
    fn entries_without_key_bits_are_dropped_and_odd_growth_empties() {
        let mut t =
            Table::<CompactEntry>::new(Size::Entries(1 << 16), Config::default()).expect("512 KiB");
        t.use_buckets(1 << 10).expect("fits");
        let keys = random_keys(500, 7);
        let entry = CompactEntry {
            mv: 1,
            score: 2,
            depth: 3,
            bound: Bound::Lower,
        };
        for &k in &keys {
            t.store(k, entry);
        }
        assert!(keys.iter().any(|&k| t.probe(k).is_some()));
        assert_eq!(t.grow(), 1 << 11);
        assert!(keys.iter().all(|&k| t.probe(k).is_none()));
        assert!(keys.iter().all(|&k| t.bucket_index(k) < 1 << 11));

        // 3 of 5 buckets → 5: not a doubling, so the table empties.
        let mut t = exact_table(1);
        let five = crate::ExactEntry::MIN_BUCKETS * 5;
        let mut small =
            Table::<crate::ExactEntry>::new(Size::Entries(five as u64), t.config()).expect("small");
        small.use_buckets(five * 3 / 5).expect("fits");
        for &k in &keys {
            small.store(k, exact(k));
        }
        assert_eq!(small.grow(), five);
        assert!(keys.iter().all(|&k| small.probe(k).is_none()));
        // use_buckets empties what it keeps and refuses impossible counts.
        t.store(keys[0], exact(keys[0]));
        t.use_buckets(t.buckets()).expect("all");
        assert_eq!(t.probe(keys[0]), None);
        for bad in [0, t.buckets() + 1] {
            let msg = t.use_buckets(bad).expect_err("out of range").to_string();
            assert!(msg.contains("buckets in use"), "{msg}");
        }
        assert_eq!(t.buckets_in_use(), t.buckets());
    }

    #[test]
    fn a_table_using_part_of_its_buckets_is_not_saved() {
        let mut t = exact_table(1);
        t.use_buckets(crate::ExactEntry::MIN_BUCKETS).expect("fits");
        let msg = t.save(Vec::new()).expect_err("part in use").to_string();
        assert!(msg.contains("grow it"), "{msg}");
        while t.grow() < t.buckets() {}
        t.save(Vec::new()).expect("all in use");
    }
}
