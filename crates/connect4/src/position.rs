//! The board: a Connect Four position on a board of `W` columns and `H` rows (7×6 unless
//! said otherwise) as two bitboards, parsed from Pons' move sequences, with the threat
//! arithmetic the search needs and the keys the table needs.
//!
//! Why bitboards: every question the solver asks at a node (can I win now, which moves do not
//! hand the opponent a win, how many winning spots does a move create) is a dozen shifts and
//! ANDs, so a node costs a few nanoseconds.
//!
//! Layout (Pons, Tromp): one column of `H + 1` bits per file, bit `(H + 1)·col + row`, row 0
//! at the bottom; the top bit of each column is a sentinel that stays empty, so shifts never
//! carry a line from one column into the next. On 7×6:
//!
//! ```text
//!  .  .  .  .  .  .  .      6 13 20 27 34 41 48   (sentinel row)
//!  5 12 19 26 33 40 47
//!  ...
//!  0  7 14 21 28 35 42
//! ```
//!
//! Why the board is a pair of const parameters and not a runtime value: every mask and shift
//! is then a constant, and the 7×6 solver compiles to the same code as when its size was
//! written into it; `transpo-c4 --board` picks one of the [`crate::board::Board`]s compiled
//! in. The bitboards are `u64` when a board's `W·(H + 1)` bits fit in 64 and `u128` up to 128
//! ([`Bitboard`]), with `W, H ≥ 4`.

pub use crate::bitboard::Bitboard;

/// How a move sequence names the empty board, which has no moves: `-` (in the line protocol,
/// split files, the server's `pos`, the lab's sets). An empty line is an error, not the
/// empty board.
pub const EMPTY_BOARD: &str = "-";
use std::fmt;

mod claimeven;

/// The most columns of a board (13 × 4 uses 65 bits).
pub const MAX_WIDTH: usize = 13;

/// The written name of 0-based column `col`: `1`–`9`, then the letters from `a` for columns
/// 10, 11, … (`d` is column 13).
pub const fn column_char(col: usize) -> char {
    const NAMES: [char; MAX_WIDTH] = [
        '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd',
    ];
    NAMES[col]
}

/// The 0-based column written as `ch` ([`column_char`]), if it is one of `1`–`9` or a letter
/// from `a` (or `A`) to the widest board's last column, whatever the board's width.
pub const fn column_from_char(ch: char) -> Option<usize> {
    const LAST: char = column_char(MAX_WIDTH - 1);
    match ch {
        '1'..='9' => Some(ch as usize - '1' as usize),
        'a'..=LAST => Some(ch as usize - 'a' as usize + 9),
        'A'..='Z' if ch.to_ascii_lowercase() <= LAST => Some(ch as usize - 'A' as usize + 9),
        _ => None,
    }
}

/// Why a move sequence is not a position the solver can be asked about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The sequence is empty (the empty board is written as an empty string only where the
    /// caller allows it).
    Empty,
    /// A character that does not name a column (`1`–`9`, `a`–`c`).
    NotADigit {
        /// 1-based index of the move in the sequence.
        index: usize,
        /// The character found.
        found: char,
    },
    /// A column the board does not have.
    ColumnOutOfRange {
        /// 1-based index of the move in the sequence.
        index: usize,
        /// The 1-based column.
        column: u32,
        /// Columns on the board.
        width: usize,
    },
    /// A move into a full column.
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
    /// Every square is filled: the game is over (a draw).
    BoardFull,
}

/// `1-7`, `1-9`, `1-9, a` … : the column names of a board `width` wide.
struct ColumnRange(usize);

impl fmt::Display for ColumnRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0..=9 => write!(f, "1-{}", self.0),
            10 => write!(f, "1-9, a"),
            width => write!(f, "1-9, a-{}", column_char(width - 1)),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Empty => write!(f, "empty move sequence"),
            ParseError::NotADigit { index, found } => {
                write!(
                    f,
                    "move {index}: {found:?} is not a column (1-9, a-{})",
                    column_char(MAX_WIDTH - 1)
                )
            }
            ParseError::ColumnOutOfRange {
                index,
                column,
                width,
            } => write!(
                f,
                "move {index}: column {column} is out of range {}",
                ColumnRange(*width)
            ),
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

