//! The position type a search works on: a cozy-chess board plus what cozy-chess leaves out.
//!
//! cozy-chess's [`Board`] holds about as much as a FEN string. A search also needs the
//! Polyglot key (kept incrementally, see [`crate::zobrist`]), the keys of earlier positions to
//! detect repetitions, a way to take moves back, and the draw rules. [`Position`] adds these
//! with play/undo: playing a move pushes the previous board and key onto a stack (no other
//! allocation), and [`Position::undo`] pops it, so a search never clones the history.

use std::fmt;

use cozy_chess::{Board, Color, GameStatus, Move, Piece, PieceMoves, Square};

use crate::fen::{self, FenError};
use crate::uci_move::{self, MoveError};
use crate::zobrist;

/// The most legal moves any chess position has (a known bound: 218).
pub const MAX_MOVES: usize = 218;

/// What [`Position::undo`] took back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayedMove {
    /// An ordinary move.
    Move(Move),
    /// A null move (the side to move passed).
    Null,
}

/// One position on the game stack: the board, its key, and the move that led to it.
#[derive(Debug, Clone)]
struct State {
    board: Board,
    key: u64,
    /// Plies since the last capture, pawn move or null move: how far back a repetition can
    /// lie. Unlike the board's half-move clock this is not capped at 100 and is reset by a
    /// null move, because a line through a null move is no real repetition.
    reversible_plies: u32,
    /// The move that led here (`None` for the root).
    played: Option<PlayedMove>,
}

/// A chess position with an incrementally updated Polyglot key and move history.
///
/// The positions of the game so far form a stack whose top is the current position. Playing
/// a move copies the top board once into a new slot and plays on it there; undoing just
/// drops the top, so play/undo costs what copy-make costs and a search never clones history.
#[derive(Debug, Clone)]
pub struct Position {
    /// Never empty: constructors push the root and [`Position::undo`] never pops it.
    states: Vec<State>,
}

/// Error from [`Position::play`]: the move is not legal in the position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IllegalMoveError {
    /// The move, in UCI text.
    pub uci: String,
    /// The position it was tried in, as FEN.
    pub fen: String,
}

impl fmt::Display for IllegalMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {} in position {}", self.uci, self.fen)
    }
}

impl std::error::Error for IllegalMoveError {}

/// Error from [`Position::play_null`]: a side in check cannot pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NullMoveError;

impl fmt::Display for NullMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cannot play a null move while in check")
    }
}

impl std::error::Error for NullMoveError {}

