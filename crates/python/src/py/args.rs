//! The arguments of `Solver`'s methods and of the module's functions, read and checked: a
//! budget (`max_seconds=`, `max_nodes=`), a position on a board, a board, an int that a
//! refusal can name, a book.

use super::convert::{refusal, value_of};
use crate::budget;
use crate::read::{self, Value};
use crate::rules::{Game, Rules};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBool;
use std::time::Instant;

/// A budget asked for: when to stop, and how many positions to explore at most.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// The moment the answer is due, if any.
    pub deadline: Option<Instant>,
    /// Positions to explore at most (`u64::MAX`: no limit).
    pub nodes: u64,
}

/// The budget of `max_seconds=` and `max_nodes=` of a call that began at `start`, checked;
/// `None` if neither was given.
pub fn budget_of(
    start: Instant,
    max_seconds: Option<&Bound<'_, PyAny>>,
    max_nodes: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<Budget>> {
    let max_seconds = max_seconds.filter(|s| !s.is_none());
    let max_nodes = max_nodes.filter(|n| !n.is_none());
    if max_seconds.is_none() && max_nodes.is_none() {
        return Ok(None);
    }
    let seconds = match max_seconds {
        None => None,
        Some(obj) => {
            let number = if obj.is_instance_of::<PyBool>() {
                None
            } else {
                obj.extract::<f64>().ok()
            };
            let Some(number) = number else {
                return Err(PyTypeError::new_err(format!(
                    "max_seconds is {}, not a number: a number of seconds from 0 to {:e}, \
                     or None",
                    value_of(obj)?.describe(),
                    budget::MAX_SECONDS
                )));
            };
            Some(budget::seconds(number).map_err(refusal)?)
        }
    };
    let nodes = match max_nodes {
        None => u64::MAX,
        Some(obj) => budget::nodes(&value_of(obj)?).map_err(refusal)?,
    };
    Ok(Some(Budget {
        // A deadline past what an `Instant` holds is no deadline.
        deadline: seconds.and_then(|s| start.checked_add(s)),
        nodes,
    }))
}

/// The checked game of `obj` on the board of `rules`.
pub fn game_of(obj: &Bound<'_, PyAny>, rules: &Rules) -> PyResult<Game> {
    let given = read::position(&value_of(obj)?, rules.board()).map_err(refusal)?;
    given.check(rules).map_err(PyValueError::new_err)
}

/// The rules of the board written `board`.
pub fn rules_of(board: &str) -> PyResult<Rules> {
    let board = board
        .parse()
        .map_err(|e: transpo_connect4::board::BoardError| PyValueError::new_err(e.to_string()))?;
    Rules::of(board).ok_or_else(|| PyValueError::new_err(format!("no {board} board")))
}

/// An int argument, read as a [`Value`] so that a refusal can name it.
pub struct IntArg(pub Value);

impl<'py> FromPyObject<'_, 'py> for IntArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        Ok(IntArg(value_of(&obj.to_owned())?))
    }
}

/// The `book` argument: `"built-in"`, or a path (a `str` or a path-like object).
pub struct BookArg(pub String);

impl<'py> FromPyObject<'_, 'py> for BookArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(text) = obj.extract::<String>() {
            return Ok(BookArg(text));
        }
        let path = obj
            .py()
            .import("os")?
            .call_method1("fspath", (obj,))
            .map_err(|_| {
                PyTypeError::new_err("book is \"built-in\", None, or the path of a book file")
            })?;
        Ok(BookArg(path.extract::<String>().map_err(|_| {
            PyTypeError::new_err("book: a path given as bytes is not supported; give a str")
        })?))
    }
}
