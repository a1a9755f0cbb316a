//! One search thread's main search: negamax alpha-beta, fail-soft, with principal variation
//! search and the table at every node (the protocol is in `tt`; quiescence, below depth 0,
//! in `quiesce`). What the `full` profile leaves out is in `prune`, how deep it looks
//! (extensions and reductions) in `extend`: this file is the node and its move loop.
//!
//! Every node counts one, interior and leaf, quiescence included. The subtree size stored with
//! an entry (for the BIG schemes) is the nodes counted below it, where a position answered by
//! the table counts as `scheme.nodes_for_hit(stored)` (one node, or BIGALL's stored size).

use std::ops::ControlFlow;

use cozy_chess::Move;

use super::entry::SearchEntry;
use super::node::{Node, Searched, StaticEval};
use super::ordering::{Continuation, MAX_PLY, is_capture, is_quiet, piece_square};
use super::score::{INFINITY, MATE, MATE_BOUND};
use super::tt::{NodeResult, Probe, prefetch_child};
use super::worker::Worker;

/// Filler for the unused part of a move array.
const NO_MOVE: Move = Move {
    from: cozy_chess::Square::A1,
    to: cozy_chess::Square::A1,
    promotion: None,
};

/// Where a node's moves come from: `first` (the previous PV move, else the table move),
/// tried before any move is generated, then the generated list.
struct Picker {
    pv_move: Option<Move>,
    tt_move: Option<Move>,
    first: Option<Move>,
    /// `first`, until it is tried.
    pending: Option<Move>,
    /// The move list was generated (so `first` was tried).
    generated: bool,
}

impl Picker {
    fn new(pv_move: Option<Move>, tt_move: Option<Move>) -> Self {
        let first = pv_move.or(tt_move);
        Picker {
            pv_move,
            tt_move,
            first,
            pending: first,
            generated: false,
        }
    }
}

/// A move of a node's loop that was not skipped, about to be searched.
struct Candidate {
    mv: Move,
    /// Neither a capture nor a promotion.
    quiet: bool,
    /// Plies the move is extended by, −1 to 2 (see [`Worker::singular_extension`]).
    extension: i32,
    /// Plies of reduction its ordering knowledge saves (see [`Worker::known`]).
    known: i32,
    /// The move continues the previous iteration's principal variation.
    on_pv: bool,
}

/// The moves a node searched without a cut-off, for the histories' maluses: the first 32
/// quiet moves and the first 16 captures.
struct Tried {
    quiets: [Move; 32],
    quiet_count: usize,
    captures: [Move; 16],
    capture_count: usize,
}

impl Tried {
    fn new() -> Self {
        Tried {
            quiets: [NO_MOVE; 32],
            quiet_count: 0,
            captures: [NO_MOVE; 16],
            capture_count: 0,
        }
    }

    fn quiets(&self) -> &[Move] {
        &self.quiets[..self.quiet_count]
    }

    fn captures(&self) -> &[Move] {
        &self.captures[..self.capture_count]
    }

    /// Records `mv`, a `quiet` move or a `capture` to record (neither: not recorded), while
    /// there is room.
    fn record(&mut self, mv: Move, quiet: bool, capture: bool) {
        let (slots, count) = if quiet {
            (&mut self.quiets[..], &mut self.quiet_count)
        } else if capture {
            (&mut self.captures[..], &mut self.capture_count)
        } else {
            return;
        };
        if let Some(slot) = slots.get_mut(*count) {
            *slot = mv;
            *count += 1;
        }
    }
}

