//! The board: a 7×6 Connect Four position as two bitboards, parsed from Pons' move
//! sequences, with the threat arithmetic the search needs and the keys the table needs.
//!
//! Why bitboards: every question the solver asks at a node (can I win now, which moves do not
//! hand the opponent a win, how many winning spots does a move create) is a dozen shifts and
//! ANDs, so a node costs a few nanoseconds.
//!
//! Layout (Pons, Tromp): one column of 7 bits per file, bit `7·col + row`, row 0 at the
//! bottom; the 7th bit of each column is a sentinel that stays empty, so shifts never carry a
//! line from one column into the next.
//!
//! ```text
//!  .  .  .  .  .  .  .      6 13 20 27 34 41 48   (sentinel row)
//!  5 12 19 26 33 40 47
//!  ...
//!  0  7 14 21 28 35 42
//! ```

use std::fmt;

mod claimeven;

/// Columns on the board.
pub const WIDTH: usize = 7;
/// Rows on the board.
pub const HEIGHT: usize = 6;
/// Squares on the board: the most moves a game can have.
pub const SQUARES: usize = WIDTH * HEIGHT;
/// Bits per column, with the sentinel.
const H1: usize = HEIGHT + 1;

/// One bit at the bottom of every column.
const BOTTOM: u64 = {
    let mut mask = 0;
    let mut col = 0;
    while col < WIDTH {
        mask |= 1 << (col * H1);
        col += 1;
    }
    mask
};
/// Every playable square.
const BOARD: u64 = BOTTOM * ((1 << HEIGHT) - 1);

/// The playable squares of column `col`.
#[inline]
pub const fn column_mask(col: usize) -> u64 {
    ((1 << HEIGHT) - 1) << (col * H1)
}

/// The 0-based column of a single square's bit.
#[inline]
pub const fn column_of(square: u64) -> usize {
    (square.trailing_zeros() / H1 as u32) as usize
}

/// The top playable square of column `col`.
#[inline]
const fn top_mask(col: usize) -> u64 {
    1 << (HEIGHT - 1 + col * H1)
}

/// Squares that would complete a line of four for `stones`, given the occupied `mask`: the
/// empty squares (also unreachable ones) next to three stones in a row, column or diagonal.
#[inline]
pub fn winning_squares(stones: u64, mask: u64) -> u64 {
    // Vertical: three stones below.
    let mut r = (stones << 1) & (stones << 2) & (stones << 3);
    // Horizontal (shift H1), and the two diagonals (H1 − 1 and H1 + 1).
    for shift in [H1, H1 - 1, H1 + 1] {
        let p = (stones << shift) & (stones << (2 * shift));
        r |= p & (stones << (3 * shift));
        r |= p & (stones >> shift);
        let p = (stones >> shift) & (stones >> (2 * shift));
        r |= p & (stones << shift);
        r |= p & (stones >> (3 * shift));
    }
    r & (BOARD ^ mask)
}

/// Why a move sequence is not a position the solver can be asked about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The sequence is empty (the empty board is written as an empty string only where the
    /// caller allows it).
    Empty,
    /// A character that is not a digit.
    NotADigit {
        /// 1-based index of the move in the sequence.
        index: usize,
        /// The character found.
        found: char,
    },
    /// A digit outside 1 to 7.
    ColumnOutOfRange {
        /// 1-based index of the move in the sequence.
        index: usize,
        /// The digit found.
        column: u32,
    },
    /// A move into a column that holds six stones already.
    ColumnFull {
        /// 1-based index of the move in the sequence.
        index: usize,
        /// The 1-based column.
        column: usize,
    },
    /// A move that wins the game: the position after it is over, not a problem to solve.
    AlreadyWon {
        /// 1-based index of the winning move in the sequence.
        index: usize,
        /// The 1-based column.
        column: usize,
    },
    /// All 42 squares are filled: the game is over (a draw).
    BoardFull,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Empty => write!(f, "empty move sequence"),
            ParseError::NotADigit { index, found } => {
                write!(f, "move {index}: {found:?} is not a column digit 1-{WIDTH}")
            }
            ParseError::ColumnOutOfRange { index, column } => {
                write!(f, "move {index}: column {column} is out of range 1-{WIDTH}")
            }
            ParseError::ColumnFull { index, column } => {
                write!(f, "move {index}: column {column} is full")
            }
            ParseError::AlreadyWon { index, column } => write!(
                f,
                "move {index}: column {column} completes four in a row, the game is already won"
            ),
            ParseError::BoardFull => write!(f, "the board is full, the game is over"),
        }
    }
}

impl std::error::Error for ParseError {}

/// A position: the stones of the side to move, the occupied squares, and the move count,
/// each board also kept mirrored.
///
/// Why the mirrored boards: the table key is the smaller of a position's key and its
/// mirror's, asked for several times per node (the node, each child's prefetch). Reversing
/// seven columns costs about twenty instructions each time, 13% of a solve's instructions
/// (callgrind on Begin-Easy); keeping the mirror costs four per move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Position {
    /// Stones of the side to move.
    current: u64,
    /// Every stone.
    mask: u64,
    /// `current` with the columns reversed.
    mirror_current: u64,
    /// `mask` with the columns reversed.
    mirror_mask: u64,
    /// Stones on the board.
    moves: u32,
}

