//! Positions as callers write them, read from plain data: the PyO3 layer copies a Python
//! object into a [`Value`] (bounded in size), and this module decides what it is (a move
//! string, a list of 0-based columns, a grid) or why it is none, in words that say what was
//! received and what was expected.

use crate::rules::{Game, Rules};
use transpo_connect4::board::Board;
use transpo_connect4::position::column_from_char;

/// The longest move list, row or move string read before it is refused: more than any
/// board's squares (81) or rows (16), so that no caller's length sizes an allocation.
pub const MAX_ITEMS: usize = 256;

/// A Python object as copied for reading, before any check.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A `str`.
    Str(String),
    /// An int (Python's, or anything with `__index__`, such as numpy's) within `i64`.
    Int(i64),
    /// An int beyond `i64`: its decimal digits.
    BigInt(String),
    /// A `bool` (also an int to Python, never a column or a cell here).
    Bool(bool),
    /// A list, a tuple, or a numpy array's rows (`tolist`).
    Seq(Vec<Value>),
    /// A `str` or a sequence too long to copy: its kind and length.
    TooLong(&'static str, usize),
    /// Anything else: its type's name.
    Other(String),
}

impl Value {
    /// What the value is, with its article: "an int", "a list of 3 items".
    pub fn describe(&self) -> String {
        match self {
            Value::Str(text) => format!("a str ({text:?})"),
            Value::Int(i) => format!("an int ({i})"),
            Value::BigInt(digits) => format!("an int ({digits})"),
            Value::Bool(b) => format!("a bool ({})", if *b { "True" } else { "False" }),
            Value::Seq(items) => format!("a list of {} items", items.len()),
            Value::TooLong(kind, len) => format!("a {kind} of {len} items"),
            Value::Other(kind) => format!("{} {kind}", article(kind)),
        }
    }
}

/// "a" or "an" before `word`.
fn article(word: &str) -> &'static str {
    match word.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'A' | 'E' | 'I' | 'O' | 'U') => "an",
        _ => "a",
    }
}

/// Why an input was refused: the Python exception's type and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not the kind of object asked for (`TypeError`).
    Type(String),
    /// The right kind, a wrong value (`ValueError`).
    Value(String),
}

impl Refusal {
    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Refusal::Type(m) | Refusal::Value(m) => m,
        }
    }

    /// The same refusal, its message after `prefix`.
    pub fn prefixed(self, prefix: &str) -> Refusal {
        match self {
            Refusal::Type(m) => Refusal::Type(format!("{prefix}{m}")),
            Refusal::Value(m) => Refusal::Value(format!("{prefix}{m}")),
        }
    }
}

/// What a position may be, said when something else was given.
pub const POSITION_TYPES: &str = "a position is a move string (\"4453\", columns from 1), a \
    list of 0-based columns ([3, 3, 4, 2]) or a grid (H rows of W cells, row 0 the top; 0 \
    empty, 1 the first player, 2 the second), as lists or a numpy array";

/// A position as the caller gave it, read but not yet checked on its board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Given {
    /// 0-based columns, and whether they came as a move string.
    Moves(Vec<i64>, bool),
    /// Rows, row 0 the top.
    Grid(Vec<Vec<i64>>),
}

impl Given {
    /// The checked game on the board of `rules`, or why there is none.
    pub fn check(&self, rules: &Rules) -> Result<Game, String> {
        match self {
            Given::Moves(moves, written) => Game::from_moves(rules, moves, *written),
            Given::Grid(rows) => Game::from_grid(rules, rows),
        }
        .map_err(|why| format!("not a position to solve on {}: {why}", rules.board()))
    }
}

