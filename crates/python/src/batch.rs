//! The positions of one `solve_many` or `analyse_many`: checked on the board, their moves
//! in one buffer. Read either one Python object at a time (the PyO3 layer's fast path, and
//! [`with_slow`] for the rest) or, for a numpy array, from its values in one piece
//! ([`from_array`]): N move lists, N grids, N Kaggle boards or N PettingZoo observations,
//! told apart by the array's shape, checked on every thread without the GIL.

use crate::layout::{self, Observer, Planes};
use crate::read::{Given, Refusal};
use crate::rules::{Game, Rules};

/// Checked positions: all their moves (0-based columns) in one buffer, so that reading one
/// allocates nothing; or, for a batch read from an array of grids, each one's key
/// ([`Game::grid_key`]), which the solver turns into its position without playing the
/// moves that reach it.
#[derive(Default, Debug, PartialEq, Eq)]
pub struct Batch {
    /// The moves of every position, one after the other.
    pub moves: Vec<u8>,
    /// Where each position's moves end in `moves` (and the next one's begin).
    ends: Vec<usize>,
    /// The positions' keys, in a batch of keys (then `moves` and `ends` are empty).
    keys: Vec<u128>,
}

/// One position of a [`Batch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item<'a> {
    /// The moves that reach it.
    Moves(&'a [u8]),
    /// Its key ([`transpo_connect4::position::Position::key`], widened to `u128`).
    Key(u128),
}

impl Batch {
    /// Positions in the batch.
    pub fn len(&self) -> usize {
        self.ends.len() + self.keys.len()
    }

    /// Whether the batch has no position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Position `i` (no moves if there is no such position).
    pub fn get(&self, i: usize) -> Item<'_> {
        if !self.keys.is_empty() {
            return match self.keys.get(i) {
                Some(&key) => Item::Key(key),
                None => Item::Moves(&[]),
            };
        }
        let start = i.checked_sub(1).map_or(0, |j| self.ends[j]);
        Item::Moves(
            self.ends
                .get(i)
                .and_then(|&end| self.moves.get(start..end))
                .unwrap_or_default(),
        )
    }

    /// Ends a position whose moves were pushed onto `moves`.
    pub fn end_position(&mut self) {
        self.ends.push(self.moves.len());
    }

    /// Adds a position: its moves to a batch of moves, its key to a batch of keys.
    pub fn push(&mut self, item: Item<'_>) {
        match item {
            Item::Moves(moves) => {
                self.moves.extend_from_slice(moves);
                self.end_position();
            }
            Item::Key(key) => self.push_key(key),
        }
    }

    /// Adds a position by its key, to a batch of keys (one with no moves).
    pub fn push_key(&mut self, key: u128) {
        debug_assert!(
            self.ends.is_empty(),
            "a batch holds moves or keys, not both"
        );
        self.keys.push(key);
    }
}

/// A position refused: its index in the batch and why.
pub type Refused = (usize, String);

/// Runs `check` on each of `count` items on up to `threads` threads (chunks of at least
/// 256), in order: each check adds its position to the batch it is given (its moves and
/// [`Batch::end_position`], or [`Batch::push_key`]), so a position costs its moves and one
/// index, or its key, never an allocation of its own. The positions, or the first refused
/// (by index).
fn check_in_parallel(
    count: usize,
    threads: usize,
    check: impl Fn(usize, &mut Batch) -> Result<(), String> + Sync,
) -> Result<Batch, Refused> {
    let chunk = count.div_ceil(threads.max(1)).max(256);
    let check = &check;
    let parts: Vec<Result<Batch, Refused>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..count)
            .step_by(chunk)
            .map(|from| {
                scope.spawn(move || {
                    let mut part = Batch::default();
                    for i in from..count.min(from + chunk) {
                        check(i, &mut part).map_err(|why| (i, why))?;
                    }
                    Ok(part)
                })
            })
            .collect();
        handles
            .into_iter()
            // A checking thread does not panic; were it to, its positions count as refused.
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err((0, "the check failed".into())))
            })
            .collect()
    });
    let parts = parts.into_iter().collect::<Result<Vec<_>, _>>()?;
    let mut all = Batch::default();
    all.moves
        .reserve(parts.iter().map(|part| part.moves.len()).sum());
    all.ends
        .reserve(parts.iter().map(|part| part.ends.len()).sum());
    all.keys
        .reserve(parts.iter().map(|part| part.keys.len()).sum());
    for part in parts {
        let offset = all.moves.len();
        all.moves.extend_from_slice(&part.moves);
        all.ends.extend(part.ends.iter().map(|end| end + offset));
        all.keys.extend_from_slice(&part.keys);
    }
    Ok(all)
}

