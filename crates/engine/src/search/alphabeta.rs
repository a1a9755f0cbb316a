//! One search thread: negamax alpha-beta with principal variation search, and quiescence.
//!
//! The table is used at every node of the main search as Breuker et al. describe: probe
//! before generating moves; return the stored score when its depth suffices and its bound
//! allows (exact; lower ≥ beta; upper ≤ alpha); otherwise try the stored move first (after
//! checking that it is legal here, counting the failures); store after the move loop with the
//! bound the result proves and the best move. Quiescence neither probes nor stores (in the
//! `paper` profile; the `full` one probes and stores there too).
//!
//! An entry is trusted only as a whole: if its move is not legal here, the entry belongs to
//! another position (a key collision, a torn write, a crafted file) and none of it is used,
//! neither its score nor its static evaluation, which would otherwise feed the pruning.
//! With [`Features::keep_deeper`] (the `full` profile, on the modern schemes) a result does
//! not replace a deeper entry of the same position, so a quiescence store (depth 0) cannot
//! wipe out an entry searched many plies deep; a store without a move keeps the entry's move.
//! The `paper` profile and the 1994 schemes keep the paper's rule: a same-key store always
//! replaces.
//!
//! Every node counts one, interior and leaf, quiescence included. The subtree size stored with
//! an entry (for the BIG schemes) is the nodes counted below it, where a position answered by
//! the table counts as `scheme.nodes_for_hit(stored)` (one node, or BIGALL's stored size).

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use cozy_chess::{Move, Piece};
use transpo::{Bound, Scheme, Table, score};

use super::encoding::{decode, encode_opt};
use super::entry::{NO_EVAL, SearchEntry, TtData};
use super::ordering::{Heuristics, MAX_PLY, ScoredMoves, is_capture};
use super::smp::Shared;
use super::{Features, INFINITY, MATE, MATE_BOUND};
use crate::eval::Evaluator;
use transpo_chess::Position;

/// Values for delta pruning in quiescence, pawn … king.
const DELTA_VALUE: [i32; 6] = [100, 325, 325, 500, 900, 0];

/// One thread's search state.
pub(super) struct Worker<'a, E: SearchEntry> {
    pub(super) pos: Position,
    table: Option<&'a Table<E>>,
    scheme: Option<Scheme>,
    features: Features,
    exact_depth_probing: bool,
    quiescence_in_subtree: bool,
    /// A store does not replace a deeper entry of the same position (see the module docs).
    keep_deeper: bool,
    evaluator: &'a Evaluator,
    shared: &'a Shared<'a>,
    /// Whether this is the main thread (the one that watches the clock).
    main: bool,
    heuristics: Heuristics,
    pub(super) nodes: u64,
    pub(super) qnodes: u64,
    flushed: u64,
    /// Weighted node count for subtree sizes (see the module docs).
    subtree: u64,
    pub(super) tt_failures: u64,
    pub(super) seldepth: usize,
    pub(super) stopped: bool,
    /// `pv[ply][ply..pv_len[ply]]`: the best line found from `ply`.
    pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    /// The previous iteration's principal variation, tried first along its line.
    pub(super) prev_pv: Vec<Move>,
    /// The last `info` this thread reported (the main thread only).
    pub(super) last_info: Option<super::Info>,
    /// When the clock started (the search's start, or `ponderhit`).
    clock_start: Instant,
    clock_running: bool,
    lmr: Box<[[i32; 64]; 64]>,
    /// One move list per ply, reused (no initialisation or copying of a list per node).
    lists: Vec<ScoredMoves>,
    /// Whether static evaluations may be stored in and read from the table: only when the
    /// evaluation depends on the position alone (not the paper's root-filled tables).
    table_evals: bool,
    /// Evaluations by key (direct-mapped, [`EVAL_CACHE`] slots), when `table_evals`: a
    /// position met again (transpositions, re-searches, the next iteration) is not
    /// evaluated again.
    eval_cache: Vec<(u64, i32)>,
}

