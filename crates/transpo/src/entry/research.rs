//! The lab's entry: full keys and subtree sizes, so experiments see no type-1 errors.

use super::search_word::search_entry;
use crate::cell::XorCell;

search_entry! {
    /// A 24-byte entry for experiments: a full 64-bit key (no false hits can disturb a
    /// comparison between schemes), the subtree node count that BIG1, BIGALL and TWOBIG1
    /// weigh, and a search word without eval. Words: `[key ^ data ^ nodes, data, nodes]`.
    pub struct ResearchEntry {
        /// Nodes searched below this position when the entry was made.
        pub nodes: u64,
    }
    cell: XorCell<3>,
    layout: "research-xor3-v1",
    pack(entry, key, word) => [key, word(0), entry.nodes],
    unpack(bits) => bits[1], |w| { nodes: bits[2] },
    verifies(bits, key) => bits[0] == key,
    nodes: nodes,
}
