//! Python objects copied into the plain data the readers take: any object into a bounded
//! [`Value`], a batch's strings and lists of ints straight into moves (the fast path, no
//! Python object made), a numpy array's values in one piece.

use crate::batch::{self, Array, Layout};
use crate::read::{MAX_ITEMS, Refusal, Value, push_move_string};
use crate::rules::{Game, Rules};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyInt, PyList, PyString, PyTuple};

/// The most values copied out of one object: a board's planes (at most 16 × 13 × 2) and
/// their rows, with room to spare.
const MAX_VALUES: usize = 4096;
/// The deepest nesting copied: planes are rows of cells of two values.
const MAX_DEPTH: usize = 3;

/// The Python exception of a refusal.
pub fn refusal(r: Refusal) -> PyErr {
    match r {
        Refusal::Type(m) => PyTypeError::new_err(m),
        Refusal::Value(m) => PyValueError::new_err(m),
    }
}

/// `obj` copied for reading (at most [`MAX_VALUES`] values, [`MAX_ITEMS`] a sequence).
pub fn value_of(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let mut budget = MAX_VALUES;
    copy(obj, 0, &mut budget, true)
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// An int's decimal digits, cut after 40.
fn digits(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = obj.str()?.to_cow()?.into_owned();
    Ok(match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    })
}

fn copy(obj: &Bound<'_, PyAny>, depth: usize, budget: &mut usize, tolist: bool) -> PyResult<Value> {
    if *budget == 0 {
        return Err(PyValueError::new_err(format!(
            "more than {MAX_VALUES} values in one position: no board has more than 81 squares"
        )));
    }
    *budget -= 1;
    // The cheap type checks first: a failed extraction or attribute lookup makes a Python
    // exception, which would cost more than reading a grid's row.
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let len = obj.len()?;
        if len > MAX_ITEMS {
            return Ok(Value::TooLong("list", len));
        }
        if depth == MAX_DEPTH {
            return Ok(Value::Other(type_name(obj)));
        }
        let items = obj
            .try_iter()?
            .map(|item| copy(&item?, depth + 1, budget, tolist))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(Value::Seq(items));
    }
    if let Ok(text) = obj.cast::<PyString>() {
        let len = obj.len()?;
        if len > 4 * MAX_ITEMS {
            return Ok(Value::TooLong("str", len));
        }
        return Ok(Value::Str(text.to_cow()?.into_owned()));
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.is_truthy()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(match obj.extract::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => Value::BigInt(digits(obj)?),
        });
    }
    // A numpy array or scalar: its `tolist`, once (a numpy int is an int there, a bool a
    // bool, a float a float), after a look at its size.
    if tolist && obj.hasattr("tolist")? {
        if let Ok(size) = obj.getattr("size").and_then(|s| s.extract::<usize>())
            && size > MAX_VALUES
        {
            return Ok(Value::TooLong("array", size));
        }
        *budget += 1;
        return copy(&obj.call_method0("tolist")?, depth, budget, false);
    }
    // Anything else with `__index__`.
    if obj.hasattr("__index__")? {
        return Ok(match obj.extract::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => Value::BigInt(digits(obj)?),
        });
    }
    Ok(Value::Other(type_name(obj)))
}

/// Pushes the moves of `obj` onto `moves` if it is a position of the board of `rules` of
/// the kinds callers pass by the million, on a path that makes no Python object but a
/// string's bytes and allocates nothing: a `str` of ASCII, or a list (or plain tuple) of
/// plain ints, whose moves [`Game::fits`]. Returns `false`, leaving `moves` as it was, for
/// anything else; [`value_of`] and the check then read it as `solve` does, and say what is
/// wrong.
pub fn read_fast(obj: &Bound<'_, PyAny>, rules: &Rules, moves: &mut Vec<u8>) -> bool {
    let start = moves.len();
    if read_fast_moves(obj, rules.board().width(), moves) && Game::fits(rules, &moves[start..]) {
        return true;
    }
    moves.truncate(start);
    false
}

fn read_fast_moves(obj: &Bound<'_, PyAny>, width: usize, moves: &mut Vec<u8>) -> bool {
    if let Ok(text) = obj.cast::<PyString>() {
        // On CPython 3.9's stable ABI a str gives its UTF-8 only as a bytes object.
        return text
            .encode_utf8()
            .is_ok_and(|bytes| push_move_string(bytes.as_bytes(), width, moves));
    }
    // A tuple's subclass may have a `tolist`, which `value_of` calls: not here.
    if let Ok(list) = obj.cast::<PyList>() {
        read_fast_ints(list.iter(), list.len(), width, moves)
    } else if let Ok(tuple) = obj.cast_exact::<PyTuple>() {
        read_fast_ints(tuple.iter(), tuple.len(), width, moves)
    } else {
        false
    }
}

/// [`read_fast_moves`] of a list of `len` plain ints (not bools, not numpy's).
fn read_fast_ints<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    len: usize,
    width: usize,
    moves: &mut Vec<u8>,
) -> bool {
    if len > MAX_ITEMS {
        return false;
    }
    for item in items {
        let Ok(int) = item.cast_exact::<PyInt>() else {
            return false;
        };
        match int.extract::<i64>() {
            Ok(col) if (0..width as i64).contains(&col) => moves.push(col as u8),
            _ => return false,
        }
    }
    true
}

