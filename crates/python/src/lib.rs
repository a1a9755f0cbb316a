//! `transpo_c4._native`: the Python module's compiled half (PyO3). The package
//! `transpo_c4` (python/transpo_c4/__init__.py) re-exports it and adds the readers of the
//! clients' views (PettingZoo, Kaggle, OpenSpiel), which only reshape Python objects.
//!
//! How a call runs: the position is read and checked on the calling thread (`game.rs`), then
//! the solve runs on a thread of its own while the calling thread, without the GIL, waits for
//! it and every 10 ms takes the GIL back to look for a signal (`Python::check_signals`): a
//! Ctrl-C raises the stop flag the search watches, the search returns within some
//! microseconds without storing anything, and `KeyboardInterrupt` reaches the caller.
//!
//! `solve_many` is the exception: the calling thread solves, without the GIL, beside the
//! helpers of a `transpo_connect4::crew::Crew` that live as long as the solver, and the
//! search itself takes the GIL back every 10 ms to look for a signal. No thread is started
//! or joined per call: on a loaded machine each start, join and wake could wait for the
//! scheduler longer than a batch of short solves takes (Pons' End-Easy set: 2 ms).

mod game;

use game::Game;
use pyo3::exceptions::{PyMemoryError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyInt, PyList, PyString, PyTuple};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Mutex, PoisonError, TryLockError};
use std::time::{Duration, Instant};
use transpo_connect4::board::Board;
use transpo_connect4::book::{Book, BookError};
use transpo_connect4::crew::Crew;
use transpo_connect4::position::{Bitboard, Position, column_char, column_from_char};
use transpo_connect4::score::{Window, finish, win_now_score};
use transpo_connect4::solver::Solver as TypedSolver;
use transpo_connect4::{Strength, with_board};

/// The most threads a solver takes: each beyond the first has a 2 MiB near table of its own
/// (and another in `solve_many`'s pool).
const MAX_THREADS: usize = 256;
/// The most MiB of table asked for: 2^30 MiB, far past any machine; a table the machine
/// cannot give is refused when it is made (`MemoryError`).
const MAX_HASH_MIB: u64 = 1 << 30;
/// The longest move list or grid read before it is refused: more than any board's squares
/// (81) or rows (16), so that no caller's length sizes an allocation.
const MAX_ITEMS: usize = 256;
/// How often the waiting thread looks for Ctrl-C.
const SIGNAL_EVERY: Duration = Duration::from_millis(10);

/// A position as the caller gave it, before it is checked on a board.
enum Given {
    /// 0-based columns, and whether they came as a move string.
    Moves(Vec<i64>, bool),
    /// Rows, row 0 the top.
    Grid(Vec<Vec<i64>>),
}

const POSITION_TYPES: &str = "a position is a move string (\"4453\", columns from 1), a list \
    of 0-based columns ([3, 3, 4, 2]) or a grid (H rows of W cells, row 0 the top; 0 empty, 1 \
    the first player, 2 the second), as lists or a numpy array";

fn int_of(item: &Bound<'_, PyAny>, what: &str) -> PyResult<i64> {
    if item.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what} is a bool, not an int"
        )));
    }
    item.extract::<i64>().map_err(|_| {
        let kind = item
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".into());
        PyTypeError::new_err(format!(
            "{what} is a {kind}, not an int (or it is out of range)"
        ))
    })
}

/// The items of a list or tuple (or of what a numpy array's `tolist` gives), at most
/// [`MAX_ITEMS`] of them.
fn items<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
    if !(obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>()) {
        return Ok(None);
    }
    let len = obj.len()?;
    if len > MAX_ITEMS {
        return Err(PyValueError::new_err(format!(
            "{what} has {len} items: no board has more than 81 squares"
        )));
    }
    Ok(Some(obj.try_iter()?.collect::<PyResult<Vec<_>>>()?))
}

