//! Positions checked on a board before any solver sees them: move lists (0-based columns)
//! and grids (row 0 the top row, 0 empty, 1 the first player's stones, 2 the second's)
//! turned into a move order that reaches them, each refusal with its reason in the caller's
//! terms (0-based columns, rows from the top).
//!
//! Which move connects four is the library's rule ([`Position::is_winning_move`], the one
//! the solver searches with), reached through [`Rules`]: the board is known only at run time
//! here, the library's positions take it as const parameters.

use std::collections::HashSet;
use transpo_connect4::board::Board;
use transpo_connect4::position::{Bitboard, Position, column_char};
use transpo_connect4::with_board;

/// The library's rules of one board, behind a function pointer so that callers need no const
/// parameters.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    board: Board,
    first_fours: fn(&[u8]) -> [Option<usize>; 2],
    playable_without_four: fn(&[u8]) -> bool,
}

impl Rules {
    /// The rules of `board` (`None` only for a board the library does not compile, which
    /// `Board` does not let one write).
    pub fn of(board: Board) -> Option<Rules> {
        with_board!(board, rules_of(board), else None)
    }

    /// The board.
    pub fn board(&self) -> Board {
        self.board
    }

    /// For each player (index 0 the first), the index in `moves` of its first move that
    /// connects four when `moves` are played in turn from the empty board. `moves` are
    /// columns of the board, none into a full column; the replay stops at the first that is
    /// not.
    pub fn first_fours(&self, moves: &[u8]) -> [Option<usize>; 2] {
        (self.first_fours)(moves)
    }

    /// Whether `moves` are columns of the board, none into a full column, after which
    /// neither player has four in a line: [`Rules::first_fours`]'s question when only yes or
    /// no is wanted, asked once at the end (stones are never taken back, so a side that
    /// connected four at some move still has it then), for `solve_many`'s positions by the
    /// million.
    pub fn playable_without_four(&self, moves: &[u8]) -> bool {
        (self.playable_without_four)(moves)
    }
}

fn rules_of<const W: usize, const H: usize, B: Bitboard>(board: Board) -> Option<Rules> {
    Some(Rules {
        board,
        first_fours: first_fours::<W, H, B>,
        playable_without_four: playable_without_four::<W, H, B>,
    })
}

fn playable_without_four<const W: usize, const H: usize, B: Bitboard>(moves: &[u8]) -> bool {
    let mut pos = Position::<W, H, B>::new();
    let mut stones = [B::ZERO; 2];
    for (i, &col) in moves.iter().enumerate() {
        let col = col as usize;
        if col >= W || !pos.can_play(col) {
            return false;
        }
        let square = pos.possible() & Position::<W, H, B>::column_mask(col);
        stones[i % 2] |= square;
        pos.play(square);
    }
    // A stone is in a four when the library's winning squares of the stones, with every
    // square counted as empty, include it: the other three of a line are there.
    stones
        .iter()
        .all(|&s| s & Position::<W, H, B>::winning_squares(s, B::ZERO) == B::ZERO)
}

fn first_fours<const W: usize, const H: usize, B: Bitboard>(moves: &[u8]) -> [Option<usize>; 2] {
    let mut pos = Position::<W, H, B>::new();
    let mut fours = [None; 2];
    for (i, &col) in moves.iter().enumerate() {
        let col = col as usize;
        if col >= W || !pos.can_play(col) {
            break;
        }
        if fours[i % 2].is_none() && pos.is_winning_move(col) {
            fours[i % 2] = Some(i);
        }
        pos.play_column(col);
    }
    fours
}

/// The most columns of a board the library has, 13, rounded up.
const MAX_COLUMNS: usize = 16;

/// A checked position: the moves that reach it, on its board.
#[derive(Debug)]
pub struct Game {
    board: Board,
    moves: Vec<u8>,
}

