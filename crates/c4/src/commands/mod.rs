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
pub(crate) mod certificate;
pub(crate) mod estimate;
#[cfg(feature = "mpi")]
pub(crate) mod mpi;
pub(crate) mod sample;
#[cfg(feature = "serve")]
pub(crate) mod serve;
pub(crate) mod solve;
pub(crate) mod split;

use clap::Args;
use std::path::{Path, PathBuf};
use transpo_c4::knobs::Knobs;
use transpo_cli::Failure;
use transpo_connect4::book::Tree;
use transpo_connect4::bounds::{BoundStore, BoundTable, TableError};
use transpo_connect4::position::{Bitboard, EMPTY_BOARD, Position};
use transpo_connect4::{BookError, Strength, board::Board, book::Book, solver::Solver};

/// The options of every command that solves (global: they may follow the command).
#[derive(Args, Clone)]
pub(crate) struct SolveArgs {
    /// The board, WIDTHxHEIGHT: width and height at least 4, width x (height + 1) at most
    /// 64 (4x4 to 12x4, 9x6, 8x7, 4x15, ...), or one of the wide boards up to 128 bits:
    /// every board with W + H = 16 or 17 (the unsolved 8x9, 9x8, 10x7, 11x6, 12x5 and 13x4
    /// among them), 9x9 and 4x16. Columns 1-9 are written as digits, then letters:
    /// a is column 10, b 11, c 12, d 13. Default: 7x6, or for solve-list and merge the
    /// board of the split.
    #[arg(long, global = true)]
    pub(crate) board: Option<Board>,
    /// Weak solve: 1 win, 0 draw, -1 loss.
    #[arg(long, global = true)]
    pub(crate) weak: bool,
    /// Table size in MiB, at most 2^30 (8 bytes an entry, 16 on a wide board; rounded down to a
    /// power of two of entries, so that the table can grow without losing entries), plus a
    /// fixed 2 MiB table (4 MiB on a wide board) for positions near the end of the game.
    /// Default: 128.
    #[arg(long, global = true, value_parser = clap::value_parser!(u64).range(0..=MAX_HASH_MIB))]
    pub(crate) hash_mib: Option<u64>,
    /// An opening book made by `transpo-c4 book`.
    #[arg(long, global = true)]
    pub(crate) book: Option<PathBuf>,
    /// Threads that solve each position together on the one table (1 to 256; default: all
    /// cores). Scores do not depend on it. bench takes a list, 1,2,4,8,16, and compares the
    /// counts.
    #[arg(long, global = true, value_parser = ThreadCounts::parse)]
    pub(crate) threads: Option<ThreadCounts>,
}

/// The most thread counts one `bench --threads` list may name.
const MAX_THREAD_COUNTS: usize = 16;

/// `--threads`: one count, or for `bench` a list of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ThreadCounts(Vec<usize>);

impl ThreadCounts {
    /// Counts from 1 to 256, separated by commas, at most [`MAX_THREAD_COUNTS`] of them.
    fn parse(text: &str) -> Result<ThreadCounts, String> {
        let counts = text
            .split(',')
            .take(MAX_THREAD_COUNTS + 1)
            .map(|count| match count.trim().parse::<usize>() {
                Ok(n @ 1..=256) => Ok(n),
                _ => Err(format!("{count:?} is no thread count from 1 to 256")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if counts.len() > MAX_THREAD_COUNTS {
            return Err(format!("at most {MAX_THREAD_COUNTS} thread counts"));
        }
        Ok(ThreadCounts(counts))
    }
}

/// The most `--hash-mib`: 2^30 MiB (a pebibyte), far past any machine's memory, so that the
/// bytes it asks for fit a `u64`; a table the machine cannot give is refused when it is made.
const MAX_HASH_MIB: u64 = 1 << 30;

/// The table's size when `--hash-mib` is not given.
const DEFAULT_HASH_MIB: u64 = 128;

/// A global flag that a command may or may not honour (`--board` every command honours).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flag {
    /// `--weak`.
    Weak,
    /// `--hash-mib`.
    HashMib,
    /// `--book`.
    Book,
    /// `--threads`.
    Threads,
    /// `--analyze`.
    Analyze,
}

impl Flag {
    /// Every flag, in the order `--help` lists them.
    const ALL: [Flag; 5] = [
        Flag::Weak,
        Flag::HashMib,
        Flag::Book,
        Flag::Threads,
        Flag::Analyze,
    ];

    /// The flag as it is written.
    fn name(self) -> &'static str {
        match self {
            Flag::Weak => "--weak",
            Flag::HashMib => "--hash-mib",
            Flag::Book => "--book",
            Flag::Threads => "--threads",
            Flag::Analyze => "--analyze",
        }
    }

    /// Whether the command line gave it.
    fn given(self, solve: &SolveArgs, analyze: bool) -> bool {
        match self {
            Flag::Weak => solve.weak,
            Flag::HashMib => solve.hash_mib.is_some(),
            Flag::Book => solve.book.is_some(),
            Flag::Threads => solve.threads.is_some(),
            Flag::Analyze => analyze,
        }
    }
}

/// Refuses, as bad usage, a global flag given to `command` that it does not honour (it
/// honours `honoured` and `--board`): a flag is never silently ignored. The message names
/// the flag, the command, and what the command honours.
pub(crate) fn refuse_unhonoured(
    command: &str,
    honoured: &[Flag],
    solve: &SolveArgs,
    analyze: bool,
) -> Result<(), Failure> {
    let Some(flag) = Flag::ALL
        .into_iter()
        .find(|f| f.given(solve, analyze) && !honoured.contains(f))
    else {
        return Ok(());
    };
    let mut takes = vec!["--board"];
    takes.extend(honoured.iter().map(|f| f.name()));
    Err(Failure::usage(format!(
        "{command} takes no {}: it honours {} (of the global flags)",
        flag.name(),
        takes.join(", ")
    )))
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
    /// Only positions reachable from this move sequence, instead of the empty board (`-`,
    /// the default).
    #[arg(long, default_value = "")]
    pub(crate) from: String,
}

impl TreeArgs {
    /// The root's move sequence: `--from`, empty for the empty board (given as `-` or not
    /// at all).
    pub(crate) fn root_moves(&self) -> &str {
        if self.from == EMPTY_BOARD {
            ""
        } else {
            &self.from
        }
    }

