//! One solve over many machines with a manager that keeps the top of the tree (issue 47):
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
//! Beside the tree: [`dispatch`], which jobs go to which worker; [`manager`], the manager
//! that answers the line protocol with the tree and the workers; [`worker`], a worker and
//! its search thread; [`wire`], the messages between the ranks; [`state`], the state file
//! (`--state FILE`) that lets a killed solve go on where the last write left it;
//! [`simulate`], the same manager and workers in virtual time, for timing many workers on
//! few cores; [`plan`], what a run's ranks are set to from its size and knobs. None of them
//! speaks MPI: the binary's pump (`commands/mpi/`) carries their messages.

use std::collections::{HashMap, HashSet};
use std::ops::RangeInclusive;
use transpo_connect4::moves::MoveSorter;
use transpo_connect4::position::{Bitboard, Position, column_char};
use transpo_connect4::score::{Window, loss_next_score, win_now_score};

use crate::split::{settled, trivial};

pub mod dispatch;
pub mod manager;
pub mod pace;
pub mod plan;
pub mod simulate;
pub mod state;
pub mod wire;
pub mod worker;

pub use state::{CurrentLine, State, StateFile, state_config};

/// The default leaf depth of the top tree, in stones from the empty board, with three or
/// more searches at once: a position with at least this many stones is a worker's job
/// ([`leaf_empties`]). Measured (docs/connect4/mpi.md): fewer makes more jobs than the
/// manager's round trips pay for (8×5 strong with jobs at 12 stones: 58,489 jobs, 2.3× the
/// time of jobs at 8), more makes too few jobs to share.
pub const LEAF_STONES: u32 = 8;

/// The default leaf depth, in stones, with one or two searches at once: two can share few
/// and big jobs, and each job costs them a round trip to the manager. Measured
/// (docs/connect4/mpi.md, 2026-11-28, fourth session), two one-thread workers on two
/// cores, time ÷ one thread's with jobs 8 / 5 stones deep: 8×5 strong 0.85× / 0.70×, 9×4
/// 1.72× / 1.10×, 6×6 3.33× / 1.88×, 7×5 2.37× / 1.43× (the small boards pay `mpirun`'s
/// start-up); positions 1.24× / 1.08× on 8×5.
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
/// other something to do. Measured (docs/connect4/mpi.md, 2026-11-28, fifth session), two
/// one-thread workers on two cores, 8×5 strong, jobs 5 stones deep, three rounds each: 0.73×
/// one thread's time without, 0.69–0.71× with the main line 2 stones deeper (4 stones, for
/// rank 2 too: no better), at 1.10× against 1.09× the positions; one worker of two lanes
/// 0.67–0.72× against 0.67–0.69×. In virtual time (`cluster::simulate`) the two workers
/// searched 91% of the time against 86%, and it gained 1–6% on 7×5, 6×6 and 9×4; with 4 or
/// 16 workers (jobs 8 stones deep) it gained nothing.
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
/// off. Measured on the 16-core machine (docs/connect4/mpi.md, 2026-11-28, sixth session),
/// the empty 7×6 board, wall time ÷ one process of 16 threads in the same round, helping
/// against not (`TRANSPO_C4_MPI_HELP=0`), two rounds: 4 workers × 4 lanes 0.64×, 0.70× weak
/// and 0.64×, 0.67× strong against 0.60×, 0.55× and 0.54×, 0.59× (14% faster); 2 × 8 0.62×,
/// 0.79× and 0.73×, 0.75× against 0.87×, 0.86× and 0.70×, 0.70× (weak 23% slower: 1.5–1.7×
/// the positions); 1 × 16 about as fast either way. On two cores, one worker of 2 lanes on
/// 8×5 strong: 0.63× one thread's time against 0.66×.
pub const HELP_UP_TO_LANES: usize = 4;

