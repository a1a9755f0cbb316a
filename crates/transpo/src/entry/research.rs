//! The lab's entry: full keys and subtree sizes, so experiments see no type-1 errors.

use super::{
    Bits, Bound, Depth, Entry, Generation,
    search_word::{self, SearchWord},
};
use crate::cell::XorCell;

/// A 24-byte entry for experiments: a full 64-bit key (no false hits can disturb a
/// comparison between schemes), the subtree node count that BIG1, BIGALL and TWOBIG1 weigh,
/// and a search word without eval. Words: `[key ^ data ^ nodes, data, nodes]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResearchEntry {
    /// Best or refutation move, in the engine's own 16-bit encoding.
    pub mv: u16,
    /// Score, already made node-relative for mates (see [`crate::score`]).
    pub score: i16,
    /// Depth of the search that produced the score.
    pub depth: Depth,
    /// What the score says about the true value.
    pub bound: Bound,
    /// Nodes searched below this position when the entry was made.
    pub nodes: u64,
}

impl Entry for ResearchEntry {
    type Cell = XorCell<3>;
    const GENERATION_BITS: u32 = search_word::GENERATION_BITS;
    const LAYOUT: &'static str = "research-xor3-v1";

    #[inline]
    fn pack(&self, key: u64, generation: Generation) -> Bits<Self> {
        let data = SearchWord {
            mv: self.mv,
            score: self.score,
            extra: 0,
            depth: self.depth,
            bound: self.bound,
            generation,
        };
        [key, data.pack(), self.nodes]
    }

    #[inline]
    fn unpack(bits: Bits<Self>) -> Option<(Self, Generation)> {
        let w = SearchWord::unpack(bits[1])?;
        let entry = ResearchEntry {
            mv: w.mv,
            score: w.score,
            depth: w.depth,
            bound: w.bound,
            nodes: bits[2],
        };
        Some((entry, w.generation))
    }

    #[inline]
    fn verifies(bits: Bits<Self>, key: u64) -> bool {
        bits[0] == key
    }

    fn depth(&self) -> Depth {
        self.depth
    }

    fn bound(&self) -> Bound {
        self.bound
    }

    fn nodes(&self) -> u64 {
        self.nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::tests::assert_round_trips;

    #[test]
    fn every_field_round_trips_at_its_extremes() {
        for (mv, score, depth, nodes) in [
            (0, 0, 0, 0),
            (u16::MAX, i16::MAX, u8::MAX, u64::MAX),
            (3, i16::MIN, 9, 1 << 40),
        ] {
            for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
                assert_round_trips(ResearchEntry {
                    mv,
                    score,
                    depth,
                    bound,
                    nodes,
                });
            }
        }
    }
}
