//! One solve over many machines with a manager that keeps the top of the tree:
//! what the manager decides, apart from how it talks to its workers (`mpirun -np N
//! transpo-c4`, the binary's feature `mpi`).
//!
//! Why this shape: the rounds of [`crate::split`] guess what the root will need, because a
//! batch array cannot talk back, and pay in full for every wrong guess. A manager that hears
//! each answer as it comes need not guess. [`TopTree`] runs the same binary search of null
//! windows as one solve ([`transpo_connect4::solver::Solver`]) over the positions with fewer
//! than its leaf depth's stones, in the solver's move order, keeping every bound it proves in
//! its own table (so no part of the top tree is searched twice); a position at the leaf depth
//! is a [`Job`] for a worker: the position and the exact null window its parent needs now.
//! Young brothers wait (Feldmann's YBW, as the checkers proof and job-level proof-number
//! search do it): a node's younger children are asked for only once its eldest has answered
//! without a cutoff, so the jobs asked are almost exactly those one solve would search. Each
//! call of [`TopTree::step`] replays the search from the root, from the table, down to what
//! is still missing: the jobs needed now. A job asked before and no longer needed has stopped
//! mattering (a brother cut its parent off); the driver drops it. Its answer, if it comes, is
//! still true and still learnt.
//!
//! Transposition-driven placement (Romein, Plaat, Bal and Schaeffer 1999): a job goes to the
//! worker that owns its position's symmetric key ([`owner`]), so a position reached twice
//! meets the same worker's table.
//!
//! Beside the tree ([`TopTree`]): [`dispatch`], which jobs go to which worker; [`manager`],
//! the manager that answers the line protocol with the tree and the workers; [`worker`], a
//! worker as a state machine, and the threads that carry out its orders; [`foreman`], a
//! worker's own top tree that splits the manager's jobs over its lanes; [`sharing`], the
//! bounds the workers pass each other, and [`relay`], the tree they go along; [`wire`], the messages between the ranks; [`state`],
//! the state file (`--state FILE`) that lets a killed solve go on where the last write left
//! it; [`simulate`], the same manager and workers in virtual time, for timing many workers
//! on few cores; [`plan`], what a run's ranks are set to from its size and knobs. None of
//! them speaks MPI: the binary's pump (`commands/mpi/`) carries their messages.

use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::score::Window;

pub mod dispatch;
pub mod foreman;
pub mod manager;
pub mod pace;
pub mod plan;
pub mod relay;
pub mod sharing;
pub mod simulate;
pub mod state;
mod top_tree;
pub mod wire;
pub mod worker;

pub use state::{CurrentLine, State, StateFile, state_config};
pub use top_tree::{Step, TopTree};

/// The default leaf depth of the top tree, in stones from the empty board, with three or
/// more searches at once: a position with at least this many stones is a worker's job
/// ([`leaf_empties`]). Fewer stones make more jobs than the manager's round trips pay for,
/// more make too few jobs to share (measured: docs/connect4/mpi.md, 2026-11-27, “workers
/// pass each other bounds”).
pub const LEAF_STONES: u32 = 8;

/// The default leaf depth, in stones, with one or two searches at once: two can share few
/// and big jobs, and each job costs them a round trip to the manager, so fewer jobs won on
/// every board timed (measured: docs/connect4/mpi.md, 2026-11-28, “bigger jobs for one or
/// two searches”).
pub const FEW_LEAF_STONES: u32 = 5;

/// The default leaf depth in stones for `searches` searches at once (workers times the
/// jobs each searches at once): [`FEW_LEAF_STONES`] up to two, [`LEAF_STONES`] beyond.
pub const fn leaf_stones(searches: usize) -> u32 {
    if searches <= 2 {
        FEW_LEAF_STONES
    } else {
        LEAF_STONES
    }
}

/// How many stones deeper than the leaf depth the jobs on the main line go with one or two
/// searches at once ([`main_line_stones`]).
///
/// Young brothers wait, so where the top tree's search begins (the eldest child of the
/// eldest child, down to a job) and again each time it comes back up its first line, there
/// is one job for two searches, and one of them waits. Splitting those jobs finer gives the
/// other something to do. Deeper, or further off the main line, did no better; with more
/// searches at once, which have other jobs to take, it gained nothing (measured:
/// docs/connect4/mpi.md, 2026-11-28, “the main line split finer”).
pub const MAIN_LINE_STONES: u32 = 2;

/// The extra depth of the main line's jobs ([`TopTree::set_main_line`]) for `searches`
/// searches at once: [`MAIN_LINE_STONES`] up to two (with [`FEW_LEAF_STONES`]), none
/// beyond.
pub const fn main_line_stones(searches: usize) -> u32 {
    if searches <= 2 { MAIN_LINE_STONES } else { 0 }
}

