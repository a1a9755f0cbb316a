//! UCI move text in and out: `e2e4`, promotions as `e7e8q`, castling as `e1g1`.
//!
//! cozy-chess encodes castling as the king taking its own rook (`e1h1`), which works for
//! Chess960 but is not what GUIs send for standard chess. This module converts both ways so
//! that the rest of the crate can use cozy-chess moves unchanged, and it checks that a move
//! read from text is legal, with an error that says what was wrong with it.

use std::fmt;

use cozy_chess::{Board, File, Move, Piece, Square};

/// A move text that is malformed or names an illegal move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not of the form `<from><to>[promotion]`.
    Malformed {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The text is well formed but the move is not legal in the position.
    Illegal {
        /// The text as given.
        text: String,
        /// The position, as FEN.
        fen: String,
    },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Malformed { text, reason } => {
                write!(f, "malformed move {text:?}: {reason}")
            }
            MoveError::Illegal { text, fen } => write!(f, "illegal move {text} in {fen}"),
        }
    }
}

impl std::error::Error for MoveError {}

fn parse_square(text: &str) -> Option<Square> {
    let bytes = text.as_bytes();
    if bytes.len() == 2 && bytes[0].is_ascii_lowercase() && bytes[1].is_ascii_digit() {
        text.parse().ok()
    } else {
        None
    }
}

/// Parses move text without a position: squares and promotion piece only.
pub fn parse_syntax(text: &str) -> Result<Move, MoveError> {
    let malformed = |reason: String| MoveError::Malformed {
        text: text.to_string(),
        reason,
    };
    if !text.is_ascii() {
        return Err(malformed("contains non-ASCII characters".to_string()));
    }
    if text == "0000" {
        return Err(malformed(
            "0000 is a null move, which is not a move that can be played".to_string(),
        ));
    }
    if text.len() != 4 && text.len() != 5 {
        return Err(malformed(format!(
            "{} characters, expected 4 (e2e4) or 5 with a promotion (e7e8q)",
            text.len()
        )));
    }
    let from = parse_square(&text[0..2])
        .ok_or_else(|| malformed(format!("{:?} is not a square (a1..h8)", &text[0..2])))?;
    let to = parse_square(&text[2..4])
        .ok_or_else(|| malformed(format!("{:?} is not a square (a1..h8)", &text[2..4])))?;
    let promotion = match text.get(4..) {
        None | Some("") => None,
        Some("q") => Some(Piece::Queen),
        Some("r") => Some(Piece::Rook),
        Some("b") => Some(Piece::Bishop),
        Some("n") => Some(Piece::Knight),
        Some(other) => {
            return Err(malformed(format!(
                "{other:?} is not a promotion piece (q, r, b or n)"
            )));
        }
    };
    Ok(Move {
        from,
        to,
        promotion,
    })
}

/// Parses UCI move text into a legal move of `board`, converting `e1g1`-style castling into
/// cozy-chess's king-takes-rook form. The king-takes-rook form (`e1h1`) is accepted too.
pub fn parse(board: &Board, text: &str) -> Result<Move, MoveError> {
    let mut mv = parse_syntax(text)?;
    let us = board.side_to_move();
    if mv.from == board.king(us) && mv.promotion.is_none() {
        let rights = board.castle_rights(us);
        let rank = mv.from.rank();
        let rook_for = |target: File, rook: Option<File>| {
            rook.filter(|_| mv.from.file() == File::E && mv.to == Square::new(target, rank))
        };
        if let Some(rook) = rook_for(File::G, rights.short).or(rook_for(File::C, rights.long)) {
            mv.to = Square::new(rook, rank);
        }
    }
    if board.is_legal(mv) {
        Ok(mv)
    } else {
        Err(MoveError::Illegal {
            text: text.to_string(),
            fen: board.to_string(),
        })
    }
}

/// UCI text of `mv`, a move of `board`: castling comes out as the king's two-square step.
pub fn to_uci(board: &Board, mv: Move) -> String {
    let us = board.side_to_move();
    let mut to = mv.to;
    if board.colors(us).has(mv.to) && board.piece_on(mv.from) == Some(Piece::King) {
        let file = if mv.to.file() > mv.from.file() {
            File::G
        } else {
            File::C
        };
        to = Square::new(file, mv.from.rank());
    }
    let mut text = format!("{}{}", mv.from, to);
    if let Some(piece) = mv.promotion {
        text.push(char::from(piece));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn castling_both_ways() {
        let board: Board = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".parse().unwrap();
        for (text, internal) in [("e1g1", "e1h1"), ("e1c1", "e1a1")] {
            let mv = parse(&board, text).unwrap();
            assert_eq!(mv, internal.parse::<Move>().unwrap());
            assert_eq!(to_uci(&board, mv), text);
        }
        assert_eq!(
            parse(&board, "e1h1").unwrap(),
            parse(&board, "e1g1").unwrap()
        );
    }

    #[test]
    fn promotion_text() {
        let board: Board = "8/4P3/8/8/8/k7/8/K7 w - - 0 1".parse().unwrap();
        let mv = parse(&board, "e7e8n").unwrap();
        assert_eq!(mv.promotion, Some(Piece::Knight));
        assert_eq!(to_uci(&board, mv), "e7e8n");
        assert!(matches!(
            parse(&board, "e7e8"),
            Err(MoveError::Illegal { .. })
        ));
    }
}
