//! A 16-byte solver entry, exact for position codes of up to 128 bits: an [`ExactEntry`]'s
//! 48 key check bits, depth and value byte, plus 64 more bits of the code kept whole, all in
//! one 128-bit atomic.
//!
//! Why it exists: [`ExactEntry`] is exact because the table key *is* the position code,
//! mixed by a bijection, which needs a code of at most 64 bits. Connect Four's
//! `W·(H + 1)`-bit code outgrows that on 7×9 (70 bits) or 9×9 (90 bits). Hashing such a code
//! down to 64 bits would let two positions share a key, a collision no key check can see;
//! rare, but an exhaustive solver must never be wrong. So the entry keeps the bits the key
//! cannot hold.
//!
//! # Exactness
//!
//! The table sees 64-bit keys only, so the code is split in two, and each part is told
//! apart its own way.
//!
//! 1. **The caller** maps its code `c` injectively to a pair `(k, rest)` of a 64-bit table
//!    key and a 64-bit rest. For example `rest = c >> 64` and
//!    `k = (low64(c) XOR g(rest)) · M`, with `M` odd and `g` any function (a mix of `rest`,
//!    so that codes differing only in their high bits spread over the table): multiplying by
//!    an odd number is a bijection of 64-bit words, so `(k, rest)` gives back
//!    `low64(c) = (k · M⁻¹) XOR g(rest)` and the high bits, hence `c`. Bits of `rest` that the
//!    code leaves free (38 for a 90-bit code) may hold anything else that must tell entries
//!    apart, such as an epoch, so that a table need not be cleared between problems: they
//!    are part of the pair, which stays injective.
//! 2. **The table**, with at least [`WideExactEntry::MIN_BUCKETS`] buckets in use, tells
//!    keys apart by bucket and check bits: [`ExactEntry`]'s argument (its module docs, the
//!    same 48 low bits and the same multiply index) shows that two keys in one bucket differ
//!    in their low 48 bits, so an entry that verifies against `k` in `k`'s bucket was stored
//!    with key `k`.
//! 3. **The entry** keeps `rest` whole, and one 16-byte atomic store writes it with the check
//!    bits, depth and value, and one load reads them back together (an
//!    [`AtomicU128`](portable_atomic::AtomicU128); [`crate::cell`] says why not two words
//!    with XOR verification): the fields of a probed entry all come from one store.
//!
//! So an entry that [`Table::probe`]`(k)` returns and whose `rest` is the caller's `rest` was
//! stored for `(k, rest)`, that is for exactly `c`.
//!
//! # The caller's part
//!
//! - **Compare `rest` after every probe**: `table.probe(k).filter(|e| e.rest == rest)`. The
//!   table cannot do it: it sees 64-bit keys, and two codes with the same `k` are one
//!   position to it. An entry with another `rest` is another position's: a miss.
//! - Map codes to `(k, rest)` injectively (step 1).
//! - Keep at least [`WideExactEntry::MIN_BUCKETS`] buckets in use (step 2): in
//!   [`Table::new`] and in `use_buckets(Buckets::First(n))`
//!   ([`Instrumented::use_buckets`](crate::table::Instrumented::use_buckets)).
//!
//! # Codes that share a table key
//!
//! What holds with any number of ways, any [`Scheme`](crate::scheme::Scheme) and any number of
//! threads: once `rest` is compared, a probe never answers with another code's entry. Two codes
//! `c₁ ≠ c₂` with the same `k` cost hits, never correctness:
//!
//! - Every scheme stores a key over the slot that already verifies it (rule 1 of
//!   [`crate::scheme`]; a two-level scheme may write the first slot and drop that one
//!   instead), so a bucket of any number of ways holds one entry per `k`, as a bucket of one
//!   way does: a store of `c₂` replaces the entry of `c₁`, and a probe for `c₁` then misses.
//!   Under [`Scheme::KeepDeep`](crate::scheme::Scheme::KeepDeep), which keeps a deeper entry
//!   of "the same position", the store of `c₂` may be refused instead, and a probe for `c₂`
//!   misses.
//! - Two threads that store the same `k` at once into a bucket of several ways may both
//!   find no slot verifying `k` and take two slots. A probe returns the first slot that
//!   verifies; if that is `c₁`'s, a probe for `c₂` misses although `c₂`'s entry is in the
//!   bucket, until a store of either code updates that first slot.
//!
//! So the number of ways is chosen as for any table, for hits; exactness does not depend
//! on it.
//!
//! Cost: 16 bytes per entry, four per 64-byte cache line, twice an [`ExactEntry`].
//!
//! The module is private, so [`WideExactEntry`]'s own docs repeat the caller's part, with an
//! example, where users read them.

