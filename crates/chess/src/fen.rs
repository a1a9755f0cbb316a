//! FEN text: parsing with errors that say which field is wrong and why, and printing.
//!
//! cozy-chess can parse FEN, but its errors only name a field ("the board is invalid"). A user
//! pasting a position wants to know *what* is wrong, so this module checks each field itself
//! (syntax, then the chess rules a position must obey: one king each, no pawn on the first or
//! last rank, castling rights that match the pieces, a plausible en passant square, the side
//! not to move not in check) and only then hands a canonical FEN to cozy-chess, whose
//! remaining objections are reported as well.
//!
//! cozy-chess's own validation leaves gaps that its move generator does not survive, and a
//! search meets every position reachable from the one it is given, so [`check_board`] closes
//! them *here*, where positions are made (FEN, EPD, and [`Position::from_board`](crate::Position::from_board)); moves
//! played from a position that passed are legal moves, which keep it legal. What cozy-chess
//! checks (`Board::from_fen`): one king per side, at most 16 pieces and 8 pawns per side, no
//! pawn on the first or last rank, the side not to move not attacked by a pawn, knight or
//! slider, fewer than three checkers, castling rights with king and rook in place, an en
//! passant square behind a pawn of the side that just moved, whose origin is empty and whose
//! checks could come from that push. What it does not check, and [`check_board`] does:
//!
//! - kings side by side: the king is not counted as an attacker, so the side to move could
//!   "capture" the other king, after which cozy-chess panics looking for it;
//! - two checkers that no move can produce: a double check is always a move plus a
//!   discovered check by a bishop, rook or queen, so two non-sliders (two knights, knight and
//!   pawn, ...) are impossible. (Two sliders on one line through the king, on either side of
//!   it, are impossible too, but published perft suites use such a position and cozy-chess
//!   generates its moves correctly, so it is accepted.)
//! - more promoted pieces than missing pawns (a tenth queen, a third knight, two bishops on
//!   squares of one colour beyond what promotions explain): besides being unreachable, such
//!   positions can have more legal moves than [`crate::position::MAX_MOVES`].
//!
//! EPD records (a FEN's first four fields and operations) are read in [`crate::epd`].

use std::fmt;

use cozy_chess::{
    BitBoard, Board, Color, FenParseError, File, Piece, Rank, Square, get_bishop_moves,
    get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves,
};

/// The part of a FEN or EPD record an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FenField {
    /// The text as a whole (empty, wrong number of fields).
    Text,
    /// Field 1, piece placement.
    Placement,
    /// Field 2, side to move.
    SideToMove,
    /// Field 3, castling rights.
    Castling,
    /// Field 4, en passant target square.
    EnPassant,
    /// Field 5, half-move clock.
    HalfmoveClock,
    /// Field 6, full-move number.
    FullmoveNumber,
    /// The fields parse but together do not make a legal position.
    Position,
    /// The operations after an EPD's four fields.
    Operations,
}

impl fmt::Display for FenField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FenField::Text => "FEN",
            FenField::Placement => "piece placement (field 1)",
            FenField::SideToMove => "side to move (field 2)",
            FenField::Castling => "castling rights (field 3)",
            FenField::EnPassant => "en passant square (field 4)",
            FenField::HalfmoveClock => "half-move clock (field 5)",
            FenField::FullmoveNumber => "full-move number (field 6)",
            FenField::Position => "position",
            FenField::Operations => "EPD operations",
        })
    }
}

/// A FEN or EPD record that could not be parsed: the field at fault and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenError {
    /// Which field is wrong.
    pub field: FenField,
    /// What is wrong with it, for a person to read.
    pub message: String,
}

impl FenError {
    pub(crate) fn new(field: FenField, message: impl Into<String>) -> Self {
        FenError {
            field,
            message: message.into(),
        }
    }
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid {}: {}", self.field, self.message)
    }
}

impl std::error::Error for FenError {}

const FIELD_NAMES: &str =
    "placement, side to move, castling, en passant, half-move clock, full-move number";

/// Parses a FEN into a cozy-chess board. Six fields, or four with clocks `0 1`.
pub fn parse_fen(text: &str) -> Result<Board, FenError> {
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    match fields.len() {
        0 => Err(FenError::new(FenField::Text, "empty text")),
        4 => parse_fields(&fields[..4], "0", "1"),
        6 => parse_fields(&fields[..4], fields[4], fields[5]),
        5 => Err(FenError::new(
            FenField::Text,
            "5 fields: a half-move clock needs a full-move number after it",
        )),
        n => Err(FenError::new(
            FenField::Text,
            format!("{n} fields, expected 6 ({FIELD_NAMES}) or the first 4"),
        )),
    }
}

/// One square's content while parsing.
type Cell = Option<(Piece, Color)>;

