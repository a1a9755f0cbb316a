//! The library's solvers of one board behind a trait ([`Engine`]), so that the Python class
//! holds any of the 59 boards: one solver for single positions (every thread on one solve)
//! and, made on first use, a crew for batches (each thread on positions of its own, the
//! caller's thread too: `transpo_connect4::crew`).

use crate::batch::{Batch, Item};
use crate::budget::{Columns, Goal, narrow_one, next_window};
use crate::settings::{BookSetting, Settings};
use std::sync::atomic::{AtomicBool, Ordering};
use transpo_connect4::Strength;
use transpo_connect4::book::{Book, BookError};
use transpo_connect4::crew::Crew;
use transpo_connect4::moves::MoveSorter;
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::score::{
    Window, column_scores, finish, loss_next_score, win_later_max, win_now_score,
};
use transpo_connect4::solver::Solver;
use transpo_connect4::with_board;

/// Why an engine could not be made or could not solve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// The book file could not be read (`OSError`).
    BookFile(String),
    /// The file is not a book of this board (`ValueError`).
    Book(String),
    /// The machine could not give a table (`MemoryError`).
    Table(String),
}

/// Called with the count solved so far and the count to solve about every 10 ms while a
/// batch runs; `false` stops it.
pub type Check<'a> = &'a mut dyn FnMut(usize, usize) -> bool;

/// What a search within a budget learnt of a position's columns, and the positions it
/// explored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Each column's bounds, as [`finish`]ed for the solver's strength.
    pub columns: Columns,
    /// Positions explored.
    pub nodes: u64,
}

/// One board's solvers. Positions come as checked moves (0-based columns of a game not
/// over, `crate::rules::Game`).
pub trait Engine: Send {
    /// The score of a position, or `None` if `stop` was raised.
    fn solve(&mut self, moves: &[u8], stop: &AtomicBool) -> Option<i32>;
    /// Each column's score (`None` for a full column), or `None` if stopped.
    fn analyse(&mut self, moves: &[u8], stop: &AtomicBool) -> Option<Vec<Option<i32>>>;
    /// The scores of many positions on every thread, or `None` if `check` said to stop.
    fn solve_many(
        &mut self,
        positions: Batch,
        check: Check<'_>,
    ) -> Result<Option<Vec<i32>>, EngineError>;
    /// Each column's score of many positions (`width` a position, `None` for a full
    /// column), all the positions' moves solved on every thread, or `None` if stopped.
    fn analyse_many(
        &mut self,
        positions: Batch,
        check: Check<'_>,
    ) -> Result<Option<Vec<Option<i32>>>, EngineError>;
    /// Each column's bounds of a position, narrowed by null-window searches on every thread
    /// until `goal` is proven, `stop` is raised or about `max_nodes` positions are explored
    /// (`crate::budget`).
    fn within(&mut self, moves: &[u8], goal: Goal, stop: &AtomicBool, max_nodes: u64) -> Found;
    /// The bounds `(lo, hi)` of each position's score (as [`finish`]ed), solved in order on
    /// every thread until `stop` is raised or about `max_nodes` positions are explored: those
    /// not reached keep the bounds of their stone count. And the positions explored.
    fn solve_within(
        &mut self,
        positions: &Batch,
        stop: &AtomicBool,
        max_nodes: u64,
    ) -> (Vec<(i32, i32)>, u64);
    /// Forgets every table's contents.
    fn clear(&mut self);
    /// Whether an opening book is in use.
    fn has_book(&self) -> bool;
}

/// The engine of `settings`, its tables made (`MiB` of them touched).
pub fn make(settings: &Settings) -> Result<Box<dyn Engine>, EngineError> {
    with_board!(settings.board, make_typed(settings), else Err(EngineError::Table(
        format!("no {} board", settings.board)
    )))
}

/// The solvers of the `W`×`H` board.
struct Typed<const W: usize, const H: usize, B: Bitboard> {
    strength: Strength,
    hash_mib: u64,
    threads: usize,
    book: Option<Book<W, H, B>>,
    solver: Solver<W, H, B>,
    /// The crew, and the process that made it.
    crew: Option<(Crew<W, H, B>, u32)>,
}

