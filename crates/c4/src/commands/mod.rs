//! The commands of `transpo-c4`, one module each, and what they share: the options of the
//! commands that solve ([`SolveArgs`], [`Solving`]), the tree of `book` and `split`
//! ([`TreeArgs`]), and the book and table files every command may name.
//!
//! A command wires the solver library and the app's library ([`transpo_c4::split`],
//! `transpo_c4::serve`) to stdin, stdout, stderr and the files a user names; what it
//! decides beyond that lives in those libraries, where unit tests reach it. Each returns a
//! [`Failure`], which decides the exit status ([`transpo_cli::failure`]).

pub(crate) mod bench;
pub(crate) mod book;
pub(crate) mod sample;
#[cfg(feature = "serve")]
pub(crate) mod serve;
pub(crate) mod solve;
pub(crate) mod split;

use clap::Args;
use std::path::{Path, PathBuf};
use transpo_cli::Failure;
use transpo_connect4::bounds::TableError;
use transpo_connect4::position::Bitboard;
use transpo_connect4::protocol::EMPTY_BOARD;
use transpo_connect4::{BookError, Strength, board::Board, book::Book, solver::Solver};

/// The options of every command that solves (global: they may follow the command).
#[derive(Args, Clone)]
pub(crate) struct SolveArgs {
    /// The board, WIDTHxHEIGHT: width and height at least 4, width x (height + 1) at most
    /// 64 (4x4 to 12x4, 9x6, 8x7, 4x15, ...), or one of the wide boards 6x10, 7x9, 8x8, 9x7,
    /// 10x6, 11x5, 9x8, 9x9, 13x4, 4x16. Columns 1-9 are written as digits, then letters:
    /// a is column 10, b 11, c 12, d 13. Default: 7x6, or for solve-list and merge the
    /// board of the split.
    #[arg(long, global = true)]
    pub(crate) board: Option<Board>,
    /// Weak solve: 1 win, 0 draw, -1 loss.
    #[arg(long, global = true)]
    pub(crate) weak: bool,
    /// Table size in MiB (8 bytes an entry, 16 on a wide board; rounded down to a power of
    /// two of entries, so that the table can grow without losing entries), plus a fixed
    /// 2 MiB table (4 MiB on a wide board) for positions near the end of the game.
    #[arg(long, default_value_t = 128, global = true)]
    pub(crate) hash_mib: u64,
    /// An opening book made by `transpo-c4 book`.
    #[arg(long, global = true)]
    pub(crate) book: Option<PathBuf>,
    /// Threads that solve each position together on the one table (1 to 256; default: all
    /// cores). Scores do not depend on it.
    #[arg(long, global = true, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub(crate) threads: Option<u16>,
}

/// The positions of `book` and `split`: a tree below a root, down to some number of stones.
#[derive(Args)]
pub(crate) struct TreeArgs {
    /// The most stones of a position in the tree: `book` solves those with DEPTH stones and
    /// takes the others by minimax, `split` lists them.
    #[arg(long)]
    pub(crate) depth: u32,
    /// Where to write it: the book's file, or the split's directory (made if missing).
    #[arg(long)]
    pub(crate) out: PathBuf,
    /// Only positions reachable from this move sequence, instead of the empty board.
    #[arg(long, default_value = "")]
    pub(crate) from: String,
}

/// What the commands that solve share, as the command line gives it: the strength, the
/// threads, the table's size and the book.
pub(crate) struct Solving<const W: usize, const H: usize, B: Bitboard> {
    pub(crate) strength: Strength,
    pub(crate) threads: usize,
    pub(crate) hash_mib: u64,
    pub(crate) book: Option<Book<W, H, B>>,
}

impl<const W: usize, const H: usize, B: Bitboard> Solving<W, H, B> {
    /// The options of `solve`, with the book it names loaded (for every command, so that a
    /// bad `--book` is an error whatever the command).
    pub(crate) fn new(solve: &SolveArgs) -> Result<Self, Failure> {
        Ok(Solving {
            strength: if solve.weak {
                Strength::Weak
            } else {
                Strength::Strong
            },
            threads: threads(solve),
            hash_mib: solve.hash_mib,
            book: solve.book.as_deref().map(load_book).transpose()?,
        })
    }

    /// As many solvers as the threads asked for, each on one thread with a table of the size
    /// asked for and the book: for commands whose threads solve different positions.
    pub(crate) fn one_thread_solvers(self) -> Result<Vec<Solver<W, H, B>>, Failure> {
        (0..self.threads)
            .map(|_| {
                let mut solver = Solver::new(self.hash_mib).map_err(table_failure)?;
                if let Some(book) = &self.book {
                    solver.set_book(book.clone());
                }
                Ok(solver)
            })
            .collect()
    }

    /// The solver they describe.
    pub(crate) fn solver(self) -> Result<Solver<W, H, B>, Failure> {
        let mut solver = Solver::new(self.hash_mib).map_err(table_failure)?;
        solver.set_threads(self.threads).map_err(table_failure)?;
        if let Some(book) = self.book {
            solver.set_book(book);
        }
        Ok(solver)
    }
}

/// The threads asked for, or all cores.
fn threads(solve: &SolveArgs) -> usize {
    match solve.threads {
        Some(n) => usize::from(n),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// The book at `path`, for the board `W`×`H`: a file that cannot be read or is no book of
/// this board is bad input.
pub(crate) fn load_book<const W: usize, const H: usize, B: Bitboard>(
    path: &Path,
) -> Result<Book<W, H, B>, Failure> {
    Book::load(path).map_err(|e| Failure::usage(format!("{}: {e}", path.display())))
}

/// Saves `book` to `path` (replacing it atomically).
pub(crate) fn save_book<const W: usize, const H: usize, B: Bitboard>(
    book: &Book<W, H, B>,
    path: &Path,
) -> Result<(), Failure> {
    book.save(path).map_err(|e| {
        let message = format!("{}: {e}", path.display());
        match &e {
            BookError::Io(io) => Failure::writing(message, io),
            _ => Failure::run(message),
        }
    })
}

/// A table that cannot be had: a size too small for exact keys, or one the table crate
/// refuses, is bad usage; memory the machine cannot give, a failure while running.
pub(crate) fn table_failure(e: TableError) -> Failure {
    match &e {
        TableError::TooSmall { .. } => Failure::usage(e),
        TableError::Table(table) => Failure::of_table("table", table),
    }
}

/// The root's name in a split: its move sequence, `-` for the empty board.
pub(crate) fn root_name(from: &str) -> &str {
    if from.is_empty() { EMPTY_BOARD } else { from }
}
