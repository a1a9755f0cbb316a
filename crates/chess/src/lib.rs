//! Chess positions with incremental Polyglot Zobrist keys, for game-tree search.
//!
//! Move generation comes from [`cozy_chess`]; this crate adds what a search with a
//! transposition table needs on top of it:
//!
//! - [`Position`]: a board plus a 64-bit key that is **Polyglot-compatible** and updated
//!   incrementally on every move (and equal to [`zobrist::compute`] at every node), a null
//!   move, key history for repetition detection, the fifty-move rule and insufficient material.
//! - FEN and EPD text ([`fen`], [`epd`]) with errors that name the field and what was wrong.
//! - UCI move text ([`uci_move`]): castling as `e1g1`, promotions as `e7e8q`; moves in 16
//!   bits ([`move16`]), Polyglot's layout, for books and table entries alike.
//! - Perft with divide ([`perft`]) to check move generation and keys against published counts.
//! - A Polyglot opening-book reader ([`book`]).
//!
//! It holds no search: the engine on top of it (search, evaluation, UCI, the `transpo-chess`
//! binary) is the `transpo-engine` crate.
//!
//! ```
//! use transpo_chess::Position;
//!
//! let mut pos = Position::startpos();
//! assert_eq!(pos.key(), 0x463b96181691fc9c);
//! let mv = pos.parse_uci_move("e2e4").unwrap();
//! pos.play(mv).unwrap();
//! assert_eq!(pos.key(), 0x823c9b50fd114196);
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod book;
pub mod epd;
pub mod fen;
pub mod move16;
pub mod perft;
pub mod polyglot_keys;
pub mod position;
pub mod uci_move;
pub mod zobrist;

pub use book::{Book, BookEntry, BookError, BookMove, SplitMix64};
pub use epd::{Epd, EpdOperation};
pub use fen::{FenError, FenField};
pub use position::{IllegalMoveError, MoveList, NullMoveError, PlayedMove, Position};
pub use uci_move::MoveError;

/// Re-export of the move generator this crate builds on, so users need not depend on it.
pub use cozy_chess;
/// The move type used throughout (cozy-chess encodes castling as king-takes-own-rook).
pub use cozy_chess::Move;

/// FEN of the standard starting position.
pub const STARTPOS_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
