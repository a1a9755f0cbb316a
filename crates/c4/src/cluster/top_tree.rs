//! The top of the tree as the manager keeps it ([`TopTree`]): the bounds proved so far of
//! its positions and of its leaves, and the jobs a step of its search still needs.
//!
//! Why a file of its own: the tree is the cluster's whole policy of what to search, and it
//! is pure: [`TopTree::step`] takes the answers known so far and returns the jobs needed
//! now, or the root's range. The manager ([`super::manager`]) feeds it the workers' answers;
//! the dispatch ([`super::dispatch`]) decides where its jobs go.

mod nodes;

use super::{CANDIDATES_A_GUESS, Job, alone_before_release};
use crate::split::settled;
use nodes::{Child, Expansion, Nodes, Order, Side, square_in};
use std::ops::RangeInclusive;
use transpo_connect4::position::{Bitboard, Position, column_char};
use transpo_connect4::score::{Window, loss_next_score, win_now_score};

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
    /// Every position met: its range, best move and the windows it was expanded for (the
    /// manager's own positions explored), and its children.
    nodes: Nodes<W, H, B>,
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
    /// Stones past the leaf depth a new job may be split to ([`TopTree::set_deepen`]).
    deepen: u32,
    /// Searches the cluster runs at once: a step that needs fewer jobs splits its new ones.
    searches: usize,
    /// The keys of the last step's jobs (those may be running), sorted when a split
    /// needs them.
    last_jobs: Vec<B>,
    /// Whether a job split after it was asked stays asked beside its children's jobs
    /// ([`TopTree::set_beside`]).
    beside: bool,
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
            nodes: Nodes::default(),
            asking: None,
            alone: alone_before_release(1),
            alone_all: None,
            main_line: 0,
            guesses_max: 0,
            guesses: Vec::new(),
            candidates: Vec::new(),
            deepen: 0,
            searches: 0,
            last_jobs: Vec::new(),
            beside: true,
        }
    }

    /// Makes a step that needs fewer jobs than `searches` (the searches the cluster runs at
    /// once) split its jobs, down to `deepen` stones past their leaf depth: the tree
    /// searches such a position itself, young brothers waiting as everywhere, and its
    /// children are the jobs; again, a stone deeper, while the step still needs too few. A
    /// job asked before may be running: it stays asked beside its children's jobs, and
    /// whichever answers first settles it (the other is stopped). 0 (the default): jobs
    /// stay at the leaf depth.
    ///
    /// Why: young brothers wait, so a step needs few jobs where the search begins and
    /// wherever it comes back up to a node whose younger children wait on the eldest; with
    /// jobs of one size, most searches then wait on a few long jobs. A job split finer
    /// releases its own younger brothers sooner. Splitting only the jobs not asked before
    /// left the long ones whole, each a search the others waited on: a running job split
    /// beside itself took 16 workers of 16 lanes from 18.6× one search to 32.0× on 8×5
    /// strong in virtual time (measured: docs/connect4/mpi.md, 2026-11-30). A position
    /// once split stays split for the line, so its children's jobs stay needed.
    pub fn set_deepen(&mut self, deepen: u32, searches: usize) {
        self.deepen = deepen;
        self.searches = searches;
    }

    /// Whether a job split after a step asked for it ([`TopTree::set_deepen`]) stays asked
    /// beside its children's jobs, whichever answers first (`true`, the default), or gives
    /// way to them: no step asks for it again, so the one who runs it stops it.
    ///
    /// Why both: beside, the job's search is not lost where its children's are searched
    /// from another table (the manager's workers); on one table (a worker's lanes) a job
    /// stopped leaves what it found to its children, and beside them it searches again what
    /// they search.
    pub fn set_beside(&mut self, beside: bool) {
        self.beside = beside;
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
    /// null window as one that needs all: in virtual time that beat the other parity. Where
    /// a node expected to need one has seen its eldest fail, a younger brother may still cut
    /// it off, and the jobs released beside it are searched for nothing; where a node
    /// expected to need all has, that is as expected. With sixteen workers it saved
    /// positions on most boards, but in virtual time it was slower, so it is not a default
    /// until cores of their own time it (measured: docs/connect4/mpi.md, 2026-11-29,
    /// “releasing by the node's type”).
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
    /// children, and two one-thread workers were faster with it than with the deepest node
    /// first whatever its eldest did (measured: docs/connect4/mpi.md, 2026-11-29, “guesses
    /// for idle workers”).
    pub fn guesses(&self) -> &[Job<W, H, B>] {
        &self.guesses
    }

    /// Forgets everything: for the next line of input, so that each line's count of
    /// positions is its own (as one solve's is).
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.asking = None;
        self.last_jobs.clear();
    }

    /// The null window asked of the root now, if one is: the root's score range known when
    /// it was chosen and the window's value (`(min, max, med)`: is the score above `med`?).
    pub fn asking(&self) -> Option<(i32, i32, i32)> {
        self.asking.map(|(_, lo, hi, med)| (lo, hi, med))
    }

    /// Whether the job of `pos` was split while a step still asked for it, so that it ran
    /// beside its children's jobs ([`TopTree::set_deepen`]).
    pub fn split_beside(&self, pos: &Position<W, H, B>) -> bool {
        self.nodes.split_beside(pos.symmetric_key())
    }

    /// Positions the manager expanded itself (each node once a null window).
    pub fn positions(&self) -> u64 {
        self.nodes.expanded()
    }

    /// Takes in that the score of `pos` lies in `range` (a worker's answer): the range known
    /// of it narrows to the overlap. Returns `false`, taking nothing in, if the two do not
    /// overlap: some answer is wrong.
    pub fn learn(&mut self, pos: &Position<W, H, B>, range: RangeInclusive<i32>) -> bool {
        self.nodes.learn(pos, (*range.start(), *range.end()))
    }

    /// Every range narrowed from what the rules give, by key (for the state file).
    pub fn entries(&self) -> impl Iterator<Item = (B, (i32, i32))> + '_ {
        self.nodes.learned()
    }

    /// Puts back a range read from the state file.
    pub fn restore(&mut self, key: B, range: (i32, i32)) {
        self.nodes.restore(key, range);
    }

    /// Replays the solve of `root` (reached by `root_moves` from the empty board; `-` or
    /// empty for the empty board) for `window` from the table: the root's range if that
    /// decides the window, else the jobs needed now. `explored` is the positions the solve
    /// has explored so far (workers' and manager's): it chooses the null windows as one
    /// solve does ([`Window::next_after`]), each when it is first asked.
    ///
    /// Why from the root, every time: a tree that kept each node's result and searched
    /// again only below where answers landed searched an eighth to a half of the nodes,
    /// but at 256 searches answers come back in batches and a step lists every pending job
    /// anyway; the manager's time was no less (measured: docs/connect4/mpi.md, 2026-11-29,
    /// “a replay that keeps what it found”).
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
        if let Some((lo, hi)) = self.nodes.learned_range(root.symmetric_key()) {
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
            let known = self.nodes.child(root);
            match self.search(root, known, &mut path, med, med + 1, &mut jobs) {
                Value::Pending if self.split_jobs(&jobs) => continue,
                Value::Pending => {
                    self.last_jobs.clear();
                    self.last_jobs.extend(jobs.iter().map(Job::key));
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

    /// Fail-soft negamax in `[alpha, beta]` over the top tree with young brothers wait, for
    /// `pos`, which is `known` (settled, or a node whose range the table holds): the value
    /// if the table and the answered jobs give it, else `Pending` with the jobs it needs
    /// pushed onto `jobs`.
    fn search(
        &mut self,
        pos: &Position<W, H, B>,
        known: Child,
        path: &mut String,
        alpha: i32,
        beta: i32,
        jobs: &mut Vec<Job<W, H, B>>,
    ) -> Value {
        let (lo, hi) = self.nodes.range(known);
        if hi <= alpha {
            return Value::Known(hi);
        }
        // A settled position's range is its one score.
        let Child::Node(at) = known else {
            return Value::Known(lo);
        };
        if lo >= beta || lo == hi {
            return Value::Known(lo);
        }
        let key = self.nodes.key(at);
        let leaf_moves = if self.rank <= 1 {
            (self.leaf_moves + self.main_line).min((W * H) as u32)
        } else {
            self.leaf_moves
        };
        let leaf = pos.moves() >= leaf_moves;
        // A job's window: thresholds outside what is known are decided already.
        let window = Window {
            alpha: alpha.max(lo - 1),
            beta: beta.min(hi + 1),
        };
        let split = self.nodes.split(at);
        if leaf && !split.split {
            jobs.push(self.job(pos, key, path, window));
            return Value::Pending;
        }
        self.nodes.expand(at, alpha);
        let (expansion, side) = (self.nodes.expansion(at, pos), Side::of(pos));
        if let Some(value) = self.transposition_cutoff(at, &expansion, side, beta) {
            return Value::Known(value);
        }
        // A job split after it was asked may be running: it stays asked beside the jobs
        // under it until the node's value is known.
        let own = jobs.len();
        if leaf && split.beside && self.beside {
            jobs.push(self.job(pos, key, path, window));
        }
        let mut order = Order::new(&expansion, side, self.nodes.best(at));
        let (mut best, mut pending) = (i32::MIN, false);
        let rank = self.rank;
        let guessed = self.candidates.len();
        let mut place = 0;
        while let Some((column, child)) = order.next() {
            self.rank = rank + place;
            place += 1;
            path.push(column_char(column));
            self.ancestors.push(key);
            // The child's range is read when it is searched: an elder brother's search
            // learnt of its own position only, which is this one's if the two are mirror
            // images.
            let value = self.search(
                &pos.after(square_in(pos, column)),
                child,
                path,
                -beta,
                -alpha.max(best),
                jobs,
            );
            self.ancestors.pop();
            path.pop();
            self.rank = rank;
            match value {
                Value::Known(child) if -child >= beta => {
                    self.nodes.set_best(at, column);
                    self.nodes.narrow(at, (-child, i32::MAX));
                    // The jobs and guesses of the elder children (released before this
                    // one answered), and the node's own if it stayed asked, are needed no
                    // more: its value is known.
                    jobs.truncate(own);
                    self.candidates.truncate(guessed);
                    return Value::Known(-child);
                }
                Value::Known(child) => best = best.max(-child),
                // Young brothers wait: nothing younger is asked before the eldest (and the
                // next `alone - 1`) answer.
                Value::Pending if place <= self.alone_here() => {
                    let window = (alpha.max(best), beta);
                    self.guess(pos, key, path, &mut order, (rank, place), window);
                    return Value::Pending;
                }
                Value::Pending => pending = true,
            }
        }
        if pending {
            return Value::Pending;
        }
        // Known: the node's own job, if it stayed asked, is needed no more.
        jobs.truncate(own);
        let range = if best <= alpha {
            (i32::MIN, best)
        } else {
            (best, best)
        };
        self.nodes.narrow(at, range);
        Value::Known(best)
    }

    /// Splits the jobs of `jobs` (a step's), if the step needs fewer than the searches
    /// ([`TopTree::set_deepen`]) and they lie less than the set stones past their leaf
    /// depth; returns whether it split one (the step is searched again). A job a step asked
    /// for before may be running: it stays asked beside its children's jobs.
    fn split_jobs(&mut self, jobs: &[Job<W, H, B>]) -> bool {
        if self.deepen == 0 || jobs.len() >= self.searches {
            return false;
        }
        let most = (self.leaf_moves + self.main_line + self.deepen).min((W * H) as u32);
        let mut split = false;
        let mut sorted = false;
        for job in jobs.iter().filter(|job| job.position.moves() < most) {
            if !sorted {
                self.last_jobs.sort_unstable();
                sorted = true;
            }
            let key = job.key();
            let asked = self.last_jobs.binary_search(&key).is_ok();
            split |= self.nodes.set_split(key, asked);
        }
        split
    }

    /// The job of the leaf `pos` (of symmetric key `key`, reached by `path`) in `window`,
    /// placed by its ancestor [`TopTree::new`]'s `group` stones above it.
    fn job(&self, pos: &Position<W, H, B>, key: B, path: &str, window: Window) -> Job<W, H, B> {
        let above = self.ancestors.len().saturating_sub(self.group);
        Job {
            group: if self.group == 0 {
                key
            } else {
                self.ancestors.get(above).copied().unwrap_or(key)
            },
            rank: self.rank,
            position: *pos,
            moves: path.to_string(),
            window,
        }
    }

    /// The value of node `at` (of children `expansion`, seen from `side`) if a child's known
    /// bounds prove a move good enough for `beta` (enhanced transposition cutoff), whatever
    /// the move order puts first; the node learns it. The children are read in column
    /// order.
    fn transposition_cutoff(
        &mut self,
        at: u32,
        expansion: &Expansion<W>,
        side: Side,
        beta: i32,
    ) -> Option<i32> {
        for column in 0..W {
            let Some(child) = expansion.child(side, column) else {
                continue;
            };
            let (_, child_hi) = self.nodes.range(child);
            if -child_hi >= beta {
                self.nodes.set_best(at, column);
                self.nodes.narrow(at, (-child_hi, i32::MAX));
                return Some(-child_hi);
            }
        }
        None
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

    /// Guesses the jobs of the children of `pos` (of symmetric key `key`) after those asked
    /// (young brothers wait held them back), the rest of `order`: the first such child that
    /// needs jobs, searched in the node's window, up to [`CANDIDATES_A_GUESS`] times
    /// [`TopTree::set_guesses`]'s count. `at`: the node's rank and the children taken.
    fn guess(
        &mut self,
        pos: &Position<W, H, B>,
        key: B,
        path: &mut String,
        order: &mut Order<W>,
        at: (u32, u32),
        (alpha, beta): (i32, i32),
    ) {
        let (rank, mut place) = at;
        // The eldest answered without a cutoff: the node is likelier to need them all.
        let sure = place > 1;
        let max = self.guesses_max.saturating_mul(CANDIDATES_A_GUESS);
        while self.candidates.len() < max {
            let Some((column, known)) = order.next() else {
                return;
            };
            self.rank = rank + place;
            place += 1;
            path.push(column_char(column));
            self.ancestors.push(key);
            let mut jobs = Vec::new();
            let child = pos.after(square_in(pos, column));
            let value = self.search(&child, known, path, -beta, -alpha, &mut jobs);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{main_line_stones, owner};
    use std::collections::{HashMap, HashSet};
    use transpo_connect4::score::{Strength, finish};
    use transpo_connect4::solver::Solver;

    /// Solves `root` with the top tree, answering its jobs with `workers` solvers (each job
    /// to its owner, never reset), taking the jobs of each step in an order that `shuffle`
    /// picks (0: the search's order), as a cluster's answers come back in any order; returns
    /// the range, the jobs searched and the positions of all solvers and the manager.
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

    /// A step that needs fewer jobs than the searches splits its jobs, down to the set
    /// stones past the leaf depth and no further; a job the last step asked for and that is
    /// not yet answered, split, is still asked beside the jobs under it (it may be running:
    /// a split never stops it), or, not beside, asked no more; and the tree still gives one
    /// solve's answer. Without the setting, every job is at the leaf depth and none lies
    /// under another.
    #[test]
    fn jobs_are_split_where_searches_would_wait() {
        let root = Position::<6, 5, u64>::new();
        let expected = Solver::<6, 5, u64>::new(4)
            .expect("4 MiB")
            .solve(&root, Strength::Strong);
        for (deepen, beside) in [(0, true), (3, true), (3, false)] {
            let mut top = TopTree::<6, 5, u64>::new(25, 2);
            top.set_alone(1);
            top.set_deepen(deepen, 64);
            top.set_beside(beside);
            let mut solver = Solver::<6, 5, u64>::new(4).expect("4 MiB");
            let mut pending: HashSet<String> = HashSet::new();
            let (mut deepest, mut kept_beside, mut gave_way) = (0, 0, 0);
            let score = loop {
                match top.step(&root, "", Window::of(Strength::Strong), 0) {
                    Step::Solved(range) => break finish(*range.start(), Strength::Strong),
                    Step::Jobs(jobs) => {
                        let asked: HashSet<&str> = jobs.iter().map(|j| j.moves.as_str()).collect();
                        for job in &jobs {
                            let stones = job.position.moves();
                            assert!((5..=5 + deepen).contains(&stones), "{deepen}: {job:?}");
                            deepest = deepest.max(stones);
                            // A job asked before (it may be running) that a split put this
                            // one under is still asked beside it: split, never stopped; or
                            // not beside, asked no more.
                            for cut in 5..job.moves.len() {
                                if pending.contains(&job.moves[..cut]) {
                                    assert_eq!(
                                        asked.contains(&job.moves[..cut]),
                                        beside,
                                        "{job:?} under a job asked before"
                                    );
                                    kept_beside += usize::from(beside);
                                    gave_way += usize::from(!beside);
                                }
                            }
                        }
                        // Answer the last job, as a worker that finished it first would;
                        // the others may be running.
                        let job = &jobs[jobs.len() - 1];
                        pending = jobs.iter().map(|job| job.moves.clone()).collect();
                        pending.remove(&job.moves);
                        let range = solver.solve_window(&job.position, job.window);
                        assert!(top.learn(&job.position, range));
                    }
                }
            };
            assert_eq!(score, expected, "deepen {deepen}");
            assert_eq!(deepest, 5 + deepen, "deepen {deepen}: the deepest job");
            assert_eq!(
                (kept_beside > 0, gave_way > 0),
                (deepen > 0 && beside, deepen > 0 && !beside),
                "deepen {deepen}, beside {beside}: {kept_beside}, {gave_way}"
            );
        }
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
