//! The top tree of a split solved in rounds: what the root's minimax knows from the bounds
//! the shards found on the leaves, and which leaves it still needs, each with the window it
//! needs searched.
//!
//! Why this shape: one solve of the root is a binary search of null windows, each an
//! alpha-beta search that needs of most leaves of the top tree nothing at all, and of the
//! rest only on which side of one threshold their score lies. So the plan *replays* that
//! search over the top tree: the same binary search at the root, the same move order at each
//! node (the solver's [`MoveSorter`], the best move of an earlier window first), and at each
//! leaf the bound the shards proved, if it answers the window there. Where no bound answers,
//! the leaf is asked for (with every window the replay needed of it), and the replay goes on
//! as if the leaf scored a guess, so that one round asks for every leaf the search is likely
//! to need, not one at a time. The guess is a score for the root (a draw, a loss or a win:
//! most scores near the root are small), each unknown leaf taken to score it from the root's
//! side, within what is known of the leaf; of the three, the plan takes the one whose replay
//! asks for the fewest leaves, the one the known bounds support best ([`GUESSES`]). A move
//! whose known bounds already prove it good enough ends its node with nothing asked,
//! whatever the move order puts first (the top tree's enhanced transposition cutoff). A
//! later round replays with what the earlier ones proved (a bound proved in round 1 still
//! holds in round 3), and asks again where a guess was wrong; the root is solved when a
//! replay needs no guess. Alpha-beta's answer from proved bounds alone is exact, so the
//! root's answer is.
//!
//! This is MTD(f)'s and the checkers proof's division of labour (Schaeffer et al., "Checkers
//! is solved", Science 2007: a manager picks positions, many solvers prove them), with
//! APHID's guessed leaves (Brockington and Schaeffer, 1997): the top tree is small and
//! replayed in memory at each merge; the leaves' searches are the work. What it costs, and
//! what else was tried, is in docs/connect4/rounds.md.

use std::collections::HashMap;
use std::ops::RangeInclusive;
use transpo_connect4::book::Tree;
use transpo_connect4::moves::MoveSorter;
use transpo_connect4::position::Bitboard;
use transpo_connect4::position::Position;
use transpo_connect4::score::{
    DRAW, Window, loss_later_min, loss_next_score, win_later_max, win_now_score,
};

/// What the top tree of a split knows, and what it asks next.
#[derive(Clone, Debug)]
pub struct Plan<const W: usize, const H: usize, B: Bitboard> {
    root: Position<W, H, B>,
    depth: u32,
    /// What the root's solve must find out.
    window: Window,
    /// The range each leaf's score is known to lie in, by its symmetric key.
    known: HashMap<B, (i32, i32)>,
}

/// What a [`Plan`] needs next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next<B: Bitboard> {
    /// The root's score lies in this range, proved from the leaves' bounds: one score, or
    /// (for a weak solve) a range on one side of the draw.
    Solved(RangeInclusive<i32>),
    /// These leaves (by symmetric key) searched with these windows, then another replay.
    Search(Vec<(B, Window)>),
}

impl<const W: usize, const H: usize, B: Bitboard> Plan<W, H, B> {
    /// The plan of the tree below `root` down to `depth` stones, whose root's solve must
    /// find out what `window` asks ([`Window::of`] the split's strength), knowing nothing of
    /// its leaves yet.
    pub fn new(root: &Position<W, H, B>, depth: u32, window: Window) -> Self {
        Plan {
            root: *root,
            depth,
            window,
            known: HashMap::new(),
        }
    }

    /// Takes in that the score of the leaf `pos` lies in `range` (a shard's result): the
    /// range known of it narrows to the overlap. Returns `false`, taking nothing in, if the
    /// two do not overlap: some result is wrong.
    pub fn learn(&mut self, pos: &Position<W, H, B>, range: RangeInclusive<i32>) -> bool {
        let key = pos.symmetric_key();
        let (lo, hi) = self
            .known
            .get(&key)
            .copied()
            .unwrap_or_else(|| trivial(pos));
        let (lo, hi) = (lo.max(*range.start()), hi.min(*range.end()));
        if lo > hi {
            return false;
        }
        self.known.insert(key, (lo, hi));
        true
    }

