//! How a run under MPI is set, as plain values: from the board, the ranks, the threads of
//! each and the knobs set, the manager's [`Setup`] (leaf depth, grouping, release rule,
//! guesses, the dispatch's policy), which bounds pass between workers and which are kept
//! for the state file, whether a worker's threads search jobs of their own and help each
//! other, and how long a rank yields after a message.
//!
//! Why a module of its own: these are the cluster's defaults meeting its knobs, and a wrong
//! one (a leaf depth counted for the wrong number of searches) costs a whole run's speed
//! without any error. The pump (`commands/mpi/`) reads the knobs
//! ([`Knobs::from_env`]) and passes them in; tests reach the rules here without
//! MPI. The rules themselves are stated once, in [`super`] ([`leaf_empties`],
//! [`alone_before_release`], [`main_line_stones`], [`guesses`], [`helps`]).

use super::dispatch::Policy;
use super::foreman::Crew;
use super::manager::{STATE_EVERY, Setup};
use super::pace::Pace;
use super::worker::Route;
use super::{
    CREW_AHEAD, CREW_BESIDE, CREW_DEEPEN, CREW_GUESSES, GROUP, alone_before_release,
    crew_leaf_stones, crew_manager_guesses, crew_spare, deepen, guesses, helps, leaf_empties,
    leaf_stones, main_line_stones,
};
use crate::knobs::Knobs;
use std::time::Duration;
use transpo_connect4::score::Strength;

/// How many stones below a job the bounds its worker proves still pass to the other
/// workers, by default: it trades the positions deeper bounds save against the time they
/// take to journal, send and store (measured: docs/connect4/mpi.md, 2026-11-27, “workers
/// pass each other bounds”, and 2026-11-28, “the cluster in virtual time”).
pub const SHARE_BELOW_LEAF: u32 = 10;

/// How many stones below a job the bounds its worker proves still go to the manager for the
/// state file: a resumed solve's workers start from them. Shallower loses more of a killed
/// solve's work; deeper fills the kept bounds within seconds and slows the file's writes.
/// Counted from jobs [`super::LEAF_STONES`] deep at most: bigger jobs (one or two searches)
/// keep as deep as those, which lost less at a kill (measured: docs/connect4/mpi.md,
/// 2026-11-28, “a kill loses less” and “bigger jobs for one or two searches”).
pub const KEEP_BELOW_LEAF: u32 = 14;

/// What every rank of a run is set to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The manager's.
    pub manager: Setup,
    /// Empty squares from which a worker's bounds pass to the other workers.
    pub shared_empties: u32,
    /// Empty squares from which a worker journals its bounds: those that pass, or deeper
    /// with a state file, which keeps them.
    pub journal_empties: u32,
    /// The workers of the run (the ranks but the manager).
    pub workers: usize,
    /// With a state file, which keeps every bound a worker journals: the empty squares from
    /// which they pass between workers ([`Route::keep`]).
    pub keep: Option<u32>,
    /// Whether a worker's threads each search a job of their own (lanes).
    pub lanes: bool,
    /// Whether a lane without a job helps the others'.
    pub help: bool,
    /// How a worker of lanes splits the manager's jobs over them, if it does.
    pub crew: Option<Crew>,
    /// How long a rank yields after a message before it sleeps between looks.
    pub spin: Duration,
}

