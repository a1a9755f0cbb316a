//! Move ordering: centre columns first, refined by the threats a move creates and where
//! they lie.
//!
//! Why it matters: alpha-beta prunes most when the best move comes first. In Connect Four
//! centre stones take part in more lines, and a move that leaves more of one's own winning
//! squares on the board tends to be strong. The sort is Pons' (Part 10): an insertion sort
//! of at most seven moves, fed from the edges inwards so that among equal scores the most
//! central move comes out first. The score ([`move_score`]) weighs each winning square by
//! where it lies, after Steininger's solver, which weighs the same kinds of squares.

use crate::position::Bitboard;
use crate::position::Position;

/// The `W` columns from the centre outwards: 3, 2, 4, 1, 5, 0, 6 on 7 columns (on an even
/// number, the right one of the two middle columns first: 3, 2, 4, 1, 5, 0 on 6).
pub const fn centre_first<const W: usize>() -> [usize; W] {
    let mut order = [0; W];
    let mut i = 0;
    while i < W {
        // W/2 + (1 − 2·(i mod 2))·(i + 1)/2
        let offset = i.div_ceil(2);
        order[i] = if i % 2 == 0 {
            W / 2 + offset
        } else {
            W / 2 - offset
        };
        i += 1;
    }
    order
}

/// The score that orders a move among its node's: 6 for each winning square `threats` the
/// move leaves its player, 8 if the square lies just above a square playable after the
/// move (the opponent cannot play under it without handing over the game), 7 if it is
/// playable at once (the opponent must answer it), and nothing for a square just above one
/// of the opponent's winning squares `opponent_threats` (the opponent's comes first).
///
/// Pons' score is the bare count of winning squares; weighing them by where they lie
/// explores fewer positions on every set and the empty board. Other weights of the same
/// squares, and squares two above a playable one (Steininger's third kind), explored more
/// (measured: docs/connect4/search.md, 2026-11-27, “winning squares weighed by where they
/// lie”).
#[inline(always)]
pub fn move_score<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
    square: B,
    threats: B,
    opponent_threats: B,
) -> u32 {
    let useful = threats & !(opponent_threats << 1);
    let playable = pos.possible_after(square);
    6 * useful.count_ones()
        + 2 * (useful & (playable << 1)).count_ones()
        + (useful & playable).count_ones()
}

/// The moves of one node in the order to try them, each with the winning squares it leaves
/// its player (computed for its score, and handed on so that the next position need not
/// compute them again). Staged: the table's best move, if any, comes first, and the others
/// are scored only once it has been tried, since it often cuts off alone.
///
/// Start with [`MoveSorter::EMPTY`] and [`MoveSorter::start`] in the caller's frame: a
/// constructor returning the 160-byte sorter by value cost a `memcpy` call per node.
#[derive(Clone, Copy, Debug)]
pub struct MoveSorter<const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    /// The first move's square, 0 once tried or if there is none.
    first: B,
    /// The other moves, not scored yet (0 once scored).
    rest: B,
    /// The scored moves, best last.
    squares: [B; W],
    threats: [B; W],
    scores: [u32; W],
    len: usize,
    /// The opponent's winning squares at the node, for [`move_score`].
    opponent_threats: B,
}

impl<const W: usize, const H: usize, B: Bitboard> MoveSorter<W, H, B> {
    /// No moves.
    pub const EMPTY: Self = MoveSorter {
        first: B::ZERO,
        rest: B::ZERO,
        squares: [B::ZERO; W],
        threats: [B::ZERO; W],
        scores: [0; W],
        len: 0,
        opponent_threats: B::ZERO,
    };

    /// [`centre_first`] for this board.
    const CENTRE_FIRST: [usize; W] = centre_first::<W>();

    /// Starts over with the moves among `candidates` (squares from
    /// [`Position::non_losing_moves`]), the one in column `first` (the table's best move) ahead
    /// of the others if it is a candidate; `opponent_threats` are the position's
    /// [`Position::opponent_winning`] squares, which [`move_score`] weighs against.
    #[inline]
    pub fn start(&mut self, candidates: B, first: Option<usize>, opponent_threats: B) {
        self.opponent_threats = opponent_threats;
        self.first = first.map_or(B::ZERO, |col| {
            candidates & Position::<W, H, B>::column_mask(col)
        });
        self.rest = candidates ^ self.first;
        self.len = 0;
    }

    /// The next move of `pos` (the position the moves were given for) and its player's
    /// winning squares after it, or `None` when all have been tried.
    // Always: as a generic function it was no longer inlined into the search, which cost
    // instructions on every node.
    #[inline(always)]
    pub fn next(&mut self, pos: &Position<W, H, B>) -> Option<(B, B)> {
        if self.first != B::ZERO {
            let square = std::mem::take(&mut self.first);
            return Some((square, pos.winning_after(square)));
        }
        if self.rest != B::ZERO {
            let rest = std::mem::take(&mut self.rest);
            for &col in Self::CENTRE_FIRST.iter().rev() {
                let square = rest & Position::<W, H, B>::column_mask(col);
                if square != B::ZERO {
                    let threats = pos.winning_after(square);
                    let score = move_score(pos, square, threats, self.opponent_threats);
                    self.add(square, threats, score);
                }
            }
        }
        self.len = self.len.checked_sub(1)?;
        Some((self.squares[self.len], self.threats[self.len]))
    }

