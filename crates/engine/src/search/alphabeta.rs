//! One search thread's main search: negamax alpha-beta, fail-soft, with principal variation
//! search, the `full` profile's pruning, reductions and extensions, and the table at every
//! node (the protocol is in `tt`; quiescence, below depth 0, in `quiesce`).
//!
//! Every node counts one, interior and leaf, quiescence included. The subtree size stored with
//! an entry (for the BIG schemes) is the nodes counted below it, where a position answered by
//! the table counts as `scheme.nodes_for_hit(stored)` (one node, or BIGALL's stored size).

use std::ops::ControlFlow;

use cozy_chess::Move;

use transpo::Bound;

use super::entry::{NO_EVAL, SearchEntry, TtData};
use super::ordering::{Continuation, MAX_PLY, is_capture, is_quiet, piece_square};
use super::score::{INFINITY, MATE, MATE_BOUND};
use super::tt::{NodeResult, table_cut};
use super::worker::{UNKNOWN_EVAL, Worker};

/// Filler for the unused part of a move array.
const NO_MOVE: Move = Move {
    from: cozy_chess::Square::A1,
    to: cozy_chess::Square::A1,
    promotion: None,
};

/// A node of the main search, as its move loop sees it.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// Remaining depth (after extensions and reductions of the node itself).
    depth: i32,
    ply: usize,
    beta: i32,
    /// Searched with an open window.
    pv_node: bool,
    in_check: bool,
    /// The path so far is the previous iteration's principal variation.
    on_pv: bool,
    key: u64,
    /// Quiet moves after the first that give no check may be skipped (futility pruning).
    futile: bool,
    /// The static evaluation rose since this side's previous move (see `Features::improving`).
    improving: bool,
    /// Quiet moves that give no check are skipped once this many moves were met (late-move
    /// pruning; `usize::MAX` when off).
    lmp_limit: usize,
    /// The move that led here (for counter moves; `None` at the root or after a null move).
    previous: Option<Move>,
    /// The table's score, when the table's move is a candidate for a singular extension.
    singular: Option<i32>,
    /// The move a singular-extension search leaves out (the table's move).
    excluded: Option<Move>,
    /// The continuation-history rows of the node's quiet moves.
    continuation: Continuation,
    /// The table's move is a capture or a promotion (see `Features::tt_capture_lmr`).
    tt_capture: bool,
}

/// What the singular-extension search says of the table's move.
enum Singular {
    /// The other moves fail low against the singular window: extend the table's move.
    Extend,
    /// They fail low by a margin, off the principal variation: extend it by two plies.
    ExtendTwice,
    /// The other moves reach beta too (multi-cut): the node ends with this lower bound.
    Cut(i32),
    /// Neither: search the table's move as usual.
    Plain,
}

/// Depth from which the table's move may be extended as singular.
const SINGULAR_DEPTH: i32 = 7;

/// How far below the singular window the other moves must fail for a double extension.
const DOUBLE_MARGIN: i32 = 20;

/// Double extensions allowed on one path (they would otherwise make the search explode).
pub(super) const MAX_DOUBLE_EXTENSIONS: u8 = 6;

/// What a node's move loop found.
struct Searched {
    best: i32,
    best_move: Option<Move>,
    /// Legal moves met (0: checkmate or stalemate).
    legal: u32,
    /// Moves searched (not pruned).
    searched: usize,
}

