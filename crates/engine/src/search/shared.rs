//! What the threads of one search share besides the table: the stop flags, the node total,
//! the deepest finished iteration, the clock and the limits.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use cozy_chess::Move;

use super::limits::{Control, TimeBudget};

/// What the threads of one search share.
pub(super) struct Shared<'a> {
    pub(super) control: &'a Control,
    /// Set when the search must end (a limit was reached or the main thread finished).
    halt: AtomicBool,
    pub(super) total_nodes: AtomicU64,
    /// The deepest iteration any thread has finished.
    completed: AtomicU32,
    pub(super) start: Instant,
    pub(super) budget: Option<TimeBudget>,
    pub(super) node_limit: Option<u64>,
    /// The root moves the search may play (`go searchmoves`); empty: any.
    root_moves: Vec<Move>,
}

impl<'a> Shared<'a> {
    /// A search steered by `control`, started at `start`, within a time `budget` and a
    /// `node_limit` (either may be absent), playing one of `root_moves` (any when empty).
    pub(super) fn new(
        control: &'a Control,
        start: Instant,
        budget: Option<TimeBudget>,
        node_limit: Option<u64>,
        root_moves: Vec<Move>,
    ) -> Self {
        Shared {
            control,
            halt: AtomicBool::new(false),
            total_nodes: AtomicU64::new(0),
            completed: AtomicU32::new(0),
            start,
            budget,
            node_limit,
            root_moves,
        }
    }

    /// Whether the root move `mv` is searched: any move, unless `go searchmoves` named some.
    pub(super) fn searches_at_root(&self, mv: Move) -> bool {
        self.root_moves.is_empty() || self.root_moves.contains(&mv)
    }

    /// Ends the search on every thread.
    pub(super) fn halt(&self) {
        self.halt.store(true, Relaxed);
    }

    /// Whether the search must end: halted, or stopped from outside.
    pub(super) fn halted(&self) -> bool {
        self.halt.load(Relaxed) || self.control.is_stopped()
    }

    /// Records that a thread finished iteration `depth`.
    pub(super) fn completed(&self, depth: u32) {
        self.completed.fetch_max(depth, Relaxed);
    }
}