impl Position {
    /// The empty board.
    pub const fn new() -> Self {
        Position {
            current: 0,
            mask: 0,
            mirror_current: 0,
            mirror_mask: 0,
            moves: 0,
        }
    }

    /// Plays a sequence of 1-based column digits (Pons' format) from the empty board. The
    /// empty string is the empty board. Rejects a move that wins (the game would be over) and
    /// a sequence that fills the board.
    pub fn from_moves(seq: &str) -> Result<Self, ParseError> {
        let mut pos = Position::new();
        for (i, ch) in seq.chars().enumerate() {
            let index = i + 1;
            let digit = ch
                .to_digit(10)
                .ok_or(ParseError::NotADigit { index, found: ch })?;
            if !(1..=WIDTH as u32).contains(&digit) {
                return Err(ParseError::ColumnOutOfRange {
                    index,
                    column: digit,
                });
            }
            let col = digit as usize - 1;
            let column = col + 1;
            if !pos.can_play(col) {
                return Err(ParseError::ColumnFull { index, column });
            }
            if pos.is_winning_move(col) {
                return Err(ParseError::AlreadyWon { index, column });
            }
            pos.play_column(col);
        }
        if pos.moves as usize == SQUARES {
            return Err(ParseError::BoardFull);
        }
        Ok(pos)
    }

    /// Stones on the board.
    #[inline]
    pub const fn moves(&self) -> u32 {
        self.moves
    }

    /// Whether column `col` (0-based) has room.
    #[inline]
    pub const fn can_play(&self, col: usize) -> bool {
        self.mask & top_mask(col) == 0
    }

    /// Plays in column `col` (0-based), which must have room.
    #[inline]
    pub fn play_column(&mut self, col: usize) {
        self.play((self.mask + (1 << (col * H1))) & column_mask(col));
    }

    /// Plays the stone `square` (one bit, the lowest empty square of its column).
    #[inline]
    pub fn play(&mut self, square: u64) {
        self.current ^= self.mask;
        self.mask |= square;
        self.mirror_current ^= self.mirror_mask;
        self.mirror_mask |= mirror_square(square);
        self.moves += 1;
    }

    /// The position after playing `square` (see [`Position::play`]).
    #[inline]
    pub fn after(&self, square: u64) -> Position {
        let mut next = *self;
        next.play(square);
        next
    }

    /// Whether playing column `col` (0-based, with room) makes four in a row.
    #[inline]
    pub fn is_winning_move(&self, col: usize) -> bool {
        self.winning() & self.possible() & column_mask(col) != 0
    }

    /// Whether the side to move can win with its next stone.
    #[inline]
    pub fn can_win_next(&self) -> bool {
        self.winning() & self.possible() != 0
    }

    /// The lowest empty square of every column with room.
    #[inline]
    pub fn possible(&self) -> u64 {
        (self.mask + BOTTOM) & BOARD
    }

    /// Squares that would win for the side to move.
    #[inline]
    fn winning(&self) -> u64 {
        winning_squares(self.current, self.mask)
    }

    /// Squares that would win for the opponent (also those not playable yet).
    #[inline]
    pub fn opponent_winning(&self) -> u64 {
        winning_squares(self.current ^ self.mask, self.mask)
    }

    /// The playable squares that do not let the opponent win at once: if the opponent
    /// threatens one playable square, that square only; if two, none (the game is lost); and
    /// never the square just below an opponent's winning square. Assumes the side to move
    /// cannot win at once (the search checks that first).
    #[inline]
    pub fn non_losing_moves(&self) -> u64 {
        self.non_losing_moves_against(self.opponent_winning())
    }

    /// [`Position::non_losing_moves`], given the opponent's winning squares `threats`
    /// ([`Position::opponent_winning`]), when the caller has them already.
    #[inline]
    pub fn non_losing_moves_against(&self, threats: u64) -> u64 {
        debug_assert_eq!(threats, self.opponent_winning());
        let mut possible = self.possible();
        let forced = possible & threats;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            possible = forced;
        }
        possible & !(threats >> 1)
    }

    /// The side to move's winning squares after it plays `square`, which must be playable
    /// and not win at once: the next position's [`Position::opponent_winning`], and, counted,
    /// the move's score for move ordering. (The square
    /// just played is never among them, since it did not win, so the occupied squares
    /// before the move serve as well as those after.)
    #[inline]
    pub fn winning_after(&self, square: u64) -> u64 {
        winning_squares(self.current | square, self.mask)
    }

    /// The exact position key: per column, the stones of the side to move plus the column's
    /// fill, which writes each column's contents as one number below 2^7 with its height as
    /// the leading one. 49 bits; distinct positions have distinct keys.
    #[inline]
    pub fn key(&self) -> u64 {
        self.current + self.mask + BOTTOM
    }

    /// The key of the mirror image (columns reversed).
    #[inline]
    pub fn mirror_key(&self) -> u64 {
        self.mirror_current + self.mirror_mask + BOTTOM
    }

    /// The smaller of [`Position::key`] and [`Position::mirror_key`]: one key for a position
    /// and its reflection, which have the same score.
    #[inline]
    pub fn symmetric_key(&self) -> u64 {
        self.key().min(self.mirror_key())
    }

    /// The mirror image of the position.
    pub fn mirror(&self) -> Position {
        Position {
            current: self.mirror_current,
            mask: self.mirror_mask,
            mirror_current: self.current,
            mirror_mask: self.mask,
            moves: self.moves,
        }
    }
}

