//! Static evaluation: how good a quiet position looks, in centipawns, for the side to move.
//!
//! Two evaluations, one per search profile:
//! - [`paper`]: ALIBABA's, as Breuker et al. (1994) describe it: material (P = 100, N = B =
//!   325, R = 500, Q = 900) plus piece-square tables computed from mobility and centre control
//!   and *filled before each search* from the root position, so the evaluation is a table
//!   lookup per piece during the search.
//! - [`tapered`]: the `full` profile's: middle-game and end-game material and piece-square
//!   values blended by the material left, plus mobility, bishop pair and passed pawns.

pub mod paper;
pub mod tapered;
pub mod weights;

use cozy_chess::{Board, Color, Piece};

pub use paper::PaperEval;

/// The evaluation a search uses, prepared for its root.
#[derive(Clone, Debug)]
pub enum Evaluator {
    /// ALIBABA's material and root-filled piece-square tables.
    Paper(Box<PaperEval>),
    /// The tapered evaluation of the `full` profile.
    Tapered,
}

impl Evaluator {
    /// The paper's evaluation with tables filled for `root`.
    pub fn paper(root: &Board) -> Self {
        Evaluator::Paper(Box::new(PaperEval::for_root(root)))
    }

    /// Score of `board` for the side to move, in centipawns.
    #[inline]
    pub fn evaluate(&self, board: &Board) -> i32 {
        let white = match self {
            Evaluator::Paper(p) => p.evaluate_white(board),
            Evaluator::Tapered => tapered::evaluate_white(board),
        };
        if board.side_to_move() == Color::White {
            white
        } else {
            -white
        }
    }
}

/// Index of a piece kind, pawn 0 … king 5.
#[inline]
pub(crate) fn piece_index(piece: Piece) -> usize {
    piece as usize
}

/// Rings from the centre: 3 for d4/e4/d5/e5, 0 for the edge.
#[inline]
pub(crate) const fn centre_ring(square: usize) -> i32 {
    const fn edge_distance(x: i32) -> i32 {
        if x < 4 { x } else { 7 - x }
    }
    let file = edge_distance((square % 8) as i32);
    let rank = edge_distance((square / 8) as i32);
    if file < rank { file } else { rank }
}
