//! The search: negamax alpha-beta over non-losing moves, null windows, and the binary search
//! on the score that turns null-window answers into an exact (strong) or a win/draw/loss
//! (weak) result.
//!
//! Why this shape (Pons, "Solving Connect 4", Parts 4–12): a null-window search `[s, s+1]`
//! only answers "is the score above `s`?", but answers it with far fewer nodes than a wide
//! window, and every answer is a bound worth keeping in the table. Binary search on `s`,
//! starting near 0 where most scores lie, needs a handful of such searches for the exact
//! score; the weak solver asks only about `[-1, 1]`.
//!
//! Scores are from the side to move: a win with the player's `k`-th stone is `22 − k`, a
//! loss to the opponent's `k`-th stone `−(22 − k)`, a draw 0; in general a win at move
//! `n + 1` (when `n` stones are down) is worth `(43 − n) / 2`.

use crate::book::Book;
use crate::bounds::{BoundStore, BoundTable, ScoreBound, TableError};
use crate::moves::MoveSorter;
use crate::position::{HEIGHT, Position, SQUARES, WIDTH};

const SQUARES_I: i32 = SQUARES as i32;
/// Enhanced transposition cutoffs only where at least 20 squares are empty: nearer the end
/// the subtrees are too small to pay for probing every child (measured on Begin-Hard) ...
const ETC_MAX_MOVES: i32 = 22;
/// ... and only once a solve has explored this many positions: before that the table holds
/// too little for the extra probes to find anything (they slowed Begin-Easy down).
const ETC_AFTER_NODES: u64 = 100_000;

/// Strong (exact score) or weak (sign of the score) solving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    /// The exact score.
    Strong,
    /// Only win (1), draw (0) or loss (−1).
    Weak,
}

/// A solver: a bound table (by default the exact [`BoundTable`]), an optional opening book,
/// and a node counter.
pub struct Solver<T: BoundStore = BoundTable> {
    table: T,
    book: Option<Book>,
    nodes: u64,
    /// Subtree sizes as a replacement scheme counts them: `nodes`, except that a cutoff by a
    /// stored bound counts [`BoundStore::hit_weight`] (BIGALL's stored subtree size).
    weight: u64,
}

/// The score of a win with the side to move's next stone, when `moves` stones are down.
#[inline]
pub const fn win_now_score(moves: u32) -> i32 {
    (SQUARES_I + 1 - moves as i32) / 2
}

impl Solver {
    /// A solver with a table of `hash_mib` MiB.
    pub fn new(hash_mib: u64) -> Result<Self, TableError> {
        Ok(Solver::with_table(BoundTable::new(hash_mib)?))
    }
}

impl<T: BoundStore> Solver<T> {
    /// A solver on any bound store, e.g. a table configured for an experiment.
    pub fn with_table(table: T) -> Self {
        Solver {
            table,
            book: None,
            nodes: 0,
            weight: 0,
        }
    }

    /// The bound store.
    pub fn table(&self) -> &T {
        &self.table
    }

    /// Uses `book` for the positions it holds.
    pub fn set_book(&mut self, book: Book) {
        self.book = Some(book);
    }

    /// Forgets the table's contents and zeroes the node counter.
    pub fn reset(&mut self) {
        self.table.clear();
        self.nodes = 0;
        self.weight = 0;
    }

    /// Positions explored (calls to the search) since the last [`Solver::reset`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Entries the table holds.
    pub fn table_capacity(&self) -> usize {
        self.table.capacity()
    }