/// Slots of a thread's evaluation cache (256 KiB: it stays in the core's L2 cache).
const EVAL_CACHE: usize = 1 << 14;

impl<'a, E: SearchEntry> Worker<'a, E> {
    pub(super) fn new(
        pos: Position,
        table: Option<&'a Table<E>>,
        config: &super::SearchConfig,
        evaluator: &'a Evaluator,
        shared: &'a Shared<'a>,
        main: bool,
    ) -> Self {
        let mut lmr = Box::new([[0; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (i, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (d as f64).ln() * (i as f64).ln() / 2.25) as i32;
            }
        }
        Worker {
            pos,
            table,
            scheme: table.map(|t| t.config().scheme),
            features: config.features,
            exact_depth_probing: config.exact_depth_probing,
            quiescence_in_subtree: config.quiescence_in_subtree,
            keep_deeper: config.features.keep_deeper
                && table.is_some_and(|t| !Scheme::PAPER.contains(&t.config().scheme)),
            evaluator,
            shared,
            main,
            heuristics: Heuristics::default(),
            nodes: 0,
            qnodes: 0,
            flushed: 0,
            subtree: 0,
            tt_failures: 0,
            seldepth: 0,
            stopped: false,
            pv: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            prev_pv: Vec::new(),
            last_info: None,
            clock_start: shared.start,
            clock_running: !shared.control.is_pondering(),
            lmr,
            lists: (0..=MAX_PLY).map(|_| ScoredMoves::new()).collect(),
            table_evals: matches!(evaluator, Evaluator::Tapered),
            eval_cache: if matches!(evaluator, Evaluator::Tapered) {
                vec![(0, 0); EVAL_CACHE]
            } else {
                Vec::new()
            },
        }
    }

    /// What the threads of this search share.
    pub(super) fn shared(&self) -> &'a Shared<'a> {
        self.shared
    }

    /// When the search began.
    pub(super) fn started(&self) -> Instant {
        self.shared.start
    }

    /// The shared table, if any.
    pub(super) fn table(&self) -> Option<&'a Table<E>> {
        self.table
    }

    /// The principal variation of the last root search.
    pub(super) fn root_pv(&self) -> Vec<Move> {
        self.pv[0][..self.pv_len[0]]
            .iter()
            .flatten()
            .copied()
            .collect()
    }

    /// Nodes of all threads, as far as this thread knows (exact at one thread).
    pub(super) fn total_nodes(&self) -> u64 {
        self.shared.total_nodes.load(Relaxed) + (self.nodes - self.flushed)
    }

    /// Adds this thread's unreported nodes to the shared total.
    pub(super) fn flush_nodes(&mut self) {
        self.shared
            .total_nodes
            .fetch_add(self.nodes - self.flushed, Relaxed);
        self.flushed = self.nodes;
    }

