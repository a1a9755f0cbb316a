//! Tic-tac-toe solved by negamax with alpha-beta, without and with a transposition table
//! (Zobrist keys; `probe` before a node, `store` with its bound after), checked against known
//! facts, with the nodes searched each way. `cargo run --release --example tictactoe -p transpo`

use transpo::{Bound, ChessEntry, Table, key::mix};

/// The eight lines, as masks of squares 0..9 (row by row).
const LINES: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

/// A position: each side's stones, the side to move and the Zobrist key.
#[derive(Clone, Copy, Default)]
struct Pos {
    stones: [u16; 2],
    side: usize,
    key: u64,
}

impl Pos {
    /// The position after the side to move puts a stone on `square`. The key XORs one
    /// random key per (side, square) with a stone, `mix` of its index, and 1 when O is to move.
    fn play(mut self, square: usize) -> Pos {
        self.stones[self.side] |= 1 << square;
        self.key ^= mix(1 + 9 * self.side as u64 + square as u64) ^ 1;
        self.side ^= 1;
        self
    }
}

/// The value for the side to move (1 win, 0 draw, -1 loss), searched within `a..b` (alpha,
/// beta), with the table `tt` if any, counting nodes in `n`.
fn negamax(p: Pos, tt: Option<&Table<ChessEntry>>, n: &mut u64, mut a: i16, mut b: i16) -> i16 {
    *n += 1;
    let empty = !(p.stones[0] | p.stones[1]) & 0o777;
    if LINES.iter().any(|&l| p.stones[p.side ^ 1] & l == l) {
        return -1; // the last move made a line
    } else if empty == 0 {
        return 0;
    }
    let (a0, b0) = (a, b);
    if let Some(e) = tt.and_then(|t| t.probe(p.key)) {
        match e.bound {
            Bound::Exact => return e.score,
            Bound::Lower => a = a.max(e.score),
            Bound::Upper => b = b.min(e.score),
        }
        if a >= b {
            return e.score;
        }
    }
    let mut best = -2;
    for square in (0..9).filter(|s| empty & (1 << s) != 0) {
        best = best.max(-negamax(p.play(square), tt, n, -b, -a));
        a = a.max(best);
        if a >= b {
            break;
        }
    }
    if let Some(t) = tt {
        let bound = match best {
            s if s <= a0 => Bound::Upper,
            s if s >= b0 => Bound::Lower,
            _ => Bound::Exact,
        };
        let entry = ChessEntry {
            mv: 0,
            score: best,
            eval: 0,
            depth: empty.count_ones() as i8, // all that is left: every entry is exact
            bound,
            pv: false,
        };
        t.store(p.key, entry);
    }
    best
}

fn main() -> Result<(), transpo::Error> {
    let table = Table::<ChessEntry>::with_mib(1)?;
    let mut nodes = [0u64; 2];
    for (with_table, n) in nodes.iter_mut().enumerate() {
        let tt = (with_table == 1).then_some(&table);
        let start = negamax(Pos::default(), tt, n, -1, 1);
        assert_eq!(start, 0, "tic-tac-toe is a draw");
        let centre_edge = negamax(Pos::default().play(4).play(1), tt, n, -1, 1);
        assert_eq!(centre_edge, 1, "X in the centre, O on an edge: X wins");
    }
    println!("tic-tac-toe is a draw; after X in the centre and O on an edge, X wins");
    let [without, with] = nodes;
    println!("nodes searched: {without} without the table, {with} with it");
    assert!(with < without, "the table saves nodes");
    Ok(())
}
