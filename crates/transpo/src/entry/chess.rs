//! The default entry for a multi-threaded chess engine: a full 64-bit key check, everything
//! an engine keeps (move, score, static eval, signed depth, bound, PV flag), four to a cache
//! line.

use super::{
    bound::Bound,
    packing::{Bits, Depth, Entry, Generation},
};
use crate::{cell::XorCell, plies::Plies};

/// Generation bits a [`ChessEntry`] keeps (one bit of the search word holds the PV flag, as in
/// Stockfish, which keeps five too).
const GENERATION_BITS: u32 = 5;

/// A 16-byte entry with a full 64-bit key, XOR-verified so that torn concurrent writes
/// read as misses: four to a cache line.
///
/// Words: `[key ^ data, data]`, `data` laid out as (from bit 0) move 16, score 16, eval 16,
/// depth 8 (two's complement), bound 2 (0 marks the empty slot), PV flag 1, generation 5.
///
/// Every field is public and [`Default`] fills what an engine does not keep. The depth is an
/// `i8`; an engine whose depths are another integer type stores them with
/// [`ChessEntry::with_depth`] or [`ChessEntry::set_depth`], which take any integer and
/// saturate at `-128` and `127` (a plain `as i8` would turn depths 128 to 255 into
/// quiescence depths):
///
/// ```
/// use transpo::{ChessEntry, Table};
///
/// let t = Table::<ChessEntry>::with_mib(16)?;
/// let e = ChessEntry { depth: 3, ..ChessEntry::default() };
/// t.store(7, e);
/// assert_eq!(t.probe(7), Some(e));
/// // Quiescence entries at negative depth fit.
/// t.store(8, ChessEntry { depth: -2, ..e });
/// assert_eq!(t.probe(8).map(|e| e.depth), Some(-2));
/// // Any integer type, saturated.
/// let depth: u8 = 200;
/// assert_eq!(e.with_depth(depth).depth, 127);
/// assert_eq!(e.with_depth(-1000i32).depth, -128);
/// # Ok::<(), transpo::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ChessEntry {
    /// Best or refutation move, in the engine's own 16-bit encoding (0 conventionally "no
    /// move"); [`crate::PackedMove`] packs from, to and promotion. **Match the stored move
    /// against your legal moves before playing it**: the entry may be another position's
    /// (see [`crate::PackedMove`]).
    pub mv: u16,
    /// Score, already made node-relative for mates (see [`crate::score`]).
    pub score: i16,
    /// Static evaluation of the position, kept so it need not be recomputed (any value,
    /// e.g. 0, when the engine keeps none).
    pub eval: i16,
    /// Depth of the search that produced the score, in plies; negative for quiescence
    /// entries. Replacement schemes see a negative depth as 0 ([`Entry::depth`]).
    pub depth: i8,
    /// What the score says about the true value.
    pub bound: Bound,
    /// Whether the entry was stored at a principal-variation node (Stockfish's `is_pv`):
    /// kept for the engine, not read by the table.
    pub pv: bool,
}

impl ChessEntry {
    /// This entry with `depth` (any integer type), saturated to the `i8` the entry keeps:
    /// below `-128` as `-128`, above `127` as `127`.
    #[inline]
    #[must_use]
    pub fn with_depth(self, depth: impl Plies) -> Self {
        ChessEntry {
            depth: saturated_depth(depth),
            ..self
        }
    }

    /// Sets the depth to `depth` (any integer type), saturated as in
    /// [`ChessEntry::with_depth`].
    #[inline]
    pub fn set_depth(&mut self, depth: impl Plies) {
        self.depth = saturated_depth(depth);
    }
}

/// `depth` clamped to an `i8`.
#[inline]
pub(super) fn saturated_depth(depth: impl Plies) -> i8 {
    // Within `i8` after the clamp, so the cast keeps the value.
    depth.plies().clamp(i64::from(i8::MIN), i64::from(i8::MAX)) as i8
}

impl Entry for ChessEntry {
    type Cell = XorCell<2>;
    const GENERATION_BITS: u32 = GENERATION_BITS;
    const LAYOUT: &'static str = "chess-xor2-v2";

    #[inline]
    fn pack(&self, key: u64, generation: Generation) -> Bits<Self> {
        debug_assert!(u32::from(generation) < 1 << GENERATION_BITS);
        let data = u64::from(self.mv)
            | u64::from(self.score as u16) << 16
            | u64::from(self.eval as u16) << 32
            | u64::from(self.depth as u8) << 48
            | self.bound.code() << 56
            | u64::from(self.pv) << 58
            | u64::from(generation) << 59;
        [key, data]
    }

    #[inline]
    fn unpack(bits: Bits<Self>) -> Option<(Self, Generation)> {
        let data = bits[1];
        let entry = ChessEntry {
            mv: data as u16,
            score: (data >> 16) as u16 as i16,
            eval: (data >> 32) as u16 as i16,
            depth: (data >> 48) as u8 as i8,
            bound: Bound::from_code(data >> 56)?,
            pv: data >> 58 & 1 == 1,
        };
        Some((entry, (data >> 59) as Generation))
    }

    #[inline]
    fn verifies(bits: Bits<Self>, key: u64) -> bool {
        bits[0] == key
    }

    /// The depth, negative depths (quiescence) as 0.
    #[inline]
    fn depth(&self) -> Depth {
        self.depth.max(0) as Depth
    }

    #[inline]
    fn bound(&self) -> Bound {
        self.bound
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::testing::assert_round_trips;

    #[test]
    fn depths_of_any_integer_type_saturate() {
        let e = ChessEntry::default();
        assert_eq!(
            e.with_depth(200u8).depth,
            127,
            "not -56, a quiescence depth"
        );
        assert_eq!(e.with_depth(128u16).depth, 127);
        assert_eq!(e.with_depth(127usize).depth, 127);
        assert_eq!(e.with_depth(u64::MAX).depth, 127);
        assert_eq!(e.with_depth(-3i32).depth, -3);
        assert_eq!(e.with_depth(-129i16).depth, -128);
        assert_eq!(e.with_depth(i64::MIN).depth, -128);
        for d in -300i32..300 {
            let mut set = e;
            set.set_depth(d);
            assert_eq!(i32::from(set.depth), d.clamp(-128, 127));
            assert_eq!(set, e.with_depth(d));
        }
    }

    #[test]
    fn every_field_round_trips_at_its_extremes() {
        for (mv, score, eval, depth) in [
            (0, 0, 0, 0),
            (u16::MAX, i16::MAX, i16::MIN, i8::MAX),
            (1, i16::MIN, i16::MAX, i8::MIN),
            (0x8001, -1, -32000, -1),
        ] {
            for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
                for pv in [false, true] {
                    let e = ChessEntry {
                        mv,
                        score,
                        eval,
                        depth,
                        bound,
                        pv,
                    };
                    assert_round_trips(e);
                    assert_eq!(e.depth(), depth.max(0) as u8);
                }
            }
        }
    }
}