/// Reads the four position fields and the two clocks into a checked board.
pub(crate) fn parse_fields(
    fields: &[&str],
    halfmove: &str,
    fullmove: &str,
) -> Result<Board, FenError> {
    let grid = parse_placement(fields[0])?;
    check_placement(&grid)?;
    let side = match fields[1] {
        "w" => Color::White,
        "b" => Color::Black,
        other => {
            return Err(FenError::new(
                FenField::SideToMove,
                format!("{:?} is not \"w\" or \"b\"", other),
            ));
        }
    };
    let castling = parse_castling(fields[2], &grid)?;
    let en_passant = parse_en_passant(fields[3], side, &grid)?;
    let halfmove: u8 = match halfmove.parse::<u64>() {
        Ok(n) if n <= 100 => n as u8,
        Ok(n) => {
            return Err(FenError::new(
                FenField::HalfmoveClock,
                format!("{n} is above 100, where the fifty-move rule has already applied"),
            ));
        }
        Err(_) => {
            return Err(FenError::new(
                FenField::HalfmoveClock,
                format!("{halfmove:?} is not a non-negative whole number"),
            ));
        }
    };
    let fullmove: u16 = match fullmove.parse::<u64>() {
        Ok(0) => {
            return Err(FenError::new(
                FenField::FullmoveNumber,
                "0: move numbers start at 1",
            ));
        }
        Ok(n) if n <= u64::from(u16::MAX) => n as u16,
        Ok(n) => {
            return Err(FenError::new(
                FenField::FullmoveNumber,
                format!("{n} is above {}", u16::MAX),
            ));
        }
        Err(_) => {
            return Err(FenError::new(
                FenField::FullmoveNumber,
                format!("{fullmove:?} is not a positive whole number"),
            ));
        }
    };
    let canonical = format!(
        "{} {} {} {} {} {}",
        fields[0], fields[1], castling, en_passant, halfmove, fullmove
    );
    let board = Board::from_fen(&canonical, false)
        .map_err(|error| explain_cozy_error(error, &grid, side))?;
    check_board(&board)?;
    Ok(board)
}

/// Checks what cozy-chess's own validation leaves out (see the module docs): kings side by
/// side, impossible double checks, more promoted pieces than missing pawns. Every position
/// this crate makes passes through here, so the search and perft never meet a position that
/// breaks cozy-chess's assumptions.
pub fn check_board(board: &Board) -> Result<(), FenError> {
    let position = |message: String| FenError::new(FenField::Position, message);
    if get_king_moves(board.king(Color::White)).has(board.king(Color::Black)) {
        return Err(position(format!(
            "the kings stand side by side ({} and {}): the king not to move is in check",
            board.king(Color::White),
            board.king(Color::Black)
        )));
    }
    let side = board.side_to_move();
    let checkers = board.checkers();
    if checkers.len() > 2 {
        return Err(position(format!(
            "{} is in check from {} pieces; at most 2 are possible",
            color_name(side),
            checkers.len()
        )));
    }
    if checkers.len() == 2 {
        let sliders =
            board.pieces(Piece::Bishop) | board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
        let squares: Vec<_> = checkers.into_iter().collect();
        let (a, b) = (squares[0], squares[1]);
        if (checkers & sliders).is_empty() {
            return Err(position(format!(
                "{} is in double check from {a} and {b}, neither a bishop, rook or queen: a \
                 double check needs a discovered check by one of those",
                color_name(side)
            )));
        }
    }
    for color in Color::ALL {
        let count = |piece: Piece| board.colored_pieces(color, piece).len() as i32;
        let bishops = board.colored_pieces(color, Piece::Bishop);
        let light = (bishops & LIGHT_SQUARES).len() as i32;
        let dark = bishops.len() as i32 - light;
        let promoted = (count(Piece::Queen) - 1).max(0)
            + (count(Piece::Rook) - 2).max(0)
            + (count(Piece::Knight) - 2).max(0)
            + (light - 1).max(0)
            + (dark - 1).max(0);
        let missing_pawns = 8 - count(Piece::Pawn);
        if promoted > missing_pawns {
            return Err(FenError::new(
                FenField::Placement,
                format!(
                    "{} has at least {promoted} promoted pieces but only {missing_pawns} \
                     pawns missing",
                    color_name(color)
                ),
            ));
        }
    }
    Ok(())
}

/// The light squares (b1, a2, ...: file + rank odd, counting from 0).
const LIGHT_SQUARES: BitBoard = BitBoard(0x55aa_55aa_55aa_55aa);