/// The int of `value`, named `what()` in a refusal (made only then); `range` says what was
/// expected of an int beyond `i64` ("not a column of ...").
pub fn int_of(value: &Value, what: impl Fn() -> String, range: &str) -> Result<i64, Refusal> {
    match value {
        Value::Int(i) => Ok(*i),
        Value::BigInt(digits) => Err(Refusal::Value(format!("{} is {digits}, {range}", what()))),
        other => Err(Refusal::Type(format!(
            "{} is {}, not an int",
            what(),
            other.describe()
        ))),
    }
}

/// The ints of a flat list, `what` named in a refusal ("item 3 of the board").
pub fn ints_of(value: &Value, what: &str) -> Result<Vec<i64>, Refusal> {
    let Value::Seq(items) = value else {
        return Err(Refusal::Type(format!(
            "{what} is {}, not a list of ints",
            value.describe()
        )));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| int_of(item, || format!("item {i} of {what}"), "far out of range"))
        .collect()
}

/// The 0-based columns of a move string (columns `1`-`9`, then `a`-`d`; `""` or `"-"` the
/// empty board, white space around it ignored).
pub fn move_string(text: &str) -> Result<Vec<i64>, Refusal> {
    let text = text.trim();
    if text.is_empty() || text == "-" {
        return Ok(Vec::new());
    }
    let count = text.chars().count();
    if count > MAX_ITEMS {
        return Err(Refusal::Value(format!(
            "a move string of {count} characters: no board has more than 81 squares"
        )));
    }
    text.chars()
        .enumerate()
        .map(|(i, ch)| {
            column_from_char(ch).map(|col| col as i64).ok_or_else(|| {
                Refusal::Value(format!(
                    "move {} of {text:?} is {ch:?}, not a column: columns are written 1-9, \
                     then a-d (1 is the leftmost)",
                    i + 1
                ))
            })
        })
        .collect()
}

/// Pushes the 0-based columns of an ASCII move string onto `moves` if each is a column of a
/// board `width` wide (white space around it ignored, `-` the empty board), without
/// allocating; `false` otherwise (then [`move_string`] says why, or the check does).
pub fn push_move_string(bytes: &[u8], width: usize, moves: &mut Vec<u8>) -> bool {
    // As `str::trim` on ASCII: '\x0b' is white space too.
    let space = |b: &u8| (*b as char).is_whitespace();
    let from = bytes.iter().position(|b| !space(b)).unwrap_or(bytes.len());
    let to = bytes
        .iter()
        .rposition(|b| !space(b))
        .map_or(from, |last| last + 1);
    let text = &bytes[from..to];
    if text == b"-" {
        return true;
    }
    if !text.is_ascii() || text.len() > MAX_ITEMS {
        return false;
    }
    let start = moves.len();
    for &b in text {
        match column_from_char(b as char) {
            Some(col) if col < width => moves.push(col as u8),
            _ => {
                moves.truncate(start);
                return false;
            }
        }
    }
    true
}

/// The position `value` gives on `board`, read but not checked, or why it is not one.
pub fn position(value: &Value, board: Board) -> Result<Given, Refusal> {
    match value {
        Value::Str(text) => Ok(Given::Moves(move_string(text)?, true)),
        Value::Seq(items) => match items.first() {
            None => Ok(Given::Moves(Vec::new(), false)),
            Some(Value::Seq(_)) => grid(items, board),
            Some(_) => moves(items, board),
        },
        Value::TooLong(kind, len) => Err(Refusal::Value(format!(
            "the position is a {kind} of {len} items: no board has more than 81 squares"
        ))),
        other => Err(Refusal::Type(format!(
            "{POSITION_TYPES}; got {}",
            other.describe()
        ))),
    }
}

/// A list of 0-based columns, or the refusal of a flat board taken for one.
fn moves(items: &[Value], board: Board) -> Result<Given, Refusal> {
    let range = format!(
        "not a column of the {board} board (0 to {})",
        board.width() - 1
    );
    let moves = items
        .iter()
        .enumerate()
        .map(|(i, m)| int_of(m, || format!("move {}", i + 1), &range))
        .collect::<Result<Vec<_>, _>>()?;
    if moves.len() == board.squares() && moves.iter().all(|m| (0..=2).contains(m)) {
        return Err(Refusal::Value(flat_board(board)));
    }
    Ok(Given::Moves(moves, false))
}

