//! What the search keeps in a table entry, independent of the entry's layout.
//!
//! The search is generic over the table's entry type so that an engine can use the compact
//! [`ChessEntry`] and the lab the [`ResearchEntry`] with subtree sizes, through one small
//! trait. [`TtData`] holds every field any layout might keep; a layout drops what it has no
//! room for (the research entry has no static eval, the chess entry no node count).

use transpo::{
    Bound, ChessEntry,
    entry::{Entry, ResearchEntry},
};

use super::score::MATE_BOUND;

/// [`TtData::eval`] when no static evaluation is stored: the position was in check, the
/// evaluation depends on the search's root (the `paper` profile), or the layout has no room.
pub const NO_EVAL: i16 = i16::MIN;

/// Everything the search stores about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtData {
    /// Best (or refutation) move in the 16-bit encoding of [`transpo_chess::move16`]; 0 = none.
    pub mv: u16,
    /// Score, node-relative for mates (see [`transpo::score`]).
    pub score: i16,
    /// Static evaluation of the position ([`NO_EVAL`] when none is stored or the layout does
    /// not keep it).
    pub eval: i16,
    /// Remaining depth of the search that produced the score, in plies (the search stores
    /// 0 to 255; a layout keeps what fits its depth field).
    pub depth: i16,
    /// What the score says about the true value.
    pub bound: Bound,
    /// Nodes searched in the subtree (0 when the layout does not keep it).
    pub nodes: u64,
}

impl TtData {
    /// The stored score as a node `ply` plies below the root sees it. A mate score is kept
    /// as a distance from the node that found it and read back as a distance from this
    /// root (see [`transpo::score`]); every score the search reads from the table goes
    /// through here, and every score it stores through [`TtData::table_score`].
    #[inline]
    pub fn score_at(&self, ply: usize) -> i32 {
        transpo::score::from_table(i32::from(self.score), ply, MATE_BOUND)
    }

    /// The score to store for `score`, found at a node `ply` plies below the root: the
    /// inverse of [`TtData::score_at`].
    #[inline]
    pub fn table_score(score: i32, ply: usize) -> i16 {
        // Fits an i16: search scores lie within ±INFINITY (32,001), and a mate score moves
        // by at most its ply (below MAX_PLY, 128).
        transpo::score::to_table(score, ply, MATE_BOUND) as i16
    }
}

/// An entry type the search can store its [`TtData`] in.
pub trait SearchEntry: Entry {
    /// Builds the entry, dropping fields the layout does not keep.
    fn from_data(data: TtData) -> Self;
    /// Reads the entry back; fields the layout does not keep are 0 ([`NO_EVAL`] for the
    /// static evaluation).
    fn data(&self) -> TtData;
}

impl SearchEntry for ChessEntry {
    #[inline]
    fn from_data(d: TtData) -> Self {
        ChessEntry {
            mv: d.mv,
            score: d.score,
            eval: d.eval,
            depth: d.depth.clamp(i8::MIN.into(), i8::MAX.into()) as i8,
            bound: d.bound,
            pv: false,
        }
    }

    #[inline]
    fn data(&self) -> TtData {
        TtData {
            mv: self.mv,
            score: self.score,
            eval: self.eval,
            depth: self.depth.into(),
            bound: self.bound,
            nodes: 0,
        }
    }
}

impl SearchEntry for ResearchEntry {
    #[inline]
    fn from_data(d: TtData) -> Self {
        ResearchEntry {
            mv: d.mv,
            score: d.score,
            depth: d.depth.clamp(0, u8::MAX.into()) as u8,
            bound: d.bound,
            nodes: d.nodes,
        }
    }

    #[inline]
    fn data(&self) -> TtData {
        TtData {
            mv: self.mv,
            score: self.score,
            eval: NO_EVAL,
            depth: self.depth.into(),
            bound: self.bound,
            nodes: self.nodes,
        }
    }
}
