//! The clients' views of a board turned into grids (rows from the top; 0 empty, 1 the first
//! player's stones, 2 the second's): PettingZoo's `connect_four_v3` planes, Kaggle's flat
//! `connectx` board, OpenSpiel's `connect_four` observation tensor.
//!
//! PettingZoo's planes are the observing agent's view: plane 0 holds the observer's stones,
//! plane 1 the opponent's, whoever moved first. The counts say who moved first when they
//! differ; when both have as many stones, either agent may be looking, and only the caller
//! (`agent=`) or the observation's `action_mask` (PettingZoo gives the agent to move the
//! columns with room, the other agent all zeros) can say which. Every source that speaks
//! must agree, and a position no source decides is refused: a reader never guesses.

use crate::read::{Refusal, Value};
use transpo_connect4::board::Board;

/// A grid: rows from the top, 0 empty, 1 the first player's stones, 2 the second's.
pub type Grid = Vec<Vec<i64>>;

/// The board of `columns`×`rows` as a client's configuration gives it.
pub fn board_of(columns: i64, rows: i64) -> Result<Board, Refusal> {
    let refuse = |why: String| Refusal::Value(format!("rows={rows}, columns={columns}: {why}"));
    let columns = usize::try_from(columns).map_err(|_| refuse("not a board".into()))?;
    let rows = usize::try_from(rows).map_err(|_| refuse("not a board".into()))?;
    Board::new(columns, rows).map_err(|e| refuse(e.to_string()))
}

/// The observing agent named by `name` (`"player_0"`, the first player, or `"player_1"`)
/// or by `index` (0 or 1): 0 or 1.
pub fn agent_index(name: Option<&str>, index: Option<i64>) -> Result<usize, Refusal> {
    match (name, index) {
        (Some("player_0"), _) | (None, Some(0)) => Ok(0),
        (Some("player_1"), _) | (None, Some(1)) => Ok(1),
        (Some(other), _) => Err(Refusal::Value(format!(
            "agent {other:?}: give 'player_0' (the first player), 'player_1', 0 or 1"
        ))),
        (None, Some(other)) => Err(Refusal::Value(format!(
            "agent {other}: give 'player_0' (the first player), 'player_1', 0 or 1"
        ))),
        (None, None) => Err(Refusal::Type(
            "agent: give 'player_0' (the first player), 'player_1', 0 or 1".into(),
        )),
    }
}

/// The planes of a PettingZoo observation copied as a [`Value`]: its rows, columns and
/// values (`0`/`1`, or `False`/`True`), or why it is not rows of cells of two values.
pub fn planes_of(value: &Value) -> Result<(usize, usize, Vec<i8>), Refusal> {
    let expected = "a PettingZoo observation is rows × columns × 2 values (plane 0 the \
        observer's stones, plane 1 the opponent's), or the dict with it";
    let Value::Seq(rows) = value else {
        return Err(Refusal::Type(format!(
            "{expected}; got {}",
            value.describe()
        )));
    };
    let Some(Value::Seq(first)) = rows.first() else {
        return Err(Refusal::Value(format!(
            "{expected}; got {} of {}",
            value.describe(),
            rows.first().map_or("nothing".into(), Value::describe)
        )));
    };
    let width = first.len();
    let mut cells = Vec::with_capacity(rows.len() * width * 2);
    for (r, row) in rows.iter().enumerate() {
        let Value::Seq(row) = row else {
            return Err(Refusal::Type(format!(
                "row {r} of the observation is {}, not a row of cells",
                row.describe()
            )));
        };
        if row.len() != width {
            return Err(Refusal::Value(format!(
                "row {r} of the observation has {} cells, row 0 {width}",
                row.len()
            )));
        }
        for (c, cell) in row.iter().enumerate() {
            let at = format!("cell (row {r}, column {c}) of the observation");
            let Value::Seq(pair) = cell else {
                return Err(Refusal::Type(format!(
                    "{at} is {}, not the two planes' values",
                    cell.describe()
                )));
            };
            let [mine, theirs] = pair.as_slice() else {
                return Err(Refusal::Value(format!(
                    "{at} has {} values, not 2 (one a plane)",
                    pair.len()
                )));
            };
            for plane in [mine, theirs] {
                cells.push(match plane {
                    Value::Int(v @ 0..=1) => *v as i8,
                    Value::Bool(b) => *b as i8,
                    Value::Int(_) | Value::BigInt(_) => {
                        return Err(Refusal::Value(format!(
                            "{at} is [{}, {}]: planes hold 0 or 1",
                            short(mine),
                            short(theirs)
                        )));
                    }
                    other => {
                        return Err(Refusal::Type(format!(
                            "{at} holds {}, not 0 or 1",
                            other.describe()
                        )));
                    }
                });
            }
        }
    }
    Ok((rows.len(), width, cells))
}

