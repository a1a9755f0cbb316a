//! What a lab reads from a table and steers in it beside the search's verbs: the
//! [`Instrumented`] trait, and the [`Shape`] it reports.
//!
//! An engine needs none of it, so [`Table`]'s own methods leave it out; a lab imports the
//! trait (`use transpo::table::Instrumented;`) and calls its methods on a table as on any
//! other.

use super::{
    config::Config,
    front::{Table, slots},
    grow::Buckets,
    store::Stored,
};
use crate::{
    entry::Entry,
    scheme::Replace,
    stats::{Stats, Usage},
};
use std::sync::atomic::Ordering::Relaxed;

mod sealed {
    pub trait Sealed {}
}

/// A table's instruments: its counters, fill and shape, the buckets in use, a replacement
/// rule of the caller's own, and the generation. Implemented by [`Table`] alone.
///
/// ```
/// use transpo::{ChessEntry, Table};
/// use transpo::table::Instrumented;
///
/// let mut t = Table::<ChessEntry>::with_mib(1)?;
/// t.set_counting(true);
/// t.probe(42);
/// assert_eq!((t.stats().probes, t.stats().hits), (1, 0)); // reading does not reset
/// println!("{}", t.stats()); // probes 1 hits 0 (0.0%) stores 0 overwrites 0 refused 0
/// assert_eq!((t.shape().ways, t.shape().bytes), (4, 1 << 20));
/// # Ok::<(), transpo::Error>(())
/// ```
pub trait Instrumented: sealed::Sealed {
    /// The entries the table holds.
    type Entry: Entry;

    /// Offers `entry` for `key` to the bucket, placed by `rule` instead of the table's
    /// scheme (see [`Replace`]: a closure or your own type). A placement outside the bucket
    /// is [`Stored::Refused`]. Counted like [`Table::store`].
    fn store_by<R: Replace + ?Sized>(&self, key: u64, entry: Self::Entry, rule: &R) -> Stored;

    /// Makes probes and stores use the buckets `which` says, and returns how many that is
    /// (also [`Shape::buckets_in_use`]).
    ///
    /// Why: a small problem solved in a big table pays a cache miss for nearly every probe,
    /// because its few entries are spread over all the memory; kept in the first `n` buckets
    /// they stay in the cache. Start small ([`Buckets::First`]) and grow
    /// ([`Buckets::Doubled`]) as the search explores more positions. (A solver that needs
    /// exact keys, like [`ExactEntry`](crate::entry::ExactEntry), must keep `n` at or above
    /// its minimum bucket count.)
    ///
    /// [`Buckets::First`] asks for `n` buckets; a count of 0 uses one and a count above the
    /// table's buckets ([`Shape::buckets`]) uses all of them.
    ///
    /// [`Buckets::Doubled`]: when the count was a power of two and doubles, every entry moves
    /// to its bucket under the new count if the entry type knows the key bit that decides it
    /// ([`Entry::key_bit`]; [`ExactEntry`](crate::entry::ExactEntry) does), and is dropped
    /// otherwise: with `2^k` buckets in use a key's bucket is its top `k` bits, so bucket `i`
    /// splits into `2i` and `2i + 1` by key bit `63 − k`. Any other growth empties the
    /// buckets now in use. Costs one pass over the buckets that were in use.
    ///
    /// A table that uses part of its buckets is not saved
    /// ([`Table::save`](crate::Table::save)): grow it to all of them first.
    ///
    /// ```
    /// use transpo::Table;
    /// use transpo::{entry::ExactEntry, table::{Buckets, Instrumented}};
    ///
    /// let mut table = Table::<ExactEntry>::with_mib(16)?; // 2^18 buckets of 8 entries
    /// assert_eq!(table.use_buckets(Buckets::First(ExactEntry::MIN_BUCKETS)), 1 << 16);
    /// assert_eq!(table.use_buckets(Buckets::Doubled), 1 << 17);
    /// assert_eq!(table.use_buckets(Buckets::Doubled), 1 << 18);
    /// assert_eq!(table.use_buckets(Buckets::Doubled), 1 << 18); // all of them already
    /// assert_eq!(table.shape().buckets_in_use, 1 << 18);
    /// # Ok::<(), transpo::Error>(())
    /// ```
    fn use_buckets(&mut self, which: Buckets) -> usize;

