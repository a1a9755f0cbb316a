//! Entries: what one slot of the table remembers, and how it is packed into a [`Cell`].
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
//! The index takes the *high* bits of the key (see [`crate::Table`]), so partial key checks
//! take the *low* bits, which the index barely uses.

mod chess;
mod compact;
mod dense;
mod exact;
mod research;
mod search_word;
mod solver;
mod wide;

pub use chess::ChessEntry;
pub use compact::CompactEntry;
pub use dense::DenseChessEntry;
pub use exact::ExactEntry;
pub use research::ResearchEntry;
pub use solver::SolverEntry;
pub use wide::WideExactEntry;

use crate::cell::Cell;

/// Search depth as stored in the table, in plies (or any unit the game uses).
pub type Depth = u8;

/// The low bits of the table's generation counter that an entry keeps.
pub type Generation = u8;

/// What a stored score says about the true value of the position.
///
/// The default is [`Bound::Upper`], the lowest in [`Bound::priority`]; any bound, the default
/// included, can be stored (the empty slot is marked by a code no `Bound` has).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Bound {
    /// The score is exact (a PV node: alpha < score < beta).
    Exact,
    /// The true value is at least the score (a cut node: score ≥ beta).
    Lower,
    /// The true value is at most the score (an all node: score ≤ alpha).
    #[default]
    Upper,
}

impl Bound {
    /// Two-bit code; 0 is kept free to mark an empty slot.
    pub(crate) const fn code(self) -> u64 {
        match self {
            Bound::Exact => 3,
            Bound::Lower => 2,
            Bound::Upper => 1,
        }
    }

    /// Inverse of [`Bound::code`]; `None` for 0, the empty slot.
    pub(crate) const fn from_code(code: u64) -> Option<Bound> {
        match code & 3 {
            3 => Some(Bound::Exact),
            2 => Some(Bound::Lower),
            1 => Some(Bound::Upper),
            _ => None,
        }
    }

    /// The bound a node's result proves, given the window `(alpha, beta)` the node was
    /// searched with (`alpha` as it was on entry, before the moves raised it): `Lower` when
    /// `score >= beta` (a cut), `Upper` when `score <= alpha` (no move raised alpha),
    /// `Exact` between. Works for any score type (`i16`, `i32`, …).
    ///
    /// ```
    /// use transpo::Bound;
    /// assert_eq!(Bound::from_window(50i16, (-10, 50)), Bound::Lower);
    /// assert_eq!(Bound::from_window(-10i32, (-10, 50)), Bound::Upper);
    /// assert_eq!(Bound::from_window(3, (-10, 50)), Bound::Exact);
    /// ```
    #[inline]
    pub fn from_window<S: PartialOrd>(score: S, (alpha, beta): (S, S)) -> Bound {
        if score >= beta {
            Bound::Lower
        } else if score > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    /// How much an engine author usually values the bound: exact over lower over upper.
    pub const fn priority(self) -> u8 {
        match self {
            Bound::Exact => 2,
            Bound::Lower => 1,
            Bound::Upper => 0,
        }
    }
}

/// The packed bits of one slot of an entry type's cell (the whole cell, but for
/// [`DenseChessEntry`]'s three-slot [`DenseCell`](crate::cell::DenseCell)).
pub type Bits<E> = <<E as Entry>::Cell as Cell>::Bits;

/// A value the table can store: a packing of game knowledge into one [`Cell`].
///
/// Implement it to give the table your own layout; the shipped ones are good templates.
/// Packing must be exact: `unpack(pack(e, key, g)) == Some((e, g))` and
/// `verifies(pack(e, key, g), key)` for every entry, key and generation below
/// `1 << GENERATION_BITS`; and the empty cell, [`Cell::EMPTY`], must unpack to `None`.
pub trait Entry: Copy + PartialEq + std::fmt::Debug + Send + Sync + 'static {
    /// The atomic cell this entry is packed into.
    type Cell: Cell;
    /// Bits of the generation the entry keeps (0 to 8). Ages are computed modulo
    /// `1 << GENERATION_BITS`, so an entry this many searches old looks new again.
    const GENERATION_BITS: u32;
    /// A name for the layout, written into saved tables so that a file is only loaded into a
    /// table of the same layout. Change it when the packing changes.
    const LAYOUT: &'static str;

    /// Packs the entry with `key`'s verification bits and the (masked) generation.
    fn pack(&self, key: u64, generation: Generation) -> Bits<Self>;
    /// Unpacks a slot: the entry and its generation, or `None` for an empty slot.
    fn unpack(bits: Bits<Self>) -> Option<(Self, Generation)>;
    /// Whether the slot's verification bits are those of `key`.
    fn verifies(bits: Bits<Self>, key: u64) -> bool;
    /// Depth of the search that produced the entry (for DEEP-like schemes).
    fn depth(&self) -> Depth;
    /// Bound of the stored score (for the priority scheme).
    fn bound(&self) -> Bound;
    /// Nodes in the subtree that produced the entry (for BIG-like schemes); 0 if not kept.
    fn nodes(&self) -> u64 {
        0
    }
    /// Bit `bit` of the key a slot was stored for, if the slot keeps it (`None` otherwise,
    /// the default). [`crate::Table::use_buckets`] uses it to move an entry when the table
    /// doubles its buckets in use ([`crate::Buckets::Doubled`]): an entry whose bit is
    /// unknown is dropped instead.
    fn key_bit(bits: Bits<Self>, bit: u32) -> Option<bool> {
        let _ = (bits, bit);
        None
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A table of `E` ([`ExactEntry`] or [`WideExactEntry`]) with `buckets` buckets of `ways`
    /// slots: always-replace when one-way, depth-and-age otherwise.
    pub(crate) fn exact_table<E: Entry>(buckets: usize, ways: usize) -> crate::Table<E> {
        let config = crate::Config {
            scheme: if ways == 1 {
                crate::Scheme::New
            } else {
                crate::Scheme::DepthAge { k: 0 }
            },
            ways: Some(ways),
            ..crate::Config::default()
        };
        let size = crate::Size::Entries((buckets * ways) as u64);
        crate::Table::new(size, config).expect("a small table")
    }

    /// Checks the packing contract for one entry against keys and generations at extremes.
    pub(crate) fn assert_round_trips<E: Entry>(entry: E) {
        let max_gen = ((1u32 << E::GENERATION_BITS) - 1) as Generation;
        for key in [0, 1, 0xffff, 0x1234_5678_9abc_def0, u64::MAX] {
            for generation in [0, max_gen / 2, max_gen] {
                let bits = entry.pack(key, generation);
                assert_eq!(
                    E::unpack(bits),
                    Some((entry, generation)),
                    "{entry:?} {key:x}"
                );
                assert!(E::verifies(bits, key), "{entry:?} key {key:x}");
                assert!(!E::verifies(bits, key ^ 1), "{entry:?} key {key:x}");
            }
        }
        assert_eq!(E::unpack(<E::Cell as Cell>::EMPTY), None);
    }

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

    #[test]
    fn bound_codes_round_trip_and_zero_is_empty() {
        for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
            assert_eq!(Bound::from_code(bound.code()), Some(bound));
        }
        assert_eq!(Bound::from_code(0), None);
        assert!(Bound::Exact.priority() > Bound::Lower.priority());
        assert!(Bound::Lower.priority() > Bound::Upper.priority());
    }
}