/// `batch` with the positions the fast path left (`slow`: each one's index and what was
/// read, its place in `batch` empty) checked on the board of `rules` on up to `threads`
/// threads and put in, or the first one (by index) that is not a position and why.
pub fn with_slow(
    batch: Batch,
    slow: &[(usize, Given)],
    rules: &Rules,
    threads: usize,
) -> Result<Batch, Refused> {
    if slow.is_empty() {
        return Ok(batch);
    }
    let checked = check_in_parallel(slow.len(), threads, |k, part| {
        part.push(Item::Moves(slow[k].1.check(rules)?.moves()));
        Ok(())
    })
    .map_err(|(k, why)| (slow[k].0, why))?;
    let mut merged = Batch::default();
    let mut slow = slow.iter().map(|(i, _)| *i).enumerate().peekable();
    for i in 0..batch.len() {
        merged.push(match slow.next_if(|(_, at)| *at == i) {
            Some((k, _)) => checked.get(k),
            None => batch.get(i),
        });
    }
    Ok(merged)
}

/// What a numpy array of positions holds, told by its shape on a `W`×`H` board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// N×k: N lists of k 0-based columns (k < W·H).
    Moves(usize),
    /// N×H×W: N grids, row 0 the top.
    Grids,
    /// N×(W·H): N Kaggle boards, flat, row 0 the top.
    Kaggle,
    /// N×H×W×2: N PettingZoo observations (plane 0 the observing agent's stones).
    Planes,
}

/// The layout of an array of `shape` holding positions of the board of `rules`, or why it
/// holds none. A 1-D array is not one (its items are read one by one).
pub fn layout_of(shape: &[usize], rules: &Rules) -> Result<Layout, Refusal> {
    let board = rules.board();
    let (w, h, squares) = (board.width(), board.height(), board.squares());
    let shown = shape
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join("×");
    let expected = format!(
        "an array of N positions of the {board} board is N×k (move lists, k < {squares}), \
         N×{squares} (Kaggle boards), N×{h}×{w} (grids) or N×{h}×{w}×2 (PettingZoo planes)"
    );
    match *shape {
        [_, k] if k == squares => Ok(Layout::Kaggle),
        [_, k] if k < squares => Ok(Layout::Moves(k)),
        [_, rows, columns] if (rows, columns) == (h, w) => Ok(Layout::Grids),
        [_, rows, columns, 2] if (rows, columns) == (h, w) => Ok(Layout::Planes),
        _ => Err(Refusal::Value(format!("a {shown} array: {expected}"))),
    }
}

/// A numpy array of positions, its values copied out in one piece as the bytes of `int8`s
/// (each value fits `i8`, checked by the caller).
pub struct Array<'a> {
    /// Positions: the array's first dimension.
    pub count: usize,
    /// The values as bytes (two's complement), `count` positions of the same number each,
    /// row-major.
    pub values: &'a [u8],
    /// What the array holds.
    pub layout: Layout,
    /// The observing agent of each position (0 the first player), for [`Layout::Planes`]:
    /// one for all, or one each; none when the counts of stones must say.
    pub agents: &'a [usize],
}

