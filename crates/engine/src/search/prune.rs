//! What the main search leaves out: the `full` profile's pruning, away from the principal
//! variation and near the leaves.
//!
//! Whole nodes, judged by their static evaluation before any move is generated
//! ([`Worker::prune_node`]): razoring (quiescence confirms a node far below alpha),
//! reverse futility (a node far above beta) and null-move pruning (passing still reaches
//! beta). Single moves, judged one by one in the move loop, all in
//! [`Worker::skips`]: moves that lose material by static exchange (`main_see_pruning`),
//! quiet moves with a bad history (`history_pruning`), and quiet moves that give no check
//! at a futile node (`futility`) or beyond a count growing with depth (`late_move_pruning`).
//! The `paper` profile prunes nothing: it is alpha-beta with the table, as ALIBABA's.

use std::ops::ControlFlow;

use cozy_chess::{Board, Move};
use transpo::Bound;

use super::entry::{NO_EVAL, SearchEntry, TtData};
use super::node::{Node, Searched, StaticEval};
use super::ordering::Continuation;
use super::score::MATE_BOUND;
use super::tt::Probe;
use super::worker::{UNKNOWN_EVAL, Worker};

impl<E: SearchEntry> Worker<'_, E> {
    /// The static evaluation of the node at `ply`, taken from the probe's entry when it holds
    /// one; recorded in `evals[ply]` for the improving flag of the nodes below.
    pub(super) fn static_eval(&mut self, probe: &Probe, in_check: bool, ply: usize) -> StaticEval {
        let raw = if in_check || !self.features.futility && !self.features.null_move {
            None
        } else {
            Some(self.evaluate_with(probe.entry.map_or(NO_EVAL, |d| d.eval)))
        };
        let corrected = raw.map(|e| self.corrected(e));
        self.evals[ply] = corrected.unwrap_or(UNKNOWN_EVAL);
        StaticEval {
            raw,
            corrected,
            improving: self.features.improving && corrected.is_some_and(|e| self.improving(e, ply)),
        }
    }

    /// Whether the static evaluation `eval` at `ply` is above the side's evaluation two plies
    /// earlier (or four, when that one was in check; true when neither is known).
    fn improving(&self, eval: i32, ply: usize) -> bool {
        let before = |back: usize| {
            ply.checked_sub(back)
                .map(|p| self.evals[p])
                .filter(|&e| e != UNKNOWN_EVAL)
        };
        match before(2).or_else(|| before(4)) {
            Some(earlier) => eval > earlier,
            None => true,
        }
    }

    /// The static evaluation for pruning: with `tt_eval_bound`, the table's score where its
    /// bound says the true value lies beyond the evaluation (mate scores excepted).
    fn bounded_eval(&self, eval: i32, entry: Option<&TtData>, ply: usize) -> i32 {
        let Some(d) = entry.filter(|_| self.features.tt_eval_bound) else {
            return eval;
        };
        let stored = d.score_at(ply);
        if stored.abs() >= MATE_BOUND {
            return eval;
        }
        match d.bound {
            Bound::Exact => stored,
            Bound::Lower if stored > eval => stored,
            Bound::Upper if stored < eval => stored,
            _ => eval,
        }
    }

    /// Razoring, reverse futility and null-move pruning at a node of `depth` plies at `ply`
    /// below the root, searched with (`alpha`, `beta`) — only off the principal variation,
    /// out of check, not in a singular-extension search, `entry` the table's: `Break(score)`
    /// ends the node with that score; otherwise `Continue(futile)`, whether its quiet moves
    /// may be skipped (futility pruning, see [`Worker::skips`]).
    pub(super) fn prune_node(
        &mut self,
        eval: &StaticEval,
        entry: Option<&TtData>,
        depth: i32,
        ply: usize,
        (alpha, beta): (i32, i32),
        allow_null: bool,
    ) -> ControlFlow<i32, bool> {
        let improving = eval.improving;
        let Some(eval) = eval.corrected else {
            return ControlFlow::Continue(false);
        };
        let pv_node = beta - alpha > 1;
        if pv_node || ply == 0 || self.excluded[ply].is_some() {
            return ControlFlow::Continue(false);
        }
        let eval = self.bounded_eval(eval, entry, ply);
        if self.features.razoring
            && depth <= 3
            && alpha.abs() < MATE_BOUND
            && eval + 200 + 200 * depth <= alpha
        {
            let score = self.quiesce(alpha, alpha + 1, ply, 0, None);
            if self.stopped {
                return ControlFlow::Break(0);
            }
            if score <= alpha {
                return ControlFlow::Break(score);
            }
        }
        if self.features.futility
            && depth <= 6
            && beta.abs() < MATE_BOUND
            && eval - 90 * (depth - i32::from(improving)) >= beta
        {
            return ControlFlow::Break(eval);
        }
        if self.features.null_move
            && allow_null
            && depth >= 3
            && eval >= beta
            && self.has_non_pawn_material()
            && self.pos.play_null().is_ok()
        {
            self.played[ply] = None;
            self.moved[ply] = None;
            self.doubles[ply + 1] = self.doubles[ply];
            let margin = if self.features.null_move_margin {
                ((eval - beta) / 200).min(3)
            } else {
                0
            };
            let r = 3 + depth / 4 + margin;
            let score = -self.negamax(depth - 1 - r, ply + 1, -beta, -beta + 1, false, false);
            self.pos.undo();
            if self.stopped {
                return ControlFlow::Break(0);
            }
            if score >= beta {
                return ControlFlow::Break(if score >= MATE_BOUND { beta } else { score });
            }
        }
        ControlFlow::Continue(
            self.features.futility
                && depth <= 3
                && alpha.abs() < MATE_BOUND
                && eval + 100 + 120 * depth <= alpha,
        )
    }

    /// The late-move pruning count of a node of `depth` plies: its quiet moves that give no
    /// check are skipped once this many moves were met (`usize::MAX`: none are; only off the
    /// principal variation, out of check, up to depth 8). Half as many when the evaluation
    /// is not improving (with the `improving` feature).
    pub(super) fn late_move_limit(
        &self,
        depth: i32,
        pv_node: bool,
        in_check: bool,
        improving: bool,
    ) -> usize {
        if !self.features.late_move_pruning || pv_node || in_check || depth > 8 {
            return usize::MAX;
        }
        let full = (3 + depth * depth) as usize;
        if improving || !self.features.improving {
            full
        } else {
            full / 2
        }
    }

    /// How quiet moves like `mv` did before: its history, with its continuation history
    /// (else the history counted twice). Read only by `history_pruning` and `lmr_history`;
    /// 0 without them and for moves that are not `quiet`.
    #[inline]
    pub(super) fn learned(
        &self,
        board: &Board,
        mv: Move,
        quiet: bool,
        continuation: Continuation,
    ) -> i32 {
        if !quiet || !self.features.lmr_history && !self.features.history_pruning {
            return 0;
        }
        let history = self.heuristics.history(board, mv);
        if self.features.continuation_history {
            history + self.heuristics.continuation(board, mv, continuation)
        } else {
            2 * history
        }
    }

    /// Whether the move loop of `node` skips `mv` (not played yet; `quiet`: neither a
    /// capture nor a promotion; `learned` its history score, see [`Worker::learned`]),
    /// `found` what the loop found so far. The rules apply only to moves after the first
    /// searched, off the principal variation, out of check, once a move escaping mate was
    /// found — but for futility and late-move pruning, which `node` switches on itself:
    ///
    /// - static exchange (`main_see_pruning`), up to depth 5: the move loses more than 40
    ///   (quiet) or 100 (capture) centipawns a ply of depth;
    /// - history (`history_pruning`), up to depth 4: a quiet move whose history is below
    ///   −100 a ply of depth;
    /// - futility (`node.futile`, after the first move searched) and late-move pruning (more
    ///   than `node.lmp_limit` moves met, a move escaping mate found): a quiet move that gives
    ///   no check.
    pub(super) fn skips(
        &mut self,
        node: &Node,
        mv: Move,
        quiet: bool,
        learned: i32,
        found: &Searched,
    ) -> bool {
        let board = self.pos.board();
        let prunable =
            !node.pv_node && !node.in_check && found.searched > 0 && found.best > -MATE_BOUND;
        if self.features.main_see_pruning
            && prunable
            && node.depth <= 5
            // Castling (the king takes its own rook in cozy-chess) is no exchange.
            && !board.colors(board.side_to_move()).has(mv.to)
        {
            let margin = if quiet {
                40 * node.depth
            } else {
                100 * node.depth
            };
            if super::see::see(board, mv) < -margin {
                return true;
            }
        }
        if self.features.history_pruning
            && quiet
            && prunable
            && node.depth <= 4
            && learned < -100 * node.depth
        {
            return true;
        }
        let futile = node.futile && found.searched > 0;
        let late = found.legal as usize > node.lmp_limit && found.best > -MATE_BOUND;
        quiet && (futile || late) && !self.gives_check(mv)
    }

    /// Whether `mv`, legal here, gives check (played and taken back).
    fn gives_check(&mut self, mv: Move) -> bool {
        self.pos.play_unchecked(mv);
        let check = self.pos.is_check();
        self.pos.undo();
        check
    }
}
