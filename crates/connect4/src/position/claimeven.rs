//! Static bounds from claimeven (Allis, "A Knowledge-based Approach of Connect-Four", 1988):
//! what the squares still allow each side once the second player answers every move in the
//! same column, found with a few shifts of the bitboards and no search. The search asks
//! [`Position::claimeven_bound`] at every node and, before searching the children of a
//! node, [`Position::children_may_have_claimeven_bounds`].

use super::{Bitboard, Position};

impl<const W: usize, const H: usize, B: Bitboard> Position<W, H, B> {
    /// The squares of rows 2, 4, 6, … counted from the bottom.
    const EVEN_ROWS_BITS: u128 = {
        let mut rows = 0;
        let mut row = 1;
        while row < H {
            rows |= Self::BOTTOM_BITS << row;
            row += 2;
        }
        rows
    };

    /// The squares of rows 2, 4, 6, … counted from the bottom.
    #[inline(always)]
    fn even_rows() -> B {
        B::from_u128(Self::EVEN_ROWS_BITS)
    }

    /// The first player's score when it cannot make four and the opponent, keeping the
    /// squares `kept` (even rows), has a four among them and its `stones`: at most the loss on
    /// the latest move the opponent can be held to. A four whose empty squares lie in rows up
    /// to `r` is complete once those squares are filled, which the first player can put off at
    /// most until only the `H − r` squares above one of them are left: the opponent's winning
    /// stone is at the latest number `W·H − H + r`, a score of `−(H + 2 − r) / 2` (−3, −2, −1
    /// for rows 2, 4, 6 on 7×6).
    fn claimeven_loss(stones: B, kept: B) -> i32 {
        let mut row = 2;
        while row < H {
            let rows_up_to = B::from_u128(Self::BOTTOM_BITS * ((1 << row) - 1));
            if Self::has_four(stones | (kept & rows_up_to)) {
                return -((H + 2 - row) as i32) / 2;
            }
            row += 2;
        }
        -1
    }

    /// Whether `stones` (squares of the board only) hold four in a row, column or diagonal.
    #[inline]
    pub(super) fn has_four(stones: B) -> bool {
        [1, Self::H1, Self::H1 - 1, Self::H1 + 1]
            .into_iter()
            .any(|shift| fours(stones, shift) != B::ZERO)
    }

    /// The squares strictly above `squares` in their columns.
    #[inline]
    fn strictly_above(squares: B) -> B {
        let mut above = B::ZERO;
        let mut row = squares;
        for _ in 1..H {
            row = (row << 1) & Self::board();
            above |= row;
        }
        above
    }

    /// Whether `first`, filling squares bottom-up against `second`, may complete a four before
    /// `second` does: unless `first` has no four in a column and each of its other fours has a
    /// four of `second` in the same direction below it (the same squares shifted down), whose
    /// squares must all be filled before the four above them can be.
    #[inline]
    fn may_win_first(first: B, second: B) -> bool {
        fours(first, 1) != B::ZERO
            || [Self::H1, Self::H1 - 1, Self::H1 + 1]
                .into_iter()
                .any(|shift| {
                    let mine = fours(first, shift);
                    mine != B::ZERO && mine & !Self::strictly_above(fours(second, shift)) != B::ZERO
                })
    }