/// Lanes a worker may have for its lanes without a job to help its running jobs, by default
/// ([`helps`]).
///
/// A lane that helps makes a job's search a team's (split points, `pool::SolverPool::help`):
/// the job ends sooner, but its younger children are searched beside a sibling that may cut
/// off. With a few lanes the job ending sooner wins; with eight or more the helpers'
/// speculation costs more than it saves (measured: docs/connect4/mpi.md, 2026-11-28, “idle
/// lanes help”).
pub const HELP_UP_TO_LANES: usize = 4;

/// Whether a worker of `lanes` lanes has its lanes without a job help its running jobs:
/// with two to [`HELP_UP_TO_LANES`].
pub const fn helps(lanes: usize) -> bool {
    lanes > 1 && lanes <= HELP_UP_TO_LANES
}

/// Stones further a worker's own tree splits a job while it needs fewer jobs than its
/// lanes ([`TopTree::set_deepen`]).
pub const CREW_DEEPEN: u32 = 4;

/// Whether a worker's own tree keeps a lane job it splits while it runs beside its
/// children's jobs ([`TopTree::set_beside`]): no. Its lanes share one table, so the job
/// stopped leaves its children what it found. In virtual time, 8×5 strong, 16 workers: at
/// 4 lanes 21.43–22.62× one search with the job giving way against 16.85–18.39× beside
/// (positions 2.52–2.66× against 3.30–3.57×); at 16 lanes 40.33× against 37.52–41.83×
/// (positions 4.71× against 5.12–5.53×); with stopped jobs counted whole, 89.34× against
/// 88.11× at 4 lanes (docs/connect4/mpi.md, 2026-12-01, “a split lane job gives way”).
/// Those runs let a queued lane job start before a lane was free; with that fixed, giving
/// way reads 20.09–22.04× at 4 lanes and 42.94–45.29× at 16 (the same notebook, “the
/// simulator's lanes started queued jobs early”).
pub const CREW_BESIDE: bool = false;

/// Lane jobs a worker's own tree guesses ahead of young brothers wait, for lanes that would
/// otherwise wait ([`TopTree::set_guesses`]). In virtual time, 8×5 strong, 16 workers of 16
/// lanes: 22.30× with none, 26.19× with 8, 26.40× with 16, 27.90× with 32, 27.13× with 64.
/// With a spare lane job a lane and the manager's jobs [`CREW_LEAF_STONES`] deep: 16 lanes
/// 41.11× with 32, 41.83× with 16; 4 lanes 17.29–18.39× with 32, 16.31× with 4
/// (docs/connect4/mpi.md, 2026-12-01).
pub const CREW_GUESSES: usize = 32;

/// Jobs the manager holds a worker that splits its jobs over its lanes: the lanes the first
/// job's tree leaves idle go to the second ([`foreman`]). In virtual time, 8×5 strong, 16
/// workers: 20.18× → 22.18× at 16 lanes, 9.63× → 10.86× at 4; a third gained nothing
/// (docs/connect4/mpi.md, 2026-12-01).
pub const CREW_AHEAD: usize = 2;

/// Lane jobs a worker's own tree gives out beyond one a lane, for a worker of `lanes` lanes:
/// one more a lane ([`foreman`]). They wait in the lanes' queue, and a lane that ends a job
/// takes the next at once instead of waiting for the foreman to take its answer in. In
/// virtual time, 8×5 strong, 16 workers: 28.15× → 31.70× and 32.85× at 16 lanes, 13.33× →
/// 13.90× and 14.42× at 4 (docs/connect4/mpi.md, 2026-12-01). Measured again once queued
/// lane jobs waited for a free lane in the simulator: none, one or two a lane at 4 lanes
/// (20.09–22.04×), one, two or three at 16 (40.81–45.89×), all within the spread of two
/// runs of one setting.
pub const fn crew_spare(lanes: usize) -> usize {
    lanes
}

/// Candidates a step of the top tree looks at for each guess it makes
/// ([`TopTree::guesses`]): enough that guesses at nodes whose eldest answered come first.
pub const CANDIDATES_A_GUESS: usize = 4;

/// One-thread workers up to which the top tree guesses jobs for idle workers by default
/// ([`guesses`]).
pub const GUESS_UP_TO_WORKERS: usize = 2;

