//! Sizes and shapes: how big a table is asked to be ([`Size`]), how many ways a bucket has
//! and how many whole buckets that gives ([`Config::ways_for`], [`Config::entries_for`]),
//! and what a made table is ([`Shape`]).

use super::{MAX_WAYS, Table};
use crate::{Config, Error, cell::Cell, entry::Entry, raw::CACHE_LINE};

/// How big a table is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// As many buckets as fit in this many MiB (at least 1). [`Size::mib`] takes any
    /// integer type.
    Mib(u64),
    /// Exactly this many entries (a multiple of the number of ways, which
    /// [`Config::entries_for`] rounds a count to), as a lab needs.
    Entries(u64),
}

impl Size {
    /// [`Size::Mib`] from any integer type (`usize`, `u64`, `u32`, `i32`, ...), so that a
    /// size kept as a `usize` needs no cast. A negative count is `Size::Mib(0)`, which
    /// every table refuses ([`Error::InvalidSize`]).
    ///
    /// ```
    /// use transpo::Size;
    ///
    /// let hash: usize = 64;
    /// assert_eq!(Size::mib(hash), Size::Mib(64));
    /// assert_eq!(Size::mib(-1), Size::Mib(0));
    /// ```
    pub fn mib(count: impl Count) -> Size {
        Size::Mib(count.to_u64().unwrap_or(0))
    }
}

mod sealed {
    pub trait Sealed {
        /// The value, `None` when negative.
        fn to_u64(self) -> Option<u64>;
    }
}

/// An integer type a count of MiB may have: every primitive integer type
/// ([`Table::with_mib`], [`Size::mib`]).
pub trait Count: Copy + sealed::Sealed {}

macro_rules! count {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {
            #[inline]
            fn to_u64(self) -> Option<u64> {
                u64::try_from(self).ok()
            }
        }
        impl Count for $t {}
    )*};
}
count!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// `count` as a `u64`, or the error for a negative count of MiB.
pub(super) fn mib_count(count: impl Count) -> Result<u64, Error> {
    count.to_u64().ok_or_else(|| {
        Error::InvalidSize("a negative number of MiB; a table needs at least 1 MiB".into())
    })
}

/// What a table is, as [`Table::shape`] reports it.
///
/// ```
/// use transpo::{ChessEntry, Table};
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
    /// Buckets probes and stores use: all of them unless [`Table::use_buckets`] said
    /// otherwise.
    pub buckets_in_use: usize,
    /// Entries per bucket.
    pub ways: usize,
    /// Memory used by the entries, in bytes.
    pub bytes: usize,
    /// The configuration the table was made with.
    pub config: Config,
}

impl<E: Entry> Table<E> {
    /// Entries per bucket when neither the configuration nor its scheme says: as many cells
    /// of `E` as fill a cache line (4 [`crate::ChessEntry`], 2 [`crate::ResearchEntry`], 16
    /// [`crate::SolverEntry`]), so that a probe reads one line.
    pub const DEFAULT_WAYS: usize = {
        let ways = CACHE_LINE / <E::Cell as Cell>::BYTES * <E::Cell as Cell>::SLOTS;
        if ways > MAX_WAYS {
            MAX_WAYS
        } else if ways < 1 {
            1
        } else {
            ways
        }
    };
}

