//! The default entry for a multi-threaded chess engine.

use super::search_word::search_entry;
use crate::cell::XorCell;

search_entry! {
    /// A 16-byte entry with a full 64-bit key, XOR-verified so that torn concurrent writes
    /// read as misses: four to a cache line.
    ///
    /// Words: `[key ^ data, data]`, `data` laid out as in the search word (move, score, eval,
    /// depth, bound, 6-bit generation).
    pub struct ChessEntry {
        /// Static evaluation of the position, kept so it need not be recomputed.
        pub eval: i16,
    }
    cell: XorCell<2>,
    layout: "chess-xor2-v1",
    pack(entry, key, word) => [key, word(entry.eval as u16)],
    unpack(bits) => bits[1], |w| { eval: w.extra as i16 },
    verifies(bits, key) => bits[0] == key,
}