    /// The range known of the leaf `pos`'s score.
    pub fn known(&self, pos: &Position<W, H, B>) -> RangeInclusive<i32> {
        let (lo, hi) = self
            .known
            .get(&pos.symmetric_key())
            .copied()
            .unwrap_or_else(|| trivial(pos));
        lo..=hi
    }

    /// Replays the root's solve over the top tree with what is known: the root's range if
    /// that decides its window, else the leaves to search and their windows.
    pub fn next(&self) -> Next<B> {
        let mut fewest: Option<Vec<(B, Window)>> = None;
        for guess in GUESSES {
            let mut replay = Replay {
                plan: self,
                asked: Vec::new(),
                index: HashMap::new(),
                best: HashMap::new(),
            };
            let range = replay.solve_root(guess);
            if replay.asked.is_empty() {
                return Next::Solved(range);
            }
            if fewest.as_ref().is_none_or(|f| replay.asked.len() < f.len()) {
                fewest = Some(replay.asked);
            }
        }
        Next::Search(fewest.unwrap_or_default())
    }

    /// The range of every position of `tree` (the tree of this plan), from the leaves' known
    /// ranges by minimax: for the book of what the rounds proved (a position whose range is
    /// one score).
    pub fn ranges(&self, tree: &Tree<W, H, B>) -> HashMap<B, (i32, i32)> {
        let mut ranges: HashMap<B, (i32, i32)> = HashMap::with_capacity(tree.len());
        // Deepest first: every child's range is there before its parent's.
        for (pos, _) in tree.positions() {
            let range = if let Some(exact) = settled(pos) {
                (exact, exact)
            } else if tree.is_leaf(pos) {
                let known = self.known(pos);
                (*known.start(), *known.end())
            } else {
                let (mut lo, mut hi) = (i32::MIN, i32::MIN);
                let mut rest = pos.non_losing_moves();
                while rest != B::ZERO {
                    let square = rest.lowest();
                    rest &= rest - B::ONE;
                    let child = pos.after(square);
                    let (clo, chi) = match settled(&child) {
                        Some(exact) => (exact, exact),
                        None => ranges.get(&child.symmetric_key()).copied().unwrap_or_else(
                            // Every child of a position of the tree that is not a leaf is in
                            // the tree; a position outside it is only bounded.
                            || trivial(&child),
                        ),
                    };
                    lo = lo.max(-chi);
                    hi = hi.max(-clo);
                }
                (lo, hi)
            };
            ranges.insert(pos.symmetric_key(), range);
        }
        ranges
    }
}

/// The exact score of a position the search settles without looking at its children: a win
/// with the next stone, a loss when every move hands the opponent one, a draw when two
/// squares are left and no one can win with them (the solver's own first steps).
pub(crate) fn settled<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
) -> Option<i32> {
    let moves = pos.moves();
    if pos.can_win_next() {
        return Some(win_now_score(W * H, moves));
    }
    if pos.non_losing_moves() == B::ZERO {
        return Some(loss_next_score(W * H, moves));
    }
    if moves as usize >= W * H - 2 {
        return Some(DRAW);
    }
    None
}

/// What every position the side to move cannot win at once, whose opponent cannot win with
/// their next stone, is known to score before any search.
pub(crate) fn trivial<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
) -> (i32, i32) {
    match settled(pos) {
        Some(exact) => (exact, exact),
        None => unsettled(pos),
    }
}

/// [`trivial`]'s range of a position that [`settled`] does not settle.
pub(crate) fn unsettled<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
) -> (i32, i32) {
    (
        loss_later_min(W * H, pos.moves()),
        win_later_max(W * H, pos.moves()).min(pos.claimeven_bound().unwrap_or(i32::MAX)),
    )
}

/// The root's scores a replay may guess the unknown leaves lead to (each leaf taken to score
/// it, from the root's side), in the order they are preferred when they ask as many leaves:
/// a draw first, most scores near the root being small. The plan asks for the leaves of the
/// guess that asks the fewest: the one the known bounds already support best. Guessing a
/// draw alone cost many times more on boards the second player wins (measured:
/// docs/connect4/rounds.md, 2026-11-26, “the plan, tried and not kept”).
const GUESSES: [i32; 3] = [DRAW, -1, 1];