impl Plan {
    /// The plan of a run of `ranks` ranks (the manager and its workers) on a board of
    /// `squares` squares, each worker of `threads` threads, solving at `strength`;
    /// `keeping`: with a state file. A knob set overrides the default it names.
    pub fn new(
        squares: u32,
        ranks: usize,
        threads: usize,
        strength: Strength,
        keeping: bool,
        knobs: &Knobs,
    ) -> Plan {
        let lanes = Knobs::flag(knobs.lanes).unwrap_or(true) && threads > 1;
        // Off unless the knob says: no real run has timed it (docs/connect4/mpi.md,
        // 2026-11-30, “a worker that splits its job over its lanes”).
        let stones = knobs.crew.unwrap_or(0);
        let crew = (lanes && stones > 0).then_some(Crew {
            lanes: threads,
            stones,
            deepen: CREW_DEEPEN,
            alone: alone_before_release(threads),
            guesses: CREW_GUESSES,
            group: GROUP,
            spare: crew_spare(threads),
            beside: CREW_BESIDE,
        });
        let help = crew.is_none() && Knobs::flag(knobs.help).unwrap_or(helps(threads));
        // A worker of lanes is that many searches at once: it is held as many jobs, and
        // the leaf depth and the release rule count its lanes as workers; unless it splits
        // the manager's jobs itself, when it is one search.
        let per_worker = if lanes && crew.is_none() { threads } else { 1 };
        let workers = ranks.saturating_sub(1);
        let searches = workers.saturating_mul(per_worker);
        // The leaf depth in stones and the guesses: with a crew, shallower jobs and a guess a
        // worker ([`crew_leaf_stones`], [`crew_manager_guesses`]).
        let (stones, default_guesses) = match crew {
            Some(_) => (crew_leaf_stones(workers), crew_manager_guesses(workers)),
            None => (leaf_stones(searches), guesses(workers, lanes)),
        };
        let leaf = knobs.leaf.unwrap_or(squares.saturating_sub(stones));
        let shared_empties = knobs.share.unwrap_or(leaf.saturating_sub(SHARE_BELOW_LEAF));
        let journal_empties = if keeping {
            // Kept as deep below jobs of many searches' depth, whatever this run's.
            let many_deep = leaf.min(leaf_empties(squares, usize::MAX));
            shared_empties.min(many_deep.saturating_sub(KEEP_BELOW_LEAF))
        } else {
            shared_empties
        };
        let alone = knobs.alone.unwrap_or(alone_before_release(searches));
        let default = Policy::default();
        let manager = Setup {
            strength,
            leaf_empties: leaf,
            group: knobs.group.map_or(GROUP, |g| g as usize),
            alone,
            alone_all: knobs.alone_all.unwrap_or(alone),
            main_line: main_line_stones(searches),
            guesses: knobs.guess.map_or(default_guesses, |g| g as usize),
            deepen: deepen(searches),
            searches,
            policy: Policy {
                ahead: knobs.ahead.map_or(
                    match crew {
                        Some(_) => CREW_AHEAD,
                        None => default.ahead.max(per_worker),
                    },
                    |a| a as usize,
                ),
                steal: Knobs::flag(knobs.steal).unwrap_or(default.steal),
                serial: Knobs::flag(knobs.serial).unwrap_or(default.serial),
            },
            state_every: knobs.state_ms.map_or(STATE_EVERY, Duration::from_millis),
        };
        Plan {
            manager,
            shared_empties,
            journal_empties,
            workers,
            keep: keeping.then_some(shared_empties),
            lanes,
            help,
            crew,
            spin: knobs.spin_us.map_or(Pace::SPIN, Duration::from_micros),
        }
    }
}

