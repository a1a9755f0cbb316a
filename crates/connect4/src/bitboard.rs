//! The word a board's bitboards are made of: `u64` for every board whose `W·(H + 1)` bits
//! fit in 64 (7×6 and the 41 other boards up to 12×4 and 4×15), `u128` for the wider ones
//! (7×9, 8×8, 9×9, 13×4, 4×16, …).
//!
//! Why a type parameter and not always `u128`: every node of a search is a few dozen shifts,
//! ANDs and adds of these words, and a `u128` one costs two instructions (or a carry chain)
//! where a `u64` one costs one. The 7×6 solver keeps its `u64` code; a wide board gets its
//! own instantiation ([`crate::position::Position`]`<W, H, u128>`), not a tax on the others.
//!
//! The trait is sealed: the table's entries ([`crate::coding::Coding`]) and the book's file
//! format are written for exactly these two words.

use crate::coding::Coding;
use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{
    Add, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr, Sub,
};

mod sealed {
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for u128 {}
}

/// An unsigned word of bitboards: `u64` for every board whose `W·(H + 1)` bits fit in 64,
/// `u128` for the wider ones, so that the common boards pay for no more than one machine
/// word. Sealed: the table's entries and the book's file format are written for exactly
/// these two words.
pub trait Bitboard:
    sealed::Sealed
    + Coding
    + Copy
    + Eq
    + Ord
    + Hash
    + Debug
    + Default
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<usize, Output = Self>
    + Shr<usize, Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + Add<Output = Self>
    + Sub<Output = Self>
{
    /// Bits in the word.
    const BITS: u32;
    /// Bytes in the word, as a book file stores a key.
    const BYTES: usize;
    /// No bit set.
    const ZERO: Self;
    /// Bit 0.
    const ONE: Self;
    /// The low bits of `value` (a constant mask computed in `u128`, which every board's
    /// masks fit): the compiler folds the conversion away.
    fn from_u128(value: u128) -> Self;
    /// The word as a `u128`.
    fn to_u128(self) -> u128;
    /// Set bits.
    fn count_ones(self) -> u32;
    /// The lowest set bit alone (zero for zero).
    fn lowest(self) -> Self;
    /// Zero bits below the lowest set one.
    fn trailing_zeros(self) -> u32;
    /// Rotation to the left by `n` bits (below [`Bitboard::BITS`]).
    fn rotate_left(self, n: u32) -> Self;
    /// 64 bits that depend on every bit of the word: the word itself for a `u64`, the two
    /// halves mixed for a `u128`. Not exact: for hints such as the search's busy marks.
    fn fold(self) -> u64;
    /// Little-endian bytes, [`Bitboard::BYTES`] of them, appended to `out`.
    fn write_le(self, out: &mut Vec<u8>);
    /// The word from [`Bitboard::BYTES`] little-endian bytes.
    fn read_le(bytes: &[u8]) -> Self;
}

macro_rules! bitboard {
    ($word:ty) => {
        impl Bitboard for $word {
            const BITS: u32 = <$word>::BITS;
            const BYTES: usize = size_of::<$word>();
            const ZERO: $word = 0;
            const ONE: $word = 1;
            #[inline(always)]
            fn from_u128(value: u128) -> $word {
                // Truncation is the point: a board's masks fit in its word.
                value as $word
            }
            #[inline(always)]
            fn to_u128(self) -> u128 {
                self as u128
            }
            #[inline(always)]
            fn count_ones(self) -> u32 {
                <$word>::count_ones(self)
            }
            #[inline(always)]
            fn lowest(self) -> $word {
                self & self.wrapping_neg()
            }
            #[inline(always)]
            fn trailing_zeros(self) -> u32 {
                <$word>::trailing_zeros(self)
            }
            #[inline(always)]
            fn rotate_left(self, n: u32) -> $word {
                <$word>::rotate_left(self, n)
            }
            #[inline(always)]
            fn fold(self) -> u64 {
                // SplitMix64's odd multiplier on the high half (nothing for a `u64`).
                (self as u64) ^ ((self.to_u128() >> 64) as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9)
            }
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> $word {
                // Callers hand exactly `BYTES` bytes (a book's `chunks_exact`); fewer would
                // be a bug of theirs, and the slice below says so.
                let mut word = [0; size_of::<$word>()];
                word.copy_from_slice(&bytes[..size_of::<$word>()]);
                <$word>::from_le_bytes(word)
            }
        }
    };
}

bitboard!(u64);
bitboard!(u128);

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<B: Bitboard>(value: u128) {
        let word = B::from_u128(value);
        let mut bytes = Vec::new();
        word.write_le(&mut bytes);
        assert_eq!(bytes.len(), B::BYTES);
        assert_eq!(B::read_le(&bytes), word);
        assert_eq!(word.to_u128(), value & (u128::MAX >> (128 - B::BITS)));
    }

    #[test]
    fn words_round_trip_through_bytes() {
        for value in [0, 1, 0x0123_4567_89ab_cdef, u64::MAX as u128, u128::MAX] {
            round_trip::<u64>(value);
            round_trip::<u128>(value);
        }
        assert_eq!(u128::ONE.rotate_left(100).trailing_zeros(), 100);
        assert_eq!((u128::ONE << 70 | u128::ONE).count_ones(), 2);
    }
}
