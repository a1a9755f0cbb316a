//! The 64-bit word shared by the chess-like layouts.
//!
//! ```text
//! bits  0..16  move        (16)  the game's move code; 0 conventionally means "none"
//! bits 16..32  score       (16)  i16, two's complement
//! bits 32..48  extra       (16)  eval (ChessEntry) or key check (CompactEntry)
//! bits 48..56  depth        (8)
//! bits 56..58  bound        (2)  0 = empty slot, 1 upper, 2 lower, 3 exact
//! bits 58..64  generation   (6)
//! ```

use super::{Bound, Depth, Generation};

/// Generation bits kept in a search word.
pub(super) const GENERATION_BITS: u32 = 6;

/// The fields of a search word, unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SearchWord {
    pub mv: u16,
    pub score: i16,
    pub extra: u16,
    pub depth: Depth,
    pub bound: Bound,
    pub generation: Generation,
}

impl SearchWord {
    pub(super) fn pack(self) -> u64 {
        debug_assert!(u32::from(self.generation) < 1 << GENERATION_BITS);
        u64::from(self.mv)
            | u64::from(self.score as u16) << 16
            | u64::from(self.extra) << 32
            | u64::from(self.depth) << 48
            | self.bound.code() << 56
            | u64::from(self.generation) << 58
    }

    /// `None` for an empty slot (bound code 0).
    pub(super) fn unpack(word: u64) -> Option<Self> {
        Some(Self {
            mv: word as u16,
            score: (word >> 16) as u16 as i16,
            extra: (word >> 32) as u16,
            depth: (word >> 48) as u8,
            bound: Bound::from_code(word >> 56)?,
            generation: (word >> 58) as u8,
        })
    }
}