/// An int value as written.
fn short(value: &Value) -> String {
    match value {
        Value::Int(i) => i.to_string(),
        Value::BigInt(digits) => digits.clone(),
        other => other.describe(),
    }
}

/// PettingZoo planes: `height` rows of `width` cells of two values each, row-major
/// (`cells[(r * width + c) * 2 + plane]`), from the observing agent's view.
pub struct Planes<'a> {
    /// Rows.
    pub height: usize,
    /// Columns.
    pub width: usize,
    /// The values, `height * width * 2` of them.
    pub cells: &'a [i8],
}

/// What says who observes PettingZoo planes, besides the counts of stones.
#[derive(Clone, Copy, Default)]
pub struct Observer<'a> {
    /// The observing agent (0 the first player), if the caller named it.
    pub agent: Option<usize>,
    /// The observation's `action_mask`, if it has one.
    pub mask: Option<&'a [i64]>,
}

/// The grid of PettingZoo planes, or why they are not a position's (or cannot say which).
pub fn planes_grid(planes: &Planes<'_>, observer: Observer<'_>) -> Result<Grid, String> {
    let (height, width) = (planes.height, planes.width);
    if planes.cells.len() != height * width * 2 {
        return Err(format!(
            "{} values, not rows × columns × 2 = {height} × {width} × 2",
            planes.cells.len()
        ));
    }
    let mut counts = [0usize; 2];
    let mut stones = vec![vec![0u8; width]; height];
    for (r, row) in stones.iter_mut().enumerate() {
        for (c, square) in row.iter_mut().enumerate() {
            let at = (r * width + c) * 2;
            let (mine, theirs) = (planes.cells[at], planes.cells[at + 1]);
            let stone = match (mine, theirs) {
                (0, 0) => 0,
                (1, 0) => 1,
                (0, 1) => 2,
                _ => {
                    return Err(format!(
                        "cell (row {r}, column {c}) is [{mine}, {theirs}]: each plane holds 0 \
                         or 1, and no square is both players'"
                    ));
                }
            };
            if stone > 0 {
                counts[stone as usize - 1] += 1;
            }
            *square = stone;
        }
    }
    let observer_first = who_observes(counts, open_columns(&stones), observer)?;
    let (me, them) = if observer_first { (1, 2) } else { (2, 1) };
    Ok(stones
        .iter()
        .map(|row| {
            row.iter()
                .map(|&s| match s {
                    1 => me,
                    2 => them,
                    _ => 0,
                })
                .collect()
        })
        .collect())
}

/// The most cells of a board whose planes [`planes_cells`] reads (16 rows of 16).
pub const MAX_CELLS: usize = 256;

