//! Storing: the table describes the bucket, the scheme decides, the table carries it out.
//!
//! Every rule is in [`crate::scheme`], and so is the choice of path
//! ([`crate::Scheme::reads`]): a one-slot bucket whose scheme never refuses is written without
//! a decision, and a two-level bucket is decided on its first slot alone
//! ([`crate::Scheme::place_two_level`]). All paths describe slots with [`Table::describe`]
//! and name what a store did with [`Stored::over`]; a test checks that the quicker paths
//! leave the same cells and outcomes as the general one.

use super::{Table, load_slot, store_slot};
use crate::{
    cell::Cell,
    entry::{Bits, Entry, Generation},
    scheme::{Candidate, Placement, Reads, Replace, Slot},
    table::MAX_WAYS,
};

/// What a [`Table::store`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// The entry went into an empty slot.
    Empty,
    /// The entry replaced an older entry for the same position.
    Updated,
    /// The entry replaced an entry for a different position (a collision).
    Overwrote,
    /// The scheme kept what the bucket held; the entry was dropped.
    Refused,
}

impl Stored {
    /// What writing over the slot described by `victim` does to it.
    #[inline]
    fn over(victim: &Slot) -> Stored {
        match (victim.occupied, victim.same_key) {
            (false, _) => Stored::Empty,
            (true, true) => Stored::Updated,
            (true, false) => Stored::Overwrote,
        }
    }
}

impl<E: Entry> Table<E> {
    /// Offers `entry` for `key` to the bucket; the scheme decides whether and where it goes.
    #[inline]
    pub fn store(&self, key: u64, entry: E) -> Stored {
        match self.config.scheme.reads(self.ways) {
            Reads::Nothing => self.store_first(key, entry),
            Reads::FirstSlot => self.store_two_level(key, entry),
            Reads::AllSlots => self.store_general(key, entry),
        }
    }

    /// Offers `entry` for `key` to the bucket, placed by `rule` instead of the table's
    /// scheme (see [`Replace`]: a closure or your own type). A placement outside the bucket
    /// is [`Stored::Refused`]. Counted like [`Table::store`].
    #[inline]
    pub fn store_by<R: Replace + ?Sized>(&self, key: u64, entry: E, rule: &R) -> Stored {
        // Scratch arrays sized for the bucket, so a 4-way store does not fill 16 slots.
        match self.ways {
            1 => self.store_with::<1, R>(key, entry, rule),
            2 => self.store_with::<2, R>(key, entry, rule),
            3 | 4 => self.store_with::<4, R>(key, entry, rule),
            5..=8 => self.store_with::<8, R>(key, entry, rule),
            _ => self.store_with::<MAX_WAYS, R>(key, entry, rule),
        }
    }

    /// What the scheme sees of a slot holding `bits`, when `key` is stored in generation
    /// `now`: the one place a slot's age and sameness are worked out.
    #[inline]
    fn describe(bits: Bits<E>, key: u64, now: Generation) -> Slot {
        Self::describe_occupied(bits, key, now).unwrap_or(Slot::EMPTY)
    }

    /// [`Table::describe`] for a slot that holds an entry; `None` for an empty one.
    #[inline]
    fn describe_occupied(bits: Bits<E>, key: u64, now: Generation) -> Option<Slot> {
        let (old, generation) = E::unpack(bits)?;
        Some(Slot {
            occupied: true,
            same_key: E::verifies(bits, key),
            depth: old.depth(),
            nodes: old.nodes(),
            bound: old.bound(),
            age: Self::age(now, generation),
        })
    }

    /// What the scheme sees of the entry being stored.
    #[inline]
    fn candidate(entry: &E) -> Candidate {
        Candidate {
            depth: entry.depth(),
            nodes: entry.nodes(),
            bound: entry.bound(),
        }
    }

    /// [`Table::store`] when the newcomer goes into the first slot whatever the bucket holds
    /// (a solver's one-way always-replace table): the slot is described only to name the
    /// outcome (measured: 6% of a Connect Four solve went to the general bucket scan).
    #[inline]
    fn store_first(&self, key: u64, entry: E) -> Stored {
        let bucket = self.bucket(key);
        let now = self.generation_bits();
        let bits = load_slot(bucket, 0);
        store_slot(bucket, 0, entry.pack(key, now));
        self.tally(Stored::over(&Self::describe(bits, key, now)))
    }

    /// [`Table::store`] for TWODEEP and TWOBIG1: decided on the first slot alone, reading
    /// the second slot only when its entry is displaced.
    #[inline]
    fn store_two_level(&self, key: u64, entry: E) -> Stored {
        let bucket = self.bucket(key);
        let now = self.generation_bits();
        let bits = load_slot(bucket, 0);
        let first = Self::describe(bits, key, now);
        let placement = self.config.scheme.place_two_level(
            &first,
            &Self::candidate(&entry),
            self.config.stamping,
        );
        let packed = entry.pack(key, now);
        // The second slot is read only when its entry is dropped.
        let outcome = match placement {
            Placement::Refuse => Stored::Refused,
            Placement::Replace(0) => {
                store_slot(bucket, 0, packed);
                Stored::over(&first)
            }
            Placement::Replace(_) => {
                let dropped = Self::describe(load_slot(bucket, 1), key, now);
                store_slot(bucket, 1, packed);
                Stored::over(&dropped)
            }
            Placement::PushFront => {
                let dropped = Self::describe(load_slot(bucket, 1), key, now);
                store_slot(bucket, 1, bits);
                store_slot(bucket, 0, packed);
                Stored::over(&dropped)
            }
        };
        self.tally(outcome)
    }

