//! An 8-byte chess entry: twice the entries per MiB, a partial key, no eval.

use super::search_word::search_entry;

search_entry! {
    /// An 8-byte entry in one atomic word, eight to a cache line, verified by the key's low
    /// 16 bits (the index uses the high bits). A single 64-bit store cannot tear, so no XOR
    /// is needed; the price is a false hit about once in `65536 / ways` probes of a full
    /// bucket for another position, which a chess engine must survive anyway (check the
    /// move's legality).
    pub struct CompactEntry {}
    cell: std::sync::atomic::AtomicU64,
    layout: "compact-u64-v1",
    pack(_entry, key, word) => word(key as u16),
    unpack(bits) => bits, |w| {},
    verifies(bits, key) => (bits >> 32) as u16 == key as u16,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::{bound::Bound, packing::Entry};

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
