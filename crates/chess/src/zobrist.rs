//! Polyglot Zobrist keys: from scratch, and incrementally after a move or null move.
//!
//! Keys must match Polyglot bit for bit so that opening books can be probed with them, and
//! they must be cheap to keep up to date, since a search computes one at every node. The
//! incremental functions here take the board before and after a move (cozy-chess has already
//! done the move), XOR out what changed and XOR in what is new; [`compute`] is the reference
//! they are tested against.
//!
//! Polyglot's one subtlety is en passant: the file key is included only when a pawn of the
//! side to move stands beside the pawn that just made a double push, whether or not the
//! capture would be legal. cozy-chess records an en passant file after every double push, so
//! [`en_passant_key`] applies Polyglot's rule itself.

use cozy_chess::{BitBoard, Board, Color, File, Move, Piece, Rank, Square, get_pawn_attacks};

use crate::polyglot_keys::POLYGLOT_RANDOM;

/// Index of the first castling constant (white O-O); then white O-O-O, black O-O, black O-O-O.
const CASTLING: usize = 768;
/// Index of the en passant constant for file a; files b..h follow.
const EN_PASSANT: usize = 772;
/// Index of the constant XORed in when White is to move.
const WHITE_TO_MOVE: usize = 780;

/// The squares whose pieces castling rights depend on: a1, e1, h1, a8, e8, h8.
const CASTLING_SQUARES: BitBoard = BitBoard(0x9100_0000_0000_0091);

/// Piece-square constants regrouped as `[color][piece][square]`, so that indexing with
/// cozy-chess enums needs no arithmetic and no bounds check at run time.
static PIECE_SQUARE: [[[u64; 64]; 6]; 2] = piece_square_table();

const fn piece_square_table() -> [[[u64; 64]; 6]; 2] {
    let mut table = [[[0; 64]; 6]; 2];
    let mut color = 0;
    while color < 2 {
        let mut piece = 0;
        while piece < 6 {
            // Polyglot kind: black pawn 0, white pawn 1, black knight 2, ...; cozy-chess
            // orders pieces pawn..king and colors white, black.
            let kind = 2 * piece + if color == 0 { 1 } else { 0 };
            let mut square = 0;
            while square < 64 {
                table[color][piece][square] = POLYGLOT_RANDOM[64 * kind + square];
                square += 1;
            }
            piece += 1;
        }
        color += 1;
    }
    table
}

/// The constant for `piece` of `color` on `square`.
#[inline]
pub fn piece_key(piece: Piece, color: Color, square: Square) -> u64 {
    PIECE_SQUARE[color as usize][piece as usize][square as usize]
}

/// The XOR of the castling constants for the rights `board` holds.
#[inline]
pub fn castling_key(board: &Board) -> u64 {
    let white = board.castle_rights(Color::White);
    let black = board.castle_rights(Color::Black);
    let mut key = 0;
    if white.short.is_some() {
        key ^= POLYGLOT_RANDOM[CASTLING];
    }
    if white.long.is_some() {
        key ^= POLYGLOT_RANDOM[CASTLING + 1];
    }
    if black.short.is_some() {
        key ^= POLYGLOT_RANDOM[CASTLING + 2];
    }
    if black.long.is_some() {
        key ^= POLYGLOT_RANDOM[CASTLING + 3];
    }
    key
}

/// The en passant constant if Polyglot counts one in `board`, else 0: a pawn of the side to
/// move must stand beside the pawn that just made a double push.
#[inline]
pub fn en_passant_key(board: &Board) -> u64 {
    let Some(file) = board.en_passant() else {
        return 0;
    };
    let us = board.side_to_move();
    let target = Square::new(file, Rank::Sixth.relative_to(us));
    // Our pawns that attack the target square are exactly those beside the pushed pawn.
    let capturers = get_pawn_attacks(target, !us) & board.colored_pieces(us, Piece::Pawn);
    if capturers.is_empty() {
        0
    } else {
        POLYGLOT_RANDOM[EN_PASSANT + file as usize]
    }
}

/// The side-to-move constant: present when White is to move.
#[inline]
pub fn side_key(color: Color) -> u64 {
    match color {
        Color::White => POLYGLOT_RANDOM[WHITE_TO_MOVE],
        Color::Black => 0,
    }
}

/// The Polyglot key of `board`, computed from scratch.
pub fn compute(board: &Board) -> u64 {
    let mut key = 0;
    for color in Color::ALL {
        for piece in Piece::ALL {
            for square in board.colored_pieces(color, piece) {
                key ^= piece_key(piece, color, square);
            }
        }
    }
    key ^ castling_key(board) ^ en_passant_key(board) ^ side_key(board.side_to_move())
}