    /// An upper bound on the side to move's score from what the squares still allow, without
    /// search: 0 if it can never make four in a row first, a loss (−1, or lower when the
    /// opponent's four lies low enough to be complete early) if in addition the opponent is
    /// sure to make one, `None` if this shows nothing.
    ///
    /// With an even number of stones on the board (the first player to move, on a board of
    /// even height) the opponent can keep every empty even-row square (rows 2, 4, 6 counted
    /// from the bottom) that is not playable now ("claimeven", Allis 1988): when the first
    /// player plays in a column with an even number of stones, it takes an odd-row square and
    /// the opponent answers on top of it, an even-row square that was not playable at the
    /// start; when it plays in a column with an odd number of stones, which no one has
    /// touched since (the others are even again after each answer), it takes that column's
    /// playable even square and the opponent takes the playable even square of another such
    /// column — one is left, since their number was even. So the first player ends with at
    /// most its stones and the other empty squares, and the opponent with all it keeps. The
    /// first player cannot win if those squares hold no four, nor if each of its fours has
    /// one of the opponent's below it — the same four shifted down, in the same columns,
    /// which is complete before the one above can be; and the opponent wins if it has a four
    /// (the board cannot fill up before). With an odd number of stones only the first part is
    /// used, with every empty square: a side that could not make four even with all of them
    /// cannot win.
    #[inline(always)]
    pub fn claimeven_bound(&self) -> Option<i32> {
        let empty = Self::board() & !self.mask;
        let opponent = self.current ^ self.mask;
        if H.is_multiple_of(2) && self.moves.is_multiple_of(2) {
            let kept = Self::even_rows() & empty & !self.possible();
            if Self::may_win_first(self.current | (empty & !kept), opponent | kept) {
                None
            } else if Self::has_four(opponent | kept) {
                Some(Self::claimeven_loss(opponent, kept))
            } else {
                Some(0)
            }
        } else if Self::has_four(self.current | empty) {
            None
        } else {
            Some(0)
        }
    }

    /// Whether [`Position::claimeven_bound`] can give anything after one of this position's
    /// moves, when it has an odd number of stones: `false` when the player to move after it
    /// (the first player) keeps a four that may come first (see `claimeven_bound`) among its
    /// stones and the empty odd-row squares not playable now, against every four the
    /// opponent could keep. A move fills one playable square and makes the one above it
    /// playable, so those squares stay empty, on odd rows and thus outside what claimeven
    /// gives the opponent, who keeps at most its stones, the playable squares and the empty
    /// even-row ones, whichever move is played: one test for up to seven bounds.
    #[inline]
    pub fn children_may_have_claimeven_bounds(&self) -> bool {
        let empty = Self::board() & !self.mask;
        let opponent = self.current ^ self.mask;
        let possible = self.possible();
        let kept_by_first = opponent | (empty & !Self::even_rows() & !possible);
        let at_most_second = self.current | possible | (empty & Self::even_rows());
        !Self::may_win_first(kept_by_first, at_most_second)
    }
}

