//! Positions as Python gives them, checked on a board of any size before any solver sees
//! them: move lists (0-based columns), and grids (row 0 the top row, 0 empty, 1 the first
//! player's stones, 2 the second's) turned into a move order that reaches them.
//!
//! Why here and not in `transpo-connect4`: the library reads Pons' move strings
//! (`Position::from_moves`); Python callers also hand over lists and grids, and want reasons
//! in their own terms (0-based columns, rows from the top). The checks are the library's
//! (no move into a full column, none after a win, no full board), on a plain grid.

use std::collections::HashSet;
use transpo_connect4::position::column_char;

/// A game on a `width`×`height` board: the stones so far, each column filled from the
/// bottom.
pub struct Game {
    width: usize,
    height: usize,
    /// Each player's stones (index 0 the first player): bit `col * (height + 1) + row`, row
    /// 0 the bottom, with an empty bit above each column so that no line of four wraps to
    /// the next column. Every board the solver has fits: `width * (height + 1) <= 90`.
    stones: [u128; 2],
    heights: [u8; MAX_COLUMNS],
    moves: Vec<u8>,
}

/// The most columns of a board the solver has, 13, rounded up.
const MAX_COLUMNS: usize = 16;

/// Whether `stones` (bits as in [`Game`], columns `height + 1` bits apart) hold four in a
/// line: vertically (shift 1), horizontally (`height + 1`) or on a diagonal (`height`,
/// `height + 2`).
fn four_in_line(stones: u128, height: usize) -> bool {
    [1, height + 1, height, height + 2].iter().any(|&shift| {
        let pairs = stones & (stones >> shift);
        pairs & (pairs >> (2 * shift)) != 0
    })
}

impl Game {
    /// The empty board.
    pub fn new(width: usize, height: usize) -> Game {
        // Callers pass the sizes of a `Board`, which are at most 13 x 16 and 90 bits.
        debug_assert!(width <= MAX_COLUMNS && width * (height + 1) <= 128);
        Game {
            width,
            height,
            stones: [0; 2],
            heights: [0; MAX_COLUMNS],
            moves: Vec::new(),
        }
    }

    /// The position after `moves` (0-based columns) from the empty board, or why there is
    /// none: a column off the board or full, a move after the game was won, a full board.
    /// `written`: the moves came as a move string, so columns are also named as written
    /// there (`column 3, written 4`).
    pub fn from_moves(
        width: usize,
        height: usize,
        moves: &[i64],
        written: bool,
    ) -> Result<Game, String> {
        let name = |col: usize| {
            if written {
                format!("column {col} (written {})", column_char(col))
            } else {
                format!("column {col}")
            }
        };
        if moves.len() > width * height {
            return Err(format!(
                "{} moves, more than the {} squares of the {width}x{height} board",
                moves.len(),
                width * height
            ));
        }
        let mut game = Game::new(width, height);
        for (i, &col) in moves.iter().enumerate() {
            if col < 0 || col as usize >= width {
                let shown = if written && (0..13).contains(&col) {
                    name(col as usize)
                } else {
                    format!("column {col}")
                };
                return Err(format!(
                    "move {} is {shown}, not a column of the {width}x{height} board (0 to {})",
                    i + 1,
                    width - 1
                ));
            }
            let col = col as usize;
            if game.heights[col] as usize == height {
                return Err(format!(
                    "move {} plays into {}, which is full",
                    i + 1,
                    name(col)
                ));
            }
            if game.wins(col) {
                return Err(format!(
                    "move {} ({}) connects four: the game is over, there is nothing to solve",
                    i + 1,
                    name(col)
                ));
            }
            game.play(col);
        }
        if game.moves.len() == width * height {
            return Err("the board is full: the game is over (a draw)".into());
        }
        Ok(game)
    }

    /// Whether [`Game::from_moves`] accepts `moves` on the `width`×`height` board, without
    /// making the game, its error message or its move list: the check of `solve_many`, which
    /// reads positions by the million (on Pons' End-Easy set `from_moves` cost a fifth of the
    /// solve).
    ///
    /// Why four in a row is looked for once, after the last move, and not after each:
    /// stones are never taken back, so a side that connected four at some move still has it
    /// at the end; and a side that has four at the end connected it at some move, which
    /// `from_moves` refuses. A full board is refused too, as there.
    pub fn fits(width: usize, height: usize, moves: &[u8]) -> bool {
        if moves.len() >= width * height {
            return false;
        }
        let mut heights = [0u8; MAX_COLUMNS];
        let mut stones = [0u128; 2];
        for (i, &col) in moves.iter().enumerate() {
            let col = col as usize;
            if col >= width {
                return false;
            }
            let Some(filled) = heights.get_mut(col) else {
                return false;
            };
            if *filled as usize >= height {
                return false;
            }
            stones[i % 2] |= 1 << (col * (height + 1) + *filled as usize);
            *filled += 1;
        }
        !four_in_line(stones[0], height) && !four_in_line(stones[1], height)
    }

