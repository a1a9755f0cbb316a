//! `solve-list`'s run of one shard: its results file opened, locked and resumed, and the loop
//! that solves what the file lacks, one line a position.
//!
//! Why this policy: a shard is a batch job that a scheduler may kill at any moment and start
//! again, so every run must go on from what the file holds, and never lose or damage what an
//! earlier run (or a person) left there:
//!
//! - a file with no complete header (empty, or a header cut short by a kill) is started over;
//! - a last line without its newline (a kill mid-write) is cut off, and its position solved
//!   again;
//! - a line that does not read before it (edited, or written by something else) is refused
//!   with its number, and so is a header of another list, shard or strength: the file is left
//!   as it is;
//! - the file is locked for the whole run, so a second run of the shard is refused instead of
//!   interleaving its lines with the first's (where the file system has no locks, the run
//!   goes on and says so).

use super::SplitError;
use super::files::open_results;
use super::{Results, Round, Shard, Solved};
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};
use transpo_connect4::position::Bitboard;
use transpo_connect4::position::Position;
use transpo_connect4::score::{Strength, Window};
use transpo_connect4::solver::Solver;

/// A shard's results file, open, locked and resumed: what it holds is known, and it takes
/// the shard's next results.
#[derive(Debug)]
pub struct ResultsFile {
    file: File,
    /// The path, for messages.
    name: String,
    shard: Shard,
    strength: Strength,
    /// The positions the file holds results for.
    done: HashSet<String>,
    /// What opening it did or could not do, for the user: a line cut off, a header started
    /// over, no lock.
    notes: Vec<String>,
}

impl ResultsFile {
    /// Opens `path`, `shard`'s results file of `list` solved with `strength` (made if
    /// missing), locks it and resumes it as the module says. The file then ends with its
    /// header or a complete line.
    ///
    /// # Errors
    ///
    /// Bad usage or input ([`SplitError::Input`]) when the path is not a regular file of its
    /// own, another run holds the lock, or the file is malformed or another solve's (nothing
    /// is changed then); a failure while running ([`SplitError::Running`]) when it cannot be cut or
    /// written.
    pub fn open<const W: usize, const H: usize, B: Bitboard>(
        path: &Path,
        list: &Round<W, H, B>,
        shard: Shard,
        strength: Strength,
    ) -> Result<Self, SplitError> {
        let name = path.display().to_string();
        let file = open_results(path).map_err(|e| SplitError::input(format!("{name}: {e}")))?;
        let lock = transpo_cli::lock::lock_exclusive(&file, &name, "another solve-list")
            .map_err(|e| SplitError::input(e.message()))?;
        let notes = Vec::from_iter(lock);
        let mut results = ResultsFile {
            file,
            name,
            shard,
            strength,
            done: HashSet::new(),
            notes,
        };
        results.resume(list)?;
        Ok(results)
    }

