//! An 8-byte chess entry: twice the entries per MiB, a partial key, no eval.

use super::{
    Bits, Bound, Depth, Entry, Generation,
    search_word::{self, SearchWord},
};

/// An 8-byte entry in one atomic word, eight to a cache line, verified by the key's low 16
/// bits (the index uses the high bits). A single 64-bit store cannot tear, so no XOR is
/// needed; the price is a false hit about once in `65536 / ways` probes of a full bucket for
/// another position, which a chess engine must survive anyway (check the move's legality).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CompactEntry {
    /// Best or refutation move, in the engine's own 16-bit encoding.
    pub mv: u16,
    /// Score, already made node-relative for mates (see [`crate::score`]).
    pub score: i16,
    /// Depth of the search that produced the score.
    pub depth: Depth,
    /// What the score says about the true value.
    pub bound: Bound,
}

impl Entry for CompactEntry {
    type Cell = std::sync::atomic::AtomicU64;
    const GENERATION_BITS: u32 = search_word::GENERATION_BITS;
    const LAYOUT: &'static str = "compact-u64-v1";

    #[inline]
    fn pack(&self, key: u64, generation: Generation) -> Bits<Self> {
        SearchWord {
            mv: self.mv,
            score: self.score,
            extra: key as u16,
            depth: self.depth,
            bound: self.bound,
            generation,
        }
        .pack()
    }

    #[inline]
    fn unpack(bits: Bits<Self>) -> Option<(Self, Generation)> {
        let w = SearchWord::unpack(bits)?;
        let entry = CompactEntry {
            mv: w.mv,
            score: w.score,
            depth: w.depth,
            bound: w.bound,
        };
        Some((entry, w.generation))
    }

    #[inline]
    fn verifies(bits: Bits<Self>, key: u64) -> bool {
        (bits >> 32) as u16 == key as u16
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
        for (mv, score, depth) in [(0, 0, 0), (u16::MAX, i16::MAX, u8::MAX), (7, i16::MIN, 1)] {
            for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
                assert_round_trips(CompactEntry {
                    mv,
                    score,
                    depth,
                    bound,
                });
            }
        }
    }

    #[test]
    fn only_the_low_sixteen_key_bits_are_checked() {
        let e = CompactEntry {
            mv: 1,
            score: 2,
            depth: 3,
            bound: Bound::Exact,
        };
        let bits = e.pack(0xaaaa_bbbb_cccc_1234, 0);
        assert!(CompactEntry::verifies(bits, 0x0000_0000_0000_1234));
        assert!(!CompactEntry::verifies(bits, 0xaaaa_bbbb_cccc_1235));
    }
}