impl Game {
    /// The position after `moves` (0-based columns) from the empty board, or why there is
    /// none: a column off the board or full, a move after the game was won, a full board.
    /// `written`: the moves came as a move string, so columns are also named as written
    /// there (`column 3 (written 4)`).
    pub fn from_moves(rules: &Rules, moves: &[i64], written: bool) -> Result<Game, String> {
        let board = rules.board;
        let (width, height) = (board.width(), board.height());
        let name = |col: usize| {
            if written {
                format!("column {col} (written {})", column_char(col))
            } else {
                format!("column {col}")
            }
        };
        if moves.len() > board.squares() {
            return Err(format!(
                "{} moves, more than the {} squares of the {board} board",
                moves.len(),
                board.squares()
            ));
        }
        // The columns up to the first move that is not one, and why it is not.
        let mut heights = [0usize; MAX_COLUMNS];
        let mut played = Vec::with_capacity(moves.len());
        let mut refused = None;
        for (i, &col) in moves.iter().enumerate() {
            if col < 0 || col as usize >= width {
                let shown = if written && (0..13).contains(&col) {
                    name(col as usize)
                } else {
                    format!("column {col}")
                };
                refused = Some(format!(
                    "move {} is {shown}, not a column of the {board} board (0 to {})",
                    i + 1,
                    width - 1
                ));
                break;
            }
            let col = col as usize;
            if heights[col] == height {
                refused = Some(format!(
                    "move {} plays into {}, which is full",
                    i + 1,
                    name(col)
                ));
                break;
            }
            heights[col] += 1;
            played.push(col as u8);
        }
        // A move that connects four comes before any refused one: it ends the game there.
        if let Some(i) = rules.first_fours(&played).into_iter().flatten().min() {
            return Err(format!(
                "move {} ({}) connects four: the game is over, there is nothing to solve",
                i + 1,
                name(played[i] as usize)
            ));
        }
        if let Some(why) = refused {
            return Err(why);
        }
        if played.len() == board.squares() {
            return Err("the board is full: the game is over (a draw)".into());
        }
        Ok(Game {
            board,
            moves: played,
        })
    }

    /// Whether [`Game::from_moves`] accepts `moves` on the board, without making the game,
    /// its error message or its move list: the check of `solve_many`, which reads positions
    /// by the million.
    pub fn fits(rules: &Rules, moves: &[u8]) -> bool {
        let board = rules.board;
        if moves.len() >= board.squares() {
            return false;
        }
        rules.playable_without_four(moves)
    }

    /// The position of `grid` (`height` rows of `width` cells, row 0 the top), reached by
    /// some order of moves, or why no game reaches it.
    pub fn from_grid(rules: &Rules, grid: &[Vec<i64>]) -> Result<Game, String> {
        let board = rules.board;
        let columns = columns_of(grid, board)?;
        let count = |player| columns.iter().flatten().filter(|&&p| p == player).count();
        let (first, second) = (count(1), count(2));
        if first != second && first != second + 1 {
            return Err(format!(
                "stone counts: the first player (1) has {first} stones and the second (2) \
                 {second}; the first player has as many as the second, or one more"
            ));
        }
        let order = alternating_order(&columns, first + second)?;
        // A side that has four on the grid connected it with one of its moves, in any order
        // that reaches the grid; and no move after the game is won is a move of a game.
        let who = match rules.first_fours(&order) {
            [Some(_), Some(_)] => {
                return Err(
                    "both players have already connected four: no game reaches this grid".into(),
                );
            }
            [Some(_), None] => Some(1),
            [None, Some(_)] => Some(2),
            [None, None] => None,
        };
        if let Some(who) = who {
            return Err(format!(
                "player {who} has already connected four: the game is over, there is nothing \
                 to solve"
            ));
        }
        if order.len() == board.squares() {
            return Err("the board is full: the game is over (a draw)".into());
        }
        Ok(Game {
            board,
            moves: order,
        })
    }

    /// The moves, 0-based columns.
    pub fn moves(&self) -> &[u8] {
        &self.moves
    }

    /// The moves as a move string (columns from 1, then a-d).
    pub fn move_string(&self) -> String {
        self.moves
            .iter()
            .map(|&c| column_char(c as usize))
            .collect()
    }

