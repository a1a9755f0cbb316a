//! The positions of a book before they are scored: every position reachable from a root with
//! at most some number of stones, and the minimax that scores them all from the scores of the
//! deepest ones. [`Book::generate`] solves those deepest positions itself; a solve spread
//! over machines (`transpo-c4 split`, `solve-list`, `merge`, in the `transpo-c4` app) hands them
//! out as a list of move sequences and scores the tree once their results are back.

use super::{Book, BookError};
use crate::position::Bitboard;
use crate::position::{Position, column_char};
use crate::score::{Strength, column_scores};
use std::collections::{HashMap, HashSet};

/// Every position reachable from a root with at most [`Tree::depth`] stones whose game is not
/// over, one of each mirror pair and transposition, with a move sequence that reaches it.
/// Its *leaves* are those with `depth` stones (the root itself when it has `depth` stones):
/// each other position's children are in the tree or end the game.
#[derive(Clone, Debug)]
pub struct Tree<const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    depth: u32,
    /// Deepest first, so that children come before their parents.
    nodes: Vec<(Position<W, H, B>, String)>,
}

/// The most positions of a [`Tree`]: 2^23, about 8 million (every 7×6 position up to 12
/// stones is about 4 million; a tree this big takes about 1 GiB to hold, and its leaves
/// days to solve). A depth past it is refused rather than walked: on a narrow board a deep
/// split (`split --board 12x4 --depth 30`) would fill gigabytes before it got anywhere.
pub const MAX_TREE_POSITIONS: usize = 1 << 23;

impl<const W: usize, const H: usize, B: Bitboard> Tree<W, H, B> {
    /// The tree below `root`, which `root_moves` reaches (the sequences of the tree start with
    /// it), down to `depth` stones (at most one fewer than the board's squares). A depth
    /// equal to the root's stones makes the root the one leaf.
    ///
    /// # Errors
    ///
    /// [`BookError::BelowRoot`] if `depth` is below the root's stones (the tree would be
    /// empty); [`BookError::TooBig`] as soon as the tree holds more than
    /// [`MAX_TREE_POSITIONS`] positions, before it takes memory without end.
    pub fn new(root: &Position<W, H, B>, root_moves: &str, depth: u32) -> Result<Self, BookError> {
        if depth < root.moves() {
            return Err(BookError::BelowRoot {
                depth,
                stones: root.moves(),
            });
        }
        let depth = depth.min((W * H) as u32 - 1);
        let mut seen = HashSet::new();
        let mut nodes = Vec::new();
        let mut stack = vec![(*root, root_moves.to_string())];
        if root.moves() <= depth {
            seen.insert(root.symmetric_key());
            nodes.push((*root, root_moves.to_string()));
        }
        while let Some((pos, moves)) = stack.pop() {
            if pos.moves() >= depth {
                continue;
            }
            for col in 0..W {
                if !pos.can_play(col) || pos.is_winning_move(col) {
                    continue;
                }
                let mut next = pos;
                next.play_column(col);
                if (next.moves() as usize) < W * H && seen.insert(next.symmetric_key()) {
                    let mut next_moves = moves.clone();
                    next_moves.push(column_char(col));
                    nodes.push((next, next_moves.clone()));
                    stack.push((next, next_moves));
                    if nodes.len() > MAX_TREE_POSITIONS {
                        return Err(BookError::TooBig { depth });
                    }
                }
            }
        }
        nodes.sort_by_key(|(pos, _)| std::cmp::Reverse(pos.moves()));
        Ok(Tree { depth, nodes })
    }

    /// The most stones of a position in the tree.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Positions in the tree.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree is empty (never: [`Tree::new`] refuses a depth below the root's
    /// stones, and the root is in every other tree).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Whether `pos` of the tree is a leaf: one whose score the minimax needs from outside.
    pub fn is_leaf(&self, pos: &Position<W, H, B>) -> bool {
        pos.moves() >= self.depth
    }

    /// Every position and its move sequence, deepest first: each position's children in
    /// the tree come before it.
    pub fn positions(&self) -> impl Iterator<Item = &(Position<W, H, B>, String)> {
        self.nodes.iter()
    }

    /// The leaves and their move sequences, deepest first (all have `depth` stones).
    pub fn leaves(&self) -> impl Iterator<Item = &(Position<W, H, B>, String)> {
        self.nodes.iter().filter(|(pos, _)| self.is_leaf(pos))
    }

    /// Scores every position of the tree: each leaf by `leaf` (its exact score), every other
    /// by the minimax of its children's — a winning move scores the win, a move that fills
    /// the board 0, any other minus its child's score, and the position the best of them.
    /// The children of a position that is not a leaf are all in the tree (or end the game),
    /// and come before it, so this is exact.
    pub fn into_book(self, mut leaf: impl FnMut(&Position<W, H, B>) -> i32) -> Book<W, H, B> {
        let mut scores: HashMap<B, i8> = HashMap::with_capacity(self.nodes.len());
        for (pos, _) in &self.nodes {
            let score = if self.is_leaf(pos) {
                leaf(pos)
            } else {
                column_scores(pos, Strength::Strong, |next| {
                    Some(
                        scores
                            .get(&next.symmetric_key())
                            .map_or(0, |&s| i32::from(s)),
                    )
                })
                .into_iter()
                .flatten()
                .flatten()
                .max()
                .unwrap_or(0)
            };
            // Scores lie in −41..=41 on every board.
            scores.insert(pos.symmetric_key(), score as i8);
        }
        Book::of_scores(
            self.depth,
            scores.into_iter().map(|(key, s)| (key, i32::from(s))),
        )
    }
}
