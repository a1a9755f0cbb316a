//! The `full` profile's evaluation: middle-game and end-game terms blended by phase.
//!
//! A position's phase runs from 24 (all minor and major pieces on the board) to 0 (pawns and
//! kings): each term has a middle-game and an end-game value and the score is their blend, so
//! that e.g. the king hides in the middle game and walks to the centre in the end game, and
//! passed pawns grow in value as pieces come off. Material values are PeSTO's (Ronald
//! Friederich, as published on the Chess Programming Wiki); the piece-square terms are simple
//! formulas (centralisation, advancement, seventh rank) rather than tuned tables.

use cozy_chess::{Board, Color, Piece, get_bishop_moves, get_knight_moves, get_rook_moves};

use super::centre_ring;

/// Middle-game material, pawn … king.
pub const MG_MATERIAL: [i32; 6] = [82, 337, 365, 477, 1025, 0];
/// End-game material, pawn … king.
pub const EG_MATERIAL: [i32; 6] = [94, 281, 297, 512, 936, 0];
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

/// `PASSED_MASK[color][square]`: the squares in front of a pawn on its own and the adjacent
/// files; the pawn is passed when no enemy pawn stands there.
static PASSED_MASK: [[u64; 64]; 2] = {
    let mut masks = [[0u64; 64]; 2];
    let mut square = 0;
    while square < 64 {
        let file = square % 8;
        let rank = square / 8;
        let mut files = 0u64;
        let mut r = 0;
        while r < 8 {
            let mut f: usize = 0;
            while f < 8 {
                let df = f.abs_diff(file);
                if df <= 1 {
                    files |= 1u64 << (8 * r + f);
                }
                f += 1;
            }
            r += 1;
        }
        let mut white_ahead = 0u64;
        let mut black_ahead = 0u64;
        let mut r = 0;
        while r < 8 {
            if r > rank {
                white_ahead |= 0xffu64 << (8 * r);
            }
            if r < rank {
                black_ahead |= 0xffu64 << (8 * r);
            }
            r += 1;
        }
        masks[0][square] = files & white_ahead;
        masks[1][square] = files & black_ahead;
        square += 1;
    }
    masks
};

/// Score for White, in centipawns.
pub fn evaluate_white(board: &Board) -> i32 {
    let mut mg = 0;
    let mut eg = 0;
    let occupied = board.occupied();
    // Phase: minor pieces 1, rooks 2, queens 4 (a full board is 24).
    let phase = (board.pieces(Piece::Knight).len() + board.pieces(Piece::Bishop).len()) as i32
        + 2 * board.pieces(Piece::Rook).len() as i32
        + 4 * board.pieces(Piece::Queen).len() as i32;
    for color in [Color::White, Color::Black] {
        let sign = if color == Color::White { 1 } else { -1 };
        let own = board.colors(color);
        let not_own = !own;
        let enemy_pawns = board.colored_pieces(!color, Piece::Pawn).0;
        let flip = if color == Color::White { 0 } else { 56 };
        let (mut cmg, mut ceg) = (0, 0);
        let passed = &PASSED_MASK[color as usize];
        for square in board.colored_pieces(color, Piece::Pawn) {
            let s = square as usize;
            let (m, e) = TABLE[0][s ^ flip];
            cmg += m;
            ceg += e;
            if passed[s] & enemy_pawns == 0 {
                let r = (s ^ flip) / 8;
                cmg += PASSED[r] / 2;
                ceg += PASSED[r];
            }
        }
        for square in board.colored_pieces(color, Piece::Knight) {
            let (m, e) = TABLE[1][square as usize ^ flip];
            let n = (get_knight_moves(square) & not_own).len() as i32 - 4;
            cmg += m + 4 * n;
            ceg += e + 4 * n;
        }
        let bishops = board.colored_pieces(color, Piece::Bishop);
        for square in bishops {
            let (m, e) = TABLE[2][square as usize ^ flip];
            let n = (get_bishop_moves(square, occupied) & not_own).len() as i32 - 4;
            cmg += m + 5 * n;
            ceg += e + 5 * n;
        }
        for square in board.colored_pieces(color, Piece::Rook) {
            let (m, e) = TABLE[3][square as usize ^ flip];
            let n = (get_rook_moves(square, occupied) & not_own).len() as i32 - 4;
            cmg += m + 2 * n;
            ceg += e + 4 * n;
        }
        for square in board.colored_pieces(color, Piece::Queen) {
            let (m, e) = TABLE[4][square as usize ^ flip];
            let reach = get_bishop_moves(square, occupied) | get_rook_moves(square, occupied);
            let n = (reach & not_own).len() as i32 - 4;
            cmg += m + n;
            ceg += e + 2 * n;
        }
        for square in board.colored_pieces(color, Piece::King) {
            let (m, e) = TABLE[5][square as usize ^ flip];
            cmg += m;
            ceg += e;
        }
        if bishops.len() >= 2 {
            cmg += 30;
            ceg += 50;
        }
        mg += sign * cmg;
        eg += sign * ceg;
    }
    let phase = phase.min(24);
    (mg * phase + eg * (24 - phase)) / 24
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
