//! The Connect Four study's observations: one CSV row per solve.

use crate::experiment::{csv::CsvRow, schemes::SchemeSpec};

/// One solve: a position under one (scheme, size).
#[derive(Clone, Debug)]
pub(super) struct Row {
    /// The scheme and its ways.
    pub(super) scheme: SchemeSpec,
    /// Entries asked for (the table holds them rounded down to whole buckets).
    pub(super) size: u64,
    /// Index of the position in the test set.
    pub(super) index: usize,
    /// Positions the solver explored.
    pub(super) nodes: u64,
    /// Wall time in microseconds (not deterministic).
    pub(super) micros: u64,
    /// Table probes.
    pub(super) probes: u64,
    /// Probes that found an entry.
    pub(super) hits: u64,
    /// Stores that displaced another position.
    pub(super) overwrites: u64,
}

impl CsvRow for Row {
    const HEADER: &'static str = "scheme,size,position,nodes,micros,probes,hits,overwrites";

    fn to_csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{}",
            self.scheme,
            self.size,
            self.index,
            self.nodes,
            self.micros,
            self.probes,
            self.hits,
            self.overwrites
        )
    }
}
