//! Storing: the table describes the bucket, the scheme decides, the table carries it out.
//!
//! Every rule is in [`crate::scheme`], and so is the choice of path
//! ([`Scheme::reads`](crate::scheme::Scheme::reads)): a one-slot bucket whose scheme never
//! refuses is written without a decision, and a two-level bucket is decided on its first slot
//! alone ([`Scheme::place_two_level`](crate::scheme::Scheme::place_two_level)). All paths
//! describe slots with [`Table::describe`] and name what a store did with [`Stored::over`];
//! a test checks that the quicker paths leave the same cells and outcomes as the general one.
//! A rule of the caller's own ([`Instrumented::store_by`](super::Instrumented::store_by))
//! takes the general path.

use super::{
    config::MAX_WAYS,
    front::{Table, load_slot, store_slot},
};
use crate::{
    cell::Cell,
    entry::{Bits, Entry, Generation},
    scheme::{Candidate, Placement, Reads, Replace, Slot},
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
    /// scheme ([`Instrumented::store_by`](super::Instrumented::store_by)). A placement
    /// outside the bucket is [`Stored::Refused`]. Counted like [`Table::store`].
    #[inline]
    pub(super) fn store_by_rule<R: Replace + ?Sized>(
        &self,
        key: u64,
        entry: E,
        rule: &R,
    ) -> Stored {
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

    /// [`Table::store`] through the scheme's [`Scheme::place`](crate::scheme::Scheme::place)
    /// (the configuration as a [`Replace`] rule), for any configuration (the quicker paths
    /// must agree with it; the tests check that they do).
    #[inline]
    pub(super) fn store_general(&self, key: u64, entry: E) -> Stored {
        self.store_by_rule(key, entry, &self.config)
    }

    /// [`Table::store_by_rule`] with scratch room for `N ≥ ways` slots.
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