impl<E: SearchEntry> Worker<'_, E> {
    /// Negamax alpha-beta (fail-soft, PVS) with `depth` plies left at `ply` from the root.
    /// `on_pv`: the path so far is the previous iteration's principal variation.
    pub(super) fn negamax(
        &mut self,
        mut depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        on_pv: bool,
        allow_null: bool,
    ) -> i32 {
        let in_check = self.pos.is_check();
        if in_check && self.features.check_extension && ply < MAX_PLY / 2 {
            depth += 1;
        }
        if depth <= 0 {
            return self.quiesce(alpha, beta, ply, 0, None);
        }
        self.nodes += 1;
        let subtree_start = self.subtree;
        self.subtree += 1;
        self.pv_len[ply] = ply;
        if self.check_stop() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let root = ply == 0;
        if !root && let Some(score) = self.draw_or_horizon(ply, in_check) {
            return score;
        }
        let pv_node = beta - alpha > 1;
        // Set when this is the singular-extension search of a node (the same position
        // without the table's move): the table's result for the position does not apply.
        let excluded = self.excluded[ply];

        // The table, before any move is generated.
        let key = self.pos.key();
        let probe = self.probe(self.table, key);
        if let Some(d) = probe.entry
            && !root
            && excluded.is_none()
            && self.deep_enough(d.depth, depth)
            && (!pv_node || !self.features.pv_exact_cuts || d.bound == Bound::Exact)
            && let Some(stored) = table_cut(&d, ply, alpha, beta)
        {
            let weight = self.scheme.map_or(1, |s| s.nodes_for_hit(d.nodes)).max(1);
            self.subtree += weight - 1;
            if let Some(mv) = probe.mv {
                self.pv[ply][ply] = Some(mv);
                self.pv_len[ply] = ply + 1;
            }
            return stored;
        }

        // Pruning of the `full` profile, away from the principal variation.
        // The raw evaluation is what the table keeps; the search uses it corrected.
        let raw_eval = if in_check || !self.features.futility && !self.features.null_move {
            None
        } else {
            Some(self.evaluate_with(probe.entry.map_or(NO_EVAL, |d| d.eval)))
        };
        let static_eval = raw_eval.map(|e| self.corrected(e));
        self.evals[ply] = static_eval.unwrap_or(UNKNOWN_EVAL);
        let improving =
            self.features.improving && static_eval.is_some_and(|e| self.improving(e, ply));
        let mut futile = false;
        if let Some(eval) = static_eval
            && !pv_node
            && !root
            && excluded.is_none()
        {
            let eval = self.corrected_eval(eval, probe.entry.as_ref(), ply);
            match self.prune(eval, depth, ply, (alpha, beta), allow_null, improving) {
                ControlFlow::Break(score) => return score,
                ControlFlow::Continue(quiet_moves_futile) => futile = quiet_moves_futile,
            }
        }

        // The move loop: previous PV move or table move first, then the generated moves.
        let pv_move = if on_pv {
            self.prev_pv
                .get(ply)
                .copied()
                .filter(|&mv| self.pos.is_legal(mv))
        } else {
            None
        };
        if self.features.iir && depth >= 4 && !in_check && probe.mv.is_none() && pv_move.is_none() {
            depth -= 1;
        }
        let lmp_limit = if self.features.late_move_pruning && !pv_node && !in_check && depth <= 8 {
            let full = (3 + depth * depth) as usize;
            if improving || !self.features.improving {
                full
            } else {
                full / 2
            }
        } else {
            usize::MAX
        };
        let node = Node {
            depth,
            ply,
            beta,
            pv_node,
            in_check,
            on_pv,
            key,
            futile,
            improving,
            lmp_limit,
            previous: if ply > 0 { self.played[ply - 1] } else { None },
            singular: self.singular_candidate(&probe, depth, ply, excluded),
            excluded,
            continuation: self.continuation(ply),
            tt_capture: self.features.tt_capture_lmr
                && probe
                    .mv
                    .is_some_and(|mv| mv.promotion.is_some() || is_capture(self.pos.board(), mv)),
        };
        let Some(searched) = self.search_moves(&node, alpha, pv_move, probe.mv) else {
            return 0;
        };
        if searched.legal == 0 {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        // With no move searched, alpha is still the window's.
        let best = if searched.searched == 0 {
            alpha
        } else {
            searched.best
        };
        if let (Some(raw), Some(eval)) = (raw_eval, static_eval)
            && excluded.is_none()
            && searched.searched > 0
            && best.abs() < MATE_BOUND
            && searched
                .best_move
                .is_none_or(|mv| is_quiet(self.pos.board(), mv))
            // A bound tells only on which side of it the true value lies.
            && !(best >= beta && best <= eval)
            && !(best <= alpha && best >= eval)
        {
            self.update_correction(raw, best, depth);
        }
        let result = NodeResult {
            best,
            window: (alpha, beta),
            best_move: searched.best_move,
            move_if_upper: probe.mv,
            eval: raw_eval,
            depth,
            nodes: self.subtree - subtree_start,
        };
        if excluded.is_none() {
            self.store_result(self.table, key, probe.entry, ply, result);
        }
        best
    }

    /// The continuation-history rows at `ply`: the moves one and two plies back (none
    /// without the feature).
    fn continuation(&self, ply: usize) -> Continuation {
        let back = |n: usize| ply.checked_sub(n).and_then(|p| self.moved[p]);
        if self.features.continuation_history {
            Continuation {
                rows: [back(1), back(2)],
            }
        } else {
            Continuation::default()
        }
    }

    /// The table's score at a node of `depth` plies, when the table's move may be extended
    /// as singular: the entry is a lower bound or exact, not much shallower than the node,
    /// and no mate score.
    fn singular_candidate(
        &self,
        probe: &super::tt::Probe,
        depth: i32,
        ply: usize,
        excluded: Option<Move>,
    ) -> Option<i32> {
        let d = probe.entry?;
        probe.mv?;
        if !self.features.singular
            || ply == 0
            || ply >= MAX_PLY / 2
            || excluded.is_some()
            || depth < SINGULAR_DEPTH
            || d.bound == Bound::Upper
            || i32::from(d.depth) < depth - 3
        {
            return None;
        }
        let stored = transpo::score::from_table(i32::from(d.score), ply as i32, MATE_BOUND);
        (stored.abs() < MATE_BOUND).then_some(stored)
    }

    /// The singular-extension test of the table's move `mv` at `node` (not played yet),
    /// whose table score is `tt_score`: a search of half the depth without `mv`, with a null
    /// window a margin below `tt_score`. `None` if the search was stopped.
    fn singular(&mut self, node: &Node, mv: Move, tt_score: i32) -> Option<Singular> {
        let singular_beta = tt_score - 2 * node.depth;
        self.excluded[node.ply] = Some(mv);
        let score = self.negamax(
            (node.depth - 1) / 2,
            node.ply,
            singular_beta - 1,
            singular_beta,
            false,
            false,
        );
        self.excluded[node.ply] = None;
        if self.stopped {
            return None;
        }
        Some(
            if score < singular_beta - DOUBLE_MARGIN
                && self.features.double_extension
                && !node.pv_node
                && self.doubles[node.ply] < MAX_DOUBLE_EXTENSIONS
            {
                Singular::ExtendTwice
            } else if score < singular_beta {
                Singular::Extend
            } else if singular_beta >= node.beta {
                Singular::Cut(singular_beta)
            } else {
                Singular::Plain
            },
        )
    }

    /// The score of a node below the root that ends without a search: a draw (repetition,
    /// insufficient material, the fifty-move rule), a mate on the hundredth half-move, or
    /// the evaluation at the ply limit.
    fn draw_or_horizon(&mut self, ply: usize, in_check: bool) -> Option<i32> {
        if self.pos.is_repetition(2) || self.pos.is_insufficient_material() {
            return Some(0);
        }
        if self.pos.halfmove_clock() >= 100 {
            return Some(if in_check && !self.pos.has_legal_moves() {
                -MATE + ply as i32
            } else {
                0
            });
        }
        if ply >= MAX_PLY - 1 {
            return Some(self.evaluate());
        }
        None
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
    fn corrected_eval(&self, eval: i32, entry: Option<&TtData>, ply: usize) -> i32 {
        let Some(d) = entry.filter(|_| self.features.tt_eval_bound) else {
            return eval;
        };
        let stored = transpo::score::from_table(i32::from(d.score), ply as i32, MATE_BOUND);
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

    /// Whether a stored depth is enough to use the entry's score at `depth` plies.
    fn deep_enough(&self, stored: u8, depth: i32) -> bool {
        if self.exact_depth_probing {
            i32::from(stored) == depth
        } else {
            i32::from(stored) >= depth
        }
    }

    /// Razoring, reverse futility and null-move pruning at a node off the principal
    /// variation with static evaluation `eval`: `Break(score)` ends the node with that score;
    /// otherwise `Continue(futile)`, whether quiet moves may be skipped (futility pruning).
    fn prune(
        &mut self,
        eval: i32,
        depth: i32,
        ply: usize,
        (alpha, beta): (i32, i32),
        allow_null: bool,
        improving: bool,
    ) -> ControlFlow<i32, bool> {
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

    /// The move loop: `first` (the previous PV move, else the table move), then the
    /// generated moves in order. `None` if the search was stopped.
    fn search_moves(
        &mut self,
        node: &Node,
        mut alpha: i32,
        pv_move: Option<Move>,
        tt_move: Option<Move>,
    ) -> Option<Searched> {
        let ply = node.ply;
        let first = pv_move.or(tt_move);
        let mut pending = first;
        let mut generated = false;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut legal = 0;
        let mut searched = 0;
        // Quiet moves searched without a cut-off (the first 32), for the history's malus.
        let mut quiets_tried = [NO_MOVE; 32];
        let mut quiets = 0;
        // Captures searched without a cut-off (the first 16), for the capture history.
        let mut captures_tried = [NO_MOVE; 16];
        let mut captures = 0;
        let counter = if self.features.counter_moves {
            self.heuristics.counter(node.previous)
        } else {
            None
        };
        loop {
            let mv = match pending.take() {
                Some(mv) => mv,
                None => {
                    if !generated {
                        generated = true;
                        self.lists[ply].fill_all(
                            self.pos.board(),
                            &self.heuristics,
                            ply,
                            pv_move,
                            tt_move,
                            first,
                            self.features.bad_captures_last,
                            (counter, node.continuation),
                        );
                    }
                    match self.lists[ply].pick() {
                        Some(mv) => mv,
                        None => break,
                    }
                }
            };
            legal += 1;
            if Some(mv) == node.excluded {
                continue;
            }
            // The table's move, tried before any move is generated (the test searches this
            // same ply: it must not overwrite a move list in use).
            let mut extension = 0;
            if let Some(tt_score) = node.singular
                && !generated
                && Some(mv) == tt_move
            {
                match self.singular(node, mv, tt_score)? {
                    Singular::Extend => extension = 1,
                    Singular::ExtendTwice => extension = 2,
                    Singular::Cut(score) => {
                        return Some(Searched {
                            best: score,
                            best_move: Some(mv),
                            legal,
                            searched: 1,
                        });
                    }
                    Singular::Plain => {
                        if self.features.singular_negative && tt_score >= node.beta {
                            extension = -1;
                        }
                    }
                }
            }
            let board = self.pos.board();
            if let Some(table) = self.table {
                table.prefetch(transpo_chess::zobrist::predict_after_move(
                    node.key, board, mv,
                ));
            }
            let quiet = mv.promotion.is_none() && !is_capture(board, mv);
            // Moves after the first, off the principal variation, out of check, with a move
            // that escapes mate found: the near-leaf pruning below may skip them.
            let prunable = !node.pv_node && !node.in_check && searched > 0 && best > -MATE_BOUND;
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
                    continue;
                }
            }
            // How quiet moves like this one did before: history, with continuation history
            // (read only by the two features below).
            let learned = if quiet && (self.features.lmr_history || self.features.history_pruning) {
                let history = self.heuristics.history(board, mv);
                if self.features.continuation_history {
                    history + self.heuristics.continuation(board, mv, node.continuation)
                } else {
                    2 * history
                }
            } else {
                0
            };
            if self.features.history_pruning
                && quiet
                && prunable
                && node.depth <= 4
                && learned < -100 * node.depth
            {
                continue;
            }
            // With `lmr_history`: one ply less for killers and the counter move, and up to
            // two plies less (or more) by the history score.
            let known = if self.features.lmr_history && quiet {
                let liked = self.heuristics.is_killer(mv, ply) || Some(mv) == counter;
                learned / 16_384 + i32::from(liked)
            } else {
                0
            };
            self.moved[ply] = piece_square(board, mv);
            self.pos.play_unchecked(mv);
            let gives_check = self.pos.is_check();
            let late = legal as usize > node.lmp_limit && best > -MATE_BOUND;
            if (node.futile && searched > 0 || late) && quiet && !gives_check {
                self.pos.undo();
                continue;
            }
            let child_on_pv = node.on_pv && Some(mv) == pv_move;
            self.doubles[ply + 1] = self.doubles[ply] + u8::from(extension == 2);
            self.played[ply] = Some(mv);
            let reducible = quiet && !gives_check;
            let child = Node {
                depth: node.depth + extension,
                ..*node
            };
            let score = self.search_child(&child, alpha, searched, reducible, child_on_pv, known);
            self.pos.undo();
            if self.stopped {
                return None;
            }
            searched += 1;
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= node.beta {
                        if quiet {
                            self.reward_quiet(node, mv, &quiets_tried[..quiets]);
                        }
                        if self.features.capture_history {
                            let board = self.pos.board();
                            let capture = (!quiet && is_capture(board, mv)).then_some(mv);
                            self.heuristics.update_captures(
                                board,
                                capture,
                                &captures_tried[..captures],
                                node.depth,
                            );
                        }
                        break;
                    }
                }
            }
            if quiet && let Some(slot) = quiets_tried.get_mut(quiets) {
                *slot = mv;
                quiets += 1;
            } else if self.features.capture_history
                && !quiet
                && is_capture(self.pos.board(), mv)
                && let Some(slot) = captures_tried.get_mut(captures)
            {
                *slot = mv;
                captures += 1;
            }
        }
        Some(Searched {
            best,
            best_move,
            legal,
            searched,
        })
    }

    /// Rewards the quiet move `mv` that caused a cut-off at `node` (killer, history, counter
    /// move, as the features say), `tried` the quiet moves searched before it.
    fn reward_quiet(&mut self, node: &Node, mv: Move, tried: &[Move]) {
        let board = self.pos.board();
        if self.features.history_gravity {
            self.heuristics
                .update_history(board, mv, tried, node.depth, node.continuation);
            if self.features.killers {
                self.heuristics.add_killer(mv, node.ply);
            }
        } else {
            let killers = self.features.killers;
            self.heuristics
                .reward(board, mv, node.ply, node.depth, killers);
        }
        if self.features.counter_moves
            && let Some(previous) = node.previous
        {
            self.heuristics.set_counter(previous, mv);
        }
    }

    /// Searches the move just played, the `searched`-th of its node (from 0): the first
    /// with the full window, the others with a null window first (late quiet ones reduced),
    /// then again as far as needed. `reducible`: a quiet move that gives no check; `known`:
    /// plies of reduction its ordering knowledge saves (see `Features::lmr_history`).
    fn search_child(
        &mut self,
        node: &Node,
        alpha: i32,
        searched: usize,
        reducible: bool,
        child_on_pv: bool,
        known: i32,
    ) -> i32 {
        let (depth, ply, beta) = (node.depth, node.ply, node.beta);
        if searched == 0 {
            return -self.negamax(depth - 1, ply + 1, -beta, -alpha, child_on_pv, true);
        }
        let mut r = 0;
        let first_reduced = if self.features.lmr_early && !node.pv_node {
            2
        } else {
            3
        };
        if self.features.lmr
            && depth >= 3
            && searched >= first_reduced
            && reducible
            && !node.in_check
        {
            r = self.lmr[depth.min(63) as usize][searched.min(63)];
            if node.pv_node {
                r -= 1;
            }
            if self.features.improving && !node.improving {
                r += 1;
            }
            r += i32::from(node.tt_capture);
            r -= known;
            r = r.clamp(0, depth - 2);
        }
        let mut score = -self.negamax(depth - 1 - r, ply + 1, -alpha - 1, -alpha, false, true);
        if r > 0 && score > alpha {
            score = -self.negamax(depth - 1, ply + 1, -alpha - 1, -alpha, false, true);
        }
        if score > alpha && score < beta {
            score = -self.negamax(depth - 1, ply + 1, -beta, -alpha, false, true);
        }
        score
    }

    /// Makes `mv` followed by the child's principal variation the line from `ply`.
    fn update_pv(&mut self, ply: usize, mv: Move) {
        self.pv[ply][ply] = Some(mv);
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][ply + 1..child_len].copy_from_slice(&tail[0][ply + 1..child_len]);
        self.pv_len[ply] = child_len;
    }
}