    /// The root position and the tree below it down to `--depth` stones on the board
    /// `W`×`H`, checked before anything is made: `--from` a position of the board, `--depth`
    /// at least its stones and below the board's squares (a position with every square
    /// taken has no move left to list or solve), and the tree within
    /// [`transpo_connect4::book::MAX_TREE_POSITIONS`].
    pub(crate) fn tree<const W: usize, const H: usize, B: Bitboard>(
        &self,
    ) -> Result<Tree<W, H, B>, Failure> {
        let from = self.root_moves();
        let root = Position::<W, H, B>::from_moves(from)
            .map_err(|e| Failure::usage(format!("--from: {e}")))?;
        check_depth::<W, H>(self.depth)?;
        Tree::new(&root, from, self.depth).map_err(Failure::usage)
    }
}

/// Checks a `--depth` against the board `W`×`H`: at most one stone fewer than its squares.
pub(crate) fn check_depth<const W: usize, const H: usize>(depth: u32) -> Result<(), Failure> {
    let most = W * H - 1;
    if usize::try_from(depth).map_or(true, |d| d > most) {
        return Err(Failure::usage(format!(
            "--depth {depth}: a {W}x{H} board has {} squares, so at most {most} stones",
            W * H
        )));
    }
    Ok(())
}

/// Checks, before any work, that the file `out` (`what` names the flag) can be written:
/// it is a regular file or nothing yet, in an existing directory this process can create
/// files in. A directory, a device or a FIFO there, a missing directory, or one that cannot
/// be written to is bad usage, said at once rather than after a long solve.
pub(crate) fn check_file_out(out: &Path, what: &str) -> Result<(), Failure> {
    let bad = |why: &str| Err(Failure::usage(format!("{what} {}: {why}", out.display())));
    match std::fs::metadata(out) {
        Ok(meta) if meta.is_dir() => return bad("a directory, not a file"),
        Ok(meta) if !meta.is_file() => {
            return bad("not a regular file (a device or FIFO): the file is replaced whole");
        }
        Ok(_) => {}
        Err(e) if is_missing(&e) => {}
        Err(e) => return bad(&e.to_string()),
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match std::fs::metadata(parent) {
        Ok(meta) if meta.is_dir() => check_writable_dir(parent, what, out),
        Ok(_) => bad(&format!("{} is not a directory", parent.display())),
        Err(e) => bad(&format!("directory {}: {e}", parent.display())),
    }
}

/// Checks, before any work, that the directory `out` (`what` names the flag) can be made
/// and written in: a directory, or nothing yet under an existing directory (made with its
/// missing parents), writable. Anything else there is bad usage.
pub(crate) fn check_dir_out(out: &Path, what: &str) -> Result<(), Failure> {
    let bad = |why: &str| Err(Failure::usage(format!("{what} {}: {why}", out.display())));
    let mut existing = out;
    loop {
        match std::fs::metadata(existing) {
            Ok(meta) if meta.is_dir() => return check_writable_dir(existing, what, out),
            Ok(_) if existing == out => return bad("not a directory"),
            Ok(_) => return bad(&format!("{} is not a directory", existing.display())),
            Err(e) if is_missing(&e) => {}
            Err(e) => return bad(&format!("{}: {e}", existing.display())),
        }
        existing = match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
    }
}

/// Whether `e` says a path is not there: missing, or under a file (its parent checked next
/// says which).
fn is_missing(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR)
}

/// Whether this process can create a file in the directory `dir`: tried with a file of its
/// own, removed at once (permissions alone do not say it: a read-only mount, or root).
fn check_writable_dir(dir: &Path, what: &str, out: &Path) -> Result<(), Failure> {
    let probe = dir.join(format!(".transpo-c4-probe-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(Failure::usage(format!(
            "{what} {}: cannot write in {}: {e}",
            out.display(),
            dir.display()
        ))),
    }
}