/// The refusal of a flat list of `W·H` cells taken for moves.
fn flat_board(board: Board) -> String {
    let (width, height) = (board.width(), board.height());
    format!(
        "a list of {} numbers from 0 to 2: a flat board of {} cells (Kaggle's `board`)? \
         A board is a grid here: pass it through `from_kaggle`, or reshape it to \
         {height}×{width} ({height} rows of {width} cells). As moves, {} would fill the \
         {board} board.",
        board.squares(),
        board.squares(),
        board.squares()
    )
}

/// A grid: rows of int cells. Shapes and values are checked on the board later
/// ([`Game::from_grid`]); a third level (PettingZoo's planes) is refused here.
fn grid(items: &[Value], board: Board) -> Result<Given, Refusal> {
    if let Some(Value::Seq(row)) = items.first()
        && let Some(Value::Seq(cell)) = row.first()
    {
        return Err(Refusal::Type(format!(
            "an array of {} rows of {} cells of {} values each: PettingZoo's observation \
             planes? pass them through `from_pettingzoo`; a grid is {} rows of {} cells, each \
             0, 1 or 2",
            items.len(),
            row.len(),
            cell.len(),
            board.height(),
            board.width()
        )));
    }
    let range = "cells are 0 (empty), 1 (first player) or 2 (second player)";
    let mut rows = Vec::with_capacity(items.len());
    for (r, row) in items.iter().enumerate() {
        let Value::Seq(cells) = row else {
            return Err(Refusal::Type(format!(
                "row {r} of the grid is {}, not a list: {POSITION_TYPES}",
                row.describe()
            )));
        };
        let row = cells
            .iter()
            .enumerate()
            .map(|(c, cell)| int_of(cell, || format!("cell (row {r}, column {c})"), range))
            .collect::<Result<Vec<_>, _>>()?;
        rows.push(row);
    }
    Ok(Given::Grid(rows))
}

/// Why the argument of `solve_many`, a list of `items`, is one position and not a list of
/// them: one grid, or one list of columns.
pub fn one_position_as_many(items: &[Value], rules: &Rules) -> Option<Refusal> {
    if !items.is_empty() && items.iter().all(|v| matches!(v, Value::Int(_))) {
        return Some(one_move_list(items.len()));
    }
    let rows: Option<Vec<Vec<i64>>> = items
        .iter()
        .map(|row| match row {
            Value::Seq(cells) => cells
                .iter()
                .map(|c| match c {
                    Value::Int(i) => Some(*i),
                    _ => None,
                })
                .collect(),
            _ => None,
        })
        .collect();
    one_grid_as_many(&rows?, rules)
}

/// Why `rows`, given to `solve_many` as its list of positions, is one grid: H rows of W
/// cells from 0 to 2 that make a position, or that are not all move lists of one. (Move
/// lists that happen to be all that and do not make a grid are read as move lists.)
pub fn one_grid_as_many(rows: &[Vec<i64>], rules: &Rules) -> Option<Refusal> {
    let board = rules.board();
    let looks_like_one = rows.len() == board.height()
        && rows
            .iter()
            .all(|row| row.len() == board.width() && row.iter().all(|c| (0..=2).contains(c)));
    let is_one = looks_like_one
        && (Game::from_grid(rules, rows).is_ok()
            || rows
                .iter()
                .any(|row| Game::from_moves(rules, row, false).is_err()));
    is_one.then(|| one_grid(board))
}

/// The refusal of one grid given to `solve_many` as its list of positions.
pub fn one_grid(board: Board) -> Refusal {
    let (width, height) = (board.width(), board.height());
    Refusal::Value(format!(
        "solve_many got one grid ({height} rows of {width} cells from 0 to 2), not a list of \
         positions: call solve(grid), or pass [grid] (or an N×{height}×{width} array). If \
         these are {height} move lists of {width} moves in columns 0-2, give them as move \
         strings."
    ))
}

