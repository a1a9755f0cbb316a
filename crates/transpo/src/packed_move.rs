//! A chess-like move in 16 bits, for the `mv` field of the search entries, with no chess in
//! the crate: from-square, to-square and a promotion code, nothing else.
//!
//! [`PackedMove`]'s docs give the layout and the rule for using a stored move.

/// A move as from-square, to-square and promotion code in 16 bits.
///
/// Why it exists: [`crate::ChessEntry::mv`] is a `u16`, and an engine whose own move type
/// carries more (moving piece, flags, a score) needs a way to fit it in. Sixteen bits hold
/// from, to and promotion; the rest an engine recovers by matching the stored move against
/// the moves it generates, which it must do anyway (see below).
///
/// The layout is Polyglot's (bit 15 … 0): `promotion:4 | from:6 | to:6`, squares `0..64` in
/// the engine's own numbering (Polyglot and most engines: `8 * rank + file`, a1 = 0). The
/// promotion code is the engine's: Polyglot uses 0 = none, 1 = knight, 2 = bishop,
/// 3 = rook, 4 = queen. The value 0 (square 0 to square 0, no promotion) is never a move, so
/// it is [`PackedMove::NONE`], "no move", which is what a default entry holds.
///
/// **The rule:** a move read from the table may belong to another position (a key collision,
/// a torn write with a partial key check, a file from elsewhere). Before playing it or
/// trusting the entry, match it against the legal moves of the position: play the legal
/// move whose from, to and promotion are the stored ones, and treat an entry whose move
/// matches none as a miss.
///
/// ```
/// use transpo::PackedMove;
///
/// let e2e4 = PackedMove::new(12, 28, 0);
/// assert_eq!((e2e4.from(), e2e4.to(), e2e4.promotion()), (12, 28, 0));
/// assert_eq!(e2e4.bits(), 12 << 6 | 28); // Polyglot's code
/// assert_eq!(PackedMove::from_bits(e2e4.bits()), e2e4);
/// assert!(PackedMove::NONE.is_none() && !e2e4.is_none());
/// // The engine's generated moves, matched by the three fields (here: tuples).
/// let legal = [(12u8, 28u8, 0u8, "pawn double push"), (6, 21, 0, "knight")];
/// let found = legal.iter().find(|m| PackedMove::new(m.0, m.1, m.2) == e2e4);
/// assert_eq!(found.map(|m| m.3), Some("pawn double push"));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PackedMove(u16);

impl PackedMove {
    /// "No move": from 0 to 0, no promotion; the bits 0.
    pub const NONE: PackedMove = PackedMove(0);

    /// Packs a move: `from` and `to` are squares `0..64`, `promotion` a code `0..16` (0 =
    /// none). Higher bits of each are dropped (a square of 64 reads back as 0), so packing
    /// never fails; an engine passes its own square numbers, which are in range.
    #[inline]
    pub const fn new(from: u8, to: u8, promotion: u8) -> PackedMove {
        PackedMove(
            ((promotion & 0xf) as u16) << 12 | ((from & 0x3f) as u16) << 6 | (to & 0x3f) as u16,
        )
    }

    /// The move of a stored code (any 16 bits are some from, to and promotion).
    #[inline]
    pub const fn from_bits(bits: u16) -> PackedMove {
        PackedMove(bits)
    }

    /// The 16-bit code, for an entry's `mv` field.
    #[inline]
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// The from-square, `0..64`.
    #[inline]
    pub const fn from(self) -> u8 {
        (self.0 >> 6 & 0x3f) as u8
    }

    /// The to-square, `0..64`.
    #[inline]
    pub const fn to(self) -> u8 {
        (self.0 & 0x3f) as u8
    }

    /// The promotion code, `0..16` (0: none).
    #[inline]
    pub const fn promotion(self) -> u8 {
        (self.0 >> 12) as u8
    }

    /// Whether this is [`PackedMove::NONE`].
    #[inline]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }
}

impl From<PackedMove> for u16 {
    fn from(mv: PackedMove) -> u16 {
        mv.bits()
    }
}

impl From<u16> for PackedMove {
    fn from(bits: u16) -> PackedMove {
        PackedMove::from_bits(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_round_trips_and_the_code_is_polyglots() {
        for from in 0..64 {
            for to in 0..64 {
                for promotion in 0..16 {
                    let mv = PackedMove::new(from, to, promotion);
                    assert_eq!((mv.from(), mv.to(), mv.promotion()), (from, to, promotion));
                    assert_eq!(PackedMove::from_bits(mv.bits()), mv);
                    let polyglot =
                        u16::from(promotion) << 12 | u16::from(from) << 6 | u16::from(to);
                    assert_eq!(mv.bits(), polyglot);
                    assert_eq!(mv.is_none(), (from, to, promotion) == (0, 0, 0));
                }
            }
        }
        assert_eq!(PackedMove::default(), PackedMove::NONE);
        assert_eq!(PackedMove::new(64, 65, 16), PackedMove::new(0, 1, 0));
    }
}