/// One replay of the root's solve over the top tree.
struct Replay<'p, const W: usize, const H: usize, B: Bitboard> {
    plan: &'p Plan<W, H, B>,
    /// The leaves without a bound that answers, and every window asked of each, united, in
    /// the order the replay met them (a search's order: neighbours in the tree, whose
    /// subtrees share positions, come together).
    asked: Vec<(B, Window)>,
    /// Each asked leaf's place in `asked`.
    index: HashMap<B, usize>,
    /// Each node's best move in an earlier window (the solver's table keeps it too).
    best: HashMap<B, usize>,
}

impl<const W: usize, const H: usize, B: Bitboard> Replay<'_, W, H, B> {
    /// The binary search on the root's score, as [`transpo_connect4::solver::Solver`] runs it.
    fn solve_root(&mut self, guess: i32) -> RangeInclusive<i32> {
        let root = self.plan.root;
        if let Some(exact) = settled(&root) {
            return exact..=exact;
        }
        let window = self.plan.window;
        let (mut min, mut max) = trivial(&root);
        while !window.decided(min, max) {
            let med = window.next(min, max);
            let r = self.negamax(&root, med, med + 1, guess);
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        min..=max
    }

    /// Fail-soft negamax in `[alpha, beta]` over the top tree, the leaves answered by their
    /// known ranges or, where those do not answer, asked for and guessed to score a draw.
    fn negamax(&mut self, pos: &Position<W, H, B>, alpha: i32, beta: i32, guess: i32) -> i32 {
        if let Some(exact) = settled(pos) {
            return exact;
        }
        let key = pos.symmetric_key();
        if pos.moves() >= self.plan.depth {
            let known = self.plan.known(pos);
            let (lo, hi) = (*known.start(), *known.end());
            if hi <= alpha || lo >= beta || lo == hi {
                return if hi <= alpha { hi } else { lo };
            }
            // Thresholds outside what is known are decided already: the window asked need
            // not reach past the known range.
            let (alpha, beta) = (alpha.max(lo - 1), beta.min(hi + 1));
            let i = *self.index.entry(key).or_insert_with(|| {
                self.asked.push((key, Window { alpha, beta }));
                self.asked.len() - 1
            });
            let asked = &mut self.asked[i].1;
            asked.alpha = asked.alpha.min(alpha);
            asked.beta = asked.beta.max(beta);
            return guess.clamp(lo, hi);
        }
        // A move the known bounds already prove good enough ends the node with nothing asked,
        // whatever the order puts first (the top tree's enhanced transposition cutoff).
        let mut rest = pos.non_losing_moves();
        while rest != B::ZERO {
            let square = rest.lowest();
            rest &= rest - B::ONE;
            if let Some(score) = self.proved(&pos.after(square), -beta, -alpha)
                && -score >= beta
            {
                self.best
                    .insert(key, Position::<W, H, B>::column_of(square));
                return -score;
            }
        }
        let mut sorter = MoveSorter::<W, H, B>::EMPTY;
        sorter.start_at(pos, self.best.get(&key).copied());
        let mut best = i32::MIN;
        while let Some((square, _)) = sorter.next(pos) {
            let score = -self.negamax(&pos.after(square), -beta, -alpha.max(best), -guess);
            if score >= beta {
                self.best
                    .insert(key, Position::<W, H, B>::column_of(square));
                return score;
            }
            best = best.max(score);
        }
        best
    }

    /// Fail-soft negamax in `[alpha, beta]` from what is known alone: the score, or `None`
    /// if some leaf it would need is not known enough.
    fn proved(&self, pos: &Position<W, H, B>, alpha: i32, beta: i32) -> Option<i32> {
        if let Some(exact) = settled(pos) {
            return Some(exact);
        }
        if pos.moves() >= self.plan.depth {
            let known = self.plan.known(pos);
            let (lo, hi) = (*known.start(), *known.end());
            return if hi <= alpha {
                Some(hi)
            } else if lo >= beta || lo == hi {
                Some(lo)
            } else {
                None
            };
        }
        let mut best = i32::MIN;
        let mut rest = pos.non_losing_moves();
        let mut unknown = false;
        while rest != B::ZERO {
            let square = rest.lowest();
            rest &= rest - B::ONE;
            match self.proved(&pos.after(square), -beta, -alpha.max(best)) {
                Some(score) if -score >= beta => return Some(-score),
                Some(score) => best = best.max(-score),
                None => unknown = true,
            }
        }
        (!unknown).then_some(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use transpo_connect4::score::{Strength, finish};
    use transpo_connect4::solver::Solver;

    /// Solves `root` in rounds over the tree down to `depth` stones, every asked leaf searched
    /// with its window by a fresh solver each round; returns the root's range and the rounds.
    fn in_rounds<const W: usize, const H: usize, B: Bitboard>(
        root: &Position<W, H, B>,
        depth: u32,
        strength: Strength,
    ) -> (RangeInclusive<i32>, usize) {
        let tree = Tree::new(root, "", depth).expect("a small tree");
        let leaves: HashMap<B, Position<W, H, B>> = tree
            .leaves()
            .map(|(pos, _)| (pos.symmetric_key(), *pos))
            .collect();
        let mut plan = Plan::new(root, tree.depth(), Window::of(strength));
        for round in 0.. {
            match plan.next() {
                Next::Solved(range) => return (range, round),
                Next::Search(asked) => {
                    let mut solver = Solver::<W, H, B>::new(4).expect("4 MiB");
                    for (key, window) in asked {
                        let leaf = leaves[&key];
                        let range = solver.solve_window(&leaf, window);
                        assert!(window.decided(*range.start(), *range.end()));
                        assert!(plan.learn(&leaf, range));
                    }
                }
            }
        }
        unreachable!("the loop returns")
    }

    /// The root's answer in rounds is one solve's, strong and weak, on roots of several
    /// boards and depths (including roots whose game a move ends, and a root that is its own
    /// only leaf), and the book of what the rounds proved holds only true scores.
    #[test]
    fn rounds_give_one_solves_answer() {
        fn check<const W: usize, const H: usize, B: Bitboard>(moves: &str, depth: u32) {
            let root = Position::<W, H, B>::from_moves(moves).expect("a position");
            let mut solver = Solver::<W, H, B>::new(4).expect("4 MiB");
            for strength in [Strength::Strong, Strength::Weak] {
                let (range, rounds) = in_rounds(&root, depth, strength);
                assert!(Window::of(strength).decided(*range.start(), *range.end()));
                assert_eq!(
                    finish(*range.start(), strength),
                    solver.solve(&root, strength),
                    "{W}x{H} {moves:?} depth {depth} {strength:?} in {rounds} rounds"
                );
            }
        }
        check::<4, 4, u64>("", 3);
        check::<4, 4, u64>("", 0);
        check::<5, 4, u64>("", 4);
        check::<5, 5, u64>("", 4);
        check::<5, 5, u64>("33", 5);
        check::<6, 4, u64>("", 4);
        check::<6, 5, u64>("3", 4);
        check::<7, 4, u64>("44", 5);
        check::<4, 5, u64>("1122", 6);
    }

    /// What a plan learns narrows, and a result that contradicts what it knows is refused.
    #[test]
    fn learning_narrows_and_refuses_contradictions() {
        let root = Position::<4, 4>::new();
        let leaf = Position::<4, 4>::from_moves("12").expect("a position");
        let mut plan = Plan::new(&root, 2, Window::EXACT);
        let (lo, hi) = trivial(&leaf);
        assert_eq!(plan.known(&leaf), lo..=hi);
        assert!(plan.learn(&leaf, -3..=2));
        assert!(plan.learn(&leaf, 0..=5));
        assert_eq!(plan.known(&leaf), 0.max(lo)..=2.min(hi));
        assert!(!plan.learn(&leaf, 3..=4));
        assert_eq!(plan.known(&leaf), 0.max(lo)..=2.min(hi));
    }
}