/// The key after `mv`, given the key of `before` and the board `after` the move was played.
///
/// `mv` must be the legal move that turned `before` into `after`. If `before` has no piece on
/// the move's origin (which a legal move cannot produce), the key is computed from scratch
/// rather than guessed.
#[inline]
pub fn after_move(key: u64, before: &Board, mv: Move, after: &Board) -> u64 {
    match before.piece_on(mv.from) {
        Some(moved) => after_move_of(key, before, moved, mv, after),
        None => compute(after),
    }
}

/// [`after_move`] for a caller that already knows the moving piece (move generation tells).
#[inline(always)]
pub fn after_move_of(key: u64, before: &Board, moved: Piece, mv: Move, after: &Board) -> u64 {
    let us = before.side_to_move();
    let mut key = key ^ POLYGLOT_RANDOM[WHITE_TO_MOVE];
    if before.colors(us).has(mv.to) {
        // Castling, which cozy-chess encodes as the king taking its own rook.
        let rank = mv.from.rank();
        let (king_to, rook_to) = if mv.to.file() > mv.from.file() {
            (File::G, File::F)
        } else {
            (File::C, File::D)
        };
        key ^= piece_key(Piece::King, us, mv.from)
            ^ piece_key(Piece::Rook, us, mv.to)
            ^ piece_key(Piece::King, us, Square::new(king_to, rank))
            ^ piece_key(Piece::Rook, us, Square::new(rook_to, rank));
    } else {
        let placed = mv.promotion.unwrap_or(moved);
        key ^= piece_key(moved, us, mv.from) ^ piece_key(placed, us, mv.to);
        if before.colors(!us).has(mv.to) {
            if let Some(victim) = before.piece_on(mv.to) {
                key ^= piece_key(victim, !us, mv.to);
            }
        } else if moved == Piece::Pawn && mv.from.file() != mv.to.file() {
            // A diagonal pawn move to an empty square is en passant; the victim stands
            // beside the origin square.
            key ^= piece_key(Piece::Pawn, !us, Square::new(mv.to.file(), mv.from.rank()));
        }
    }
    // Castling rights can only change when a move touches a king's or rook's home square.
    if !(CASTLING_SQUARES & (mv.from.bitboard() | mv.to.bitboard())).is_empty() {
        key ^= castling_key(before) ^ castling_key(after);
    }
    if before.en_passant().is_some() {
        key ^= en_passant_key(before);
    }
    if after.en_passant().is_some() {
        key ^= en_passant_key(after);
    }
    key
}

/// A cheap guess of the key after `mv` (a move of `before`, whose key is `key`), for
/// prefetching the child's table bucket *before* the move is played. Exact for ordinary
/// moves, captures and promotions; castling, a change of castling rights and a new en
/// passant square are ignored, so the guess can be wrong then (a prefetch of the wrong
/// bucket costs a little bandwidth, nothing else). Never use it as the real key.
#[inline]
pub fn predict_after_move(key: u64, before: &Board, mv: Move) -> u64 {
    let us = before.side_to_move();
    let Some(moved) = before.piece_on(mv.from) else {
        return key;
    };
    let placed = mv.promotion.unwrap_or(moved);
    let mut key = key
        ^ POLYGLOT_RANDOM[WHITE_TO_MOVE]
        ^ piece_key(moved, us, mv.from)
        ^ piece_key(placed, us, mv.to);
    if before.colors(!us).has(mv.to)
        && let Some(victim) = before.piece_on(mv.to)
    {
        key ^= piece_key(victim, !us, mv.to);
    }
    if before.en_passant().is_some() {
        key ^= en_passant_key(before);
    }
    key
}

/// The key after a null move from `before`: the side to move flips and any en passant
/// constant disappears (a null move forfeits en passant).
#[inline]
pub fn after_null_move(key: u64, before: &Board) -> u64 {
    key ^ en_passant_key(before) ^ POLYGLOT_RANDOM[WHITE_TO_MOVE]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_key_is_polyglots() {
        assert_eq!(compute(&Board::startpos()), 0x463b96181691fc9c);
    }

    #[test]
    fn table_regroups_constants() {
        // White king on e1: kind 11, square 4.
        assert_eq!(
            piece_key(Piece::King, Color::White, Square::E1),
            POLYGLOT_RANDOM[64 * 11 + 4]
        );
        // Black pawn on a7: kind 0, square 48.
        assert_eq!(
            piece_key(Piece::Pawn, Color::Black, Square::A7),
            POLYGLOT_RANDOM[48]
        );
    }
}
