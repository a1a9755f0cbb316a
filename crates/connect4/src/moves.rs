//! Move ordering: centre columns first, refined by the number of threats a move creates.
//!
//! Why it matters: alpha-beta prunes most when the best move comes first. In Connect Four
//! centre stones take part in more lines, and a move that leaves more of one's own winning
//! squares on the board tends to be strong. The order is Pons' (Part 10): an insertion sort
//! of at most seven moves, fed from the edges inwards so that among equal scores the most
//! central move comes out first.

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
    };

    /// [`centre_first`] for this board.
    const CENTRE_FIRST: [usize; W] = centre_first::<W>();

    /// Starts over with the moves among `candidates` (squares from
    /// [`Position::non_losing_moves`]), the one in column `first` (the table's best move) ahead
    /// of the others if it is a candidate.
    #[inline]
    pub fn start(&mut self, candidates: B, first: Option<usize>) {
        self.first = first.map_or(B::ZERO, |col| {
            candidates & Position::<W, H, B>::column_mask(col)
        });
        self.rest = candidates ^ self.first;
        self.len = 0;
    }

    /// The next move of `pos` (the position the moves were given for) and its player's
    /// winning squares after it, or `None` when all have been tried.
    // Always: as a generic function it was no longer inlined into the search, which cost 11%
    // more instructions (callgrind, 300 Begin-Easy lines).
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
                    self.add(square, threats, threats.count_ones());
                }
            }
        }
        self.len = self.len.checked_sub(1)?;
        Some((self.squares[self.len], self.threats[self.len]))
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
        sorter.start(candidates, first);
        std::iter::from_fn(|| sorter.next(pos))
            .map(|(sq, threats)| (Position::<7, 6>::column_of(sq), threats))
            .collect()
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
