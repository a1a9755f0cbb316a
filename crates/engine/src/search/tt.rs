//! The table protocol, written once for the main search and quiescence.
//!
//! The table is used as Breuker et al. describe: probe before generating moves; return the
//! stored score when its depth suffices and its bound allows it (exact; lower ≥ beta; upper ≤
//! alpha); otherwise try the stored move first; store after the move loop with the bound the
//! result proves and the best move. The main search does so at every node. Quiescence does
//! so too when [`Features::tt_in_quiescence`](super::Features::tt_in_quiescence) is on (the
//! `full` profile, the default); in the `paper` profile it neither probes nor stores.
//!
//! An entry is trusted only as a whole: if its move is not legal here, the entry belongs to
//! another position (a key collision, a torn write, a crafted file) and none of it is used,
//! neither its score nor its static evaluation, which would otherwise feed the pruning; the
//! failure is counted. Which entry a store replaces is the table's scheme's rule alone (the
//! engine's, [`Scheme::KeepDeep`](transpo::scheme::Scheme::KeepDeep), keeps a deeper entry of the
//! same position from this search; the 1994 schemes always replace it). With
//! [`Features::keep_move`](super::Features::keep_move) (the `full` profile, on the modern
//! schemes) a result without a move carries the move of the entry it replaces.

use cozy_chess::{Board, Move};
use transpo::{Bound, Table};
use transpo_chess::move16;

use super::entry::{SearchEntry, TtData};
use super::score::MATE_BOUND;
use super::worker::Worker;

/// What a node's probe found.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Probe {
    /// The entry for the key, when it is sound (its move, if any, is legal here).
    pub(super) entry: Option<TtData>,
    /// The entry's move, when it has one and the entry is sound.
    pub(super) mv: Option<Move>,
}

/// A node's result, to be stored.
#[derive(Clone, Copy, Debug)]
pub(super) struct NodeResult {
    /// The score found (fail-soft).
    pub(super) best: i32,
    /// The window the node was searched with: `alpha` as it came in, and `beta`.
    pub(super) window: (i32, i32),
    /// The move that raised alpha last, if any.
    pub(super) best_move: Option<Move>,
    /// The move stored on a fail low (an upper bound proves no move best).
    pub(super) move_if_upper: Option<Move>,
    /// The static evaluation (`None` in check or when none was computed).
    pub(super) eval: Option<i32>,
    /// The remaining depth searched (0 in quiescence).
    pub(super) depth: i32,
    /// The subtree size to store (see the `alphabeta` module).
    pub(super) nodes: u64,
}

impl<E: SearchEntry> Worker<'_, E> {
    /// Probes `table` (none: nothing found) for `key`. An entry whose move is not legal here
    /// counts as a failure and is not returned at all.
    #[inline]
    pub(super) fn probe(&mut self, table: Option<&Table<E>>, key: u64) -> Probe {
        let Some(d) = table.and_then(|t| t.probe(key)).map(|entry| entry.data()) else {
            return Probe::default();
        };
        if d.mv == move16::NO_MOVE {
            return Probe {
                entry: Some(d),
                mv: None,
            };
        }
        match move16::decode(d.mv) {
            Some(mv) if self.pos.is_legal(mv) => Probe {
                entry: Some(d),
                mv: Some(mv),
            },
            _ => {
                self.tt_failures += 1;
                Probe::default()
            }
        }
    }

    /// The main search's cut-off by the table at a node of `depth` plies at `ply`, searched
    /// with (`alpha`, `beta`): the stored score, when the entry is deep enough and its bound
    /// settles the node (at a principal-variation node with `pv_exact_cuts`, only an exact
    /// score does). The node's principal variation becomes the entry's move, and its subtree
    /// grows by what the scheme counts for a hit.
    #[inline]
    pub(super) fn table_cutoff(
        &mut self,
        probe: &Probe,
        depth: i32,
        ply: usize,
        (alpha, beta): (i32, i32),
    ) -> Option<i32> {
        let d = probe.entry?;
        let pv_node = beta - alpha > 1;
        if !self.deep_enough(d.depth, depth)
            || pv_node && self.features.pv_exact_cuts && d.bound != Bound::Exact
        {
            return None;
        }
        let stored = table_cut(&d, ply, alpha, beta)?;
        let weight = self.scheme.map_or(1, |s| s.nodes_for_hit(d.nodes)).max(1);
        self.subtree += weight - 1;
        if let Some(mv) = probe.mv {
            self.pv[ply][ply] = Some(mv);
            self.pv_len[ply] = ply + 1;
        }
        Some(stored)
    }

    /// Whether a stored depth is enough to use the entry's score at `depth` plies: at least
    /// as deep, or exactly as deep with `exact_depth_probing`.
    #[inline]
    fn deep_enough(&self, stored: i16, depth: i32) -> bool {
        if self.exact_depth_probing {
            i32::from(stored) == depth
        } else {
            i32::from(stored) >= depth
        }
    }

    /// Stores a node's result in `table` (none: nothing is stored). `existing` is the sound
    /// entry the node's probe found for the same key, if any: with `keep_move`, a result
    /// without a move keeps its move.
    #[inline]
    pub(super) fn store_result(
        &self,
        table: Option<&Table<E>>,
        key: u64,
        existing: Option<TtData>,
        ply: usize,
        result: NodeResult,
    ) {
        let Some(table) = table else { return };
        let (alpha, beta) = result.window;
        let bound = Bound::from_window(result.best, (alpha, beta));
        let mv = if bound == Bound::Upper {
            result.move_if_upper
        } else {
            result.best_move
        };
        let mut data = TtData {
            mv: move16::encode_opt(mv),
            score: TtData::table_score(result.best, ply),
            eval: self.eval_to_store(result.eval),
            depth: result.depth.clamp(0, 255) as i16,
            bound,
            nodes: result.nodes,
        };
        if self.keep_move
            && data.mv == move16::NO_MOVE
            && let Some(old) = existing
        {
            data.mv = old.mv;
        }
        table.store(key, E::from_data(data));
    }
}

/// Starts loading `table`'s bucket for the position after `mv` (legal on `board`, whose key
/// is `key`), so that what the parent does before playing it overlaps the memory access.
#[inline]
pub(super) fn prefetch_child<E: SearchEntry>(
    table: Option<&Table<E>>,
    key: u64,
    board: &Board,
    mv: Move,
) {
    if let Some(table) = table {
        table.prefetch(transpo_chess::zobrist::predict_after_move(key, board, mv));
    }
}

/// The stored score, when the entry's bound settles a node searched with (`alpha`, `beta`)
/// at `ply` (its depth is the caller's question): [`transpo::score::cut`].
#[inline]
pub(super) fn table_cut(d: &TtData, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    transpo::score::cut(i32::from(d.score), d.bound, ply, (alpha, beta), MATE_BOUND)
}