/// Whether a worker of `lanes` lanes has its lanes without a job help its running jobs:
/// with two to [`HELP_UP_TO_LANES`].
pub const fn helps(lanes: usize) -> bool {
    lanes > 1 && lanes <= HELP_UP_TO_LANES
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
/// (their idle lanes help their running jobs instead).
///
/// A guess runs only on a worker with nothing to search, and is stopped as soon as no step
/// wants it or a needed job could take its worker, so when wrong it costs positions a waiting
/// worker would not have searched. Measured (docs/connect4/mpi.md, 2026-11-29): two one-thread
/// workers on two cores, wall time ÷ one thread's, rounds interleaved, without / with (the
/// first build of guesses): 8×5 strong 0.69× / 0.66× (four rounds, 1.11× / 1.15× the
/// positions), 9×4 strong 1.04× / 0.91× (three), 7×5 strong 1.45× / 1.25× (three), 6×6 strong
/// 1.50× / 1.42× (three); the final build 0.59–0.64× on 8×5 strong. In virtual time
/// (`cluster::simulate`, which flatters guesses) 4 workers went from 1.49–1.85× to 2.32–2.55×
/// one thread's speed on 7×5, 6×6 and 9×4 strong, and 16 from 4.2–6.4× to 5.0–9.8× on those and
/// 8×5; but oversubscribed here, 4 workers searched 1.32–1.89× one solve's positions with
/// guesses against 1.01–1.72× without, and no machine with a core for each has timed them yet
/// (`scripts/sixteen.sh` runs 16 workers guessing).
pub const fn guesses(workers: usize, lanes: bool) -> usize {
    if lanes || workers > GUESS_UP_TO_WORKERS {
        0
    } else {
        workers
    }
}

/// The default leaf depth in empty squares on a board of `squares` squares for `searches`
/// searches at once: the positions [`leaf_stones`] deep.
pub const fn leaf_empties(squares: u32, searches: usize) -> u32 {
    squares.saturating_sub(leaf_stones(searches))
}

/// The default grouping: a job is placed by its ancestor this many stones above it
/// ([`TopTree::new`]). Measured in docs/connect4/mpi.md.
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
        self.window.alpha <= window.alpha && window.beta <= self.window.beta
    }
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

/// What [`TopTree::step`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step<const W: usize, const H: usize, B: Bitboard> {
    /// The root's score lies in this range, which decides its window.
    Solved(RangeInclusive<i32>),
    /// The jobs the search needs answered before it can go on, in the order it met them (at
    /// least one).
    Jobs(Vec<Job<W, H, B>>),
}

/// A node's value in a replay: known, or waiting for jobs.
enum Value {
    Known(i32),
    Pending,
}

/// The top of the tree as the manager keeps it: the bounds proved so far of its positions and
/// of the leaves' (by symmetric key), and the best move found at each node.
#[derive(Clone, Debug)]
pub struct TopTree<const W: usize, const H: usize, B: Bitboard> {
    leaf_moves: u32,
    /// How many stones above the job its placement's ancestor is.
    group: usize,
    /// The keys of the nodes from the root down to the one searched.
    ancestors: Vec<B>,
    /// The [`Job::rank`] of the node searched.
    rank: u32,
    table: HashMap<B, (i32, i32), KeyHash>,
    best: HashMap<B, usize, KeyHash>,
    /// The nodes (and the null window) the manager expanded: its own positions explored.
    expanded: HashSet<(B, i32), KeyHash>,
    /// The null window being asked of the root: its key, the range known when the window
    /// was chosen, and the window, so that a window once chosen is kept until answered.
    asking: Option<(B, i32, i32, i32)>,
    /// Children a node searches before it releases the rest ([`TopTree::set_alone`]).
    alone: u32,
    /// The same at a node expected to need all its children ([`TopTree::set_alone_all`]).
    alone_all: Option<u32>,
    /// How many stones deeper the main line's jobs are ([`TopTree::set_main_line`]).
    main_line: u32,
    /// The most jobs a step guesses ahead ([`TopTree::set_guesses`]).
    guesses_max: usize,
    /// The last step's guesses ([`TopTree::guesses`]).
    guesses: Vec<Job<W, H, B>>,
    /// The guesses a step made so far, each with whether its node's eldest child had
    /// answered (the node is less likely to be cut off).
    candidates: Vec<(bool, Job<W, H, B>)>,
}

