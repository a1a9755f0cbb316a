//! Board sizes chosen at run time (`transpo-c4 --board 9x5`): which boards there are, how one
//! is written, and [`with_board!`](crate::with_board), which calls the code compiled for it.
//!
//! Why every board is compiled in: the solver takes its board as const parameters
//! ([`crate::position::Position`]), so that every mask and shift is a constant and the 7×6
//! solver is as fast as one written for 7×6 alone. A board read at run time then has to pick
//! one of those compiled solvers; there are [`Board::ALL`]`.len()` = 59 of them: the 42
//! whose `W·(H + 1)` bits fit in a `u64`, and 17 wide ones on `u128` words ([`Board::WIDE`]:
//! every board with `W + H = 16` or `W + H = 17` that does not fit 64 bits, 9×9 and 4×16).
//! Among them the [`Board::OPEN`] ones, which nobody has solved yet.
//! Each compiled board costs build time, so the wide ones are the boards people ask for,
//! not every board below 128 bits.

use std::fmt;
use std::str::FromStr;

/// A board size: `width` columns of `height` rows, both at least 4, whose
/// `width·(height + 1)` bits fit in a `u64`, or one of the [`Board::WIDE`] boards (the boards
/// [`with_board!`](crate::with_board) knows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Board {
    width: usize,
    height: usize,
}

