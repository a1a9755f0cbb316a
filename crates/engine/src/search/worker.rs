//! One search thread's state: the position, the table, the features, the counters, the
//! principal variation and the per-ply move lists; the stop and clock checks; the static
//! evaluation with its per-thread cache. The search itself is in `alphabeta` (the main
//! search, with `prune` and `extend`), `quiesce` (quiescence) and `tt` (the table protocol).

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use cozy_chess::{Board, Color, Move, Piece};
use transpo::{Table, scheme::Scheme, table::Instrumented};
use transpo_chess::Position;

use super::config::{Features, SearchConfig};
use super::entry::{NO_EVAL, SearchEntry};
use super::limits::StallClock;
use super::ordering::{Heuristics, MAX_PLY, ScoredMoves};
use super::score::Info;
use super::shared::Shared;
use crate::eval::Evaluator;

/// One thread's search state.
pub(super) struct Worker<'a, E: SearchEntry> {
    pub(super) pos: Position,
    pub(super) table: Option<&'a Table<E>>,
    pub(super) scheme: Option<Scheme>,
    pub(super) features: Features,
    pub(super) exact_depth_probing: bool,
    pub(super) quiescence_in_subtree: bool,
    /// A store without a move keeps the replaced entry's move (see the `tt` module docs).
    pub(super) keep_move: bool,
    evaluator: &'a Evaluator,
    shared: &'a Shared<'a>,
    /// Whether this is the main thread (the one that watches the clock).
    main: bool,
    pub(super) heuristics: Heuristics,
    pub(super) nodes: u64,
    pub(super) qnodes: u64,
    flushed: u64,
    /// Weighted node count for subtree sizes (see the module docs).
    pub(super) subtree: u64,
    pub(super) tt_failures: u64,
    pub(super) seldepth: usize,
    pub(super) stopped: bool,
    /// `pv[ply][ply..pv_len[ply]]`: the best line found from `ply`.
    pub(super) pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pub(super) pv_len: [usize; MAX_PLY + 1],
    /// The previous iteration's principal variation, tried first along its line.
    pub(super) prev_pv: Vec<Move>,
    /// The last `info` this thread reported (the main thread only).
    pub(super) last_info: Option<Info>,
    /// When the clock started (the search's start, or `ponderhit`), and the longest gap
    /// seen between two clock checks (the main thread's).
    clock: StallClock,
    clock_running: bool,
    /// The soft time limit's factor, set between iterations by the search's stability
    /// ([`super::Features::stable_time`]); 1 otherwise.
    pub(super) soft_scale: f64,
    pub(super) lmr: Box<[[i32; 64]; 64]>,
    /// `evals[ply]`: the static evaluation of the node at `ply` on the current path
    /// ([`UNKNOWN_EVAL`] in check or when none was computed), for the improving flag.
    pub(super) evals: [i32; MAX_PLY + 2],
    /// `played[ply]`: the move played at `ply` on the current path (`None` for a null
    /// move), for counter moves.
    pub(super) played: [Option<Move>; MAX_PLY + 2],
    /// `moved[ply]`: the piece and square of the move played at `ply` on the current path
    /// (`None` for a null move), for the continuation history.
    pub(super) moved: [Option<u16>; MAX_PLY + 2],
    /// `excluded[ply]`: the move the singular-extension search at `ply` leaves out.
    pub(super) excluded: [Option<Move>; MAX_PLY + 2],
    /// `doubles[ply]`: the double extensions on the path to the node at `ply`.
    pub(super) doubles: [u8; MAX_PLY + 2],
    /// One move list per ply, reused (no initialisation or copying of a list per node).
    pub(super) lists: Vec<ScoredMoves>,
    /// Whether static evaluations may be stored in and read from the table: only when the
    /// evaluation depends on the position alone (not the paper's root-filled tables).
    table_evals: bool,
    /// Evaluations by key (direct-mapped, [`EVAL_CACHE`] slots), when `table_evals`: a
    /// position met again (transpositions, re-searches, the next iteration) is not
    /// evaluated again.
    eval_cache: Vec<(u64, i32)>,
    /// The correction history ([`Features::correction_history`]): per pawn structure and
    /// side to move ([`CORRECTION_SLOTS`] of each), the average of (search result − static
    /// evaluation) in 1/[`CORRECTION_GRAIN`] centipawns; empty without the feature.
    correction: Vec<i32>,
}