fn make_typed<const W: usize, const H: usize, B: Bitboard>(
    settings: &Settings,
) -> Result<Box<dyn Engine>, EngineError> {
    let book = match &settings.book {
        BookSetting::None => None,
        // The built-in book is of 7x6; other boards have none.
        BookSetting::BuiltIn => Book::<W, H, B>::built_in_of_board(),
        BookSetting::Path(path) => {
            Some(Book::<W, H, B>::load(path.as_ref()).map_err(|e| match e {
                BookError::Io(io) => EngineError::BookFile(format!("book file: {io}")),
                other => EngineError::Book(other.to_string()),
            })?)
        }
    };
    let mut solver =
        Solver::<W, H, B>::new(settings.hash_mib).map_err(|e| EngineError::Table(e.to_string()))?;
    solver
        .set_threads(settings.threads)
        .map_err(|e| EngineError::Table(e.to_string()))?;
    if let Some(book) = &book {
        solver.set_book(book.clone());
    }
    Ok(Box::new(Typed {
        strength: settings.strength,
        hash_mib: settings.hash_mib,
        threads: settings.threads,
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

    /// The position of a batch's item: its moves played, or made from its key.
    fn position_of(item: Item<'_>) -> Position<W, H, B> {
        match item {
            Item::Moves(moves) => Self::position(moves),
            // A batch's key is one of a grid checked on this board (`Game::grid_key`: not
            // full, no four, the counts of a game), which `from_key` takes; the empty board
            // would stand in for one it did not.
            Item::Key(key) => Position::from_key(B::from_u128(key)).unwrap_or_default(),
        }
    }

    /// Forgets, without dropping it, a crew made by the process this one forked from (a
    /// PyTorch `DataLoader` worker, `multiprocessing` with fork): its helper threads did
    /// not come along, and a lock one of them held at the fork would stay held here, so
    /// neither its locks nor its threads may be touched. Its memory is the parent's,
    /// shared until written; the next batch makes a crew of this process.
    fn leave_a_parents_crew(&mut self) {
        if self
            .crew
            .as_ref()
            .is_some_and(|(_, pid)| *pid != std::process::id())
        {
            std::mem::forget(self.crew.take());
        }
    }

    /// The crew of this process, made if there is none.
    fn crew(&mut self) -> Result<&Crew<W, H, B>, EngineError> {
        self.leave_a_parents_crew();
        if self.crew.is_none() {
            let crew = Crew::new(self.hash_mib, self.threads, self.book.clone())
                .map_err(|e| EngineError::Table(e.to_string()))?;
            self.crew = Some((crew, std::process::id()));
        }
        match &self.crew {
            Some((crew, _)) => Ok(crew),
            None => Err(EngineError::Table("no crew".into())),
        }
    }

    /// The range scores are kept in: a weak solver's are win, draw or loss.
    fn clamp(&self) -> (i32, i32) {
        match self.strength {
            Strength::Strong => (i32::MIN / 2, i32::MAX / 2),
            Strength::Weak => (-1, 1),
        }
    }

    /// What is known of each column of `pos` without a search: a full column, a win at
    /// once, a move that fills the board or lets the opponent win at once; else the range
    /// of the stone count. And the columns in the library's move order (full ones last).
    fn first_bounds(pos: &Position<W, H, B>) -> (Vec<Option<(i32, i32)>>, Vec<usize>) {
        let squares = W * H;
        let bounds = (0..W)
            .map(|col| {
                if !pos.can_play(col) {
                    return None;
                }
                if pos.is_winning_move(col) {
                    let win = win_now_score(squares, pos.moves());
                    return Some((win, win));
                }
                let mut next = *pos;
                next.play_column(col);
                let moves = next.moves();
                Some(if moves as usize == squares {
                    (0, 0)
                } else if next.can_win_next() {
                    let loss = -win_now_score(squares, moves);
                    (loss, loss)
                } else {
                    (
                        -win_later_max(squares, moves),
                        -loss_next_score(squares, moves),
                    )
                })
            })
            .collect();
        let mut sorter = MoveSorter::<W, H, B>::EMPTY;
        sorter.start(pos.possible(), None, pos.opponent_winning());
        let mut order = Vec::with_capacity(W);
        while let Some((square, _)) = sorter.next(pos) {
            order.push(Position::<W, H, B>::column_of(square));
        }
        let full: Vec<usize> = (0..W).filter(|c| !order.contains(c)).collect();
        order.extend(full);
        (bounds, order)
    }

    /// The null window `[t, t + 1]` of `pos` (not over) solved within `max_nodes`
    /// positions: the score's range, or `None` if stopped.
    fn null_window(
        &mut self,
        pos: &Position<W, H, B>,
        t: i32,
        stop: &AtomicBool,
        max_nodes: u64,
    ) -> Option<(i32, i32)> {
        let window = Window {
            alpha: t,
            beta: t + 1,
        };
        let range = self
            .solver
            .solve_window_within(pos, window, stop, max_nodes)?;
        Some((*range.start(), *range.end()))
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
        let scores = column_scores(&pos, self.strength, |next| self.solve_pos(next, stop))?;
        Some(scores.to_vec())
    }

    fn solve_many(
        &mut self,
        positions: Batch,
        check: Check<'_>,
    ) -> Result<Option<Vec<i32>>, EngineError> {
        let strength = self.strength;
        let count = positions.len();
        // Each position is made on the thread that solves it.
        let position = move |i| Self::position_of(positions.get(i));
        Ok(self
            .crew()?
            .solve_each(count, position, strength, |solved| check(solved, count))
            .ok()
            .map(|(scores, _)| scores))
    }

    fn analyse_many(
        &mut self,
        positions: Batch,
        check: Check<'_>,
    ) -> Result<Option<Vec<Option<i32>>>, EngineError> {
        let strength = self.strength;
        // The positions after each move that neither wins nor fills the board, solved as
        // one batch; the library's `column_scores` asks for them in the same order twice.
        let mut children = Vec::new();
        for i in 0..positions.len() {
            let pos = Self::position_of(positions.get(i));
            let _ = column_scores(&pos, strength, |next| {
                children.push(*next);
                Some(0)
            });
        }
        let count = children.len();
        let scores = self.crew()?.solve_each(
            count,
            move |k| children[k],
            strength,
            |solved| check(solved, count),
        );
        let Ok((scores, _)) = scores else {
            return Ok(None);
        };
        let mut scores = scores.into_iter();
        let mut all = Vec::with_capacity(positions.len() * W);
        for i in 0..positions.len() {
            let pos = Self::position_of(positions.get(i));
            let columns = column_scores(&pos, strength, |_| scores.next());
            // Every child was solved above, in this order.
            all.extend(columns.unwrap_or([None; W]));
        }
        Ok(Some(all))
    }

    fn within(&mut self, moves: &[u8], goal: Goal, stop: &AtomicBool, max_nodes: u64) -> Found {
        let pos = Self::position(moves);
        let (bounds, order) = Self::first_bounds(&pos);
        let mut columns = Columns::new(bounds, &order, self.clamp());
        let start = self.solver.nodes();
        while let Some((col, t)) = columns.next(goal) {
            let used = self.solver.nodes() - start;
            if used >= max_nodes || stop.load(Ordering::Relaxed) {
                break;
            }
            let mut next = pos;
            next.play_column(col);
            // The column's score is above `t` when the opponent's is below `-t`.
            let Some((lo, hi)) = self.null_window(&next, -t - 1, stop, max_nodes - used) else {
                break;
            };
            columns.narrow(col, -hi, -lo);
        }
        Found {
            columns,
            nodes: self.solver.nodes() - start,
        }
    }

    fn solve_within(
        &mut self,
        positions: &Batch,
        stop: &AtomicBool,
        max_nodes: u64,
    ) -> (Vec<(i32, i32)>, u64) {
        let clamp = self.clamp();
        let squares = W * H;
        let start = self.solver.nodes();
        let mut going = true;
        let mut all = Vec::with_capacity(positions.len());
        for i in 0..positions.len() {
            let pos = Self::position_of(positions.get(i));
            let moves = pos.moves();
            let mut known = if pos.can_win_next() {
                let win = win_now_score(squares, moves);
                (win, win)
            } else {
                (
                    loss_next_score(squares, moves),
                    win_later_max(squares, moves),
                )
            };
            known = narrow_one(known, known, clamp);
            while going && known.0 < known.1 {
                let used = self.solver.nodes() - start;
                if used >= max_nodes || stop.load(Ordering::Relaxed) {
                    going = false;
                    break;
                }
                let t = next_window(known.0, known.1);
                match self.null_window(&pos, t, stop, max_nodes - used) {
                    Some(answer) => known = narrow_one(known, answer, clamp),
                    None => going = false,
                }
            }
            all.push(known);
        }
        (all, self.solver.nodes() - start)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::Value;
    use crate::settings::Settings;

    /// An engine of `board`, with the built-in book on 7x6 (debug builds search slowly).
    fn engine(board: &str, weak: bool) -> Box<dyn Engine> {
        let (threads, hash_mib) = (Value::Int(2), Value::Int(8));
        let settings = Settings::new(board, weak, Some(&threads), &hash_mib, BookSetting::BuiltIn)
            .expect("settings");
        make(&settings).expect("an engine")
    }

    fn batch(positions: &[&[u8]]) -> Batch {
        let mut batch = Batch::default();
        for moves in positions {
            batch.moves.extend_from_slice(moves);
            batch.end_position();
        }
        batch
    }

    #[test]
    fn known_scores() {
        let mut e = engine("7x6", false);
        let stop = AtomicBool::new(false);
        // The first line of Pons' End-Easy set scores -1 (the package's doctest shows it).
        let late: Vec<u8> = "2252576253462244111563365343671351441"
            .bytes()
            .map(|b| b - b'1')
            .collect();
        assert_eq!(e.solve(&late, &stop), Some(-1));
        let columns = e.analyse(&late, &stop).expect("not stopped");
        assert_eq!(columns.iter().flatten().max(), Some(&-1));
        let mut count = |_: usize, _: usize| true;
        let many = e.analyse_many(batch(&[&late, &late]), &mut count);
        assert_eq!(many, Ok(Some([columns.clone(), columns].concat())));
        // The empty board, from the book: the first player wins with its last stone (+1).
        let scores = e.solve_many(batch(&[&late, &[]]), &mut count);
        assert_eq!(scores, Ok(Some(vec![-1, 1])));
    }

    #[test]
    fn analyse_many_scores_wins_full_columns_and_draws() {
        // 4x4: a full column; a win at once (column 0 after 0 1 0 1 0 1); the empty board;
        // one square left (the first 15 moves of a drawn game). Against `analyse`, which
        // tests/test_solver.py checks against a plain minimax.
        let mut e = engine("4x4", false);
        let stop = AtomicBool::new(false);
        let positions: [&[u8]; 4] = [
            &[0, 0, 0, 0],
            &[0, 1, 0, 1, 0, 1],
            &[],
            &[2, 2, 0, 2, 2, 1, 3, 0, 3, 3, 3, 1, 0, 1, 1],
        ];
        let mut count = |_: usize, _: usize| true;
        let many = e
            .analyse_many(batch(&positions), &mut count)
            .expect("solved")
            .expect("not stopped");
        for (i, moves) in positions.iter().enumerate() {
            assert_eq!(
                e.analyse(moves, &stop).as_deref(),
                Some(&many[i * 4..i * 4 + 4]),
                "{moves:?}"
            );
        }
        assert_eq!(many[0], None);
        let mut weak = engine("4x4", true);
        let weak_many = weak
            .analyse_many(batch(&positions), &mut count)
            .expect("solved")
            .expect("not stopped");
        assert_eq!(
            weak_many,
            many.iter().map(|s| s.map(i32::signum)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn answers_within_a_budget_hold_the_true_scores() {
        let mut e = engine("7x6", false);
        let stop = AtomicBool::new(false);
        let moves: [u8; 4] = [3, 3, 4, 2];
        let scores = e.analyse(&moves, &stop).expect("not stopped");
        let all = e.within(&moves, Goal::All, &stop, u64::MAX);
        let exact: Vec<_> = all
            .columns
            .bounds()
            .iter()
            .map(|b| b.map(|(lo, _)| lo))
            .collect();
        assert_eq!(exact, scores);
        assert!(all.columns.proven(Goal::All));
        let best = e.within(&moves, Goal::Best, &stop, u64::MAX);
        assert!(best.columns.proven(Goal::Best));
        let column = best.columns.best().expect("a column");
        assert_eq!(scores[column], scores.iter().flatten().max().copied());
        let (bounds, _) = e.solve_within(&batch(&[&moves, &[]]), &stop, u64::MAX);
        assert_eq!(bounds, vec![(-2, -2), (1, 1)]);

        // The empty board without a book, a few thousand positions: true bounds, unproven.
        let (threads, hash_mib) = (Value::Int(2), Value::Int(8));
        let settings = Settings::new("7x6", false, Some(&threads), &hash_mib, BookSetting::None)
            .expect("settings");
        let mut e = make(&settings).expect("an engine");
        let empty = [-2, -1, 0, 1, 0, -1, -2];
        for goal in [Goal::Best, Goal::All] {
            let found = e.within(&[], goal, &stop, 5_000);
            assert!(!found.columns.proven(goal));
            assert!(found.nodes <= 5_000 + 2 * 4_096 + 256, "{}", found.nodes);
            for (bound, score) in found.columns.bounds().iter().zip(empty) {
                let (lo, hi) = bound.expect("no full column");
                assert!(lo <= score && score <= hi, "{:?}", found.columns);
            }
        }
        let (bounds, nodes) = e.solve_within(&batch(&[&[], &[]]), &stop, 5_000);
        assert!(nodes <= 5_000 + 2 * 4_096 + 256, "{nodes}");
        assert!(bounds.iter().all(|&(lo, hi)| lo <= 1 && 1 <= hi && lo < hi));
        // Stopped before it starts: the bounds of the stone count.
        let raised = AtomicBool::new(true);
        let (bounds, _) = e.solve_within(&batch(&[&[]]), &raised, u64::MAX);
        assert_eq!(bounds, vec![(-21, 20)]);
    }

    #[test]
    fn a_stop_stops() {
        let (threads, hash_mib) = (Value::Int(2), Value::Int(8));
        let settings = Settings::new("7x6", false, Some(&threads), &hash_mib, BookSetting::None)
            .expect("settings");
        let mut e = make(&settings).expect("an engine");
        let mut no = |_: usize, _: usize| false;
        // The empty board without a book takes minutes: stopped at the first check.
        assert_eq!(e.solve_many(batch(&[&[], &[]]), &mut no), Ok(None));
        let stop = AtomicBool::new(true);
        assert_eq!(e.solve(&[], &stop), None);
    }
}
