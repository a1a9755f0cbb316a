//! The integer types a ply, a depth or a score may have, so that an engine passes its own
//! without casts: [`Plies`] for plies and depths (every primitive integer up to 64 bits),
//! [`Score`] for scores (`i16`, `i32`, `i64`).
//!
//! They live apart from [`crate::score`], which names them, so that the entries, which take
//! a depth of any type, need not depend on the score functions that read the entries.

mod sealed {
    pub trait Sealed {
        /// The exact value (every primitive integer up to 64 bits fits an `i128`).
        fn wide(self) -> i128;
    }
}

/// An integer type a ply or depth may have: every primitive integer an engine uses for them.
pub trait Plies: Copy + sealed::Sealed {
    /// The value as an `i64` (a `u64` or `usize` beyond `i64::MAX` as `i64::MAX`).
    fn plies(self) -> i64;
}

/// A score type: `i16`, `i32` or `i64`.
pub trait Score: Plies + Ord {
    /// `value` in this type, saturated at its ends.
    fn saturate(value: i64) -> Self;
}

/// The exact value of a ply or score, in `i128`, where nothing overflows.
#[inline]
pub(crate) fn wide(value: impl Plies) -> i128 {
    sealed::Sealed::wide(value)
}

macro_rules! plies {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {
            #[inline]
            fn wide(self) -> i128 {
                self as i128
            }
        }
        impl Plies for $t {
            #[inline]
            fn plies(self) -> i64 {
                // Exact for every type but `u64`/`usize` beyond `i64::MAX`, which saturate.
                i64::try_from(self).unwrap_or(i64::MAX)
            }
        }
    )*};
}
plies!(u8, u16, u32, u64, usize, i8, i16, i32, i64);

macro_rules! score {
    ($($t:ty),*) => {$(
        impl Score for $t {
            #[inline]
            fn saturate(value: i64) -> Self {
                value.clamp(<$t>::MIN as i64, <$t>::MAX as i64) as $t
            }
        }
    )*};
}
score!(i16, i32, i64);