/// Reads a position as the caller gave it.
fn read_position(obj: &Bound<'_, PyAny>) -> PyResult<Given> {
    if let Ok(text) = obj.cast::<PyString>() {
        let text = text.to_cow()?;
        let text = text.trim();
        if text.is_empty() || text == "-" {
            return Ok(Given::Moves(Vec::new(), true));
        }
        if text.chars().count() > MAX_ITEMS {
            return Err(PyValueError::new_err(format!(
                "a move string of {} characters: no board has more than 81 squares",
                text.chars().count()
            )));
        }
        let mut moves = Vec::with_capacity(text.len());
        for (i, ch) in text.chars().enumerate() {
            let col = column_from_char(ch).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "move {} of {text:?} is {ch:?}, not a column: columns are written 1-9, \
                     then a-d (1 is the leftmost)",
                    i + 1
                ))
            })?;
            moves.push(col as i64);
        }
        return Ok(Given::Moves(moves, true));
    }
    let list;
    let obj = if obj.hasattr("tolist")? && !obj.is_instance_of::<PyList>() {
        // A numpy array (or anything with numpy's `tolist`).
        list = obj.call_method0("tolist")?;
        &list
    } else {
        obj
    };
    let Some(items) = items(obj, "the position")? else {
        return Err(PyTypeError::new_err(POSITION_TYPES));
    };
    let Some(first) = items.first() else {
        return Ok(Given::Moves(Vec::new(), false));
    };
    if first.is_instance_of::<PyList>() || first.is_instance_of::<PyTuple>() {
        let mut rows = Vec::with_capacity(items.len());
        for (r, row) in items.iter().enumerate() {
            let what = format!("row {r}");
            let cells = items_of_row(row, &what)?;
            let row = cells
                .iter()
                .enumerate()
                .map(|(c, cell)| int_of(cell, &format!("cell (row {r}, column {c})")))
                .collect::<PyResult<Vec<_>>>()?;
            rows.push(row);
        }
        Ok(Given::Grid(rows))
    } else {
        let moves = items
            .iter()
            .enumerate()
            .map(|(i, m)| int_of(m, &format!("move {}", i + 1)))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Given::Moves(moves, false))
    }
}

/// The positions of a `solve_many`, checked on its board: all their moves (0-based columns)
/// in one buffer, so that a position read allocates nothing.
#[derive(Default)]
struct Batch {
    moves: Vec<u8>,
    /// Where each position's moves end in `moves` (and the next one's begin).
    ends: Vec<usize>,
}

impl Batch {
    /// Positions in the batch.
    fn len(&self) -> usize {
        self.ends.len()
    }

    /// The moves of position `i` (none if there is no such position).
    fn get(&self, i: usize) -> &[u8] {
        let start = i.checked_sub(1).map_or(0, |j| self.ends[j]);
        self.ends
            .get(i)
            .and_then(|&end| self.moves.get(start..end))
            .unwrap_or_default()
    }

    /// Ends a position whose moves were pushed onto `moves`.
    fn end_position(&mut self) {
        self.ends.push(self.moves.len());
    }
}

/// Reads `obj` onto `moves` if it is a position of `board` of the kinds callers pass by the
/// million, on a fast path that makes no Python object but a string's bytes and allocates
/// nothing: a `str` of ASCII, or a list (or plain tuple) of plain ints, whose moves
/// [`Game::fits`]. Returns `false`, leaving `moves` as it was, for anything else (grids,
/// numpy arrays, other int types, and every position that is not one): [`read_position`]
/// and [`check`] then read it as `solve` does, and say what is wrong.
fn read_fast(obj: &Bound<'_, PyAny>, board: Board, moves: &mut Vec<u8>) -> bool {
    let start = moves.len();
    if read_fast_moves(obj, board.width(), moves)
        && Game::fits(board.width(), board.height(), &moves[start..])
    {
        return true;
    }
    moves.truncate(start);
    false
}

