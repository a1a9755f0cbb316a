//! Sizes: how big a table is asked to be ([`Size`]), in MiB of any integer type
//! ([`Count`]), and how many whole buckets that gives.

use crate::{cell::Cell, entry::Entry, error::Error};

/// How big a table is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// As many buckets as fit in this many MiB (at least 1). [`Size::mib`] takes any
    /// integer type.
    Mib(u64),
    /// Exactly this many entries (a multiple of the number of ways, which
    /// [`Config::entries_for`](super::Config::entries_for) rounds a count to), as a lab needs.
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
/// ([`Table::with_mib`](super::Table::with_mib), [`Size::mib`]).
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
