//! Batches: reading the positions of `solve_many` and `analyse_many` (one Python object at a
//! time, or a numpy array in one piece), and running a batch on the crew without the GIL,
//! taking it back about every 10 ms to look for Ctrl-C and report progress.

use super::convert::{self, refusal, value_of};
use crate::batch::{self, Batch};
use crate::engine::{Engine, EngineError};
use crate::read::{self, Value};
use crate::rules::Rules;
use pyo3::exceptions::{PyMemoryError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyList, PyString, PyTuple};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The Python exception of an engine's error.
pub fn engine_error(e: EngineError) -> PyErr {
    match e {
        EngineError::BookFile(m) => PyOSError::new_err(m),
        EngineError::Book(m) => PyValueError::new_err(m),
        EngineError::Table(m) => PyMemoryError::new_err(format!("the table cannot be made: {m}")),
    }
}

/// The positions of a batch (`name` the method's, for messages), checked on the board of
/// `rules` on up to `threads` threads.
pub fn read_batch(
    py: Python<'_>,
    name: &str,
    positions: &Bound<'_, PyAny>,
    agents: Option<&Bound<'_, PyAny>>,
    rules: &Rules,
    threads: usize,
) -> PyResult<Batch> {
    if positions.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{name} takes many positions (a list of them), not one string: call solve, or \
             pass [position]"
        )));
    }
    if let Some(shape) = convert::int_array(positions)? {
        return read_array(positions, &shape, agents, rules, threads);
    }
    if agents.is_some_and(|a| !a.is_none()) {
        return Err(PyTypeError::new_err(
            "agents= goes with an N×H×W×2 numpy array of PettingZoo planes",
        ));
    }
    if positions.is_instance_of::<PyList>() || positions.is_instance_of::<PyTuple>() {
        let first = positions.try_iter()?.next().transpose()?;
        if first.is_some_and(|f| f.is_instance_of::<PyInt>() && !f.is_instance_of::<PyBool>()) {
            return Err(refusal(read::one_move_list(positions.len()?)));
        }
        if positions.len()? == rules.board().height()
            && let Ok(Value::Seq(items)) = value_of(positions)
            && let Some(why) = read::one_position_as_many(&items, rules)
        {
            return Err(refusal(why));
        }
    }
    // Strings and lists of columns checked as they are read; the others (grids, bad
    // positions) checked in parallel without the GIL.
    let mut batch = Batch::default();
    let mut slow = Vec::new();
    for (i, item) in positions.try_iter()?.enumerate() {
        let item = item?;
        if !convert::read_fast(&item, rules, &mut batch.moves) {
            let given = value_of(&item)
                .and_then(|value| read::position(&value, rules.board()).map_err(refusal))
                .map_err(|e| {
                    PyErr::from_type(e.get_type(py), format!("position {i}: {}", e.value(py)))
                })?;
            slow.push((i, given));
        }
        batch.end_position();
    }
    py.detach(|| batch::with_slow(batch, &slow, rules, threads))
        .map_err(|(i, why)| PyValueError::new_err(format!("position {i}: {why}")))
}

/// The positions of a numpy int array of `shape`.
fn read_array(
    array: &Bound<'_, PyAny>,
    shape: &[usize],
    agents: Option<&Bound<'_, PyAny>>,
    rules: &Rules,
    threads: usize,
) -> PyResult<Batch> {
    let board = rules.board();
    match *shape {
        [] => Err(PyTypeError::new_err(
            "a number is not a list of positions: pass a list, or an N×... array",
        )),
        [0] => Ok(Batch::default()),
        [len] => Err(refusal(read::one_move_list(len))),
        [height, width] if (height, width) == (board.height(), board.width()) => {
            let values = convert::array_values(array, shape, batch::Layout::Moves(width))?;
            let rows: Vec<Vec<i64>> = values
                .as_bytes()
                .chunks(width)
                .map(|row| row.iter().map(|&v| i64::from(v as i8)).collect())
                .collect();
            if let Some(why) = read::one_grid_as_many(&rows, rules) {
                return Err(refusal(why));
            }
            convert::array_batch(array, shape, &[], rules, threads)
        }
        _ => {
            let agents = convert::agents_of(agents, shape[0])?;
            if !agents.is_empty() && shape.len() != 4 {
                return Err(PyTypeError::new_err(
                    "agents= goes with an N×H×W×2 numpy array of PettingZoo planes",
                ));
            }
            convert::array_batch(array, shape, &agents, rules, threads)
        }
    }
}

/// Runs `work` on the engine without the GIL, stoppable by Ctrl-C, with progress lines on
/// stderr if `progress` (`name: solved/total unit, ...`), and the final one for `count`
/// positions.
pub fn run<T: Send>(
    py: Python<'_>,
    engine: &Mutex<Box<dyn Engine>>,
    (name, unit): (&str, &str),
    count: usize,
    progress: bool,
    work: impl FnOnce(&mut dyn Engine, crate::engine::Check<'_>) -> Result<Option<T>, EngineError>
    + Send,
) -> PyResult<T> {
    let (done, total) = (AtomicUsize::new(0), AtomicUsize::new(count));
    let started = Instant::now();
    let last_report = Mutex::new(started);
    let report = |py: Python<'_>, end: bool| -> PyResult<()> {
        let mut last = last_report.lock().unwrap_or_else(PoisonError::into_inner);
        if !progress || (!end && last.elapsed() < Duration::from_millis(500)) {
            return Ok(());
        }
        *last = Instant::now();
        let secs = started.elapsed().as_secs_f64();
        let (solved, of) = if end {
            (count, count)
        } else {
            (done.load(Ordering::Relaxed), total.load(Ordering::Relaxed))
        };
        let line = format!(
            "\r{name}: {solved}/{of} {}, {secs:.1} s, {:.0} a second{}",
            if end { "positions" } else { unit },
            solved as f64 / secs.max(1e-9),
            if end { "\n" } else { "" }
        );
        let stderr = py.import("sys")?.getattr("stderr")?;
        stderr.call_method1("write", (line,))?;
        stderr.call_method0("flush")?;
        Ok(())
    };
    // The batch runs on this thread (and the crew's helpers), without the GIL, which this
    // check takes back about every 10 ms.
    let mut raised = None;
    let mut check = |solved: usize, of: usize| {
        done.store(solved, Ordering::Relaxed);
        total.store(of, Ordering::Relaxed);
        match Python::attach(|py| {
            py.check_signals()?;
            report(py, false)
        }) {
            Ok(()) => true,
            Err(e) => {
                raised = Some(e);
                false
            }
        }
    };
    let result = py.detach(|| {
        let Some(mut engine) = super::wait::lock_checked(engine, &mut || check(0, count)) else {
            return Ok(None);
        };
        work(&mut **engine, &mut check)
    });
    if let Some(e) = raised {
        return Err(e);
    }
    let result = result
        .map_err(engine_error)?
        .ok_or_else(|| PyRuntimeError::new_err("the solve was stopped"))?;
    report(py, true)?;
    Ok(result)
}
