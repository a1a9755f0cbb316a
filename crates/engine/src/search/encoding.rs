//! Moves in 16 bits, the width a table entry keeps.
//!
//! Layout (bit 15 … 0): `promotion:4 | to:6 | from:6`, squares numbered a1 = 0 … h8 = 63,
//! promotion 0 = none, 1 = knight, 2 = bishop, 3 = rook, 4 = queen. Castling keeps cozy-chess's
//! king-takes-own-rook form. The value 0 (a1a1) is never a move, so it means "no move".
//! Decoding yields a syntactically valid move or `None`; whether it is legal in a position is
//! for the caller to check (a table entry may come from another position).

use cozy_chess::{Move, Piece, Square};

/// The 16-bit code of "no move".
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
    mv.from as u16 | (mv.to as u16) << 6 | promotion << 12
}

/// Unpacks a move; `None` for [`NO_MOVE`], a null from-to pair or an unknown promotion code.
#[inline]
pub fn decode(code: u16) -> Option<Move> {
    let from = Square::index(usize::from(code & 63));
    let to = Square::index(usize::from((code >> 6) & 63));
    let promotion = match code >> 12 {
        0 => None,
        1 => Some(Piece::Knight),
        2 => Some(Piece::Bishop),
        3 => Some(Piece::Rook),
        4 => Some(Piece::Queen),
        _ => return None,
    };
    (from != to).then_some(Move {
        from,
        to,
        promotion,
    })
}

/// [`encode`] of an optional move, [`NO_MOVE`] for `None`.
#[inline]
pub fn encode_opt(mv: Option<Move>) -> u16 {
    mv.map_or(NO_MOVE, encode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use transpo_chess::Position;

    #[test]
    fn every_legal_move_of_tricky_positions_round_trips() {
        for fen in [
            transpo_chess::STARTPOS_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            for &mv in pos.legal_moves().iter() {
                let code = encode(mv);
                assert_ne!(code, NO_MOVE);
                assert_eq!(decode(code), Some(mv), "{fen} {mv}");
            }
        }
        assert_eq!(decode(NO_MOVE), None);
        assert_eq!(decode(0xffff), None);
    }
}