/// The square at the same height in the mirrored column: column `c` is bits `7c..7c + 7`,
/// and its mirror `6 − c` lies `(6 − 2c) · 7` bits up (down when negative), a rotation that
/// never wraps because the result is on the board.
#[inline]
fn mirror_square(square: u64) -> u64 {
    // ⌊b · 37 / 256⌋ = ⌊b / 7⌋ for every bit index b below 49 (checked in the tests).
    let col = (square.trailing_zeros() * 37) >> 8;
    square.rotate_left(((6 - 2 * col as i32) * H1 as i32).rem_euclid(64) as u32)
}

/// Reverses the order of the seven 7-bit column groups of a board word (the plain
/// definition of the mirror, which the tests hold [`Position`]'s incremental one to).
#[cfg(test)]
fn mirror_columns(word: u64) -> u64 {
    const COL: u64 = (1 << H1) - 1;
    let mut out = 0;
    let mut col = 0;
    while col < WIDTH {
        out |= ((word >> (col * H1)) & COL) << ((WIDTH - 1 - col) * H1);
        col += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(seq: &str) -> Position {
        Position::from_moves(seq).expect("test sequences are valid")
    }

    #[test]
    fn parse_errors_name_the_move_and_the_reason() {
        assert_eq!(
            Position::from_moves("44a"),
            Err(ParseError::NotADigit {
                index: 3,
                found: 'a'
            })
        );
        assert_eq!(
            Position::from_moves("08"),
            Err(ParseError::ColumnOutOfRange {
                index: 1,
                column: 0
            })
        );
        assert_eq!(
            Position::from_moves("1111111"),
            Err(ParseError::ColumnFull {
                index: 7,
                column: 1
            })
        );
        assert_eq!(
            Position::from_moves("1212121"),
            Err(ParseError::AlreadyWon {
                index: 7,
                column: 1
            })
        );
        assert_eq!(Position::from_moves(""), Ok(Position::new()));
    }

    #[test]
    fn a_full_drawn_board_is_game_over() {
        // Columns filled in pairs 1-2, 3-4, 5-6 with a shift, then 7: no four anywhere.
        let seq = "121212343434565656212121434343656565777777";
        assert_eq!(seq.len(), SQUARES);
        assert_eq!(Position::from_moves(seq), Err(ParseError::BoardFull));
        assert!(Position::from_moves(&seq[..41]).is_ok());
    }

    #[test]
    fn the_incremental_mirror_is_the_plain_one() {
        for bit in 0..(WIDTH * H1) as u32 {
            assert_eq!(
                mirror_square(1 << bit),
                mirror_columns(1 << bit),
                "bit {bit}"
            );
        }
        // Every prefix of a few long games, both colours, every column.
        for game in [
            "2252576253462244111563365343671351441",
            "44444456666667777771112233",
            "3333336565655514141",
        ] {
            for len in 0..=game.len() {
                // A made-up game may end in a win early: check up to there.
                let Ok(p) = Position::from_moves(&game[..len]) else {
                    assert!(len > 20, "{game} {len}");
                    break;
                };
                assert_eq!(p.mirror_current, mirror_columns(p.current), "{game} {len}");
                assert_eq!(p.mirror_mask, mirror_columns(p.mask), "{game} {len}");
                assert_eq!(p.mirror_key(), mirror_columns(p.key()));
                assert_eq!(p.mirror().mirror(), p);
            }
        }
    }

    #[test]
    fn keys_are_exact_and_mirrors_share_the_symmetric_key() {
        let a = pos("4455");
        let b = pos("5544");
        assert_eq!(a.key(), b.key(), "transposition");
        let m = pos("4433");
        assert_eq!(a.mirror(), m);
        assert_eq!(a.mirror_key(), m.key());
        assert_eq!(a.symmetric_key(), m.symmetric_key());
        assert_ne!(pos("1").key(), pos("2").key());
        assert_ne!(pos("12").key(), pos("21").key(), "colours differ");
        assert!(pos("1").key() < 1 << 49);
    }

    #[test]
    fn threats_and_forced_moves() {
        // Side to move (first player) has 444 and wins in column 4.
        let p = pos("414141");
        assert!(p.can_win_next() && p.is_winning_move(3));
        // Opponent threatens column 4: the only non-losing move is there.
        let q = pos("41414");
        assert_eq!(q.non_losing_moves(), column_mask(3) & q.possible());
    }
}
