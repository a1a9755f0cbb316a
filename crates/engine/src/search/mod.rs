//! The search: iterative-deepening principal-variation alpha-beta on the shared table.
//!
//! Files, one idea each: [`entry`] (what the search keeps in a table entry, for any entry
//! layout; moves in the 16 bits of [`transpo_chess::move16`], the Polyglot books' encoding), [`limits`] (limits, stop flags, time budgets),
//! [`ordering`] (move ordering), [`see`] (static exchange evaluation), `worker` (one
//! thread's state, stop checks and evaluation cache), `alphabeta` (its negamax), `quiesce`
//! (its quiescence), `tt` (the table protocol both use: probe, cut-off, store), `shared`
//! (what the threads of a search share besides the table) and `smp`
//! (iterative deepening, aspiration windows, Lazy SMP threads sharing one table).
//!
//! The table is probed and stored at every node of the main search, and in quiescence too
//! when [`Features::tt_in_quiescence`] is on — in the `full` profile, the default; the
//! `paper` profile (ALIBABA's search) never probes or stores in quiescence.
//!
//! ```
//! use transpo::{ChessEntry, Table};
//! use transpo_chess::Position;
//! use transpo_engine::search::{Limits, SearchConfig, Searcher};
//!
//! let table = Table::<ChessEntry>::with_mib(4)?;
//! let mut pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")?;
//! let searcher = Searcher::new(SearchConfig::default());
//! let result = searcher.search(&mut pos, &Limits::depth(4), Some(&table), &mut |_| {});
//! assert_eq!(result.best_move_uci().as_deref(), Some("a1a8"));
//! assert_eq!(result.score, transpo_engine::search::Score::Mate(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod alphabeta;
pub mod entry;
pub mod limits;
pub mod ordering;
mod quiesce;
pub mod see;
mod shared;
mod smp;
mod tt;
mod worker;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use cozy_chess::Move;
use transpo::Table;

pub use entry::{SearchEntry, TtData};
pub use limits::{Control, Limits, TimeBudget};
pub use smp::nps as smp_nps;

use transpo_chess::Position;

/// The score of a won position: mate at the root. Mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 32_000;
/// Scores beyond this (in absolute value) are mates; the rest are evaluations.
pub const MATE_BOUND: i32 = MATE - ordering::MAX_PLY as i32 - 2;
/// Larger than any score.
pub const INFINITY: i32 = MATE + 1;
/// Deepest iteration a search runs.
pub const MAX_DEPTH: u32 = 100;

/// A search profile: which features the search uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// Exactly ALIBABA's features (Breuker et al. 1994): no pruning beyond alpha-beta,
    /// nothing stored in quiescence, the paper's evaluation. For the lab.
    Paper,
    /// A strong engine: `Paper` plus null move, late-move reductions, check extensions,
    /// (reverse) futility pruning, killer moves and a tapered evaluation.
    Full,
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Profile::Paper => "paper",
            Profile::Full => "full",
        })
    }
}

/// The error of parsing a profile name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownProfile(pub String);

impl fmt::Display for UnknownProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown profile {:?} (expected paper or full)", self.0)
    }
}

impl std::error::Error for UnknownProfile {}

impl std::str::FromStr for Profile {
    type Err = UnknownProfile;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "paper" => Ok(Profile::Paper),
            "full" => Ok(Profile::Full),
            _ => Err(UnknownProfile(s.to_string())),
        }
    }
}

/// The search's features, one switch each, so that each can be measured on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// Null-move pruning.
    pub null_move: bool,
    /// Late-move reductions.
    pub lmr: bool,
    /// Search one ply deeper when in check.
    pub check_extension: bool,
    /// Futility pruning of quiet moves near the leaves and reverse futility pruning.
    pub futility: bool,
    /// Killer moves in the move ordering.
    pub killers: bool,
    /// Quiescence probes and stores the table too (capture sequences transpose a lot).
    pub tt_in_quiescence: bool,
    /// Quiescence skips captures that lose material by static exchange evaluation.
    pub see_pruning: bool,
    /// The tapered evaluation (else the paper's).
    pub tapered_eval: bool,
    /// Internal iterative reduction: a node with no table move to try first searches one
    /// ply shallower (its ordering is poor, and the next iteration finds the entry). Off in
    /// both profiles (no measured gain); switch it on to try it.
    pub iir: bool,
    /// Captures that lose material by static exchange are tried after the quiet moves.
    pub bad_captures_last: bool,
    /// A result does not replace a deeper table entry of the same position (and a result
    /// without a move keeps the entry's move), as Stockfish stores; without it a quiescence
    /// store (depth 0) replaces an entry searched many plies deep. Applies only to the
    /// modern schemes (`depth-age-*`, `priority`): the 1994 schemes keep the paper's rule,
    /// same key always replaces.
    pub keep_deeper: bool,
}