/// The refusal of one list of `len` columns given to `solve_many` as its list of positions.
pub fn one_move_list(len: usize) -> Refusal {
    Refusal::Type(format!(
        "solve_many got a list of {len} ints, one position's columns?, not a list of \
         positions: call solve(moves), or pass [moves]"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STANDARD: Board = Board::STANDARD;

    fn ints(values: &[i64]) -> Value {
        Value::Seq(values.iter().map(|&i| Value::Int(i)).collect())
    }

    fn rows(rows: &[&[i64]]) -> Value {
        Value::Seq(rows.iter().map(|r| ints(r)).collect())
    }

    fn refusal(value: &Value) -> Refusal {
        position(value, STANDARD).expect_err("refused")
    }

    #[test]
    fn move_strings_and_columns() {
        let s = |t: &str| position(&Value::Str(t.into()), STANDARD);
        assert_eq!(s("4453"), Ok(Given::Moves(vec![3, 3, 4, 2], true)));
        assert_eq!(s(" - "), Ok(Given::Moves(vec![], true)));
        assert_eq!(s("ab"), Ok(Given::Moves(vec![9, 10], true)));
        assert!(
            s("44x")
                .unwrap_err()
                .message()
                .starts_with("move 3 of \"44x\" is 'x'")
        );
        assert!(
            s(&"4".repeat(300))
                .unwrap_err()
                .message()
                .contains("300 characters")
        );
        assert_eq!(
            position(&ints(&[3, 3]), STANDARD),
            Ok(Given::Moves(vec![3, 3], false))
        );
        assert_eq!(
            position(&Value::Seq(vec![]), STANDARD),
            Ok(Given::Moves(vec![], false))
        );
    }

    #[test]
    fn the_fast_path_reads_what_move_string_reads() {
        for text in ["4453", " 12\t", "\x0b-\n", "", "8", "a", "4x", "é1", "-1"] {
            let mut moves = vec![9];
            let fast = push_move_string(text.as_bytes(), 7, &mut moves);
            let slow = move_string(text);
            match slow {
                Ok(cols) if cols.iter().all(|&c| c < 7) => {
                    assert!(fast, "{text:?}");
                    let cols: Vec<u8> = cols.iter().map(|&c| c as u8).collect();
                    assert_eq!(moves[1..], cols[..], "{text:?}");
                }
                _ => assert!(!fast && moves == [9], "{text:?}"),
            }
        }
    }

    #[test]
    fn an_int_beyond_i64_is_named_by_its_digits() {
        // Before: "move 1 is a int, not an int".
        let huge = Value::Seq(vec![Value::BigInt("1180591620717411303424".into())]);
        assert_eq!(
            refusal(&huge),
            Refusal::Value(
                "move 1 is 1180591620717411303424, not a column of the 7x6 board (0 to 6)".into()
            )
        );
        let cell = Value::Seq(vec![Value::Seq(vec![Value::BigInt(
            "-99999999999999999999".into(),
        )])]);
        assert!(
            refusal(&cell)
                .message()
                .starts_with("cell (row 0, column 0) is -99999999999999999999, cells are 0")
        );
    }

    #[test]
    fn wrong_types_say_what_they_are() {
        let list = |v: Value| Value::Seq(vec![v]);
        assert_eq!(
            refusal(&list(Value::Other("float".into()))),
            Refusal::Type("move 1 is a float, not an int".into())
        );
        assert_eq!(
            refusal(&list(Value::Bool(true))),
            Refusal::Type("move 1 is a bool (True), not an int".into())
        );
        assert!(
            refusal(&Value::Other("NoneType".into()))
                .message()
                .ends_with("got a NoneType")
        );
        assert!(
            refusal(&Value::Int(4))
                .message()
                .ends_with("got an int (4)")
        );
        assert!(
            refusal(&Value::TooLong("list", 1000))
                .message()
                .contains("list of 1000 items")
        );
    }

    #[test]
    fn a_flat_board_is_not_read_as_moves() {
        // Kaggle's board: 42 cells, here with a stone at the bottom of column 3.
        let mut cells = vec![0; 42];
        cells[38] = 1;
        let why = refusal(&ints(&cells));
        assert!(matches!(why, Refusal::Value(_)));
        assert!(
            why.message()
                .starts_with("a list of 42 numbers from 0 to 2: a flat board of 42 cells")
        );
        assert!(
            why.message()
                .contains("`from_kaggle`, or reshape it to 6×7")
        );
        // 42 columns that are not all cells: a move list (refused later, the board full).
        let mut moves = vec![0; 42];
        moves[0] = 5;
        assert!(position(&ints(&moves), STANDARD).is_ok());
    }

    #[test]
    fn planes_are_not_read_as_a_grid() {
        let planes = Value::Seq(vec![Value::Seq(vec![ints(&[0, 1]); 7]); 6]);
        let why = refusal(&planes);
        assert_eq!(why, Refusal::Type(why.message().to_string()));
        assert!(
            why.message()
                .starts_with("an array of 6 rows of 7 cells of 2 values each: PettingZoo")
        );
    }

    #[test]
    fn grids_are_read_then_checked() {
        let empty: &[i64] = &[0; 7];
        let g = rows(&[empty, empty, empty, empty, empty, &[0, 0, 0, 1, 0, 0, 0]]);
        let given = position(&g, STANDARD).expect("a grid");
        let rules = Rules::of(STANDARD).expect("compiled");
        assert_eq!(given.check(&rules).map(|g| g.move_string()), Ok("4".into()));
        let bad = rows(&[empty, empty, empty, empty, empty, &[0, 0, 0, 1, 1, 0, 0]]);
        let why = position(&bad, STANDARD)
            .expect("read")
            .check(&rules)
            .unwrap_err();
        assert!(why.starts_with("not a position to solve on 7x6: stone counts"));
        let not_a_row = Value::Seq(vec![ints(&[0; 7]), Value::Int(3)]);
        assert!(
            refusal(&not_a_row)
                .message()
                .starts_with("row 1 of the grid is an int (3), not a list")
        );
    }

    #[test]
    fn one_grid_or_one_move_list_is_not_many_positions() {
        let rules = Rules::of(STANDARD).expect("compiled");
        let empty = vec![ints(&[0; 7]); 6];
        let why = one_position_as_many(&empty, &rules);
        assert!(
            matches!(why, Some(Refusal::Value(m)) if m.starts_with("solve_many got one grid (6 rows of 7 cells"))
        );
        // Six move lists that use column 3: positions, not a grid.
        let lists = vec![ints(&[3, 0, 0, 0, 0, 0, 0]); 6];
        assert_eq!(one_position_as_many(&lists, &rules), None);
        // Six valid move lists of columns 0-2 that do not make a grid: move lists.
        let lists = vec![ints(&[0, 1, 0, 1, 2, 2, 1]); 6];
        assert_eq!(one_position_as_many(&lists, &rules), None);
        // A grid with a stone too many: still one grid, said so (its rows are no move lists).
        let mut rows = vec![ints(&[0; 7]); 5];
        rows.push(ints(&[0, 0, 1, 1, 0, 0, 0]));
        assert!(one_position_as_many(&rows, &rules).is_some());
        let columns = vec![Value::Int(3), Value::Int(3)];
        assert!(matches!(
            one_position_as_many(&columns, &rules),
            Some(Refusal::Type(_))
        ));
        assert_eq!(
            one_position_as_many(&[Value::Str("44".into())], &rules),
            None
        );
    }
}
