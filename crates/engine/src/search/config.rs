//! What a search is asked to do: its profile, features and configuration.

use std::fmt;
use std::time::Duration;

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

impl Profile {
    /// The replacement scheme of the profile's tables: the `paper` profile's is the lab's
    /// baseline, DEPTH-AGE with `k = 8` (its node counts stay as they were); the `full`
    /// profile's keeps deeper entries of the same position ([`super::ENGINE_SCHEME`]).
    pub const fn scheme(self) -> transpo::scheme::Scheme {
        match self {
            Profile::Paper => transpo::scheme::Scheme::DepthAge { k: 8 },
            Profile::Full => super::ENGINE_SCHEME,
        }
    }
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
    /// A result without a move (a fail low) keeps the move of the entry of the same position
    /// it replaces. Applies only to the modern schemes (`depth-age-*`, `keep-deep-*`,
    /// `priority`): the 1994 schemes store what the paper stores. (Whether a deeper entry of
    /// the same position is replaced at all is the scheme's rule: see
    /// [`transpo::scheme::Scheme::KeepDeep`].)
    pub keep_move: bool,
    /// History with gravity: a cut-off's quiet move gains, the quiet moves tried before it
    /// lose, and scores fade towards a bound instead of saturating (else only gains, capped).
    pub history_gravity: bool,
    /// Counter moves: the quiet move that last refuted the previous move is tried after the
    /// killers.
    pub counter_moves: bool,
    /// Late-move pruning: away from the principal variation, near the leaves, quiet moves
    /// beyond a count growing with depth are not searched.
    pub late_move_pruning: bool,
    /// The improving flag: whether the static evaluation rose since the side's previous
    /// move. When it did, reverse futility prunes with a margin one ply smaller; when it did
    /// not, late-move pruning comes sooner and late moves are reduced one ply more.
    pub improving: bool,
    /// Late-move reductions shrink for quiet moves with a good history, killers and the
    /// counter move, and grow for moves with a bad history.
    pub lmr_history: bool,
    /// The static evaluation, for pruning, is corrected by the table's bound: a lower bound
    /// above it or an upper bound below it (or an exact score) is the better estimate.
    pub tt_eval_bound: bool,
    /// The table ends principal-variation nodes only with exact scores (bounds end only
    /// null-window nodes), so the principal variation is searched, not cut short.
    pub pv_exact_cuts: bool,
    /// Singular extensions: the table's move is searched one ply deeper when a reduced
    /// search of the other moves, against a window just below the table's score, fails low
    /// (the table's move is the only good one); when that search fails high above beta
    /// instead, several moves refute the node and it is cut (multi-cut).
    pub singular: bool,
    /// Continuation history: quiet moves are also ordered (and reduced) by how well they did
    /// as replies to the opponent's last move and as follow-ups of the side's own previous
    /// move (indexed by piece and square of both moves).
    pub continuation_history: bool,
    /// Aspiration windows start ±25 cp around the previous iteration's score and widen
    /// step by step on the side that failed (else the paper's: ±1 pawn, then a half-open
    /// window, then the full one).
    pub narrow_aspiration: bool,
    /// The null move's reduction grows with the static evaluation's margin over beta (one
    /// ply per 2 pawns, at most 3).
    pub null_move_margin: bool,
    /// Near the leaves, away from the principal variation, moves after the first that lose
    /// material by static exchange beyond a margin growing with depth are not searched.
    pub main_see_pruning: bool,
    /// On a clock, the time for a move follows the search: the point after which no new
    /// iteration starts moves earlier while the best move stays the same from iteration to
    /// iteration, and later when it changes or the score drops (the time goes where the
    /// position is unclear).
    pub stable_time: bool,
    /// Near the leaves, away from the principal variation, quiet moves after the first whose
    /// history (with continuation history) is badly negative are not searched.
    pub history_pruning: bool,
    /// Negative singular extension: when the singular-extension test neither extends nor
    /// cuts but the table's score is at or above beta, the table's move is searched one ply
    /// shallower (another move probably refutes the node too).
    pub singular_negative: bool,
    /// Razoring: near the leaves, away from the principal variation, a node whose static
    /// evaluation is far below alpha is answered by quiescence when quiescence confirms it
    /// fails low.
    pub razoring: bool,
    /// Late-move reductions start one move earlier away from the principal variation (from
    /// the third move searched, not the fourth).
    pub lmr_early: bool,
    /// Late quiet moves are reduced one ply more when the table's move is a capture or a
    /// promotion (the position is tactical; the quiet moves rarely matter).
    pub tt_capture_lmr: bool,
    /// Double extensions: off the principal variation, a table's move so singular that the
    /// other moves fail low by a margin is searched two plies deeper (a bounded number of
    /// times on a path: see the search's `extend` module).
    pub double_extension: bool,
    /// Correction history: the static evaluation is corrected by how far searches of
    /// positions with the same pawns (and side to move) ended from their own evaluations,
    /// an average each thread keeps during a search and updates from each quiet result
    /// whose bound says on which side of the evaluation the true value lies.
    pub correction_history: bool,
    /// Capture history: captures of equal victims are ordered by how such captures (by
    /// piece, square and victim) did — a cut-off's capture gains, the captures tried before
    /// a cut-off lose — before the attacker's value.
    pub capture_history: bool,
}