impl<const W: usize, const H: usize, B: Bitboard> TopTree<W, H, B> {
    /// A top tree whose leaves (jobs) are the positions with at most `leaf_empties` empty
    /// squares, knowing nothing yet.
    /// Each job is placed by its ancestor `group` stones above it (or by the root, if that
    /// is nearer): brothers share most of their subtrees (two moves of one player in either
    /// order meet again two stones down), so placed together they meet one table.
    pub fn new(leaf_empties: u32, group: usize) -> Self {
        TopTree {
            leaf_moves: (W * H) as u32 - leaf_empties.min((W * H) as u32),
            group,
            ancestors: Vec::new(),
            rank: 0,
            table: HashMap::default(),
            best: HashMap::default(),
            expanded: HashSet::default(),
            asking: None,
            alone: alone_before_release(1),
            alone_all: None,
            main_line: 0,
            guesses_max: 0,
            guesses: Vec::new(),
            candidates: Vec::new(),
        }
    }

    /// Makes the jobs of the main line `stones` stones deeper than the others (never past
    /// the full board): those of rank 0 and 1 ([`Job::rank`]), which one solve takes first
    /// and second. The others stay at the leaf depth.
    pub fn set_main_line(&mut self, stones: u32) {
        self.main_line = stones;
    }

    /// Makes a node release its younger children only once its first `alone` children
    /// (at least one: young brothers wait) have answered without a cutoff.
    pub fn set_alone(&mut self, alone: u32) {
        self.alone = alone.max(1);
    }

    /// Makes a node an even number of stones below the root release its younger children
    /// once its first `alone` (at least one) have answered without a cutoff, whatever
    /// [`TopTree::set_alone`] says for the others; by default the same for all.
    ///
    /// Why: Knuth and Moore type the nodes of alpha-beta. Below a node expected to need all
    /// its children (each fails low in the best-ordered tree), each child is expected to need
    /// only one (a cutoff), and below those, all again. The top tree takes the root of each
    /// null window as one that needs all: in virtual time that beat the other parity (7×5
    /// strong, 16 workers, one child at the nodes needing all and two at the rest: 4.40×
    /// against 2.68× one thread's speed). Where a node expected to need one has seen its
    /// eldest fail, a younger brother may still cut it off, and the jobs released beside it
    /// are searched for nothing; where a node expected to need all has, that is as expected.
    /// Measured (docs/connect4/mpi.md, 2026-11-29, eighth session): 16 one-thread workers,
    /// oversubscribed on two cores, positions ÷ one solve's on 7×5, 6×6, 9×4 and 8×5, with 1
    /// here and 2 at the rest against 1 everywhere: strong 1.66×, 1.99×, 3.03×, 2.25× against
    /// 1.93×, 2.70×, 3.61×, 2.19×; weak 1.82×, 2.43×, 2.48×, 2.45× against 2.43×, 3.37×,
    /// 3.78×, 1.94×. But in virtual time it was up to 40% slower (8×5 weak; 14–25% strong),
    /// so it is not a default until cores of their own time it.
    pub fn set_alone_all(&mut self, alone: u32) {
        self.alone_all = Some(alone.max(1));
    }

    /// Makes each step guess up to `max` jobs ahead of young brothers wait
    /// ([`TopTree::guesses`]); 0 (the default): none.
    pub fn set_guesses(&mut self, max: usize) {
        self.guesses_max = max;
    }

    /// The jobs the last step guessed will be needed next, best guess first: at each node
    /// that held its younger children back (its elder's answer may cut it off), the jobs of
    /// the next child; first those of nodes whose eldest answered without a cutoff, then
    /// the rest, each the deepest node first. Something for a worker that would otherwise
    /// wait; none is needed yet, so a cutoff may make it useless.
    ///
    /// Why that order: a node whose eldest did not cut it off is more likely to need all its
    /// children. Two one-thread workers on two cores, 8×5 strong, four rounds: 0.59–0.64× one
    /// thread's time (mean 0.62×, 1.13× the positions) against 0.63–0.67× (0.64×, 1.15×)
    /// with the deepest node first whatever its eldest did (docs/connect4/mpi.md,
    /// 2026-11-29).
    pub fn guesses(&self) -> &[Job<W, H, B>] {
        &self.guesses
    }

    /// Forgets everything: for the next line of input, so that each line's count of
    /// positions is its own (as one solve's is).
    pub fn clear(&mut self) {
        self.table.clear();
        self.best.clear();
        self.expanded.clear();
        self.asking = None;
    }