impl Plan {
    /// Where worker `me`'s bounds go ([`Route`]): along the tree to the other workers, and
    /// to the manager with a state file.
    pub fn route(&self, me: usize) -> Route {
        Route {
            me,
            workers: self.workers,
            keep: self.keep,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{CREW_LEAF_STONES, DEEPEN_STONES};

    fn plan(squares: u32, ranks: usize, threads: usize, keeping: bool, knobs: Knobs) -> Plan {
        Plan::new(squares, ranks, threads, Strength::Strong, keeping, &knobs)
    }

    /// Two one-thread workers on 8×5: big jobs, the main line deeper, two children before a
    /// release, one job held; bounds pass from ten stones below the job.
    #[test]
    fn two_one_thread_workers_take_big_jobs() {
        let p = plan(40, 3, 1, false, Knobs::default());
        assert_eq!(p.manager.deepen, 0);
        assert_eq!(p.manager.leaf_empties, 35);
        assert_eq!(p.manager.main_line, 2);
        assert_eq!(p.manager.alone, 2);
        assert_eq!(p.manager.alone_all, 2);
        assert_eq!(p.manager.group, GROUP);
        assert_eq!(p.manager.policy, Policy::default());
        assert_eq!(p.manager.state_every, STATE_EVERY);
        assert_eq!((p.shared_empties, p.journal_empties), (25, 25));
        assert_eq!(p.keep, None);
        assert!(!p.lanes && !p.help);
        assert_eq!(p.manager.guesses, 2);
        assert_eq!(p.spin, Pace::SPIN);
    }

    /// Sixteen one-thread workers: jobs eight stones deep, released after one child.
    #[test]
    fn sixteen_workers_take_jobs_eight_stones_deep() {
        let p = plan(42, 17, 1, false, Knobs::default());
        assert_eq!(p.manager.leaf_empties, 34);
        assert_eq!(p.manager.main_line, 0);
        assert_eq!(p.manager.alone, alone_before_release(16));
        assert_eq!(p.manager.alone_all, p.manager.alone);
        assert_eq!(p.shared_empties, 24);
        assert_eq!(p.manager.guesses, 0);
    }

    /// A worker's lanes count as searches: one worker of four threads is four searches, held
    /// four jobs, and its idle lanes help; of eight, they do not; with lanes off (the knob),
    /// one worker of any threads is one search.
    #[test]
    fn lanes_count_as_searches() {
        let four = plan(42, 2, 4, false, Knobs::default());
        assert!(four.lanes && four.help);
        assert_eq!(four.manager.leaf_empties, 34);
        assert_eq!(four.manager.alone, alone_before_release(4));
        assert_eq!(four.manager.policy.ahead, 4);
        assert_eq!(four.manager.guesses, 0);
        let eight = plan(42, 3, 8, false, Knobs::default());
        assert!(eight.lanes && !eight.help);
        assert_eq!(eight.manager.alone, alone_before_release(16));
        assert_eq!(
            (eight.manager.searches, eight.manager.deepen),
            (16, 0),
            "16 searches split no job deeper"
        );
        // Sixteen workers of four lanes are 64 searches: new jobs split deeper.
        let many = plan(42, 17, 4, false, Knobs::default());
        assert_eq!(
            (many.manager.searches, many.manager.deepen),
            (64, DEEPEN_STONES)
        );
        let off = Knobs {
            lanes: Some(0),
            ..Knobs::default()
        };
        let whole = plan(42, 2, 16, false, off);
        assert!(!whole.lanes);
        assert_eq!(whole.manager.guesses, 1);
        assert_eq!(whole.manager.leaf_empties, 37);
        assert_eq!(whole.manager.policy.ahead, 1);
        // One thread has no lanes, whatever the knob says.
        let one = Knobs {
            lanes: Some(1),
            ..Knobs::default()
        };
        assert!(!plan(42, 3, 1, false, one).lanes);
    }

    /// A worker that splits the manager's jobs over its lanes (the knob) is one search to
    /// the manager: held two jobs, the release rule of as many searches as workers, jobs at
    /// most [`CREW_LEAF_STONES`] deep and a guess a worker; its crew has its lanes, and its
    /// idle lanes do not help (the crew's jobs keep them busy). Off by default, and for a
    /// worker without lanes.
    #[test]
    fn a_crew_makes_a_worker_one_search() {
        let knobs = || Knobs {
            crew: Some(2),
            ..Knobs::default()
        };
        let p = plan(40, 17, 16, false, knobs());
        let crew = p.crew.expect("a crew");
        assert_eq!((crew.lanes, crew.stones, crew.deepen), (16, 2, CREW_DEEPEN));
        assert_eq!(crew.beside, CREW_BESIDE);
        assert_eq!(p.manager.searches, 16);
        assert_eq!(p.manager.policy.ahead, CREW_AHEAD);
        // Its jobs shallower than sixteen searches' and a guess a worker.
        assert_eq!(p.manager.leaf_empties, 40 - CREW_LEAF_STONES);
        assert!(p.manager.leaf_empties > leaf_empties(40, 16));
        assert_eq!(p.manager.guesses, 16);
        assert_eq!(p.manager.deepen, deepen(16));
        // Two workers of a crew: as deep as two searches' jobs, which are shallower.
        let two = plan(40, 3, 8, false, knobs());
        assert_eq!(two.manager.leaf_empties, leaf_empties(40, 2));
        assert_eq!(two.manager.guesses, 2);
        // The knobs still win.
        let set = Knobs {
            leaf: Some(30),
            guess: Some(0),
            ..knobs()
        };
        let p = plan(40, 17, 16, false, set);
        assert_eq!((p.manager.leaf_empties, p.manager.guesses), (30, 0));
        assert!(p.lanes && !p.help);
        assert_eq!(plan(40, 17, 16, false, Knobs::default()).crew, None);
        assert_eq!(plan(40, 17, 1, false, knobs()).crew, None);
        let off = Knobs {
            lanes: Some(0),
            ..knobs()
        };
        assert_eq!(plan(40, 3, 8, false, off).crew, None);
    }

    /// With a state file, workers journal 14 stones below jobs at most eight stones deep,
    /// send the manager all of it, and pass on only the bounds from the shared depth.
    #[test]
    fn a_state_file_keeps_deeper_than_what_passes() {
        let p = plan(40, 3, 1, true, Knobs::default());
        assert_eq!(p.journal_empties, 32 - KEEP_BELOW_LEAF);
        assert_eq!(p.shared_empties, 25);
        assert_eq!(p.keep, Some(25));
        let sixteen = plan(40, 17, 1, true, Knobs::default());
        assert_eq!(sixteen.journal_empties, 18);
        // Bounds shared from deeper than kept: the journal is what passes.
        let deep_share = Knobs {
            share: Some(10),
            ..Knobs::default()
        };
        let p = plan(40, 17, 1, true, deep_share);
        assert_eq!((p.journal_empties, p.keep), (10, Some(10)));
        assert_eq!(p.route(3).keep, Some(10));
        assert_eq!((p.route(3).me, p.route(3).workers), (3, 16));
    }

    /// Every knob set overrides its default; the shared depth follows a leaf set.
    #[test]
    fn knobs_override_their_defaults() {
        let knobs = Knobs {
            leaf: Some(30),
            share: None,
            group: Some(0),
            alone: Some(5),
            alone_all: Some(1),
            ahead: Some(3),
            steal: Some(0),
            serial: Some(1),
            lanes: None,
            help: Some(0),
            state_ms: Some(250),
            spin_us: Some(0),
            guess: Some(2),
            ..Knobs::default()
        };
        let p = plan(40, 5, 4, false, knobs);
        assert_eq!(p.manager.leaf_empties, 30);
        assert_eq!(p.shared_empties, 20);
        assert_eq!(p.manager.group, 0);
        assert_eq!(p.manager.alone, 5);
        assert_eq!(p.manager.alone_all, 1);
        assert_eq!(p.manager.policy.ahead, 3);
        assert!(!p.manager.policy.steal && p.manager.policy.serial);
        assert!(p.lanes && !p.help);
        assert_eq!(p.manager.state_every, Duration::from_millis(250));
        assert_eq!(p.spin, Duration::ZERO);
        assert_eq!(p.manager.guesses, 2);
        // A release rule set for all nodes holds at those that need all too.
        let alone = Knobs {
            alone: Some(3),
            ..Knobs::default()
        };
        assert_eq!(plan(40, 17, 1, false, alone).manager.alone_all, 3);
    }

    /// Small boards and huge counts saturate instead of overflowing.
    #[test]
    fn small_boards_and_huge_counts_saturate() {
        let p = plan(16, usize::MAX, usize::MAX, true, Knobs::default());
        assert_eq!(p.manager.leaf_empties, 8);
        assert_eq!((p.shared_empties, p.journal_empties), (0, 0));
        let p = plan(4, 17, 1, false, Knobs::default());
        assert_eq!(p.manager.leaf_empties, 0);
    }
}