/// A position on a board of `W` columns and `H` rows: the stones of the side to move, the
/// occupied squares, and the move count, each board also kept mirrored.
///
/// Why the mirrored boards: the table key is the smaller of a position's key and its
/// mirror's, asked for several times per node (the node, each child's prefetch). Reversing
/// seven columns costs about twenty instructions each time, 13% of a solve's instructions
/// (callgrind on Begin-Easy); keeping the mirror costs four per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position<const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    /// Stones of the side to move.
    current: B,
    /// Every stone.
    mask: B,
    /// `current` with the columns reversed.
    mirror_current: B,
    /// `mask` with the columns reversed.
    mirror_mask: B,
    /// Stones on the board.
    moves: u32,
}

impl<const W: usize, const H: usize, B: Bitboard> Default for Position<W, H, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Position<W, H, B> {
    /// Columns on the board.
    pub const WIDTH: usize = W;
    /// Rows on the board.
    pub const HEIGHT: usize = H;
    /// Squares on the board: the most moves a game can have.
    pub const SQUARES: usize = W * H;
    /// Bits of [`Position::key`]: `H + 1` per column.
    pub const KEY_BITS: u32 = (W * (H + 1)) as u32;
    /// Bits per column, with the sentinel.
    const H1: usize = H + 1;
    /// The board fits the bitboards: checked when a position of it is made, so a board that
    /// does not is a compile-time error. A board of at most 64 bits takes `u64` words: the
    /// faster code is not optional.
    const FITS: () = assert!(
        W >= 4
            && H >= 4
            && W <= MAX_WIDTH
            && W * (H + 1) <= B::BITS as usize
            && (B::BITS == 64 || W * (H + 1) > 64),
        "a board needs W, H >= 4, W * (H + 1) bits in its word, and u64 words when they fit"
    );
    /// One bit at the bottom of every column.
    const BOTTOM_BITS: u128 = {
        let mut mask = 0;
        let mut col = 0;
        while col < W {
            mask |= 1 << (col * (H + 1));
            col += 1;
        }
        mask
    };
    /// Every playable square.
    const BOARD_BITS: u128 = Self::BOTTOM_BITS * ((1 << H) - 1);

    /// One bit at the bottom of every column.
    #[inline(always)]
    fn bottom() -> B {
        B::from_u128(Self::BOTTOM_BITS)
    }

    /// Every playable square.
    #[inline(always)]
    fn board() -> B {
        B::from_u128(Self::BOARD_BITS)
    }

    /// The playable squares of column `col`.
    #[inline]
    pub fn column_mask(col: usize) -> B {
        B::from_u128((1 << H) - 1) << (col * Self::H1)
    }

    /// The 0-based column of a single square's bit.
    #[inline]
    pub fn column_of(square: B) -> usize {
        let (factor, shift) = Self::DIVIDE_BY_H1;
        ((square.trailing_zeros() * factor) >> shift) as usize
    }

    /// `(f, s)` with `⌊b · f / 2^s⌋ = ⌊b / (H + 1)⌋` for every bit index `b` below 128: a
    /// multiply and a shift instead of a division, which cost two more instructions per move
    /// (37 and 8 on 7×6; every bit index is checked here, at compile time).
    const DIVIDE_BY_H1: (u32, u32) = {
        let mut shift = 6;
        loop {
            let factor = (1 << shift) / Self::H1 as u32 + 1;
            let mut b = 0;
            while b < 128 && (b * factor) >> shift == b / Self::H1 as u32 {
                b += 1;
            }
            if b == 128 {
                break (factor, shift);
            }
            shift += 1;
        }
    };

    /// The top playable square of column `col`.
    #[inline]
    fn top_mask(col: usize) -> B {
        B::ONE << (H - 1 + col * Self::H1)
    }

    /// Squares that would complete a line of four for `stones`, given the occupied `mask`:
    /// the empty squares (also unreachable ones) next to three stones in a row, column or
    /// diagonal.
    #[inline]
    pub fn winning_squares(stones: B, mask: B) -> B {
        let h1 = Self::H1;
        // Vertical: three stones below.
        let mut r = (stones << 1) & (stones << 2) & (stones << 3);
        // Horizontal (shift H + 1), and the two diagonals (H and H + 2).
        for shift in [h1, h1 - 1, h1 + 1] {
            let p = (stones << shift) & (stones << (2 * shift));
            r |= p & (stones << (3 * shift));
            r |= p & (stones >> shift);
            let p = (stones >> shift) & (stones >> (2 * shift));
            r |= p & (stones << shift);
            r |= p & (stones >> (3 * shift));
        }
        r & (Self::board() ^ mask)
    }