    /// Whether the search must stop now; sets `stopped`.
    #[inline]
    fn check_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if let Some(limit) = self.shared.node_limit
            && self.total_nodes() >= limit
        {
            self.shared.halt();
            self.stopped = true;
            return true;
        }
        if self.nodes & 1023 == 0 {
            self.flush_nodes();
            if self.shared.halted() {
                self.stopped = true;
            } else if self.main && self.out_of_time(true) {
                self.shared.halt();
                self.stopped = true;
            }
        }
        self.stopped
    }

    /// Whether the clock says stop: the hard limit inside an iteration, the soft one between.
    pub(super) fn out_of_time(&mut self, hard: bool) -> bool {
        let Some(budget) = self.shared.budget else {
            return false;
        };
        if !self.clock_running {
            if self.shared.control.is_pondering() {
                return false;
            }
            self.clock_running = true;
            self.clock_start = Instant::now();
        }
        let limit = if hard { budget.hard } else { budget.soft };
        self.clock_start.elapsed() >= limit
    }

    #[inline]
    fn evaluate(&mut self) -> i32 {
        let key = self.pos.key();
        let slot = (key as usize) & (EVAL_CACHE - 1);
        if let Some(&(k, eval)) = self.eval_cache.get(slot)
            && k == key
        {
            return eval;
        }
        let eval = self.evaluator.evaluate(self.pos.board());
        if let Some(entry) = self.eval_cache.get_mut(slot) {
            *entry = (key, eval);
        }
        eval
    }

    /// The static evaluation, taken from a table entry's `eval` when it holds one.
    #[inline]
    fn evaluate_with(&mut self, stored: i16) -> i32 {
        if self.table_evals && stored != NO_EVAL {
            i32::from(stored)
        } else {
            self.evaluate()
        }
    }

    /// What to store as the entry's static evaluation.
    #[inline]
    fn eval_to_store(&self, eval: Option<i32>) -> i16 {
        match eval {
            Some(e) if self.table_evals => e.clamp(-30_000, 30_000) as i16,
            _ => NO_EVAL,
        }
    }

    fn has_non_pawn_material(&self) -> bool {
        let b = self.pos.board();
        let own = b.colors(b.side_to_move());
        let pawns_and_king = b.pieces(Piece::Pawn) | b.pieces(Piece::King);
        !(own & !pawns_and_king).is_empty()
    }

    /// Negamax alpha-beta (fail-soft, PVS) with `depth` plies left at `ply` from the root.
    /// `on_pv`: the path so far is the previous iteration's principal variation.
    pub(super) fn negamax(
        &mut self,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
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
        let ply_score = ply as i32;
        if !root {
            if self.pos.is_repetition(2) || self.pos.is_insufficient_material() {
                return 0;
            }
            if self.pos.halfmove_clock() >= 100 {
                return if in_check && !self.pos.has_legal_moves() {
                    -MATE + ply_score
                } else {
                    0
                };
            }
            if ply >= MAX_PLY - 1 {
                return self.evaluate();
            }
        }
        let pv_node = beta - alpha > 1;

        // The table, before any move is generated.
        let key = self.pos.key();
        let mut tt_move = None;
        let mut tt_eval = NO_EVAL;
        // The entry found here, when its move passed the legality check.
        let mut existing = None;
        if let Some(table) = self.table
            && let Some(entry) = table.probe(key)
        {
            let d = entry.data();
            let mut sound = true;
            if d.mv != 0 {
                match decode(d.mv) {
                    Some(mv) if self.pos.is_legal(mv) => tt_move = Some(mv),
                    _ => {
                        self.tt_failures += 1;
                        sound = false;
                    }
                }
            }
            if sound {
                // Only a sound entry's evaluation may feed the pruning below.
                tt_eval = d.eval;
                existing = Some(d);
            }
            let deep_enough = if self.exact_depth_probing {
                i32::from(d.depth) == depth
            } else {
                i32::from(d.depth) >= depth
            };
            if sound && !root && deep_enough {
                let stored = score::from_table(i32::from(d.score), ply_score, MATE_BOUND);
                let cut = match d.bound {
                    Bound::Exact => true,
                    Bound::Lower => stored >= beta,
                    Bound::Upper => stored <= alpha,
                };
                if cut {
                    let weight = self.scheme.map_or(1, |s| s.nodes_for_hit(d.nodes)).max(1);
                    self.subtree += weight - 1;
                    if let Some(mv) = tt_move {
                        self.pv[ply][ply] = Some(mv);
                        self.pv_len[ply] = ply + 1;
                    }
                    return stored;
                }
            }
        }

        // Pruning of the `full` profile, away from the principal variation.
        let static_eval = if in_check || !self.features.futility && !self.features.null_move {
            None
        } else {
            Some(self.evaluate_with(tt_eval))
        };
        let mut futile = false;
        if let Some(eval) = static_eval
            && !pv_node
            && !root
        {
            if self.features.futility
                && depth <= 6
                && beta.abs() < MATE_BOUND
                && eval - 90 * depth >= beta
            {
                return eval;
            }
            if self.features.null_move
                && allow_null
                && depth >= 3
                && eval >= beta
                && self.has_non_pawn_material()
                && self.pos.play_null().is_ok()
            {
                let r = 3 + depth / 4;
                let score = -self.negamax(depth - 1 - r, ply + 1, -beta, -beta + 1, false, false);
                self.pos.undo();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
            futile = self.features.futility
                && depth <= 3
                && alpha.abs() < MATE_BOUND
                && eval + 100 + 120 * depth <= alpha;
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
        if self.features.iir && depth >= 4 && !in_check && tt_move.is_none() && pv_move.is_none() {
            depth -= 1;
        }
        let first = pv_move.or(tt_move);
        let mut pending = first;
        let mut generated = false;
        let old_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut legal = 0;
        let mut searched = 0;
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
                        );
                    }
                    match self.lists[ply].pick() {
                        Some(mv) => mv,
                        None => break,
                    }
                }
            };
            legal += 1;
            let board = self.pos.board();
            if let Some(table) = self.table {
                table.prefetch(transpo_chess::zobrist::predict_after_move(key, board, mv));
            }
            let quiet = mv.promotion.is_none() && !is_capture(board, mv);
            self.pos.play_unchecked(mv);
            let gives_check = self.pos.is_check();
            if futile && quiet && searched > 0 && !gives_check {
                self.pos.undo();
                continue;
            }
            let child_on_pv = on_pv && Some(mv) == pv_move;
            let mut score;
            if searched == 0 {
                score = -self.negamax(depth - 1, ply + 1, -beta, -alpha, child_on_pv, true);
            } else {
                let mut r = 0;
                if self.features.lmr && depth >= 3 && searched >= 3 && quiet && !in_check {
                    if !gives_check {
                        r = self.lmr[depth.min(63) as usize][searched.min(63)];
                    }
                    if pv_node {
                        r -= 1;
                    }
                    r = r.clamp(0, depth - 2);
                }
                score = -self.negamax(depth - 1 - r, ply + 1, -alpha - 1, -alpha, false, true);
                if r > 0 && score > alpha {
                    score = -self.negamax(depth - 1, ply + 1, -alpha - 1, -alpha, false, true);
                }
                if score > alpha && score < beta {
                    score = -self.negamax(depth - 1, ply + 1, -beta, -alpha, false, true);
                }
            }
            self.pos.undo();
            if self.stopped {
                return 0;
            }
            searched += 1;
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    alpha = score;
                    self.pv[ply][ply] = Some(mv);
                    let child_len = self.pv_len[ply + 1].max(ply + 1);
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply][ply + 1..child_len].copy_from_slice(&tail[0][ply + 1..child_len]);
                    self.pv_len[ply] = child_len;
                    if score >= beta {
                        if quiet {
                            self.heuristics.reward(
                                self.pos.board(),
                                mv,
                                ply,
                                depth,
                                self.features.killers,
                            );
                        }
                        break;
                    }
                }
            }
        }
        if legal == 0 {
            return if in_check { -MATE + ply_score } else { 0 };
        }
        if searched == 0 {
            best = alpha;
        }

        if let Some(table) = self.table {
            let bound = bound_of(best, old_alpha, beta);
            let mv = if bound == Bound::Upper {
                tt_move
            } else {
                best_move
            };
            self.store(
                table,
                key,
                existing,
                TtData {
                    mv: encode_opt(mv),
                    score: score::to_table(best, ply_score, MATE_BOUND) as i16,
                    eval: self.eval_to_store(static_eval),
                    depth: depth.clamp(0, 255) as u8,
                    bound,
                    nodes: self.subtree - subtree_start,
                },
            );
        }
        best
    }

    /// Quiescence: stand pat, then captures and promotions (every move when in check).
    fn quiesce(
        &mut self,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qply: u32,
        last_to: Option<cozy_chess::Square>,
    ) -> i32 {
        self.nodes += 1;
        self.qnodes += 1;
        if self.quiescence_in_subtree {
            self.subtree += 1;
        }
        self.pv_len[ply] = ply;
        if self.check_stop() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }
        let in_check = self.pos.is_check();
        let old_alpha = alpha;
        let key = self.pos.key();
        let probing = if self.features.tt_in_quiescence {
            self.table
        } else {
            None
        };
        // Stand pat before the probe: the evaluation runs while the bucket (prefetched by
        // the parent) arrives, and a stand-pat cut-off needs no probe at all.
        let mut best = -INFINITY;
        let mut stand = 0;
        if !in_check {
            stand = self.evaluate();
            if stand >= beta {
                return stand;
            }
            best = stand;
        }
        let mut tt_move = None;
        let mut existing = None;
        if let Some(table) = probing
            && let Some(entry) = table.probe(key)
        {
            let d = entry.data();
            let decoded = decode(d.mv).filter(|&mv| self.pos.is_legal(mv));
            if d.mv != 0 && decoded.is_none() {
                self.tt_failures += 1;
            } else {
                existing = Some(d);
                tt_move = decoded;
                let stored = score::from_table(i32::from(d.score), ply as i32, MATE_BOUND);
                let cut = match d.bound {
                    Bound::Exact => true,
                    Bound::Lower => stored >= beta,
                    Bound::Upper => stored <= alpha,
                };
                if cut {
                    return stored;
                }
            }
        }
        alpha = alpha.max(best);
        let mut best_move = None;
        self.lists[ply].fill_tactical(self.pos.board());
        if let Some(mv) = tt_move {
            self.lists[ply].promote(mv);
        }
        if in_check && self.lists[ply].is_empty() {
            return -MATE + ply as i32;
        }
        while let Some(mv) = self.lists[ply].pick() {
            // Start loading the child's bucket now, so the pruning tests below and playing
            // the move overlap the memory access.
            if let Some(table) = probing {
                table.prefetch(transpo_chess::zobrist::predict_after_move(
                    key,
                    self.pos.board(),
                    mv,
                ));
            }
            // Deep in quiescence, only recaptures: dense positions otherwise explode.
            if self.features.see_pruning && !in_check && qply >= 6 && Some(mv.to) != last_to {
                continue;
            }
            if self.features.see_pruning
                && !in_check
                && mv.promotion.is_none()
                && super::see::loses_material(self.pos.board(), mv)
            {
                continue;
            }
            if self.features.futility && !in_check && mv.promotion.is_none() {
                let board = self.pos.board();
                let victim = board
                    .piece_on(mv.to)
                    .map_or(DELTA_VALUE[0], |p| DELTA_VALUE[p as usize]);
                if stand + victim + 200 <= alpha {
                    continue;
                }
            }
            self.pos.play_unchecked(mv);
            let score = -self.quiesce(-beta, -alpha, ply + 1, qply + 1, Some(mv.to));
            self.pos.undo();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if let Some(table) = probing {
            let bound = bound_of(best, old_alpha, beta);
            self.store(
                table,
                key,
                existing,
                TtData {
                    mv: encode_opt(best_move),
                    score: score::to_table(best, ply as i32, MATE_BOUND) as i16,
                    eval: self.eval_to_store((!in_check).then_some(stand)),
                    depth: 0,
                    bound,
                    nodes: 1,
                },
            );
        }
        best
    }

    /// Stores a node's result. `existing` is the sound entry the node's probe found for the
    /// same key, if any: with `keep_deeper`, a deeper one is kept as it is, and a result
    /// without a move keeps its move (see the module docs).
    #[inline]
    fn store(&self, table: &Table<E>, key: u64, existing: Option<TtData>, mut data: TtData) {
        if self.keep_deeper
            && let Some(old) = existing
        {
            if old.depth > data.depth {
                return;
            }
            if data.mv == 0 {
                data.mv = old.mv;
            }
        }
        table.store(key, E::from_data(data));
    }
}

/// What a node's result says about its true value, given the window it was searched with.
fn bound_of(best: i32, old_alpha: i32, beta: i32) -> Bound {
    if best >= beta {
        Bound::Lower
    } else if best > old_alpha {
        Bound::Exact
    } else {
        Bound::Upper
    }
}