/// The positions of `array`, checked on the board of `rules` on up to `threads` threads, or
/// the first refused (by index) and why, in the words `solve` uses for it.
pub fn from_array(array: &Array<'_>, rules: &Rules, threads: usize) -> Result<Batch, Refused> {
    let board = rules.board();
    let (w, h) = (board.width(), board.height());
    let each = array.values.len().checked_div(array.count).unwrap_or(0);
    let agent = |i: usize| match array.agents {
        [] => None,
        [one] => Some(*one),
        each => each.get(i).copied(),
    };
    // A value's byte as the `int8` it is.
    let int = |byte: u8| i64::from(byte as i8);
    let grid_of = |cells: &[u8]| -> Vec<Vec<i64>> {
        cells
            .chunks(w)
            .map(|row| row.iter().map(|&c| int(c)).collect())
            .collect()
    };
    // A batch of moves for move lists, of keys for grids (`Game::grid_key`).
    let keyed = !matches!(array.layout, Layout::Moves(_));
    let check = |i: usize, part: &mut Batch| -> Result<(), String> {
        let cells = &array.values[i * each..(i + 1) * each];
        let given = match array.layout {
            Layout::Moves(_) => {
                if cells.iter().all(|&c| int(c) >= 0) {
                    let start = part.moves.len();
                    part.moves.extend_from_slice(cells);
                    if Game::fits(rules, &part.moves[start..]) {
                        part.end_position();
                        return Ok(());
                    }
                    part.moves.truncate(start);
                }
                Given::Moves(cells.iter().map(|&c| int(c)).collect(), false)
            }
            Layout::Grids | Layout::Kaggle => {
                if let Some(key) = Game::grid_key(rules, cells) {
                    part.push_key(key);
                    return Ok(());
                }
                Given::Grid(grid_of(cells))
            }
            Layout::Planes => {
                // The planes as `i8`, on the stack (a board has at most `MAX_CELLS` squares).
                let mut signed = [0i8; 2 * layout::MAX_CELLS];
                let Some(signed) = signed.get_mut(..each) else {
                    return Err(format!("{each} values a position: more than any board has"));
                };
                for (value, &byte) in signed.iter_mut().zip(cells) {
                    *value = byte as i8;
                }
                let planes = Planes {
                    height: h,
                    width: w,
                    cells: signed,
                };
                let mut grid = [0; layout::MAX_CELLS];
                if let Some(grid) = layout::planes_cells(&planes, agent(i), &mut grid)
                    && let Some(key) = Game::grid_key(rules, grid)
                {
                    part.push_key(key);
                    return Ok(());
                }
                let observer = Observer {
                    agent: agent(i),
                    mask: None,
                };
                let grid = layout::planes_grid(&planes, observer)
                    .map_err(|why| format!("not a PettingZoo observation: {why}"))?;
                Given::Grid(grid)
            }
        };
        let game = given.check(rules)?;
        part.push(if keyed {
            Item::Key(game.key(rules))
        } else {
            Item::Moves(game.moves())
        });
        Ok(())
    };
    check_in_parallel(array.count, threads, check)
}

