//! The Python class `Solver`: settings read and checked (`crate::settings`), arguments and
//! positions read (`super::args`, `super::many`), the engine run without the GIL
//! (`super::wait`).

use super::args::{BookArg, Budget, IntArg, budget_of, game_of};
use super::convert::refusal;
use super::many::{self, engine_error};
use super::wait::{self, interruptible};
use crate::budget::Goal;
use crate::engine::{self, Engine, Found};
use crate::read::Value;
use crate::rules::Rules;
use crate::settings::{BookSetting, Settings};
use pyo3::exceptions::{PyRuntimeError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple, PyType};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// `(lo, hi)` as a Python tuple, or `None`.
fn bound_of<'py>(py: Python<'py>, bound: Option<(i32, i32)>) -> PyResult<Bound<'py, PyAny>> {
    Ok(match bound {
        Some(pair) => PyTuple::new(py, [pair.0, pair.1])?.into_any(),
        None => py.None().into_bound(py),
    })
}

/// An instance of the result class `name` of `transpo_c4._results`, made of `fields`.
fn result<'py>(
    py: Python<'py>,
    name: &str,
    fields: impl pyo3::call::PyCallArgs<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("transpo_c4._results")?
        .getattr(name)?
        .call1(fields)
}

/// The function `name` of `transpo_c4._yardsticks`: `Solver.rate` and `Solver.opponent`
/// are glue around the solver's own calls, written in Python.
fn yardstick<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("transpo_c4._yardsticks")?.getattr(name)
}

/// The score `analyse_many` gives a full column: no score is below -41.
pub const FULL_COLUMN: i8 = -128;

/// What `Solver.__reduce__` gives: `copyreg.__newobj_ex__`, and its arguments (the class,
/// the board, the other settings by name).
type Reduced<'py> = (
    Bound<'py, PyAny>,
    (Bound<'py, PyType>, (String,), Bound<'py, PyDict>),
);

/// A Connect Four solver: exact scores (or win/draw/loss when weak) of positions of one board,
/// with its transposition table kept between calls.
///
/// Scores are from the side to move: a side that wins by playing when n stones are on the
/// board scores ``(W*H + 1 - n) // 2`` (22 - k for a win with one's k-th stone on 7x6), the
/// loser the negative, a draw 0; a weak solver gives 1, 0 or -1.
///
/// It answers one call at a time: a call from another thread waits for the one running
/// (Ctrl-C stops the wait); one with ``max_seconds`` waits no longer than its budget and
/// then raises ``TimeoutError``. Threads that solve at once want a ``Solver`` each.
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
pub struct Solver {
    engine: Mutex<Box<dyn Engine>>,
    settings: Settings,
    rules: Rules,
    book_in_use: bool,
}

/// The engine was not had: another thread held it until the stop was raised.
struct Busy;

impl Solver {
    /// Runs `f` on the engine on a thread of its own, stoppable by Ctrl-C.
    fn stoppable<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut dyn Engine, &AtomicBool) -> Option<T> + Send,
    ) -> PyResult<T> {
        self.stoppable_until(py, None, f)
    }

    /// [`Solver::stoppable`], whose stop is also raised at `deadline`, if any.
    fn stoppable_until<T: Send>(
        &self,
        py: Python<'_>,
        deadline: Option<Instant>,
        f: impl FnOnce(&mut dyn Engine, &AtomicBool) -> Option<T> + Send,
    ) -> PyResult<T> {
        let stop = AtomicBool::new(false);
        let stop = &stop;
        let result = interruptible(
            py,
            || {
                // Another Python thread may be using this solver: wait for it only until
                // Ctrl-C or the deadline raises the stop, so that neither is kept waiting.
                let Some(mut engine) =
                    wait::lock_checked(&self.engine, &mut || !stop.load(Ordering::Relaxed))
                else {
                    return Err(Busy);
                };
                Ok(f(&mut **engine, stop))
            },
            || stop.store(true, Ordering::Relaxed),
            deadline,
        )?;
        match result {
            Ok(Some(value)) => Ok(value),
            Ok(None) => Err(PyRuntimeError::new_err("the solve was stopped")),
            // Ctrl-C raised in `interruptible`: only the deadline leaves this for here.
            Err(Busy) => Err(PyTimeoutError::new_err(
                "another thread used this Solver until the budget ran out; \
                 give each thread a Solver of its own",
            )),
        }
    }

    /// The columns of the position `position` narrowed within `budget` towards `goal`.
    fn found(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        goal: Goal,
        budget: Budget,
    ) -> PyResult<Found> {
        let moves = game_of(position, &self.rules)?.moves().to_vec();
        self.stoppable_until(py, budget.deadline, move |engine, stop| {
            Some(engine.within(&moves, goal, stop, budget.nodes))
        })
    }

    /// Each column's bounds as a Python list of `(lo, hi)` or `None`.
    fn bounds_list<'py>(py: Python<'py>, found: &Found) -> PyResult<Bound<'py, PyList>> {
        let items = found
            .columns
            .bounds()
            .iter()
            .map(|&b| bound_of(py, b))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// Each column's exact score (``analyse`` without a budget).
    fn scores(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<Vec<Option<i32>>> {
        let moves = game_of(position, &self.rules)?.moves().to_vec();
        self.stoppable(py, move |engine, stop| engine.analyse(&moves, stop))
    }

    /// `values` as a numpy `int8` array of `shape`.
    fn int8_array<'py>(
        py: Python<'py>,
        values: impl Iterator<Item = i8>,
        shape: (usize, usize),
    ) -> PyResult<Bound<'py, PyAny>> {
        let bytes: Vec<u8> = values.map(|v| v as u8).collect();
        py.import("numpy")?
            .call_method1("frombuffer", (PyBytes::new(py, &bytes), "int8"))?
            .call_method1("reshape", (shape.0, shape.1))?
            .call_method0("copy")
    }
}

