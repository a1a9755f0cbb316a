//! The contract between an entry type and the table: [`Entry`], the packed [`Bits`] of a
//! slot, and the [`Depth`] and [`Generation`] an entry keeps.

use super::bound::Bound;
use crate::cell::Cell;

/// Search depth as stored in the table, in plies (or any unit the game uses).
pub type Depth = u8;

/// The low bits of the table's generation counter that an entry keeps.
pub type Generation = u8;

/// The packed bits of one slot of an entry type's cell (the whole cell, but for
/// [`DenseChessEntry`](super::DenseChessEntry)'s three-slot [`DenseCell`](crate::cell::DenseCell)).
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
    /// the default). [`Instrumented::use_buckets`](crate::table::Instrumented::use_buckets) uses
    /// it to move an entry when the table doubles its buckets in use
    /// ([`Buckets::Doubled`](crate::table::Buckets::Doubled)): an entry whose bit is unknown
    /// is dropped instead.
    fn key_bit(bits: Bits<Self>, bit: u32) -> Option<bool> {
        let _ = (bits, bit);
        None
    }
}
