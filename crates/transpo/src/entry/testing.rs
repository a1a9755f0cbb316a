//! Helpers for the entries' tests.

use super::packing::{Entry, Generation};
use crate::{
    cell::Cell,
    scheme::Scheme,
    table::{Config, Size, Table},
};

/// A table of `E` ([`ExactEntry`](super::ExactEntry) or
/// [`WideExactEntry`](super::WideExactEntry)) with `buckets` buckets of `ways` slots:
/// always-replace when one-way, depth-and-age otherwise.
pub(crate) fn exact_table<E: Entry>(buckets: usize, ways: usize) -> Table<E> {
    let config = Config {
        scheme: if ways == 1 {
            Scheme::New
        } else {
            Scheme::DepthAge { k: 0 }
        },
        ways: Some(ways),
        ..Config::default()
    };
    let size = Size::Entries((buckets * ways) as u64);
    Table::new(size, config).expect("a small table")
}

/// Checks the packing contract for one entry against keys and generations at extremes.
pub(crate) fn assert_round_trips<E: Entry>(entry: E) {
    let max_gen = ((1u32 << E::GENERATION_BITS) - 1) as Generation;
    for key in [0, 1, 0xffff, 0x1234_5678_9abc_def0, u64::MAX] {
        for generation in [0, max_gen / 2, max_gen] {
            let bits = entry.pack(key, generation);
            assert_eq!(
                E::unpack(bits),
                Some((entry, generation)),
                "{entry:?} {key:x}"
            );
            assert!(E::verifies(bits, key), "{entry:?} key {key:x}");
            assert!(!E::verifies(bits, key ^ 1), "{entry:?} key {key:x}");
        }
    }
    assert_eq!(E::unpack(<E::Cell as Cell>::EMPTY), None);
}