/// [`Worker::evals`] of a node with no static evaluation.
pub(super) const UNKNOWN_EVAL: i32 = i32::MIN;

/// Slots of a thread's evaluation cache (256 KiB: it stays in the core's L2 cache).
const EVAL_CACHE: usize = 1 << 14;

/// Pawn structures in a thread's correction history, per side to move (a power of two).
const CORRECTION_SLOTS: usize = 1 << 14;

/// Corrections are kept in 1/256 centipawns, so that small updates accumulate.
const CORRECTION_GRAIN: i32 = 256;

/// The largest correction, in centipawns.
const CORRECTION_LIMIT: i32 = 64;

/// An update moves a correction at most this share (in 1/256) towards a search's
/// difference; deeper searches weigh more, up to this.
const CORRECTION_MAX_WEIGHT: i32 = 16;

/// The correction history's slot of `board`: its pawns (both colours mixed into one
/// index) and the side to move.
fn correction_slot(board: &Board) -> usize {
    let white = board.colored_pieces(Color::White, Piece::Pawn).0;
    let black = board.colored_pieces(Color::Black, Piece::Pawn).0;
    // Two odd multipliers spread the bitboards' bits over the high bits kept.
    let mixed = (white ^ black.rotate_left(29).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_mul(0xD6E8_FEB8_6659_FD93);
    let pawns = (mixed >> (64 - CORRECTION_SLOTS.trailing_zeros())) as usize;
    pawns * 2 + board.side_to_move() as usize
}

/// A correction `c` (in 1/[`CORRECTION_GRAIN`] cp) moved towards `difference` cp (a search's
/// result minus the static evaluation) by a share growing with the search's `depth`, up to
/// [`CORRECTION_MAX_WEIGHT`]/256; the result stays within ±[`CORRECTION_LIMIT`] cp.
fn corrected_towards(c: i32, difference: i32, depth: i32) -> i32 {
    let limit = CORRECTION_LIMIT * CORRECTION_GRAIN;
    let target = difference.clamp(-2 * CORRECTION_LIMIT, 2 * CORRECTION_LIMIT) * CORRECTION_GRAIN;
    let weight = (depth + 1).clamp(1, CORRECTION_MAX_WEIGHT);
    ((c * (256 - weight) + target * weight) / 256).clamp(-limit, limit)
}

impl<'a, E: SearchEntry> Worker<'a, E> {
    pub(super) fn new(
        pos: Position,
        table: Option<&'a Table<E>>,
        config: &SearchConfig,
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
            scheme: table.map(|t| t.shape().config.scheme),
            features: config.features,
            exact_depth_probing: config.exact_depth_probing,
            quiescence_in_subtree: config.quiescence_in_subtree,
            keep_move: config.features.keep_move
                && table.is_some_and(|t| !Scheme::PAPER.contains(&t.shape().config.scheme)),
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
            clock: StallClock::new(shared.start),
            clock_running: !shared.control.is_pondering(),
            soft_scale: 1.0,
            lmr,
            evals: [UNKNOWN_EVAL; MAX_PLY + 2],
            played: [None; MAX_PLY + 2],
            excluded: [None; MAX_PLY + 2],
            doubles: [0; MAX_PLY + 2],
            moved: [None; MAX_PLY + 2],
            lists: (0..=MAX_PLY).map(|_| ScoredMoves::new()).collect(),
            table_evals: matches!(evaluator, Evaluator::Tapered),
            eval_cache: if matches!(evaluator, Evaluator::Tapered) {
                vec![(0, 0); EVAL_CACHE]
            } else {
                Vec::new()
            },
            correction: if config.features.correction_history {
                vec![0; 2 * CORRECTION_SLOTS]
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
    pub(super) fn check_stop(&mut self) -> bool {
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
        // The clock every 256 nodes (on a busy machine 1024 nodes can take tens of
        // milliseconds of wall time); the shared node count every 1024.
        if self.nodes & 255 == 0 {
            if self.nodes & 1023 == 0 {
                self.flush_nodes();
            }
            if self.shared.halted() {
                self.stopped = true;
            } else if self.main && self.out_of_time(true) {
                self.shared.halt();
                self.stopped = true;
            }
        }
        self.stopped
    }

    /// Whether the clock says stop: the hard limit inside an iteration (reached, or to be
    /// passed before the next check should it come as late as the longest gap seen between
    /// checks: see [`StallClock`]), the soft one between.
    pub(super) fn out_of_time(&mut self, hard: bool) -> bool {
        let Some(budget) = self.shared.budget else {
            return false;
        };
        let now = Instant::now();
        if !self.clock_running {
            if self.shared.control.is_pondering() {
                return false;
            }
            self.clock_running = true;
            self.clock.restart(now);
        }
        if hard {
            self.clock.check(now, budget.hard)
        } else {
            let soft = budget.soft.mul_f64(self.soft_scale).min(budget.hard);
            self.clock.reached(now, soft)
        }
    }

    #[inline]
    pub(super) fn evaluate(&mut self) -> i32 {
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
    pub(super) fn evaluate_with(&mut self, stored: i16) -> i32 {
        if self.table_evals && stored != NO_EVAL {
            i32::from(stored)
        } else {
            self.evaluate()
        }
    }

    /// The static evaluation `raw` of the current position corrected by the correction
    /// history (unchanged without the feature).
    #[inline]
    pub(super) fn corrected(&self, raw: i32) -> i32 {
        if self.correction.is_empty() {
            return raw;
        }
        raw + self.correction[correction_slot(self.pos.board())] / CORRECTION_GRAIN
    }

    /// Moves the current position's correction towards `result − raw` (a search of
    /// `depth` plies ended at `result` where the static evaluation was `raw`).
    pub(super) fn update_correction(&mut self, raw: i32, result: i32, depth: i32) {
        if self.correction.is_empty() {
            return;
        }
        let slot = correction_slot(self.pos.board());
        self.correction[slot] = corrected_towards(self.correction[slot], result - raw, depth);
    }

    /// What to store as the entry's static evaluation.
    #[inline]
    pub(super) fn eval_to_store(&self, eval: Option<i32>) -> i16 {
        match eval {
            Some(e) if self.table_evals => e.clamp(-30_000, 30_000) as i16,
            _ => NO_EVAL,
        }
    }

    pub(super) fn has_non_pawn_material(&self) -> bool {
        let b = self.pos.board();
        let own = b.colors(b.side_to_move());
        let pawns_and_king = b.pieces(Piece::Pawn) | b.pieces(Piece::King);
        !(own & !pawns_and_king).is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrections_converge_within_their_limit() {
        // Repeated results 40 cp above the evaluation: the correction approaches 40 cp,
        // faster after deeper searches, and never passes it.
        let (mut shallow, mut deep) = (0, 0);
        for _ in 0..20 {
            shallow = corrected_towards(shallow, 40, 1);
            deep = corrected_towards(deep, 40, 12);
        }
        assert!(0 < shallow && shallow < deep && deep < 40 * CORRECTION_GRAIN);
        for _ in 0..2_000 {
            deep = corrected_towards(deep, 40, 12);
        }
        assert!((39 * CORRECTION_GRAIN..=40 * CORRECTION_GRAIN).contains(&deep));
        // Huge differences (a blunder found by search) are bounded.
        let mut c = 0;
        for _ in 0..2_000 {
            c = corrected_towards(c, -5_000, 20);
        }
        assert_eq!(c, -CORRECTION_LIMIT * CORRECTION_GRAIN);
        // And the other way back.
        for _ in 0..2_000 {
            c = corrected_towards(c, 0, 20);
        }
        assert!(c.abs() < CORRECTION_GRAIN);
    }

    #[test]
    fn correction_slots_follow_pawns_and_side_only() {
        let board = |fen: &str| -> Board { fen.parse().expect("a legal FEN") };
        let a = board("4k3/pp3ppp/8/8/8/8/PP3PPP/4K3 w - - 0 1");
        // Same pawns, other pieces: same slot.
        let b = board("r3k2r/pp3ppp/2n5/8/8/5N2/PP3PPP/R3K2R w - - 0 1");
        // Same pawns, other side to move: the other slot of the pair.
        let c = board("4k3/pp3ppp/8/8/8/8/PP3PPP/4K3 b - - 0 1");
        // A pawn moved.
        let d = board("4k3/pp3ppp/8/8/8/P7/1P3PPP/4K3 w - - 0 1");
        assert_eq!(correction_slot(&a), correction_slot(&b));
        assert_eq!(correction_slot(&a) ^ 1, correction_slot(&c));
        assert_ne!(correction_slot(&a), correction_slot(&d));
        assert!(correction_slot(&d) < 2 * CORRECTION_SLOTS);
    }
}
