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
    columns_without_four: fn(&[u8; MAX_COLUMNS], &[u32; MAX_COLUMNS]) -> bool,
    key_after: fn(&[u8]) -> u128,
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

    /// Whether neither player has four in a line on a grid of the board given column by
    /// column: `heights[c]` stones in column `c` (at most the board's height), bit `h` of
    /// `seconds[c]` set where the stone at height `h` is the second player's. The question
    /// of [`Rules::playable_without_four`] about any order of moves that reaches the grid,
    /// asked of its stones without an order.
    pub fn columns_without_four(
        &self,
        heights: &[u8; MAX_COLUMNS],
        seconds: &[u32; MAX_COLUMNS],
    ) -> bool {
        (self.columns_without_four)(heights, seconds)
    }
}

fn rules_of<const W: usize, const H: usize, B: Bitboard>(board: Board) -> Option<Rules> {
    Some(Rules {
        board,
        first_fours: first_fours::<W, H, B>,
        playable_without_four: playable_without_four::<W, H, B>,
        columns_without_four: columns_without_four::<W, H, B>,
        key_after: key_after::<W, H, B>,
    })
}

/// The library's key of the position after `moves`, columns of the board none into a full
/// column (the replay stops at the first that is not), widened to `u128`.
fn key_after<const W: usize, const H: usize, B: Bitboard>(moves: &[u8]) -> u128 {
    let mut pos = Position::<W, H, B>::new();
    for &col in moves {
        let col = col as usize;
        if col >= W || !pos.can_play(col) {
            break;
        }
        pos.play_column(col);
    }
    pos.key().to_u128()
}

fn columns_without_four<const W: usize, const H: usize, B: Bitboard>(
    heights: &[u8; MAX_COLUMNS],
    seconds: &[u32; MAX_COLUMNS],
) -> bool {
    // Each player's stones in the library's layout: column c's squares from bit c·(H + 1)
    // up, the bit above each column's top left empty (every board fits 128 bits).
    let mut stones = [0u128; 2];
    for c in 0..W.min(MAX_COLUMNS) {
        let filled = (1u128 << u32::from(heights[c]).min(H as u32)) - 1;
        let second = u128::from(seconds[c]) & filled;
        stones[0] |= (filled & !second) << (c * (H + 1));
        stones[1] |= second << (c * (H + 1));
    }
    no_four::<W, H, B>(stones.map(B::from_u128))
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
    no_four::<W, H, B>(stones)
}

