//! How a table replaces entries and what it counts ([`Config`]), and how many ways a bucket
//! has and how many entries a size gives under it ([`Config::ways_for`],
//! [`Config::entries_for`]).

use super::size::{Size, whole_buckets};
use crate::{
    cell::Cell,
    entry::Entry,
    error::Error,
    raw::CACHE_LINE,
    scheme::{Candidate, Placement, Replace, Scheme, Slot},
};

/// The most ways a bucket may have (sixteen 4-byte cells fill a cache line).
pub const MAX_WAYS: usize = 16;

/// How a table replaces entries and what it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// The replacement scheme.
    pub scheme: Scheme,
    /// Time stamping: entries from an earlier search (before the last
    /// [`Table::new_search`](super::Table::new_search)) count as empty slots when storing.
    /// They are still found by [`Table::probe`](super::Table::probe).
    pub stamping: bool,
    /// Entries per bucket; `None` picks what the scheme requires, or else a full cache line.
    pub ways: Option<usize>,
    /// Whether to keep the [`Stats`](crate::stats::Stats) counters (a relaxed atomic add per
    /// operation).
    pub counting: bool,
}

impl Replace for Config {
    /// The configured scheme's [`Scheme::place`], with the configured time stamping.
    #[inline]
    fn place(&self, slots: &[Slot], new: &Candidate) -> Placement {
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

/// Entries per bucket when neither the configuration nor its scheme says: as many cells of
/// `E` as fill a cache line ([`Table::DEFAULT_WAYS`](super::Table::DEFAULT_WAYS)).
pub(super) const fn default_ways<E: Entry>() -> usize {
    let ways = CACHE_LINE / <E::Cell as Cell>::BYTES * <E::Cell as Cell>::SLOTS;
    if ways > MAX_WAYS {
        MAX_WAYS
    } else if ways < 1 {
        1
    } else {
        ways
    }
}

impl Config {
    /// The entries per bucket of a table of `E` made with this configuration:
    /// [`Config::ways`] if it is set, else the number the scheme requires
    /// ([`Scheme::required_ways`]), else
    /// [`Table::DEFAULT_WAYS`](super::Table::DEFAULT_WAYS).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for ways outside 1 to [`MAX_WAYS`], or other than the scheme needs.
    pub fn ways_for<E: Entry>(&self) -> Result<usize, Error> {
        let ways = self
            .ways
            .or(self.scheme.required_ways())
            .unwrap_or(default_ways::<E>());
        if !(1..=MAX_WAYS).contains(&ways) {
            return Err(Error::Config(format!(
                "ways must be 1 to {MAX_WAYS}, not {ways}"
            )));
        }
        let per_cell = <E::Cell as Cell>::SLOTS;
        if !ways.is_multiple_of(per_cell) {
            return Err(Error::Config(format!(
                "a {} cell holds {per_cell} entries, so ways must be a multiple of {per_cell}, \
                 not {ways}",
                E::LAYOUT
            )));
        }
        if let Some(required) = self.scheme.required_ways()
            && required != ways
        {
            return Err(Error::Config(format!(
                "scheme {} needs {required} way(s) per bucket, not {ways}",
                self.scheme
            )));
        }
        Ok(ways)
    }

    /// The entries a table of `E` made with this configuration really holds for `size`, in
    /// whole buckets of [`Config::ways_for`] entries: for [`Size::Mib`], every bucket that
    /// fits in the memory; for [`Size::Entries`], the count rounded down to whole buckets
    /// (which is what a table of `Size::Entries` must be given:
    /// [`Table::new`](super::Table::new) does not round).
    ///
    /// ```
    /// use transpo::{Size, Table};
    /// use transpo::{entry::ResearchEntry, scheme::Scheme, table::{Config, Instrumented}};
    ///
    /// let three = Config { ways: Some(3), scheme: Scheme::Priority, ..Config::default() };
    /// let entries = three.entries_for::<ResearchEntry>(Size::Entries(1000))?;
    /// assert_eq!(entries, 999);
    /// let table = Table::<ResearchEntry>::new(Size::Entries(entries), three)?;
    /// assert_eq!(table.shape().entries, 999);
    /// # Ok::<(), transpo::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// Those of [`Config::ways_for`], and [`Error::InvalidSize`] for a size of less than
    /// one bucket.
    pub fn entries_for<E: Entry>(&self, size: Size) -> Result<u64, Error> {
        let ways = self.ways_for::<E>()?;
        match whole_buckets::<E>(size, ways)? {
            0 => Err(Error::InvalidSize(format!(
                "{size:?} is less than one bucket of {ways} entries"
            ))),
            buckets => Ok(buckets as u64 * ways as u64),
        }
    }
}