/// Jobs the top tree guesses ahead of young brothers wait for workers that would otherwise
/// wait ([`TopTree::set_guesses`]), by default: one a worker for up to
/// [`GUESS_UP_TO_WORKERS`] one-thread workers; none for more, nor for workers of lanes
/// (their idle lanes help their running jobs instead). Workers with a crew have their own
/// rule, [`crew_manager_guesses`].
///
/// A guess runs only on a worker with nothing to search, and is stopped as soon as no step
/// wants it or a needed job could take its worker, so when wrong it costs positions a waiting
/// worker would not have searched. Two one-thread workers were faster with them on every
/// board timed; more workers are left without, as only oversubscribed runs have counted them
/// (more positions with guesses) and only the simulation, which flatters guesses, has timed
/// them (measured: docs/connect4/mpi.md, 2026-11-29, “guesses for idle workers”;
/// `scripts/sixteen.sh` runs 16 workers guessing).
pub const fn guesses(workers: usize, lanes: bool) -> usize {
    if lanes || workers > GUESS_UP_TO_WORKERS {
        0
    } else {
        workers
    }
}

/// The deepest the manager's jobs are by default when each worker splits its jobs over its
/// lanes ([`foreman`], [`crew_leaf_stones`]).
///
/// With a crew the manager's tree has one search a worker, so by [`leaf_stones`] its jobs
/// would be as deep as sixteen one-thread workers' (eight stones), and each worker's tree
/// splits them further. Jobs two stones shallower make the manager's tree smaller (its time
/// on 8×5, 16 × 16: 0.21–0.24 s → 0.022 s, and 0.075–0.087 s with the guesses) and give
/// each worker's tree more to split. In virtual time, 8×5 strong, 16 workers, with
/// [`crew_manager_guesses`]: 16 lanes 31.70–32.85× → 37.52–41.83× (three runs), the manager
/// 25.8–29.9% → 11.4–12.8% of the run; 4 lanes 13.90–14.42× → 17.29–18.39×
/// (docs/connect4/mpi.md, 2026-12-01).
pub const CREW_LEAF_STONES: u32 = 6;

/// The default leaf depth in stones of the manager's jobs for `workers` workers that each
/// split their jobs over their lanes: [`leaf_stones`] for as many searches, but at most
/// [`CREW_LEAF_STONES`].
pub const fn crew_leaf_stones(workers: usize) -> u32 {
    let stones = leaf_stones(workers);
    if stones < CREW_LEAF_STONES {
        stones
    } else {
        CREW_LEAF_STONES
    }
}

/// Jobs the manager guesses ahead of young brothers wait for `workers` workers that each
/// split their jobs over their lanes, by default: one a worker.
///
/// A worker with a crew is held [`CREW_AHEAD`] jobs, and its lanes take the second job's
/// lane jobs only where the first leaves them idle; a guess keeps that second job there
/// when the tree has none needed. In virtual time, 8×5 strong, 16 workers, jobs
/// [`CREW_LEAF_STONES`] deep: at 16 lanes 25.19× with none, 37.94× with 8, 41.11× with
/// 16, 37.40× with 32; at 4 lanes 13.86× with 8, 17.29× with 16, 17.36× with 32
/// (docs/connect4/mpi.md, 2026-12-01).
pub const fn crew_manager_guesses(workers: usize) -> usize {
    workers
}

/// The default leaf depth in empty squares on a board of `squares` squares for `searches`
/// searches at once: the positions [`leaf_stones`] deep.
pub const fn leaf_empties(squares: u32, searches: usize) -> u32 {
    squares.saturating_sub(leaf_stones(searches))
}

/// Searches at once from which the top tree splits its new jobs deeper by default
/// ([`deepen`]).
pub const DEEPEN_FROM_SEARCHES: usize = 64;

/// Stones past the leaf depth the top tree splits a job to by default, from
/// [`DEEPEN_FROM_SEARCHES`] searches at once, while a step needs fewer jobs than the
/// searches ([`TopTree::set_deepen`]).
pub const DEEPEN_STONES: u32 = 4;

/// The stones a job may be split past the leaf depth for `searches` searches at once:
/// [`DEEPEN_STONES`] from [`DEEPEN_FROM_SEARCHES`], none below. In virtual time on 8×5
/// strong, 16 workers of 16 lanes: 12.8× one search unsplit, 18.6× split two stones (new
/// jobs only), 32.0× split four with running jobs split beside themselves; 16 workers of 4
/// lanes 12.8× (two stones, new jobs only) and 16.3× (four, running ones too); 10×4 weak,
/// 16 × 16 21.3× and 39.6×, 16 × 4 12.6× and 17.0×. On 7×5 six stones did worse than four.
/// No real run has timed it (measured: docs/connect4/mpi.md, 2026-11-29, “jobs split
/// deeper”, and 2026-11-30).
pub const fn deepen(searches: usize) -> u32 {
    if searches >= DEEPEN_FROM_SEARCHES {
        DEEPEN_STONES
    } else {
        0
    }
}

