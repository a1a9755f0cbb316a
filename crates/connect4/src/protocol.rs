//! The `transpo-c4` line protocol: read `moves [expected]` lines, write `moves score nodes
//! micros` lines (or one score per column with `--analyze`), report bad lines on the error
//! stream and go on. A lone `-` is the empty board.
//!
//! Why in the library: the protocol is what users and tests talk to, so it is a function over
//! any reader and writers, tested without spawning a process; `main.rs` only wires it to
//! stdin, stdout and stderr.

use crate::position::Bitboard;
use crate::position::{ParseError, Position};
use crate::score::{Strength, finish, last_move};
use crate::solver::Solver;
use std::fmt;
use std::io::{self, BufRead, Write};
use std::time::Instant;
use transpo_files::{Line, Lines, TEXT_LINE_MAX};

/// Why an input line was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// Nothing but whitespace.
    Empty,
    /// The move sequence is not a position to solve.
    Moves(ParseError),
    /// The second field is not an integer score.
    BadExpected(String),
    /// More than two fields.
    TrailingText(String),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Empty => write!(f, "empty line"),
            LineError::Moves(e) => write!(f, "{e}"),
            LineError::BadExpected(s) => write!(f, "expected score {s:?} is not an integer"),
            LineError::TrailingText(s) => write!(f, "unexpected text {s:?} after the score"),
        }
    }
}

impl std::error::Error for LineError {}

/// One parsed input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem<'a, const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    /// The move sequence as written.
    pub moves: &'a str,
    /// The position it leads to.
    pub position: Position<W, H, B>,
    /// The score the line claims, if any.
    pub expected: Option<i32>,
}

pub use crate::position::EMPTY_BOARD;

/// Parses `moves [expected]`; `moves` is [`EMPTY_BOARD`] for the empty board.
pub fn parse_line<const W: usize, const H: usize, B: Bitboard>(
    line: &str,
) -> Result<Problem<'_, W, H, B>, LineError> {
    let mut fields = line.split_whitespace();
    let moves = fields.next().ok_or(LineError::Empty)?;
    let position = if moves == EMPTY_BOARD {
        Position::new()
    } else {
        Position::from_moves(moves).map_err(LineError::Moves)?
    };
    let expected = fields
        .next()
        .map(|s| s.parse().map_err(|_| LineError::BadExpected(s.into())))
        .transpose()?;
    if let Some(extra) = fields.next() {
        return Err(LineError::TrailingText(extra.into()));
    }
    Ok(Problem {
        moves,
        position,
        expected,
    })
}

/// What the score `score` of the empty board of `squares` squares (strong, or its sign when
/// weak) says in words: `first player wins on move 41` (7×6), `second player wins on move
/// 24`, `draw (the board fills up on move 16)`; a weak score knows only who wins.
pub fn ending(squares: usize, strength: Strength, score: i32) -> String {
    let winner = match score.signum() {
        1 => "first player wins",
        -1 => "second player wins",
        _ => return format!("draw (the board fills up on move {squares})"),
    };
    match strength {
        Strength::Strong => format!("{winner} on move {}", last_move(squares, 0, score)),
        Strength::Weak => winner.to_string(),
    }
}

/// Options of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Strong or weak.
    pub strength: Strength,
    /// Score every column instead of the position.
    pub analyze: bool,
}

/// What a run saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Lines solved.
    pub solved: usize,
    /// Lines rejected.
    pub rejected: usize,
    /// Solved lines whose score differs from the expected one.
    pub wrong: usize,
}

impl Summary {
    /// The failed check a run ends with, if some line was rejected or scored other than it
    /// expected (exit status 1): `1 of 3 lines rejected, 0 scored other than expected`.
    pub fn failed_check(&self) -> Option<String> {
        (self.rejected > 0 || self.wrong > 0).then(|| {
            format!(
                "{} of {} lines rejected, {} scored other than expected",
                self.rejected,
                self.solved + self.rejected,
                self.wrong
            )
        })
    }
}

/// What answers the protocol's lines: one [`Solver`], or anything else that solves a
/// position as one solve does (the manager of a solve over many machines).
pub trait Answer<const W: usize, const H: usize, B: Bitboard> {
    /// What stops a run besides I/O.
    type Error: From<io::Error>;