/// Whether neither player's `stones` hold four in a line. A stone is in a four when the
/// library's winning squares of the stones, with every square counted as empty, include it:
/// the other three of a line are there.
fn no_four<const W: usize, const H: usize, B: Bitboard>(stones: [B; 2]) -> bool {
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
/// The most rows of a board the library has, 16.
const MAX_ROWS: usize = 16;

/// Lanes of [`Stacks::first_tries_in_lanes`]'s vectors: columns, and stones a column, it
/// takes at most.
#[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
const LANES: usize = 8;

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

    /// Pushes onto `moves` the moves [`Game::from_grid`] gives for a grid of the board
    /// given as its cells row after row (`cells[r * width + c]`, row 0 the top; `i8`s, or
    /// an `int8` array's bytes, whose values past 127 are no cell either), if
    /// [`Game::grid_key`] takes the grid. Returns `false`, `moves` as they were, for anything
    /// else; `from_grid` then decides and says why. For the tests, which ask that the order
    /// it takes is `from_grid`'s.
    #[cfg(test)]
    pub fn push_grid<C: Copy + Into<i16>>(rules: &Rules, cells: &[C], moves: &mut Vec<u8>) -> bool {
        let Some(stacks) = Stacks::of_grid(rules, cells) else {
            return false;
        };
        let mut order = [0u8; MAX_COLUMNS * MAX_ROWS];
        match stacks.first_tries(&mut order) {
            Some(total) => {
                moves.extend_from_slice(&order[..total]);
                true
            }
            None => false,
        }
    }

    /// The key of a grid's position ([`Position::key`], widened to `u128`), the grid given
    /// as its cells row after row (`cells[r * width + c]`, row 0 the top; `i8`s, or an
    /// `int8` array's bytes, whose values past 127 are no cell either), if the grid is not
    /// full and has no four ([`Game::fits`]'s questions, asked of the stones before any
    /// order) and the order search takes it without backing out of a dead end:
    /// `solve_many`'s path for arrays of grids, read by the million, which allocates
    /// nothing and leaves the moves unwritten (the solver builds the position from the key,
    /// not by playing them). `None` for anything else (a bad cell or shape, a floating
    /// stone, impossible counts, an order that needs the search, a four, a full board);
    /// `from_grid` then decides and says why.
    pub fn grid_key<C: Copy + Into<i16>>(rules: &Rules, cells: &[C]) -> Option<u128> {
        let stacks = Stacks::of_grid(rules, cells)?;
        let mut order = [0u8; MAX_COLUMNS * MAX_ROWS];
        stacks.first_tries(&mut order)?;
        Some(stacks.key(rules.board.height()))
    }

    /// The key of the position ([`Position::key`], widened to `u128`): the library's, after
    /// the moves.
    pub fn key(&self, rules: &Rules) -> u128 {
        (rules.key_after)(&self.moves)
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

/// A grid's stones column by column from the bottom, and for each stone the latest move of
/// a game that may play it: the order search's view of a grid, in a few words on the stack.
struct Stacks {
    width: usize,
    heights: [u8; MAX_COLUMNS],
    /// Bit `h` of column `c`'s: the stone at height `h` (0 the bottom) is the second
    /// player's.
    seconds: [u32; MAX_COLUMNS],
    /// Of each column, the latest move (0 the first; negative: none) at which its bottom
    /// stone may be played in a game that plays every stone: see [`Stacks::deadline`].
    bottom: [i16; MAX_COLUMNS],
    /// Stones in all.
    total: usize,
}

impl Stacks {
    /// The stacks of `width` columns (at most [`MAX_COLUMNS`]) of `heights[c]` stones (at
    /// most [`MAX_ROWS`]) each, `stone(c, h)` the stone at height `h` of column `c` (0 the
    /// bottom; 1 or 2, the player who owns it), in a game that plays them all.
    fn new(width: usize, heights: [u8; MAX_COLUMNS], stone: impl Fn(usize, usize) -> u8) -> Stacks {
        let mut seconds = [0u32; MAX_COLUMNS];
        for (c, (bits, &height)) in seconds.iter_mut().zip(&heights).enumerate().take(width) {
            for h in 0..usize::from(height) {
                *bits |= u32::from(stone(c, h) == 2) << h;
            }
        }
        Stacks::of_bits(width, heights, seconds)
    }

    /// The stacks of a grid of the board of `rules` given as its cells row after row
    /// ([`Game::grid_key`]'s), if its cells are 0, 1 or 2, no stone floats, the counts are a
    /// game's, the board is not full and neither player has four; `None` otherwise.
    fn of_grid<C: Copy + Into<i16>>(rules: &Rules, cells: &[C]) -> Option<Stacks> {
        let (width, height) = (rules.board.width(), rules.board.height());
        if cells.len() != width * height || width > MAX_COLUMNS || height > MAX_ROWS {
            return None;
        }
        // Each column's stones from the bottom, as `columns_of` reads them, row after row
        // from the bottom; bit h of `seconds[c]`: the stone at height h is the second
        // player's.
        let mut heights = [0u8; MAX_COLUMNS];
        let mut seconds = [0u32; MAX_COLUMNS];
        // Bit c of `ended`: column c's top is below this row. A bad cell or a floating
        // stone sets `bad`, without a branch on the cells.
        let (mut ended, mut bad) = (0u32, false);
        for (h, row) in cells.chunks_exact(width).rev().enumerate() {
            for (c, &cell) in row.iter().enumerate() {
                let cell: i16 = cell.into();
                let stone = cell != 0;
                bad |= !(0..=2).contains(&cell) | (stone & (ended >> c & 1 != 0));
                ended |= u32::from(!stone) << c;
                heights[c] += u8::from(stone);
                seconds[c] |= u32::from(cell == 2) << h;
            }
        }
        if bad {
            return None;
        }
        let total: u32 = heights.iter().map(|&h| u32::from(h)).sum();
        let second: u32 = seconds.iter().map(|s| s.count_ones()).sum();
        let first = total - second;
        if first != second && first != second + 1
            || total as usize >= width * height
            || !rules.columns_without_four(&heights, &seconds)
        {
            return None;
        }
        Some(Stacks::of_bits(width, heights, seconds))
    }

    /// The key of the position of the stacks on a board `height` rows high
    /// ([`Position::key`]): column `c`'s `height + 1` bits, from bit `c·(height + 1)` up,
    /// hold the stones of the player to move and a one just above the column's top.
    fn key(&self, height: usize) -> u128 {
        // The first player is to move after an even number of stones.
        let flip = if self.total.is_multiple_of(2) {
            u32::MAX
        } else {
            0
        };
        let mut key = 0u128;
        for c in 0..self.width {
            let top = 1u32 << self.heights[c];
            let mover = (self.seconds[c] ^ flip) & (top - 1);
            key |= u128::from(mover | top) << (c * (height + 1));
        }
        key
    }

    /// The stacks of columns of `heights[c]` stones, bit `h` of `seconds[c]` set where the
    /// stone at height `h` of column `c` is the second player's.
    ///
    /// A move of the first player is an even move, counted from 0, one of the second's an
    /// odd move. A column's top stone may be played at the game's last move of its player;
    /// each stone below it at the last move of its own player before the stone above: one
    /// move earlier than the stone above if the players differ, two if they are the same.
    /// So the bottom stone's deadline is the top's, less one a stone above the bottom and
    /// one more for each pair of neighbours of the same player.
    fn of_bits(width: usize, heights: [u8; MAX_COLUMNS], seconds: [u32; MAX_COLUMNS]) -> Stacks {
        let width = width.min(MAX_COLUMNS);
        let total: i16 = heights.iter().map(|&h| i16::from(h)).sum();
        let mut bottom = [0i16; MAX_COLUMNS];
        for c in 0..width {
            let height = u32::from(heights[c]);
            if height == 0 {
                continue;
            }
            let top_player = (seconds[c] >> (height - 1)) & 1;
            // The game's last move of the top stone's player.
            let last = total - 1;
            let top = if last.rem_euclid(2) == top_player as i16 {
                last
            } else {
                last - 1
            };
            let pairs = Stacks::same_pairs_below(seconds[c], height - 1);
            bottom[c] = top - (height as i16 - 1) - pairs as i16;
        }
        Stacks {
            width,
            heights,
            seconds,
            bottom,
            total: usize::from(total.unsigned_abs()),
        }
    }

    /// Of the neighbours (h, h + 1) with h below `h`, how many are the same player's, in a
    /// column whose second player's stones are `seconds`.
    #[inline]
    fn same_pairs_below(seconds: u32, h: u32) -> u32 {
        let same = !(seconds ^ (seconds >> 1));
        (same & ((1u32 << h) - 1)).count_ones()
    }

    /// The stone at height `h` of column `c`: 1 or 2, the player who owns it; 0 at or above
    /// the top.
    #[inline]
    fn stone(&self, c: usize, h: usize) -> u8 {
        if h < usize::from(self.heights[c]) {
            1 + ((self.seconds[c] >> h) & 1) as u8
        } else {
            0
        }
    }

    /// The latest move (0 the first; negative: none) at which the stone at height `h` of
    /// column `c` may be played in a game that plays every stone: the bottom stone's, one
    /// later for each stone below it and one more for each pair of neighbours of the same
    /// player up to it ([`Stacks::of_bits`]).
    #[inline]
    fn deadline(&self, c: usize, h: usize) -> i16 {
        let pairs = Stacks::same_pairs_below(self.seconds[c], h as u32);
        self.bottom[c] + h as i16 + pairs as i16
    }

    /// Of the stone at height `h` (below the top) of column `c`: 1 + its
    /// [`deadline`](Stacks::deadline) (0: never; at most 255), and 256 more if the stone above
    /// it is the same player's ([`rank`]).
    #[inline]
    fn due(&self, c: usize, h: usize) -> u16 {
        let due = (self.deadline(c, h) + 1).clamp(0, 255) as u16;
        let above = self.stone(c, h + 1);
        due | if above == self.stone(c, h) { 256 } else { 0 }
    }

    /// The columns whose next stone (above the `taken[c]` already played) is `player`'s, in
    /// the order a search for a move order tries them, written into `into`; how many.
    ///
    /// The stone due soonest first (earliest deadline first, left to right among equals):
    /// a stone played late holds up the stones above it, whose own moves may run out. But
    /// when the other player has no stone to play, first the stones that give it one, or it
    /// would be stuck at the next move ([`rank`]). (Measured on 5,400 grids of
    /// random games: left to right with the stones that give the other player one first
    /// needed the search on 1,223; the deadlines alone on 52; both as here on 1.)
    fn next(&self, taken: &[u8; MAX_COLUMNS], player: u8, into: &mut [u8; MAX_COLUMNS]) -> usize {
        let whose = |c: usize| self.stone(c, usize::from(taken[c]));
        let stuck = (0..self.width).all(|c| whose(c) != 3 - player);
        let mut count = 0;
        for c in 0..self.width {
            if whose(c) == player {
                // Insertion by rank; a later column goes after an equal one.
                let rank = |c: u8| {
                    rank(
                        self.due(usize::from(c), usize::from(taken[c as usize])),
                        stuck,
                    )
                };
                let mut at = count;
                while at > 0 && rank(into[at - 1]) > rank(c as u8) {
                    into[at] = into[at - 1];
                    at -= 1;
                }
                into[at] = c as u8;
                count += 1;
            }
        }
        count
    }

    /// Writes into `order` the column of every stone, each time the first that
    /// [`Stacks::next`] offers (what the order search takes when it meets no dead end), and
    /// returns how many; `None` at a dead end. On boards of at most eight columns and stacks
    /// of at most eight stones, with SSE4.1, the walk is [`Stacks::first_tries_in_lanes`]
    /// (2.5× faster on End-Easy's grids); otherwise [`Stacks::first_tries_by_column`]. Both
    /// take the same order (`the_lanes_take_the_columns_order`).
    fn first_tries(&self, order: &mut [u8; MAX_COLUMNS * MAX_ROWS]) -> Option<usize> {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
        if let Some(levels) = self.lane_levels() {
            // SAFETY: `first_tries_in_lanes` needs SSE4.1 and nothing else, and this build
            // enables it for all its code (the `cfg` above).
            return unsafe {
                if levels <= 6 {
                    self.first_tries_in_lanes::<6>(order)
                } else {
                    self.first_tries_in_lanes::<8>(order)
                }
            };
        }
        self.first_tries_by_column(order)
    }

    /// The stacks' height, if they fit [`Stacks::first_tries_in_lanes`]: at most
    /// [`LANES`] columns of at most [`LANES`] stones.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    fn lane_levels(&self) -> Option<usize> {
        let tallest = self.heights[..self.width]
            .iter()
            .copied()
            .max()
            .unwrap_or(0);
        (self.width <= LANES && usize::from(tallest) <= LANES).then_some(usize::from(tallest))
    }

    /// [`Stacks::first_tries`] one column at a time, on any board. Which columns' next
    /// stone is each player's is kept as a bit set a player, and each column's next stone's
    /// key (rank, then column) in both of [`rank`]'s orders, so a move looks only at the two
    /// to four columns the player to move can take and takes the least key.
    fn first_tries_by_column(&self, order: &mut [u8; MAX_COLUMNS * MAX_ROWS]) -> Option<usize> {
        let mut taken = [0u8; MAX_COLUMNS];
        // `keys[stuck][c]`: column c's next stone's key in `rank`'s order for `stuck`.
        let mut keys = [[0u16; MAX_COLUMNS]; 2];
        // Bit c of `open[p - 1]`: column c's next stone is player p's.
        let mut open = [0u16; 2];
        let enter =
            |c: usize, h: usize, keys: &mut [[u16; MAX_COLUMNS]; 2], open: &mut [u16; 2]| {
                if h < usize::from(self.heights[c]) {
                    let due = self.due(c, h);
                    keys[0][c] = (rank(due, false) << 4) | c as u16;
                    keys[1][c] = (rank(due, true) << 4) | c as u16;
                    open[((self.seconds[c] >> h) & 1) as usize] |= 1 << c;
                }
            };
        for c in 0..self.width {
            enter(c, 0, &mut keys, &mut open);
        }
        let total = self.total;
        for (i, slot) in order.iter_mut().enumerate().take(total) {
            let (mine, theirs) = (i % 2, 1 - i % 2);
            let keys_now = &keys[usize::from(open[theirs] == 0)];
            // The least key (a rank is below 512: a key is below 2^13).
            let mut least = u16::MAX;
            let mut rest = open[mine];
            while rest != 0 {
                let c = rest.trailing_zeros() as usize % MAX_COLUMNS;
                rest &= rest - 1;
                least = least.min(keys_now[c]);
            }
            if least == u16::MAX {
                return None;
            }
            let c = usize::from(least & 15);
            open[mine] &= !(1 << c);
            taken[c] += 1;
            enter(c, usize::from(taken[c]), &mut keys, &mut open);
            *slot = c as u8;
        }
        Some(total)
    }

    /// [`Stacks::first_tries`] with every column's next stone in one lane of a vector of
    /// eight 16-bit keys, and the stones above it in `LEVELS - 1` more vectors (at least the
    /// tallest stack), so that a move is a few vector steps with no branch and no load:
    ///
    /// - a key is [`Stacks::due`] (its deadline, and 256 if the stone above is the same
    ///   player's), with bit 15 set for a stone of the second player; `0x7fff` where there is
    ///   none;
    /// - flipping bit 15 for the second player's moves makes the mover's keys the small
    ///   ones, and `_mm_minpos_epu16` gives the least and its lane, the leftmost among equals:
    ///   [`Stacks::next`]'s first choice, with the 256 kept only when the other player has no
    ///   stone to play ([`rank`]);
    /// - taking the stone shifts that lane of every level down one.
    ///
    /// A move with no stone of the mover's takes a key above `0x1ff`; the walk goes on and
    /// answers `None` at the end.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    #[target_feature(enable = "sse4.1")]
    fn first_tries_in_lanes<const LEVELS: usize>(
        &self,
        order: &mut [u8; MAX_COLUMNS * MAX_ROWS],
    ) -> Option<usize> {
        use std::arch::x86_64::*;
        const NONE: u16 = 0x7fff;
        let mut levels = [[NONE; LANES]; LEVELS];
        for (h, level) in levels.iter_mut().enumerate() {
            for (c, key) in level.iter_mut().enumerate().take(self.width) {
                if h < usize::from(self.heights[c]) {
                    let second = ((self.seconds[c] >> h) & 1) as u16;
                    *key = second << 15 | self.due(c, h);
                }
            }
        }
        let vector = |keys: &[u16; LANES]| {
            let k = keys.map(|k| k as i16);
            _mm_set_epi16(k[7], k[6], k[5], k[4], k[3], k[2], k[1], k[0])
        };
        let mut stack: [__m128i; LEVELS] = std::array::from_fn(|h| vector(&levels[h]));
        let none = _mm_set1_epi16(NONE as i16);
        let lanes = _mm_set_epi16(7, 6, 5, 4, 3, 2, 1, 0);
        // XORed into the keys at the first player's moves and at the second's.
        let movers = [_mm_setzero_si128(), _mm_set1_epi16(i16::MIN)];
        let without_flag = _mm_set1_epi16(!256);
        let raise = _mm_set1_epi16(0x7e00);
        // `pshufb`'s choice of bytes 2 and 3 in every lane: `minpos`'s lane.
        let lane_of_least = _mm_set1_epi16(0x0302);
        let mut worst = _mm_setzero_si128();
        for (i, slot) in order.iter_mut().enumerate().take(self.total) {
            let (mine, theirs) = (i % 2, 1 - i % 2);
            let flagged = _mm_xor_si128(stack[0], movers[mine]);
            let least_flagged = _mm_minpos_epu16(flagged);
            let least_plain = _mm_minpos_epu16(_mm_and_si128(flagged, without_flag));
            // The other player's least key, raised by 0x7e00 with saturation: its sign bit
            // set if it has no stone to play (no key below 0x200).
            let other = _mm_minpos_epu16(_mm_xor_si128(stack[0], movers[theirs]));
            let other = _mm_adds_epu16(other, raise);
            let stuck = _mm_shufflelo_epi16::<0>(_mm_srai_epi16::<15>(other));
            let least = _mm_blendv_epi8(least_plain, least_flagged, stuck);
            worst = _mm_max_epu16(worst, least);
            let taken = _mm_cmpeq_epi16(lanes, _mm_shuffle_epi8(least, lane_of_least));
            for h in 0..LEVELS - 1 {
                stack[h] = _mm_blendv_epi8(stack[h], stack[h + 1], taken);
            }
            stack[LEVELS - 1] = _mm_blendv_epi8(stack[LEVELS - 1], none, taken);
            *slot = (_mm_extract_epi16::<1>(least) & 7) as u8;
        }
        (_mm_extract_epi16::<0>(worst) <= 0x1ff).then_some(self.total)
    }
}

/// Where a stone of [`Stacks::due`] `due` comes in the order of [`Stacks::next`], the
/// smaller first: its deadline, except that when the other player has no stone to play
/// (`stuck`) a stone that gives it one (the stone above is its, or there is none) comes
/// before one that does not.
#[inline]
fn rank(due: u16, stuck: bool) -> u16 {
    if stuck { due } else { due & 255 }
}

/// The most column-height states [`alternating_order`] visits before giving up: far more than
/// a grid of any board the solver has needs in practice (each state is visited once).
const ORDER_STATES_MAX: usize = 1 << 21;

/// An order of `total` moves that takes each column's stones from the bottom
/// (`columns[c][0]` first) with the players alternating (1 first), if there is one:
/// depth-first over the columns' heights, remembering the states that lead nowhere.
///
/// At each move it tries the columns in the order of [`Stacks::next`]. On the grids of
/// random games its first tries are nearly always all it takes (all but 1 of 5,400 in the
/// tests), and [`Game::grid_key`] takes them without the search.
fn alternating_order(columns: &[Vec<u8>], total: usize) -> Result<Vec<u8>, String> {
    struct Search {
        stacks: Stacks,
        total: usize,
        heights: [u8; MAX_COLUMNS],
        order: Vec<u8>,
        /// The heights that lead nowhere, packed a byte a column.
        dead: HashSet<u128>,
    }
    impl Search {
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
            let mut tries = [0; MAX_COLUMNS];
            let count = self.stacks.next(&self.heights, player, &mut tries);
            for &c in &tries[..count] {
                self.heights[c as usize] += 1;
                self.order.push(c);
                if self.go() {
                    return true;
                }
                self.order.pop();
                self.heights[c as usize] -= 1;
            }
            let key = self.key();
            self.dead.insert(key);
            false
        }
    }
    if columns.len() > MAX_COLUMNS || columns.iter().any(|c| c.len() > MAX_ROWS) {
        return Err(format!(
            "a grid of {} columns: more than any board has",
            columns.len()
        ));
    }
    let mut heights = [0; MAX_COLUMNS];
    for (h, column) in heights.iter_mut().zip(columns) {
        *h = column.len() as u8;
    }
    let mut search = Search {
        stacks: Stacks::new(columns.len(), heights, |c, h| columns[c][h]),
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

    /// The stacks of a random game of up to `width × height` stones on that board, played
    /// past its fours (each column's stones from the bottom, the players in turn), and how
    /// many stones.
    fn random_stacks(
        next: &mut impl FnMut(usize) -> usize,
        width: usize,
        height: usize,
    ) -> (Vec<Vec<u8>>, usize) {
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
        (columns, total)
    }

    /// On random grids, reachable (the stones of random games) and mostly not (the same
    /// stones shuffled within each column), the order search finds an order exactly when the plain one
    /// does, and its order reaches the grid: each column's stones from the bottom, the
    /// players in turn.
    #[test]
    fn the_order_search_agrees_with_a_plain_one() {
        let mut next = crate::seeded(99);
        let (mut found, mut none) = (0, 0);
        for (width, height) in [(7, 6), (4, 4), (9, 7), (13, 4), (4, 16)] {
            for _ in 0..400 {
                let (mut columns, total) = random_stacks(&mut next, width, height);
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

    /// The walk in lanes against the walk one column at a time, on every board shape it
    /// takes (up to eight columns of eight) and on stacks one stone too many for it, on
    /// stacks of random games (mostly an order), the same stones shuffled within their
    /// columns, stones of both players given to the other, and owners at random (mostly a
    /// dead end): the same answer, and the same order where there is one.
    #[test]
    fn the_lanes_take_the_columns_order() {
        let mut next = crate::seeded(73);
        let (mut found, mut none) = (0, 0);
        for (width, height) in [
            (7, 6),
            (4, 4),
            (5, 4),
            (8, 8),
            (6, 7),
            (8, 5),
            (9, 4),
            (4, 9),
        ] {
            for _ in 0..1500 {
                let (mut columns, _) = random_stacks(&mut next, width, height);
                match next(4) {
                    0 => {
                        for column in columns.iter_mut() {
                            for i in (1..column.len()).rev() {
                                column.swap(i, next(i + 1));
                            }
                        }
                    }
                    1 => {
                        // Two stones of different players change owners: the counts
                        // stay a game's.
                        for _ in 0..1 + next(3) {
                            let (a, b) = (next(width), next(width));
                            let (ha, hb) = (columns[a].len(), columns[b].len());
                            if ha > 0 && hb > 0 {
                                let (i, j) = (next(ha), next(hb));
                                if columns[a][i] != columns[b][j] {
                                    columns[a][i] = 3 - columns[a][i];
                                    columns[b][j] = 3 - columns[b][j];
                                }
                            }
                        }
                    }
                    2 => {
                        // Owners at random: mostly not a game's counts.
                        for stone in columns.iter_mut().flatten() {
                            *stone = 1 + next(2) as u8;
                        }
                    }
                    _ => {}
                }
                let mut heights = [0u8; MAX_COLUMNS];
                for (h, column) in heights.iter_mut().zip(&columns) {
                    *h = column.len() as u8;
                }
                let stacks = Stacks::new(width, heights, |c, h| columns[c][h]);
                let mut lanes = [0u8; MAX_COLUMNS * MAX_ROWS];
                let mut by_column = [0u8; MAX_COLUMNS * MAX_ROWS];
                let answer = stacks.first_tries(&mut lanes);
                assert_eq!(answer, stacks.first_tries_by_column(&mut by_column));
                if let Some(total) = answer {
                    assert_eq!(lanes[..total], by_column[..total]);
                    found += 1;
                } else {
                    none += 1;
                }
            }
        }
        assert!(found > 5000 && none > 2000, "{found} found, {none} not");
    }

    /// Each stone's deadline, worked out from the bottom one in a few bit operations,
    /// against a plain walk down each column: the top stone's is the game's last move of
    /// its player, and each one below it the last move of its own player before the
    /// deadline of the stone above (negative where there is none).
    #[test]
    fn deadlines_are_the_last_moves_before_the_stone_above() {
        let mut next = crate::seeded(17);
        for (width, height) in [(7, 6), (4, 4), (13, 4), (4, 16), (16, 16)] {
            for _ in 0..300 {
                let heights: Vec<u8> = (0..width).map(|_| next(height + 1) as u8).collect();
                let columns: Vec<Vec<u8>> = heights
                    .iter()
                    .map(|&h| (0..h).map(|_| 1 + next(2) as u8).collect())
                    .collect();
                let mut packed = [0; MAX_COLUMNS];
                packed[..width].copy_from_slice(&heights);
                let stacks = Stacks::new(width, packed, |c, h| columns[c][h]);
                let total: i16 = heights.iter().map(|&h| i16::from(h)).sum();
                for (c, column) in columns.iter().enumerate() {
                    let mut above = total;
                    for h in (0..column.len()).rev() {
                        // Moves of player 1 are even, of player 2 odd.
                        let mut t = above - 1;
                        while t.rem_euclid(2) != i16::from(column[h]) - 1 {
                            t -= 1;
                        }
                        assert_eq!(stacks.deadline(c, h), t, "{columns:?} {c} {h}");
                        assert_eq!(stacks.stone(c, h), column[h]);
                        above = t;
                    }
                    assert_eq!(stacks.stone(c, column.len()), 0);
                }
            }
        }
    }

    /// The four test on a grid's columns against the one on its moves: random move lists
    /// played past their fours on boards from 4×4 to 4×16, with the columns read from the
    /// cells the moves leave.
    #[test]
    fn fours_on_the_columns_are_fours_on_the_moves() {
        let mut next = crate::seeded(41);
        let (mut with, mut without) = (0, 0);
        for board in ["7x6", "4x4", "9x7", "13x4", "4x16", "8x8"] {
            let r = rules(board);
            let (w, h) = (r.board().width(), r.board().height());
            for _ in 0..500 {
                let mut moves = Vec::new();
                let mut heights = [0u8; MAX_COLUMNS];
                let mut seconds = [0u32; MAX_COLUMNS];
                let length = next(w * h + 1);
                while moves.len() < length {
                    let c = next(w);
                    if usize::from(heights[c]) < h {
                        seconds[c] |= ((moves.len() % 2) as u32) << heights[c];
                        heights[c] += 1;
                        moves.push(c as u8);
                    }
                }
                let plain = r.playable_without_four(&moves);
                assert_eq!(
                    r.columns_without_four(&heights, &seconds),
                    plain,
                    "{board} {moves:?}"
                );
                if plain { without += 1 } else { with += 1 }
            }
        }
        assert!(
            with > 500 && without > 500,
            "{with} with a four, {without} without"
        );
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
        let mut next = crate::seeded(12345);
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

    /// The cells of `moves` played on the `width`×`height` board without the four rule (so
    /// stones may follow a four), row after row from the top.
    fn cells_of(moves: &[u8], width: usize, height: usize) -> Vec<i8> {
        let mut cells = vec![0i8; width * height];
        let mut heights = vec![0; width];
        for (i, &c) in moves.iter().enumerate() {
            let c = c as usize;
            heights[c] += 1;
            cells[(height - heights[c]) * width + c] = 1 + (i % 2) as i8;
        }
        cells
    }

    /// The fast reader of grids against the reference, `from_grid` (shape, cells, gravity,
    /// counts, the order search, fours, a full board, each with its message): on grids of
    /// random games played past their fours, whole or cut just before and after a four, with
    /// full columns, and on the same grids spoilt (a stone made floating, a stone's owner or
    /// a cell changed, two stones of a column swapped), `push_grid` accepts a grid only if
    /// `from_grid` does and then gives its moves, and `grid_key` the library's key after
    /// them; and it accepts every grid of a real game not over.
    #[test]
    fn the_fast_grid_reader_agrees_with_from_grid() {
        let mut next = crate::seeded(2026);
        let (mut fast, mut refused, mut searched, mut games_searched) = (0, 0, 0, 0);
        for board in ["7x6", "4x4", "5x4", "9x7", "13x4", "4x16", "9x9"] {
            let r = rules(board);
            let (w, h) = (r.board().width(), r.board().height());
            for _ in 0..1500 {
                let mut moves = Vec::new();
                let mut heights = vec![0; w];
                let length = next(w * h + 1);
                // Columns filled first now and then, for full columns early.
                let favourite = next(w);
                while moves.len() < length {
                    let c = if next(3) == 0 { favourite } else { next(w) };
                    if heights[c] < h {
                        heights[c] += 1;
                        moves.push(c as u8);
                    }
                }
                // Cut just before or after the first four, sometimes.
                let fours = r.first_fours(&moves);
                if let Some(at) = fours.iter().flatten().min()
                    && next(2) == 0
                {
                    moves.truncate(at + next(2));
                }
                let game = Game::fits(&r, &moves);
                let mut cells = cells_of(&moves, w, h);
                let spoilt = next(3) == 0;
                if spoilt {
                    let at = next(w * h);
                    match next(4) {
                        0 => cells[at] = next(4) as i8,
                        1 => cells[at] = 3 - cells[at].clamp(1, 2),
                        2 if at + w < w * h => {
                            // The square below made empty: a floating stone if one is above.
                            cells[at + w] = 0;
                        }
                        _ if at + w < w * h => cells.swap(at, at + w),
                        _ => cells[at] = -1,
                    }
                }
                let rows: Vec<Vec<i64>> = cells
                    .chunks(w)
                    .map(|row| row.iter().map(|&c| c as i64).collect())
                    .collect();
                let reference = Game::from_grid(&r, &rows);
                let mut read = vec![7];
                let key = Game::grid_key(&r, &cells);
                if Game::push_grid(&r, &cells, &mut read) {
                    fast += 1;
                    let game = reference.expect("the fast reader accepts only positions");
                    assert_eq!(&read[1..], game.moves(), "{board} {cells:?}");
                    // The key made from the stones is the library's after the moves.
                    assert_eq!(key, Some(game.key(&r)), "{board} {cells:?}");
                } else {
                    assert_eq!(read, [7], "left as it was");
                    assert_eq!(key, None, "{board} {cells:?}");
                    match reference {
                        Ok(_) => searched += 1,
                        Err(_) => refused += 1,
                    }
                    if game && !spoilt {
                        games_searched += 1;
                    }
                }
            }
        }
        assert!(
            fast > 4000 && refused > 2000,
            "{fast} fast, {refused} refused"
        );
        // Seen: 1 searched (a game's grid), 5,417 fast.
        assert!(
            searched <= 5 && games_searched <= 5,
            "{searched} searched, {fast} fast"
        );
        // Shapes and sizes the fast reader leaves to `from_grid`.
        let r = rules("7x6");
        let mut read = Vec::new();
        assert!(!Game::push_grid(&r, &[0i8; 41], &mut read));
        assert!(Game::push_grid(&r, &[0i8; 42], &mut read) && read.is_empty());
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
