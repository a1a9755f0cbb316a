//! Boards other than 7×6, against facts established two ways: a plain minimax written here
//! with nothing of the solver's (its own board, its own four-in-a-row test, its own memo),
//! and the published outcomes of every board with width + height ≤ 15 (John Tromp, "John's
//! Connect Four Playground", tromp.github.io/c4/c4.html) with the move each game ends on
//! (Christophe Steininger, github.com/ChristopheSteininger/c4, readme.md, "Last Move"; the
//! two tables agree on every board they share).

use std::collections::HashMap;
use transpo_connect4::Strength;
use transpo_connect4::board::Board;
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::score::last_move;
use transpo_connect4::solver::Solver;
use transpo_connect4::with_board;

/// Published outcomes, width × height: `+` the first player wins, `-` the second, `=` a draw,
/// and the move the game ends on with perfect play (Steininger's readme; Tromp's table for
/// the outcome). Every board with at most 36 squares; the README's table has more, too slow
/// for a test.
const PUBLISHED: &[(usize, usize, char, u32)] = &[
    (4, 4, '=', 16),
    (4, 5, '=', 20),
    (4, 6, '=', 24),
    (4, 7, '=', 28),
    (4, 8, '=', 32),
    (5, 4, '=', 20),
    (5, 5, '=', 25),
    (5, 6, '=', 30),
    (5, 7, '=', 35),
    (6, 4, '-', 24),
    (6, 5, '=', 30),
    (6, 6, '-', 36),
    (7, 4, '=', 28),
    (7, 5, '=', 35),
    (8, 4, '-', 32),
    (9, 4, '-', 36),
    (4, 9, '=', 36),
];

/// A board for the reference minimax: one byte per square (0 empty, 1 and 2 the players),
/// column by column from the bottom.
#[derive(Clone)]
struct Plain {
    width: usize,
    height: usize,
    cells: Vec<u8>,
    heights: Vec<usize>,
    moves: usize,
}

impl Plain {
    fn new(width: usize, height: usize) -> Plain {
        Plain {
            width,
            height,
            cells: vec![0; width * height],
            heights: vec![0; width],
            moves: 0,
        }
    }

    fn at(&self, col: isize, row: isize) -> Option<u8> {
        let inside =
            (0..self.width as isize).contains(&col) && (0..self.height as isize).contains(&row);
        inside.then(|| self.cells[col as usize * self.height + row as usize])
    }

    /// Whether the side to move makes four by playing `col`.
    fn wins(&self, col: usize) -> bool {
        let me = 1 + (self.moves % 2) as u8;
        let (c, r) = (col as isize, self.heights[col] as isize);
        [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dc, dr)| {
            let run = |sign: isize| {
                (1..4)
                    .take_while(|&k| self.at(c + sign * k * dc, r + sign * k * dr) == Some(me))
                    .count()
            };
            run(1) + run(-1) >= 3
        })
    }

    fn play(&mut self, col: usize) {
        self.cells[col * self.height + self.heights[col]] = 1 + (self.moves % 2) as u8;
        self.heights[col] += 1;
        self.moves += 1;
    }

    fn undo(&mut self, col: usize) {
        self.heights[col] -= 1;
        self.cells[col * self.height + self.heights[col]] = 0;
        self.moves -= 1;
    }

    /// The exact score for the side to move, by negamax over every move with a memo of exact
    /// scores: a win with the stone after `n` on the board scores ⌊(W·H + 1 − n) / 2⌋.
    fn score(&mut self, memo: &mut HashMap<Vec<u8>, i32>) -> i32 {
        let squares = self.width * self.height;
        if self.moves == squares {
            return 0;
        }
        let playable: Vec<usize> = (0..self.width)
            .filter(|&c| self.heights[c] < self.height)
            .collect();
        if playable.iter().any(|&c| self.wins(c)) {
            return (squares + 1 - self.moves) as i32 / 2;
        }
        if let Some(&score) = memo.get(&self.cells) {
            return score;
        }
        let mut best = i32::MIN;
        for col in playable {
            self.play(col);
            best = best.max(-self.score(memo));
            self.undo(col);
        }
        memo.insert(self.cells.clone(), best);
        best
    }
}