/// A fixed-capacity list of legal moves, filled without touching the heap.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl MoveList {
    fn new() -> Self {
        let filler = Move {
            from: Square::A1,
            to: Square::A1,
            promotion: None,
        };
        MoveList {
            moves: [filler; MAX_MOVES],
            len: 0,
        }
    }

    fn push(&mut self, mv: Move) {
        // No chess position has more than MAX_MOVES legal moves; ignoring extras keeps this
        // panic-free if that bound were ever wrong.
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = mv;
            self.len += 1;
        }
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl std::ops::DerefMut for MoveList {
    fn deref_mut(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Default for Position {
    fn default() -> Self {
        Self::startpos()
    }
}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Self {
        Self::from_checked_board(Board::startpos())
    }

    /// A position from a cozy-chess board, with an empty history; `Err` if the board is one
    /// cozy-chess accepts but no game can reach and its move generator or our search cannot
    /// handle (kings side by side, impossible checks, too many promoted pieces: see
    /// [`fen::check_board`]).
    pub fn from_board(board: Board) -> Result<Self, FenError> {
        fen::check_board(&board)?;
        Ok(Self::from_checked_board(board))
    }

    /// A position from a board that passed [`fen::check_board`].
    pub(crate) fn from_checked_board(board: Board) -> Self {
        let root = State {
            key: zobrist::compute(&board),
            reversible_plies: u32::from(board.halfmove_clock()),
            board,
            played: None,
        };
        let mut states = Vec::with_capacity(64);
        states.push(root);
        Position { states }
    }

    /// The current state, the top of the stack.
    #[inline(always)]
    fn top(&self) -> &State {
        match self.states.last() {
            Some(state) => state,
            // Cannot happen: the root is pushed on construction and never popped.
            None => unreachable!("position stack is never empty"),
        }
    }

    /// Parses a FEN (6 fields, or 4 with the clocks defaulting to `0 1`).
    pub fn from_fen(text: &str) -> Result<Self, FenError> {
        // parse_fen has run check_board.
        fen::parse_fen(text).map(Self::from_checked_board)
    }

    /// The position as FEN.
    pub fn fen(&self) -> String {
        self.top().board.to_string()
    }

    /// The Polyglot Zobrist key of the position.
    #[inline]
    pub fn key(&self) -> u64 {
        self.top().key
    }

    /// The cozy-chess board.
    #[inline]
    pub fn board(&self) -> &Board {
        &self.top().board
    }

    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.top().board.side_to_move()
    }

    /// Number of moves (including null moves) played since this position was created.
    #[inline]
    pub fn ply(&self) -> usize {
        self.states.len() - 1
    }

    /// Keys of the earlier positions, oldest first (not including the current one).
    pub fn key_history(&self) -> impl DoubleEndedIterator<Item = u64> + '_ {
        self.states[..self.states.len() - 1]
            .iter()
            .map(|state| state.key)
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn is_check(&self) -> bool {
        !self.top().board.checkers().is_empty()
    }

    /// Whether `mv` is legal here.
    #[inline]
    pub fn is_legal(&self, mv: Move) -> bool {
        self.top().board.is_legal(mv)
    }

    /// Plays a legal move, or returns an error and leaves the position unchanged.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMoveError> {
        if !self.top().board.is_legal(mv) {
            return Err(IllegalMoveError {
                uci: self.move_to_uci(mv),
                fen: self.fen(),
            });
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// Plays a move known to be legal (for example one from [`Position::legal_moves`]).
    ///
    /// An illegal move may corrupt the position or panic inside cozy-chess; use
    /// [`Position::play`] for moves from outside.
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) {
        let moved = self.top().board.piece_on(mv.from);
        // Clone the top state straight into the new slot (no temporary copy).
        let last = self.states.len() - 1;
        self.states.extend_from_within(last..);
        let [.., before, after] = self.states.as_mut_slice() else {
            // Cannot happen: the stack held the root before this push.
            unreachable!("position stack has at least two states after a push")
        };
        after.played = Some(PlayedMove::Move(mv));
        after.board.play_unchecked(mv);
        after.key = match moved {
            Some(moved) => {
                zobrist::after_move_of(before.key, &before.board, moved, mv, &after.board)
            }
            // Unreachable for a legal move, which has a piece on its origin square.
            None => zobrist::compute(&after.board),
        };
        after.reversible_plies = if after.board.halfmove_clock() == 0 {
            0
        } else {
            before.reversible_plies + 1
        };
    }

    /// Passes the move to the opponent (for null-move pruning). Not allowed in check.
    pub fn play_null(&mut self) -> Result<(), NullMoveError> {
        let top = self.top();
        let Some(board) = top.board.null_move() else {
            return Err(NullMoveError);
        };
        let key = zobrist::after_null_move(top.key, &top.board);
        self.states.push(State {
            board,
            key,
            reversible_plies: 0,
            played: Some(PlayedMove::Null),
        });
        Ok(())
    }

    /// Takes back the last move or null move; `None` if nothing was played.
    #[inline]
    pub fn undo(&mut self) -> Option<PlayedMove> {
        if self.states.len() < 2 {
            return None;
        }
        let played = self.top().played;
        self.states.truncate(self.states.len() - 1);
        played
    }

    /// Calls `listener` with the legal moves, grouped by moving piece, as cozy-chess does;
    /// the listener returns `true` to stop early, and then so does this function.
    #[inline]
    pub fn generate_moves(&self, listener: impl FnMut(PieceMoves) -> bool) -> bool {
        self.top().board.generate_moves(listener)
    }

    /// All legal moves, in cozy-chess's generation order.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.top().board.generate_moves(|moves| {
            for mv in moves {
                list.push(mv);
            }
            false
        });
        list
    }

    /// Whether the side to move has at least one legal move.
    pub fn has_legal_moves(&self) -> bool {
        self.top().board.generate_moves(|_| true)
    }

    /// Whether the side to move is checkmated.
    pub fn is_checkmate(&self) -> bool {
        self.top().board.status() == GameStatus::Won
    }

    /// Whether the side to move is stalemated.
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_moves()
    }

    /// The half-move clock: plies since the last capture or pawn move (capped at 100 by
    /// cozy-chess, which is all the fifty-move rule needs).
    #[inline]
    pub fn halfmove_clock(&self) -> u8 {
        self.top().board.halfmove_clock()
    }

    /// Whether the fifty-move rule ends the game: 100 plies without capture or pawn move,
    /// unless the last of them delivered mate.
    pub fn is_fifty_move_draw(&self) -> bool {
        self.top().board.halfmove_clock() >= 100 && !self.is_checkmate()
    }

    /// Whether the current position has occurred at least `count` times (this time included)
    /// since the last irreversible move or null move. `is_repetition(2)` is what a search uses
    /// to score a repeated position as a draw; `is_repetition(3)` is the threefold rule.
    pub fn is_repetition(&self, count: usize) -> bool {
        if count <= 1 {
            return true;
        }
        let top = self.top();
        let window = (top.reversible_plies as usize).min(self.ply());
        let mut seen = 1;
        // Only positions with the same side to move can repeat: every second ply back.
        let earlier = self.states.iter().rev().skip(1);
        for state in earlier.take(window).skip(1).step_by(2) {
            if state.key == top.key {
                seen += 1;
                if seen >= count {
                    return true;
                }
            }
        }
        false
    }

    /// Whether the threefold-repetition rule applies.
    pub fn is_draw_by_repetition(&self) -> bool {
        self.is_repetition(3)
    }

    /// Whether neither side can possibly mate: only kings, a king and one minor piece against
    /// a bare king, or kings and bishops all on squares of one colour.
    pub fn is_insufficient_material(&self) -> bool {
        let b = &self.top().board;
        let heavy = b.pieces(Piece::Pawn) | b.pieces(Piece::Rook) | b.pieces(Piece::Queen);
        if !heavy.is_empty() {
            return false;
        }
        let knights = b.pieces(Piece::Knight);
        let bishops = b.pieces(Piece::Bishop);
        if knights.len() + bishops.len() <= 1 {
            return true;
        }
        if !knights.is_empty() {
            return false;
        }
        let dark = cozy_chess::BitBoard::DARK_SQUARES;
        bishops.is_subset(dark) || bishops.is_disjoint(dark)
    }

    /// Whether the game is drawn by stalemate, the fifty-move rule, threefold repetition or
    /// insufficient material.
    pub fn is_draw(&self) -> bool {
        self.is_draw_by_repetition()
            || self.is_fifty_move_draw()
            || self.is_insufficient_material()
            || self.is_stalemate()
    }

    /// Parses UCI move text (`e2e4`, `e7e8q`, castling as `e1g1`) into a legal move.
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, MoveError> {
        uci_move::parse(&self.top().board, text)
    }

    /// UCI text of a move of this position (castling as `e1g1`).
    pub fn move_to_uci(&self, mv: Move) -> String {
        uci_move::to_uci(&self.top().board, mv)
    }
}