    /// [`Table::store`] through the scheme's [`crate::Scheme::place`] (the configuration as a
    /// [`Replace`] rule), for any configuration (the quicker paths must agree with it; the
    /// tests check that they do).
    #[inline]
    fn store_general(&self, key: u64, entry: E) -> Stored {
        self.store_by(key, entry, &self.config)
    }

    /// [`Table::store_by`] with scratch room for `N ≥ ways` slots.
    #[inline]
    fn store_with<const N: usize, R: Replace + ?Sized>(
        &self,
        key: u64,
        entry: E,
        rule: &R,
    ) -> Stored {
        let bucket = self.bucket(key);
        let now = self.generation_bits();
        let mut bits = [<E::Cell as Cell>::EMPTY; N];
        let mut slots = [Slot::EMPTY; N];
        if <E::Cell as Cell>::SLOTS == 1 {
            // One slot a cell (every layout but the dense one): the plain scan.
            for ((cell, bits), slot) in bucket.iter().zip(&mut bits).zip(&mut slots) {
                *bits = cell.load(0);
                // Empty slots keep `Slot::EMPTY` (writing it again costs a few percent).
                if let Some(occupied) = Self::describe_occupied(*bits, key, now) {
                    *slot = occupied;
                }
            }
        } else {
            for (i, (bits, slot)) in bits.iter_mut().zip(&mut slots).take(self.ways).enumerate() {
                *bits = load_slot(bucket, i);
                if let Some(occupied) = Self::describe_occupied(*bits, key, now) {
                    *slot = occupied;
                }
            }
        }
        let slots = &slots[..self.ways];
        let placement = rule.place(slots, &Self::candidate(&entry));
        let packed = entry.pack(key, now);
        let outcome = match placement {
            Placement::Refuse => Stored::Refused,
            Placement::Replace(i) if i < self.ways => {
                store_slot(bucket, i, packed);
                Stored::over(&slots[i])
            }
            // A rule's slot beyond the bucket, or a push into a one-slot bucket: refused.
            Placement::Replace(_) => Stored::Refused,
            Placement::PushFront if self.ways < 2 => Stored::Refused,
            Placement::PushFront => {
                store_slot(bucket, 1, bits[0]);
                store_slot(bucket, 0, packed);
                // The dropped entry is the second slot's; the first one only moved.
                Stored::over(&slots[1])
            }
        };
        self.tally(outcome)
    }