/// What the commands that solve share, as the command line gives it: the strength, the
/// threads, the table's size and the book.
pub(crate) struct Solving<const W: usize, const H: usize, B: Bitboard> {
    pub(crate) strength: Strength,
    /// The (first) thread count asked for, or all cores.
    pub(crate) threads: usize,
    /// Every thread count asked for (`bench` compares them): `threads` alone unless a list.
    pub(crate) thread_counts: Vec<usize>,
    pub(crate) hash_mib: u64,
    pub(crate) book: Option<Book<W, H, B>>,
    /// The threads' measurement knobs ([`transpo_c4::knobs`]), given to every solver.
    pub(crate) knobs: Knobs,
}

impl<const W: usize, const H: usize, B: Bitboard> Solving<W, H, B> {
    /// The options of `solve`, with the book it names loaded (for every command, so that a
    /// bad `--book` is an error whatever the command), and the threads' measurement knobs
    /// read (a bad one is bad usage whatever the command). A list of thread counts is bad
    /// usage unless `lists` (for `bench`).
    pub(crate) fn new(solve: &SolveArgs, lists: bool) -> Result<Self, Failure> {
        let thread_counts = match &solve.threads {
            Some(ThreadCounts(counts)) if counts.len() > 1 && !lists => {
                return Err(Failure::usage(
                    "--threads takes a list of counts only for bench; this command takes one",
                ));
            }
            Some(ThreadCounts(counts)) => counts.clone(),
            None => vec![std::thread::available_parallelism().map_or(1, |n| n.get())],
        };
        Ok(Solving {
            threads: thread_counts.first().copied().unwrap_or(1),
            thread_counts,
            strength: if solve.weak {
                Strength::Weak
            } else {
                Strength::Strong
            },
            hash_mib: solve.hash_mib.unwrap_or(DEFAULT_HASH_MIB),
            book: solve.book.as_deref().map(load_book).transpose()?,
            knobs: Knobs::from_env()?,
        })
    }

    /// As many solvers as the threads asked for, each on one thread with a table of the size
    /// asked for and the book: for commands whose threads solve different positions.
    pub(crate) fn one_thread_solvers(self) -> Result<Vec<Solver<W, H, B>>, Failure> {
        (0..self.threads)
            .map(|_| {
                let mut solver = Solver::new(self.hash_mib).map_err(table_failure)?;
                self.knobs.apply(&mut solver);
                if let Some(book) = &self.book {
                    solver.set_book(book.clone());
                }
                Ok(solver)
            })
            .collect()
    }

    /// The solver they describe.
    pub(crate) fn solver(self) -> Result<Solver<W, H, B>, Failure> {
        self.solver_on(|table| table)
    }

    /// The solver they describe, on the store `wrap` makes of the table they describe.
    pub(crate) fn solver_on<T: BoundStore<W, H, B>>(
        self,
        wrap: impl FnOnce(BoundTable<W, H, B>) -> T,
    ) -> Result<Solver<W, H, B, T>, Failure> {
        let table = BoundTable::new(self.hash_mib).map_err(table_failure)?;
        let mut solver = Solver::with_table(wrap(table));
        solver.set_threads(self.threads).map_err(table_failure)?;
        self.knobs.apply(&mut solver);
        if let Some(book) = self.book {
            solver.set_book(book);
        }
        Ok(solver)
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

/// The root's name in a split: its move sequence, `-` for the empty board (`from` as
/// [`TreeArgs::root_moves`] gives it).
pub(crate) fn root_name(from: &str) -> &str {
    if from.is_empty() { EMPTY_BOARD } else { from }
}
