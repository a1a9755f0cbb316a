//! What the main search's node passes between its parts: the node itself ([`Node`], built by
//! `alphabeta` and read by `prune` and `extend`), what its move loop found ([`Searched`]) and
//! its static evaluation ([`StaticEval`], taken in `prune`). A module of its own so that the
//! node's move loop and the pruning and extension rules it calls depend on it, not on each
//! other.

use cozy_chess::Move;

use super::ordering::Continuation;

/// A node of the main search, as its move loop sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    /// Remaining depth (after extensions and reductions of the node itself).
    pub(super) depth: i32,
    pub(super) ply: usize,
    pub(super) beta: i32,
    /// Searched with an open window.
    pub(super) pv_node: bool,
    pub(super) in_check: bool,
    /// The path so far is the previous iteration's principal variation.
    pub(super) on_pv: bool,
    pub(super) key: u64,
    /// Quiet moves after the first that give no check may be skipped (futility pruning).
    pub(super) futile: bool,
    /// The static evaluation rose since this side's previous move (see `Features::improving`).
    pub(super) improving: bool,
    /// Quiet moves that give no check are skipped once this many moves were met (late-move
    /// pruning; `usize::MAX` when off).
    pub(super) lmp_limit: usize,
    /// The move that led here (for counter moves; `None` at the root or after a null move).
    pub(super) previous: Option<Move>,
    /// The counter move of `previous` (`None` without `counter_moves`).
    pub(super) counter: Option<Move>,
    /// The table's score, when the table's move is a candidate for a singular extension.
    pub(super) singular: Option<i32>,
    /// The move a singular-extension search leaves out (the table's move).
    pub(super) excluded: Option<Move>,
    /// The continuation-history rows of the node's quiet moves.
    pub(super) continuation: Continuation,
    /// The table's move is a capture or a promotion (see `Features::tt_capture_lmr`).
    pub(super) tt_capture: bool,
}

/// What a node's move loop found (so far, while it runs).
pub(super) struct Searched {
    pub(super) best: i32,
    pub(super) best_move: Option<Move>,
    /// Legal moves met (0: checkmate or stalemate).
    pub(super) legal: u32,
    /// Moves searched (not pruned).
    pub(super) searched: usize,
}

/// The static evaluation of a main-search node, for pruning and the correction history.
#[derive(Clone, Copy, Debug)]
pub(super) struct StaticEval {
    /// As the evaluator (or the table's entry) gives it: what the table keeps. `None` in
    /// check, or when neither `futility` nor `null_move` reads it.
    pub(super) raw: Option<i32>,
    /// `raw` corrected by the correction history: what the search uses.
    pub(super) corrected: Option<i32>,
    /// The evaluation rose since this side's previous move (see `Features::improving`).
    pub(super) improving: bool,
}