/// Turns cozy-chess's remaining objection (after our own checks passed) into a precise one.
fn explain_cozy_error(error: FenParseError, grid: &[[Cell; 8]; 8], side: Color) -> FenError {
    match error {
        FenParseError::InvalidBoard => {
            // Our checks covered kings, pawns and piece counts; what is left is check. The
            // side not to move in check is the first thing to say, whatever the side to move
            // suffers: with both kings in check, that check is what makes the position
            // impossible.
            if king_attacked(grid, !side) {
                FenError::new(
                    FenField::Position,
                    format!(
                        "{} is in check but it is {} to move",
                        color_name(!side),
                        color_name(side)
                    ),
                )
            } else {
                FenError::new(
                    FenField::Position,
                    format!(
                        "{} is in check from more pieces, or in a way, that no legal move \
                         could produce",
                        color_name(side)
                    ),
                )
            }
        }
        FenParseError::InvalidEnPassant => FenError::new(
            FenField::EnPassant,
            "the check on the king could not have been given by the double pawn push the \
             en passant square implies",
        ),
        other => FenError::new(
            FenField::Position,
            format!("rejected by cozy-chess: {other}"),
        ),
    }
}

/// Whether `color`'s king on `grid` is attacked by a piece of the other colour (a king
/// beside it included). `false` when `color` has no king (the placement checks come first).
fn king_attacked(grid: &[[Cell; 8]; 8], color: Color) -> bool {
    let mut occupied = BitBoard::EMPTY;
    let mut king = None;
    let mut enemy = [BitBoard::EMPTY; Piece::NUM];
    for (rank, row) in grid.iter().enumerate() {
        for (file, cell) in row.iter().enumerate() {
            let Some((piece, c)) = *cell else { continue };
            let square = Square::new(File::index(file), Rank::index(rank));
            occupied |= square.bitboard();
            if c == color {
                if piece == Piece::King {
                    king = Some(square);
                }
            } else {
                enemy[piece as usize] |= square.bitboard();
            }
        }
    }
    let Some(king) = king else { return false };
    let diagonal = enemy[Piece::Bishop as usize] | enemy[Piece::Queen as usize];
    let straight = enemy[Piece::Rook as usize] | enemy[Piece::Queen as usize];
    !(get_pawn_attacks(king, color) & enemy[Piece::Pawn as usize]).is_empty()
        || !(get_knight_moves(king) & enemy[Piece::Knight as usize]).is_empty()
        || !(get_king_moves(king) & enemy[Piece::King as usize]).is_empty()
        || !(get_bishop_moves(king, occupied) & diagonal).is_empty()
        || !(get_rook_moves(king, occupied) & straight).is_empty()
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn square_name(file: usize, rank: usize) -> String {
    format!("{}{}", (b'a' + file as u8) as char, rank + 1)
}

/// Parses field 1 into `grid[rank][file]`, rank 0 being the first rank.
fn parse_placement(text: &str) -> Result<[[Cell; 8]; 8], FenError> {
    let err = |message: String| FenError::new(FenField::Placement, message);
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != 8 {
        return Err(err(format!(
            "{} ranks separated by '/', expected 8",
            rows.len()
        )));
    }
    let mut grid = [[None; 8]; 8];
    for (index, row) in rows.iter().enumerate() {
        let rank = 7 - index;
        let rank_number = rank + 1;
        if row.is_empty() {
            return Err(err(format!("rank {rank_number} is empty")));
        }
        let mut file = 0usize;
        for c in row.chars() {
            if let Some(count) = c.to_digit(10) {
                if !(1..=8).contains(&count) {
                    return Err(err(format!(
                        "'{c}' on rank {rank_number}: empty-square counts run from 1 to 8"
                    )));
                }
                file += count as usize;
            } else {
                let piece = Piece::try_from(c.to_ascii_lowercase()).map_err(|_| {
                    err(format!(
                        "{c:?} on rank {rank_number} is neither a piece letter \
                         (PNBRQK, pnbrqk) nor a digit"
                    ))
                })?;
                let color = if c.is_ascii_uppercase() {
                    Color::White
                } else {
                    Color::Black
                };
                if file < 8 {
                    grid[rank][file] = Some((piece, color));
                }
                file += 1;
            }
            if file > 8 {
                return Err(err(format!(
                    "rank {rank_number} describes more than 8 squares"
                )));
            }
        }
        if file < 8 {
            return Err(err(format!(
                "rank {rank_number} describes {file} squares, expected 8"
            )));
        }
    }
    Ok(grid)
}

/// The rules on piece placement that hold in every legal position.
fn check_placement(grid: &[[Cell; 8]; 8]) -> Result<(), FenError> {
    for color in Color::ALL {
        let name = color_name(color);
        let mut kings = 0;
        let mut pawns = 0;
        let mut pieces = 0;
        for (rank, row) in grid.iter().enumerate() {
            for (file, cell) in row.iter().enumerate() {
                let Some((piece, c)) = *cell else { continue };
                if c != color {
                    continue;
                }
                pieces += 1;
                match piece {
                    Piece::King => kings += 1,
                    Piece::Pawn => {
                        pawns += 1;
                        if rank == 0 || rank == 7 {
                            return Err(FenError::new(
                                FenField::Placement,
                                format!(
                                    "{name} pawn on {}: pawns cannot stand on the first or \
                                     last rank",
                                    square_name(file, rank)
                                ),
                            ));
                        }
                    }
                    _ => {}
                }
            }
        }
        match kings {
            1 => {}
            0 => {
                return Err(FenError::new(
                    FenField::Placement,
                    format!("{name} has no king"),
                ));
            }
            n => {
                return Err(FenError::new(
                    FenField::Placement,
                    format!("{name} has {n} kings, expected exactly one"),
                ));
            }
        }
        if pawns > 8 {
            return Err(FenError::new(
                FenField::Placement,
                format!("{name} has {pawns} pawns, at most 8 are possible"),
            ));
        }
        if pieces > 16 {
            return Err(FenError::new(
                FenField::Placement,
                format!("{name} has {pieces} pieces, at most 16 are possible"),
            ));
        }
    }
    Ok(())
}

/// Parses field 3 and checks each right against the king and rook it needs; returns the
/// rights in canonical order (`KQkq` subset, or `-`).
fn parse_castling(text: &str, grid: &[[Cell; 8]; 8]) -> Result<String, FenError> {
    let err = |message: String| FenError::new(FenField::Castling, message);
    if text == "-" {
        return Ok(text.to_string());
    }
    let mut seen = [false; 4];
    for c in text.chars() {
        let (index, color, rook_file) = match c {
            'K' => (0, Color::White, 7),
            'Q' => (1, Color::White, 0),
            'k' => (2, Color::Black, 7),
            'q' => (3, Color::Black, 0),
            _ => {
                return Err(err(format!(
                    "{c:?} is not a castling right (K, Q, k, q, or \"-\" for none)"
                )));
            }
        };
        if seen[index] {
            return Err(err(format!("{c:?} appears twice")));
        }
        seen[index] = true;
        let rank = if color == Color::White { 0 } else { 7 };
        let king_home = grid[rank][4] == Some((Piece::King, color));
        let rook_home = grid[rank][rook_file] == Some((Piece::Rook, color));
        if !king_home || !rook_home {
            return Err(err(format!(
                "'{c}' needs the {name} king on {} and a {name} rook on {}",
                square_name(4, rank),
                square_name(rook_file, rank),
                name = color_name(color)
            )));
        }
    }
    Ok("KQkq"
        .chars()
        .zip(seen)
        .filter_map(|(c, present)| present.then_some(c))
        .collect())
}

/// Parses field 4: `-`, or the square a pawn just skipped with a double push.
fn parse_en_passant(text: &str, side: Color, grid: &[[Cell; 8]; 8]) -> Result<String, FenError> {
    let err = |message: String| FenError::new(FenField::EnPassant, message);
    if text == "-" {
        return Ok(text.to_string());
    }
    let bytes = text.as_bytes();
    let valid =
        bytes.len() == 2 && (b'a'..=b'h').contains(&bytes[0]) && (b'1'..=b'8').contains(&bytes[1]);
    if !valid {
        return Err(err(format!("{text:?} is not a square (a1..h8) or \"-\"")));
    }
    let file = usize::from(bytes[0] - b'a');
    let rank = usize::from(bytes[1] - b'1');
    let (expected_rank, pawn_rank, origin_rank) = match side {
        Color::White => (5, 4, 6),
        Color::Black => (2, 3, 1),
    };
    if rank != expected_rank {
        return Err(err(format!(
            "{text} is on rank {}, but with {} to move it must be on rank {}",
            rank + 1,
            color_name(side),
            expected_rank + 1
        )));
    }
    let mover = !side;
    if grid[pawn_rank][file] != Some((Piece::Pawn, mover)) {
        return Err(err(format!(
            "{text} needs a {} pawn on {} that has just made a double push",
            color_name(mover),
            square_name(file, pawn_rank)
        )));
    }
    if grid[rank][file].is_some() || grid[origin_rank][file].is_some() {
        return Err(err(format!(
            "{text} needs {} and {} empty, as after a double push",
            square_name(file, rank),
            square_name(file, origin_rank)
        )));
    }
    Ok(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_start_position() {
        let board = parse_fen(crate::STARTPOS_FEN).unwrap();
        assert_eq!(board.to_string(), crate::STARTPOS_FEN);
    }

    #[test]
    fn four_fields_default_clocks() {
        let board = parse_fen("8/8/4k3/8/8/4K3/8/8 w - -").unwrap();
        assert_eq!(board.to_string(), "8/8/4k3/8/8/4K3/8/8 w - - 0 1");
    }

    #[test]
    fn castling_rights_come_out_canonical() {
        let board = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 0 1").unwrap();
        assert_eq!(board.to_string(), "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    }
}
