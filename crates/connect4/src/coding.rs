//! How a board word's exact position keys become keys and entries of the table: the one
//! place that knows both a [`Bitboard`](crate::bitboard::Bitboard) word and the table's entry
//! layouts. A `u64` key goes whole into the table key of an [`ExactEntry`]; a `u128` key is
//! cut into the table key and a `rest` that a [`WideExactEntry`] stores whole. Both are
//! bijections of (position key, epoch), so no false hit is possible ([`crate::bounds`]'
//! module docs prove it and say why keys are mixed).
//!
//! Why a module of its own: the word ([`crate::bitboard`]) requires this coding of every
//! word, and the bounds ([`crate::bounds`]) use it; it depends on neither, only on the
//! table crate, so neither depends on the other through it.

use std::num::NonZeroU8;
use transpo::entry::{Entry, ExactEntry, WideExactEntry};

/// Fibonacci hashing: 2^64 / φ, odd, so multiplying by it is a bijection of `u64`.
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;
/// Odd multiplier of a wide key's `rest` before it is XOR-ed into the low bits, so that
/// positions that differ only above bit 64 spread over the buckets (SplitMix64's).
pub(crate) const REST_MIX: u64 = 0xbf58_476d_1ce4_e5b9;
/// How a board word's exact position keys become keys and entries of the table: `u64` keys
/// in [`ExactEntry`], `u128` keys in [`WideExactEntry`] (see the module docs). Implemented
/// for the two [`Bitboard`](crate::bitboard::Bitboard) words.
pub trait Coding: Sized {
    /// The table's entry.
    type Entry: Entry;
    /// The fewest buckets for which the entry's check is exact.
    const MIN_BUCKETS: usize;
    /// The table key and the rest of the position key `key` (of `key_bits` bits) in
    /// `epoch`: together a bijection of the pair.
    fn table_key(key: Self, key_bits: u32, epoch: u64) -> (u64, u64);
    /// The entry of a value byte and the best column's byte (column + 1, 0 for none: the
    /// entry's `aux`, which the always-replace table never reads) for a position whose rest
    /// is `rest`.
    fn pack(value: NonZeroU8, best: u8, rest: u64) -> Self::Entry;
    /// The value and best-column bytes of `entry`, found under the table key of a position whose
    /// rest is `rest`, if it was stored for that position.
    fn unpack(entry: Self::Entry, rest: u64) -> Option<(NonZeroU8, u8)>;
}

impl Coding for u64 {
    type Entry = ExactEntry;
    const MIN_BUCKETS: usize = ExactEntry::MIN_BUCKETS;

    #[inline(always)]
    fn table_key(key: u64, key_bits: u32, epoch: u64) -> (u64, u64) {
        // A board whose key takes all 64 bits has one epoch, 0.
        let epoch_bits = if key_bits < 64 { epoch << key_bits } else { 0 };
        ((key | epoch_bits).wrapping_mul(MIX), 0)
    }

    #[inline(always)]
    fn pack(value: NonZeroU8, best: u8, _rest: u64) -> ExactEntry {
        ExactEntry { value, aux: best }
    }

    #[inline(always)]
    fn unpack(entry: ExactEntry, _rest: u64) -> Option<(NonZeroU8, u8)> {
        Some((entry.value, entry.aux))
    }
}

impl Coding for u128 {
    type Entry = WideExactEntry;
    const MIN_BUCKETS: usize = WideExactEntry::MIN_BUCKETS;

    #[inline(always)]
    fn table_key(key: u128, key_bits: u32, epoch: u64) -> (u64, u64) {
        // Wide keys have more than 64 bits, and at most 128 - 15 on every wide board
        // (`Board::WIDE`), so the epoch fits above the rest.
        let rest = (key >> 64) as u64 | epoch.checked_shl(key_bits - 64).unwrap_or(0);
        let low = key as u64;
        ((low ^ rest.wrapping_mul(REST_MIX)).wrapping_mul(MIX), rest)
    }

    #[inline(always)]
    fn pack(value: NonZeroU8, best: u8, rest: u64) -> WideExactEntry {
        WideExactEntry {
            value,
            aux: best,
            rest,
        }
    }

    #[inline(always)]
    fn unpack(entry: WideExactEntry, rest: u64) -> Option<(NonZeroU8, u8)> {
        (entry.rest == rest).then_some((entry.value, entry.aux))
    }
}