impl Config {
    /// The entries per bucket of a table of `E` made with this configuration:
    /// [`Config::ways`] if it is set, else the number the scheme requires
    /// ([`crate::Scheme::required_ways`]), else [`Table::DEFAULT_WAYS`].
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for ways outside 1 to [`MAX_WAYS`], or other than the scheme needs.
    pub fn ways_for<E: Entry>(&self) -> Result<usize, Error> {
        let ways = self
            .ways
            .or(self.scheme.required_ways())
            .unwrap_or(Table::<E>::DEFAULT_WAYS);
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
    /// (which is what a table of `Size::Entries` must be given: [`Table::new`] does not
    /// round).
    ///
    /// ```
    /// use transpo::{Config, ResearchEntry, Scheme, Size, Table};
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

/// The whole buckets of `ways` entries of `E` in `size`, rounded down.
pub(super) fn whole_buckets<E: Entry>(size: Size, ways: usize) -> Result<usize, Error> {
    let too_large = || Error::TooLarge {
        bytes: u64::MAX,
        limit: crate::raw::physical_memory(),
    };
    let bucket_bytes = (ways / <E::Cell as Cell>::SLOTS * <E::Cell as Cell>::BYTES) as u64;
    let buckets = match size {
        Size::Mib(0) => {
            return Err(Error::InvalidSize("a table needs at least 1 MiB".into()));
        }
        Size::Mib(mib) => mib
            .checked_mul(1 << 20)
            .map(|bytes| bytes / bucket_bytes)
            .ok_or_else(too_large)?,
        Size::Entries(n) => n / ways as u64,
    };
    usize::try_from(buckets).map_err(|_| too_large())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ChessEntry, ResearchEntry, Scheme, SolverEntry};

    #[test]
    fn sizes_in_mib_and_entries() {
        let t = Table::<ChessEntry>::with_mib(1).expect("1 MiB").shape();
        assert_eq!((t.ways, t.buckets, t.bytes), (4, 16384, 1 << 20));
        let t = Table::<SolverEntry>::with_mib(3).expect("3 MiB").shape();
        assert_eq!((t.ways, t.entries, t.bytes), (16, 3 << 18, 3 << 20));
        let t = Table::<ResearchEntry>::new(
            Size::Entries(3000),
            Config {
                scheme: Scheme::Deep,
                ..Config::default()
            },
        )
        .expect("3000 entries")
        .shape();
        assert_eq!((t.ways, t.buckets, t.buckets_in_use), (1, 3000, 3000));
    }

    #[test]
    fn entries_for_rounds_down_to_the_buckets_new_makes() {
        type Research = Table<ResearchEntry>;
        let default = Config::default();
        assert_eq!(Research::DEFAULT_WAYS, 2);
        assert_eq!(Table::<ChessEntry>::DEFAULT_WAYS, 4);
        assert_eq!(Table::<SolverEntry>::DEFAULT_WAYS, 16);
        assert_eq!(default.ways_for::<ResearchEntry>().expect("valid"), 2);
        let deep = Config {
            scheme: Scheme::Deep,
            ..default
        };
        assert_eq!(deep.ways_for::<ResearchEntry>().expect("valid"), 1);
        for (size, config, entries) in [
            (Size::Entries(1001), default, 1000),
            (Size::Entries(1001), deep, 1001),
            (Size::Mib(1), default, (1 << 20) / 48 * 2),
            (Size::Mib(1), deep, (1 << 20) / 24),
        ] {
            let rounded = config.entries_for::<ResearchEntry>(size).expect("fits");
            assert_eq!(rounded, entries, "{size:?} {config:?}");
            let made = Research::new(Size::Entries(rounded), config).expect("whole buckets");
            assert_eq!(made.shape().entries as u64, rounded);
            if let Size::Mib(_) = size {
                let t = Research::new(size, config).expect("fits");
                assert_eq!(t.shape().entries as u64, rounded);
            }
        }
        let err = |r: Result<u64, Error>| r.expect_err("must fail").to_string();
        let entries = |config: Config, size| config.entries_for::<ResearchEntry>(size);
        assert!(err(entries(default, Size::Entries(1))).contains("one bucket"));
        assert!(err(entries(default, Size::Mib(0))).contains("1 MiB"));
        let bad = Config {
            ways: Some(3),
            ..deep
        };
        assert!(err(entries(bad, Size::Entries(9))).contains("needs 1 way"));
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
        assert!(err(Table::with_mib(1u64 << 40)).contains("does not fit"));
    }
}