    /// Reads what the file holds and makes it end with a complete line: cuts a torn last
    /// line off, or writes the header into a file without one.
    fn resume<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        list: &Round<W, H, B>,
    ) -> Result<(), SplitError> {
        let (name, shard, strength) = (&self.name, self.shard, self.strength);
        let running = |e: std::io::Error| SplitError::running(format!("{name}: {e}"));
        let length = self.file.metadata().map_err(running)?.len();
        let read = Results::read(BufReader::new(&self.file), list)
            .map_err(|e| SplitError::input(format!("{name}: {e}")))?;
        match read {
            Some(results) => {
                if results.shard != shard {
                    return Err(SplitError::input(format!(
                        "{name} holds shard {}, not {shard}",
                        results.shard
                    )));
                }
                if results.strength != strength {
                    return Err(SplitError::input(format!(
                        "{name} holds {:?} results: run with{} --weak",
                        results.strength,
                        if results.strength == Strength::Weak {
                            ""
                        } else {
                            "out"
                        }
                    )));
                }
                if (results.complete_bytes as u64) < length {
                    // A shard killed while writing a line: cut the part off and go on.
                    self.file
                        .set_len(results.complete_bytes as u64)
                        .map_err(running)?;
                    self.notes
                        .push(format!("{name}: cut off an unfinished last line"));
                }
                self.done = results.solved.into_iter().map(|s| s.moves).collect();
            }
            None => {
                // Empty (new), or a header cut short by a kill before its newline: start over.
                if length > 0 {
                    self.notes.push(format!(
                        "{name}: an unfinished header ({length} bytes, a run stopped as it \
                         started): starting over"
                    ));
                    self.file.set_len(0).map_err(running)?;
                }
                // One write; the file is opened to append, so it lands at the (new) end.
                self.file
                    .write_all(Results::header(list, shard, strength).as_bytes())
                    .map_err(running)?;
            }
        }
        Ok(())
    }

    /// What opening the file did or could not do, one message each, for the user: a line
    /// cut off, a header started over, no lock to be had.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The positions the file held results for when it was opened, or has taken since.
    pub fn solved(&self) -> usize {
        self.done.len()
    }

    /// The positions of the shard of `list` the file holds no result for, with their
    /// windows, in the list's order.
    pub fn todo<'l, const W: usize, const H: usize, B: Bitboard>(
        &self,
        list: &'l Round<W, H, B>,
    ) -> Vec<(&'l str, Window)> {
        list.of_shard(self.shard)
            .into_iter()
            .map(|i| (list.moves[i].as_str(), list.windows[i]))
            .filter(|(m, _)| !self.done.contains(*m))
            .collect()
    }

    /// Appends `solved`'s line, with its newline, in one write on the unbuffered file: a
    /// kill leaves at most one partial line, at the end, which the next run cuts off.
    pub fn append(&mut self, solved: &Solved) -> Result<(), SplitError> {
        let line = format!("{}\n", solved.line());
        self.file
            .write_all(line.as_bytes())
            .map_err(|e| SplitError::running(format!("{}: {e}", self.name)))?;
        self.done.insert(solved.moves.clone());
        Ok(())
    }
}

/// The first line of a shard's table file ([`save_table`]): the board and the split it
/// belongs to, since the table's own header does not name the board.
fn table_header(board: (usize, usize), split: u64) -> String {
    format!(
        "# transpo-c4 table v1 board {}x{} split {split:016x}\n",
        board.0, board.1
    )
}

/// The table file of `shard` in a split directory: `table-I-of-N.bin`.
pub fn table_file(shard: Shard) -> String {
    format!("table-{}-of-{}.bin", shard.index, shard.count)
}

/// Loads into `solver`'s table the table file at `path` that an earlier round's run of the
/// shard saved ([`save_table`]) for the split of checksum `split`: `Ok(true)` if it did,
/// `Ok(false)` if there is no file, an error (the table left as it was) if the file is not
/// a regular file, belongs to another board or split, or does not load (another
/// `--hash-mib`, damaged). The bounds it holds are true of the positions whatever search
/// stored them, so a round goes on from them: a position asked again is searched on a warm
/// table.
pub fn load_table<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver<W, H, B>,
    path: &Path,
    split: u64,
) -> Result<bool, String> {
    let file = match transpo_files::open_regular(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e.to_string()),
    };
    let mut input = BufReader::new(file);
    let expected = table_header((W, H), split);
    let mut header = Vec::new();
    std::io::Read::take(&mut input, expected.len() as u64)
        .read_until(b'\n', &mut header)
        .map_err(|e| e.to_string())?;
    if header != expected.as_bytes() {
        return Err("not a table file of this split and board".into());
    }
    solver
        .table_mut()
        .load_far(input)
        .map_err(|e| e.to_string())?;
    Ok(true)
}

/// Saves `solver`'s table to `path` atomically, for the next round's run of the shard
/// ([`load_table`]).
pub fn save_table<const W: usize, const H: usize, B: Bitboard>(
    solver: &Solver<W, H, B>,
    path: &Path,
    split: u64,
) -> Result<(), String> {
    transpo_files::write_atomic(path, |file| {
        let mut out = std::io::BufWriter::new(file);
        out.write_all(table_header((W, H), split).as_bytes())?;
        solver
            .table()
            .save_far(&mut out)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        out.flush()
    })
    .map_err(|e| e.to_string())
}

