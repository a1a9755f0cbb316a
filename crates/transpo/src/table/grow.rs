//! The buckets in use: a prefix of the table's memory that can start small and grow.

use super::{MAX_WAYS, Table, slots, store_slot};
use crate::{cell::Cell, entry::Entry};

/// Which buckets a table's probes and stores use from now on (see [`Table::use_buckets`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buckets {
    /// The first `n` buckets (at least one, at most all), emptied: the table forgets
    /// everything, at the cost of clearing `n` buckets rather than all of them.
    First(usize),
    /// Twice as many as now, or all of them, keeping the entries that can move.
    Doubled,
}

impl<E: Entry> Table<E> {
    /// Makes probes and stores use the buckets `which` says, and returns how many that is
    /// (also [`crate::Shape::buckets_in_use`]).
    ///
    /// Why: a small problem solved in a big table pays a cache miss for nearly every probe,
    /// because its few entries are spread over all the memory; kept in the first `n` buckets
    /// they stay in the cache. Start small ([`Buckets::First`]) and grow
    /// ([`Buckets::Doubled`]) as the search explores more positions. (A solver that needs
    /// exact keys, like [`crate::ExactEntry`], must keep `n` at or above its minimum bucket
    /// count.)
    ///
    /// [`Buckets::First`] asks for `n` buckets; a count of 0 uses one and a count above the
    /// table's buckets ([`crate::Shape::buckets`]) uses all of them.
    ///
    /// [`Buckets::Doubled`]: when the count was a power of two and doubles, every entry moves
    /// to its bucket under the new count if the entry type knows the key bit that decides it
    /// ([`Entry::key_bit`]; [`crate::ExactEntry`] does), and is dropped otherwise: with
    /// `2^k` buckets in use a key's bucket is its top `k` bits, so bucket `i` splits into
    /// `2i` and `2i + 1` by key bit `63 − k`. Any other growth empties the buckets now in use.
    /// Costs one pass over the buckets that were in use.
    ///
    /// ```
    /// use transpo::{Buckets, ExactEntry, Table};
    ///
    /// let mut table = Table::<ExactEntry>::with_mib(16)?; // 2^18 buckets of 8 entries
    /// assert_eq!(table.use_buckets(Buckets::First(ExactEntry::MIN_BUCKETS)), 1 << 16);
    /// assert_eq!(table.use_buckets(Buckets::Doubled), 1 << 17);
    /// assert_eq!(table.use_buckets(Buckets::Doubled), 1 << 18);
    /// assert_eq!(table.use_buckets(Buckets::Doubled), 1 << 18); // all of them already
    /// assert_eq!(table.shape().buckets_in_use, 1 << 18);
    /// # Ok::<(), transpo::Error>(())
    /// ```
    pub fn use_buckets(&mut self, which: Buckets) -> usize {
        match which {
            Buckets::First(n) => self.restart(n.clamp(1, self.buckets)),
            Buckets::Doubled => self.grow(),
        }
        self.in_use
    }

    /// Uses the first `n` buckets, emptied.
    fn restart(&mut self, n: usize) {
        self.in_use = n;
        Self::empty(self.first_buckets(n));
    }

    /// Doubles the buckets in use, or goes up to all of them (see [`Table::use_buckets`]).
    fn grow(&mut self) {
        let old = self.in_use;
        let new = old.saturating_mul(2).min(self.buckets);
        if new == 2 * old && old.is_power_of_two() {
            // Descending, so each source is read before anything is written over it: bucket
            // i's destinations 2i and 2i + 1 are i itself or buckets already moved out.
            for i in (0..old).rev() {
                self.split(i, 63 - old.trailing_zeros());
            }
        } else if new != old {
            Self::empty(self.first_buckets(new));
        }
        self.in_use = new;
    }

