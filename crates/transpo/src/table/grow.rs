//! The buckets in use: a prefix of the table's memory that can start small and grow.

use super::{
    config::MAX_WAYS,
    front::{Table, slots, store_slot},
};
use crate::{cell::Cell, entry::Entry};

/// Which buckets a table's probes and stores use from now on (see
/// [`Instrumented::use_buckets`](super::Instrumented::use_buckets)).
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
    /// (see [`Instrumented::use_buckets`](super::Instrumented::use_buckets)).
    pub(super) fn set_buckets_in_use(&mut self, which: Buckets) -> usize {
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

    /// Doubles the buckets in use, or goes up to all of them (see [`Buckets::Doubled`]).
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