/// The cells of PettingZoo planes as a grid's (row-major, row 0 the top; 1 the first
/// player's stones, 2 the second's), written into the front of `into`, when every square
/// is empty or one player's and the observer is known: named by `agent` (0 the first
/// player), or else the one with a stone more. `None` for anything else (a bad value, a
/// square of both, as many stones each and no agent, a board of more than [`MAX_CELLS`]):
/// [`planes_grid`] then decides and says why. Whether the counts fit the agent is left to
/// the grid's own check of its counts, which refuses the same planes `planes_grid` does.
/// `solve_many`'s path for arrays of planes: no allocation.
pub fn planes_cells<'a>(
    planes: &Planes<'_>,
    agent: Option<usize>,
    into: &'a mut [i8; MAX_CELLS],
) -> Option<&'a [i8]> {
    let squares = planes.height * planes.width;
    if squares > MAX_CELLS || planes.cells.len() != squares * 2 {
        return None;
    }
    // The observer's stones as 1 and the opponent's as 2 first, and their counts.
    let mut counts = [0usize; 3];
    for (cell, pair) in into.iter_mut().zip(planes.cells.chunks_exact(2)) {
        *cell = match (pair[0], pair[1]) {
            (0, 0) => 0,
            (1, 0) => 1,
            (0, 1) => 2,
            _ => return None,
        };
        counts[*cell as usize] += 1;
    }
    let observer_first = match agent {
        Some(agent) => agent == 0,
        None if counts[1] == counts[2] + 1 => true,
        None if counts[2] == counts[1] + 1 => false,
        None => return None,
    };
    let cells = &mut into[..squares];
    if !observer_first {
        for cell in cells.iter_mut() {
            *cell = [0, 2, 1][*cell as usize];
        }
    }
    Some(cells)
}

/// Whether each column has room (its top cell empty), from the planes' stones (row 0 the
/// top; 0 empty).
fn open_columns(stones: &[Vec<u8>]) -> Vec<bool> {
    stones
        .first()
        .map(|top| top.iter().map(|&s| s == 0).collect())
        .unwrap_or_default()
}

/// Whether the observer of planes with `counts` stones (the observer's, the opponent's) is
/// the first player, as every source that speaks agrees, or why no answer is safe.
fn who_observes(
    counts: [usize; 2],
    open: Vec<bool>,
    observer: Observer<'_>,
) -> Result<bool, String> {
    let [mine, theirs] = counts;
    let equal = mine == theirs;
    let mut claims: Vec<(bool, String)> = Vec::new();
    if mine == theirs + 1 {
        claims.push((
            true,
            format!("the observer has one stone more ({mine} to {theirs})"),
        ));
    } else if theirs == mine + 1 {
        claims.push((
            false,
            format!("the opponent has one stone more ({theirs} to {mine})"),
        ));
    } else if !equal {
        return Err(format!(
            "stone counts: the observer (plane 0) has {mine} stones and the opponent (plane 1) \
             {theirs}; in a game they differ by one at most"
        ));
    }
    if let Some(agent) = observer.agent {
        claims.push((agent == 0, format!("agent={agent} (player_{agent})")));
    }
    if let Some(mask) = observer.mask {
        // The side to move is the first player when both have as many stones.
        if let Some(to_move) = mask_says_to_move(mask, &open)? {
            let what = if to_move {
                "the action_mask gives the observer the columns with room: it is to move"
            } else {
                "the action_mask is all 0: the observer is not to move"
            };
            claims.push((to_move == equal, what.to_string()));
        }
    }
    match claims.as_slice() {
        [] => Err(format!(
            "both players have as many stones ({mine} each), so the planes cannot say whether \
             the observer (plane 0) moved first: pass agent='player_0' or 'player_1', the agent whose \
             observation this is (or the observation dict with its action_mask)"
        )),
        [(first, _), rest @ ..] => match rest.iter().find(|(other, _)| other != first) {
            None => Ok(*first),
            Some((_, why)) => Err(format!(
                "the observation contradicts itself: {} says the observer is the {} player, \
                 but {why}",
                claims[0].1,
                if *first { "first" } else { "second" }
            )),
        },
    }
}