    /// The empty board.
    pub const fn new() -> Self {
        let () = Self::FITS;
        Position {
            current: B::ZERO,
            mask: B::ZERO,
            mirror_current: B::ZERO,
            mirror_mask: B::ZERO,
            moves: 0,
        }
    }

    /// Plays a sequence of 1-based columns (Pons' format: `1`–`9`, then `a`, `b`, … for
    /// columns 10, 11, …) from the empty board. The empty string is the empty board. Rejects a
    /// move that wins (the game would be over) and a sequence that fills the board.
    pub fn from_moves(seq: &str) -> Result<Self, ParseError> {
        let mut pos = Position::new();
        for (i, ch) in seq.chars().enumerate() {
            let index = i + 1;
            // `0` is a column number, if not one of any board.
            let column = match column_from_char(ch) {
                Some(col) => col + 1,
                None if ch == '0' => 0,
                None => return Err(ParseError::NotADigit { index, found: ch }),
            };
            if !(1..=W).contains(&column) {
                return Err(ParseError::ColumnOutOfRange {
                    index,
                    column: column as u32,
                    width: W,
                });
            }
            let col = column - 1;
            if !pos.can_play(col) {
                return Err(ParseError::ColumnFull { index, column });
            }
            if pos.is_winning_move(col) {
                return Err(ParseError::AlreadyWon { index, column });
            }
            pos.play_column(col);
        }
        if pos.moves as usize == Self::SQUARES {
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
    pub fn can_play(&self, col: usize) -> bool {
        self.mask & Self::top_mask(col) == B::ZERO
    }

    /// Plays in column `col` (0-based), which must have room.
    #[inline]
    pub fn play_column(&mut self, col: usize) {
        self.play((self.mask + (B::ONE << (col * Self::H1))) & Self::column_mask(col));
    }

    /// Plays the stone `square` (one bit, the lowest empty square of its column).
    #[inline]
    pub fn play(&mut self, square: B) {
        self.current ^= self.mask;
        self.mask |= square;
        self.mirror_current ^= self.mirror_mask;
        self.mirror_mask |= Self::mirror_square(square);
        self.moves += 1;
    }

    /// The position after playing `square` (see [`Position::play`]).
    #[inline]
    pub fn after(&self, square: B) -> Self {
        let mut next = *self;
        next.play(square);
        next
    }

    /// Whether playing column `col` (0-based, with room) makes four in a row.
    #[inline]
    pub fn is_winning_move(&self, col: usize) -> bool {
        self.winning() & self.possible() & Self::column_mask(col) != B::ZERO
    }

    /// Whether the side to move can win with its next stone.
    #[inline]
    pub fn can_win_next(&self) -> bool {
        self.winning() & self.possible() != B::ZERO
    }

    /// The lowest empty square of every column with room.
    #[inline]
    pub fn possible(&self) -> B {
        (self.mask + Self::bottom()) & Self::board()
    }

    /// The lowest empty square of every column with room once `square` (playable) is
    /// played.
    #[inline]
    pub fn possible_after(&self, square: B) -> B {
        ((self.mask | square) + Self::bottom()) & Self::board()
    }

    /// Squares that would win for the side to move.
    #[inline]
    fn winning(&self) -> B {
        Self::winning_squares(self.current, self.mask)
    }

    /// Squares that would win for the opponent (also those not playable yet).
    #[inline]
    pub fn opponent_winning(&self) -> B {
        Self::winning_squares(self.current ^ self.mask, self.mask)
    }

    /// The playable squares that do not let the opponent win at once: if the opponent
    /// threatens one playable square, that square only; if two, none (the game is lost); and
    /// never the square just below an opponent's winning square. Assumes the side to move
    /// cannot win at once (the search checks that first).
    #[inline]
    pub fn non_losing_moves(&self) -> B {
        self.non_losing_moves_against(self.opponent_winning())
    }

    /// [`Position::non_losing_moves`], given the opponent's winning squares `threats`
    /// ([`Position::opponent_winning`]), when the caller has them already.
    #[inline]
    pub fn non_losing_moves_against(&self, threats: B) -> B {
        debug_assert_eq!(threats, self.opponent_winning());
        let mut possible = self.possible();
        let forced = possible & threats;
        if forced != B::ZERO {
            if forced & (forced - B::ONE) != B::ZERO {
                return B::ZERO;
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
    pub fn winning_after(&self, square: B) -> B {
        Self::winning_squares(self.current | square, self.mask)
    }

    /// The exact position key: per column, the stones of the side to move plus the column's
    /// fill, which writes each column's contents as one number below `2^(H + 1)` with its
    /// height as the leading one. [`Position::KEY_BITS`] bits (49 on 7×6, at most 64 in a
    /// `u64`, 128 in a `u128`); distinct positions have distinct keys.
    #[inline]
    pub fn key(&self) -> B {
        self.current + self.mask + Self::bottom()
    }

    /// The position whose [`Position::key`] is `key`, if `key` is one of a position
    /// [`Position::from_moves`] accepts: each column's `H + 1` bits hold a leading one at
    /// the column's height and the side to move's stones below it, no bit lies beyond the
    /// last column, the side to move has as many stones as the moves give it, neither side
    /// has four in a row, and the board is not full. For keys that come from elsewhere: a
    /// cluster's workers pass each other the bounds they proved by key.
    pub fn from_key(key: B) -> Option<Self> {
        let column_bits = B::from_u128((1 << Self::H1) - 1);
        let (mut current, mut mask) = (B::ZERO, B::ZERO);
        for col in 0..W {
            let word = (key >> (col * Self::H1)) & column_bits;
            if word == B::ZERO {
                return None;
            }
            // The word has H + 1 bits, so its leading one lies at height H at most.
            let height = word.to_u128().ilog2();
            let below = B::from_u128((1 << height) - 1);
            current |= (word & below) << (col * Self::H1);
            mask |= below << (col * Self::H1);
        }
        let rebuilt = Position {
            current,
            mask,
            mirror_current: mirror_columns::<W, H, B>(current),
            mirror_mask: mirror_columns::<W, H, B>(mask),
            moves: mask.count_ones(),
        };
        let whole = rebuilt.key() == key
            && current.count_ones() == rebuilt.moves / 2
            && (rebuilt.moves as usize) < Self::SQUARES
            && !Self::has_four(current)
            && !Self::has_four(current ^ mask);
        whole.then_some(rebuilt)
    }

    /// The key of the mirror image (columns reversed).
    #[inline]
    pub fn mirror_key(&self) -> B {
        self.mirror_current + self.mirror_mask + Self::bottom()
    }

    /// The smaller of [`Position::key`] and [`Position::mirror_key`]: one key for a position
    /// and its reflection, which have the same score.
    #[inline]
    pub fn symmetric_key(&self) -> B {
        self.key().min(self.mirror_key())
    }

    /// The mirror image of the position.
    pub fn mirror(&self) -> Self {
        Position {
            current: self.mirror_current,
            mask: self.mirror_mask,
            mirror_current: self.current,
            mirror_mask: self.mask,
            moves: self.moves,
        }
    }

    /// The square at the same height in the mirrored column: column `c` is bits
    /// `(H + 1)·c ..`, and its mirror `W − 1 − c` lies `(W − 1 − 2c) · (H + 1)` bits up (down
    /// when negative), a rotation that never wraps because the result is on the board.
    #[inline]
    fn mirror_square(square: B) -> B {
        let col = Self::column_of(square) as i32;
        let shift = (W as i32 - 1 - 2 * col) * Self::H1 as i32;
        square.rotate_left(shift.rem_euclid(B::BITS as i32) as u32)
    }
}

/// Every position of `games` random games of `W`×`H` from the empty board (moves that do not
/// win, until there are none or one square is left), the same for the same `seed`: for tests.
#[cfg(test)]
pub(crate) fn random_games<const W: usize, const H: usize, B: Bitboard>(
    games: usize,
    seed: u64,
) -> Vec<Position<W, H, B>> {
    let mut rng = transpo::key::SplitMix64::new(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::<W, H, B>::new();
        loop {
            out.push(pos);
            let open: Vec<usize> = (0..W)
                .filter(|&c| pos.can_play(c) && !pos.is_winning_move(c))
                .collect();
            if open.is_empty() || pos.moves() as usize + 1 == W * H {
                break;
            }
            pos.play_column(open[rng.below(open.len() as u64) as usize]);
        }
    }
    out
}

/// Reverses the order of the `W` column groups of `H + 1` bits of a board word (the plain
/// definition of the mirror, which the tests hold [`Position`]'s incremental one to, and
/// [`Position::from_key`]'s).
fn mirror_columns<const W: usize, const H: usize, B: Bitboard>(word: B) -> B {
    let col_bits = B::from_u128((1 << (H + 1)) - 1);
    let mut out = B::ZERO;
    for col in 0..W {
        out |= ((word >> (col * (H + 1))) & col_bits) << ((W - 1 - col) * (H + 1));
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
            Position::<7, 6>::from_moves("44x"),
            Err(ParseError::NotADigit {
                index: 3,
                found: 'x'
            })
        );
        assert_eq!(
            Position::<7, 6>::from_moves("08"),
            Err(ParseError::ColumnOutOfRange {
                index: 1,
                column: 0,
                width: 7
            })
        );
        let out_of_range = Position::<7, 6>::from_moves("48");
        assert_eq!(
            out_of_range,
            Err(ParseError::ColumnOutOfRange {
                index: 2,
                column: 8,
                width: 7
            })
        );
        assert_eq!(
            out_of_range.unwrap_err().to_string(),
            "move 2: column 8 is out of range 1-7"
        );
        assert_eq!(
            Position::<7, 6>::from_moves("1111111"),
            Err(ParseError::ColumnFull {
                index: 7,
                column: 1
            })
        );
        assert_eq!(
            Position::<7, 6>::from_moves("1212121"),
            Err(ParseError::AlreadyWon {
                index: 7,
                column: 1
            })
        );
        assert_eq!(Position::from_moves(""), Ok(Position::<7, 6>::new()));
    }

    #[test]
    fn columns_past_nine_are_letters() {
        assert_eq!(
            (0..MAX_WIDTH).map(column_char).collect::<String>(),
            "123456789abcd"
        );
        for col in 0..MAX_WIDTH {
            assert_eq!(column_from_char(column_char(col)), Some(col));
        }
        assert_eq!(column_from_char('B'), Some(10));
        assert_eq!(column_from_char('0'), None);
        assert_eq!(column_from_char('D'), Some(12));
        assert_eq!(column_from_char('e'), None);
        // 12 columns of 4 rows: column c is the twelfth.
        let p = Position::<12, 4>::from_moves("c1c").expect("valid");
        assert!(p.can_play(11) && p.moves() == 3);
        assert_eq!(
            Position::<10, 5>::from_moves("ab"),
            Err(ParseError::ColumnOutOfRange {
                index: 2,
                column: 11,
                width: 10
            })
        );
        assert_eq!(
            Position::<10, 5>::from_moves("ab").unwrap_err().to_string(),
            "move 2: column 11 is out of range 1-9, a"
        );
        assert_eq!(
            Position::<12, 4>::from_moves("d").unwrap_err().to_string(),
            "move 1: column 13 is out of range 1-9, a-c"
        );
        assert_eq!(
            Position::<12, 4>::from_moves("e").unwrap_err().to_string(),
            "move 1: 'e' is not a column (1-9, a-d)"
        );
        let p = Position::<13, 4, u128>::from_moves("d1dD").expect("valid");
        assert!(p.can_play(12) && p.moves() == 4);
    }

    #[test]
    fn a_full_drawn_board_is_game_over() {
        // Columns filled in pairs 1-2, 3-4, 5-6 with a shift, then 7: no four anywhere.
        let seq = "121212343434565656212121434343656565777777";
        assert_eq!(seq.len(), Position::<7, 6>::SQUARES);
        assert_eq!(
            Position::<7, 6>::from_moves(seq),
            Err(ParseError::BoardFull)
        );
        assert!(Position::<7, 6>::from_moves(&seq[..41]).is_ok());
        // The same idea on 4×4: columns 1-2 in pairs shifted, then 3-4.
        let seq = "1212212134344343";
        assert_eq!(
            Position::<4, 4>::from_moves(seq),
            Err(ParseError::BoardFull)
        );
    }

    /// Random legal games on `W`×`H`, every prefix checked: the incremental mirror is the
    /// plain one, keys are exact (two positions share a key only if they have the same
    /// stones) and fit in `KEY_BITS`, the magic division gives every column.
    fn check_board<const W: usize, const H: usize, B: Bitboard>() {
        type P<const W: usize, const H: usize, B> = Position<W, H, B>;
        for bit in 0..P::<W, H, B>::KEY_BITS as usize {
            assert_eq!(
                P::<W, H, B>::mirror_square(B::ONE << bit),
                mirror_columns::<W, H, B>(B::ONE << bit),
                "{W}x{H} bit {bit}"
            );
            assert_eq!(P::<W, H, B>::column_of(B::ONE << bit), bit / (H + 1));
        }
        let mut seen = std::collections::HashMap::new();
        for p in random_games::<W, H, B>(200, W as u64 * 100 + H as u64) {
            assert_eq!(p.mirror_current, mirror_columns::<W, H, B>(p.current));
            assert_eq!(p.mirror_mask, mirror_columns::<W, H, B>(p.mask));
            assert_eq!(p.mirror_key(), mirror_columns::<W, H, B>(p.key()));
            assert_eq!(p.mirror().mirror(), p);
            let bits = P::<W, H, B>::KEY_BITS;
            assert!(bits == B::BITS || p.key() >> bits as usize == B::ZERO);
            assert_eq!(P::<W, H, B>::from_key(p.key()), Some(p), "{W}x{H}");
            assert_eq!(P::<W, H, B>::from_key(p.mirror_key()), Some(p.mirror()));
            let stones = (p.current, p.mask);
            assert_eq!(*seen.entry(p.key()).or_insert(stones), stones, "{W}x{H}");
        }
    }

    #[test]
    fn mirrors_and_keys_on_every_shape_of_board() {
        check_board::<7, 6, u64>();
        check_board::<4, 4, u64>();
        check_board::<4, 15, u64>();
        check_board::<8, 7, u64>();
        check_board::<9, 5, u64>();
        check_board::<12, 4, u64>();
        check_board::<5, 11, u64>();
        check_board::<7, 9, u128>();
        check_board::<13, 4, u128>();
        check_board::<4, 16, u128>();
        check_board::<9, 9, u128>();
        check_board::<11, 5, u128>();
    }

    #[test]
    fn the_incremental_mirror_is_the_plain_one() {
        // Every prefix of a few long games, both colours, every column.
        for game in [
            "2252576253462244111563365343671351441",
            "44444456666667777771112233",
            "3333336565655514141",
        ] {
            for len in 0..=game.len() {
                // A made-up game may end in a win early: check up to there.
                let Ok(p) = Position::<7, 6>::from_moves(&game[..len]) else {
                    assert!(len > 20, "{game} {len}");
                    break;
                };
                assert_eq!(p.mirror_current, mirror_columns::<7, 6, u64>(p.current));
                assert_eq!(
                    p.mirror_mask,
                    mirror_columns::<7, 6, u64>(p.mask),
                    "{game} {len}"
                );
                assert_eq!(p.mirror_key(), mirror_columns::<7, 6, u64>(p.key()));
                assert_eq!(p.mirror().mirror(), p);
            }
        }
    }

    #[test]
    fn from_key_refuses_what_is_no_key() {
        let key = |seq: &str| pos(seq).key();
        assert_eq!(Position::<7, 6>::from_key(key("4455")), Some(pos("5544")));
        // An empty column word (no height marker), a bit beyond the seventh column, no
        // column at all.
        assert_eq!(Position::<7, 6>::from_key(key("") & !0x7f), None);
        assert_eq!(Position::<7, 6>::from_key(key("") | 1 << 50), None);
        assert_eq!(Position::<7, 6>::from_key(0), None);
        // Two stones of the side that just moved in column 1 and none of the side to
        // move's: a count no game gives.
        assert_eq!(Position::<7, 6>::from_key(key("") + 0b11), None);
        // Four stones each in columns 1 and 2, the side to move's in column 2: the counts
        // agree, but both sides have four in a row.
        let empty_rest: u64 = (2..7).map(|c| 1 << (7 * c)).sum();
        let won = 0b1_0000 | 0b1_1111 << 7 | empty_rest;
        assert_eq!(Position::<7, 6>::from_key(won), None);
        assert_eq!(Position::<7, 6>::from_key(u64::MAX), None);
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
        assert_eq!(
            q.non_losing_moves(),
            Position::<7, 6>::column_mask(3) & q.possible()
        );
    }
}