impl fmt::Display for Position {
    /// The board as an 8×8 diagram (White at the bottom), then `Fen:` and `Key:` lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let separator = " +---+---+---+---+---+---+---+---+";
        writeln!(f, "{separator}")?;
        for rank in cozy_chess::Rank::ALL.iter().rev() {
            for file in cozy_chess::File::ALL {
                let square = Square::new(file, *rank);
                let symbol = match (
                    self.top().board.piece_on(square),
                    self.top().board.color_on(square),
                ) {
                    (Some(piece), Some(color)) => {
                        let c = char::from(piece);
                        if color == Color::White {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        }
                    }
                    _ => ' ',
                };
                write!(f, " | {symbol}")?;
            }
            writeln!(f, " | {}", *rank as usize + 1)?;
            writeln!(f, "{separator}")?;
        }
        writeln!(f, "   a   b   c   d   e   f   g   h")?;
        writeln!(f)?;
        writeln!(f, "Fen: {}", self.fen())?;
        write!(f, "Key: {:016x}", self.top().key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play_all(pos: &mut Position, moves: &str) {
        for text in moves.split_whitespace() {
            let mv = pos.parse_uci_move(text).unwrap();
            pos.play(mv).unwrap();
        }
    }

    #[test]
    fn knight_shuffle_repeats() {
        let mut pos = Position::startpos();
        assert!(!pos.is_repetition(2));
        play_all(&mut pos, "g1f3 g8f6 f3g1 f6g8");
        assert!(pos.is_repetition(2));
        assert!(!pos.is_draw_by_repetition());
        play_all(&mut pos, "g1f3 g8f6 f3g1 f6g8");
        assert!(pos.is_draw_by_repetition());
    }

    #[test]
    fn pawn_move_cuts_repetition_window() {
        let mut pos = Position::startpos();
        play_all(
            &mut pos,
            "g1f3 g8f6 f3g1 f6g8 e2e4 e7e5 g1f3 g8f6 f3g1 f6g8",
        );
        assert!(pos.is_repetition(2));
        assert!(!pos.is_repetition(3));
    }

    #[test]
    fn undo_restores_everything() {
        let mut pos = Position::startpos();
        let fen = pos.fen();
        let key = pos.key();
        play_all(&mut pos, "e2e4 d7d5 e4d5");
        pos.play_null().unwrap();
        assert_eq!(pos.undo(), Some(PlayedMove::Null));
        for _ in 0..3 {
            assert!(matches!(pos.undo(), Some(PlayedMove::Move(_))));
        }
        assert_eq!(pos.undo(), None);
        assert_eq!(pos.fen(), fen);
        assert_eq!(pos.key(), key);
    }

    #[test]
    fn null_move_refused_in_check() {
        let mut pos = Position::from_fen("4k3/8/8/8/8/8/8/4R1K1 b - - 0 1").unwrap();
        assert_eq!(pos.play_null(), Err(NullMoveError));
    }

    #[test]
    fn null_move_key_matches_scratch() {
        let mut pos = Position::startpos();
        play_all(&mut pos, "e2e4 a7a6 e4e5 d7d5");
        pos.play_null().unwrap();
        assert_eq!(pos.key(), zobrist::compute(pos.board()));
    }

    #[test]
    fn insufficient_material_cases() {
        for (fen, expected) in [
            ("8/8/4k3/8/8/4K3/8/8 w - - 0 1", true),
            ("8/8/4k3/8/8/4K3/8/5N2 w - - 0 1", true),
            ("8/8/4k3/8/8/4K3/8/5B2 w - - 0 1", true),
            ("8/8/2b1k3/8/8/4K3/8/5B2 w - - 0 1", true),
            ("8/8/3bk3/8/8/4K3/8/5B2 w - - 0 1", false),
            ("8/8/4k3/8/8/4K3/8/4NN2 w - - 0 1", false),
            ("8/8/4k3/8/8/4K3/4P3/8 w - - 0 1", false),
            ("8/8/4k3/8/8/4K3/8/4R3 w - - 0 1", false),
        ] {
            let pos = Position::from_fen(fen).unwrap();
            assert_eq!(pos.is_insufficient_material(), expected, "{fen}");
        }
    }

    #[test]
    fn fifty_move_rule() {
        let pos = Position::from_fen("8/8/4k3/8/8/4K3/8/4R3 w - - 100 80").unwrap();
        assert!(pos.is_fifty_move_draw());
        let pos = Position::from_fen("8/8/4k3/8/8/4K3/8/4R3 w - - 99 80").unwrap();
        assert!(!pos.is_fifty_move_draw());
        // Mate on the hundredth ply wins rather than draws.
        let pos = Position::from_fen("4R1k1/5ppp/8/8/8/8/8/6K1 b - - 100 80").unwrap();
        assert!(pos.is_checkmate());
        assert!(!pos.is_fifty_move_draw());
    }

    #[test]
    fn display_has_fen_and_key() {
        let text = Position::startpos().to_string();
        assert!(text.contains("Fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
        assert!(text.ends_with("Key: 463b96181691fc9c"));
    }
}