/// Why a value of an array of positions is refused before it is read: it does not fit the
/// `i8` the values are copied into, and no cell or column is that large.
pub fn value_out_of_range(layout: Layout, position: usize, value: &str) -> String {
    let expected = match layout {
        Layout::Moves(_) => "a column of the board",
        Layout::Grids | Layout::Kaggle => "a cell: 0 (empty), 1 (first player) or 2 (second)",
        Layout::Planes => "a plane's value: 0 or 1",
    };
    format!("position {position}: a value of {value}, not {expected}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use transpo_connect4::board::Board;

    fn rules() -> Rules {
        Rules::of(Board::STANDARD).expect("compiled")
    }

    #[test]
    fn batches_keep_their_positions_apart() {
        let mut batch = Batch::default();
        batch.moves.extend([3, 3]);
        batch.end_position();
        batch.end_position();
        batch.moves.push(0);
        batch.end_position();
        assert_eq!(
            (batch.len(), batch.get(0), batch.get(1), batch.get(2)),
            (3, Item::Moves(&[3, 3]), Item::Moves(&[]), Item::Moves(&[0]))
        );
        assert_eq!(batch.get(3), Item::Moves(&[]));
        let mut keys = Batch::default();
        keys.push_key(5);
        keys.push_key(7);
        assert_eq!(
            (keys.len(), keys.get(1), keys.get(2)),
            (2, Item::Key(7), Item::Moves(&[]))
        );
    }

    #[test]
    fn slow_positions_are_checked_and_merged_in_order() {
        let mut batch = Batch::default();
        for moves in [&[3u8][..], &[], &[1]] {
            batch.moves.extend_from_slice(moves);
            batch.end_position();
        }
        let slow = [(1, Given::Moves(vec![4, 4], false))];
        let merged = with_slow(batch, &slow, &rules(), 2).expect("checked");
        assert_eq!(merged.get(1), Item::Moves(&[4, 4]));
        assert_eq!(merged.get(2), Item::Moves(&[1]));
        let bad = [(2, Given::Moves(vec![9], false))];
        let mut two = Batch::default();
        two.end_position();
        two.end_position();
        two.end_position();
        let (at, why) = with_slow(two, &bad, &rules(), 2).unwrap_err();
        assert_eq!(at, 2);
        assert!(why.starts_with("not a position to solve on 7x6: move 1 is column 9"));
    }

    #[test]
    fn layouts_are_told_by_shape() {
        let r = rules();
        assert_eq!(layout_of(&[5, 4], &r), Ok(Layout::Moves(4)));
        assert_eq!(layout_of(&[5, 42], &r), Ok(Layout::Kaggle));
        assert_eq!(layout_of(&[5, 6, 7], &r), Ok(Layout::Grids));
        assert_eq!(layout_of(&[5, 6, 7, 2], &r), Ok(Layout::Planes));
        let why = layout_of(&[5, 7, 6], &r).unwrap_err();
        assert!(
            why.message()
                .starts_with("a 5×7×6 array: an array of N positions")
        );
        assert!(layout_of(&[5, 43], &r).is_err());
    }

    /// The 6x7 grid after `moves`, row 0 the top, as i8 cells.
    fn cells_after(moves: &[usize]) -> Vec<i8> {
        let mut grid = vec![0i8; 42];
        let mut heights = [0; 7];
        for (i, &c) in moves.iter().enumerate() {
            heights[c] += 1;
            grid[(6 - heights[c]) * 7 + c] = 1 + (i % 2) as i8;
        }
        grid
    }

    /// Values as an array's bytes.
    fn bytes(values: &[i8]) -> Vec<u8> {
        values.iter().map(|&v| v as u8).collect()
    }

    #[test]
    fn arrays_of_every_layout_give_the_same_positions() {
        let r = rules();
        let games: [&[usize]; 3] = [&[3, 3, 4], &[0, 1], &[6]];
        let grids: Vec<i8> = games.iter().flat_map(|g| cells_after(g)).collect();
        let read = |values: &[i8], layout, agents: &[usize]| {
            let array = Array {
                count: 3,
                values: &bytes(values),
                layout,
                agents,
            };
            let batch = from_array(&array, &r, 2).expect("positions");
            (0..3)
                .map(|i| match batch.get(i) {
                    Item::Key(key) => Some(key),
                    Item::Moves(_) => None,
                })
                .collect::<Vec<_>>()
        };
        // The library's keys, after the moves.
        let want: Vec<Option<u128>> = games
            .iter()
            .map(|g| {
                let moves: Vec<i64> = g.iter().map(|&c| c as i64).collect();
                let game = Game::from_moves(&r, &moves, false).expect("a position");
                Some(game.key(&r))
            })
            .collect();
        assert_eq!(read(&grids, Layout::Grids, &[]), want);
        assert_eq!(read(&grids, Layout::Kaggle, &[]), want);
        // Planes as the agent to move sees them (1, 0, 1 after 3, 2 and 1 moves).
        let agents = [1, 0, 1];
        let planes: Vec<i8> = grids
            .chunks(42)
            .zip(agents)
            .flat_map(|(cells, agent)| {
                let mine = agent as i8 + 1;
                cells
                    .iter()
                    .flat_map(move |&c| [(c == mine) as i8, (c != 0 && c != mine) as i8])
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(read(&planes, Layout::Planes, &agents), want);
        // Without the agents the second position (1 stone each) cannot be read.
        let array = Array {
            count: 3,
            values: &bytes(&planes),
            layout: Layout::Planes,
            agents: &[],
        };
        let (at, why) = from_array(&array, &r, 1).unwrap_err();
        assert_eq!(at, 1);
        assert!(why.contains("cannot say"), "{why}");
        let moves: Vec<i8> = [3, 3, 4, 2, 0, 1, 0, 1].to_vec();
        let array = Array {
            count: 2,
            values: &bytes(&moves),
            layout: Layout::Moves(4),
            agents: &[],
        };
        let batch = from_array(&array, &r, 1).expect("positions");
        assert_eq!(
            (batch.get(0), batch.get(1)),
            (Item::Moves(&[3, 3, 4, 2]), Item::Moves(&[0, 1, 0, 1]))
        );
        let bad: Vec<i8> = [3, -1].to_vec();
        let array = Array {
            count: 1,
            values: &bytes(&bad),
            layout: Layout::Moves(2),
            agents: &[],
        };
        assert!(
            from_array(&array, &r, 1)
                .unwrap_err()
                .1
                .contains("move 2 is column -1")
        );
    }
}