/// The position after `cols` (0-based), as both boards.
fn both<const W: usize, const H: usize, B: Bitboard>(cols: &[usize]) -> (Position<W, H, B>, Plain) {
    let mut pos = Position::<W, H, B>::new();
    let mut plain = Plain::new(W, H);
    for &col in cols {
        pos.play_column(col);
        plain.play(col);
    }
    (pos, plain)
}

/// Every position of `W`×`H` with at most `stones` stones whose game is not over, solved
/// strong and weak, against the plain minimax; and the empty board's ending.
fn against_minimax<const W: usize, const H: usize, B: Bitboard>(stones: usize) -> usize {
    let mut solver = Solver::<W, H, B>::new(4).expect("4 MiB");
    let mut memo = HashMap::new();
    let mut stack = vec![Vec::new()];
    let mut checked = 0;
    while let Some(cols) = stack.pop() {
        let (pos, mut plain) = both::<W, H, B>(&cols);
        let expected = plain.score(&mut memo);
        solver.reset();
        assert_eq!(
            solver.solve(&pos, Strength::Strong),
            expected,
            "{W}x{H} {cols:?}"
        );
        assert_eq!(
            solver.solve(&pos, Strength::Weak),
            expected.signum(),
            "{W}x{H} {cols:?}"
        );
        checked += 1;
        if cols.len() < stones {
            for col in (0..W).filter(|&c| pos.can_play(c) && !pos.is_winning_move(c)) {
                let mut next = cols.clone();
                next.push(col);
                stack.push(next);
            }
        }
    }
    checked
}

#[test]
fn tiny_boards_agree_with_a_plain_minimax() {
    assert!(against_minimax::<4, 4, u64>(3) > 80);
    assert!(against_minimax::<5, 4, u64>(2) > 30);
    assert!(against_minimax::<4, 5, u64>(2) > 20);
}

/// Random positions of `W`×`H` with `empty` squares left, strong and weak scores against the
/// plain minimax: every shape of board, the 64-bit keys of 8×7 and 4×15 and the 12 columns of
/// 12×4 included.
fn late_positions<const W: usize, const H: usize, B: Bitboard>(count: usize, empty: usize) {
    let mut solver = Solver::<W, H, B>::new(2).expect("2 MiB");
    let mut rng = transpo::key::SplitMix64::new((W * 16 + H) as u64);
    let mut memo = HashMap::new();
    let mut done = 0;
    while done < count {
        let mut cols = Vec::new();
        let mut pos = Position::<W, H, B>::new();
        while cols.len() < W * H - empty {
            let open: Vec<usize> = (0..W)
                .filter(|&c| pos.can_play(c) && !pos.is_winning_move(c))
                .collect();
            let Some(&col) = open.get(rng.below(open.len().max(1) as u64) as usize) else {
                break;
            };
            pos.play_column(col);
            cols.push(col);
        }
        if cols.len() < W * H - empty {
            continue;
        }
        let (_, mut plain) = both::<W, H, B>(&cols);
        let expected = plain.score(&mut memo);
        solver.reset();
        assert_eq!(
            solver.solve(&pos, Strength::Strong),
            expected,
            "{W}x{H} {cols:?}"
        );
        assert_eq!(
            solver.solve(&pos, Strength::Weak),
            expected.signum(),
            "{W}x{H} {cols:?}"
        );
        done += 1;
    }
}

#[test]
fn late_positions_of_every_shape_agree_with_a_plain_minimax() {
    late_positions::<7, 6, u64>(40, 14);
    late_positions::<6, 5, u64>(40, 14);
    late_positions::<9, 5, u64>(40, 14);
    late_positions::<12, 4, u64>(40, 14);
    late_positions::<8, 7, u64>(40, 14);
    late_positions::<4, 15, u64>(40, 14);
    late_positions::<5, 11, u64>(40, 14);
    late_positions::<10, 5, u64>(40, 14);
}

/// The wide boards (`u128` words and 16-byte exact entries) against the plain minimax: the
/// widest (13 columns), the tallest (16 rows), the biggest (9×9, 90 key bits) and the
/// `W + H = 16` boards.
#[test]
fn late_positions_of_wide_boards_agree_with_a_plain_minimax() {
    late_positions::<13, 4, u128>(30, 14);
    late_positions::<4, 16, u128>(30, 14);
    late_positions::<6, 10, u128>(30, 14);
    late_positions::<7, 9, u128>(30, 14);
    late_positions::<8, 8, u128>(30, 14);
    late_positions::<9, 9, u128>(30, 14);
    late_positions::<11, 5, u128>(30, 14);
}

