//! Quiescence: below depth 0, stand pat, then captures and promotions (every move when in
//! check), so that a position is evaluated only when it is quiet. The `full` profile probes
//! and stores the table here too (`Features::tt_in_quiescence`), prunes captures that lose
//! material by static exchange or cannot raise alpha (delta pruning), and beyond 6 plies
//! searches recaptures only; the `paper` profile does none of that.

use cozy_chess::{Move, Square};

use super::entry::SearchEntry;
use super::ordering::MAX_PLY;
use super::score::{INFINITY, MATE};
use super::tt::{NodeResult, prefetch_child, table_cut};
use super::worker::Worker;

/// Values for delta pruning in quiescence, pawn … king.
const DELTA_VALUE: [i32; 6] = [100, 325, 325, 500, 900, 0];

impl<E: SearchEntry> Worker<'_, E> {
    /// Quiescence at `ply` from the root, `qply` plies below depth 0; `last_to` is the
    /// square the previous move went to (for recaptures).
    pub(super) fn quiesce(
        &mut self,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qply: u32,
        last_to: Option<Square>,
    ) -> i32 {
        if let Some(score) = self.enter_quiescence(ply) {
            return score;
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
        let (stand, raw_eval) = if in_check {
            (0, None)
        } else {
            let raw = self.evaluate();
            (self.corrected(raw), Some(raw))
        };
        if !in_check && stand >= beta {
            return stand;
        }
        let mut best = if in_check { -INFINITY } else { stand };
        let probe = self.probe(probing, key);
        // Quiescence has depth 0: any entry is deep enough.
        if let Some(d) = probe.entry
            && let Some(stored) = table_cut(&d, ply, alpha, beta)
        {
            return stored;
        }
        alpha = alpha.max(best);
        let mut best_move = None;
        self.lists[ply].fill_tactical(self.pos.board());
        if let Some(mv) = probe.mv {
            self.lists[ply].promote(mv);
        }
        if in_check && self.lists[ply].is_empty() {
            return -MATE + ply as i32;
        }
        while let Some(mv) = self.lists[ply].pick() {
            // Start loading the child's bucket now, so the pruning tests below and playing
            // the move overlap the memory access.
            prefetch_child(probing, key, self.pos.board(), mv);
            if !in_check && self.pruned_in_quiescence(mv, qply, last_to, stand, alpha) {
                continue;
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
        let result = NodeResult {
            best,
            window: (old_alpha, beta),
            best_move,
            // A fail low raised no alpha: there is no best move (and no table move is kept).
            move_if_upper: None,
            eval: raw_eval,
            depth: 0,
            nodes: 1,
        };
        self.store_result(probing, key, probe.entry, ply, result);
        best
    }

    /// Counts a quiescence node at `ply` on entering it (in the node counts, in its subtree
    /// when `quiescence_in_subtree` says so, and in the selective depth), and gives its
    /// score when it ends at once: 0 when the search must stop, the evaluation at the ply
    /// limit.
    #[inline(always)]
    fn enter_quiescence(&mut self, ply: usize) -> Option<i32> {
        self.nodes += 1;
        self.qnodes += 1;
        if self.quiescence_in_subtree {
            self.subtree += 1;
        }
        self.pv_len[ply] = ply;
        if self.check_stop() {
            return Some(0);
        }
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return Some(self.evaluate());
        }
        None
    }

    /// Whether quiescence skips `mv` (not in check; `stand` is the stand-pat score): beyond
    /// 6 plies all but recaptures, captures that lose material by static exchange, and
    /// captures that cannot raise alpha even with a margin (delta pruning).
    fn pruned_in_quiescence(
        &self,
        mv: Move,
        qply: u32,
        last_to: Option<Square>,
        stand: i32,
        alpha: i32,
    ) -> bool {
        // Deep in quiescence, only recaptures: dense positions otherwise explode.
        if self.features.see_pruning && qply >= 6 && Some(mv.to) != last_to {
            return true;
        }
        if self.features.see_pruning
            && mv.promotion.is_none()
            && super::see::loses_material(self.pos.board(), mv)
        {
            return true;
        }
        if self.features.futility && mv.promotion.is_none() {
            let victim = self
                .pos
                .board()
                .piece_on(mv.to)
                .map_or(DELTA_VALUE[0], |p| DELTA_VALUE[p as usize]);
            if stand + victim + 200 <= alpha {
                return true;
            }
        }
        false
    }
}