/// What a run of [`solve_shard`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardRun {
    /// Positions solved by this run.
    pub solved_now: usize,
    /// Positions the file held before it.
    pub solved_before: usize,
    /// Positions explored by this run.
    pub nodes: u64,
    /// Time this run took.
    pub elapsed: Duration,
}

/// Solves every position of the shard of `list` that `results` lacks with `solver`, in the
/// list's order, appending each result to `results` as soon as it is solved, with the
/// strength `results` was opened with; `on_solved` is told after each. Done when it returns
/// `Ok`: every position of the shard has its line.
pub fn solve_shard<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver<W, H, B>,
    list: &Round<W, H, B>,
    results: &mut ResultsFile,
    on_solved: impl Fn() + Sync,
) -> Result<ShardRun, SplitError> {
    solve_shard_with(std::slice::from_mut(solver), list, results, 1, on_solved)
}

/// [`solve_shard`] with several solvers at once, each on a thread of its own: they take the
/// positions `run` at a time, each run the next consecutive positions of the list. Why runs:
/// the list is in the order of its move sequences, so neighbours share most of their
/// subtrees, and a solver that searched a position finds much of its neighbour's in its
/// table: taken in order, a position cost less than dealt by hash (measured:
/// docs/connect4/book.md, 2026-11-26, “the depth-8 book”). A failure to write a result
/// stops every solver after its position; the lines written stay.
pub fn solve_shard_with<const W: usize, const H: usize, B: Bitboard>(
    solvers: &mut [Solver<W, H, B>],
    list: &Round<W, H, B>,
    results: &mut ResultsFile,
    run: usize,
    on_solved: impl Fn() + Sync,
) -> Result<ShardRun, SplitError> {
    let todo = results.todo(list);
    let solved_before = results.solved();
    let started = Instant::now();
    let runs: Vec<&[(&str, Window)]> = todo.chunks(run.max(1)).collect();
    let next = AtomicUsize::new(0);
    let nodes = AtomicU64::new(0);
    let results = Mutex::new((results, None::<SplitError>));
    std::thread::scope(|scope| {
        for solver in solvers.iter_mut() {
            let (runs, next, nodes, results, on_solved) =
                (&runs, &next, &nodes, &results, &on_solved);
            scope.spawn(move || {
                while let Some(&positions) = runs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    for &(moves, window) in positions {
                        let solved = match solve_one(solver, moves, window) {
                            Ok(solved) => solved,
                            Err(e) => return stop(results, e),
                        };
                        nodes.fetch_add(solved.nodes, Ordering::Relaxed);
                        let mut guard = lock(results);
                        if guard.1.is_some() {
                            return;
                        }
                        if let Err(e) = guard.0.append(&solved) {
                            guard.1 = Some(e);
                            return;
                        }
                        drop(guard);
                        on_solved();
                    }
                }
            });
        }
    });
    let (results, failure) = results.into_inner().unwrap_or_else(PoisonError::into_inner);
    if let Some(failure) = failure {
        return Err(failure);
    }
    Ok(ShardRun {
        solved_now: results.solved() - solved_before,
        solved_before,
        nodes: nodes.into_inner(),
        elapsed: started.elapsed(),
    })
}

/// What the solvers of [`solve_shard_with`] share: the results file, and the first failure.
type Shared<'r> = Mutex<(&'r mut ResultsFile, Option<SplitError>)>;