/// Every board with `W + H = 17` (issue 58): the six nobody has solved (8×9, 9×8, 10×7,
/// 11×6, 12×5, 13×4) and 7×10, 6×11, 5×12 and 4×13: 12 random positions with each of 6, 8,
/// …, 16 empty squares against the plain minimax, strong and weak.
#[test]
fn late_positions_of_every_seventeen_board_agree_with_a_plain_minimax() {
    fn board<const W: usize, const H: usize, B: Bitboard>() {
        assert_eq!(W + H, 17);
        for empty in [6, 8, 10, 12, 14, 16] {
            late_positions::<W, H, B>(12, empty);
        }
    }
    board::<8, 9, u128>();
    board::<9, 8, u128>();
    board::<10, 7, u128>();
    board::<11, 6, u128>();
    board::<12, 5, u128>();
    board::<13, 4, u128>();
    board::<7, 10, u128>();
    board::<6, 11, u128>();
    board::<5, 12, u128>();
    board::<4, 13, u64>();
}

/// The empty board's outcome and last move on `W`×`H`, strong, on `threads` threads.
fn solve_empty<const W: usize, const H: usize, B: Bitboard>(threads: usize) -> (char, u32) {
    let mut solver = Solver::<W, H, B>::new(16).expect("16 MiB");
    solver.set_threads(threads).expect("threads");
    let score = solver.solve(&Position::new(), Strength::Strong);
    let weak = solver.solve(&Position::new(), Strength::Weak);
    assert_eq!(weak, score.signum(), "{W}x{H}");
    let outcome = match score.signum() {
        1 => '+',
        -1 => '-',
        _ => '=',
    };
    (outcome, last_move(W * H, 0, score))
}

#[test]
fn small_boards_have_their_published_outcomes_and_last_moves() {
    for (i, &(width, height, outcome, last)) in PUBLISHED.iter().enumerate() {
        let board = Board::new(width, height).expect("a board");
        let threads = 1 + i % 2;
        let solved = with_board!(board, solve_empty(threads), else ('?', 0));
        assert_eq!(solved, (outcome, last), "{board}");
    }
}

#[test]
fn the_last_move_inverts_the_score() {
    // 7×6: the first player wins with its 21st stone, move 41, a score of +1.
    assert_eq!(last_move(42, 0, 1), 41);
    // A side that wins at once scores ⌊(W·H + 1 − n) / 2⌋; the move is n + 1.
    for squares in [16, 20, 25, 42, 45, 60] {
        for moves in 0..squares as u32 {
            let win = (squares as i32 + 1 - moves as i32) / 2;
            assert_eq!(
                last_move(squares, moves, win),
                moves + 1,
                "{squares} {moves}"
            );
            // The opponent wins with its next stone after ours.
            if moves + 2 <= squares as u32 {
                let loss = -((squares as i32 - moves as i32) / 2);
                assert_eq!(
                    last_move(squares, moves, loss),
                    moves + 2,
                    "{squares} {moves}"
                );
            }
        }
    }
}

/// The 9×5 test sets made with `transpo-c4 sample` (their scores also agreed with
/// Steininger's solver built for 9×5; README): the three quicker ones solve with no wrong
/// score, strong and weak.
#[test]
fn the_9x5_sets_solve_to_their_scores() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sets");
    let mut solver = Solver::<9, 5>::new(16).expect("16 MiB");
    for depth in [30, 24, 18] {
        let path = dir.join(format!("9x5-depth{depth}.txt"));
        let text = std::fs::read_to_string(&path).expect("the set is part of the crate");
        for strength in [Strength::Strong, Strength::Weak] {
            let result = transpo_connect4::bench::run_set(
                &mut solver,
                "9x5",
                &text,
                strength,
                None,
                |_, _| {},
            );
            assert_eq!(
                (result.positions, result.failures),
                (100, Vec::new()),
                "{}",
                path.display()
            );
        }
    }
}