/// Why a board size was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardError {
    /// Not written `WxH` with two numbers.
    Syntax(String),
    /// Written right, but not a board the solver has.
    Unsupported {
        /// Columns asked for.
        width: usize,
        /// Rows asked for.
        height: usize,
    },
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::Syntax(text) => {
                write!(f, "{text:?} is not a board: write WIDTHxHEIGHT, e.g. 7x6")
            }
            BoardError::Unsupported { width, height } => {
                write!(
                    f,
                    "no {width}x{height} board: width and height must be at least 4 and \
                     width x (height + 1) at most 64 (e.g. 12x4, 9x6, 8x7, 4x15), or the \
                     board one of"
                )?;
                for board in Board::WIDE {
                    write!(f, " {board}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for BoardError {}

impl Board {
    /// The standard board: 7 columns, 6 rows.
    pub const STANDARD: Board = Board {
        width: 7,
        height: 6,
    };

    /// The most squares of any board the solver has: the largest of the [`Board::WIDE`]
    /// boards and of the boards on `u64` words (`W·(H + 1) ≤ 64`, `W, H ≥ 4`). 81, on 9×9.
    pub const MAX_SQUARES: usize = {
        let mut max = 0;
        let mut width = 4;
        while width <= 16 {
            // The tallest u64 board of this width: W·(H + 1) ≤ 64.
            let height = 64 / width - 1;
            if height >= 4 && width * height > max {
                max = width * height;
            }
            width += 1;
        }
        let mut i = 0;
        while i < Board::WIDE.len() {
            let squares = Board::WIDE[i].width * Board::WIDE[i].height;
            if squares > max {
                max = squares;
            }
            i += 1;
        }
        max
    };

    /// The boards beyond 64 bits, on `u128` words, by width, then height: every board with
    /// `W + H = 16` whose bits do not fit 64 (Steininger solved them all), every board with
    /// `W + H = 17` whose bits do not fit 64 (the six [`Board::OPEN`] ones among them), 9×9
    /// (asked for by Steininger's users) and 4×16.
    pub const WIDE: [Board; 17] = [
        Board::wide(4, 16),
        Board::wide(5, 12),
        Board::wide(6, 10),
        Board::wide(6, 11),
        Board::wide(7, 9),
        Board::wide(7, 10),
        Board::wide(8, 8),
        Board::wide(8, 9),
        Board::wide(9, 7),
        Board::wide(9, 8),
        Board::wide(9, 9),
        Board::wide(10, 6),
        Board::wide(10, 7),
        Board::wide(11, 5),
        Board::wide(11, 6),
        Board::wide(12, 5),
        Board::wide(13, 4),
    ];

    /// The open boards, those with `W + H = 17` nobody has solved yet (Tromp solved every
    /// board with `W + H ≤ 15` and 8×8; Steininger every one with `W + H = 16`, and 7×10,
    /// 6×11 and 5×13). All are [`Board::WIDE`].
    pub const OPEN: [Board; 6] = [
        Board::wide(8, 9),
        Board::wide(9, 8),
        Board::wide(10, 7),
        Board::wide(11, 6),
        Board::wide(12, 5),
        Board::wide(13, 4),
    ];

    /// A board of [`Board::WIDE`], checked to need more than 64 bits and fit in 128.
    const fn wide(width: usize, height: usize) -> Board {
        assert!(width * (height + 1) > 64 && width * (height + 1) <= 128);
        Board { width, height }
    }

    /// Every board there is, by width, then height.
    pub const ALL: [Board; 59] = {
        let mut all = [Board::STANDARD; 59];
        let mut n = 0;
        let mut width = 4;
        while width <= 13 {
            let mut height = 4;
            while height <= 16 {
                if Board::exists(width, height) {
                    all[n] = Board { width, height };
                    n += 1;
                }
                height += 1;
            }
            width += 1;
        }
        assert!(n == 59);
        all
    };

    /// The `width`×`height` board, if the solver has it.
    pub const fn new(width: usize, height: usize) -> Result<Board, BoardError> {
        if Board::exists(width, height) {
            Ok(Board { width, height })
        } else {
            Err(BoardError::Unsupported { width, height })
        }
    }

    /// Whether the solver has the `width`×`height` board.
    const fn exists(width: usize, height: usize) -> bool {
        if width >= 4 && height >= 4 && width <= 12 && height <= 15 && width * (height + 1) <= 64 {
            return true;
        }
        let mut i = 0;
        while i < Board::WIDE.len() {
            if Board::WIDE[i].width == width && Board::WIDE[i].height == height {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether the board takes `u128` words ([`Board::WIDE`]).
    pub const fn is_wide(self) -> bool {
        self.width * (self.height + 1) > 64
    }

    /// Columns.
    pub const fn width(self) -> usize {
        self.width
    }

    /// Rows.
    pub const fn height(self) -> usize {
        self.height
    }

    /// Squares: the most moves a game can have.
    pub const fn squares(self) -> usize {
        self.width * self.height
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

impl FromStr for Board {
    type Err = BoardError;

    /// `7x6` (also `7X6` or `7×6`): width, then height.
    fn from_str(text: &str) -> Result<Board, BoardError> {
        let syntax = || BoardError::Syntax(text.to_string());
        let (width, height) = text.trim().split_once(['x', 'X', '×']).ok_or_else(syntax)?;
        let number = |s: &str| {
            s.trim()
                .parse::<usize>()
                .ok()
                .filter(|_| s.trim().bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(syntax)
        };
        Board::new(number(width)?, number(height)?)
    }
}

/// Calls `f::<W, H, B>(args…)` for the board `$board` (a [`Board`]), with `B` its word
/// (`u64`, or `u128` for the [`Board::WIDE`] ones), or evaluates `$otherwise` if it is none of
/// [`Board::ALL`] (which a [`Board`] always is).
///
/// ```
/// use transpo_connect4::{board::Board, position::Bitboard, with_board};
///
/// fn squares<const W: usize, const H: usize, B: Bitboard>(extra: usize) -> usize {
///     transpo_connect4::position::Position::<W, H, B>::SQUARES + extra
/// }
///
/// let board: Board = "9x5".parse()?;
/// assert_eq!(with_board!(board, squares(1), else 0), 46);
/// let wide: Board = "7x9".parse()?;
/// assert_eq!(with_board!(wide, squares(0), else 0), 63);
/// # Ok::<(), transpo_connect4::board::BoardError>(())
/// ```
#[macro_export]
macro_rules! with_board {
    ($board:expr, $f:ident ( $($arg:expr),* $(,)? ), else $otherwise:expr) => {
        $crate::with_board!(@match $board, $f, ($($arg),*), $otherwise;
            4: 4 5 6 7 8 9 10 11 12 13 14 15;
            5: 4 5 6 7 8 9 10 11;
            6: 4 5 6 7 8 9;
            7: 4 5 6 7 8;
            8: 4 5 6 7;
            9: 4 5 6;
            10: 4 5;
            11: 4;
            12: 4;
            wide 4: 16;
            wide 5: 12;
            wide 6: 10 11;
            wide 7: 9 10;
            wide 8: 8 9;
            wide 9: 7 8 9;
            wide 10: 6 7;
            wide 11: 5 6;
            wide 12: 5;
            wide 13: 4)
    };
    (@match $board:expr, $f:ident, $args:tt, $otherwise:expr;
        $($w:literal : $($h:literal)*;)*
        $(wide $ww:literal : $($wh:literal)*);*) => {{
        let board: $crate::board::Board = $board;
        match (board.width(), board.height()) {
            $($( ($w, $h) => $f::<$w, $h, u64> $args, )*)*
            $($( ($ww, $wh) => $f::<$ww, $wh, u128> $args, )*)*
            _ => $otherwise,
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Bitboard;

    fn key_bits<const W: usize, const H: usize, B: Bitboard>() -> (u32, u32) {
        (crate::position::Position::<W, H, B>::KEY_BITS, B::BITS)
    }

    #[test]
    fn max_squares_is_the_largest_board_that_parses() {
        let largest = (1..=40)
            .flat_map(|w| (1..=40).map(move |h| format!("{w}x{h}")))
            .filter_map(|text| text.parse::<Board>().ok())
            .map(Board::squares)
            .max();
        assert_eq!(largest, Some(Board::MAX_SQUARES));
        assert_eq!(Board::MAX_SQUARES, 81);
    }

    #[test]
    fn boards_are_written_width_x_height_and_checked() {
        assert_eq!("7x6".parse(), Ok(Board::STANDARD));
        assert_eq!(
            " 9X5 ".parse::<Board>().map(|b| (b.width(), b.height())),
            Ok((9, 5))
        );
        assert_eq!("12×4".parse::<Board>().map(Board::squares), Ok(48));
        assert_eq!(Board::STANDARD.to_string(), "7x6");
        for bad in [
            "",
            "7",
            "7x",
            "x6",
            "7x6x5",
            "+7x6",
            "7 x -6",
            "seven x six",
            "7x6.0",
        ] {
            assert_eq!(
                bad.parse::<Board>(),
                Err(BoardError::Syntax(bad.into())),
                "{bad}"
            );
        }
        for (w, h) in [
            (3, 6),
            (7, 3),
            (13, 5),
            (9, 10),
            (4, 17),
            (10, 8),
            (14, 4),
            (0, 0),
        ] {
            let e = format!("{w}x{h}").parse::<Board>().unwrap_err();
            assert_eq!(
                e,
                BoardError::Unsupported {
                    width: w,
                    height: h
                }
            );
            assert!(e.to_string().contains("at most 64"), "{e}");
            let wide = "or the board one of 4x16 5x12 6x10 6x11 7x9 7x10 8x8 8x9 9x7 9x8 9x9 10x6 \
                        10x7 11x5 11x6 12x5 13x4";
            assert!(e.to_string().ends_with(wide), "{e}");
        }
        let huge = "99999999999999999999x6".parse::<Board>().unwrap_err();
        assert!(matches!(huge, BoardError::Syntax(_)), "{huge:?}");
    }

    /// Every board with `W + H = 17` is a board; the open ones are the six widest.
    #[test]
    fn every_board_of_seventeen_is_one() {
        let seventeen: Vec<(usize, usize)> = (4..=13).map(|w| (w, 17 - w)).collect();
        let open: Vec<(usize, usize)> = Board::OPEN
            .iter()
            .map(|b| (b.width(), b.height()))
            .collect();
        assert_eq!(open, seventeen[4..]);
        for (w, h) in seventeen {
            let board = Board::new(w, h).expect("every W + H = 17 board is one");
            // 4×13 is the one that fits 64 bits (4 · 14 = 56).
            assert_eq!(board.is_wide(), w >= 5, "{board}");
            let (bits, _) = with_board!(board, key_bits(), else (0, 0));
            assert_eq!(bits as usize, w * (h + 1), "{board}");
        }
    }

    /// Every board there is reaches the code compiled for it, and only those are boards.
    #[test]
    fn every_board_dispatches_to_its_own_code() {
        let mut count = 0;
        for width in 0..=70 {
            for height in 0..=70 {
                let Ok(board) = Board::new(width, height) else {
                    continue;
                };
                count += 1;
                assert!(Board::ALL.contains(&board));
                let (bits, word) = with_board!(board, key_bits(), else (0, 0));
                assert_eq!(bits as usize, width * (height + 1), "{board}");
                assert_eq!(word, if board.is_wide() { 128 } else { 64 }, "{board}");
            }
        }
        assert_eq!(count, Board::ALL.len());
        assert!(Board::ALL.windows(2).all(|w| w[0] < w[1]));
    }
}
