//! `transpo_c4._native`, the PyO3 layer: Python objects copied into plain data
//! (`convert`), the class `Solver` (`solver`), batches (`many`), waiting for a solve
//! stoppable by Ctrl-C (`wait`), and the functions below. What a position is and why one is
//! refused is decided in the plain modules (`crate::read`, `crate::layout`,
//! `crate::rules`).

mod args;
mod convert;
mod many;
mod solver;
mod wait;

use crate::layout::{self, Observer, Planes, Tensor};
use crate::read::{self, Value};
use crate::rules::{Game, Rules};
use args::{game_of, rules_of};
use convert::{refusal, value_of};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The move string (our notation: columns from 1, then a-d) of ``position`` on ``board``:
/// for a grid, an order of moves that reaches it. Raises ``ValueError`` with the reason if no
/// game reaches it.
///
/// >>> to_moves([[0, 0, 0, 0, 0, 0, 0]] * 5 + [[0, 0, 0, 1, 2, 0, 0]])
/// '45'
#[pyfunction]
#[pyo3(signature = (position, board = "7x6"))]
fn to_moves(position: &Bound<'_, PyAny>, board: &str) -> PyResult<String> {
    Ok(game_of(position, &rules_of(board)?)?.move_string())
}

/// The grid of ``position`` on ``board``: rows from the top, 0 empty, 1 the first player's
/// stones, 2 the second's.
///
/// >>> to_grid("45")[-1]
/// [0, 0, 0, 1, 2, 0, 0]
#[pyfunction]
#[pyo3(signature = (position, board = "7x6"))]
fn to_grid(position: &Bound<'_, PyAny>, board: &str) -> PyResult<Vec<Vec<u32>>> {
    Ok(game_of(position, &rules_of(board)?)?.grid())
}

/// The move string of `grid` on the board of `columns`×`rows`, or why it is not a
/// position.
fn moves_of_grid(grid: &[Vec<i64>], columns: usize, rows: usize) -> PyResult<String> {
    let board = layout::board_of(columns as i64, rows as i64).map_err(refusal)?;
    let rules =
        Rules::of(board).ok_or_else(|| PyValueError::new_err(format!("no {board} board")))?;
    let game = Game::from_grid(&rules, grid).map_err(|why| {
        PyValueError::new_err(format!("not a position to solve on {board}: {why}"))
    })?;
    Ok(game.move_string())
}

/// `obj[name]` of a dict, `obj.name` of anything else (Kaggle's structs are both).
fn field<'py>(obj: &Bound<'py, PyAny>, name: &str, of: &str) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(dict) = obj.cast::<PyDict>()
        && let Some(value) = dict.get_item(name)?
    {
        return Ok(value);
    }
    obj.getattr(name)
        .map_err(|_| PyValueError::new_err(format!("the {of} has no {name:?}")))
}

