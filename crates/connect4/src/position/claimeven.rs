//! Static bounds from claimeven (Allis, "A Knowledge-based Approach of Connect-Four", 1988):
//! what the squares still allow each side once the second player answers every move in the
//! same column, found with a few shifts of the bitboards and no search. The search asks
//! [`Position::claimeven_bound`] at every node and, before searching the children of a
//! node, [`Position::children_may_have_claimeven_bounds`].

use super::{BOARD, BOTTOM, H1, HEIGHT, Position};

/// The squares of rows 2, 4, 6, … counted from the bottom.
const EVEN_ROWS: u64 = {
    let mut rows = 0;
    let mut row = 1;
    while row < HEIGHT {
        rows |= BOTTOM << row;
        row += 2;
    }
    rows
};

/// The first player's score when it cannot make four and the opponent, keeping the squares
/// `kept` (even rows), has a four among them and its `stones`: at most the loss on the latest
/// move the opponent can be held to. A four whose empty squares lie in rows up to `r` is
/// complete once those squares are filled, which the first player can put off at most until
/// only the `HEIGHT − r` squares above one of them are left: the opponent's winning stone is
/// at the latest number `SQUARES − HEIGHT + r`, a score of `−(HEIGHT + 2 − r) / 2` (−3, −2, −1
/// for rows 2, 4, 6 on 7×6).
fn claimeven_loss(stones: u64, kept: u64) -> i32 {
    let mut row = 2;
    while row < HEIGHT {
        let rows_up_to = BOTTOM * ((1 << row) - 1);
        if has_four(stones | (kept & rows_up_to)) {
            return -((HEIGHT + 2 - row) as i32) / 2;
        }
        row += 2;
    }
    -1
}

/// Whether `stones` (squares of the board only) hold four in a row, column or diagonal.
#[inline]
fn has_four(stones: u64) -> bool {
    [1, H1, H1 - 1, H1 + 1]
        .into_iter()
        .any(|shift| fours(stones, shift) != 0)
}

/// The fours of `stones` along `shift` (1 up a column, `H1` along a row, `H1 ∓ 1` the
/// diagonals), each marked by its lowest-numbered square.
#[inline]
fn fours(stones: u64, shift: usize) -> u64 {
    let pairs = stones & (stones >> shift);
    pairs & (pairs >> (2 * shift))
}

/// The squares strictly above `squares` in their columns.
#[inline]
fn strictly_above(squares: u64) -> u64 {
    let mut above = 0;
    let mut row = squares;
    for _ in 1..HEIGHT {
        row = (row << 1) & BOARD;
        above |= row;
    }
    above
}

/// Whether `first`, filling squares bottom-up against `second`, may complete a four before
/// `second` does: unless `first` has no four in a column and each of its other fours has a
/// four of `second` in the same direction below it (the same squares shifted down), whose
/// squares must all be filled before the four above them can be.
#[inline]
fn may_win_first(first: u64, second: u64) -> bool {
    fours(first, 1) != 0
        || [H1, H1 - 1, H1 + 1].into_iter().any(|shift| {
            let mine = fours(first, shift);
            mine != 0 && mine & !strictly_above(fours(second, shift)) != 0
        })
}

impl Position {
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
    #[inline]
    pub fn claimeven_bound(&self) -> Option<i32> {
        let empty = BOARD & !self.mask;
        let opponent = self.current ^ self.mask;
        if HEIGHT.is_multiple_of(2) && self.moves.is_multiple_of(2) {
            let kept = EVEN_ROWS & empty & !self.possible();
            if may_win_first(self.current | (empty & !kept), opponent | kept) {
                None
            } else if has_four(opponent | kept) {
                Some(claimeven_loss(opponent, kept))
            } else {
                Some(0)
            }
        } else if has_four(self.current | empty) {
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
        let empty = BOARD & !self.mask;
        let opponent = self.current ^ self.mask;
        let possible = self.possible();
        let kept_by_first = opponent | (empty & !EVEN_ROWS & !possible);
        let at_most_second = self.current | possible | (empty & EVEN_ROWS);
        !may_win_first(kept_by_first, at_most_second)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{SQUARES, WIDTH};

    /// The side to move's exact score by plain minimax over every move (Pons' convention:
    /// a win with the stone after `n` on the board scores (43 − n) / 2).
    fn minimax(p: &Position) -> i32 {
        if p.moves() as usize == SQUARES {
            return 0;
        }
        let playable = || (0..WIDTH).filter(|&col| p.can_play(col));
        if playable().any(|col| p.is_winning_move(col)) {
            return (SQUARES as i32 + 1 - p.moves() as i32) / 2;
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
    fn random_position(seed: &mut u64, stones: u32) -> Option<Position> {
        let mut p = Position::new();
        while p.moves() < stones {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = (*seed >> 33) as usize;
            let safe: Vec<usize> = (0..WIDTH)
                .filter(|&col| p.can_play(col) && !p.is_winning_move(col))
                .collect();
            p.play_column(*safe.get(pick % safe.len().max(1))?);
        }
        Some(p)
    }

    #[test]
    fn the_claimeven_bound_never_undercuts_the_minimax_score_and_is_skipped_only_when_empty() {
        let mut seed = 7;
        let (mut draws, mut losses, mut early_losses, mut checked) = (0, 0, 0, 0);
        let (mut skipped, mut covered) = (0, 0);
        while checked < 12000 {
            let stones = 34 + (checked % 3) as u32;
            let Some(p) = random_position(&mut seed, stones) else {
                continue;
            };
            checked += 1;
            let exact = minimax(&p);
            if p.moves() % 2 == 1 && !p.children_may_have_claimeven_bounds() {
                for col in (0..WIDTH).filter(|&col| p.can_play(col) && !p.is_winning_move(col)) {
                    let mut child = p;
                    child.play_column(col);
                    assert_eq!(child.claimeven_bound(), None, "{p:?}, column {col}");
                    skipped += 1;
                }
            }
            if let Some(bound) = p.claimeven_bound() {
                assert!(exact <= bound, "{p:?}: score {exact} above bound {bound}");
                let empty = BOARD & !p.mask;
                let kept = EVEN_ROWS & empty & !p.possible();
                if p.moves % 2 == 0 && has_four(p.current | (empty & !kept)) {
                    // Bounds where the first player has fours, all above the opponent's.
                    covered += 1;
                }
                match bound {
                    0 => draws += 1,
                    -1 => losses += 1,
                    _ => early_losses += 1,
                }
            }
        }
        // Every kind of bound comes up, so the comparison means something.
        assert!(
            draws > 40 && losses > 10 && early_losses > 10 && skipped > 100 && covered > 10,
            "{draws} bounds of 0, {losses} of -1, {early_losses} below, {skipped} skipped, \
             {covered} over fours below"
        );
    }
}