/// The columns of [`read_fast`]'s kinds of position pushed onto `moves`, or `false`.
fn read_fast_moves(obj: &Bound<'_, PyAny>, width: usize, moves: &mut Vec<u8>) -> bool {
    if let Ok(text) = obj.cast::<PyString>() {
        // On CPython 3.9's stable ABI a str gives its UTF-8 only as a bytes object.
        let Ok(bytes) = text.encode_utf8() else {
            return false;
        };
        let bytes = bytes.as_bytes();
        if !bytes.is_ascii() {
            return false;
        }
        // As `str::trim` (which `read_position` uses) on ASCII: '\x0b' is white space too.
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
        if text.len() > MAX_ITEMS {
            return false;
        }
        for &b in text {
            match column_from_char(b as char) {
                Some(col) if col < width => moves.push(col as u8),
                _ => return false,
            }
        }
        return true;
    }
    // A tuple's subclass may have a `tolist`, which `read_position` calls: not here.
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

fn items_of_row<'py>(row: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    items(row, what)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{what} of the grid is not a list: {POSITION_TYPES}"
        ))
    })
}

/// The checked game of `given` on `board`, or why there is none.
fn check(given: &Given, board: Board) -> Result<Game, String> {
    let (w, h) = (board.width(), board.height());
    match given {
        Given::Moves(moves, written) => Game::from_moves(w, h, moves, *written),
        Given::Grid(rows) => Game::from_grid(w, h, rows),
    }
    .map_err(|why| format!("not a position to solve on {board}: {why}"))
}

/// The checked game of `obj` on `board`.
fn game_of(obj: &Bound<'_, PyAny>, board: Board) -> PyResult<Game> {
    check(&read_position(obj)?, board).map_err(PyValueError::new_err)
}

/// Checked positions (their moves), or the first one refused (its index) and why.
type Checked = Result<Vec<Vec<u8>>, (usize, String)>;