    /// The answer to one good line: with `options.analyze` every column's score
    /// ([`crate::score::column_scores`]), else the position's score.
    ///
    /// # Errors
    ///
    /// Whatever keeps it from answering at all; the run stops with it.
    fn answer(
        &mut self,
        problem: &Problem<'_, W, H, B>,
        options: Options,
    ) -> Result<Answered<W>, Self::Error>;
}

/// One line's answer: the scores, and what the answer cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answered<const W: usize> {
    /// The position's score, or with `--analyze` every column's (`None` for a full one).
    pub scores: Scores<W>,
    /// Positions explored.
    pub positions: u64,
    /// Microseconds taken.
    pub micros: u128,
}

/// What a line asked for: one score, or one per column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scores<const W: usize> {
    /// The position's score.
    One(i32),
    /// Every column's score, `None` for a full column.
    Columns([Option<i32>; W]),
}

impl<const W: usize> Scores<W> {
    /// The position's score: the best column's when analysed (none if every column is full).
    pub fn best(&self) -> Option<i32> {
        match self {
            Scores::One(score) => Some(*score),
            Scores::Columns(scores) => scores.iter().flatten().max().copied(),
        }
    }
}

impl<const W: usize> fmt::Display for Scores<W> {
    /// `score`, or each column's score (`-` for a full one) separated by spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scores::One(score) => write!(f, "{score}"),
            Scores::Columns(scores) => {
                for (col, score) in scores.iter().enumerate() {
                    let sep = if col == 0 { "" } else { " " };
                    match score {
                        Some(score) => write!(f, "{sep}{score}")?,
                        None => write!(f, "{sep}-")?,
                    }
                }
                Ok(())
            }
        }
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Answer<W, H, B> for Solver<W, H, B> {
    type Error = io::Error;

    /// Each line from an empty table, so that its count of positions is its own.
    fn answer(
        &mut self,
        problem: &Problem<'_, W, H, B>,
        options: Options,
    ) -> io::Result<Answered<W>> {
        self.reset();
        let start = Instant::now();
        let scores = if options.analyze {
            Scores::Columns(self.analyze(&problem.position, options.strength))
        } else {
            Scores::One(self.solve(&problem.position, options.strength))
        };
        Ok(Answered {
            scores,
            positions: self.nodes(),
            micros: start.elapsed().as_micros(),
        })
    }
}

/// Runs the protocol over `input`, each good line answered by `solver`. Bad lines go to
/// `errors` as `line N: reason`; only I/O errors (and `solver`'s own) stop the run. A line
/// longer than [`TEXT_LINE_MAX`] bytes (`line N: line too long`) or not UTF-8 (`line N: not
/// UTF-8`) is one more bad line: it is counted as rejected and the run goes on, and an
/// endless line costs at most the cap in memory. After the empty board's line, `errors` also
/// says who wins and on which move the game ends ([`ending`]).
pub fn run<const W: usize, const H: usize, B: Bitboard, S: Answer<W, H, B>>(
    solver: &mut S,
    input: impl BufRead,
    mut out: impl Write,
    mut errors: impl Write,
    options: Options,
) -> Result<Summary, S::Error> {
    let mut summary = Summary::default();
    for line in Lines::new(input, TEXT_LINE_MAX) {
        let Line { number, text } = line?;
        let line = match text {
            Ok(text) => text,
            Err(bad) => {
                writeln!(errors, "line {number}: {bad}")?;
                summary.rejected += 1;
                continue;
            }
        };
        let problem = match parse_line(&line) {
            Ok(p) => p,
            Err(e) => {
                writeln!(errors, "line {number}: {e}")?;
                summary.rejected += 1;
                continue;
            }
        };
        let answered = solver.answer(&problem, options)?;
        let score = answered.scores.best();
        writeln!(
            out,
            "{} {} {} {}",
            problem.moves, answered.scores, answered.positions, answered.micros
        )?;
        if let (0, Some(score)) = (problem.position.moves(), score) {
            writeln!(errors, "{}", ending(W * H, options.strength, score))?;
        }
        summary.solved += 1;
        if let (Some(expected), Some(score)) = (problem.expected, score) {
            let expected = finish(expected, options.strength);
            if expected != score {
                writeln!(errors, "line {number}: expected {expected}, solved {score}")?;
                summary.wrong += 1;
            }
        }
    }
    Ok(summary)
}