/// Whether an `action_mask` says its agent is to move (the columns with room, `open`) or not
/// (all 0), `None` when it cannot say (no column has room), or why it is neither.
fn mask_says_to_move(mask: &[i64], open: &[bool]) -> Result<Option<bool>, String> {
    if mask.len() != open.len() || mask.iter().any(|m| !(0..=1).contains(m)) {
        return Err(format!(
            "action_mask {mask:?}: PettingZoo gives one 0 or 1 per column ({})",
            open.len()
        ));
    }
    if !open.contains(&true) {
        return Ok(None);
    }
    if mask.iter().all(|&m| m == 0) {
        return Ok(Some(false));
    }
    if mask.iter().zip(open).all(|(&m, &o)| (m == 1) == o) {
        return Ok(Some(true));
    }
    Err(format!(
        "action_mask {mask:?} is neither all 0 (the observer is not to move) nor the columns \
         with room {:?} (it is to move)",
        open.iter().map(|&o| o as i64).collect::<Vec<_>>()
    ))
}

/// The grid of a Kaggle `connectx` board: `rows * columns` cells, row 0 the top.
pub fn kaggle_grid(board: &[i64], rows: usize, columns: usize) -> Result<Grid, String> {
    if board.len() != rows * columns {
        return Err(format!(
            "a board of {} cells, not rows × columns = {rows} × {columns} = {}",
            board.len(),
            rows * columns
        ));
    }
    Ok(board.chunks(columns.max(1)).map(<[i64]>::to_vec).collect())
}

/// How OpenSpiel's `connect_four` observation tensor was asked for.
pub struct Tensor<'a> {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub columns: usize,
    /// The game's `egocentric_obs_tensor` parameter.
    pub egocentric: bool,
    /// The player the tensor was asked for (0 or 1).
    pub observer: usize,
    /// The values: three planes of `rows * columns` (a player's stones, the other's, the
    /// empty squares; row 0 the bottom).
    pub values: &'a [f64],
}