/// The moves of each of `givens` on `board`, checked on up to `threads` threads, or the
/// first position (by index) that is not one and why.
fn check_all(
    givens: &[&Given],
    board: Board,
    threads: usize,
) -> Result<Vec<Vec<u8>>, (usize, String)> {
    let chunk = givens.len().div_ceil(threads.max(1)).max(256);
    let checked: Vec<Checked> = std::thread::scope(|scope| {
        let handles: Vec<_> = givens
            .chunks(chunk)
            .enumerate()
            .map(|(k, part)| {
                scope.spawn(move || {
                    part.iter()
                        .enumerate()
                        .map(|(i, given)| {
                            check(given, board)
                                .map(|game| game.moves().to_vec())
                                .map_err(|why| (k * chunk + i, why))
                        })
                        .collect::<Result<Vec<_>, _>>()
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
    let mut all = Vec::with_capacity(givens.len());
    for part in checked {
        all.extend(part?);
    }
    Ok(all)
}

/// `batch` with the positions `read_fast` left (`slow`: each one's index and what was read,
/// its place in `batch` empty) checked on `board` on up to `threads` threads and put in, or
/// the first one (by index) that is not a position and why.
fn with_slow(
    batch: Batch,
    slow: &[(usize, Given)],
    board: Board,
    threads: usize,
) -> Result<Batch, (usize, String)> {
    if slow.is_empty() {
        return Ok(batch);
    }
    let givens: Vec<&Given> = slow.iter().map(|(_, given)| given).collect();
    let checked = check_all(&givens, board, threads).map_err(|(k, why)| (slow[k].0, why))?;
    let mut merged = Batch::default();
    let mut slow = slow.iter().map(|(i, _)| *i).zip(checked).peekable();
    for i in 0..batch.len() {
        match slow.next_if(|(at, _)| *at == i) {
            Some((_, moves)) => merged.moves.extend_from_slice(&moves),
            None => merged.moves.extend_from_slice(batch.get(i)),
        }
        merged.end_position();
    }
    Ok(merged)
}

fn parse_board(board: &str) -> PyResult<Board> {
    board
        .parse::<Board>()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// One board's solvers, behind a trait so that the Python class holds any board.
trait Engine: Send {
    /// The score of a position (checked moves), or `None` if stopped.
    fn solve(&mut self, moves: &[u8], stop: &AtomicBool) -> Option<i32>;
    /// Each column's score, or `None` if stopped.
    fn analyse(&mut self, moves: &[u8], stop: &AtomicBool) -> Option<Vec<Option<i32>>>;
    /// The scores of many positions, on every thread, or `None` if `check` (called with the
    /// count solved so far about every 10 ms) said to stop.
    fn solve_many(
        &mut self,
        positions: Batch,
        check: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Option<Vec<i32>>, String>;
    /// Forgets every table's contents.
    fn clear(&mut self);
    /// Whether an opening book is in use.
    fn has_book(&self) -> bool;
}

/// The solvers of the `W`×`H` board: one for single positions (all threads on one solve),
/// and a crew for `solve_many` (each thread on its own positions, the caller's too), made
/// on first use.
struct Typed<const W: usize, const H: usize, B: Bitboard> {
    strength: Strength,
    hash_mib: u64,
    threads: usize,
    book: Option<Book<W, H, B>>,
    solver: TypedSolver<W, H, B>,
    /// The crew, and the process that made it.
    crew: Option<(Crew<W, H, B>, u32)>,
}

/// How a Python `Solver` was asked for.
struct Config<'a> {
    strength: Strength,
    hash_mib: u64,
    threads: usize,
    book: BookChoice<'a>,
}

enum BookChoice<'a> {
    None,
    BuiltIn,
    Path(&'a std::path::Path),
}

fn book_error(e: BookError) -> PyErr {
    match e {
        BookError::Io(io) => PyOSError::new_err(format!("book file: {io}")),
        other => PyValueError::new_err(other.to_string()),
    }
}

fn table_error(e: impl std::fmt::Display) -> PyErr {
    PyMemoryError::new_err(format!("the table cannot be made: {e}"))
}

fn make_engine<const W: usize, const H: usize, B: Bitboard>(
    config: &Config<'_>,
) -> PyResult<Box<dyn Engine>> {
    let book = match config.book {
        BookChoice::None => None,
        // The built-in book is of 7x6; other boards have none.
        BookChoice::BuiltIn => Book::<W, H, B>::built_in_of_board(),
        BookChoice::Path(path) => Some(Book::<W, H, B>::load(path).map_err(book_error)?),
    };
    let mut solver = TypedSolver::<W, H, B>::new(config.hash_mib).map_err(table_error)?;
    solver.set_threads(config.threads).map_err(table_error)?;
    if let Some(book) = &book {
        solver.set_book(book.clone());
    }
    Ok(Box::new(Typed {
        strength: config.strength,
        hash_mib: config.hash_mib,
        threads: config.threads,
        book,
        solver,
        crew: None,
    }))
}

impl<const W: usize, const H: usize, B: Bitboard> Typed<W, H, B> {
    fn position(moves: &[u8]) -> Position<W, H, B> {
        let mut pos = Position::new();
        for &col in moves {
            // Checked by `Game` on this board: on it, not full, no win before the end.
            pos.play_column(col as usize);
        }
        pos
    }

    /// Forgets, without dropping it, a crew made by the process this one forked from (a
    /// PyTorch `DataLoader` worker, `multiprocessing` with fork): its helper threads did
    /// not come along, and a lock one of them held at the fork would stay held here, so
    /// neither its locks nor its threads may be touched. Its memory is the parent's,
    /// shared until written; the next `solve_many` makes a crew of this process.
    fn leave_a_parents_crew(&mut self) {
        if self
            .crew
            .as_ref()
            .is_some_and(|(_, pid)| *pid != std::process::id())
        {
            std::mem::forget(self.crew.take());
        }
    }

    fn solve_pos(&mut self, pos: &Position<W, H, B>, stop: &AtomicBool) -> Option<i32> {
        let range = self
            .solver
            .solve_window_until(pos, Window::of(self.strength), stop)?;
        Some(finish(*range.start(), self.strength))
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Drop for Typed<W, H, B> {
    /// A crew made in this process stops its helpers and waits for them; one made before a
    /// fork is forgotten instead, as its helpers are not here to wait for.
    fn drop(&mut self) {
        self.leave_a_parents_crew();
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Engine for Typed<W, H, B> {
    fn solve(&mut self, moves: &[u8], stop: &AtomicBool) -> Option<i32> {
        let pos = Self::position(moves);
        self.solve_pos(&pos, stop)
    }

    fn analyse(&mut self, moves: &[u8], stop: &AtomicBool) -> Option<Vec<Option<i32>>> {
        let pos = Self::position(moves);
        let mut scores = vec![None; W];
        for (col, score) in scores.iter_mut().enumerate() {
            if !pos.can_play(col) {
                continue;
            }
            *score = Some(if pos.is_winning_move(col) {
                finish(win_now_score(W * H, pos.moves()), self.strength)
            } else {
                let mut next = pos;
                next.play_column(col);
                if next.moves() as usize == W * H {
                    0
                } else {
                    -self.solve_pos(&next, stop)?
                }
            });
        }
        Some(scores)
    }

    fn solve_many(
        &mut self,
        positions: Batch,
        check: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Option<Vec<i32>>, String> {
        self.leave_a_parents_crew();
        if self.crew.is_none() {
            let crew = Crew::new(self.hash_mib, self.threads, self.book.clone())
                .map_err(|e| e.to_string())?;
            self.crew = Some((crew, std::process::id()));
        }
        let Some((crew, _)) = self.crew.as_ref() else {
            return Err("no crew".into());
        };
        let count = positions.len();
        // Each position is made on the thread that solves it.
        let position = move |i| Self::position(positions.get(i));
        Ok(crew
            .solve_each(count, position, self.strength, check)
            .ok()
            .map(|(scores, _)| scores))
    }

    fn has_book(&self) -> bool {
        self.book.is_some()
    }

    fn clear(&mut self) {
        self.solver.reset();
        // Kept, not dropped: making its table again took 0.5-1.5 s.
        self.leave_a_parents_crew();
        if let Some((crew, _)) = &mut self.crew {
            crew.clear();
        }
    }
}

/// Runs `work` on a thread of its own while this thread, without the GIL, waits and looks for
/// signals every [`SIGNAL_EVERY`] (and calls `tick`); on a signal's exception, calls `stop`,
/// waits for `work` to return and raises the exception.
fn interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> T + Send,
    stop: impl Fn() + Send + Sync,
    tick: impl Fn(Python<'_>) -> PyResult<()> + Send + Sync,
) -> PyResult<T> {
    py.detach(|| {
        std::thread::scope(|scope| {
            let (tx, rx) = channel();
            scope.spawn(move || {
                // The receiver is gone only if the caller already raised; the result is moot.
                let _ = tx.send(work());
            });
            loop {
                match rx.recv_timeout(SIGNAL_EVERY) {
                    Ok(value) => return Ok(value),
                    Err(RecvTimeoutError::Timeout) => {
                        if let Err(e) = Python::attach(|py| {
                            py.check_signals()?;
                            tick(py)
                        }) {
                            stop();
                            return Err(e);
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        return Err(PyRuntimeError::new_err("the solve failed"));
                    }
                }
            }
        })
    })
}

/// A Connect Four solver: exact scores (or win/draw/loss when weak) of positions of one board,
/// with its transposition table kept between calls.
///
/// Scores are from the side to move: a side that wins by playing when n stones are on the
/// board scores ``(W*H + 1 - n) // 2`` (22 - k for a win with one's k-th stone on 7x6), the
/// loser the negative, a draw 0; a weak solver gives 1, 0 or -1.
///
/// >>> from transpo_c4 import Solver
/// >>> solver = Solver()                       # 7x6, the built-in depth-8 book, all cores
/// >>> solver.solve("4453")                    # a move string, columns from 1
/// -2
/// >>> solver.solve([3, 3, 4, 2])              # the same position, 0-based columns
/// -2
/// >>> solver.analyse("4453")
/// [-5, -5, -2, -3, -4, -2, -2]
/// >>> solver.best_moves("4453")
/// [2, 5, 6]
#[pyclass(module = "transpo_c4", frozen)]
struct Solver {
    engine: Mutex<Box<dyn Engine>>,
    board: Board,
    weak: bool,
    threads: usize,
    hash_mib: u64,
    book: Option<String>,
}

impl Solver {
    fn engine(&self) -> std::sync::MutexGuard<'_, Box<dyn Engine>> {
        // A poisoned lock: a solve panicked. The tables hold only finished searches' bounds,
        // so the solver is still sound.
        self.engine.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The engine, once no other thread holds it, or `None` if `check` (run about every
    /// 10 ms while another thread holds it) said to stop.
    fn engine_checked(
        &self,
        check: &mut dyn FnMut(usize) -> bool,
    ) -> Option<std::sync::MutexGuard<'_, Box<dyn Engine>>> {
        let mut last = Instant::now();
        loop {
            match self.engine.try_lock() {
                Ok(engine) => return Some(engine),
                // As in `engine`: the tables are still sound.
                Err(TryLockError::Poisoned(e)) => return Some(e.into_inner()),
                Err(TryLockError::WouldBlock) => {}
            }
            if last.elapsed() >= SIGNAL_EVERY {
                if !check(0) {
                    return None;
                }
                last = Instant::now();
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Runs `f` on the engine, stoppable by Ctrl-C.
    fn stoppable<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut dyn Engine, &AtomicBool) -> Option<T> + Send,
    ) -> PyResult<T> {
        let stop = AtomicBool::new(false);
        let stop = &stop;
        let result = interruptible(
            py,
            || {
                let mut engine = self.engine();
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                f(&mut **engine, stop)
            },
            || stop.store(true, Ordering::Relaxed),
            |_| Ok(()),
        )?;
        result.ok_or_else(|| PyRuntimeError::new_err("the solve was stopped"))
    }
}

#[pymethods]
impl Solver {
    /// Solver(board="7x6", *, weak=False, threads=None, hash_mib=128, book="built-in")
    #[new]
    #[pyo3(signature = (board = "7x6", *, weak = false, threads = None, hash_mib = 128, book = Some(BookArg::BuiltIn)))]
    fn new(
        py: Python<'_>,
        board: &str,
        weak: bool,
        threads: Option<i64>,
        hash_mib: i64,
        book: Option<BookArg>,
    ) -> PyResult<Self> {
        let board = parse_board(board)?;
        let threads = match threads {
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
            Some(t) if (1..=MAX_THREADS as i64).contains(&t) => t as usize,
            Some(t) => {
                return Err(PyValueError::new_err(format!(
                    "threads={t}: give from 1 to {MAX_THREADS}, or None for every core"
                )));
            }
        }
        .min(MAX_THREADS);
        if !(1..=MAX_HASH_MIB as i64).contains(&hash_mib) {
            return Err(PyValueError::new_err(format!(
                "hash_mib={hash_mib}: the table's MiB, from 1 to {MAX_HASH_MIB}"
            )));
        }
        let hash_mib = hash_mib as u64;
        let strength = if weak {
            Strength::Weak
        } else {
            Strength::Strong
        };
        let path;
        let (choice, book_name) = match &book {
            None => (BookChoice::None, None),
            Some(BookArg::BuiltIn) => (BookChoice::BuiltIn, Some("built-in".to_string())),
            Some(BookArg::Path(p)) => {
                path = std::path::PathBuf::from(p);
                (BookChoice::Path(&path), Some(p.clone()))
            }
        };
        let config = Config {
            strength,
            hash_mib,
            threads,
            book: choice,
        };
        // Making the table touches its pages: no GIL needed for that.
        let engine = py.detach(|| {
            with_board!(board, make_engine(&config), else Err(PyValueError::new_err(
                format!("no {board} board")
            )))
        })?;
        // "built-in" on a board without a built-in book is no book.
        let book_name = book_name.filter(|_| engine.has_book());
        Ok(Solver {
            engine: Mutex::new(engine),
            board,
            weak,
            threads,
            hash_mib,
            book: book_name,
        })
    }

    /// The board, as ``"WxH"``.
    #[getter]
    fn board(&self) -> String {
        self.board.to_string()
    }

    /// Columns of the board.
    #[getter]
    fn width(&self) -> usize {
        self.board.width()
    }

    /// Rows of the board.
    #[getter]
    fn height(&self) -> usize {
        self.board.height()
    }

    /// Whether scores are only win (1), draw (0) or loss (-1).
    #[getter]
    fn weak(&self) -> bool {
        self.weak
    }

    /// Threads a solve uses.
    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    /// MiB of the table.
    #[getter]
    fn hash_mib(&self) -> u64 {
        self.hash_mib
    }

    /// The opening book: ``"built-in"``, a path, or None.
    #[getter]
    fn book(&self) -> Option<String> {
        self.book.clone()
    }

    fn __repr__(&self) -> String {
        let book = match &self.book {
            None => "None".to_string(),
            Some(b) => format!("{b:?}"),
        };
        format!(
            "Solver(board={:?}, weak={}, threads={}, hash_mib={}, book={book})",
            self.board.to_string(),
            if self.weak { "True" } else { "False" },
            self.threads,
            self.hash_mib
        )
    }

    /// The score of ``position`` from the side to move.
    ///
    /// >>> Solver().solve("2252576253462244111563365343671351441")
    /// -1
    fn solve(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<i32> {
        let game = game_of(position, self.board)?;
        let moves = game.moves().to_vec();
        self.stoppable(py, move |engine, stop| engine.solve(&moves, stop))
    }

    /// Each column's score from the side to move (the score after playing it), ``None`` for a
    /// full column.
    ///
    /// >>> Solver().analyse("4453")
    /// [-5, -5, -2, -3, -4, -2, -2]
    fn analyse(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<Vec<Option<i32>>> {
        let game = game_of(position, self.board)?;
        let moves = game.moves().to_vec();
        self.stoppable(py, move |engine, stop| engine.analyse(&moves, stop))
    }

    /// The 0-based columns whose score is the best.
    ///
    /// >>> Solver().best_moves("4453")
    /// [2, 5, 6]
    fn best_moves(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
        let columns = self.analyse(py, position)?;
        let best = columns.iter().flatten().max().copied();
        Ok((0..columns.len())
            .filter(|&c| best.is_some() && columns[c] == best)
            .collect())
    }

    /// The scores of ``positions`` (an iterable of positions, or a numpy array of grids) as a
    /// ``numpy.ndarray`` of ``int8``, in their order: every thread solving its own positions
    /// on one shared table, without the GIL. ``progress=True`` writes a count to stderr.
    ///
    /// >>> Solver().solve_many(["4453", [3, 3, 4, 2], "2252576253462244111563365343671351441"])
    /// array([-2, -2, -1], dtype=int8)
    #[pyo3(signature = (positions, *, progress = false))]
    fn solve_many<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
        progress: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let list;
        let positions = if positions.hasattr("tolist")? && !positions.is_instance_of::<PyList>() {
            list = positions.call_method0("tolist")?;
            &list
        } else {
            positions
        };
        if positions.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "solve_many takes many positions (a list of them), not one string",
            ));
        }
        // Read under the GIL: strings and lists of columns, checked as they are read
        // (`read_fast`); the others (grids, bad positions) checked in parallel without it.
        let mut batch = Batch::default();
        let mut slow = Vec::new();
        for (i, item) in positions.try_iter()?.enumerate() {
            let item = item?;
            if !read_fast(&item, self.board, &mut batch.moves) {
                let given = read_position(&item).map_err(|e| {
                    let kind = e.get_type(py);
                    PyErr::from_type(kind, format!("position {i}: {}", e.value(py)))
                })?;
                slow.push((i, given));
            }
            batch.end_position();
        }
        let n = batch.len();
        let done = AtomicUsize::new(0);
        let started = Instant::now();
        let last_report = Mutex::new(started);
        let report = |py: Python<'_>, end: bool| -> PyResult<()> {
            let mut last = last_report.lock().unwrap_or_else(PoisonError::into_inner);
            if !progress || (!end && last.elapsed() < Duration::from_millis(500)) {
                return Ok(());
            }
            *last = Instant::now();
            let solved = done.load(Ordering::Relaxed);
            let secs = started.elapsed().as_secs_f64();
            let line = format!(
                "\rsolve_many: {solved}/{n} positions, {secs:.1} s, {:.0} a second{}",
                solved as f64 / secs.max(1e-9),
                if end { "\n" } else { "" }
            );
            let stderr = py.import("sys")?.getattr("stderr")?;
            stderr.call_method1("write", (line,))?;
            stderr.call_method0("flush")?;
            Ok(())
        };
        // The solve runs on this thread (and the crew's helpers), without the GIL, which it
        // takes back about every 10 ms to look for a signal (Ctrl-C) and report progress.
        let mut raised = None;
        let mut check = |solved: usize| {
            done.store(solved, Ordering::Relaxed);
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
        let scores = py.detach(|| -> PyResult<Option<Vec<i32>>> {
            let batch = with_slow(batch, &slow, self.board, self.threads)
                .map_err(|(i, why)| PyValueError::new_err(format!("position {i}: {why}")))?;
            let Some(mut engine) = self.engine_checked(&mut check) else {
                return Ok(None);
            };
            engine.solve_many(batch, &mut check).map_err(table_error)
        });
        if let Some(e) = raised {
            return Err(e);
        }
        let scores = scores?.ok_or_else(|| PyRuntimeError::new_err("the solve was stopped"))?;
        done.store(n, Ordering::Relaxed);
        report(py, true)?;
        let bytes: Vec<u8> = scores.iter().map(|&s| s as i8 as u8).collect();
        let numpy = py.import("numpy")?;
        numpy
            .call_method1("frombuffer", (PyBytes::new(py, &bytes), "int8"))?
            .call_method0("copy")
    }

    /// Forgets what the tables learnt (the next solves start from empty tables).
    fn clear(&self, py: Python<'_>) {
        py.detach(|| self.engine().clear());
    }
}

/// The `book` argument: the built-in book, or a path.
enum BookArg {
    BuiltIn,
    Path(String),
}

impl<'py> FromPyObject<'_, 'py> for BookArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(text) = obj.extract::<String>() {
            if text == "built-in" {
                return Ok(BookArg::BuiltIn);
            }
            return Ok(BookArg::Path(text));
        }
        let py = obj.py();
        let path = py
            .import("os")?
            .call_method1("fspath", (obj,))
            .map_err(|_| {
                PyTypeError::new_err("book is \"built-in\", None, or the path of a book file")
            })?;
        Ok(BookArg::Path(path.extract::<String>().map_err(|_| {
            PyTypeError::new_err("book: a path given as bytes is not supported; give a str")
        })?))
    }
}

/// The move string (our notation: columns from 1, then a-d) of ``position`` on ``board``:
/// for a grid, an order of moves that reaches it. Raises ``ValueError`` with the reason if no
/// game reaches it.
///
/// >>> to_moves([[0, 0, 0, 0, 0, 0, 0]] * 5 + [[0, 0, 0, 1, 2, 0, 0]])
/// '45'
#[pyfunction]
#[pyo3(signature = (position, board = "7x6"))]
fn to_moves(position: &Bound<'_, PyAny>, board: &str) -> PyResult<String> {
    let game = game_of(position, parse_board(board)?)?;
    Ok(game
        .moves()
        .iter()
        .map(|&c| column_char(c as usize))
        .collect())
}

/// The grid of ``position`` on ``board``: rows from the top, 0 empty, 1 the first player's
/// stones, 2 the second's.
///
/// >>> to_grid("45")[-1]
/// [0, 0, 0, 1, 2, 0, 0]
#[pyfunction]
#[pyo3(signature = (position, board = "7x6"))]
fn to_grid(position: &Bound<'_, PyAny>, board: &str) -> PyResult<Vec<Vec<u32>>> {
    Ok(game_of(position, parse_board(board)?)?.grid())
}

/// The compiled half of `transpo_c4`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Solver>()?;
    m.add_function(wrap_pyfunction!(to_moves, m)?)?;
    m.add_function(wrap_pyfunction!(to_grid, m)?)?;
    Ok(())
}
