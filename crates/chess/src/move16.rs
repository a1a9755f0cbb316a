//! Moves in 16 bits: one encoding for Polyglot books and transposition-table entries.
//!
//! The layout is Polyglot's, fixed by the book format (bit 15 … 0):
//! `promotion:4 | from:6 | to:6` — to-square in bits 0–5, from-square in bits 6–11,
//! squares numbered `8 * rank + file` (a1 = 0 … h8 = 63), promotion 0 = none, 1 = knight,
//! 2 = bishop, 3 = rook, 4 = queen. Castling is the king taking its own rook (`e1h1`), which
//! is both Polyglot's form and cozy-chess's. The value 0 (a1a1) is never a move, so a table
//! entry uses it for "no move" ([`NO_MOVE`]).
//!
//! Decoding yields a syntactically valid move or `None`; whether it is legal in a position
//! is for the caller to check (a table entry may come from another position, a book entry
//! may be wrong).
//!
//! ```
//! use transpo_chess::move16;
//!
//! let mv = "e2e4".parse().unwrap();
//! assert_eq!(move16::encode(mv), (12 << 6) | 28); // from e2 = 12, to e4 = 28
//! assert_eq!(move16::decode(move16::encode(mv)), Some(mv));
//! assert_eq!(move16::decode(move16::NO_MOVE), None);
//! ```

use cozy_chess::{Move, Piece, Square};

/// The 16-bit code of "no move" (a1a1).
pub const NO_MOVE: u16 = 0;

/// Packs a move into 16 bits (see the module docs for the layout).
#[inline]
pub fn encode(mv: Move) -> u16 {
    let promotion = match mv.promotion {
        None => 0,
        Some(Piece::Knight) => 1,
        Some(Piece::Bishop) => 2,
        Some(Piece::Rook) => 3,
        Some(_) => 4,
    };
    promotion << 12 | (mv.from as u16) << 6 | mv.to as u16
}

/// [`encode`] of an optional move, [`NO_MOVE`] for `None`.
#[inline]
pub fn encode_opt(mv: Option<Move>) -> u16 {
    mv.map_or(NO_MOVE, encode)
}

/// Unpacks a move; `None` for an unknown promotion code (5–15, which includes any code with
/// bit 15 set) and for a from-square equal to the to-square ([`NO_MOVE`] among them).
#[inline]
pub fn decode(code: u16) -> Option<Move> {
    let promotion = promotion_of(code)?;
    let from = Square::index(usize::from((code >> 6) & 63));
    let to = Square::index(usize::from(code & 63));
    (from != to).then_some(Move {
        from,
        to,
        promotion,
    })
}

/// Whether the promotion field is one of 0–4: what a Polyglot book entry needs to be well
/// formed (its squares are checked when the move is looked up).
#[inline]
pub fn has_valid_promotion(code: u16) -> bool {
    promotion_of(code).is_some()
}

fn promotion_of(code: u16) -> Option<Option<Piece>> {
    match code >> 12 {
        0 => Some(None),
        1 => Some(Some(Piece::Knight)),
        2 => Some(Some(Piece::Bishop)),
        3 => Some(Some(Piece::Rook)),
        4 => Some(Some(Piece::Queen)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Position;

    #[test]
    fn every_legal_move_of_tricky_positions_round_trips() {
        for fen in [
            crate::STARTPOS_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            for &mv in pos.legal_moves().iter() {
                let code = encode(mv);
                assert_ne!(code, NO_MOVE);
                assert!(has_valid_promotion(code));
                assert_eq!(decode(code), Some(mv), "{fen} {mv}");
            }
        }
        assert_eq!(decode(NO_MOVE), None);
        assert_eq!(decode(0xffff), None);
        assert!(!has_valid_promotion(0x5000));
    }

    #[test]
    fn the_layout_is_polyglots() {
        // Polyglot: to in bits 0-5, from in bits 6-11, promotion in 12-14.
        let code = |text: &str| encode(text.parse().unwrap());
        assert_eq!(code("e2e4"), (12 << 6) | 28);
        assert_eq!(code("e1h1"), (4 << 6) | 7); // castling, king takes rook
        assert_eq!(code("a7a8q"), (4 << 12) | (48 << 6) | 56);
        assert_eq!(code("b2a1n"), (1 << 12) | (9 << 6));
        // The search's former table code, `promotion:4 | to:6 | from:6`, is this one with
        // the squares swapped: a bijection that keeps 0 as "no move", so node counts did
        // not change when the search took this layout.
        let former = |mv: Move| {
            let p = encode(mv) & 0xf000;
            p | (mv.to as u16) << 6 | mv.from as u16
        };
        let swap = |c: u16| (c & 0xf000) | (c & 63) << 6 | (c >> 6) & 63;
        for text in ["e2e4", "e1h1", "a7a8q", "b2a1n"] {
            let mv: Move = text.parse().unwrap();
            assert_eq!(swap(former(mv)), encode(mv));
        }
    }
}
