//! A chess entry at Stockfish's density: ten bytes, three to a 32-byte cell, six to a cache
//! line, with everything [`super::ChessEntry`] keeps but only a 16-bit key check.
//!
//! Why it exists: an engine that wants the most entries per MiB and keeps an eval and a PV
//! flag (Stockfish's entry: 16-bit key, move, value, eval, depth, and one byte of bound, PV
//! flag and generation) had to choose between [`super::ChessEntry`] (full key, four a line)
//! and [`super::CompactEntry`] (eight a line, no eval, no PV flag).
//!
//! # Key check and false hits
//!
//! The entry keeps the key's low 16 bits (the index uses the high bits). A probe for a
//! position the table does not hold answers with another position's entry when one of the
//! bucket's occupied slots has the same 16 bits: about `occupied ways / 65,536` per probe,
//! at most `6 / 65,536 ≈ 9.2·10⁻⁵` with six ways (measured by `examples/false_hits.rs`;
//! the README gives the figures). A chess engine survives a false hit by checking that the
//! stored move is legal before playing it, as it must with [`super::CompactEntry`].
//!
//! # Torn reads
//!
//! A slot is two atomics of a [`DenseCell`], a 64-bit word and a 16-bit meta; the check is
//! stored XOR-ed with the meta, so a read that mixes two writes (A's word, B's meta, with
//! different metas) computes the check `check_A ^ meta_A ^ meta_B`, which is never
//! `check_A` (the proof is on [`DenseCell`]). What is guaranteed, and what is not:
//!
//! - **A torn slot never passes for the key whose data it carries**: a probe for A's key
//!   does not verify a slot holding A's move, score and eval beside another write's meta.
//! - **A torn slot can pass for another key**, with the same odds as an ordinary false hit,
//!   1 in 65,536 per probe that meets one: a key whose low 16 bits equal
//!   `check_A ^ meta_A ^ meta_B` verifies, and gets a mix of A's move, score and eval with
//!   B's depth, bound, PV flag and generation. Nothing but the 16-bit check stands between a
//!   probe and such a mix, as between a probe and another position's whole entry.
//!
//! Measured (an audit, two keys chosen so that `check_B = check_A ^ meta_A ^
//! meta_B`, threads storing A and B into the same slot while others probe B): of 2.34 G
//! probes, 2.0 M verified and returned the mix (A's move and score with B's depth), about
//! 1 in 1,170; with keys not chosen that way such a mix verifies for a given key with the
//! odds of any false hit. So treat every hit as [`DenseChessEntry::mv`] says: check the move
//! is legal before playing it, and do not trust a hit further than a 16-bit check allows.
//! An engine that cannot live with that uses [`super::ChessEntry`], whose torn reads must
//! match all 64 bits of a key to verify.

use super::{
    bound::Bound,
    chess::{ChessEntry, saturated_depth},
    packing::{Bits, Depth, Entry, Generation},
};
use crate::{cell::DenseCell, plies::Plies};

/// Generation bits a [`DenseChessEntry`] keeps (five, as Stockfish and [`super::ChessEntry`]).
const GENERATION_BITS: u32 = 5;

/// A 10-byte chess entry, six to a cache line (three to each 32-byte [`DenseCell`], as
/// Stockfish's cluster), verified by the key's low 16 bits: [`super::ChessEntry`]'s fields
/// at one and a half times the entries per MiB.
///
/// Layout of the 80 bits, from bit 0: key check 16 (the key's low 16 bits), move 16, score
/// 16, eval 16 (the cell's 64-bit word), then the meta: depth 8 (two's complement), bound 2
/// (0 marks the empty slot), PV flag 1, generation 5.
///
/// ```
/// use transpo::{Bound, Table, entry::DenseChessEntry, table::Instrumented};
///
/// let t = Table::<DenseChessEntry>::with_mib(16)?;
/// assert_eq!(t.shape().ways, 6); // six a cache line
/// let e = DenseChessEntry { mv: 796, score: -35, eval: 12, depth: -1, bound: Bound::Lower, pv: true };
/// t.store(0x463b_9618_1691_fc9c, e);
/// assert_eq!(t.probe(0x463b_9618_1691_fc9c), Some(e));
/// # Ok::<(), transpo::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DenseChessEntry {
    /// Best or refutation move, in the engine's own 16-bit encoding (0 conventionally "no
    /// move"); [`crate::PackedMove`] packs from, to and promotion. **Match the stored move
    /// against your legal moves before playing it**: with a 16-bit check the entry may be
    /// another position's.
    pub mv: u16,
    /// Score, already made node-relative for mates (see [`crate::score`]).
    pub score: i16,
    /// Static evaluation of the position (any value, e.g. 0, when the engine keeps none).
    pub eval: i16,
    /// Depth of the search that produced the score, in plies; negative for quiescence
    /// entries. Replacement schemes see a negative depth as 0 ([`Entry::depth`]).
    pub depth: i8,
    /// What the score says about the true value.
    pub bound: Bound,
    /// Whether the entry was stored at a principal-variation node: kept for the engine, not
    /// read by the table.
    pub pv: bool,
}

