//! Entries: what one slot of the table remembers, and how it is packed into a
//! [`Cell`](crate::cell::Cell).
//!
//! The table knows nothing about games. It asks an entry type four things: which cell it
//! lives in, how to pack and unpack it with the key's verification bits and the generation,
//! whether packed bits belong to a given key, and the three facts replacement schemes weigh
//! (depth, bound, subtree size). Seven layouts ship with the crate:
//!
//! | type | cell | per 64-byte line | key check | payload |
//! |---|---|---|---|---|
//! | [`ChessEntry`] | 2 × u64, XOR-verified | 4 | full 64 bits | move, score, eval, signed depth, bound, PV flag, 5-bit generation |
//! | [`CompactEntry`] | u64 | 8 | 16 low bits | move, score, depth, bound, generation |
//! | [`DenseChessEntry`] | 10 bytes, three to a 32-byte [`DenseCell`](crate::cell::DenseCell) | 6 | 16 low bits | move, score, eval, signed depth, bound, PV flag, 5-bit generation |
//! | [`ResearchEntry`] | 3 × u64, XOR-verified | 2 (48 bytes) | full 64 bits | move, score, depth, bound, generation, subtree nodes |
//! | [`SolverEntry`] | u32 | 16 | 24 low bits | one non-zero byte |
//! | [`ExactEntry`] | u64 | 8 | 48 low bits, exact with the bucket index | depth, one non-zero byte |
//! | [`WideExactEntry`] | u128, one atomic | 4 | 48 low bits, exact with the bucket index and the caller's check of `rest` | depth, one non-zero byte, 64 more bits of the code (`rest`) |
//!
//! The index takes the *high* bits of the key (see [`crate::table`]), so partial key checks
//! take the *low* bits, which the index barely uses.

mod bound;
mod chess;
mod compact;
mod dense;
mod exact;
mod packing;
mod research;
mod search_word;
mod solver;
#[cfg(test)]
pub(crate) mod testing;
mod wide;

pub use bound::Bound;
pub use chess::ChessEntry;
pub use compact::CompactEntry;
pub use dense::DenseChessEntry;
pub use exact::ExactEntry;
pub use packing::{Bits, Depth, Entry, Generation};
pub use research::ResearchEntry;
pub use solver::SolverEntry;
pub use wide::WideExactEntry;

#[cfg(test)]
mod tests {
    use super::{Bound, ChessEntry, CompactEntry, ResearchEntry, testing::assert_round_trips};

    /// Every search-word layout packs and unpacks each field at its extremes.
    #[test]
    fn search_entries_round_trip_at_their_extremes() {
        for (mv, score, eval, depth, nodes) in [
            (0, 0, 0, 0, 0),
            (u16::MAX, i16::MAX, i16::MIN, u8::MAX, u64::MAX),
            (1, i16::MIN, i16::MAX, 1, 1 << 40),
            (0x8001, -1, -32000, 127, 1),
            (3, i16::MIN, 0, 9, 1 << 40),
            (7, i16::MIN, 0, 1, 3),
        ] {
            for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
                let compact = CompactEntry {
                    mv,
                    score,
                    depth,
                    bound,
                };
                assert_round_trips(compact);
                assert_round_trips(ChessEntry {
                    mv,
                    score,
                    eval,
                    depth: depth as i8,
                    bound,
                    pv: depth % 2 == 1,
                });
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
