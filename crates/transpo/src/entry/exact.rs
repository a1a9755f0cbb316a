//! An 8-byte solver entry whose key check, together with the bucket it sits in, identifies
//! the key exactly: no false hits, ever, in a table of at least [`ExactEntry::MIN_BUCKETS`]
//! buckets.
//!
//! Why it exists: [`super::SolverEntry`] checks 24 key bits, so a probe of a full bucket for an
//! absent position is a false hit about `ways / 2^24` of the time. Over the 10^8–10^9 probes of
//! a Connect Four solve that is certain to happen, and one false hit can change a score. An
//! exhaustive solver must never be wrong, so it needs an exact check.
//!
//! # Exactness
//!
//! The table sends `key` to bucket `floor(key · n / 2^64)` for `n` buckets. Let two keys
//! `a < b` share their low 48 bits. Then `b − a` is a positive multiple of `2^48`, so
//! `b · n / 2^64 ≥ a · n / 2^64 + n / 2^16 ≥ a · n / 2^64 + 1` when `n ≥ 2^16`, and their
//! buckets differ. Hence within one bucket the low 48 bits tell every key apart, and an entry
//! that verifies against `key` in `key`'s bucket was stored for exactly `key`. The caller's part
//! of the bargain: distinct positions must have distinct 64-bit keys (use a bijective mix of an
//! exact position code, not a Zobrist hash) and the table must have `n ≥ 2^16` buckets.
//!
//! The argument holds for any 64-bit keys, so any game whose positions have an exact code of
//! at most 64 bits gets exact entries. `transpo-connect4` uses it on every board whose
//! `W·(H + 1)`-bit position code fits in 64 bits: it ORs an epoch into the bits above the code
//! (none when the code takes all 64) and multiplies by an odd constant, a bijection, so
//! distinct (position, epoch) pairs stay distinct keys (its `bounds` module; tested there on
//! boards with 20 to 64 key bits).
//!
//! Cost: 8 bytes per entry, against 5 for a hand-made prime-sized table that relies on the
//! Chinese remainder theorem (32-bit partial key + one byte, Pons' Connect Four solver); the
//! multiply index gives no such theorem for fewer check bits.

use super::{
    bound::Bound,
    packing::{Bits, Depth, Entry, Generation},
};
use std::num::NonZeroU8;

/// Key check bits kept by an [`ExactEntry`] (and by the low word of a
/// [`super::WideExactEntry`], which is an `ExactEntry`).
pub(super) const CHECK_BITS: u32 = 48;
pub(super) const CHECK_MASK: u64 = (1 << CHECK_BITS) - 1;
const AUX_SHIFT: u32 = 48;
pub(super) const VALUE_SHIFT: u32 = 56;

/// An 8-byte entry, eight to a cache line: the key's low 48 bits, a depth and one non-zero
/// byte that the solver uses for its own score-and-bound code (0 marks the empty slot).
///
/// Layout, from bit 0:
///
/// | bits | field |
/// |---|---|
/// | 0..48 | key check: the key's low 48 bits |
/// | 48..56 | `aux`: the solver's second byte (the depth a DEEP-like scheme reads, or anything under always-replace) |
/// | 56..64 | value, non-zero |
///
/// No generation: a solver clears its table per problem (or folds an epoch into its keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExactEntry {
    /// The solver's byte.
    pub value: NonZeroU8,
    /// The solver's second byte, free for its own use. A depth-preferring scheme reads it as
    /// the work below the entry ([`Entry::depth`], e.g. empty squares left); under one that
    /// never reads depth (always replace) it can carry anything: `transpo-connect4` keeps its
    /// best column + 1 there.
    pub aux: u8,
}

impl ExactEntry {
    /// The fewest buckets for which the check is exact (see the module docs).
    pub const MIN_BUCKETS: usize = 1 << (64 - CHECK_BITS);
}

impl Entry for ExactEntry {
    type Cell = std::sync::atomic::AtomicU64;
    const GENERATION_BITS: u32 = 0;
    const LAYOUT: &'static str = "exact-u64-v1";

    #[inline]
    fn pack(&self, key: u64, _generation: Generation) -> Bits<Self> {
        (key & CHECK_MASK)
            | u64::from(self.aux) << AUX_SHIFT
            | u64::from(self.value.get()) << VALUE_SHIFT
    }

    #[inline]
    fn unpack(bits: Bits<Self>) -> Option<(Self, Generation)> {
        let value = NonZeroU8::new((bits >> VALUE_SHIFT) as u8)?;
        let aux = (bits >> AUX_SHIFT) as u8;
        Some((ExactEntry { value, aux }, 0))
    }

    #[inline]
    fn verifies(bits: Bits<Self>, key: u64) -> bool {
        (bits ^ key) & CHECK_MASK == 0
    }

    fn depth(&self) -> Depth {
        self.aux
    }

    fn bound(&self) -> Bound {
        Bound::Exact
    }

    #[inline]
    fn key_bit(bits: u64, bit: u32) -> Option<bool> {
        (bit < CHECK_BITS).then_some(bits >> bit & 1 == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::testing::{assert_round_trips, exact_table};
    use crate::{
        scheme::Scheme,
        table::{Config, Size, Table},
    };

    #[test]
    fn every_value_and_depth_round_trips() {
        for v in 1..=u8::MAX {
            for aux in [0, 1, 42, u8::MAX] {
                assert_round_trips(ExactEntry {
                    value: NonZeroU8::new(v).expect("v starts at 1"),
                    aux,
                });
            }
        }
    }

    /// The exactness argument, checked: keys that share the low 48 bits (differ only above
    /// bit 48) land in different buckets of a table with `MIN_BUCKETS` buckets, at the edges
    /// of the key range and for odd bucket counts too.
    #[test]
    fn keys_sharing_the_check_never_share_a_bucket() {
        for ways in [1, 8] {
            for buckets in [ExactEntry::MIN_BUCKETS, ExactEntry::MIN_BUCKETS + 7] {
                let table = exact_table::<ExactEntry>(buckets, ways);
                for low in [0, 1, 0x1234_5678_9abc, CHECK_MASK] {
                    let mut last = None;
                    for high in (0..1u64 << 16).step_by(97).chain([(1 << 16) - 1]) {
                        let index = table.bucket_index(high << CHECK_BITS | low);
                        assert!(last.is_none_or(|l| l < index), "{high:x} {low:x}");
                        last = Some(index);
                    }
                }
            }
        }
    }

    /// No false hits: fill a minimum-size direct-mapped table with keys that all share
    /// their low 48 bits, then probe for other such keys.
    #[test]
    fn colliding_checks_are_misses() {
        let config = Config {
            scheme: Scheme::New,
            ways: Some(1),
            ..Config::default()
        };
        let size = Size::Entries(ExactEntry::MIN_BUCKETS as u64);
        let table = Table::<ExactEntry>::new(size, config).expect("small table");
        let entry = ExactEntry {
            value: NonZeroU8::MIN,
            aux: 3,
        };
        let key = |high: u64| high << CHECK_BITS | 0xabc;
        for high in (0..1 << 16).step_by(2) {
            table.store(key(high), entry);
        }
        for high in 0..1 << 16 {
            let expected = (high % 2 == 0).then_some(entry);
            assert_eq!(table.probe(key(high)), expected, "{high:x}");
        }
    }
}