/// The fours of `stones` along `shift` (1 up a column, `H + 1` along a row, `H + 1 ∓ 1` the
/// diagonals), each marked by its lowest-numbered square.
#[inline]
fn fours<B: Bitboard>(stones: B, shift: usize) -> B {
    let pairs = stones & (stones >> shift);
    pairs & (pairs >> (2 * shift))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The side to move's exact score by plain minimax over every move (Pons' convention:
    /// a win with the stone after `n` on the board scores (W·H + 1 − n) / 2).
    fn minimax<const W: usize, const H: usize, B: Bitboard>(p: &Position<W, H, B>) -> i32 {
        let squares = (W * H) as i32;
        if p.moves() as i32 == squares {
            return 0;
        }
        let playable = || (0..W).filter(|&col| p.can_play(col));
        if playable().any(|col| p.is_winning_move(col)) {
            return (squares + 1 - p.moves() as i32) / 2;
        }
        playable()
            .map(|col| {
                let mut next = *p;
                next.play_column(col);
                -minimax(&next)
            })
            .max()
            .expect("a board that is not full has a playable column")
    }

    /// Random play (no winning moves) to `stones` stones, or `None` if it got stuck.
    fn random_position<const W: usize, const H: usize, B: Bitboard>(
        seed: &mut u64,
        stones: u32,
    ) -> Option<Position<W, H, B>> {
        let mut p = Position::new();
        while p.moves() < stones {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = (*seed >> 33) as usize;
            let safe: Vec<usize> = (0..W)
                .filter(|&col| p.can_play(col) && !p.is_winning_move(col))
                .collect();
            p.play_column(*safe.get(pick % safe.len().max(1))?);
        }
        Some(p)
    }

    /// What [`check`] saw: bounds of 0, of −1 and lower, children skipped, and bounds where
    /// the first player has fours all covered by the opponent's below.
    #[derive(Debug, Default)]
    struct Seen {
        draws: u32,
        losses: u32,
        early_losses: u32,
        skipped: u32,
        covered: u32,
    }

    /// Checks `count` random positions of `W`×`H` with `empty` to `empty + 2` empty squares
    /// against plain minimax: no claimeven bound lies below the score, and no child of a
    /// position whose children are said to have none has one.
    fn check<const W: usize, const H: usize, B: Bitboard>(
        count: u32,
        empty: u32,
        seed: u64,
    ) -> Seen {
        let mut seed = seed;
        let mut seen = Seen::default();
        let mut checked = 0;
        while checked < count {
            let stones = (W * H) as u32 - empty - checked % 3;
            let Some(p) = random_position::<W, H, B>(&mut seed, stones) else {
                continue;
            };
            checked += 1;
            let exact = minimax(&p);
            if p.moves() % 2 == 1 && !p.children_may_have_claimeven_bounds() {
                for col in (0..W).filter(|&col| p.can_play(col) && !p.is_winning_move(col)) {
                    let mut child = p;
                    child.play_column(col);
                    assert_eq!(child.claimeven_bound(), None, "{W}x{H} {p:?}, column {col}");
                    seen.skipped += 1;
                }
            }
            if let Some(bound) = p.claimeven_bound() {
                assert!(
                    exact <= bound,
                    "{W}x{H} {p:?}: score {exact} above bound {bound}"
                );
                let empty = Position::<W, H, B>::board() & !p.mask;
                let kept = Position::<W, H, B>::even_rows() & empty & !p.possible();
                if p.moves % 2 == 0 && Position::<W, H, B>::has_four(p.current | (empty & !kept)) {
                    seen.covered += 1;
                }
                match bound {
                    0 => seen.draws += 1,
                    -1 => seen.losses += 1,
                    _ => seen.early_losses += 1,
                }
            }
        }
        seen
    }

    #[test]
    fn the_claimeven_bound_never_undercuts_the_minimax_score_and_is_skipped_only_when_empty() {
        let seen = check::<7, 6, u64>(12000, 6, 7);
        // Every kind of bound comes up, so the comparison means something.
        assert!(
            seen.draws > 40
                && seen.losses > 10
                && seen.early_losses > 10
                && seen.skipped > 100
                && seen.covered > 10,
            "{seen:?}"
        );
    }

    #[test]
    fn the_claimeven_bound_holds_on_other_boards() {
        // Even heights, where the opponent's claimeven applies, and odd ones, where only the
        // can't-win bound does.
        let seen = [
            check::<4, 4, u64>(3000, 8, 1),
            check::<6, 4, u64>(3000, 8, 2),
            check::<5, 6, u64>(3000, 8, 3),
            check::<4, 8, u64>(3000, 8, 4),
            check::<8, 4, u64>(2000, 8, 5),
            check::<12, 4, u64>(2000, 8, 6),
            check::<9, 5, u64>(2000, 8, 7),
            check::<4, 15, u64>(2000, 8, 8),
            check::<8, 8, u128>(1000, 8, 9),
            check::<13, 4, u128>(1000, 8, 10),
            check::<4, 16, u128>(1000, 8, 11),
            check::<7, 9, u128>(1000, 8, 12),
        ];
        // Bounds come up on the even heights (on 9×5 and 4×15, where a side must be unable
        // to make four even with every empty square, they are rare).
        for (i, s) in seen[..6].iter().enumerate() {
            assert!(s.draws + s.losses + s.early_losses > 20, "board {i}: {s:?}");
        }
        assert!(
            seen[..4].iter().all(|s| s.losses + s.early_losses > 0),
            "{seen:?}"
        );
    }
}