    /// The position of `grid` (`height` rows of `width` cells, row 0 the top), reached by
    /// some order of moves, or why no game reaches it.
    pub fn from_grid(width: usize, height: usize, grid: &[Vec<i64>]) -> Result<Game, String> {
        if grid.len() != height {
            return Err(format!(
                "a grid of {} rows, not the {height} rows of the {width}x{height} board",
                grid.len()
            ));
        }
        // cells[col][row from the bottom]
        let mut columns = vec![Vec::with_capacity(height); width];
        let mut counts = [0usize; 3];
        for (r, row) in grid.iter().enumerate() {
            if row.len() != width {
                return Err(format!(
                    "row {r} has {} cells, not the {width} columns of the {width}x{height} \
                     board",
                    row.len()
                ));
            }
            for (c, &cell) in row.iter().enumerate() {
                if !(0..=2).contains(&cell) {
                    return Err(format!(
                        "cell (row {r}, column {c}) is {cell}: cells are 0 (empty), 1 (first \
                         player) or 2 (second player)"
                    ));
                }
                counts[cell as usize] += 1;
            }
        }
        for (c, column) in columns.iter_mut().enumerate() {
            let mut top_reached = false;
            for r in (0..height).rev() {
                let cell = grid[r][c] as u8;
                if cell == 0 {
                    top_reached = true;
                } else if top_reached {
                    return Err(format!(
                        "floating stone at row {r}, column {c}: the square below it is empty \
                         (row 0 is the top row)"
                    ));
                } else {
                    column.push(cell);
                }
            }
        }
        let (first, second) = (counts[1], counts[2]);
        if first != second && first != second + 1 {
            return Err(format!(
                "stone counts: the first player (1) has {first} stones and the second (2) \
                 {second}; the first player has as many as the second, or one more"
            ));
        }
        let mut stones = [0u128; 2];
        for (c, column) in columns.iter().enumerate() {
            for (r, &cell) in column.iter().enumerate() {
                stones[cell as usize - 1] |= 1 << (c * (height + 1) + r);
            }
        }
        let (one, two) = (
            four_in_line(stones[0], height),
            four_in_line(stones[1], height),
        );
        if one && two {
            return Err(
                "both players have already connected four: no game reaches this grid".into(),
            );
        }
        if one || two {
            let who = if one { 1 } else { 2 };
            return Err(format!(
                "player {who} has already connected four: the game is over, there is nothing \
                 to solve"
            ));
        }
        if first + second == width * height {
            return Err("the board is full: the game is over (a draw)".into());
        }
        // No four anywhere, so no order of these moves ends the game early: any order that
        // alternates the players and fills each column from the bottom reaches the grid.
        let order = alternating_order(&columns, first + second)?;
        let mut game = Game::new(width, height);
        for col in order {
            game.play(col as usize);
        }
        Ok(game)
    }

    /// The bit of the square `col`'s next stone lands on.
    fn next_bit(&self, col: usize) -> u128 {
        1 << (col * (self.height + 1) + self.heights[col] as usize)
    }

    /// Whether playing `col` (not full) connects four for the side to move.
    fn wins(&self, col: usize) -> bool {
        let side = self.moves.len() % 2;
        four_in_line(self.stones[side] | self.next_bit(col), self.height)
    }

    fn play(&mut self, col: usize) {
        let side = self.moves.len() % 2;
        self.stones[side] |= self.next_bit(col);
        self.heights[col] += 1;
        self.moves.push(col as u8);
    }

    /// The moves, 0-based columns.
    pub fn moves(&self) -> &[u8] {
        &self.moves
    }

    /// The grid, row 0 the top: 0 empty, 1 the first player's stones, 2 the second's.
    pub fn grid(&self) -> Vec<Vec<u32>> {
        (0..self.height)
            .rev()
            .map(|r| {
                (0..self.width)
                    .map(|c| {
                        let bit = 1u128 << (c * (self.height + 1) + r);
                        if self.stones[0] & bit != 0 {
                            1
                        } else if self.stones[1] & bit != 0 {
                            2
                        } else {
                            0
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

/// The most column-height states [`alternating_order`] visits before giving up: far more than
/// a grid of any board the solver has needs in practice (each state is visited once).
const ORDER_STATES_MAX: usize = 1 << 21;

/// An order of `total` moves that takes each column's stones from the bottom
/// (`columns[c][0]` first) with the players alternating (1 first), if there is one:
/// depth-first over the columns' heights, remembering the states that lead nowhere.
fn alternating_order(columns: &[Vec<u8>], total: usize) -> Result<Vec<u8>, String> {
    let mut heights = vec![0u8; columns.len()];
    let mut order = Vec::with_capacity(total);
    let mut dead: HashSet<Vec<u8>> = HashSet::new();
    fn go(
        columns: &[Vec<u8>],
        heights: &mut Vec<u8>,
        order: &mut Vec<u8>,
        total: usize,
        dead: &mut HashSet<Vec<u8>>,
    ) -> bool {
        if order.len() == total {
            return true;
        }
        if dead.len() >= ORDER_STATES_MAX || dead.contains(heights) {
            return false;
        }
        let player = if order.len().is_multiple_of(2) { 1 } else { 2 };
        for c in 0..columns.len() {
            let h = heights[c] as usize;
            if columns[c].get(h) == Some(&player) {
                heights[c] += 1;
                order.push(c as u8);
                if go(columns, heights, order, total, dead) {
                    return true;
                }
                order.pop();
                heights[c] -= 1;
            }
        }
        dead.insert(heights.clone());
        false
    }
    if go(columns, &mut heights, &mut order, total, &mut dead) {
        Ok(order)
    } else if dead.len() >= ORDER_STATES_MAX {
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