/// A numpy array of ints (or bools) of at least two dimensions: its shape and the array.
/// `None` for anything else, read one item at a time.
pub fn int_array<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Vec<usize>>> {
    let py = obj.py();
    let numpy = py.import("numpy")?;
    if !obj.is_instance(&numpy.getattr("ndarray")?)? {
        return Ok(None);
    }
    let kind: String = obj.getattr("dtype")?.getattr("kind")?.extract()?;
    let shape: Vec<usize> = obj.getattr("shape")?.extract()?;
    match kind.as_str() {
        "i" | "u" | "b" => Ok(Some(shape)),
        "f" | "c" if shape.len() >= 2 => Err(PyTypeError::new_err(format!(
            "an array of {}: cells and columns are ints (cast it with .astype(numpy.int8))",
            obj.getattr("dtype")?.str()?
        ))),
        _ => Ok(None),
    }
}

/// The values of an int array of `shape` laid out as `layout`, as the bytes of `int8`s (one
/// copy of the array, read in place), or why a value does not fit (no cell, plane or column
/// of a board is beyond 127).
pub fn array_values<'py>(
    obj: &Bound<'py, PyAny>,
    shape: &[usize],
    layout: Layout,
) -> PyResult<Bound<'py, PyBytes>> {
    let py = obj.py();
    let numpy = py.import("numpy")?;
    let size: usize = shape.iter().product();
    if size == 0 {
        return Ok(PyBytes::new(py, &[]));
    }
    // An `int8` array fits as it is; any other integer array's range is checked by two
    // reductions over it as it is, so that no wider copy of it is made: a batch costs its
    // int8 values beside the caller's array. Any other array (floats, objects) is first read
    // as int64, as before.
    let array = numpy.call_method1("asarray", (obj,))?;
    let dtype = array.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
    let fits = (kind == "i" && itemsize == 1)
        || matches!(kind.as_str(), "i" | "u" | "b")
            && !array.call_method0("min")?.lt(-128)?
            && !array.call_method0("max")?.gt(127)?;
    let wide = if fits {
        None
    } else {
        Some(numpy.call_method1("asarray", (obj, "int64"))?)
    };
    if let Some(wide) = wide
        && let bad = wide
            .call_method1("__lt__", (-128,))?
            .call_method1("__or__", (wide.call_method1("__gt__", (127,))?,))?
        && bad.call_method0("any")?.is_truthy()?
    {
        let at: usize = bad.call_method0("argmax")?.extract()?;
        let value = wide
            .getattr("flat")?
            .get_item(at)?
            .str()?
            .to_cow()?
            .into_owned();
        let per = size / shape[0].max(1);
        return Err(PyValueError::new_err(batch::value_out_of_range(
            layout,
            at / per.max(1),
            &value,
        )));
    }
    let bytes = numpy
        .call_method1("ascontiguousarray", (obj, "int8"))?
        .call_method0("tobytes")?;
    Ok(bytes.cast_into::<PyBytes>()?)
}

/// The observing agents of `count` PettingZoo observations: none, one for all (`"player_0"`,
/// `"player_1"`, 0 or 1), or one each (a list or an array).
pub fn agents_of(agents: Option<&Bound<'_, PyAny>>, count: usize) -> PyResult<Vec<usize>> {
    let Some(agents) = agents.filter(|a| !a.is_none()) else {
        return Ok(Vec::new());
    };
    let one = |obj: &Bound<'_, PyAny>| -> PyResult<usize> {
        match value_of(obj)? {
            Value::Str(name) => crate::layout::agent_index(Some(&name), None),
            Value::Int(i) => crate::layout::agent_index(None, Some(i)),
            other => Err(Refusal::Type(format!(
                "agent is {}: give 'player_0', 'player_1', 0 or 1",
                other.describe()
            ))),
        }
        .map_err(refusal)
    };
    let agents = if agents.hasattr("tolist")? {
        agents.call_method0("tolist")?
    } else {
        agents.clone()
    };
    if agents.is_instance_of::<PyList>() || agents.is_instance_of::<PyTuple>() {
        let len = agents.len()?;
        if len != count {
            return Err(PyValueError::new_err(format!(
                "agents: {len} given for {count} positions"
            )));
        }
        return agents.try_iter()?.map(|a| one(&a?)).collect();
    }
    Ok(vec![one(&agents)?])
}

/// The positions of a numpy int array of `shape`, checked, if it holds a batch's positions.
pub fn array_batch(
    obj: &Bound<'_, PyAny>,
    shape: &[usize],
    agents: &[usize],
    rules: &Rules,
    threads: usize,
) -> PyResult<batch::Batch> {
    let layout = batch::layout_of(shape, rules).map_err(refusal)?;
    if layout == Layout::Planes && agents.len() > 1 && agents.len() != shape[0] {
        return Err(PyValueError::new_err(format!(
            "agents: {} given for {} positions",
            agents.len(),
            shape[0]
        )));
    }
    let values = array_values(obj, shape, layout)?;
    let array = Array {
        count: shape[0],
        values: values.as_bytes(),
        layout,
        agents: if layout == Layout::Planes {
            agents
        } else {
            &[]
        },
    };
    obj.py()
        .detach(|| batch::from_array(&array, rules, threads))
        .map_err(|(i, why)| PyValueError::new_err(format!("position {i}: {why}")))
}