/// The int of `obj`, named `what` in a refusal.
fn int_field(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<i64> {
    read::int_of(&value_of(obj)?, || what.to_string(), "far beyond any board").map_err(refusal)
}

/// The position of a PettingZoo ``connect_four_v3`` observation, as a move string.
///
/// ``observation`` is what ``env.observe(agent)`` or ``env.last()`` gives: the dict with
/// ``"observation"`` and ``"action_mask"``, or that 6x7x2 array itself (plane 0 the
/// observing agent's stones, plane 1 the opponent's, row 0 the top). The planes do not say
/// who moved first when both players have as many stones; then ``agent`` (the observing
/// agent: ``"player_0"``, the first player, ``"player_1"``, or 0 or 1) or the dict's action
/// mask (the columns with room for the agent to move, zeros for the other) must say, or
/// ``ValueError`` is raised. Sources that disagree raise ``ValueError`` too.
///
/// >>> import numpy as np
/// >>> planes = np.zeros((6, 7, 2), dtype=np.int8)
/// >>> planes[5, 3, 1] = 1            # the opponent (first player) played column 3
/// >>> from_pettingzoo({"observation": planes, "action_mask": np.ones(7, dtype=np.int8)})
/// '4'
/// >>> planes[5, 2, 0] = 1            # and the observer column 2: as many stones each
/// >>> from_pettingzoo(planes, agent="player_1")
/// '43'
#[pyfunction]
#[pyo3(signature = (observation, agent = None))]
fn from_pettingzoo(
    observation: &Bound<'_, PyAny>,
    agent: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let (planes, mask) = match observation.cast::<PyDict>() {
        Ok(dict) => (
            field(observation, "observation", "observation dict")?,
            dict.get_item("action_mask")?,
        ),
        Err(_) => (observation.clone(), None),
    };
    let (height, width, cells) = layout::planes_of(&value_of(&planes)?).map_err(refusal)?;
    let mask = match mask.map(|m| value_of(&m)).transpose()? {
        // A mask of bools reads as one of 0 and 1.
        Some(Value::Seq(items)) => Some(Value::Seq(
            items
                .into_iter()
                .map(|v| match v {
                    Value::Bool(b) => Value::Int(b as i64),
                    other => other,
                })
                .collect(),
        )),
        other => other,
    };
    let mask = match mask {
        Some(mask) => Some(read::ints_of(&mask, "action_mask").map_err(refusal)?),
        None => None,
    };
    let agent = match agent.filter(|a| !a.is_none()) {
        None => None,
        Some(agent) => Some(
            match value_of(agent)? {
                Value::Str(name) => layout::agent_index(Some(&name), None),
                Value::Int(i) => layout::agent_index(None, Some(i)),
                _ => layout::agent_index(None, None),
            }
            .map_err(refusal)?,
        ),
    };
    let observer = Observer {
        agent,
        mask: mask.as_deref(),
    };
    let grid = layout::planes_grid(
        &Planes {
            height,
            width,
            cells: &cells,
        },
        observer,
    )
    .map_err(|why| PyValueError::new_err(format!("not a PettingZoo observation: {why}")))?;
    moves_of_grid(&grid, width, height)
}

/// The position of a Kaggle ``connectx`` observation, as a move string.
///
/// ``observation.board`` is the flat list of ``configuration.rows * configuration.columns``
/// cells, row 0 the top, 0 empty, 1 the first player's stones, 2 the second's;
/// ``configuration.inarow`` must be 4.
///
/// >>> config = {"rows": 6, "columns": 7, "inarow": 4}
/// >>> board = [0] * 42
/// >>> board[38] = 1                 # bottom row, column 3
/// >>> from_kaggle({"board": board, "mark": 2}, config)
/// '4'
#[pyfunction]
fn from_kaggle(
    observation: &Bound<'_, PyAny>,
    configuration: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let rows = int_field(&field(configuration, "rows", "configuration")?, "rows")?;
    let columns = int_field(
        &field(configuration, "columns", "configuration")?,
        "columns",
    )?;
    let inarow = int_field(&field(configuration, "inarow", "configuration")?, "inarow")?;
    if inarow != 4 {
        return Err(PyValueError::new_err(format!(
            "inarow={inarow}: the solver plays connect four only"
        )));
    }
    let board = layout::board_of(columns, rows).map_err(refusal)?;
    let cells = value_of(&field(observation, "board", "observation")?)?;
    let cells = read::ints_of(&cells, "the board").map_err(refusal)?;
    let grid = layout::kaggle_grid(&cells, board.height(), board.width())
        .map_err(|why| PyValueError::new_err(format!("not a Kaggle board: {why}")))?;
    moves_of_grid(&grid, board.width(), board.height())
}

/// The position of an OpenSpiel ``connect_four`` state, as a move string.
///
/// Read from the state's observation tensor (three planes: the first player's stones, the
/// second's, the empty squares; row 0 the bottom), not from its history.
///
/// >>> import pyspiel                                    # doctest: +SKIP
/// >>> state = pyspiel.load_game("connect_four").new_initial_state()  # doctest: +SKIP
/// >>> for column in [3, 3, 4, 2]:                       # doctest: +SKIP
/// ...     state.apply_action(column)
/// >>> from_openspiel(state)                             # doctest: +SKIP
/// '4453'
#[pyfunction]
fn from_openspiel(state: &Bound<'_, PyAny>) -> PyResult<String> {
    let params = state
        .call_method0("get_game")?
        .call_method0("get_parameters")?;
    let param = |name: &str, default: i64| -> PyResult<i64> {
        match params.call_method1("get", (name,))? {
            value if value.is_none() => Ok(default),
            value => int_field(&value, name),
        }
    };
    let (rows, columns) = (param("rows", 6)?, param("columns", 7)?);
    let x_in_row = param("x_in_row", 4)?;
    if x_in_row != 4 {
        return Err(PyValueError::new_err(format!(
            "x_in_row={x_in_row}: the solver plays connect four only"
        )));
    }
    let egocentric = params
        .call_method1("get", ("egocentric_obs_tensor", false))?
        .is_truthy()?;
    let board = layout::board_of(columns, rows).map_err(refusal)?;
    let player: i64 = state.call_method0("current_player")?.extract()?;
    let observer = if player == 1 { 1 } else { 0 };
    let values: Vec<f64> = state
        .call_method1("observation_tensor", (observer,))?
        .extract()?;
    let tensor = Tensor {
        rows: board.height(),
        columns: board.width(),
        egocentric,
        observer: observer as usize,
        values: &values,
    };
    let grid = layout::openspiel_grid(&tensor)
        .map_err(|why| PyValueError::new_err(format!("not an OpenSpiel observation: {why}")))?;
    moves_of_grid(&grid, board.width(), board.height())
}

/// The compiled half of `transpo_c4`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<solver::Solver>()?;
    m.add("FULL_COLUMN", solver::FULL_COLUMN)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(to_moves, m)?)?;
    m.add_function(wrap_pyfunction!(to_grid, m)?)?;
    m.add_function(wrap_pyfunction!(from_pettingzoo, m)?)?;
    m.add_function(wrap_pyfunction!(from_kaggle, m)?)?;
    m.add_function(wrap_pyfunction!(from_openspiel, m)?)?;
    Ok(())
}
