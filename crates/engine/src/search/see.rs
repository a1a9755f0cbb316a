//! Static exchange evaluation: what a capture wins once every piece that can recapture on
//! the square has done so, least valuable first. Quiescence in the `full` profile skips
//! captures that lose material by this measure; without that, positions crowded with pieces
//! (bench position 37) make quiescence explode.

use cozy_chess::{
    BitBoard, Board, Color, Move, Piece, Square, get_bishop_moves, get_king_moves,
    get_knight_moves, get_pawn_attacks, get_rook_moves,
};

/// Exchange values, pawn … king.
const VALUE: [i32; 6] = [100, 325, 325, 500, 900, 20_000];

/// Pieces of both colours attacking `square` with `occupied` as the blockers.
fn attackers_to(board: &Board, square: Square, occupied: BitBoard) -> BitBoard {
    let pawns = board.pieces(Piece::Pawn);
    let queens = board.pieces(Piece::Queen);
    let diagonal = board.pieces(Piece::Bishop) | queens;
    let straight = board.pieces(Piece::Rook) | queens;
    (get_pawn_attacks(square, Color::White) & pawns & board.colors(Color::Black))
        | (get_pawn_attacks(square, Color::Black) & pawns & board.colors(Color::White))
        | (get_knight_moves(square) & board.pieces(Piece::Knight))
        | (get_bishop_moves(square, occupied) & diagonal)
        | (get_rook_moves(square, occupied) & straight)
        | (get_king_moves(square) & board.pieces(Piece::King))
}

/// Whether `mv` loses material by static exchange ([`see`] below zero). A capture of
/// something at least as valuable as the capturing piece never does (the opponent's best
/// answer leaves at least victim − mover ≥ 0), so those skip the exchange loop.
pub fn loses_material(board: &Board, mv: Move) -> bool {
    let (Some(mover), Some(victim)) = (board.piece_on(mv.from), board.piece_on(mv.to)) else {
        return see(board, mv) < 0;
    };
    if VALUE[victim as usize] >= VALUE[mover as usize] {
        return false;
    }
    see(board, mv) < 0
}

/// The material the side to move gains by `mv` and the exchange that follows on its target
/// square (pins are ignored; promotions count as plain pawn moves).
pub fn see(board: &Board, mv: Move) -> i32 {
    let Some(mover) = board.piece_on(mv.from) else {
        return 0;
    };
    let victim = match board.piece_on(mv.to) {
        Some(p) if board.color_on(mv.to) != Some(board.side_to_move()) => VALUE[p as usize],
        _ if mover == Piece::Pawn && mv.from.file() != mv.to.file() => VALUE[0],
        _ => 0,
    };
    let mut gain = [0i32; 34];
    gain[0] = victim;
    let mut occupied = board.occupied() ^ mv.from.bitboard();
    let mut on_square = VALUE[mover as usize];
    let mut side = !board.side_to_move();
    let mut d = 0;
    while d < 32 {
        d += 1;
        gain[d] = on_square - gain[d - 1];
        if (-gain[d - 1]).max(gain[d]) < 0 {
            break;
        }
        let attackers = attackers_to(board, mv.to, occupied) & occupied & board.colors(side);
        let Some((piece, square)) = Piece::ALL.iter().find_map(|&p| {
            (attackers & board.pieces(p))
                .next_square()
                .map(|sq| (p, sq))
        }) else {
            break;
        };
        occupied ^= square.bitboard();
        on_square = VALUE[piece as usize];
        side = !side;
    }
    while d > 1 {
        d -= 1;
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
    }
    gain[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos = transpo_chess::Position::from_fen(fen).unwrap();
        see(pos.board(), pos.parse_uci_move(uci).unwrap())
    }

    #[test]
    fn exchanges() {
        // Undefended pawn: +100. Pawn defended by a pawn, taken by a queen: -800.
        assert_eq!(see_of("4k3/8/8/3p4/8/8/3Q4/4K3 w - - 0 1", "d2d5"), 100);
        assert_eq!(see_of("4k3/4p3/3p4/8/8/8/3Q4/4K3 w - - 0 1", "d2d6"), -800);
        // Two rooks take two rooks, the king ends the exchange (0); without it, a rook up.
        assert_eq!(see_of("3rk3/3r4/8/8/8/8/3R4/3RK3 w - - 0 1", "d2d7"), 0);
        assert_eq!(see_of("3r3k/3r4/8/8/8/8/3R4/3RK3 w - - 0 1", "d2d7"), 500);
        assert_eq!(see_of("3rk3/3r4/8/8/8/8/8/3RK3 w - - 0 1", "d1d7"), 0);
    }
}