    /// Turns the [`Stats`] counters on or off ([`Config::counting`]) without building a
    /// [`Config`]; the counts so far stay.
    fn set_counting(&mut self, on: bool);

    /// The counters since the table was made or since the last
    /// [`take_stats`](Instrumented::take_stats), left as they are (all zero unless
    /// [`Config::counting`] is on, or [`set_counting`](Instrumented::set_counting)). Each
    /// counter is read on its own, so a snapshot taken while other threads search may be a
    /// few counts out between counters.
    fn stats(&self) -> Stats;

    /// The counters since the table was made or since the last call, which sets them back
    /// to zero (all zero unless [`Config::counting`] is on). Each counter is read and zeroed
    /// in one atomic step, so a count made meanwhile by another thread goes to this snapshot
    /// or to the next, never to neither.
    fn take_stats(&self) -> Stats;

    /// How many slots of the buckets in use hold an entry, and how many of those are from
    /// the current search: what an engine's `stats` command prints beside
    /// [`Table::hashfull`]. It reads every slot (a 1 GiB table takes about as long as a
    /// [`Table::clear`]), so call it between searches, not in one; `hashfull` samples 1000
    /// buckets instead.
    fn usage(&self) -> Usage;

    /// What the table is: its memory's entries, buckets and bytes, the buckets in use, the
    /// ways per bucket and the configuration it was made with.
    fn shape(&self) -> Shape;

    /// How many times [`Table::new_search`] was called since the table was made, cleared or
    /// resized (wrapping at 2³²; entries only keep its low [`Entry::GENERATION_BITS`]).
    fn generation(&self) -> u32;
}

/// What a table is, as [`Instrumented::shape`] reports it.
///
/// ```
/// use transpo::{ChessEntry, Table};
/// use transpo::table::Instrumented;
///
/// let shape = Table::<ChessEntry>::with_mib(1)?.shape();
/// assert_eq!((shape.ways, shape.buckets, shape.entries), (4, 16384, 65536));
/// assert_eq!((shape.bytes, shape.buckets_in_use), (1 << 20, 16384));
/// # Ok::<(), transpo::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Shape {
    /// Entries the table's memory holds: `buckets × ways`.
    pub entries: usize,
    /// Buckets the table's memory holds.
    pub buckets: usize,
    /// Buckets probes and stores use: all of them unless [`Instrumented::use_buckets`] said
    /// otherwise.
    pub buckets_in_use: usize,
    /// Entries per bucket.
    pub ways: usize,
    /// Memory used by the entries, in bytes.
    pub bytes: usize,
    /// The configuration the table was made with.
    pub config: Config,
}

impl<E: Entry> sealed::Sealed for Table<E> {}

impl<E: Entry> Instrumented for Table<E> {
    type Entry = E;

    #[inline]
    fn store_by<R: Replace + ?Sized>(&self, key: u64, entry: E, rule: &R) -> Stored {
        self.store_by_rule(key, entry, rule)
    }

    fn use_buckets(&mut self, which: Buckets) -> usize {
        self.set_buckets_in_use(which)
    }

    fn set_counting(&mut self, on: bool) {
        self.config.counting = on;
    }

    fn stats(&self) -> Stats {
        self.counters.read()
    }

    fn take_stats(&self) -> Stats {
        self.counters.take()
    }

    fn usage(&self) -> Usage {
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

    #[inline]
    fn shape(&self) -> Shape {
        Shape {
            entries: self.buckets * self.ways,
            buckets: self.buckets,
            buckets_in_use: self.in_use,
            ways: self.ways,
            bytes: self.cells.bytes(),
            config: self.config,
        }
    }

    fn generation(&self) -> u32 {
        self.generation.load(Relaxed)
    }
}