    /// The grid, row 0 the top: 0 empty, 1 the first player's stones, 2 the second's.
    pub fn grid(&self) -> Vec<Vec<u32>> {
        let (width, height) = (self.board.width(), self.board.height());
        let mut grid = vec![vec![0; width]; height];
        let mut heights = [0usize; MAX_COLUMNS];
        for (i, &col) in self.moves.iter().enumerate() {
            let col = col as usize;
            heights[col] += 1;
            grid[height - heights[col]][col] = 1 + (i % 2) as u32;
        }
        grid
    }
}

/// The stones of `grid` (rows from the top) column by column from the bottom, each the
/// player who owns it (1 or 2), or why the grid is not one of `board`'s: its shape, a cell
/// that is not 0, 1 or 2, a stone above an empty square.
fn columns_of(grid: &[Vec<i64>], board: Board) -> Result<Vec<Vec<u8>>, String> {
    let (width, height) = (board.width(), board.height());
    if grid.len() != height {
        let hint = if grid.len() == width && grid.iter().all(|row| row.len() == height) {
            format!(
                " (this one is {width} rows of {height}: rows run across, from the top, \
                 {width} cells each)"
            )
        } else {
            String::new()
        };
        return Err(format!(
            "a grid of {} rows, not the {height} rows of the {board} board{hint}",
            grid.len()
        ));
    }
    for (r, row) in grid.iter().enumerate() {
        if row.len() != width {
            return Err(format!(
                "row {r} has {} cells, not the {width} columns of the {board} board",
                row.len()
            ));
        }
        if let Some((c, cell)) = row.iter().enumerate().find(|(_, c)| !(0..=2).contains(*c)) {
            return Err(format!(
                "cell (row {r}, column {c}) is {cell}: cells are 0 (empty), 1 (first player) \
                 or 2 (second player)"
            ));
        }
    }
    let mut columns = vec![Vec::with_capacity(height); width];
    for (c, column) in columns.iter_mut().enumerate() {
        let mut top_reached = false;
        for r in (0..height).rev() {
            let cell = grid[r][c] as u8;
            if cell == 0 {
                top_reached = true;
            } else if top_reached {
                return Err(format!(
                    "floating stone at row {r}, column {c}: the square below it is empty (row \
                     0 is the top row)"
                ));
            } else {
                column.push(cell);
            }
        }
    }
    Ok(columns)
}

/// The most column-height states [`alternating_order`] visits before giving up: far more than
/// a grid of any board the solver has needs in practice (each state is visited once).
const ORDER_STATES_MAX: usize = 1 << 21;