    /// Counts a store's outcome (when counting is on) and returns it.
    #[inline]
    fn tally(&self, outcome: Stored) -> Stored {
        self.count(|c| match outcome {
            Stored::Refused => &c.refused,
            _ => &c.stores,
        });
        if outcome == Stored::Overwrote {
            self.count(|c| &c.overwrites);
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Config, ResearchEntry, Scheme, Size, Stats,
        key::SplitMix64,
        table::tests::{chess, keys_in_first_bucket, one_slot, research},
    };

    #[test]
    fn depth_age_fills_a_bucket_then_evicts_the_shallowest() {
        let t = Table::new(Size::Entries(4), Config::default()).expect("one bucket");
        let keys: Vec<u64> = keys_in_first_bucket(5).collect();
        for (i, &key) in keys[..4].iter().enumerate() {
            assert_eq!(t.store(key, chess(10 - i as u8)), Stored::Empty);
        }
        assert_eq!(t.store(keys[1], chess(20)), Stored::Updated);
        assert_eq!(t.store(keys[4], chess(1)), Stored::Overwrote);
        assert_eq!(t.probe(keys[3]), None, "depth 7 was the shallowest");
        for key in [keys[0], keys[1], keys[2], keys[4]] {
            assert!(t.probe(key).is_some());
        }
    }

    #[test]
    fn push_front_moves_the_first_entry_down() {
        let config = Config {
            scheme: Scheme::TwoDeep,
            ..Config::default()
        };
        let t = Table::<ResearchEntry>::new(Size::Entries(2), config).expect("one bucket");
        t.store(1, research(3));
        t.store(2, research(5));
        let bits = t.bucket_bits(1);
        assert!(ResearchEntry::verifies(bits[0], 2) && ResearchEntry::verifies(bits[1], 1));
        t.store(3, research(4));
        let bits = t.bucket_bits(1);
        assert!(ResearchEntry::verifies(bits[0], 2) && ResearchEntry::verifies(bits[1], 3));
    }

    #[test]
    fn generations_wrap_around_the_entry_bits() {
        let t = one_slot(Config {
            stamping: true,
            ..one_slot_old()
        });
        let entry = research(1);
        t.store(1, entry);
        // 64 searches later the 6-bit generation comes round: the entry looks current again.
        for _ in 0..64 {
            t.new_search();
        }
        assert_eq!(t.store(2, entry), Stored::Refused);
        t.new_search();
        assert_eq!(t.store(2, entry), Stored::Overwrote);
        assert_eq!(t.generation(), 65);
    }

    #[test]
    fn counters_count_only_when_asked() {
        let quiet = Table::<crate::ChessEntry>::with_mib(1).expect("1 MiB");
        quiet.probe(1);
        assert_eq!(quiet.take_stats(), Stats::default());
        let t = one_slot(Config {
            counting: true,
            ..one_slot_old()
        });
        let entry = research(1);
        t.probe(1);
        t.store(1, entry);
        t.probe(1);
        t.store(2, entry);
        let s = t.take_stats();
        assert_eq!(
            (s.probes, s.hits, s.stores, s.refused, s.overwrites),
            (2, 1, 1, 1, 0)
        );
        assert_eq!(
            t.take_stats(),
            Stats::default(),
            "taking zeroes the counters"
        );
        t.probe(1);
        assert_eq!(t.take_stats().probes, 1, "and they count on from zero");
    }

    /// A rule of one's own goes through `store_by`; placements outside the bucket are
    /// refused, not a panic; and the configuration as a rule stores as `store` does.
    #[test]
    fn store_by_carries_out_any_rule_and_refuses_what_does_not_fit() {
        let t = Table::<crate::ChessEntry>::new(Size::Entries(4), Config::default())
            .expect("one bucket");
        let e = chess(3);
        let last = |slots: &[Slot], _: &Candidate| Placement::Replace(slots.len() - 1);
        assert_eq!(t.store_by(1, e, &last), Stored::Empty);
        assert!(
            crate::ChessEntry::verifies(t.bucket_bits(1)[3], 1),
            "went to the last slot"
        );
        assert_eq!(
            t.store_by(2, e, &|_: &[Slot], _: &Candidate| Placement::Replace(4)),
            Stored::Refused
        );
        let one = one_slot(one_slot_old());
        assert_eq!(
            one.store_by(2, research(1), &|_: &[Slot], _: &Candidate| {
                Placement::PushFront
            }),
            Stored::Refused
        );
        assert_eq!(one.probe(2), None);
        let by_config = Table::<crate::ChessEntry>::new(Size::Entries(4), Config::default())
            .expect("one bucket");
        let plain = Table::<crate::ChessEntry>::new(Size::Entries(4), Config::default())
            .expect("one bucket");
        for (i, key) in keys_in_first_bucket(9).enumerate() {
            let e = chess(i as u8 % 5);
            assert_eq!(
                by_config.store_by(key, e, &Config::default()),
                plain.store(key, e)
            );
        }
        assert_eq!(by_config.bucket_bits(1), plain.bucket_bits(1));
    }

    /// OLD, the scheme that refuses every collision.
    fn one_slot_old() -> Config {
        Config {
            scheme: Scheme::Old,
            ..Config::default()
        }
    }

    /// The quicker stores (one slot written blind for NEW and DEPTH-AGE, two-level buckets
    /// decided on their first slot) do exactly what the scheme's general `place` decides:
    /// same outcome for every store and the same cells after each, with time stamping on and
    /// off, across searches, over a pool of keys small enough that buckets fill and
    /// positions come back.
    #[test]
    fn quicker_stores_agree_with_the_general_store() {
        let configs = [
            (Scheme::New, 1),
            (Scheme::DepthAge { k: 8 }, 1),
            (Scheme::TwoDeep, 2),
            (Scheme::TwoBig1, 2),
        ];
        for (scheme, ways) in configs {
            for stamping in [false, true] {
                let config = Config {
                    scheme,
                    stamping,
                    ways: Some(ways),
                    counting: true,
                };
                let quick = Table::<ResearchEntry>::new(Size::Entries(64), config).expect("64");
                let general = Table::<ResearchEntry>::new(Size::Entries(64), config).expect("64");
                let mut rng = SplitMix64::new(11);
                let pool: Vec<u64> = (0..200).map(|_| rng.next_u64()).collect();
                for i in 0..20_000 {
                    let state = rng.next_u64();
                    let key = pool[(state % 200) as usize];
                    let entry = ResearchEntry {
                        depth: (state >> 8) as u8 % 12,
                        nodes: (state >> 16) % 1000,
                        ..research(0)
                    };
                    if i % 3000 == 2999 {
                        quick.new_search();
                        general.new_search();
                    }
                    let what = (scheme, stamping, i);
                    assert_eq!(
                        quick.store(key, entry),
                        general.store_general(key, entry),
                        "{what:?}"
                    );
                    let cells = |t: &Table<ResearchEntry>| {
                        t.cells().iter().map(|c| c.load(0)).collect::<Vec<_>>()
                    };
                    assert_eq!(cells(&quick), cells(&general), "{what:?}");
                }
                assert_eq!(quick.take_stats(), general.take_stats(), "{scheme:?}");
            }
        }
    }
}
