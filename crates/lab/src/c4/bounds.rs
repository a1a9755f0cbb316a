//! The Connect Four study's bound store: a research table of one (scheme, size) under the
//! solver, weighing each position by the positions explored below it.

use crate::experiment::schemes::SchemeSpec;
use crate::failure::Failure;
use transpo::{Bound, Table, entry::ResearchEntry, table::Instrumented};
use transpo_connect4::{
    Position,
    bounds::{BoundStore, ScoreBound},
};

/// The study's bound store: a lab table under the solver.
pub(super) struct ResearchBounds {
    /// The table.
    pub(super) table: Table<ResearchEntry>,
}

impl ResearchBounds {
    /// A table of `scheme` with `entries` rounded down to whole buckets, cleared per
    /// position (so never time-stamped).
    pub(super) fn new(scheme: SchemeSpec, entries: u64) -> Result<Self, Failure> {
        Ok(ResearchBounds {
            table: scheme.research_table(entries, false)?,
        })
    }

    /// Positions and their mirrors share a key; mixed bijectively, so keys stay exact.
    fn key(pos: &Position) -> u64 {
        transpo::key::mix(pos.symmetric_key())
    }
}

impl BoundStore for ResearchBounds {
    const WEIGHS_SUBTREES: bool = true;

    fn clear(&mut self) {
        self.table.clear();
        // Zero the counters: they count from this clear.
        self.table.take_stats();
    }

    fn prefetch(&self, pos: &Position) {
        self.table.prefetch(Self::key(pos));
    }

    fn get(&self, pos: &Position) -> Option<(ScoreBound, Option<usize>)> {
        self.table.probe(Self::key(pos)).map(|e| {
            let score = i32::from(e.score);
            let bound = match e.bound {
                Bound::Lower => ScoreBound::Lower(score),
                _ => ScoreBound::Upper(score),
            };
            (bound, usize::from(e.mv).checked_sub(1))
        })
    }

    fn put(&mut self, pos: &Position, bound: ScoreBound, best: Option<usize>, nodes: u64) {
        let (bound, score) = match bound {
            ScoreBound::Lower(s) => (Bound::Lower, s),
            ScoreBound::Upper(s) => (Bound::Upper, s),
        };
        let entry = ResearchEntry {
            // Columns are below 7, scores within ±21, empty squares at most 42.
            mv: best.map_or(0, |c| c as u16 + 1),
            score: score as i16,
            depth: (Position::SQUARES as u32 - pos.moves()) as u8,
            bound,
            nodes,
        };
        self.table.store(Self::key(pos), entry);
    }

    fn capacity(&self) -> usize {
        self.table.shape().entries
    }

    fn hit_weight(&self, pos: &Position) -> u64 {
        self.table.probe(Self::key(pos)).map_or(1, |e| {
            self.table
                .shape()
                .config
                .scheme
                .nodes_for_hit(e.nodes)
                .max(1)
        })
    }
}