    /// The null window asked of the root now, if one is: the root's score range known when
    /// it was chosen and the window's value (`(min, max, med)`: is the score above `med`?).
    pub fn asking(&self) -> Option<(i32, i32, i32)> {
        self.asking.map(|(_, lo, hi, med)| (lo, hi, med))
    }

    /// Positions the manager expanded itself (each node once a null window).
    pub fn positions(&self) -> u64 {
        self.expanded.len() as u64
    }

    /// Takes in that the score of `pos` lies in `range` (a worker's answer): the range known
    /// of it narrows to the overlap. Returns `false`, taking nothing in, if the two do not
    /// overlap: some answer is wrong.
    pub fn learn(&mut self, pos: &Position<W, H, B>, range: RangeInclusive<i32>) -> bool {
        self.learn_key(pos.symmetric_key(), trivial(pos), range)
    }

    /// [`TopTree::learn`] by key, `start` the range known without it.
    fn learn_key(&mut self, key: B, start: (i32, i32), range: RangeInclusive<i32>) -> bool {
        let (lo, hi) = self.table.get(&key).copied().unwrap_or(start);
        let (lo, hi) = (lo.max(*range.start()), hi.min(*range.end()));
        if lo > hi {
            return false;
        }
        self.table.insert(key, (lo, hi));
        true
    }