/// The shared results, whether or not another solver panicked while holding them (the file
/// is then still whole: a line is written in one write).
fn lock<'a, 'r>(
    results: &'a Shared<'r>,
) -> std::sync::MutexGuard<'a, (&'r mut ResultsFile, Option<SplitError>)> {
    results.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Records `failure` unless another came first; the solvers stop at their next position.
fn stop(results: &Shared<'_>, failure: SplitError) {
    lock(results).1.get_or_insert(failure);
}

/// Searches the position `moves` with `window`: its result line, with the positions explored
/// and the time taken.
fn solve_one<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver<W, H, B>,
    moves: &str,
    window: Window,
) -> Result<Solved, SplitError> {
    // Every line of a list that parsed is a position of the board.
    let pos = Position::<W, H, B>::from_moves(moves).map_err(SplitError::running)?;
    let before = solver.nodes();
    let start = Instant::now();
    let range = solver.solve_window(&pos, window);
    Ok(Solved {
        moves: moves.to_string(),
        range,
        nodes: solver.nodes().saturating_sub(before),
        micros: u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::Split;
    use std::path::PathBuf;
    use transpo_connect4::book::Tree;

    const SHARD: Shard = Shard { index: 1, count: 1 };

    /// The 4×4 list of the positions with 2 stones.
    fn list() -> Round<4, 4> {
        let tree = Tree::new(&Position::<4, 4>::new(), "", 2).expect("a small tree");
        Split::of(
            &tree,
            transpo_connect4::position::EMPTY_BOARD,
            Strength::Strong,
            true,
        )
        .full_round()
    }

    /// A results file's path in a fresh scratch directory of its own.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "transpo-c4-solve-list-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir.join(super::super::results_file_name(1, SHARD))
    }

    /// Opens `path` and solves what it lacks; returns the notes and the run.
    fn open_and_solve(
        path: &Path,
        list: &Round<4, 4>,
    ) -> Result<(Vec<String>, ShardRun), SplitError> {
        let mut results = ResultsFile::open(path, list, SHARD, Strength::Strong)?;
        let mut solver = Solver::<4, 4>::new(1).expect("1 MiB");
        let run = solve_shard(&mut solver, list, &mut results, || {})?;
        Ok((results.notes().to_vec(), run))
    }

    /// The header and the `moves score` of each line (counts and times vary).
    fn scores(text: &str) -> Vec<String> {
        text.lines()
            .map(|l| l.split(' ').take(if l.starts_with('#') { 99 } else { 2 }))
            .map(|fields| fields.collect::<Vec<_>>().join(" "))
            .collect()
    }

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).expect("the results file")
    }

    #[test]
    fn a_new_file_gets_its_header_and_every_position() {
        let (list, path) = (list(), scratch("new"));
        let (notes, run) = open_and_solve(&path, &list).expect("solved");
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!((run.solved_now, run.solved_before), (list.moves.len(), 0));
        let text = read(&path);
        let results = Results::parse(&text, &list).expect("a results file");
        assert_eq!(results.solved.len(), list.moves.len());
        // Run again: nothing left to do, nothing changed.
        let (_, again) = open_and_solve(&path, &list).expect("done");
        assert_eq!(
            (again.solved_now, again.solved_before),
            (0, list.moves.len())
        );
        assert_eq!(read(&path), text);
    }

    #[test]
    fn a_torn_last_line_is_cut_and_solved_again() {
        let (list, path) = (list(), scratch("torn"));
        open_and_solve(&path, &list).expect("solved");
        let whole = read(&path);
        // The last line without its last 3 bytes and newline, as a kill mid-write leaves it.
        std::fs::write(&path, &whole[..whole.len() - 4]).expect("write");
        let (notes, run) = open_and_solve(&path, &list).expect("resumed");
        assert!(
            notes
                .iter()
                .any(|n| n.contains("cut off an unfinished last line")),
            "{notes:?}"
        );
        assert_eq!(
            (run.solved_now, run.solved_before),
            (1, list.moves.len() - 1)
        );
        assert_eq!(scores(&read(&path)), scores(&whole));
    }

    #[test]
    fn a_malformed_middle_line_is_refused_with_its_number() {
        let (list, path) = (list(), scratch("malformed"));
        open_and_solve(&path, &list).expect("solved");
        let whole = read(&path);
        let mut lines: Vec<&str> = whole.lines().collect();
        lines[2] = "12 x";
        let damaged = lines.join("\n") + "\n";
        std::fs::write(&path, &damaged).expect("write");
        let e = open_and_solve(&path, &list).expect_err("a corrupt line");
        assert!(matches!(e, SplitError::Input(_)), "{e}");
        assert!(e.to_string().contains("line 3: corrupt"), "{e}");
        assert_eq!(read(&path), damaged, "the file is left as it was");
    }

    #[test]
    fn a_file_without_a_complete_header_starts_over() {
        let (list, path) = (list(), scratch("header"));
        open_and_solve(&path, &list).expect("solved");
        let whole = read(&path);
        let header_end = whole.find('\n').expect("a header");
        for start in ["", &whole[..header_end], &whole[..10]] {
            std::fs::write(&path, start).expect("write");
            let (notes, run) = open_and_solve(&path, &list).expect("started over");
            assert_eq!(notes.is_empty(), start.is_empty(), "{start:?}: {notes:?}");
            assert!(
                notes.iter().all(|n| n.contains("starting over")),
                "{notes:?}"
            );
            assert_eq!((run.solved_now, run.solved_before), (list.moves.len(), 0));
            assert_eq!(scores(&read(&path)), scores(&whole), "{start:?}");
        }
    }

    #[test]
    fn a_second_holder_of_the_lock_is_refused() {
        let (list, path) = (list(), scratch("lock"));
        let first = ResultsFile::open(&path, &list, SHARD, Strength::Strong).expect("opened");
        let e = ResultsFile::open(&path, &list, SHARD, Strength::Strong).expect_err("held");
        assert!(matches!(e, SplitError::Input(_)), "{e}");
        assert!(
            e.to_string()
                .contains("another solve-list holds it (lock); not started"),
            "{e}"
        );
        drop(first);
        ResultsFile::open(&path, &list, SHARD, Strength::Strong).expect("free again");
    }

    #[test]
    fn another_shard_or_strength_is_refused() {
        let (list, path) = (list(), scratch("other"));
        open_and_solve(&path, &list).expect("solved");
        let weak = ResultsFile::open(&path, &list, SHARD, Strength::Weak).expect_err("weak");
        assert!(
            weak.to_string()
                .contains("Strong results: run without --weak"),
            "{weak}"
        );
        let other = Shard { index: 1, count: 2 };
        let e = ResultsFile::open(&path, &list, other, Strength::Strong).expect_err("shard");
        assert!(e.to_string().contains("holds shard 1/1, not 1/2"), "{e}");
    }

    /// A table saved after a shard's round loads into the next run's solver and holds what
    /// the first learned (a 6×5 position, so that most of it is in the big table, the one
    /// saved) (the same position is then searched in fewer positions); a file of
    /// another split, or damaged, is refused and leaves the table as it was.
    #[test]
    fn a_table_file_carries_bounds_to_the_next_round() {
        let path = scratch("table").with_file_name(table_file(SHARD));
        let pos = Position::<6, 5>::from_moves("3434").expect("a position");
        let mut first = Solver::<6, 5>::new(4).expect("4 MiB");
        first.table_mut().use_whole_table();
        let score = first.solve(&pos, Strength::Strong);
        let cold = first.nodes();
        save_table(&first, &path, 7).expect("saved");
        let mut second = Solver::<6, 5>::new(4).expect("4 MiB");
        second.table_mut().use_whole_table();
        assert_eq!(load_table(&mut second, &path, 7), Ok(true));
        assert_eq!(second.solve(&pos, Strength::Strong), score);
        assert!(second.nodes() < cold, "{} vs {cold}", second.nodes());
        let mut third = Solver::<6, 5>::new(4).expect("4 MiB");
        third.table_mut().use_whole_table();
        let e = load_table(&mut third, &path, 8).expect_err("another split");
        assert!(e.contains("not a table file of this split"), "{e}");
        let mut bytes = std::fs::read(&path).expect("the file");
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).expect("write");
        assert!(load_table(&mut third, &path, 7).is_err(), "a damaged file");
        assert_eq!(third.solve(&pos, Strength::Strong), score);
        assert_eq!(third.nodes(), cold, "the table was left empty");
        let missing = path.with_file_name("absent.bin");
        assert_eq!(load_table(&mut third, &missing, 7), Ok(false));
    }
}