impl DenseChessEntry {
    /// This entry with `depth` (any integer type), saturated to the `i8` the entry keeps, as
    /// [`super::ChessEntry::with_depth`].
    #[inline]
    #[must_use]
    pub fn with_depth(self, depth: impl Plies) -> Self {
        DenseChessEntry {
            depth: saturated_depth(depth),
            ..self
        }
    }

    /// Sets the depth to `depth` (any integer type), saturated as in
    /// [`DenseChessEntry::with_depth`].
    #[inline]
    pub fn set_depth(&mut self, depth: impl Plies) {
        self.depth = saturated_depth(depth);
    }
}

impl From<ChessEntry> for DenseChessEntry {
    /// The same fields.
    fn from(e: ChessEntry) -> Self {
        let ChessEntry {
            mv,
            score,
            eval,
            depth,
            bound,
            pv,
        } = e;
        DenseChessEntry {
            mv,
            score,
            eval,
            depth,
            bound,
            pv,
        }
    }
}

impl Entry for DenseChessEntry {
    type Cell = DenseCell;
    const GENERATION_BITS: u32 = GENERATION_BITS;
    const LAYOUT: &'static str = "dense-chess-v1";

    #[inline]
    fn pack(&self, key: u64, generation: Generation) -> Bits<Self> {
        debug_assert!(u32::from(generation) < 1 << GENERATION_BITS);
        let word = u64::from(key as u16)
            | u64::from(self.mv) << 16
            | u64::from(self.score as u16) << 32
            | u64::from(self.eval as u16) << 48;
        let meta = u16::from(self.depth as u8)
            | (self.bound.code() as u16) << 8
            | u16::from(self.pv) << 10
            | u16::from(generation) << 11;
        u128::from(word) | u128::from(meta) << 64
    }

    #[inline]
    fn unpack(bits: Bits<Self>) -> Option<(Self, Generation)> {
        let word = bits as u64;
        let meta = (bits >> 64) as u16;
        let entry = DenseChessEntry {
            mv: (word >> 16) as u16,
            score: (word >> 32) as u16 as i16,
            eval: (word >> 48) as u16 as i16,
            depth: meta as u8 as i8,
            bound: Bound::from_code(u64::from(meta >> 8))?,
            pv: meta >> 10 & 1 == 1,
        };
        Some((entry, (meta >> 11) as Generation))
    }

