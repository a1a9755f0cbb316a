//! The `full` profile's evaluation: middle-game and end-game terms blended by phase.
//!
//! A position's phase runs from 24 (all minor and major pieces on the board) to 0 (pawns and
//! kings): each term has a middle-game and an end-game value and the score is their blend, so
//! that e.g. the king hides in the middle game and walks to the centre in the end game, and
//! passed pawns grow in value as pieces come off. Material values are PeSTO's (Ronald
//! Friederich, as published on the Chess Programming Wiki); the piece-square terms are simple
//! formulas (centralisation, advancement, seventh rank) rather than tuned tables.

use cozy_chess::{
    BitBoard, Board, Color, Piece, Rank, Square, get_bishop_moves, get_knight_moves, get_rook_moves,
};

use super::{centre_ring, piece_index};

/// Middle-game material, pawn … king.
pub const MG_MATERIAL: [i32; 6] = [82, 337, 365, 477, 1025, 0];
/// End-game material, pawn … king.
pub const EG_MATERIAL: [i32; 6] = [94, 281, 297, 512, 936, 0];
/// Phase weight of each piece kind (a full board is 24).
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];
/// End-game bonus of a passed pawn by relative rank (the middle-game bonus is half).
const PASSED: [i32; 8] = [0, 5, 10, 20, 35, 60, 100, 0];

/// `(mg, eg)` piece-square value of `piece` on `square` (from its own side's view).
const fn pst(piece: usize, square: usize) -> (i32, i32) {
    let ring = centre_ring(square);
    let rank = (square / 8) as i32;
    let file = square % 8;
    match piece {
        0 => {
            let central = if file == 3 || file == 4 { 8 * ring } else { 0 };
            (4 * rank + central, 8 * rank)
        }
        1 => (12 * ring - 20, 10 * ring - 15),
        2 => (6 * ring - 5, 5 * ring - 5),
        3 => (
            if rank == 6 { 20 } else { 0 },
            if rank == 6 { 10 } else { 0 },
        ),
        4 => (3 * ring - 5, 6 * ring - 8),
        _ => (
            -15 * ring + if rank == 0 { 10 } else { -10 * rank },
            12 * ring - 10,
        ),
    }
}

/// All piece-square values, material included: `TABLE[piece][square] = (mg, eg)`.
static TABLE: [[(i32, i32); 64]; 6] = {
    let mut t = [[(0, 0); 64]; 6];
    let mut piece = 0;
    while piece < 6 {
        let mut square = 0;
        while square < 64 {
            let (mg, eg) = pst(piece, square);
            t[piece][square] = (mg + MG_MATERIAL[piece], eg + EG_MATERIAL[piece]);
            square += 1;
        }
        piece += 1;
    }
    t
};

/// Score for White, in centipawns.
pub fn evaluate_white(board: &Board) -> i32 {
    let mut mg = 0;
    let mut eg = 0;
    let mut phase = 0;
    let occupied = board.occupied();
    for color in [Color::White, Color::Black] {
        let sign = if color == Color::White { 1 } else { -1 };
        let own = board.colors(color);
        let enemy_pawns = board.colored_pieces(!color, Piece::Pawn);
        let (mut cmg, mut ceg) = (0, 0);
        for piece in Piece::ALL {
            let table = &TABLE[piece_index(piece)];
            for square in board.colored_pieces(color, piece) {
                let (m, e) = table[square.relative_to(color) as usize];
                cmg += m;
                ceg += e;
                phase += PHASE[piece_index(piece)];
                let reach = match piece {
                    Piece::Knight => get_knight_moves(square),
                    Piece::Bishop => get_bishop_moves(square, occupied),
                    Piece::Rook => get_rook_moves(square, occupied),
                    Piece::Queen => {
                        get_bishop_moves(square, occupied) | get_rook_moves(square, occupied)
                    }
                    Piece::Pawn => {
                        if is_passed(square, color, enemy_pawns) {
                            let r = square.relative_to(color).rank() as usize;
                            cmg += PASSED[r] / 2;
                            ceg += PASSED[r];
                        }
                        continue;
                    }
                    Piece::King => continue,
                };
                let n = (reach & !own).len() as i32;
                let (wm, we) = match piece {
                    Piece::Knight => (4, 4),
                    Piece::Bishop => (5, 5),
                    Piece::Rook => (2, 4),
                    _ => (1, 2),
                };
                cmg += wm * (n - 4);
                ceg += we * (n - 4);
            }
        }
        if board.colored_pieces(color, Piece::Bishop).len() >= 2 {
            cmg += 30;
            ceg += 50;
        }
        mg += sign * cmg;
        eg += sign * ceg;
    }
    let phase = phase.min(24);
    (mg * phase + eg * (24 - phase)) / 24
}

/// Whether no enemy pawn stands in front of the pawn on its own or an adjacent file.
fn is_passed(square: Square, color: Color, enemy_pawns: BitBoard) -> bool {
    let files = square.file().bitboard() | square.file().adjacent();
    let rank = square.rank() as usize;
    let mut ahead = BitBoard::EMPTY;
    for r in Rank::ALL {
        let r_i = r as usize;
        if (color == Color::White && r_i > rank) || (color == Color::Black && r_i < rank) {
            ahead |= r.bitboard();
        }
    }
    (files & ahead & enemy_pawns).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_positions_score_zero_and_passers_count() {
        assert_eq!(evaluate_white(&Board::startpos()), 0);
        let kiwi: Board = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
            .parse()
            .unwrap();
        let mirrored: Board =
            "r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b KQkq - 0 1"
                .parse()
                .unwrap();
        assert_eq!(evaluate_white(&kiwi), -evaluate_white(&mirrored));
        let passer: Board = "4k3/8/8/3P4/8/8/8/4K3 w - - 0 1".parse().unwrap();
        let blocked: Board = "4k3/3p4/8/3P4/8/8/8/4K3 w - - 0 1".parse().unwrap();
        assert!(evaluate_white(&passer) > 100);
        assert!(evaluate_white(&blocked) < evaluate_white(&passer) - 100);
    }
}