use super::{
    bound::Bound,
    exact::ExactEntry,
    packing::{Bits, Depth, Entry, Generation},
};
use std::num::NonZeroU8;

/// Where `rest` starts: above the low word, which is an [`ExactEntry`]'s, packed by its code,
/// so its exactness argument carries over.
const REST_SHIFT: u32 = 64;

/// A 16-byte entry, four to a cache line: the key's low 48 bits, a depth, one non-zero byte
/// that the solver uses for its own score-and-bound code (0 marks the empty slot), and 64
/// bits of the position code that the table key does not hold.
///
/// Layout, from bit 0 (the low 64 bits are exactly an [`ExactEntry`]'s):
///
/// | bits | field |
/// |---|---|
/// | 0..48 | key check: the key's low 48 bits |
/// | 48..56 | `aux`: the solver's second byte (the depth a DEEP-like scheme reads, or anything under always-replace) |
/// | 56..64 | value, non-zero |
/// | 64..128 | rest: the caller's 64 bits beside the key |
///
/// No generation: a solver clears its table per problem, or folds an epoch into its keys or
/// rests.
///
/// # Exact for codes of up to 128 bits, with the caller's help
///
/// The table sees 64-bit keys. The caller
/// - maps its position code `c` **injectively** to a table key `k` and a `rest`, for example
///   `rest = c >> 64` and `k = (low64(c) XOR mix(rest)) · M` with `M` odd (so `c` can be
///   worked back from `(k, rest)`); free high bits of `rest` may carry an epoch;
/// - keeps at least [`WideExactEntry::MIN_BUCKETS`] buckets in use, so that the 48 check bits
///   and the bucket tell every key apart, as for [`ExactEntry`];
/// - **compares `rest` after every probe**: `table.probe(k).filter(|e| e.rest == rest)`. The
///   table cannot, and an entry with another `rest` is another position's.
///
/// Then a hit is for exactly `c`, with any number of ways, any scheme and any number of
/// threads (the entry is one 16-byte atomic, so its fields never come from two writes). Two
/// codes with the same `k` cost hits, never correctness: a bucket keeps one entry per key, so
/// the later store replaces the earlier one (or, under
/// [`Scheme::KeepDeep`](crate::scheme::Scheme::KeepDeep), is refused if the earlier is
/// deeper), and two threads storing one key at once may leave two slots of which a probe sees
/// only the first. The argument is in the source's module docs
/// (`src/entry/wide.rs`).
///
/// ```
/// use std::num::NonZeroU8;
/// use transpo::{Table, entry::WideExactEntry, key::mix, table::Instrumented};
///
/// /// A code of up to 128 bits as a table key and a rest, injectively.
/// fn split(code: u128) -> (u64, u64) {
///     let rest = (code >> 64) as u64;
///     let key = (code as u64 ^ mix(rest)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
///     (key, rest)
/// }
///
/// let table = Table::<WideExactEntry>::with_mib(4)?; // 65,536 buckets of 4
/// assert!(table.shape().buckets_in_use >= WideExactEntry::MIN_BUCKETS);
/// let probe = |code| {
///     let (key, rest) = split(code);
///     table.probe(key).filter(|e| e.rest == rest) // the caller's part
/// };
/// let code = 0x2ab_cdef_u128 << 64 | 0x1234_5678_9abc_def0; // a 90-bit code
/// let (key, rest) = split(code);
/// let entry = WideExactEntry { value: NonZeroU8::new(3).expect("3 ≠ 0"), aux: 12, rest };
/// table.store(key, entry);
/// assert_eq!(probe(code), Some(entry));
/// assert_eq!(probe(code ^ 1 << 80), None);
/// # Ok::<(), transpo::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WideExactEntry {
    /// The solver's byte.
    pub value: NonZeroU8,
    /// The solver's second byte, free for its own use. A depth-preferring scheme reads it as
    /// the work below the entry ([`Entry::depth`], e.g. empty squares left); under one that
    /// never reads depth (always replace) it can carry anything: `transpo-connect4` keeps its
    /// best column + 1 there.
    pub aux: u8,
    /// The part of the position code (and anything else, e.g. an epoch) that the table key
    /// does not hold; stored whole, for the caller to compare after a probe.
    pub rest: u64,
}

