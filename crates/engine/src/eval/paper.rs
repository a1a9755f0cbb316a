//! ALIBABA's evaluation (Breuker et al. 1994): material plus piece-square tables from
//! mobility and centre control, filled before each search.
//!
//! The paper names the ingredients, not the numbers; this is our reconstruction, fixed so the
//! lab's node counts are reproducible. For every piece kind and square we count the squares
//! the piece would attack there given the *root's* occupancy (mobility, 4 cp per square for
//! minor pieces, 2 for rooks, 1 for queens) and add 5 cp per ring towards the centre. Pawns
//! get 6 cp per rank advanced and 5 cp per ring for central files; the king is kept away from
//! the centre while the opponent has a queen and drawn to it otherwise. Material values are
//! the paper's: P = 1, N = B = 3.25, R = 5, Q = 9 pawns.

use cozy_chess::{
    BitBoard, Board, Color, Piece, Square, get_bishop_moves, get_king_moves, get_knight_moves,
    get_rook_moves,
};

use super::{centre_ring, piece_index};

/// Material in centipawns, pawn … king (the king's is never counted).
pub const MATERIAL: [i32; 6] = [100, 325, 325, 500, 900, 0];

/// Material plus piece-square tables for one root position.
#[derive(Clone, Debug)]
pub struct PaperEval {
    /// `table[color][piece][square]`: material plus positional value, for that colour.
    table: [[[i32; 64]; 6]; 2],
}

impl PaperEval {
    /// Fills the tables for a search from `root`.
    pub fn for_root(root: &Board) -> Self {
        let occupied = root.occupied();
        let mut table = [[[0; 64]; 6]; 2];
        for color in [Color::White, Color::Black] {
            let enemy_queen = !root.colored_pieces(!color, Piece::Queen).is_empty();
            for piece in Piece::ALL {
                for square in Square::ALL {
                    let relative = square.relative_to(color);
                    let ring = centre_ring(square as usize);
                    let positional = match piece {
                        Piece::Pawn => {
                            let rank = relative.rank() as i32;
                            let central = matches!(square.file() as usize, 2..=5);
                            6 * (rank - 1).max(0) + if central { 5 * ring } else { 0 }
                        }
                        Piece::King if enemy_queen => -8 * ring,
                        Piece::King => 8 * ring,
                        _ => mobility(piece, square, occupied) * weight(piece) + 5 * ring,
                    };
                    table[color as usize][piece_index(piece)][square as usize] =
                        MATERIAL[piece_index(piece)] + positional;
                }
            }
        }
        PaperEval { table }
    }

    /// Score for White, in centipawns.
    #[inline]
    pub fn evaluate_white(&self, board: &Board) -> i32 {
        let mut score = 0;
        for color in [Color::White, Color::Black] {
            let sign = if color == Color::White { 1 } else { -1 };
            let table = &self.table[color as usize];
            for piece in Piece::ALL {
                let t = &table[piece_index(piece)];
                for square in board.colored_pieces(color, piece) {
                    score += sign * t[square as usize];
                }
            }
        }
        score
    }
}

fn mobility(piece: Piece, square: Square, occupied: BitBoard) -> i32 {
    let attacks = match piece {
        Piece::Knight => get_knight_moves(square),
        Piece::Bishop => get_bishop_moves(square, occupied),
        Piece::Rook => get_rook_moves(square, occupied),
        Piece::Queen => get_bishop_moves(square, occupied) | get_rook_moves(square, occupied),
        Piece::King => get_king_moves(square),
        Piece::Pawn => BitBoard::EMPTY,
    };
    attacks.len() as i32
}

fn weight(piece: Piece) -> i32 {
    match piece {
        Piece::Knight | Piece::Bishop => 4,
        Piece::Rook => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced_and_material_counts() {
        let board = Board::startpos();
        let eval = PaperEval::for_root(&board);
        assert_eq!(eval.evaluate_white(&board), 0);
        let no_queen: Board = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
            .parse()
            .unwrap();
        let diff = eval.evaluate_white(&no_queen);
        assert!((900..1000).contains(&diff), "{diff}");
    }
}