/// The default grouping: a job is placed by its ancestor this many stones above it
/// ([`TopTree::new`]), so that neighbouring jobs, whose subtrees meet far below them, meet
/// one worker's table (measured: docs/connect4/mpi.md, 2026-11-27, “first figures”).
pub const GROUP: usize = 2;

/// A worker's search: a position (by its move sequence from the empty board) and the window
/// its parent in the top tree needs of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job<const W: usize, const H: usize, B: Bitboard> {
    /// The position.
    pub position: Position<W, H, B>,
    /// Its move sequence from the empty board (what a worker is sent).
    pub moves: String,
    /// What the search must find out.
    pub window: Window,
    /// The symmetric key of the ancestor [`TopTree`]'s grouping names (the position itself
    /// when it groups by 0): where the job goes ([`owner`]).
    pub group: B,
    /// How speculative the job is: the sum, over the nodes above it, of its ancestor's
    /// place among its brothers (0 for the eldest). A job of rank 0 is on the path one solve
    /// takes first; younger brothers may be cut off by an elder's answer.
    pub rank: u32,
}

impl<const W: usize, const H: usize, B: Bitboard> Job<W, H, B> {
    /// The position's symmetric key: the job's identity in the manager's table.
    pub fn key(&self) -> B {
        self.position.symmetric_key()
    }

    /// Whether an answer to this job (a range that decides its window) also decides
    /// `window`: the asked window holds it.
    pub fn covers(&self, window: Window) -> bool {
        holds(self.window, window)
    }
}

/// Whether a range that decides window `outer` also decides `inner`: `outer` holds it.
fn holds(outer: Window, inner: Window) -> bool {
    outer.alpha <= inner.alpha && inner.beta <= outer.beta
}

/// The worker (of `workers`, numbered from 0) that owns the position whose symmetric key is
/// `key`: its table is where that position's earlier searches left their bounds. The key is
/// mixed first, so that neighbouring keys spread over the workers.
pub fn owner<B: Bitboard>(key: B, workers: usize) -> usize {
    let mixed = (key.fold() ^ (key.fold() >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    // The remainder is below `workers`, a usize.
    ((mixed >> 32) % workers.max(1) as u64) as usize
}

/// The hasher of the top tree's maps: their keys are positions' keys, which no one picks
/// to collide, so a multiply-and-rotate mix serves where the standard library's SipHash
/// (built against chosen keys) made the replays of [`TopTree::step`] slow.
#[derive(Clone, Copy, Debug, Default)]
pub struct KeyHash;

impl std::hash::BuildHasher for KeyHash {
    type Hasher = KeyHasher;

    fn build_hasher(&self) -> KeyHasher {
        KeyHasher(0)
    }
}

/// [`KeyHash`]'s hasher.
#[derive(Clone, Copy, Debug)]
pub struct KeyHasher(u64);

impl KeyHasher {
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(26) ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 31)
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.mix(u64::from(n));
    }

    fn write_i32(&mut self, n: i32) {
        self.mix(u64::from(n as u32));
    }

    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }

    fn write_u128(&mut self, n: u128) {
        self.mix(n as u64);
        self.mix((n >> 64) as u64);
    }
}

/// Children a node of the top tree has answered, the eldest first, before it releases the
/// rest to `workers` workers, by default (`TRANSPO_C4_MPI_ALONE` under `mpirun`, for
/// measuring). One is young brothers wait; but in a null-window search a node whose eldest
/// failed low often still cuts off with a younger child, and every job released beside that
/// one is searched for nothing; waiting for more leaves workers idle, which costs more the
/// more workers wait (as for the threads' split points:
/// `transpo_connect4::parallel::alone_before_split`). So two children for one or two workers
/// and three up to seven, where the positions saved pay; one from eight, where a waiting worker
/// costs more than a job searched for nothing (measured: docs/connect4/mpi.md, 2026-11-27,
/// “the manager's windows and three children before a release”, “sixteen workers on the
/// 16-core machine” and “two children with two workers”).
pub fn alone_before_release(workers: usize) -> u32 {
    match workers {
        0..=2 => 2,
        3..=7 => 3,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_searches_get_bigger_jobs() {
        assert_eq!(leaf_stones(0), FEW_LEAF_STONES);
        assert_eq!(leaf_stones(1), FEW_LEAF_STONES);
        assert_eq!(leaf_stones(2), FEW_LEAF_STONES);
        assert_eq!(leaf_stones(3), LEAF_STONES);
        assert_eq!(leaf_stones(16), LEAF_STONES);
        assert_eq!(leaf_empties(40, 2), 35);
        assert_eq!(leaf_empties(40, 16), 32);
        assert_eq!(leaf_empties(4, 16), 0);
    }
}