impl WideExactEntry {
    /// The fewest buckets in use for which the key check is exact, as for
    /// [`ExactEntry::MIN_BUCKETS`] (see the module docs).
    pub const MIN_BUCKETS: usize = ExactEntry::MIN_BUCKETS;

    /// The low word: the same fields as an [`ExactEntry`].
    fn low(&self) -> ExactEntry {
        ExactEntry {
            value: self.value,
            aux: self.aux,
        }
    }
}

impl Entry for WideExactEntry {
    type Cell = portable_atomic::AtomicU128;
    const GENERATION_BITS: u32 = 0;
    const LAYOUT: &'static str = "exact-wide-u128-v1";

    #[inline]
    fn pack(&self, key: u64, generation: Generation) -> Bits<Self> {
        u128::from(self.low().pack(key, generation)) | u128::from(self.rest) << REST_SHIFT
    }

    #[inline]
    fn unpack(bits: Bits<Self>) -> Option<(Self, Generation)> {
        let (ExactEntry { value, aux }, generation) = ExactEntry::unpack(bits as u64)?;
        let rest = (bits >> REST_SHIFT) as u64;
        Some((WideExactEntry { value, aux, rest }, generation))
    }

    #[inline]
    fn verifies(bits: Bits<Self>, key: u64) -> bool {
        ExactEntry::verifies(bits as u64, key)
    }

    fn depth(&self) -> Depth {
        self.aux
    }

    fn bound(&self) -> Bound {
        Bound::Exact
    }