    /// The score of `pos`: exact for [`Strength::Strong`], its sign for [`Strength::Weak`].
    pub fn solve(&mut self, pos: &Position, strength: Strength) -> i32 {
        if pos.can_win_next() {
            return finish(win_now_score(pos.moves()), strength);
        }
        let (mut min, mut max) = match strength {
            Strength::Strong => (
                -(SQUARES_I - pos.moves() as i32) / 2,
                win_now_score(pos.moves()),
            ),
            Strength::Weak => (-1, 1),
        };
        while min < max {
            let mut med = min + (max - min) / 2;
            if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            let r = self.negamax(pos, med, med + 1, pos.opponent_winning());
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        finish(min, strength)
    }

    /// The score of every column of `pos` from the side to move's view (`None` for a full
    /// column): a winning move scores the win, any other move minus the reply's score.
    pub fn analyze(&mut self, pos: &Position, strength: Strength) -> [Option<i32>; WIDTH] {
        let mut scores = [None; WIDTH];
        for (col, score) in scores.iter_mut().enumerate() {
            if !pos.can_play(col) {
                continue;
            }
            *score = Some(if pos.is_winning_move(col) {
                finish(win_now_score(pos.moves()), strength)
            } else {
                let mut next = *pos;
                next.play_column(col);
                if next.moves() as usize == SQUARES {
                    0
                } else {
                    -self.solve(&next, strength)
                }
            });
        }
        scores
    }

    /// Negamax with alpha-beta in `[alpha, beta]`, for a position where the side to move
    /// cannot win at once, whose opponent's winning squares are `threats`
    /// ([`Position::opponent_winning`]: the parent computed them to order its moves). Returns
    /// the exact score if it lies inside the window, else a bound on the same side of the
    /// window as the score (fail-soft within the known bounds).
    fn negamax(&mut self, pos: &Position, mut alpha: i32, mut beta: i32, threats: u64) -> i32 {
        debug_assert!(alpha < beta && !pos.can_win_next());
        self.nodes += 1;
        // Subtree sizes cost a counter per node: only for stores that keep them.
        if T::WEIGHS_SUBTREES {
            self.weight += 1;
        }
        let first = self.weight;
        let moves = pos.moves() as i32;
        let candidates = pos.non_losing_moves_against(threats);
        if candidates == 0 {
            // Every move lets the opponent win with their next stone.
            return -(SQUARES_I - moves) / 2;
        }
        if moves >= SQUARES_I - 2 {
            // Two squares left and no one can win with them.
            return 0;
        }
        // The opponent cannot win with their next stone, so we lose at the earliest later.
        let min = -(SQUARES_I - 2 - moves) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        // We cannot win with this stone, so at best with the next one.
        let mut max = (SQUARES_I - 1 - moves) / 2;
        if let Some(book) = &self.book
            && let Some(score) = book.get(pos)
        {
            return score;
        }
        let mut hint = None;
        let mut hit = false;
        if let Some((bound, best)) = self.table.get(pos) {
            hint = best;
            hit = true;
            match bound {
                ScoreBound::Upper(upper) => max = max.min(upper),
                ScoreBound::Lower(lower) if alpha < lower => {
                    alpha = lower;
                    if alpha >= beta {
                        self.weight += self.table.hit_weight(pos) - 1;
                        return alpha;
                    }
                }
                ScoreBound::Lower(_) => {}
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                if hit {
                    self.weight += self.table.hit_weight(pos) - 1;
                }
                return beta;
            }
        }
        // Each child probes the table first thing; start those cache misses now, so that
        // they overlap with move ordering and with each other.
        let mut rest = candidates;
        while rest != 0 {
            self.table.prefetch(&pos.after(rest & rest.wrapping_neg()));
            rest &= rest - 1;
        }
        // Enhanced transposition cutoff: a child whose stored upper bound already refutes
        // it at the window's top ends the node without a search.
        let mut rest = if moves <= ETC_MAX_MOVES && self.nodes > ETC_AFTER_NODES {
            candidates
        } else {
            0
        };
        while rest != 0 {
            let square = rest & rest.wrapping_neg();
            rest &= rest - 1;
            let child = pos.after(square);
            if let Some((ScoreBound::Upper(upper), _)) = self.table.get(&child)
                && -upper >= beta
            {
                let nodes = self.table.hit_weight(&child);
                self.weight += nodes;
                let col = (square.trailing_zeros() / (HEIGHT as u32 + 1)) as usize;
                self.table
                    .put(pos, ScoreBound::Lower(-upper), Some(col), nodes + 1);
                return -upper;
            }
        }
        let mut moves = MoveSorter::EMPTY;
        moves.start(candidates, hint);
        while let Some((square, threats)) = moves.next(pos) {
            let score = -self.negamax(&pos.after(square), -beta, -alpha, threats);
            if score >= beta {
                let col = (square.trailing_zeros() / (HEIGHT as u32 + 1)) as usize;
                let nodes = self.weight - first + 1;
                self.table
                    .put(pos, ScoreBound::Lower(score), Some(col), nodes);
                return score;
            }
            alpha = alpha.max(score);
        }
        let nodes = self.weight - first + 1;
        self.table.put(pos, ScoreBound::Upper(alpha), hint, nodes);
        alpha
    }
}

/// The reported score: as is when strong, its sign when weak.
fn finish(score: i32, strength: Strength) -> i32 {
    match strength {
        Strength::Strong => score,
        Strength::Weak => score.signum(),
    }
}
