//! Counters a lab can read: what the table was asked and what it did.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Live counters, on their own cache line so that counting does not slow the table's
/// read-mostly fields down.
#[derive(Default)]
#[repr(align(64))]
pub(crate) struct Counters {
    pub(crate) probes: AtomicU64,
    pub(crate) hits: AtomicU64,
    pub(crate) stores: AtomicU64,
    pub(crate) overwrites: AtomicU64,
    pub(crate) refused: AtomicU64,
}

impl Counters {
    /// The counts so far, each read and set back to zero in one atomic step.
    pub(crate) fn take(&self) -> Stats {
        Stats {
            probes: self.probes.swap(0, Relaxed),
            hits: self.hits.swap(0, Relaxed),
            stores: self.stores.swap(0, Relaxed),
            overwrites: self.overwrites.swap(0, Relaxed),
            refused: self.refused.swap(0, Relaxed),
        }
    }
}

/// A snapshot of a table's counters ([`crate::Table::take_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Calls to `probe`.
    pub probes: u64,
    /// Probes that found an entry.
    pub hits: u64,
    /// Stores that wrote an entry (into an empty slot, over the same position, or over
    /// another position).
    pub stores: u64,
    /// Stores that displaced an entry for a different position (collisions lost by the old
    /// entry).
    pub overwrites: u64,
    /// Stores the scheme refused (collisions lost by the new entry).
    pub refused: u64,
}