    #[inline]
    fn key_bit(bits: Bits<Self>, bit: u32) -> Option<bool> {
        ExactEntry::key_bit(bits as u64, bit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::exact::{CHECK_BITS, CHECK_MASK, VALUE_SHIFT};
    use crate::entry::testing::{assert_round_trips, exact_table};
    use crate::{
        error::Error,
        key::mix,
        scheme::Scheme,
        table::{Config, Size, Stored, Table},
    };

    /// An entry whose every field is a function of `x`.
    fn entry_of(x: u64) -> WideExactEntry {
        let h = mix(x);
        WideExactEntry {
            value: NonZeroU8::new((h % 255 + 1) as u8).expect("1..=255"),
            aux: (h >> 8) as u8,
            rest: x.rotate_left(7) ^ 0x5a5a_0f0f_3c3c_9696,
        }
    }

    /// A table of `entries` slots of one way, always-replace.
    fn direct_mapped(entries: usize) -> Table<WideExactEntry> {
        let config = Config {
            scheme: Scheme::New,
            ways: Some(1),
            ..Config::default()
        };
        Table::new(Size::Entries(entries as u64), config).expect("small table")
    }

    #[test]
    fn every_value_depth_and_rest_round_trips() {
        for v in 1..=u8::MAX {
            for aux in [0, 1, 42, u8::MAX] {
                for rest in [0, 1, 1 << 63, 0x0123_4567_89ab_cdef, u64::MAX] {
                    assert_round_trips(WideExactEntry {
                        value: NonZeroU8::new(v).expect("v starts at 1"),
                        aux,
                        rest,
                    });
                }
            }
        }
    }

    /// The bits are those [`WideExactEntry::LAYOUT`] names: a change here must change the
    /// layout's name, or saved tables would load with another meaning. The low word is an
    /// [`ExactEntry`]'s, which is what lets its exactness argument carry over.
    #[test]
    fn the_layout_is_pinned_and_its_low_word_is_an_exact_entry() {
        let entry = WideExactEntry {
            value: NonZeroU8::new(0xa5).expect("not zero"),
            aux: 0x3c,
            rest: 0x0123_4567_89ab_cdef,
        };
        let key = 0xffff_1234_5678_9abc;
        let bits = entry.pack(key, 0);
        assert_eq!(bits, 0x0123_4567_89ab_cdef_a53c_1234_5678_9abc);
        let narrow = ExactEntry {
            value: entry.value,
            aux: entry.aux,
        };
        assert_eq!(bits as u64, narrow.pack(key, 0));
        for bit in 0..64 {
            assert_eq!(
                WideExactEntry::key_bit(bits, bit),
                ExactEntry::key_bit(bits as u64, bit),
                "bit {bit}"
            );
        }
        // An empty value is an empty slot, whatever the other bits say.
        assert_eq!(WideExactEntry::unpack(bits & !(0xff << VALUE_SHIFT)), None);
    }

    /// The exactness argument, checked: keys that share the low 48 bits land in different
    /// buckets of a table with `MIN_BUCKETS` buckets, at the edges of the key range and for
    /// odd bucket counts too.
    #[test]
    fn keys_sharing_the_check_never_share_a_bucket() {
        for ways in [1, 4] {
            for buckets in [WideExactEntry::MIN_BUCKETS, WideExactEntry::MIN_BUCKETS + 7] {
                let table = exact_table::<WideExactEntry>(buckets, ways);
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

    /// No false hits, and the rest comes back whole: fill a minimum-size direct-mapped table
    /// with keys that all share their low 48 bits, each with its own rest, then probe for
    /// those and for other such keys.
    #[test]
    fn colliding_checks_are_misses_and_rests_come_back() {
        let table = direct_mapped(WideExactEntry::MIN_BUCKETS);
        let key = |high: u64| high << CHECK_BITS | 0xabc;
        for high in (0..1 << 16).step_by(2) {
            table.store(key(high), entry_of(high));
        }
        for high in 0..1 << 16 {
            let expected = (high % 2 == 0).then(|| entry_of(high));
            let found = table.probe(key(high));
            assert_eq!(found, expected, "{high:x}");
            // The caller's check: the same key with another rest is another code.
            let other_rest = entry_of(high).rest ^ 1 << 40;
            assert_eq!(found.filter(|e| e.rest == other_rest), None, "{high:x}");
        }
    }

    /// Two codes with one table key: in a bucket of any number of ways the second replaces
    /// the first (one slot holds the key), so a probe for the first, its rest compared, is a
    /// miss; a scheme that keeps the deeper entry of "the same position" refuses the second
    /// instead, and the probe for the second misses. Never the other code's entry.
    #[test]
    fn a_second_code_with_the_same_key_replaces_the_first() {
        let key = 0x0123_4567_89ab_cdef;
        let first = WideExactEntry {
            aux: 9,
            ..entry_of(1)
        };
        let second = WideExactEntry {
            aux: 3,
            ..entry_of(2)
        };
        let for_rest = |table: &Table<WideExactEntry>, rest| {
            table.probe(key).filter(|e: &WideExactEntry| e.rest == rest)
        };
        for (scheme, ways) in [
            (Scheme::New, 1),
            (Scheme::Deep, 1),
            (Scheme::TwoDeep, 2),
            (Scheme::DepthAge { k: 8 }, 4),
            (Scheme::Priority, 4),
            (Scheme::KeepDeep { k: 8 }, 4),
        ] {
            let config = Config {
                scheme,
                ways: Some(ways),
                ..Config::default()
            };
            let entries = (WideExactEntry::MIN_BUCKETS * ways) as u64;
            let table = Table::<WideExactEntry>::new(Size::Entries(entries), config)
                .expect("a small table");
            // Fill the bucket with other keys first, so the second code has a choice.
            for other in 1..ways as u64 {
                table.store(key + other, entry_of(other + 10));
            }
            table.store(key, first);
            let stored = table.store(key, second);
            let holding = table
                .bucket_bits(key)
                .into_iter()
                .filter(|&bits| {
                    WideExactEntry::verifies(bits, key) && WideExactEntry::unpack(bits).is_some()
                })
                .count();
            assert_eq!(holding, 1, "{scheme}: one slot per key");
            let kept = if stored == Stored::Refused {
                assert!(matches!(scheme, Scheme::KeepDeep { .. }), "{scheme}");
                first
            } else {
                assert_eq!(stored, Stored::Updated, "{scheme}");
                second
            };
            let lost = if kept == first { second } else { first };
            assert_eq!(for_rest(&table, kept.rest), Some(kept), "{scheme}");
            assert_eq!(for_rest(&table, lost.rest), None, "{scheme}");
        }
    }

    /// A saved table loads back cell for cell, and only into a table of this layout.
    #[test]
    #[cfg(feature = "persist")]
    fn save_and_load_round_trip_and_other_layouts_are_refused() {
        let config = Config {
            scheme: Scheme::DepthAge { k: 8 },
            ..Config::default()
        };
        let entries = 4 * 256;
        let table = Table::<WideExactEntry>::new(Size::Entries(entries), config).expect("small");
        let keys: Vec<u64> = (0..600).map(mix).collect();
        for &key in &keys {
            table.store(key, entry_of(key));
        }
        let mut file = Vec::new();
        table.save(&mut file).expect("save to memory");
        let mut loaded =
            Table::<WideExactEntry>::new(Size::Entries(entries), config).expect("small");
        loaded.load(file.as_slice()).expect("load");
        let hits = keys.iter().filter(|&&k| table.probe(k).is_some()).count();
        assert!(hits > 500, "{hits}");
        for &key in &keys {
            assert_eq!(loaded.probe(key), table.probe(key), "{key:x}");
            assert_eq!(loaded.bucket_bits(key), table.bucket_bits(key), "{key:x}");
        }
        // An ExactEntry table of as many entries reads the layout and refuses the file.
        let mut narrow = Table::<ExactEntry>::new(Size::Entries(entries), config).expect("small");
        let refused = narrow.load(file.as_slice()).expect_err("another layout");
        assert!(
            matches!(&refused, Error::Mismatch(m) if m.contains("exact-wide-u128-v1")),
            "{refused}"
        );
        // And the other way round.
        let mut file = Vec::new();
        narrow.save(&mut file).expect("save to memory");
        assert!(matches!(
            loaded.load(file.as_slice()),
            Err(Error::Mismatch(_))
        ));
        assert_eq!(
            loaded.probe(keys[0]),
            table.probe(keys[0]),
            "left untouched"
        );
    }

    /// Threads fight over one slot, each write an entry whose value and depth are functions
    /// of its rest: a load that mixed two writes (a torn read) would break the relation.
    #[test]
    fn one_slot_fought_over_never_tears() {
        let table = direct_mapped(1);
        let key = 0x0bad_cafe_f00d;
        let threads = 4;
        let hits = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|scope| {
            for thread in 0..threads {
                let (table, hits) = (&table, &hits);
                scope.spawn(move || {
                    let mut x = thread;
                    for i in 0..200_000 {
                        x = mix(x + 1);
                        if i % 2 == 0 {
                            let entry = entry_of(x);
                            table.store(key, entry);
                        } else if let Some(found) = table.probe(key) {
                            let x = (found.rest ^ 0x5a5a_0f0f_3c3c_9696).rotate_right(7);
                            assert_eq!(found, entry_of(x), "torn entry");
                            hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert!(hits.into_inner() > 100_000);
    }
}