/// The grid of an OpenSpiel observation tensor: plane 0 is the first player's stones and
/// plane 1 the second's, or the observer's and the opponent's when egocentric.
pub fn openspiel_grid(tensor: &Tensor<'_>) -> Result<Grid, String> {
    let (rows, columns) = (tensor.rows, tensor.columns);
    let plane = rows * columns;
    if tensor.values.len() != 3 * plane {
        return Err(format!(
            "an observation tensor of {} values, not 3 × {rows} × {columns}",
            tensor.values.len()
        ));
    }
    let (first, second) = if tensor.egocentric && tensor.observer == 1 {
        (1, 0)
    } else {
        (0, 1)
    };
    let mut grid = Vec::with_capacity(rows);
    for r in (0..rows).rev() {
        let mut row = Vec::with_capacity(columns);
        for c in 0..columns {
            let at = r * columns + c;
            let set: Vec<usize> = (0..3)
                .filter(|&p| tensor.values[p * plane + at] == 1.0)
                .collect();
            let clear = (0..3).all(|p| [0.0, 1.0].contains(&tensor.values[p * plane + at]));
            row.push(match set.as_slice() {
                [p] if clear && *p == first => 1,
                [p] if clear && *p == second => 2,
                [2] if clear => 0,
                _ => {
                    return Err(format!(
                        "square (row {r} from the bottom, column {c}) is {:?} in the three \
                         planes: exactly one of them holds 1, the others 0",
                        (0..3)
                            .map(|p| tensor.values[p * plane + at])
                            .collect::<Vec<_>>()
                    ));
                }
            });
        }
        grid.push(row);
    }
    Ok(grid)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Planes of a grid (1 first, 2 second) as `observer` (0 the first player) sees them.
    fn planes_of(grid: &[Vec<i64>], observer: i64) -> Vec<i8> {
        let mine = observer + 1;
        grid.iter()
            .flatten()
            .flat_map(|&cell| [(cell == mine) as i8, (cell != 0 && cell != mine) as i8])
            .collect()
    }

    /// The 6x7 grid after `moves` (0-based columns), row 0 the top.
    fn grid_after(moves: &[usize]) -> Grid {
        let mut grid = vec![vec![0; 7]; 6];
        let mut heights = [0; 7];
        for (i, &c) in moves.iter().enumerate() {
            heights[c] += 1;
            grid[6 - heights[c]][c] = 1 + (i % 2) as i64;
        }
        grid
    }

    fn read(grid: &Grid, seen_by: i64, observer: Observer<'_>) -> Result<Grid, String> {
        let cells = planes_of(grid, seen_by);
        planes_grid(
            &Planes {
                height: 6,
                width: 7,
                cells: &cells,
            },
            observer,
        )
    }

    /// The fast reader of planes gives the cells of `planes_grid`'s grid whenever it gives
    /// any, and gives them for every observation of a game when its agent is named: both
    /// agents' views at every ply of random games (fours and all), named or not, and the
    /// same planes spoilt (a value changed, a square made both players').
    #[test]
    fn planes_cells_agree_with_planes_grid() {
        let mut next = crate::seeded(0x9e37_79b9_7f4a_7c15);
        let (mut fast, mut left) = (0, 0);
        for _ in 0..200 {
            let mut moves = Vec::new();
            let mut heights = [0; 7];
            while moves.len() < 42 {
                let c = next(7);
                if heights[c] < 6 {
                    heights[c] += 1;
                    moves.push(c);
                }
                let grid = grid_after(&moves);
                for (seen_by, agent) in [(0, None), (1, None), (0, Some(0)), (1, Some(1))] {
                    let mut cells = planes_of(&grid, seen_by);
                    if next(4) == 0 {
                        let at = next(cells.len());
                        cells[at] = [0, 1, 2, -1][next(4)];
                    }
                    let planes = Planes {
                        height: 6,
                        width: 7,
                        cells: &cells,
                    };
                    let mut into = [0; MAX_CELLS];
                    let expected = planes_grid(&planes, Observer { agent, mask: None });
                    let got = planes_cells(&planes, agent, &mut into);
                    if agent.is_some() && cells == planes_of(&grid, seen_by) {
                        assert!(expected.is_ok() && got.is_some(), "{moves:?}");
                    }
                    match got {
                        Some(got) => {
                            fast += 1;
                            let same: Vec<i8> = expected
                                .iter()
                                .flatten()
                                .flatten()
                                .map(|&c| c as i8)
                                .collect();
                            // Refused there, the counts must refuse it here (the grid's check).
                            match &expected {
                                Ok(_) => assert_eq!(got, same.as_slice(), "{moves:?}"),
                                Err(_) => {
                                    let count = |p| got.iter().filter(|&&c| c == p).count();
                                    let (first, second) = (count(1), count(2));
                                    assert!(first != second && first != second + 1, "{moves:?}");
                                }
                            }
                        }
                        None => left += 1,
                    }
                }
            }
        }
        // Without an agent, as many stones each leave half of the views to planes_grid.
        assert!(fast > left, "{fast} read fast, {left} left");
    }

    #[test]
    fn unequal_counts_say_who_observes() {
        let grid = grid_after(&[0]);
        assert_eq!(read(&grid, 0, Observer::default()), Ok(grid.clone()));
        assert_eq!(read(&grid, 1, Observer::default()), Ok(grid.clone()));
    }

    #[test]
    fn equal_counts_need_the_agent_or_the_mask() {
        // After "12": PettingZoo's observe("player_1") was read as "21" before.
        let grid = grid_after(&[0, 1]);
        let why = read(&grid, 1, Observer::default()).unwrap_err();
        assert!(
            why.starts_with("both players have as many stones (1 each)"),
            "{why}"
        );
        for seen_by in [0, 1] {
            let named = Observer {
                agent: Some(seen_by as usize),
                mask: None,
            };
            assert_eq!(read(&grid, seen_by, named), Ok(grid.clone()));
            // PettingZoo's masks: the columns with room for the agent to move, else zeros.
            let mask: Vec<i64> = if seen_by == 0 { vec![1; 7] } else { vec![0; 7] };
            let masked = Observer {
                agent: None,
                mask: Some(&mask),
            };
            assert_eq!(read(&grid, seen_by, masked), Ok(grid.clone()));
        }
    }

    #[test]
    fn contradictions_are_refused() {
        let grid = grid_after(&[0, 1, 2]);
        let wrong = Observer {
            agent: Some(1),
            mask: None,
        };
        let why = read(&grid, 0, wrong).unwrap_err();
        assert!(
            why.starts_with("the observation contradicts itself"),
            "{why}"
        );
        let ones = [1; 7];
        let wrong_mask = Observer {
            agent: None,
            mask: Some(&ones),
        };
        assert!(read(&grid, 0, wrong_mask).is_err());
        let odd = [1, 0, 1, 0, 1, 0, 1];
        let odd_mask = Observer {
            agent: None,
            mask: Some(&odd),
        };
        assert!(
            read(&grid_after(&[0, 1]), 0, odd_mask)
                .unwrap_err()
                .contains("neither all 0")
        );
    }

    #[test]
    fn bad_planes_say_where() {
        let mut cells = planes_of(&grid_after(&[3]), 0);
        cells[0] = 1;
        cells[1] = 1;
        let planes = Planes {
            height: 6,
            width: 7,
            cells: &cells,
        };
        assert!(
            planes_grid(&planes, Observer::default())
                .unwrap_err()
                .starts_with("cell (row 0, column 0) is [1, 1]")
        );
        let short = Planes {
            height: 6,
            width: 7,
            cells: &cells[..10],
        };
        assert!(
            planes_grid(&short, Observer::default())
                .unwrap_err()
                .starts_with("10 values")
        );
        let grid = grid_after(&[3, 3, 3]);
        let mut cells = planes_of(&grid, 0);
        cells[(5 * 7 + 3) * 2] = 0; // the bottom stone of column 3 gone: 1 to 1 stones left
        let planes = Planes {
            height: 6,
            width: 7,
            cells: &cells,
        };
        assert!(
            planes_grid(
                &planes,
                Observer {
                    agent: Some(0),
                    mask: None
                }
            )
            .is_ok()
        );
    }

    #[test]
    fn kaggle_boards_are_rows_from_the_top() {
        let mut board = vec![0; 42];
        board[38] = 1;
        let grid = kaggle_grid(&board, 6, 7).expect("a grid");
        assert_eq!(grid, grid_after(&[3]));
        assert!(
            kaggle_grid(&board[..41], 6, 7)
                .unwrap_err()
                .starts_with("a board of 41 cells")
        );
        assert!(board_of(7, 6).is_ok());
        assert!(
            board_of(3, 3)
                .unwrap_err()
                .message()
                .starts_with("rows=3, columns=3: no 3x3 board")
        );
        assert!(board_of(-1, 6).is_err());
    }

    #[test]
    fn agents_are_named_or_numbered() {
        assert_eq!(agent_index(Some("player_1"), None), Ok(1));
        assert_eq!(agent_index(None, Some(0)), Ok(0));
        assert!(agent_index(Some("player_2"), None).is_err());
        assert!(agent_index(None, Some(2)).is_err());
    }

    #[test]
    fn openspiel_tensors_read_either_way() {
        let grid = grid_after(&[3, 3, 4]);
        // Planes from the bottom row up: first player's, second's, empty.
        let tensor_of = |first: i64, second: i64| -> Vec<f64> {
            let mut values = vec![0.0; 3 * 42];
            for (r, row) in grid.iter().rev().enumerate() {
                for (c, &cell) in row.iter().enumerate() {
                    let plane = if cell == first {
                        0
                    } else if cell == second {
                        1
                    } else {
                        2
                    };
                    values[plane * 42 + r * 7 + c] = 1.0;
                }
            }
            values
        };
        let plain = tensor_of(1, 2);
        let t = |values, egocentric, observer| Tensor {
            rows: 6,
            columns: 7,
            egocentric,
            observer,
            values,
        };
        assert_eq!(openspiel_grid(&t(&plain, false, 1)), Ok(grid.clone()));
        let mine_first = tensor_of(2, 1);
        assert_eq!(openspiel_grid(&t(&mine_first, true, 1)), Ok(grid.clone()));
        let mut broken = plain.clone();
        broken[0] = 0.5;
        assert!(openspiel_grid(&t(&broken, false, 0)).is_err());
        assert!(openspiel_grid(&t(&plain[1..], false, 0)).is_err());
    }
}
