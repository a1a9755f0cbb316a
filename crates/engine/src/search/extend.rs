//! How deep the main search looks: the extensions and reductions of the `full` profile.
//!
//! A node is searched one ply deeper in check (`check_extension`) and one ply shallower when
//! it has no move to try first (`iir`). The table's move is extended when a reduced search of
//! the other moves fails low below the table's score (`singular`; two plies with
//! `double_extension`, at most [`MAX_DOUBLE_EXTENSIONS`] times on a path), shortened when it
//! neither extends nor cuts but the table's score reaches beta (`singular_negative`), and the
//! node is cut when the other moves reach beta too (multi-cut). Late quiet moves are reduced
//! (`lmr`, with `lmr_early`, `improving`, `tt_capture_lmr` and `lmr_history` adjusting by how
//! much). The `paper` profile does none of this: every move is searched to the node's depth.

use std::ops::ControlFlow;

use cozy_chess::Move;
use transpo::Bound;

use super::entry::SearchEntry;
use super::node::Node;
use super::ordering::MAX_PLY;
use super::score::MATE_BOUND;
use super::tt::Probe;
use super::worker::Worker;

/// Depth from which the table's move may be extended as singular.
const SINGULAR_DEPTH: i32 = 7;

/// How far below the singular window the other moves must fail for a double extension.
const DOUBLE_MARGIN: i32 = 20;

/// Double extensions allowed on one path (they would otherwise make the search explode).
const MAX_DOUBLE_EXTENSIONS: u8 = 6;

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

impl<E: SearchEntry> Worker<'_, E> {
    /// The depth of a node reached with `depth` plies left at `ply`: one more in check
    /// (`check_extension`, in the first half of the ply range only).
    #[inline]
    pub(super) fn check_extended(&self, depth: i32, ply: usize, in_check: bool) -> i32 {
        if in_check && self.features.check_extension && ply < MAX_PLY / 2 {
            depth + 1
        } else {
            depth
        }
    }

    /// The depth of a node with no move to try first (neither a table move nor a previous
    /// principal-variation move): one less with `iir` from 4 plies, out of check.
    #[inline]
    pub(super) fn internally_reduced(&self, depth: i32, in_check: bool, has_first: bool) -> i32 {
        if self.features.iir && depth >= 4 && !in_check && !has_first {
            depth - 1
        } else {
            depth
        }
    }

    /// The table's score at a node of `depth` plies, when the table's move may be extended
    /// as singular: the entry is a lower bound or exact, not much shallower than the node,
    /// and no mate score.
    pub(super) fn singular_candidate(&self, probe: &Probe, depth: i32, ply: usize) -> Option<i32> {
        let d = probe.entry?;
        probe.mv?;
        if !self.features.singular
            || ply == 0
            || ply >= MAX_PLY / 2
            || self.excluded[ply].is_some()
            || depth < SINGULAR_DEPTH
            || d.bound == Bound::Upper
            || i32::from(d.depth) < depth - 3
        {
            return None;
        }
        let stored = d.score_at(ply);
        (stored.abs() < MATE_BOUND).then_some(stored)
    }

    /// The extension of the table's move `mv` at `node` (not played yet), whose table score
    /// is `tt_score`: `Continue(plies)`, −1 to 2, or `Break(score)` when the other moves
    /// refute the node too (multi-cut) and it ends with that lower bound. `None` if the
    /// search was stopped.
    pub(super) fn singular_extension(
        &mut self,
        node: &Node,
        mv: Move,
        tt_score: i32,
    ) -> Option<ControlFlow<i32, i32>> {
        Some(match self.singular(node, mv, tt_score)? {
            Singular::Extend => ControlFlow::Continue(1),
            Singular::ExtendTwice => ControlFlow::Continue(2),
            Singular::Cut(score) => ControlFlow::Break(score),
            Singular::Plain if self.features.singular_negative && tt_score >= node.beta => {
                ControlFlow::Continue(-1)
            }
            Singular::Plain => ControlFlow::Continue(0),
        })
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

    /// Plies of reduction the ordering's knowledge of the quiet move `mv` saves (with
    /// `lmr_history`; 0 otherwise and for other moves): one for a killer or the counter
    /// move, and up to two (or minus two) by `learned`, its history score.
    #[inline]
    pub(super) fn known(&self, mv: Move, quiet: bool, learned: i32, node: &Node) -> i32 {
        if self.features.lmr_history && quiet {
            let liked = self.heuristics.is_killer(mv, node.ply) || Some(mv) == node.counter;
            learned / 16_384 + i32::from(liked)
        } else {
            0
        }
    }

    /// The late-move reduction of the `searched`-th move of `node` (from 0), in plies, at
    /// least 0 and at most `depth − 2`: only quiet moves that give no check (`reducible`),
    /// from the third or fourth move on, out of check; `known` as [`Worker::known`] says.
    pub(super) fn late_move_reduction(
        &self,
        node: &Node,
        searched: usize,
        reducible: bool,
        known: i32,
    ) -> i32 {
        let depth = node.depth;
        let first_reduced = if self.features.lmr_early && !node.pv_node {
            2
        } else {
            3
        };
        if !self.features.lmr
            || depth < 3
            || searched < first_reduced
            || !reducible
            || node.in_check
        {
            return 0;
        }
        let mut r = self.lmr[depth.min(63) as usize][searched.min(63)];
        if node.pv_node {
            r -= 1;
        }
        if self.features.improving && !node.improving {
            r += 1;
        }
        r += i32::from(node.tt_capture);
        r -= known;
        r.clamp(0, depth - 2)
    }
}