impl Features {
    /// The names [`Features::set`] accepts, one per switch.
    pub const NAMES: [&'static str; 11] = [
        "null_move",
        "lmr",
        "check_extension",
        "futility",
        "killers",
        "tt_in_quiescence",
        "see_pruning",
        "tapered_eval",
        "iir",
        "bad_captures_last",
        "keep_deeper",
    ];

    /// Switches the feature called `name` (one of [`Features::NAMES`]) on or off; an unknown
    /// name is an error naming the known ones.
    pub fn set(&mut self, name: &str, on: bool) -> Result<(), String> {
        let switch = match name.trim() {
            "null_move" => &mut self.null_move,
            "lmr" => &mut self.lmr,
            "check_extension" => &mut self.check_extension,
            "futility" => &mut self.futility,
            "killers" => &mut self.killers,
            "tt_in_quiescence" => &mut self.tt_in_quiescence,
            "see_pruning" => &mut self.see_pruning,
            "tapered_eval" => &mut self.tapered_eval,
            "iir" => &mut self.iir,
            "bad_captures_last" => &mut self.bad_captures_last,
            "keep_deeper" => &mut self.keep_deeper,
            other => {
                return Err(format!(
                    "unknown feature {other:?} (known: {})",
                    Self::NAMES.join(", ")
                ));
            }
        };
        *switch = on;
        Ok(())
    }

    /// The features of a profile.
    pub const fn of(profile: Profile) -> Self {
        let on = matches!(profile, Profile::Full);
        Features {
            null_move: on,
            lmr: on,
            check_extension: on,
            futility: on,
            killers: on,
            see_pruning: on,
            tt_in_quiescence: on,
            tapered_eval: on,
            // Off: neutral in self-play at a fixed node budget (see the README), although it
            // halves the nodes to reach a given depth.
            iir: false,
            bad_captures_last: on,
            keep_deeper: on,
        }
    }
}

/// How a search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// The profile the features came from (reported by UCI).
    pub profile: Profile,
    /// The features used.
    pub features: Features,
    /// Search threads sharing the table (Lazy SMP); 1 is deterministic.
    pub threads: usize,
    /// Use a table score only when its depth equals the remaining depth (not when it is
    /// deeper). With it, the root score at a fixed depth equals the score without a table: a
    /// check of the search's soundness (deeper bounds may legitimately change results).
    pub exact_depth_probing: bool,
    /// Whether quiescence nodes count in the subtree sizes stored with entries (they always
    /// count in [`SearchResult::nodes`]; [`SearchResult::qnodes`] says how many there were).
    pub quiescence_in_subtree: bool,
    /// Time kept back from the clock for communication.
    pub move_overhead: Duration,
}

impl SearchConfig {
    /// One thread with the given profile's features.
    pub const fn with_profile(profile: Profile) -> Self {
        SearchConfig {
            profile,
            features: Features::of(profile),
            threads: 1,
            exact_depth_probing: false,
            quiescence_in_subtree: true,
            move_overhead: Duration::from_millis(10),
        }
    }

    /// The lab's configuration: the `paper` profile, one thread.
    pub const fn paper() -> Self {
        Self::with_profile(Profile::Paper)
    }
}

impl Default for SearchConfig {
    /// The `full` profile, one thread.
    fn default() -> Self {
        Self::with_profile(Profile::Full)
    }
}

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

/// A search with a configuration and a [`Control`] another thread can stop it with.
#[derive(Clone, Debug)]
pub struct Searcher {
    config: SearchConfig,
    control: Arc<Control>,
}

impl Searcher {
    /// A searcher with the given configuration.
    pub fn new(config: SearchConfig) -> Self {
        Searcher {
            config,
            control: Arc::default(),
        }
    }

    /// A searcher steered through an existing [`Control`] (e.g. one a UCI loop keeps).
    pub fn with_control(config: SearchConfig, control: Arc<Control>) -> Self {
        Searcher { config, control }
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The flags that stop a running search or end its pondering.
    pub fn control(&self) -> Arc<Control> {
        Arc::clone(&self.control)
    }

    /// Searches `pos` within `limits`, calling `on_info` after each finished iteration.
    ///
    /// The position's history (the moves played to reach it) is used for repetitions; the
    /// position is the same when the search returns. `table` is shared with any other
    /// searches using it; `None` searches without one. Killer and history tables start empty,
    /// so at one thread the node count depends only on the position, limits and table.
    /// A stop flag already set makes the search return at once (with a legal move).
    pub fn search<E: SearchEntry>(
        &self,
        pos: &mut Position,
        limits: &Limits,
        table: Option<&Table<E>>,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        smp::search(&self.config, &self.control, pos, limits, table, on_info)
    }
}
