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

use super::{
    bound::Bound,
    packing::{Depth, Generation},
};

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

/// Declares a layout built on the search word: a struct with the word's move, score, depth
/// and bound followed by the layout's own fields, and its [`Entry`](super::Entry)
/// implementation. The layout gives its cell and name, how an entry is packed (`word(extra)`
/// packs the search word with `extra` in bits 32..48 and the generation), which part of the
/// bits holds the search word and how its own fields are read back, how the bits are checked
/// against a key, and optionally which field counts the subtree's nodes.
macro_rules! search_entry {
    (
        $(#[$attr:meta])*
        pub struct $name:ident {
            $($(#[$field_attr:meta])* pub $field:ident: $field_ty:ty,)*
        }
        cell: $cell:ty,
        layout: $layout:literal,
        pack($entry:ident, $key:ident, $word:ident) => $pack:expr,
        unpack($bits:ident) => $word_bits:expr, |$w:ident| { $($read:ident: $read_expr:expr),* },
        verifies($vbits:ident, $vkey:ident) => $verifies:expr,
        $(nodes: $nodes:ident,)?
    ) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name {
            /// Best or refutation move, in the engine's own 16-bit encoding.
            pub mv: u16,
            /// Score, already made node-relative for mates (see [`crate::score`]).
            pub score: i16,
            /// Depth of the search that produced the score.
            pub depth: $crate::entry::packing::Depth,
            /// What the score says about the true value.
            pub bound: $crate::entry::bound::Bound,
            $($(#[$field_attr])* pub $field: $field_ty,)*
        }

        impl $crate::entry::packing::Entry for $name {
            type Cell = $cell;
            const GENERATION_BITS: u32 = $crate::entry::search_word::GENERATION_BITS;
            const LAYOUT: &'static str = $layout;

            #[inline]
            fn pack(
                &self,
                key: u64,
                generation: $crate::entry::packing::Generation,
            ) -> $crate::entry::packing::Bits<Self> {
                let ($entry, $key) = (self, key);
                let $word = |extra: u16| {
                    $crate::entry::search_word::SearchWord {
                        mv: self.mv,
                        score: self.score,
                        extra,
                        depth: self.depth,
                        bound: self.bound,
                        generation,
                    }
                    .pack()
                };
                $pack
            }

            #[inline]
            fn unpack(
                $bits: $crate::entry::packing::Bits<Self>,
            ) -> Option<(Self, $crate::entry::packing::Generation)> {
                let $w = $crate::entry::search_word::SearchWord::unpack($word_bits)?;
                let entry = $name {
                    mv: $w.mv,
                    score: $w.score,
                    depth: $w.depth,
                    bound: $w.bound,
                    $($read: $read_expr,)*
                };
                Some((entry, $w.generation))
            }

            #[inline]
            fn verifies($vbits: $crate::entry::packing::Bits<Self>, $vkey: u64) -> bool {
                $verifies
            }

            fn depth(&self) -> $crate::entry::packing::Depth {
                self.depth
            }

            fn bound(&self) -> $crate::entry::bound::Bound {
                self.bound
            }

            $(
                fn nodes(&self) -> u64 {
                    self.$nodes
                }
            )?
        }
    };
}

pub(super) use search_entry;
