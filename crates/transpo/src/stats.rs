//! Counters a lab or an engine's `stats` command reads: what the table was asked and what it
//! did ([`Stats`]), and how full it is ([`Usage`]), through the table's
//! [`Instrumented`](crate::table::Instrumented) trait.

use std::{
    fmt,
    sync::atomic::{AtomicU64, Ordering::Relaxed},
};

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
    /// The counts so far, left as they are.
    pub(crate) fn read(&self) -> Stats {
        Stats {
            probes: self.probes.load(Relaxed),
            hits: self.hits.load(Relaxed),
            stores: self.stores.load(Relaxed),
            overwrites: self.overwrites.load(Relaxed),
            refused: self.refused.load(Relaxed),
        }
    }

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

/// A snapshot of a table's counters ([`Instrumented::stats`], [`Instrumented::take_stats`]).
///
/// [`Instrumented::stats`]: crate::table::Instrumented::stats
/// [`Instrumented::take_stats`]: crate::table::Instrumented::take_stats
///
/// `Display` prints one line: `probes 10 hits 4 (40.0%) stores 7 overwrites 1 refused 2`.
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

impl Stats {
    /// Hits per probe, 0 to 1 (0 with no probes).
    pub fn hit_rate(&self) -> f64 {
        if self.probes == 0 {
            0.0
        } else {
            self.hits as f64 / self.probes as f64
        }
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "probes {} hits {} ({:.1}%) stores {} overwrites {} refused {}",
            self.probes,
            self.hits,
            100.0 * self.hit_rate(),
            self.stores,
            self.overwrites,
            self.refused
        )
    }
}

/// How full a table is, counted over every slot
/// ([`Instrumented::usage`](crate::table::Instrumented::usage)).
///
/// `Display` prints one line: `entries 1200 of 4096 in use (29.3%), 800 from this search`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Slots in the buckets in use.
    pub slots: u64,
    /// Slots holding an entry.
    pub used: u64,
    /// Slots holding an entry written in the current search (since the last
    /// [`Table::new_search`](crate::Table::new_search); every used slot for entries without generation bits).
    pub current: u64,
}

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let percent = if self.slots == 0 {
            0.0
        } else {
            100.0 * self.used as f64 / self.slots as f64
        };
        write!(
            f,
            "entries {} of {} in use ({percent:.1}%), {} from this search",
            self.used, self.slots, self.current
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_and_usage_print_one_line() {
        let stats = Stats {
            probes: 10,
            hits: 4,
            stores: 7,
            overwrites: 1,
            refused: 2,
        };
        assert_eq!(
            stats.to_string(),
            "probes 10 hits 4 (40.0%) stores 7 overwrites 1 refused 2"
        );
        assert_eq!(Stats::default().hit_rate(), 0.0);
        let usage = Usage {
            slots: 4096,
            used: 1200,
            current: 800,
        };
        assert_eq!(
            usage.to_string(),
            "entries 1200 of 4096 in use (29.3%), 800 from this search"
        );
    }
}