    /// Every range the table holds, by key (for the state file).
    pub fn entries(&self) -> impl Iterator<Item = (B, (i32, i32))> + '_ {
        self.table.iter().map(|(k, r)| (*k, *r))
    }

    /// Puts back a range read from the state file.
    pub fn restore(&mut self, key: B, range: (i32, i32)) {
        self.table.insert(key, range);
    }

    /// The range known of `pos`.
    fn known(&self, pos: &Position<W, H, B>) -> (i32, i32) {
        match settled(pos) {
            Some(exact) => (exact, exact),
            None => self
                .table
                .get(&pos.symmetric_key())
                .copied()
                .unwrap_or_else(|| trivial(pos)),
        }
    }

    /// Replays the solve of `root` (reached by `root_moves` from the empty board; `-` or
    /// empty for the empty board) for `window` from the table: the root's range if that
    /// decides the window, else the jobs needed now. `explored` is the positions the solve
    /// has explored so far (workers' and manager's): it chooses the null windows as one
    /// solve does ([`Window::next_after`]), each when it is first asked.
    pub fn step(
        &mut self,
        root: &Position<W, H, B>,
        root_moves: &str,
        window: Window,
        explored: u64,
    ) -> Step<W, H, B> {
        if let Some(exact) = settled(root) {
            return Step::Solved(exact..=exact);
        }
        let moves = (W * H, root.moves());
        let (mut min, mut max) = (
            loss_next_score(moves.0, moves.1),
            win_now_score(moves.0, moves.1),
        );
        if let Some(&(lo, hi)) = self.table.get(&root.symmetric_key()) {
            (min, max) = (min.max(lo), max.min(hi));
        }
        let root_moves = if root_moves == transpo_connect4::position::EMPTY_BOARD {
            ""
        } else {
            root_moves
        };
        let mut path = root_moves.to_string();
        self.ancestors.clear();
        self.rank = 0;
        while !window.decided(min, max) {
            // A window answered from the table leaves no guess for the next.
            self.guesses.clear();
            self.candidates.clear();
            let root_key = root.symmetric_key();
            let med = match self.asking {
                Some((key, lo, hi, med)) if (key, lo, hi) == (root_key, min, max) => med,
                _ => {
                    let med = window.next_after(min, max, explored);
                    self.asking = Some((root_key, min, max, med));
                    med
                }
            };
            let mut jobs = Vec::new();
            match self.search(root, &mut path, med, med + 1, &mut jobs) {
                Value::Pending => {
                    // Stable: each kind stays the deepest node first.
                    self.candidates.sort_by_key(|(sure, _)| !sure);
                    let max = self.guesses_max;
                    let candidates = self.candidates.drain(..).take(max);
                    self.guesses = candidates.map(|(_, job)| job).collect();
                    return Step::Jobs(jobs);
                }
                Value::Known(r) if r <= med => max = r,
                Value::Known(r) => min = r,
            }
        }
        Step::Solved(min..=max)
    }

    /// Fail-soft negamax in `[alpha, beta]` over the top tree with young brothers wait: the
    /// value if the table and the answered jobs give it, else `Pending` with the jobs it
    /// needs pushed onto `jobs`.
    fn search(
        &mut self,
        pos: &Position<W, H, B>,
        path: &mut String,
        alpha: i32,
        beta: i32,
        jobs: &mut Vec<Job<W, H, B>>,
    ) -> Value {
        let (lo, hi) = self.known(pos);
        if hi <= alpha {
            return Value::Known(hi);
        }
        if lo >= beta || lo == hi {
            return Value::Known(lo);
        }
        let key = pos.symmetric_key();
        let leaf_moves = if self.rank <= 1 {
            (self.leaf_moves + self.main_line).min((W * H) as u32)
        } else {
            self.leaf_moves
        };
        if pos.moves() >= leaf_moves {
            let above = self.ancestors.len().saturating_sub(self.group);
            jobs.push(Job {
                group: if self.group == 0 {
                    key
                } else {
                    self.ancestors.get(above).copied().unwrap_or(key)
                },
                rank: self.rank,
                position: *pos,
                moves: path.clone(),
                // Thresholds outside what is known are decided already.
                window: Window {
                    alpha: alpha.max(lo - 1),
                    beta: beta.min(hi + 1),
                },
            });
            return Value::Pending;
        }
        self.expanded.insert((key, alpha));
        // A child whose known bounds prove the move good enough ends the node (enhanced
        // transposition cutoff), whatever the move order puts first.
        let mut rest = pos.non_losing_moves();
        while rest != B::ZERO {
            let square = rest.lowest();
            rest &= rest - B::ONE;
            let (_, child_hi) = self.known(&pos.after(square));
            if -child_hi >= beta {
                self.best
                    .insert(key, Position::<W, H, B>::column_of(square));
                self.learn_key(key, (lo, hi), -child_hi..=i32::MAX);
                return Value::Known(-child_hi);
            }
        }
        let mut sorter = MoveSorter::<W, H, B>::EMPTY;
        sorter.start_at(pos, self.best.get(&key).copied());
        let (mut best, mut pending) = (i32::MIN, false);
        let rank = self.rank;
        let (asked, guessed) = (jobs.len(), self.candidates.len());
        let mut place = 0;
        while let Some((square, _)) = sorter.next(pos) {
            self.rank = rank + place;
            place += 1;
            let column = Position::<W, H, B>::column_of(square);
            path.push(column_char(column));
            self.ancestors.push(key);
            let value = self.search(&pos.after(square), path, -beta, -alpha.max(best), jobs);
            self.ancestors.pop();
            path.pop();
            self.rank = rank;
            match value {
                Value::Known(child) if -child >= beta => {
                    self.best.insert(key, column);
                    self.learn_key(key, (lo, hi), -child..=i32::MAX);
                    // The jobs and guesses of the elder children (released before this
                    // one answered) are needed no more.
                    jobs.truncate(asked);
                    self.candidates.truncate(guessed);
                    return Value::Known(-child);
                }
                Value::Known(child) => best = best.max(-child),
                // Young brothers wait: nothing younger is asked before the eldest (and the
                // next `alone - 1`) answer.
                Value::Pending if place <= self.alone_here() => {
                    let window = (alpha.max(best), beta);
                    self.guess(pos, path, &mut sorter, (rank, place), window);
                    return Value::Pending;
                }
                Value::Pending => pending = true,
            }
        }
        if pending {
            return Value::Pending;
        }
        let range = if best <= alpha {
            i32::MIN..=best
        } else {
            best..=best
        };
        self.learn_key(key, (lo, hi), range);
        Value::Known(best)
    }

    /// Children the node being searched answers before it releases the rest: those of
    /// [`TopTree::set_alone_all`] at an even number of stones below the root, else those of
    /// [`TopTree::set_alone`].
    fn alone_here(&self) -> u32 {
        match self.alone_all {
            Some(alone) if self.ancestors.len().is_multiple_of(2) => alone,
            _ => self.alone,
        }
    }

    /// Guesses the jobs of the children of `pos` after those asked (young brothers wait held
    /// them back): the first such child that needs jobs, searched in the node's window, up
    /// to [`CANDIDATES_A_GUESS`] times [`TopTree::set_guesses`]'s count. `at`: the node's
    /// rank and the children taken.
    fn guess(
        &mut self,
        pos: &Position<W, H, B>,
        path: &mut String,
        sorter: &mut MoveSorter<W, H, B>,
        at: (u32, u32),
        (alpha, beta): (i32, i32),
    ) {
        let (rank, mut place) = at;
        // The eldest answered without a cutoff: the node is likelier to need them all.
        let sure = place > 1;
        let key = pos.symmetric_key();
        let max = self.guesses_max.saturating_mul(CANDIDATES_A_GUESS);
        while self.candidates.len() < max {
            let Some((square, _)) = sorter.next(pos) else {
                return;
            };
            self.rank = rank + place;
            place += 1;
            path.push(column_char(Position::<W, H, B>::column_of(square)));
            self.ancestors.push(key);
            let mut jobs = Vec::new();
            let value = self.search(&pos.after(square), path, -beta, -alpha, &mut jobs);
            self.ancestors.pop();
            path.pop();
            self.rank = rank;
            let room = max - self.candidates.len();
            let guessed = jobs.into_iter().take(room).map(|job| (sure, job));
            self.candidates.extend(guessed);
            if let Value::Pending = value {
                return;
            }
        }
    }
}

