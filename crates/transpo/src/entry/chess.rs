//! The default entry for a multi-threaded chess engine.

use super::{
    Bits, Bound, Depth, Entry, Generation,
    search_word::{self, SearchWord},
};
use crate::cell::XorCell;

/// A 16-byte entry with a full 64-bit key, XOR-verified so that torn concurrent writes read
/// as misses: four to a cache line.
///
/// Words: `[key ^ data, data]`, `data` laid out as in the search word (move, score, eval,
/// depth, bound, 6-bit generation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChessEntry {
    /// Best or refutation move, in the engine's own 16-bit encoding.
    pub mv: u16,
    /// Score, already made node-relative for mates (see [`crate::score`]).
    pub score: i16,
    /// Static evaluation of the position, kept so it need not be recomputed.
    pub eval: i16,
    /// Depth of the search that produced the score.
    pub depth: Depth,
    /// What the score says about the true value.
    pub bound: Bound,
}

impl Entry for ChessEntry {
    type Cell = XorCell<2>;
    const GENERATION_BITS: u32 = search_word::GENERATION_BITS;
    const LAYOUT: &'static str = "chess-xor2-v1";

    #[inline]
    fn pack(&self, key: u64, generation: Generation) -> Bits<Self> {
        let data = SearchWord {
            mv: self.mv,
            score: self.score,
            extra: self.eval as u16,
            depth: self.depth,
            bound: self.bound,
            generation,
        };
        [key, data.pack()]
    }

    #[inline]
    fn unpack(bits: Bits<Self>) -> Option<(Self, Generation)> {
        let w = SearchWord::unpack(bits[1])?;
        let entry = ChessEntry {
            mv: w.mv,
            score: w.score,
            eval: w.extra as i16,
            depth: w.depth,
            bound: w.bound,
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::tests::assert_round_trips;

    #[test]
    fn every_field_round_trips_at_its_extremes() {
        for (mv, score, eval, depth) in [
            (0, 0, 0, 0),
            (u16::MAX, i16::MAX, i16::MIN, u8::MAX),
            (1, i16::MIN, i16::MAX, 1),
            (0x8001, -1, -32000, 127),
        ] {
            for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
                assert_round_trips(ChessEntry {
                    mv,
                    score,
                    eval,
                    depth,
                    bound,
                });
            }
        }
    }
}