/// An order of `total` moves that takes each column's stones from the bottom
/// (`columns[c][0]` first) with the players alternating (1 first), if there is one:
/// depth-first over the columns' heights, remembering the states that lead nowhere.
///
/// At each move it tries first the columns whose stone after the one taken is the other
/// player's (or none): taking such a stone gives the other player a stone to take next,
/// while taking one of two stones of the same player in a row needs the other player to
/// have a stone elsewhere. On the grids of real games this finds an order without a dead
/// end, so reading a grid costs about as much as replaying its moves.
fn alternating_order(columns: &[Vec<u8>], total: usize) -> Result<Vec<u8>, String> {
    struct Search<'a> {
        columns: &'a [Vec<u8>],
        total: usize,
        heights: [u8; MAX_COLUMNS],
        order: Vec<u8>,
        /// The heights that lead nowhere, packed a byte a column.
        dead: HashSet<u128>,
    }
    impl Search<'_> {
        fn key(&self) -> u128 {
            self.heights
                .iter()
                .fold(0, |key, &h| key << 8 | u128::from(h))
        }
        fn go(&mut self) -> bool {
            if self.order.len() == self.total {
                return true;
            }
            if self.dead.len() >= ORDER_STATES_MAX || self.dead.contains(&self.key()) {
                return false;
            }
            let player = if self.order.len().is_multiple_of(2) {
                1
            } else {
                2
            };
            // The columns that give the other player a stone first, then the rest.
            for hands_over in [true, false] {
                for c in 0..self.columns.len() {
                    let h = self.heights[c] as usize;
                    let column = &self.columns[c];
                    if column.get(h) != Some(&player)
                        || (column.get(h + 1) != Some(&player)) != hands_over
                    {
                        continue;
                    }
                    self.heights[c] += 1;
                    self.order.push(c as u8);
                    if self.go() {
                        return true;
                    }
                    self.order.pop();
                    self.heights[c] -= 1;
                }
            }
            let key = self.key();
            self.dead.insert(key);
            false
        }
    }
    if columns.len() > MAX_COLUMNS || columns.iter().any(|c| c.len() > usize::from(u8::MAX)) {
        return Err(format!(
            "a grid of {} columns: more than any board has",
            columns.len()
        ));
    }
    let mut search = Search {
        columns,
        total,
        heights: [0; MAX_COLUMNS],
        order: Vec::with_capacity(total),
        dead: HashSet::new(),
    };
    if search.go() {
        Ok(search.order)
    } else if search.dead.len() >= ORDER_STATES_MAX {
        Err(format!(
            "no order of moves reaching this grid was found in {ORDER_STATES_MAX} tries"
        ))
    } else {
        Err(
            "no game reaches this grid: its stones cannot be played in turn (first player, \
             second player, ...) filling each column from the bottom"
                .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(board: &str) -> Rules {
        Rules::of(board.parse().expect("a board")).expect("compiled")
    }

    fn moves_of(text: &str) -> Vec<i64> {
        text.chars().map(|c| c as i64 - '1' as i64).collect()
    }

    /// A plain four-in-a-line test on a grid (row 0 the top), written here without bitboards.
    fn has_four(grid: &[Vec<u32>], player: u32) -> bool {
        let (h, w) = (grid.len() as i64, grid[0].len() as i64);
        let at = |r: i64, c: i64| {
            (0..h).contains(&r) && (0..w).contains(&c) && grid[r as usize][c as usize] == player
        };
        (0..h).any(|r| {
            (0..w).any(|c| {
                [(0, 1), (1, 0), (1, 1), (1, -1)]
                    .iter()
                    .any(|&(dr, dc)| (0..4).all(|k| at(r + k * dr, c + k * dc)))
            })
        })
    }

    /// The plain search [`alternating_order`] was first written as: every column in order,
    /// dead states remembered, no preference.
    fn plain_order(columns: &[Vec<u8>], total: usize) -> Option<Vec<u8>> {
        fn go(
            columns: &[Vec<u8>],
            total: usize,
            heights: &mut Vec<usize>,
            order: &mut Vec<u8>,
            dead: &mut HashSet<Vec<usize>>,
        ) -> bool {
            if order.len() == total {
                return true;
            }
            if dead.contains(heights) {
                return false;
            }
            let player = 1 + (order.len() % 2) as u8;
            for c in 0..columns.len() {
                if columns[c].get(heights[c]) == Some(&player) {
                    heights[c] += 1;
                    order.push(c as u8);
                    if go(columns, total, heights, order, dead) {
                        return true;
                    }
                    order.pop();
                    heights[c] -= 1;
                }
            }
            dead.insert(heights.clone());
            false
        }
        let mut order = Vec::new();
        let mut heights = vec![0; columns.len()];
        go(
            columns,
            total,
            &mut heights,
            &mut order,
            &mut HashSet::new(),
        )
        .then_some(order)
    }

    /// On random grids, reachable (the stones of random games) and mostly not (the same
    /// stones shuffled within each column), the order search finds an order exactly when the plain one
    /// does, and its order reaches the grid: each column's stones from the bottom, the
    /// players in turn.
    #[test]
    fn the_order_search_agrees_with_a_plain_one() {
        let mut seed = 99u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % n as u64) as usize
        };
        let (mut found, mut none) = (0, 0);
        for (width, height) in [(7, 6), (4, 4), (9, 7), (13, 4), (4, 16)] {
            for _ in 0..400 {
                let mut columns = vec![Vec::new(); width];
                let total = next(width * height + 1);
                let mut n = 0;
                while n < total {
                    let c = next(width);
                    if columns[c].len() < height {
                        columns[c].push(1 + (n % 2) as u8);
                        n += 1;
                    }
                }
                if next(2) == 0 {
                    // The stones of each column in a random order: mostly no game's.
                    for column in columns.iter_mut() {
                        for i in (1..column.len()).rev() {
                            column.swap(i, next(i + 1));
                        }
                    }
                }
                let ours = alternating_order(&columns, total).ok();
                assert_eq!(ours.is_some(), plain_order(&columns, total).is_some());
                if let Some(order) = ours {
                    found += 1;
                    let mut heights = vec![0; width];
                    for (i, &c) in order.iter().enumerate() {
                        let c = c as usize;
                        assert_eq!(columns[c][heights[c]], 1 + (i % 2) as u8);
                        heights[c] += 1;
                    }
                    assert!(heights.iter().zip(&columns).all(|(&h, c)| h == c.len()));
                } else {
                    none += 1;
                }
            }
        }
        assert!(found > 1000 && none > 30, "{found} found, {none} not");
    }

    #[test]
    fn every_compiled_board_has_rules() {
        for board in Board::ALL {
            assert_eq!(Rules::of(board).map(|r| r.board()), Some(board));
        }
    }

    #[test]
    fn fours_are_found_on_every_line() {
        let r = rules("7x6");
        // Vertical (first player, move 7), horizontal (move 7), both diagonals.
        assert_eq!(r.first_fours(&[0, 1, 0, 1, 0, 1, 0]), [Some(6), None]);
        assert_eq!(r.first_fours(&[0, 0, 1, 1, 2, 2, 3]), [Some(6), None]);
        // The second player connects: 1 plays 1, 2 plays 2, ... the second player's column.
        assert_eq!(r.first_fours(&[0, 1, 0, 1, 6, 1, 6, 1]), [None, Some(7)]);
    }

    #[test]
    fn random_games_agree_with_a_plain_four_test() {
        // A seeded linear congruential generator: no dependency for randomness.
        let mut seed = 12345u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % n as u64) as usize
        };
        for board in ["7x6", "4x4", "9x7", "13x4", "4x16"] {
            let r = rules(board);
            let b = r.board();
            for _ in 0..300 {
                let mut moves = Vec::new();
                let mut heights = vec![0; b.width()];
                let length = next(b.squares() + 1);
                while moves.len() < length {
                    let col = next(b.width());
                    if heights[col] < b.height() {
                        heights[col] += 1;
                        moves.push(col as u8);
                    }
                }
                let fours = r.first_fours(&moves);
                assert_eq!(r.playable_without_four(&moves), fours == [None, None]);
                for (player, first) in fours.iter().enumerate() {
                    // Its first four: none before it, one after it.
                    let grid_after = |n: usize| {
                        Game {
                            board: b,
                            moves: moves[..n].to_vec(),
                        }
                        .grid()
                    };
                    let found =
                        (0..=moves.len()).find(|&n| has_four(&grid_after(n), player as u32 + 1));
                    assert_eq!(*first, found.map(|n| n - 1), "{board} {moves:?}");
                }
            }
        }
    }

    #[test]
    fn move_lists_are_checked_in_order() {
        let r = rules("7x6");
        assert_eq!(
            Game::from_moves(&r, &moves_of("4453"), true).map(|g| g.move_string()),
            Ok("4453".into())
        );
        let why = |m: &[i64], w| Game::from_moves(&r, m, w).err().unwrap_or_default();
        assert_eq!(
            why(&[0; 7], false),
            "move 7 plays into column 0, which is full"
        );
        assert_eq!(
            why(&moves_of("1111111"), true),
            "move 7 plays into column 0 (written 1), which is full"
        );
        assert!(
            why(&moves_of("1212121"), true)
                .starts_with("move 7 (column 0 (written 1)) connects four")
        );
        // The four comes first, before a move off the board after it.
        assert!(
            why(&[0, 1, 0, 1, 0, 1, 0, 9], false).starts_with("move 7 (column 0) connects four")
        );
        assert_eq!(
            why(&[7], false),
            "move 1 is column 7, not a column of the 7x6 board (0 to 6)"
        );
        assert!(why(&[-1], false).starts_with("move 1 is column -1"));
        assert!(why(&moves_of("8"), true).starts_with("move 1 is column 7 (written 8)"));
        assert!(why(&[0; 43], false).starts_with("43 moves, more than the 42 squares"));
        let full = moves_of("3313324144421221");
        assert!(
            Game::from_moves(&rules("4x4"), &full, true)
                .err()
                .unwrap_or_default()
                .contains("board is full")
        );
        assert!(Game::from_moves(&rules("4x4"), &full[..15], true).is_ok());
    }

    #[test]
    fn fits_says_what_from_moves_says() {
        let r = rules("5x4");
        let mut seed = 7u64;
        for _ in 0..3000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            let len = (seed >> 40) as usize % 22;
            let moves: Vec<u8> = (0..len)
                .map(|i| ((seed >> (i % 20 * 3)) % 6) as u8)
                .collect();
            let as_i64: Vec<i64> = moves.iter().map(|&c| c as i64).collect();
            assert_eq!(
                Game::fits(&r, &moves),
                Game::from_moves(&r, &as_i64, false).is_ok(),
                "{moves:?}"
            );
        }
    }

    fn grid(text: &[&str]) -> Vec<Vec<i64>> {
        text.iter()
            .map(|row| row.chars().map(|c| c as i64 - '0' as i64).collect())
            .collect()
    }

    #[test]
    fn grids_give_a_move_order_or_a_reason() {
        let r = rules("7x6");
        let empty = "0000000";
        let game = Game::from_grid(
            &r,
            &grid(&[empty, empty, empty, empty, "0002000", "0011200"]),
        );
        let game = game.expect("a position");
        assert_eq!(
            game.grid(),
            grid(&[empty, empty, empty, empty, "0002000", "0011200"])
                .iter()
                .map(|row| row.iter().map(|&c| c as u32).collect())
                .collect::<Vec<Vec<u32>>>()
        );
        let why = |g: &[&str]| Game::from_grid(&r, &grid(g)).err().unwrap_or_default();
        assert!(why(&[empty; 5]).starts_with("a grid of 5 rows, not the 6 rows"));
        assert!(why(&["000000"; 7]).contains("this one is 7 rows of 6"));
        assert!(
            why(&[empty, empty, empty, empty, "0001000", empty])
                .starts_with("floating stone at row 4, column 3")
        );
        assert!(why(&[empty, empty, empty, empty, empty, "0011000"]).starts_with("stone counts"));
        assert!(
            why(&[empty, empty, empty, empty, empty, "0003000"])
                .starts_with("cell (row 5, column 3) is 3")
        );
        assert!(
            why(&[empty, empty, "1200000", "1200000", "1200000", "1200000"])
                .starts_with("both players")
        );
        assert!(
            why(&[empty, empty, "1000000", "1200000", "1200000", "1200000"])
                .starts_with("player 1 has already")
        );
        assert!(
            why(&[empty, empty, empty, empty, "1100000", "2200000"])
                .contains("cannot be played in turn")
        );
    }

    #[test]
    fn grids_and_moves_round_trip() {
        // A 7x9 game (Steininger's solver scores it -5 too: tests/test_solver.py).
        let r = rules("7x9");
        let moves = moves_of("4172725614622737534114342365723443664367");
        let game = Game::from_moves(&r, &moves, true).expect("a position");
        let grid: Vec<Vec<i64>> = game
            .grid()
            .iter()
            .map(|row| row.iter().map(|&c| c as i64).collect())
            .collect();
        let again = Game::from_grid(&r, &grid).expect("the same position");
        assert_eq!(again.grid(), game.grid());
    }
}