#[pymethods]
impl Solver {
    /// Solver(board="7x6", *, weak=False, threads=None, hash_mib=128, book="built-in")
    #[new]
    #[pyo3(
        signature = (board = "7x6", *, weak = false, threads = None, hash_mib = IntArg(Value::Int(128)), book = Some(BookArg("built-in".into()))),
        text_signature = "(board='7x6', *, weak=False, threads=None, hash_mib=128, book='built-in')"
    )]
    fn new(
        py: Python<'_>,
        board: &str,
        weak: bool,
        threads: Option<IntArg>,
        hash_mib: IntArg,
        book: Option<BookArg>,
    ) -> PyResult<Self> {
        let book = BookSetting::of(book.as_ref().map(|b| b.0.as_str()));
        let threads = threads.map(|t| t.0);
        let settings =
            Settings::new(board, weak, threads.as_ref(), &hash_mib.0, book).map_err(refusal)?;
        let rules = Rules::of(settings.board)
            .ok_or_else(|| PyValueError::new_err(format!("no {} board", settings.board)))?;
        // Making the tables touches their pages: no GIL needed for that.
        let engine = py
            .detach(|| engine::make(&settings))
            .map_err(engine_error)?;
        Ok(Solver {
            book_in_use: engine.has_book(),
            engine: Mutex::new(engine),
            settings,
            rules,
        })
    }

    /// The board, as ``"WxH"``.
    #[getter]
    fn board(&self) -> String {
        self.settings.board.to_string()
    }

    /// Columns of the board.
    #[getter]
    fn width(&self) -> usize {
        self.settings.board.width()
    }

    /// Rows of the board.
    #[getter]
    fn height(&self) -> usize {
        self.settings.board.height()
    }

    /// Whether scores are only win (1), draw (0) or loss (-1).
    #[getter]
    fn weak(&self) -> bool {
        self.settings.weak()
    }

    /// Threads a solve uses.
    #[getter]
    fn threads(&self) -> usize {
        self.settings.threads
    }

    /// MiB of the table.
    #[getter]
    fn hash_mib(&self) -> u64 {
        self.settings.hash_mib
    }

    /// The opening book: ``"built-in"``, a path, or None.
    #[getter]
    fn book(&self) -> Option<String> {
        self.settings.book_name(self.book_in_use)
    }

    fn __repr__(&self) -> String {
        self.settings.repr(self.book_in_use)
    }

    /// A pickled solver is its settings (``threads=None`` stays every core of the machine it
    /// is unpickled on); its tables start empty there.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let py = slf.py();
        let settings = &slf.get().settings;
        let keywords = PyDict::new(py);
        keywords.set_item("weak", settings.weak())?;
        keywords.set_item("threads", settings.threads_asked)?;
        keywords.set_item("hash_mib", settings.hash_mib)?;
        let book = match &settings.book {
            BookSetting::None => None,
            BookSetting::BuiltIn => Some("built-in"),
            BookSetting::Path(path) => Some(path.as_str()),
        };
        keywords.set_item("book", book)?;
        let new = py.import("copyreg")?.getattr("__newobj_ex__")?;
        Ok((
            new,
            (slf.get_type(), (settings.board.to_string(),), keywords),
        ))
    }

    /// The score of ``position`` from the side to move.
    ///
    /// >>> Solver().solve("2252576253462244111563365343671351441")
    /// -1
    fn solve(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<i32> {
        let moves = game_of(position, &self.rules)?.moves().to_vec();
        self.stoppable(py, move |engine, stop| engine.solve(&moves, stop))
    }

    /// Each column's score from the side to move (the score after playing it), ``None`` for a
    /// full column.
    ///
    /// With ``max_seconds`` or ``max_nodes`` (positions to explore, about), an ``Analysis``:
    /// each column's bounds ``(lo, hi)`` (``None`` for a full column) narrowed by null-window
    /// searches, the best column first, until every score is proven or the budget is spent;
    /// ``scores`` has a column's score where it is proven, ``None`` elsewhere.
    ///
    /// >>> Solver().analyse("4453")
    /// [-5, -5, -2, -3, -4, -2, -2]
    /// >>> Solver().analyse("4453", max_seconds=60)
    /// Analysis(scores=[-5, -5, -2, -3, -4, -2, -2], bounds=[(-5, -5), ..., (-2, -2)], proven=True, column=5, nodes=...)
    /// >>> Solver(book=None).analyse("", max_nodes=1000).proven
    /// False
    #[pyo3(signature = (position, *, max_seconds = None, max_nodes = None))]
    fn analyse<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
        max_seconds: Option<&Bound<'py, PyAny>>,
        max_nodes: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let start = Instant::now();
        let Some(budget) = budget_of(start, max_seconds, max_nodes)? else {
            return self.scores(py, position)?.into_pyobject(py);
        };
        let found = self.found(py, position, Goal::All, budget)?;
        let scores: Vec<Option<i32>> = found
            .columns
            .bounds()
            .iter()
            .map(|b| b.and_then(|(lo, hi)| (lo == hi).then_some(lo)))
            .collect();
        let fields = (
            scores,
            Self::bounds_list(py, &found)?,
            found.columns.proven(Goal::All),
            found.columns.best(),
            found.nodes,
        );
        result(py, "Analysis", fields)
    }

    /// The best column to play, within a budget if one is given: an ``Answer`` with the
    /// 0-based ``column``, its ``score`` (``None`` unless ``proven``), whether it is
    /// ``proven`` (the column's score exact and no column's higher), each column's
    /// ``bounds`` ``(lo, hi)`` (``None`` for a full column) and the positions explored.
    ///
    /// Null-window searches narrow the columns' bounds, the most promising first, until the
    /// best is proven, ``max_seconds`` have passed (the answer comes within a few
    /// milliseconds of it) or about ``max_nodes`` positions are explored. Unproven, the
    /// column is the one with the best lower bound (then the best upper bound, then the
    /// library's move order). Without a budget the answer is always proven.
    ///
    /// >>> Solver().best_move("4453")
    /// Answer(column=5, score=-2, proven=True, bounds=[...], nodes=...)
    /// >>> answer = Solver(book=None).best_move("", max_seconds=0.05)
    /// >>> answer.proven, answer.score, answer.bounds[3][1] >= 1   # the centre may win
    /// (False, None, True)
    #[pyo3(signature = (position, *, max_seconds = None, max_nodes = None))]
    fn best_move<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
        max_seconds: Option<&Bound<'py, PyAny>>,
        max_nodes: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let start = Instant::now();
        let budget = budget_of(start, max_seconds, max_nodes)?.unwrap_or(Budget {
            deadline: None,
            nodes: u64::MAX,
        });
        let found = self.found(py, position, Goal::Best, budget)?;
        let proven = found.columns.proven(Goal::Best);
        let fields = (
            found.columns.best(),
            proven.then(|| found.columns.root().0),
            proven,
            Self::bounds_list(py, &found)?,
            found.nodes,
        );
        result(py, "Answer", fields)
    }

    /// The 0-based columns whose score is the best.
    ///
    /// >>> Solver().best_moves("4453")
    /// [2, 5, 6]
    fn best_moves(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
        let columns = self.scores(py, position)?;
        let best = columns.iter().flatten().max().copied();
        Ok((0..columns.len())
            .filter(|&c| best.is_some() && columns[c] == best)
            .collect())
    }

    /// The scores of ``positions`` as a ``numpy.ndarray`` of ``int8``, in their order: every
    /// thread solving its own positions on one shared table, without the GIL.
    ///
    /// ``positions`` is an iterable of positions, or a numpy array read by its shape: N×k
    /// move lists (0-based columns), N×(W·H) Kaggle boards, N×H×W grids, or N×H×W×2
    /// PettingZoo planes with ``agents`` (the observing agent of each, or one for all;
    /// needed where both players have as many stones). ``progress=True`` writes a count to
    /// stderr.
    ///
    /// With ``max_seconds`` or ``max_nodes``, a ``Scores`` of ``lo``, ``hi`` (``int8``
    /// arrays: each score's bounds, equal where it is ``proven``), ``proven`` (``bool``) and
    /// the positions explored: the positions are solved in order with every thread on each
    /// (null windows, so that one stopped keeps what it learnt), those not reached keep the
    /// bounds of their stone count; ``progress`` is not written then.
    ///
    /// >>> Solver().solve_many(["4453", [3, 3, 4, 2], "2252576253462244111563365343671351441"])
    /// array([-2, -2, -1], dtype=int8)
    /// >>> Solver().solve_many(["4453", "44"], max_seconds=60).proven
    /// array([ True,  True])
    #[pyo3(signature = (positions, *, agents = None, progress = false, max_seconds = None, max_nodes = None))]
    #[allow(clippy::too_many_arguments)]
    fn solve_many<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
        agents: Option<&Bound<'py, PyAny>>,
        progress: bool,
        max_seconds: Option<&Bound<'py, PyAny>>,
        max_nodes: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let start = Instant::now();
        let budget = budget_of(start, max_seconds, max_nodes)?;
        let (rules, threads) = (&self.rules, self.settings.threads);
        let batch = many::read_batch(py, "solve_many", positions, agents, rules, threads)?;
        let n = batch.len();
        if let Some(budget) = budget {
            let (bounds, nodes) =
                self.stoppable_until(py, budget.deadline, move |engine, stop| {
                    Some(engine.solve_within(&batch, stop, budget.nodes))
                })?;
            let lo = Self::int8_array(py, bounds.iter().map(|b| b.0 as i8), (n, 1))?;
            let hi = Self::int8_array(py, bounds.iter().map(|b| b.1 as i8), (n, 1))?;
            let proven = lo.call_method1("__eq__", (&hi,))?;
            let fields = (
                lo.call_method1("reshape", (n,))?,
                hi.call_method1("reshape", (n,))?,
                proven.call_method1("reshape", (n,))?,
                nodes,
            );
            return result(py, "Scores", fields);
        }
        let names = ("solve_many", "positions");
        let scores = many::run(py, &self.engine, names, n, progress, |engine, check| {
            engine.solve_many(batch, check)
        })?;
        let array = Self::int8_array(py, scores.iter().map(|&s| s as i8), (n, 1))?;
        array.call_method1("reshape", (n,))
    }

    /// Each column's score of each of ``positions`` (read as by ``solve_many``) as an N×W
    /// ``numpy.ndarray`` of ``int8``: the score after playing the column, from the side to
    /// move, ``FULL_COLUMN`` (-128) for a full column. Every position's moves are solved on
    /// every thread without the GIL.
    ///
    /// >>> Solver().analyse_many(["4453", "111111"])
    /// array([[  -5,   -5,   -2,   -3,   -4,   -2,   -2],
    ///        [-128,   -2,    0,    1,   -2,    0,   -2]], dtype=int8)
    #[pyo3(signature = (positions, *, agents = None, progress = false))]
    fn analyse_many<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
        agents: Option<&Bound<'py, PyAny>>,
        progress: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (rules, threads) = (&self.rules, self.settings.threads);
        let batch = many::read_batch(py, "analyse_many", positions, agents, rules, threads)?;
        let n = batch.len();
        let names = ("analyse_many", "moves");
        let scores = many::run(py, &self.engine, names, n, progress, |engine, check| {
            engine.analyse_many(batch, check)
        })?;
        let values = scores.iter().map(|s| s.map_or(FULL_COLUMN, |s| s as i8));
        Self::int8_array(py, values, (n, self.settings.board.width()))
    }

    /// How often ``agent`` plays a perfect move, and a good one, on ``positions``: a
    /// ``Rating``.
    ///
    /// ``agent(position)`` is called once for each position, handed as ``form`` says:
    /// ``"moves"``, a move string (columns from 1); ``"columns"``, a list of 0-based
    /// columns; ``"grid"``, H rows of W cells from the top (as ``to_grid``). It returns a
    /// 0-based column. A **perfect** move keeps the position's exact score; a **good** move
    /// keeps its outcome (the column's score has the sign of the best: a win stays a win, a
    /// draw a draw; in a lost position every legal move is good). An answer that is not an
    /// int, or names a full column or none of the board, is counted as illegal (neither
    /// perfect nor good) and listed in ``missed``; an exception the agent raises propagates,
    /// with a note naming the position. ``random_perfect_rate`` is what a uniformly random
    /// legal agent scores on average (the mean over positions of perfect columns over legal
    /// columns), to compare with.
    ///
    /// ``positions``: a list of positions (any the solver reads), or the path (a ``str`` or
    /// path-like) of a file of Pons' test-set lines ("moves score", the score not read);
    /// ``limit``: the first so many only. Every column of every position is scored first, in
    /// one ``analyse_many`` batch on every thread.
    ///
    /// >>> solver = Solver()
    /// >>> rating = solver.rate(lambda moves: solver.best_moves(moves)[0], ["4453", "44", "1"])
    /// >>> rating.perfect_rate, round(rating.random_perfect_rate, 3)
    /// (1.0, 0.286)
    /// >>> rating = solver.rate(lambda moves: 0, ["4453", "111111"])   # column 0 is full
    /// >>> rating.perfect, rating.good, rating.illegal
    /// (0, 1, 1)
    /// >>> rating.missed[0]
    /// Miss(index=0, position='4453', answer=0, legal=True, good=True, perfect=[2, 5, 6], scores=[-5, -5, -2, -3, -4, -2, -2])
    #[pyo3(
        signature = (agent, positions, *, form = None, limit = None),
        text_signature = "($self, agent, positions, *, form='moves', limit=None)"
    )]
    fn rate<'py>(
        slf: &Bound<'py, Self>,
        agent: &Bound<'py, PyAny>,
        positions: &Bound<'py, PyAny>,
        form: Option<&Bound<'py, PyAny>>,
        limit: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let keywords = PyDict::new(py);
        if let Some(form) = form {
            keywords.set_item("form", form)?;
        }
        keywords.set_item("limit", limit)?;
        yardstick(py, "rate")?.call((slf, agent, positions), Some(&keywords))
    }

    /// An agent for curriculum play, ``opponent(position) -> column``, that errs as asked:
    ///
    /// - ``temperature=T``: a column drawn with weight ``exp(score / T)`` over the legal
    ///   columns' scores (a softmax in score units: at ``T = 1`` a move one point worse is
    ///   ``e`` times less likely); ``T = 0`` plays a perfect move, ``T = inf`` any legal one;
    /// - ``error_rate=p``: a perfect move, except with probability ``p`` a move drawn among
    ///   the legal moves that are not perfect (a perfect one when every move is).
    ///
    /// Exactly one of the two is given. Ties are drawn uniformly. ``seed`` seeds the
    /// opponent's own generator: the same seed and the same positions in the same order give
    /// the same moves. Each call analyses the position with this solver (the table is shared).
    ///
    /// Raises ``ValueError`` for a temperature below 0 or NaN, an error rate outside 0 to 1,
    /// both or neither given; ``TypeError`` for one that is not a number, or a seed that is
    /// not an int.
    ///
    /// >>> solver = Solver()
    /// >>> sloppy = solver.opponent(error_rate=0.2, seed=1)
    /// >>> [sloppy("4453") for _ in range(8)]     # perfect: 2, 5 and 6
    /// [0, 5, 5, 2, 0, 5, 2, 5]
    /// >>> solver.rate(solver.opponent(temperature=0), ["4453", "44"]).perfect_rate
    /// 1.0
    #[pyo3(signature = (*, temperature = None, error_rate = None, seed = None))]
    fn opponent<'py>(
        slf: &Bound<'py, Self>,
        temperature: Option<&Bound<'py, PyAny>>,
        error_rate: Option<&Bound<'py, PyAny>>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let keywords = PyDict::new(py);
        keywords.set_item("temperature", temperature)?;
        keywords.set_item("error_rate", error_rate)?;
        keywords.set_item("seed", seed)?;
        yardstick(py, "opponent")?.call((slf,), Some(&keywords))
    }

    /// Forgets what the tables learnt (the next solves start from empty tables).
    fn clear(&self, py: Python<'_>) {
        py.detach(|| wait::lock(&self.engine).clear());
    }
}