    #[inline]
    fn verifies(bits: Bits<Self>, key: u64) -> bool {
        bits as u16 == key as u16
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
    use crate::{
        cell::{Cell, DenseCell},
        error::Error,
        scheme::Scheme,
        table::{Config, Instrumented, Size, Table},
    };

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
                    let e = DenseChessEntry {
                        mv,
                        score,
                        eval,
                        depth,
                        bound,
                        pv,
                    };
                    assert_round_trips(e);
                    assert_eq!(e.depth(), depth.max(0) as u8);
                    let chess = ChessEntry {
                        mv,
                        score,
                        eval,
                        depth,
                        bound,
                        pv,
                    };
                    assert_eq!(DenseChessEntry::from(chess), e);
                }
            }
        }
    }

    /// The mix of A's word and B's meta never verifies for A's key, but does for a
    /// key whose check is `check_A ^ meta_A ^ meta_B`, and then reads as A's move, score and
    /// eval with B's depth (as `DenseChessEntry`'s docs say).
    #[test]
    fn dense_torn_slot_misses_its_own_key_and_can_pass_for_a_chosen_one() {
        let a = DenseChessEntry {
            mv: 0x0316,
            score: 55,
            eval: -7,
            depth: 9,
            bound: Bound::Exact,
            pv: false,
        };
        let b = DenseChessEntry {
            mv: 0x0abc,
            score: -300,
            eval: 12,
            depth: 3,
            bound: Bound::Lower,
            pv: true,
        };
        let key_a = 0x1234_5678_9abc_1111_u64;
        let (bits_a, bits_b) = (a.pack(key_a, 1), b.pack(0, 2));
        let (meta_a, meta_b) = ((bits_a >> 64) as u16, (bits_b >> 64) as u16);
        assert_ne!(meta_a, meta_b);
        // SAFETY: all-zero bytes are a valid `DenseCell`: it is made of atomics.
        let cell: DenseCell = unsafe { std::mem::zeroed() };
        cell.store(2, bits_a);
        cell.tear(2, meta_b);
        let torn = cell.load(2);
        assert!(!DenseChessEntry::verifies(torn, key_a), "never A's own key");
        let key_b = 0xfeed_0000_0000_0000 | u64::from(key_a as u16 ^ meta_a ^ meta_b);
        assert!(
            DenseChessEntry::verifies(torn, key_b),
            "a chosen key passes"
        );
        let (mix, _) = DenseChessEntry::unpack(torn).expect("B's bound is a valid code");
        assert_eq!((mix.mv, mix.score, mix.eval), (a.mv, a.score, a.eval));
        assert_eq!((mix.depth, mix.bound, mix.pv), (b.depth, b.bound, b.pv));
    }

    #[test]
    fn only_the_low_sixteen_key_bits_are_checked() {
        let bits = DenseChessEntry::default().pack(0xaaaa_bbbb_cccc_1234, 0);
        assert!(DenseChessEntry::verifies(bits, 0x1234));
        assert!(!DenseChessEntry::verifies(bits, 0xaaaa_bbbb_cccc_1235));
    }

    /// Six a line by default, so a MiB holds 1.5 times the entries of a `ChessEntry`
    /// table; ways must be whole cells (multiples of three).
    #[test]
    fn shape_is_six_a_line_and_ways_are_whole_cells() -> Result<(), Error> {
        let dense = Table::<DenseChessEntry>::with_mib(1)?.shape();
        let chess = Table::<ChessEntry>::with_mib(1)?.shape();
        assert_eq!(
            (dense.ways, dense.buckets, dense.bytes),
            (6, 16384, 1 << 20)
        );
        assert_eq!(2 * dense.entries, 3 * chess.entries);
        let three = Config {
            ways: Some(3),
            ..Config::default()
        };
        let t = Table::<DenseChessEntry>::new(Size::Mib(1), three)?;
        assert_eq!((t.shape().ways, t.shape().buckets), (3, 32768));
        for ways in [1, 2, 4, 5, 7] {
            let config = Config {
                ways: Some(ways),
                ..Config::default()
            };
            assert!(matches!(
                Table::<DenseChessEntry>::new(Size::Mib(1), config),
                Err(Error::Config(_))
            ));
        }
        let two_deep = Config {
            scheme: Scheme::TwoDeep,
            ..Config::default()
        };
        assert!(Table::<DenseChessEntry>::new(Size::Mib(1), two_deep).is_err());
        Ok(())
    }

    /// A full bucket spread over two cells: every slot is used, the shallowest goes, and
    /// storing one slot leaves its neighbours in the same cell as they were.
    #[test]
    fn a_bucket_of_two_cells_fills_every_slot() -> Result<(), Error> {
        let t = Table::<DenseChessEntry>::new(Size::Entries(6), Config::default())?;
        let entry = |depth: i8| DenseChessEntry {
            mv: depth as u16 + 1,
            depth,
            bound: Bound::Exact,
            ..DenseChessEntry::default()
        };
        let keys: Vec<u64> = (1..=7).map(|i| i * 0x10001).collect();
        for (i, &key) in keys[..6].iter().enumerate() {
            t.store(key, entry(10 + i as i8));
        }
        assert_eq!(t.usage().used, 6);
        for (i, &key) in keys[..6].iter().enumerate() {
            assert_eq!(t.probe(key), Some(entry(10 + i as i8)), "slot {i}");
        }
        t.store(keys[6], entry(20));
        assert_eq!(t.probe(keys[0]), None, "depth 10 was the shallowest");
        assert!(keys[1..].iter().all(|&k| t.probe(k).is_some()));
        Ok(())
    }
}