impl<E: SearchEntry> Worker<'_, E> {
    /// Negamax alpha-beta (fail-soft, PVS) with `depth` plies left at `ply` from the root.
    /// `on_pv`: the path so far is the previous iteration's principal variation.
    pub(super) fn negamax(
        &mut self,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        on_pv: bool,
        allow_null: bool,
    ) -> i32 {
        let in_check = self.pos.is_check();
        let depth = self.check_extended(depth, ply, in_check);
        if depth <= 0 {
            return self.quiesce(alpha, beta, ply, 0, None);
        }
        let subtree_start = self.subtree;
        if let Some(score) = self.enter_node(ply, in_check) {
            return score;
        }
        // Set when this is the singular-extension search of a node (the same position
        // without the table's move): the table's result for the position does not apply.
        let excluded = self.excluded[ply];

        // The table, before any move is generated.
        let key = self.pos.key();
        let probe = self.probe(self.table, key);
        if ply > 0
            && excluded.is_none()
            && let Some(score) = self.table_cutoff(&probe, depth, ply, (alpha, beta))
        {
            return score;
        }

        // Node pruning (the `full` profile's, off the principal variation).
        let eval = self.static_eval(&probe, in_check, ply);
        let window = (alpha, beta);
        let futile =
            match self.prune_node(&eval, probe.entry.as_ref(), depth, ply, window, allow_null) {
                ControlFlow::Break(score) => return score,
                ControlFlow::Continue(futile) => futile,
            };

        // The move loop: previous PV move or table move first, then the generated moves.
        let pv_move = self.pv_move(on_pv, ply);
        let depth =
            self.internally_reduced(depth, in_check, probe.mv.is_some() || pv_move.is_some());
        let pv_node = beta - alpha > 1;
        let previous = if ply > 0 { self.played[ply - 1] } else { None };
        let node = Node {
            depth,
            ply,
            beta,
            pv_node,
            in_check,
            on_pv,
            key,
            futile,
            improving: eval.improving,
            lmp_limit: self.late_move_limit(depth, pv_node, in_check, eval.improving),
            previous,
            counter: self.counter_of(previous),
            singular: self.singular_candidate(&probe, depth, ply),
            excluded,
            continuation: self.continuation(ply),
            tt_capture: self.features.tt_capture_lmr
                && probe.mv.is_some_and(|mv| !is_quiet(self.pos.board(), mv)),
        };
        let Some(searched) = self.search_moves(&node, alpha, pv_move, probe.mv) else {
            return 0;
        };
        self.conclude(&node, alpha, &probe, &eval, &searched, subtree_start)
    }

    /// Counts a main-search node at `ply` on entering it (in the node count, its subtree
    /// and the selective depth), and gives its score when it ends at once: 0 when the
    /// search must stop, else below the root what [`Worker::draw_or_horizon`] says.
    #[inline(always)]
    fn enter_node(&mut self, ply: usize, in_check: bool) -> Option<i32> {
        self.nodes += 1;
        self.subtree += 1;
        self.pv_len[ply] = ply;
        if self.check_stop() {
            return Some(0);
        }
        self.seldepth = self.seldepth.max(ply);
        if ply == 0 {
            return None;
        }
        self.draw_or_horizon(ply, in_check)
    }

    /// The previous iteration's move at `ply` when the path so far is its principal
    /// variation (`on_pv`) and the move is legal here.
    #[inline(always)]
    fn pv_move(&self, on_pv: bool, ply: usize) -> Option<Move> {
        if on_pv {
            self.prev_pv
                .get(ply)
                .copied()
                .filter(|&mv| self.pos.is_legal(mv))
        } else {
            None
        }
    }

    /// The counter move of `previous`, the move that led here (none without
    /// `counter_moves`).
    #[inline(always)]
    fn counter_of(&self, previous: Option<Move>) -> Option<Move> {
        if self.features.counter_moves {
            self.heuristics.counter(previous)
        } else {
            None
        }
    }

    /// The score of `node`, searched with `alpha` as it came in, once its move loop found
    /// `searched`: mate or stalemate without a legal move, else the best score (alpha
    /// when no move was searched). Outside a singular-extension search the result also
    /// moves the correction history and goes to the table, with the nodes counted since
    /// `subtree_start` as its subtree.
    #[inline(always)]
    fn conclude(
        &mut self,
        node: &Node,
        alpha: i32,
        probe: &Probe,
        eval: &StaticEval,
        searched: &Searched,
        subtree_start: u64,
    ) -> i32 {
        if searched.legal == 0 {
            return if node.in_check {
                -MATE + node.ply as i32
            } else {
                0
            };
        }
        // With no move searched, alpha is still the window's.
        let best = if searched.searched == 0 {
            alpha
        } else {
            searched.best
        };
        if node.excluded.is_none() {
            let window = (alpha, node.beta);
            self.learn_correction(eval, searched, best, window, node.depth);
            let result = NodeResult {
                best,
                window,
                best_move: searched.best_move,
                move_if_upper: probe.mv,
                eval: eval.raw,
                depth: node.depth,
                nodes: self.subtree - subtree_start,
            };
            self.store_result(self.table, node.key, probe.entry, node.ply, result);
        }
        best
    }

    /// Moves the correction history towards a node's result `best` (searched with
    /// (`alpha`, `beta`) to `depth` plies) when it says something of the static evaluation:
    /// moves were searched, the result is no mate, the best move (if any) is quiet, and a
    /// bound lies on the side of the evaluation it bounds (a bound tells only on which side
    /// of it the true value lies).
    fn learn_correction(
        &mut self,
        eval: &StaticEval,
        searched: &Searched,
        best: i32,
        (alpha, beta): (i32, i32),
        depth: i32,
    ) {
        let (Some(raw), Some(corrected)) = (eval.raw, eval.corrected) else {
            return;
        };
        if searched.searched > 0
            && best.abs() < MATE_BOUND
            && searched
                .best_move
                .is_none_or(|mv| is_quiet(self.pos.board(), mv))
            && !(best >= beta && best <= corrected)
            && !(best <= alpha && best >= corrected)
        {
            self.update_correction(raw, best, depth);
        }
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
        let mut picker = Picker::new(pv_move, tt_move);
        let mut found = Searched {
            best: -INFINITY,
            best_move: None,
            legal: 0,
            searched: 0,
        };
        let mut tried = Tried::new();
        while let Some(mv) = self.next_move(node, &mut picker) {
            found.legal += 1;
            if Some(mv) == node.excluded || ply == 0 && !self.shared().searches_at_root(mv) {
                continue;
            }
            let extension = match self.extension(node, mv, &picker)? {
                ControlFlow::Continue(plies) => plies,
                ControlFlow::Break(score) => {
                    return Some(Searched {
                        best: score,
                        best_move: Some(mv),
                        legal: found.legal,
                        searched: 1,
                    });
                }
            };
            let board = self.pos.board();
            prefetch_child(self.table, node.key, board, mv);
            let quiet = is_quiet(board, mv);
            let learned = self.learned(board, mv, quiet, node.continuation);
            if self.skips(node, mv, quiet, learned, &found) {
                continue;
            }
            let candidate = Candidate {
                mv,
                quiet,
                extension,
                known: self.known(mv, quiet, learned, node),
                on_pv: node.on_pv && Some(mv) == pv_move,
            };
            let score = self.search_move(node, &candidate, alpha, found.searched)?;
            found.searched += 1;
            if score > found.best {
                found.best = score;
                if score > alpha {
                    found.best_move = Some(mv);
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= node.beta {
                        self.reward_cutoff(node, mv, quiet, &tried);
                        break;
                    }
                }
            }
            let capture =
                self.features.capture_history && !quiet && is_capture(self.pos.board(), mv);
            tried.record(mv, quiet, capture);
        }
        Some(found)
    }

    /// The next move of `node`'s loop: the move `picker` holds to try first, then (generated
    /// once that was tried) the node's move list in order. `None` when none is left.
    #[inline(always)]
    fn next_move(&mut self, node: &Node, picker: &mut Picker) -> Option<Move> {
        if let Some(mv) = picker.pending.take() {
            return Some(mv);
        }
        let ply = node.ply;
        if !picker.generated {
            picker.generated = true;
            self.lists[ply].fill_all(
                self.pos.board(),
                &self.heuristics,
                ply,
                picker.pv_move,
                picker.tt_move,
                picker.first,
                self.features.bad_captures_last,
                (node.counter, node.continuation),
            );
        }
        self.lists[ply].pick()
    }

    /// The extension of `mv` at `node` (not played yet) as [`Worker::singular_extension`]
    /// gives it: only the table's move of a singular candidate is tested, and only before
    /// any move is generated (the test searches this same ply: it must not overwrite a move
    /// list in use); every other move is searched at the node's depth.
    #[inline(always)]
    fn extension(
        &mut self,
        node: &Node,
        mv: Move,
        picker: &Picker,
    ) -> Option<ControlFlow<i32, i32>> {
        match node.singular {
            Some(tt_score) if !picker.generated && Some(mv) == picker.tt_move => {
                self.singular_extension(node, mv, tt_score)
            }
            _ => Some(ControlFlow::Continue(0)),
        }
    }

    /// Plays the `searched`-th move of `node` (from 0), searches it with `alpha` as
    /// [`Worker::search_child`] says and takes it back. `None` if the search was stopped.
    #[inline(always)]
    fn search_move(
        &mut self,
        node: &Node,
        candidate: &Candidate,
        alpha: i32,
        searched: usize,
    ) -> Option<i32> {
        let (ply, mv) = (node.ply, candidate.mv);
        self.moved[ply] = piece_square(self.pos.board(), mv);
        self.pos.play_unchecked(mv);
        let reducible = candidate.quiet && !self.pos.is_check();
        self.doubles[ply + 1] = self.doubles[ply] + u8::from(candidate.extension == 2);
        self.played[ply] = Some(mv);
        let child = Node {
            depth: node.depth + candidate.extension,
            ..*node
        };
        let score = self.search_child(
            &child,
            alpha,
            searched,
            reducible,
            candidate.on_pv,
            candidate.known,
        );
        self.pos.undo();
        if self.stopped {
            return None;
        }
        Some(score)
    }

    /// Rewards the move `mv` that caused a cut-off at `node`, `tried` the moves searched
    /// before it: a quiet one as [`Worker::reward_quiet`] says, and with `capture_history`
    /// the capture history (a capture gains, the captures tried lose).
    fn reward_cutoff(&mut self, node: &Node, mv: Move, quiet: bool, tried: &Tried) {
        if quiet {
            self.reward_quiet(node, mv, tried.quiets());
        }
        if self.features.capture_history {
            let board = self.pos.board();
            let capture = (!quiet && is_capture(board, mv)).then_some(mv);
            self.heuristics
                .update_captures(board, capture, tried.captures(), node.depth);
        }
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
    /// with the full window, the others with a null window first (late quiet ones reduced,
    /// see [`Worker::late_move_reduction`]), then again as far as needed. `reducible`: a
    /// quiet move that gives no check; `known`: plies of reduction its ordering knowledge
    /// saves (see [`Worker::known`]).
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
        let r = self.late_move_reduction(node, searched, reducible, known);
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