impl Features {
    /// The names [`Features::set`] accepts, one per switch.
    pub const NAMES: [&'static str; 32] = [
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
        "keep_move",
        "history_gravity",
        "counter_moves",
        "late_move_pruning",
        "improving",
        "lmr_history",
        "tt_eval_bound",
        "pv_exact_cuts",
        "singular",
        "continuation_history",
        "narrow_aspiration",
        "null_move_margin",
        "main_see_pruning",
        "stable_time",
        "history_pruning",
        "singular_negative",
        "razoring",
        "lmr_early",
        "tt_capture_lmr",
        "double_extension",
        "correction_history",
        "capture_history",
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
            "keep_move" => &mut self.keep_move,
            "history_gravity" => &mut self.history_gravity,
            "counter_moves" => &mut self.counter_moves,
            "late_move_pruning" => &mut self.late_move_pruning,
            "improving" => &mut self.improving,
            "lmr_history" => &mut self.lmr_history,
            "tt_eval_bound" => &mut self.tt_eval_bound,
            "pv_exact_cuts" => &mut self.pv_exact_cuts,
            "singular" => &mut self.singular,
            "continuation_history" => &mut self.continuation_history,
            "narrow_aspiration" => &mut self.narrow_aspiration,
            "null_move_margin" => &mut self.null_move_margin,
            "main_see_pruning" => &mut self.main_see_pruning,
            "stable_time" => &mut self.stable_time,
            "history_pruning" => &mut self.history_pruning,
            "singular_negative" => &mut self.singular_negative,
            "razoring" => &mut self.razoring,
            "lmr_early" => &mut self.lmr_early,
            "tt_capture_lmr" => &mut self.tt_capture_lmr,
            "double_extension" => &mut self.double_extension,
            "correction_history" => &mut self.correction_history,
            "capture_history" => &mut self.capture_history,
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
            keep_move: on,
            history_gravity: on,
            counter_moves: on,
            late_move_pruning: on,
            // Off: −26.7 ± 23.3 Elo in self-play (see the README).
            improving: false,
            lmr_history: on,
            tt_eval_bound: on,
            // Off: −0.6 ± 23.1 Elo in self-play, no gain measured (see the README).
            pv_exact_cuts: false,
            singular: on,
            continuation_history: on,
            narrow_aspiration: on,
            // Off: −12.7 ± 22.6 Elo in self-play (see the README).
            null_move_margin: false,
            main_see_pruning: on,
            stable_time: on,
            // Off: −3.5 ± 22.7 Elo in self-play (−22.6 ± 22.8 pruned harder; see the README).
            history_pruning: false,
            singular_negative: on,
            razoring: on,
            lmr_early: on,
            tt_capture_lmr: on,
            // Off: −1.7 ± 22.9 Elo in self-play, no gain measured (see the README).
            double_extension: false,
            correction_history: on,
            // Off: +4.1 ± 22.4 Elo in self-play, not confirmed against another engine yet
            // (see the README).
            capture_history: false,
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
    /// count in [`super::score::SearchResult::nodes`]; [`super::score::SearchResult::qnodes`] says how many there were).
    pub quiescence_in_subtree: bool,
    /// Time kept back from the clock for communication, once and out of every increment.
    pub move_overhead: Duration,
    /// Time a clocked search never plans on: the clock's last `clock_reserve` (or its last
    /// [`RESERVE_OVERHEADS`](super::limits::RESERVE_OVERHEADS) × `move_overhead`, when
    /// that is more) stays for what a busy machine charges beyond the hard limit (see
    /// [`Limits::time_budget_keeping`](super::Limits::time_budget_keeping)).
    pub clock_reserve: Duration,
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
            clock_reserve: Duration::ZERO,
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
