//! What a search reports: scores (mates and evaluations), iteration info and the result.

use std::fmt;
use std::time::Duration;

use cozy_chess::Move;

use super::ordering;

/// The score of a won position: mate at the root. Mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 32_000;
/// Scores beyond this (in absolute value) are mates; the rest are evaluations.
pub const MATE_BOUND: i32 = MATE - ordering::MAX_PLY as i32 - 2;
/// Larger than any score.
pub const INFINITY: i32 = MATE + 1;
/// Deepest iteration a search runs.
pub const MAX_DEPTH: u32 = 100;

/// A score as UCI reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns for the side to move.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

impl Score {
    /// The UCI form of a search score.
    pub fn from_internal(score: i32) -> Self {
        if score >= MATE_BOUND {
            Score::Mate((MATE - score + 1) / 2)
        } else if score <= -MATE_BOUND {
            Score::Mate(-(MATE + score) / 2)
        } else {
            Score::Cp(score)
        }
    }
}

impl fmt::Display for Score {
    /// `cp N` or `mate N`, as in UCI info lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// Progress after each finished iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// Iteration depth.
    pub depth: u32,
    /// Deepest ply reached (quiescence included).
    pub seldepth: u32,
    /// Score for the side to move.
    pub score: Score,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Table fill in permille (0 without a table).
    pub hashfull: u16,
    /// Time since the search began.
    pub time: Duration,
    /// Principal variation in UCI move text.
    pub pv: Vec<String>,
}

impl fmt::Display for Info {
    /// The UCI `info` line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "info depth {} seldepth {} score {} nodes {} nps {} hashfull {} time {} pv {}",
            self.depth,
            self.seldepth,
            self.score,
            self.nodes,
            self.nps,
            self.hashfull,
            self.time.as_millis(),
            self.pv.join(" ")
        )
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play: always legal; `None` only when there is no legal move.
    pub best_move: Option<Move>,
    /// The principal variation (starting with the best move when the last iteration set it).
    pub pv: Vec<Move>,
    /// The score of the last finished iteration, in internal units (see [`MATE`]).
    pub raw_score: i32,
    /// The score as UCI reports it.
    pub score: Score,
    /// The deepest finished iteration (0 if stopped before the first finished).
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched by all threads: every node, interior and leaf, quiescence included.
    pub nodes: u64,
    /// Of those, the quiescence nodes.
    pub qnodes: u64,
    /// Table moves that were not legal in the position they were found for (detected
    /// type-1 errors, or torn entries between threads).
    pub tt_move_failures: u64,
    /// Time taken.
    pub time: Duration,
    /// The UCI text of the moves, from the root position.
    pub(crate) uci: Vec<String>,
}

impl SearchResult {
    /// The best move as UCI text (`None` when there is no legal move: print `0000`).
    pub fn best_move_uci(&self) -> Option<String> {
        self.uci.first().cloned()
    }

    /// The principal variation as UCI text.
    pub fn pv_uci(&self) -> &[String] {
        &self.uci
    }

    /// The move to ponder on: the PV's second move, if any.
    pub fn ponder_uci(&self) -> Option<&str> {
        self.uci.get(1).map(String::as_str)
    }
}