/// Children a node of the top tree has answered, the eldest first, before it releases the
/// rest to `workers` workers, by default (`TRANSPO_C4_MPI_ALONE` under `mpirun`, for
/// measuring). One is young brothers wait; but in a null-window search a node whose eldest
/// failed low often still cuts off with a younger child, and every job released beside that
/// one is searched for nothing; waiting for more leaves workers idle, which costs more the
/// more workers wait (as for the threads' split points:
/// `transpo_connect4::parallel::alone_before_split`). Measured (docs/connect4/mpi.md):
/// - 2 workers (2-core machine, 8×5 strong, wall time against one solve's, same run): two
///   children 0.73× and 0.77× (workers searching 85% of the time, 1.25× the positions),
///   three 0.86× and 0.89× (72%, 1.21×), one 0.86× (88%, 1.29×).
/// - 4 workers (2-core machine), positions ÷ one solve's: 6×6 strong 1.64× with one child,
///   1.51× two, 1.17× three, 1.02× four; 9×4 strong 2.00×, —, 1.75×, 1.29×.
/// - 16 workers (16-core machine), the empty 7×6 board: 6.5 s weak and 10.6 s strong with
///   one child, 11.3 s and 15.6 s with two, 12.0 s and 19.0 s with three, 30.5 s strong
///   with four (one thread alone: 18.1 s and 26.9 s).
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
    use transpo_connect4::score::{Strength, finish};
    use transpo_connect4::solver::Solver;

    /// Solves `root` with the top tree, answering its jobs with `workers` solvers (each job
    /// to its owner, never reset), taking the jobs of each step in an order that `shuffle`
    /// picks (0: the search's order), as a cluster's answers come back in any order; returns the range, the jobs
    /// searched and the positions of all solvers and the manager.
    fn solve_top<const W: usize, const H: usize, B: Bitboard>(
        root: &Position<W, H, B>,
        root_moves: &str,
        leaf_empties: u32,
        strength: Strength,
        workers: usize,
        shuffle: usize,
    ) -> (RangeInclusive<i32>, usize, u64) {
        let mut top = TopTree::<W, H, B>::new(leaf_empties, 1);
        // Nodes that need all their children release them after one from three workers on.
        if workers >= 3 {
            top.set_alone_all(1);
        }
        // Two workers or fewer take the main line deeper, as the binary's rule has it.
        top.set_main_line(main_line_stones(workers));
        let mut solvers: Vec<Solver<W, H, B>> = (0..workers)
            .map(|_| Solver::new(4).expect("4 MiB"))
            .collect();
        let mut searched = 0;
        loop {
            let explored = solvers.iter().map(Solver::nodes).sum::<u64>() + top.positions();
            match top.step(root, root_moves, Window::of(strength), explored) {
                Step::Solved(range) => {
                    let positions =
                        solvers.iter().map(Solver::nodes).sum::<u64>() + top.positions();
                    return (range, searched, positions);
                }
                Step::Jobs(jobs) => {
                    assert!(!jobs.is_empty());
                    // Answer one job of the step, as a worker finishing first would.
                    let job = &jobs[(searched * 7 * shuffle + shuffle) % jobs.len()];
                    let solver = &mut solvers[owner(job.group, workers)];
                    let range = solver.solve_window(&job.position, job.window);
                    assert!(job.window.decided(*range.start(), *range.end()));
                    assert_eq!(
                        Position::<W, H, B>::from_moves(&job.moves),
                        Ok(job.position)
                    );
                    assert!(top.learn(&job.position, range));
                    searched += 1;
                }
            }
        }
    }

    /// The top tree's answer is one solve's, strong and weak, on several boards and leaf
    /// depths, whatever order the jobs are answered in.
    #[test]
    fn the_top_tree_gives_one_solves_answer() {
        fn check<const W: usize, const H: usize, B: Bitboard>(moves: &str, leaf_empties: u32) {
            let root = Position::<W, H, B>::from_moves(moves).expect("a position");
            let mut solver = Solver::<W, H, B>::new(4).expect("4 MiB");
            for strength in [Strength::Strong, Strength::Weak] {
                let expected = solver.solve(&root, strength);
                for (workers, shuffle) in [(1, 0), (2, 3), (3, 1), (5, 4)] {
                    let (range, jobs, _) =
                        solve_top(&root, moves, leaf_empties, strength, workers, shuffle);
                    assert!(Window::of(strength).decided(*range.start(), *range.end()));
                    assert_eq!(
                        finish(*range.start(), strength),
                        expected,
                        "{W}x{H} {moves:?} leaf {leaf_empties} {strength:?} {workers} workers, {jobs} jobs"
                    );
                }
            }
        }
        check::<4, 4, u64>("", 13);
        check::<4, 4, u64>("", 16);
        check::<4, 4, u64>("", 0);
        check::<5, 4, u64>("", 15);
        check::<5, 5, u64>("", 20);
        check::<5, 5, u64>("33", 19);
        check::<6, 4, u64>("", 19);
        check::<6, 5, u64>("3", 24);
        check::<7, 4, u64>("44", 22);
        check::<4, 5, u64>("1122", 14);
    }

    /// With the main line deeper, the eldest line's job (rank 0) and its brothers' of rank
    /// 1 are that many stones deeper, the others at the leaf (or just below it, under a
    /// node of the main line); never past the full board.
    #[test]
    fn the_main_line_s_jobs_are_deeper() {
        let root = Position::<7, 5>::new();
        let first_jobs = |main_line: u32, leaf_empties: u32| {
            let mut top = TopTree::<7, 5, u64>::new(leaf_empties, 2);
            top.set_main_line(main_line);
            top.set_alone(1);
            match top.step(&root, "", Window::of(Strength::Strong), 0) {
                Step::Jobs(jobs) => jobs,
                Step::Solved(range) => panic!("solved {range:?} without a job"),
            }
        };
        let flat = first_jobs(0, 30);
        assert_eq!(flat.len(), 1);
        assert_eq!((flat[0].rank, flat[0].position.moves()), (0, 5));
        let deep = first_jobs(2, 30);
        assert_eq!(deep.len(), 1);
        assert_eq!((deep[0].rank, deep[0].position.moves()), (0, 7));
        assert!(deep[0].moves.starts_with(&flat[0].moves));
        // Answering the eldest job without a cutoff releases its brothers (one child
        // alone): the second child's job (rank 1) is deep, the third's (rank 2) is not.
        let mut top = TopTree::<7, 5, u64>::new(30, 2);
        top.set_main_line(2);
        top.set_alone(1);
        let mut solver = Solver::<7, 5, u64>::new(4).expect("4 MiB");
        let mut seen = std::collections::BTreeMap::new();
        for _ in 0..200 {
            let Step::Jobs(jobs) = top.step(&root, "", Window::of(Strength::Strong), 0) else {
                break;
            };
            for job in &jobs {
                // Off the main line a job is at the leaf, or below it where its parent
                // was on the main line.
                let want = if job.rank <= 1 { 7..=7 } else { 5..=7 };
                assert!(want.contains(&job.position.moves()), "{job:?}");
                seen.insert(job.rank.min(2), ());
            }
            let job = &jobs[0];
            assert!(top.learn(
                &job.position,
                solver.solve_window(&job.position, job.window)
            ));
        }
        assert_eq!(seen.len(), 3, "jobs of ranks 0, 1 and 2 or more");
        // A board too small for the extra stones stops at its last square.
        let mut top = TopTree::<4, 4, u64>::new(2, 2);
        top.set_main_line(5);
        match top.step(&Position::new(), "", Window::of(Strength::Strong), 0) {
            Step::Jobs(jobs) => assert!(jobs.iter().all(|j| j.position.moves() <= 16)),
            Step::Solved(range) => assert!(!range.is_empty()),
        }
    }

    /// With children released after one at nodes of one parity (even: expected to need all,
    /// [`TopTree::set_alone_all`]) and held one at a time at the other's, no node of the
    /// second kind has jobs under two of its children in a step; nodes of the first kind
    /// do, somewhere in the solve. (The jobs under the elder children of a node that a
    /// younger child's answer cut off are no longer needed, and a step leaves them out: it
    /// once did not, and this test found it.)
    #[test]
    fn the_release_rule_follows_the_node_s_parity() {
        let root = Position::<7, 5, u64>::new();
        for all_released in [true, false] {
            let mut top = TopTree::<7, 5, u64>::new(30, 2);
            let (all, rest) = if all_released { (1, 16) } else { (16, 1) };
            top.set_alone(rest);
            top.set_alone_all(all);
            let mut solver = Solver::<7, 5, u64>::new(4).expect("4 MiB");
            let mut released = false;
            while let Step::Jobs(jobs) = top.step(&root, "", Window::of(Strength::Strong), 0) {
                // Each node's (by its moves) children with jobs in this step.
                let mut under: HashMap<&str, HashSet<u8>> = HashMap::new();
                for job in &jobs {
                    for depth in 0..job.moves.len() {
                        let child = job.moves.as_bytes()[depth];
                        under.entry(&job.moves[..depth]).or_default().insert(child);
                    }
                }
                for (node, children) in &under {
                    let even = node.len() % 2 == 0;
                    if even == all_released {
                        released |= children.len() > 1;
                    } else {
                        assert_eq!(children.len(), 1, "{all_released} {node:?} {jobs:?}");
                    }
                }
                let job = &jobs[jobs.len() - 1];
                let range = solver.solve_window(&job.position, job.window);
                assert!(top.learn(&job.position, range));
            }
            assert!(released, "{all_released}: never released in parallel");
        }
    }

    /// The jobs one at a time in the search's order cost about one solve's positions.
    /// Guesses are jobs the step does not need yet, none twice, at most as many as set;
    /// none unless set; and a top tree that guesses gives one solve's answer.
    #[test]
    fn guesses_are_jobs_not_yet_needed() {
        let root = Position::<7, 5, u64>::new();
        let mut top = TopTree::<7, 5, u64>::new(25, 2);
        let Step::Jobs(jobs) = top.step(&root, "", Window::of(Strength::Strong), 0) else {
            panic!("the empty board needs jobs");
        };
        assert!(top.guesses().is_empty());
        top.set_guesses(3);
        let Step::Jobs(again) = top.step(&root, "", Window::of(Strength::Strong), 0) else {
            panic!("the empty board needs jobs");
        };
        assert_eq!(again, jobs);
        let guesses = top.guesses();
        assert!(!guesses.is_empty() && guesses.len() <= 3, "{guesses:?}");
        let keys: HashSet<_> = guesses.iter().map(Job::key).collect();
        assert_eq!(keys.len(), guesses.len());
        assert!(
            guesses
                .iter()
                .all(|g| jobs.iter().all(|j| j.key() != g.key()))
        );
        assert!(guesses.iter().all(|g| g.rank > 0));
    }

    #[test]
    fn the_top_tree_searches_about_what_one_solve_does() {
        let root = Position::<6, 5>::new();
        let mut solver = Solver::<6, 5>::new(4).expect("4 MiB");
        solver.solve(&root, Strength::Strong);
        let one = solver.nodes();
        let (_, _, positions) = solve_top(&root, "", 22, Strength::Strong, 1, 0);
        assert!(
            positions * 10 <= one * 13,
            "{positions} against one solve's {one}"
        );
    }
}