    /// [`MoveSorter::start`] with every non-losing move of `pos`, for callers that do not
    /// have the position's threats at hand (the search passes its own).
    #[inline]
    pub fn start_at(&mut self, pos: &Position<W, H, B>, first: Option<usize>) {
        let threats = pos.opponent_winning();
        self.start(pos.non_losing_moves_against(threats), first, threats);
    }

    /// Whether every move has been handed out.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.first == B::ZERO && self.rest == B::ZERO && self.len == 0
    }

    /// Inserts after every move of equal or lower score, so equal moves come out
    /// last-added first.
    #[inline]
    fn add(&mut self, square: B, threats: B, score: u32) {
        let mut i = self.len;
        self.len += 1;
        while i > 0 && self.scores[i - 1] > score {
            self.squares[i] = self.squares[i - 1];
            self.threats[i] = self.threats[i - 1];
            self.scores[i] = self.scores[i - 1];
            i -= 1;
        }
        self.squares[i] = square;
        self.threats[i] = threats;
        self.scores[i] = score;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every move `sorter` gives for `pos`, as (column, winning squares after it).
    fn all(pos: &Position, candidates: u64, first: Option<usize>) -> Vec<(usize, u64)> {
        let mut sorter = MoveSorter::EMPTY;
        sorter.start(candidates, first, pos.opponent_winning());
        std::iter::from_fn(|| sorter.next(pos))
            .map(|(sq, threats)| (Position::<7, 6>::column_of(sq), threats))
            .collect()
    }

    /// [`move_score`] against the same weights counted square by square from the columns'
    /// heights, on the positions of random games.
    #[test]
    fn move_scores_weigh_each_winning_square_by_where_it_lies() {
        const H1: usize = 7;
        let bit = |col: usize, row: usize| 1u64 << (col * H1 + row);
        for pos in crate::position::random_games::<7, 6, u64>(40, 7) {
            let opponent = pos.opponent_winning();
            for col in (0..7).filter(|&c| pos.can_play(c) && !pos.is_winning_move(c)) {
                let mut after = pos;
                after.play_column(col);
                let threats = after.opponent_winning();
                let heights: Vec<usize> = (0..7)
                    // A column's part of the key is its stones under a leading one at
                    // its height.
                    .map(|c| (after.key() >> (c * H1) & 0x7f).ilog2() as usize)
                    .collect();
                let mut expected = 0;
                for (c, &height) in heights.iter().enumerate() {
                    for row in 0..6 {
                        let mine = threats & bit(c, row) != 0;
                        let under_theirs = row > 0 && opponent & bit(c, row - 1) != 0;
                        if mine && !under_theirs {
                            expected +=
                                6 + u32::from(row == height) + 2 * u32::from(row == height + 1);
                        }
                    }
                }
                let square = pos.possible() & Position::<7, 6>::column_mask(col);
                assert_eq!(move_score(&pos, square, threats, opponent), expected);
            }
        }
    }

    #[test]
    fn centre_first_order() {
        assert_eq!(centre_first::<7>(), [3, 2, 4, 1, 5, 0, 6]);
        assert_eq!(centre_first::<6>(), [3, 2, 4, 1, 5, 0]);
        assert_eq!(centre_first::<4>(), [2, 1, 3, 0]);
        assert_eq!(centre_first::<12>(), [6, 5, 7, 4, 8, 3, 9, 2, 10, 1, 11, 0]);
    }

    #[test]
    fn on_the_empty_board_moves_come_centre_first() {
        let pos = Position::new();
        let cols: Vec<usize> = all(&pos, pos.possible(), None)
            .iter()
            .map(|m| m.0)
            .collect();
        assert_eq!(cols, centre_first::<7>());
    }

    #[test]
    fn a_move_creating_threats_comes_first() {
        // First player has two stones stacked in column 1; a third makes a winning square
        // above it, which no other move does, so column 1 beats the centre.
        let pos = Position::from_moves("1712").expect("valid");
        let moves = all(&pos, pos.possible(), None);
        assert_eq!(moves[0].0, 0);
        // Each move comes with the winning squares the next position must answer.
        for (col, threats) in moves {
            let mut next = pos;
            next.play_column(col);
            assert_eq!(threats, next.opponent_winning(), "column {col}");
        }
    }

    #[test]
    fn the_tables_move_comes_before_all_others_once() {
        let pos = Position::from_moves("1712").expect("valid");
        let cols: Vec<usize> = all(&pos, pos.possible(), Some(6))
            .iter()
            .map(|m| m.0)
            .collect();
        assert_eq!(cols[0], 6);
        let mut rest = cols[1..].to_vec();
        rest.sort_unstable();
        assert_eq!(rest, [0, 1, 2, 3, 4, 5]);
        // A best move that is not a candidate is ignored.
        let without = pos.possible() & !Position::<7, 6>::column_mask(6);
        let cols: Vec<usize> = all(&pos, without, Some(6)).iter().map(|m| m.0).collect();
        assert_eq!(cols.len(), 6);
        assert_eq!(cols[0], 0);
    }
}