    /// Moves the entries of bucket `i` to buckets `2i` (key bit `bit` clear) and `2i + 1`
    /// (set), dropping those whose bit is unknown, and empties the rest of both.
    fn split(&self, i: usize, bit: u32) {
        let per_bucket = self.cells_per_bucket();
        let cells = self.cells.cells();
        let mut halves = [[<E::Cell as Cell>::EMPTY; MAX_WAYS]; 2];
        let mut filled = [0; 2];
        for bits in slots(&cells[i * per_bucket..(i + 1) * per_bucket]) {
            if E::unpack(bits).is_some()
                && let Some(upper) = E::key_bit(bits, bit)
            {
                let half = usize::from(upper);
                halves[half][filled[half]] = bits;
                filled[half] += 1;
            }
        }
        for (half, moved) in halves.iter().enumerate() {
            let start = (2 * i + half) * per_bucket;
            let bucket = &cells[start..start + per_bucket];
            for (slot, bits) in moved.iter().take(self.ways).enumerate() {
                store_slot(bucket, slot, *bits);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bound, CompactEntry, Config, Size, table::tests::random_keys};

    fn exact_table(ways: usize) -> Table<crate::ExactEntry> {
        crate::entry::tests::exact_table(crate::ExactEntry::MIN_BUCKETS * 16, ways)
    }

    fn exact(key: u64) -> crate::ExactEntry {
        crate::ExactEntry {
            value: std::num::NonZeroU8::new((key >> 56) as u8 | 1).expect("or 1"),
            aux: key as u8,
        }
    }

    /// Growing keeps exactly what was retrievable (a bucket only ever splits in two), and
    /// every key is then found in its bucket under the new count.
    #[test]
    fn growing_keeps_every_retrievable_exact_entry() {
        for ways in [1, 4] {
            let mut t = exact_table(ways);
            t.use_buckets(Buckets::First(crate::ExactEntry::MIN_BUCKETS));
            let keys = random_keys(300_000, ways as u64);
            for &k in &keys {
                t.store(k, exact(k));
            }
            let found = |t: &Table<crate::ExactEntry>| -> Vec<u64> {
                keys.iter()
                    .copied()
                    .filter(|&k| t.probe(k) == Some(exact(k)))
                    .collect()
            };
            let before = found(&t);
            assert!(before.len() > 50_000, "{}", before.len());
            for doubling in 1..=4 {
                assert_eq!(
                    t.use_buckets(Buckets::Doubled),
                    crate::ExactEntry::MIN_BUCKETS << doubling
                );
                assert_eq!(found(&t), before, "ways {ways}, doubling {doubling}");
            }
            // All buckets are in use now: growing again changes nothing.
            assert_eq!(t.use_buckets(Buckets::Doubled), t.shape().buckets);
            assert_eq!(found(&t), before);
            // The entries really sit where the new count sends them.
            for &k in &before {
                assert!(
                    t.bucket_bits(k)
                        .iter()
                        .any(|&b| b & ((1 << 48) - 1) == k & ((1 << 48) - 1))
                );
            }
        }
    }

    #[test]
    fn entries_without_key_bits_are_dropped_and_odd_growth_empties() {
        let mut t =
            Table::<CompactEntry>::new(Size::Entries(1 << 16), Config::default()).expect("512 KiB");
        t.use_buckets(Buckets::First(1 << 10));
        let keys = random_keys(500, 7);
        let entry = CompactEntry {
            mv: 1,
            score: 2,
            depth: 3,
            bound: Bound::Lower,
        };
        for &k in &keys {
            t.store(k, entry);
        }
        assert!(keys.iter().any(|&k| t.probe(k).is_some()));
        assert_eq!(t.use_buckets(Buckets::Doubled), 1 << 11);
        assert!(keys.iter().all(|&k| t.probe(k).is_none()));
        assert!(keys.iter().all(|&k| t.bucket_index(k) < 1 << 11));

        // 3 of 5 buckets → 5: not a doubling, so the table empties.
        let mut t = exact_table(1);
        let five = crate::ExactEntry::MIN_BUCKETS * 5;
        let mut small =
            Table::<crate::ExactEntry>::new(Size::Entries(five as u64), t.shape().config)
                .expect("small");
        small.use_buckets(Buckets::First(five * 3 / 5));
        for &k in &keys {
            small.store(k, exact(k));
        }
        assert_eq!(small.use_buckets(Buckets::Doubled), five);
        assert!(keys.iter().all(|&k| small.probe(k).is_none()));
        // First(n) empties what it keeps and takes impossible counts to the nearest possible.
        let all = t.shape().buckets;
        t.store(keys[0], exact(keys[0]));
        assert_eq!(t.use_buckets(Buckets::First(all)), all);
        assert_eq!(t.probe(keys[0]), None);
        t.store(keys[0], exact(keys[0]));
        assert_eq!(t.use_buckets(Buckets::First(all + 1)), all);
        assert_eq!(t.probe(keys[0]), None);
        assert_eq!(t.use_buckets(Buckets::First(0)), 1);
        assert_eq!(t.shape().buckets_in_use, 1);
        assert_eq!(t.use_buckets(Buckets::First(usize::MAX)), all);
    }

    #[test]
    #[cfg(feature = "persist")]
    fn a_table_using_part_of_its_buckets_is_not_saved() {
        let mut t = exact_table(1);
        t.use_buckets(Buckets::First(crate::ExactEntry::MIN_BUCKETS));
        let msg = t.save(Vec::new()).expect_err("part in use").to_string();
        assert!(msg.contains("grow it"), "{msg}");
        while t.use_buckets(Buckets::Doubled) < t.shape().buckets {}
        t.save(Vec::new()).expect("all in use");
    }
}
