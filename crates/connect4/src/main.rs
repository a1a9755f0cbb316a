//! `transpo-c4`: solve Connect Four positions from stdin, benchmark test sets, build books.
//!
//! ```text
//! transpo-c4 [--board WxH] [--weak] [--analyze] [--hash-mib N] [--book FILE]   < lines "moves [expected]"
//! transpo-c4 bench FILE... [--board WxH] [--weak] [--limit N] [--hash-mib N] [--book FILE]
//! transpo-c4 book --depth N --out FILE [--board WxH] [--from MOVES] [--hash-mib N] [--threads N]
//! transpo-c4 serve [--port 8080] [--bind 127.0.0.1] [--max-ms N] [--book FILE] [--threads N]
//! transpo-c4 sample --depth D --count N [--seed S] [--board WxH]   > lines "moves score"
//! transpo-c4 split --depth D --out DIR [--board WxH] [--from MOVES] [--weak | --full-book]
//! transpo-c4 solve-list DIR --shard I/N [--threads N] [--hash-mib N]
//! transpo-c4 merge DIR [RESULTS...] [--out BOOK]
//! ```
//!
//! This file only dispatches (as ripgrep's `main → try_main`): clap parses the command line,
//! [`try_main`] picks the board, and each command is one function that wires the library to
//! stdin, stdout and stderr. What a command decides — the line protocol ([`cli`]), a test
//! set's run ([`bench`](mod@bench)), a shard's resume policy and a merge ([`split`]), the
//! progress bar ([`progress`]) — lives in the library, where unit tests reach it.
//!
//! Exit status ([`exit`], stated in `--help`): 0 success; 1 a failed check (a line rejected
//! or scored other than expected) or a failure while running (I/O, memory); 2 bad usage or
//! bad input (an unreadable or malformed file included); 3 only for `merge` when another
//! round is needed (its list written, or a shard of this round lacking). Errors go to stderr
//! as `error: …`.
//!
//! Files the user names are opened so that they cannot hang or flood the program: a book or
//! a split's list only if it is a regular file (a FIFO or device is refused at once), a test
//! set or results file as a regular file or a pipe but not a device; text is read one line at
//! a time, each at most 4 KiB. Books and lists are replaced atomically; a shard's results
//! file is locked while its `solve-list` runs.

use clap::{Args, Parser, Subcommand};
use std::io::{self, BufReader, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use transpo_connect4::position::Bitboard;
use transpo_connect4::{
    BookError, Strength, bench,
    board::Board,
    book::{Book, Tree},
    cli::{self, Options},
    exit::{self, Failure},
    position::Position,
    progress,
    search::Step,
    solver::Solver,
    split::{self, Outcome, Results, ResultsFile, Round, Shard, Split},
    with_board,
};
use transpo_files::{Lines, TEXT_LINE_MAX};

/// A Connect Four strong and weak solver on the transpo table, for the 7×6 board and any
/// other whose W·(H + 1) bits fit in 64.
#[derive(Parser)]
#[command(name = "transpo-c4", version, about, after_help = exit::EXIT_STATUS)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    solve: SolveArgs,
    /// Print the score of every column (`-` for a full one) instead of the position's.
    #[arg(long)]
    analyze: bool,
}

#[derive(Args, Clone)]
struct SolveArgs {
    /// The board, WIDTHxHEIGHT: width and height at least 4, width x (height + 1) at most
    /// 64 (4x4 to 12x4, 9x6, 8x7, 4x15, ...), or one of the wide boards 6x10, 7x9, 8x8, 9x7,
    /// 10x6, 11x5, 9x8, 9x9, 13x4, 4x16. Columns 1-9 are written as digits, then letters:
    /// a is column 10, b 11, c 12, d 13. Default: 7x6, or for solve-list and merge the
    /// board of the split.
    #[arg(long, global = true)]
    board: Option<Board>,
    /// Weak solve: 1 win, 0 draw, -1 loss.
    #[arg(long, global = true)]
    weak: bool,
    /// Table size in MiB (8 bytes an entry, 16 on a wide board; rounded down to a power of
    /// two of entries, so that the table can grow without losing entries), plus a fixed
    /// 2 MiB table (4 MiB on a wide board) for positions near the end of the game.
    #[arg(long, default_value_t = 128, global = true)]
    hash_mib: u64,
    /// An opening book made by `transpo-c4 book`.
    #[arg(long, global = true)]
    book: Option<PathBuf>,
    /// Threads that solve each position together on the one table (1 to 256; default: all
    /// cores). Scores do not depend on it.
    #[arg(long, global = true, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
}

#[derive(Subcommand)]
enum Command {
    /// Solve every line of test sets (`moves score`) and print a table like Pons'.
    Bench {
        /// Test-set files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Solve only the first N lines of each file.
        #[arg(long)]
        limit: Option<usize>,
    },
    /// Generate an opening book: every position with at most DEPTH stones, solved. The
    /// positions with DEPTH stones are solved in OUT.work by --threads solvers at once (one
    /// thread and a --hash-mib table each); stopped, the same command goes on from there.
    Book(TreeArgs),
    /// Print a test set like Pons': COUNT distinct positions with DEPTH stones from random
    /// play (no move wins or hands the opponent a win at once), each with its strong score,
    /// as `moves score` lines, for `bench` on any board.
    Sample {
        /// Stones of the positions.
        #[arg(long)]
        depth: u32,
        /// Positions (fewer if random play keeps finding the same ones).
        #[arg(long)]
        count: usize,
        /// The seed of the random play: the same seed, the same set.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Write the split (the positions with DEPTH stones, one of each mirror pair) to
    /// OUT/positions.txt, and round 1's list, the positions the root needs searched first, to
    /// OUT/round-1.txt, for solve-list to search in shards and merge to unite, round after
    /// round. --weak proves only the root's outcome.
    Split {
        #[command(flatten)]
        tree: TreeArgs,
        /// Solve every leaf exactly, in one round, for a book of the whole tree (instead of
        /// only what the root needs).
        #[arg(long, conflicts_with = "weak")]
        full_book: bool,
    },
    /// Search the I-th of N shares of the split's current round (neighbouring positions
    /// together), each with its window, appending the results to
    /// DIR/round-K-results-I-of-N.txt (a shard started again goes on where it stopped).
    SolveList {
        /// The directory split wrote.
        dir: PathBuf,
        /// Which shard: I/N, 1 <= I <= N (Slurm: $SLURM_ARRAY_TASK_ID/N).
        #[arg(long, default_value = "1/1")]
        shard: transpo_connect4::split::Shard,
    },
    /// Unite every round's results: print the root's score and write a book of the positions
    /// they proved, or write the next round's list and exit 3. Stops, naming it, at a missing
    /// or corrupt shard.
    Merge {
        /// The directory split wrote.
        dir: PathBuf,
        /// Results files (default: every DIR/round-*-results-*-of-*.txt).
        results: Vec<PathBuf>,
        /// Where to write the book (default DIR/book.bin).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Serve a page to play and analyse positions in a browser, and a JSON API
    /// (`/api/solve?pos=4453`); --threads solves run at once on the one table.
    #[cfg(feature = "serve")]
    Serve(ServeArgs),
}

/// The positions of `book` and `split`: a tree below a root, down to some number of stones.
#[derive(Args)]
struct TreeArgs {
    /// The most stones of a position in the tree: `book` solves those with DEPTH stones and
    /// takes the others by minimax, `split` lists them.
    #[arg(long)]
    depth: u32,
    /// Where to write it: the book's file, or the split's directory (made if missing).
    #[arg(long)]
    out: PathBuf,
    /// Only positions reachable from this move sequence, instead of the empty board.
    #[arg(long, default_value = "")]
    from: String,
}

#[cfg(feature = "serve")]
#[derive(Args)]
struct ServeArgs {
    /// The TCP port (0: any free port; the address is printed on stderr).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on (0.0.0.0 for every interface).
    #[arg(long, default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
    /// Answer 503 to a request not solved within this many milliseconds.
    #[arg(long, default_value_t = 60_000, value_parser = clap::value_parser!(u64).range(1..))]
    max_ms: u64,
    /// Solve every request as on an empty table, for measuring real solves (slower: the
    /// table then saves nothing between requests).
    #[arg(long)]
    fresh_table: bool,
    /// Without --book, serve with no book at all rather than the built-in one (every position
    /// up to 8 stones): early positions then take seconds to minutes.
    #[arg(long, conflicts_with = "book")]
    no_book: bool,
    /// Close a connection whose request head (request line and headers) is not complete
    /// this many milliseconds after it opened, or after the head's first byte on a kept-alive
    /// connection.
    #[arg(long, default_value_t = transpo_connect4::serve::DEFAULT_HEADER_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout_ms: u64,
    /// Close a kept-alive connection after this many milliseconds with no request in flight
    /// (a request being solved is never cut: --max-ms bounds it).
    #[arg(long, default_value_t = transpo_connect4::serve::DEFAULT_IDLE_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..))]
    idle_timeout_ms: u64,
    /// The most connections open at once (lowered to fit `ulimit -n` if need be). At the
    /// cap, a new connection closes the one waiting longest with no request in flight, or is
    /// closed at once if every one has a request in flight.
    #[arg(long, default_value_t = transpo_connect4::serve::DEFAULT_MAX_CONNECTIONS as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_connections: u64,
}

fn main() -> ExitCode {
    exit::exit_status(try_main(Cli::parse()))
}

/// Picks the board and runs the command on the board compiled for it.
fn try_main(args: Cli) -> Result<(), Failure> {
    let board = board(&args)?;
    with_board!(
        board,
        run_on(args),
        else Err(Failure::usage(format!("no {board} board")))
    )
}

/// The board to solve: `--board` (7×6 by default), or for `solve-list` and `merge` the board
/// their split's list names, which a `--board` must not contradict.
fn board(args: &Cli) -> Result<Board, Failure> {
    let Some(Command::SolveList { dir, .. } | Command::Merge { dir, .. }) = &args.command else {
        return Ok(args.solve.board.unwrap_or(Board::STANDARD));
    };
    let path = dir.join(split::LIST_FILE);
    let listed = split::list_board(&path)?;
    match args.solve.board {
        Some(asked) if asked != listed => Err(Failure::usage(format!(
            "--board {asked}, but {} is a {listed} split",
            path.display()
        ))),
        _ => Ok(listed),
    }
}

/// Every command, on the board `W`×`H`.
fn run_on<const W: usize, const H: usize, B: Bitboard>(args: Cli) -> Result<(), Failure> {
    let solving = Solving::<W, H, B>::new(&args.solve)?;
    match args.command {
        None => solve_lines(solving, args.analyze),
        Some(Command::Bench { files, limit }) => bench_sets(solving, &files, limit),
        Some(Command::Sample { depth, count, seed }) => sample(solving, depth, count, seed),
        Some(Command::Split { tree, full_book }) => split_tree(solving, &tree, full_book),
        Some(Command::SolveList { dir, shard }) => solve_list(solving, &dir, shard),
        Some(Command::Merge { dir, results, out }) => merge::<W, H, B>(&dir, results, out),
        Some(Command::Book(tree)) => book(solving, &tree),
        #[cfg(feature = "serve")]
        Some(Command::Serve(serve)) => {
            let hash_mib = solving.hash_mib;
            serve_http(&serve, hash_mib, serve_pool(solving, &serve)?)
        }
    }
}

/// What the commands that solve share, as the command line gives it: the strength, the
/// threads, the table's size and the book.
struct Solving<const W: usize, const H: usize, B: Bitboard> {
    strength: Strength,
    threads: usize,
    hash_mib: u64,
    book: Option<Book<W, H, B>>,
}

impl<const W: usize, const H: usize, B: Bitboard> Solving<W, H, B> {
    /// The options of `solve`, with the book it names loaded (for every command, so that a
    /// bad `--book` is an error whatever the command).
    fn new(solve: &SolveArgs) -> Result<Self, Failure> {
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
    fn one_thread_solvers(self) -> Result<Vec<Solver<W, H, B>>, Failure> {
        (0..self.threads)
            .map(|_| {
                let mut solver = Solver::new(self.hash_mib)?;
                if let Some(book) = &self.book {
                    solver.set_book(book.clone());
                }
                Ok(solver)
            })
            .collect()
    }

    /// The solver they describe.
    fn solver(self) -> Result<Solver<W, H, B>, Failure> {
        let mut solver = Solver::new(self.hash_mib)?;
        solver.set_threads(self.threads)?;
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
fn load_book<const W: usize, const H: usize, B: Bitboard>(
    path: &Path,
) -> Result<Book<W, H, B>, Failure> {
    Book::load(path).map_err(|e| Failure::usage(format!("{}: {e}", path.display())))
}

/// Saves `book` to `path` (replacing it atomically).
fn save_book<const W: usize, const H: usize, B: Bitboard>(
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

/// `transpo-c4` with no command: the line protocol ([`cli::run`]) from stdin to stdout,
/// bad lines and a long solve's progress on stderr.
fn solve_lines<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    analyze: bool,
) -> Result<(), Failure> {
    check_stdin().map_err(Failure::usage)?;
    let options = Options {
        strength: solving.strength,
        analyze,
    };
    let mut solver = solving.solver()?;
    // A long solve says how its score search goes, so a user knows it is alive.
    solver.set_progress(Box::new(report_step));
    let summary = cli::run(
        &mut solver,
        io::stdin().lock(),
        io::stdout().lock(),
        io::stderr(),
        options,
    )
    .map_err(|e| Failure::run(format!("standard input or output: {e}")))?;
    summary
        .failed_check()
        .map_or(Ok(()), |e| Err(Failure::run(e)))
}

/// Tells stderr of a step of a long solve's score search: a window still searched, or one
/// answered after the first second.
fn report_step(step: &Step) {
    let (what, seconds) = (step.window, step.elapsed.as_secs_f64());
    if !step.answered {
        eprintln!(
            "  window {what:+}: searching, score in {}..={}, {seconds:.1} s, {} positions",
            step.min, step.max, step.nodes
        );
    } else if step.elapsed >= std::time::Duration::from_secs(1) {
        eprintln!(
            "  window {what:+}: score in {}..={}, {seconds:.1} s, {} positions",
            step.min, step.max, step.nodes
        );
    }
}

/// Refuses a standard input that is a device other than a terminal or `/dev/null` (such as
/// `/dev/zero`, one endless line): the rule [`transpo_files::open_text`] applies to a file
/// named on the command line.
#[cfg(unix)]
fn check_stdin() -> Result<(), String> {
    use std::fs::File;
    use std::io::IsTerminal;
    use std::os::fd::AsFd;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let stdin = io::stdin();
    // A closed standard input reads as empty; nothing to refuse.
    let Ok(fd) = stdin.as_fd().try_clone_to_owned() else {
        return Ok(());
    };
    let Ok(metadata) = File::from(fd).metadata() else {
        return Ok(());
    };
    let kind = metadata.file_type();
    if !(kind.is_char_device() || kind.is_block_device()) || stdin.is_terminal() {
        return Ok(());
    }
    let null = std::fs::metadata("/dev/null")
        .is_ok_and(|null| null.file_type().is_char_device() && null.rdev() == metadata.rdev());
    if null {
        return Ok(());
    }
    Err("standard input is a device, not a text file or a pipe: give lines of moves".into())
}

/// Standard input can be anything but a device on Unix; elsewhere it is taken as it is.
#[cfg(not(unix))]
fn check_stdin() -> Result<(), String> {
    Ok(())
}

/// `transpo-c4 bench`: every test set solved ([`bench::run_lines`]), bad lines named on
/// stderr, the table on stdout; a failed check if some line failed.
fn bench_sets<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    files: &[PathBuf],
    limit: Option<usize>,
) -> Result<(), Failure> {
    let (strength, hash_mib) = (solving.strength, solving.hash_mib);
    let with_book = solving.book.is_some();
    let mut solver = solving.solver()?;
    let mut results = Vec::new();
    for path in files {
        results.push(bench_set(&mut solver, path, strength, limit)?);
    }
    let kind = match strength {
        Strength::Strong => "strong",
        Strength::Weak => "weak",
    };
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "{kind} solve of {W}x{H}, {} thread{}, {hash_mib} MiB table + {} MiB near table ({} entries){}\n",
        solver.threads(),
        if solver.threads() == 1 { "" } else { "s" },
        transpo_connect4::bounds::BoundTable::<W, H, B>::NEAR_MIB,
        solver.table_capacity(),
        if with_book {
            ", with book"
        } else {
            ", no book"
        }
    )?;
    write!(out, "{}", bench::format_table(&results))?;
    out.flush()?;
    let failed: usize = results.iter().map(|r| r.failed).sum();
    match failed {
        0 => Ok(()),
        1 => Err(Failure::run("1 line of the test sets failed")),
        n => Err(Failure::run(format!("{n} lines of the test sets failed"))),
    }
}

/// One test set of `bench`, with its progress bar; its bad lines named on stderr. A file
/// that cannot be read is bad input.
fn bench_set<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver<W, H, B>,
    path: &Path,
    strength: Strength,
    limit: Option<usize>,
) -> Result<bench::SetResult, Failure> {
    let named = |e: io::Error| Failure::usage(format!("{}: {e}", path.display()));
    let mut file = transpo_files::open_text(path).map_err(named)?;
    let name = bench::set_name(path);
    // A regular file is counted first, for the progress bar; a pipe cannot be.
    let total = if file.metadata().map_err(named)?.is_file() {
        let lines = Lines::new(BufReader::new(&file), TEXT_LINE_MAX).count();
        file.rewind().map_err(named)?;
        lines.min(limit.unwrap_or(usize::MAX))
    } else {
        limit.unwrap_or(0)
    };
    let bar = progress::bar(total as u64, &name);
    let input = BufReader::new(file);
    let result = bench::run_lines(solver, &name, input, strength, limit, |done| {
        bar.set_position(done as u64)
    })
    .map_err(named)?;
    bar.finish_and_clear();
    for f in &result.failures {
        eprintln!("{}:{}: {}", path.display(), f.line, f.reason);
    }
    if result.failed > result.failures.len() {
        eprintln!(
            "{}: {} more failing lines not shown",
            path.display(),
            result.failed - result.failures.len()
        );
    }
    Ok(result)
}

/// `transpo-c4 sample`: a test set of `count` positions with `depth` stones from random play
/// ([`bench::sample`]), each with its strong score, on stdout.
fn sample<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    depth: u32,
    count: usize,
    seed: u64,
) -> Result<(), Failure> {
    let mut solver = solving.solver()?;
    let bar = progress::bar(count as u64, "sample");
    let set = bench::sample::<W, H, B>(depth, count, seed, |pos| {
        solver.reset();
        bar.inc(1);
        solver.solve(pos, Strength::Strong)
    });
    bar.finish_and_clear();
    let mut out = io::stdout().lock();
    for (moves, score) in &set {
        writeln!(out, "{moves} {score}")?;
    }
    out.flush()?;
    if set.len() < count {
        eprintln!(
            "only {} distinct positions with {depth} stones found",
            set.len()
        );
    }
    Ok(())
}

/// `transpo-c4 split`: the leaves of the tree below `--from` down to `--depth` stones,
/// written as the split ([`Split::write_in`]), and round 1's list: what the root's plan asks
/// first ([`split::Plan`]), or with `--full-book` every leaf.
fn split_tree<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    tree: &TreeArgs,
    full_book: bool,
) -> Result<(), Failure> {
    let TreeArgs { depth, out, from } = tree;
    let root = Position::<W, H, B>::from_moves(from)
        .map_err(|e| Failure::usage(format!("--from: {e}")))?;
    let tree = Tree::new(&root, from, *depth).map_err(Failure::usage)?;
    let split = Split::of(&tree, root_name(from), solving.strength, full_book);
    let tree_len = tree.len();
    let round = if full_book {
        split.full_round()
    } else {
        // Nothing known yet: the first merge's plan, from no results.
        match split::merge(&split, tree, &[], &[])?.outcome {
            Outcome::Next(round) => round,
            Outcome::Solved { .. } => split.round(1, Vec::new()),
        }
    };
    let path = split.write_in(out)?;
    let round_path = round.write_in(out)?;
    eprintln!(
        "{}: {} positions of {W}x{H} with {} stones, the leaves of a tree of {}",
        path.display(),
        split.moves.len(),
        split.depth,
        tree_len
    );
    eprintln!(
        "{}: round 1: {} positions to search",
        round_path.display(),
        round.moves.len()
    );
    Ok(())
}

/// `transpo-c4 solve-list`: the positions of `shard` of the split's current round in `dir`
/// that its results file lacks, searched and appended ([`ResultsFile`],
/// [`split::solve_shard`]).
fn solve_list<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    dir: &Path,
    shard: Shard,
) -> Result<(), Failure> {
    let split = Split::<W, H, B>::load(dir)?;
    if solving.strength == Strength::Weak && split.strength == Strength::Strong {
        return Err(Failure::usage(format!(
            "--weak, but {} is a strong split: its strength is set by split",
            dir.display()
        )));
    }
    let number = split::current_round(dir)?;
    let round = Round::load(dir, number, &split)?;
    let mut solver = solving.solver()?;
    // The table goes on from the shard's last round: the whole of it in use, to be saved.
    solver.table_mut().use_whole_table();
    let table = dir.join(split::table_file(shard));
    match split::load_table(&mut solver, &table, split.checksum()) {
        Ok(true) => eprintln!("{}: the table of an earlier round loaded", table.display()),
        Ok(false) => {}
        Err(e) => eprintln!(
            "{}: not loaded ({e}); starting on an empty table",
            table.display()
        ),
    }
    let path = dir.join(shard.file_name(number));
    let mut results = ResultsFile::open(&path, &round, shard, split.strength)?;
    for note in results.notes() {
        eprintln!("{note}");
    }
    let bar = progress::bar(
        results.todo(&round).len() as u64,
        &format!("round {number}, shard {shard}"),
    );
    let run = split::solve_shard(&mut solver, &round, &mut results, || bar.inc(1))?;
    bar.finish_and_clear();
    if run.solved_now > 0
        && let Err(e) = split::save_table(&solver, &table, split.checksum())
    {
        // Only a later round's speed depends on it: the results are saved.
        eprintln!("{}: table not saved ({e})", table.display());
    }
    eprintln!(
        "{}: round {number}, shard {shard}: {} positions searched now, {} before, {:.1} s, {} \
         positions explored",
        path.display(),
        run.solved_now,
        run.solved_before,
        run.elapsed.as_secs_f64(),
        run.nodes
    );
    Ok(())
}

/// `transpo-c4 merge`: every round's results united ([`split::merge`]): the root's line on
/// stdout and the book of what the rounds proved (strong splits), or the next round's list
/// written and exit status 3 ([`Failure::NextRound`]). A shard of the current round missing
/// or unfinished is more work too ([`Failure::Unfinished`]).
fn merge<const W: usize, const H: usize, B: Bitboard>(
    dir: &Path,
    results: Vec<PathBuf>,
    out: Option<PathBuf>,
) -> Result<(), Failure> {
    let split = Split::<W, H, B>::load(dir)?;
    let current = split::current_round(dir)?;
    let rounds = (1..=current)
        .map(|number| Round::load(dir, number, &split))
        .collect::<Result<Vec<_>, _>>()?;
    let files = if results.is_empty() {
        split::results_files(dir)?
    } else {
        results
    };
    let shards = read_results(&files, &rounds)?;
    let tree = split.tree().map_err(Failure::usage)?;
    let merged = split::merge(&split, tree, &rounds, &shards)?;
    let book = match merged.outcome {
        Outcome::Next(round) => {
            let path = round.write_in(dir)?;
            return Err(Failure::NextRound(format!(
                "round {}: {} positions to search ({}); {} positions searched in {current} \
                 rounds so far",
                round.number,
                round.moves.len(),
                path.display(),
                merged.searched
            )));
        }
        Outcome::Solved { score, book } => {
            remove_tables(dir);
            let mut stdout = io::stdout().lock();
            writeln!(
                stdout,
                "{} {score} {} {}",
                split.root, merged.nodes, merged.micros
            )?;
            stdout.flush()?;
            if split.root == "-" {
                eprintln!("{}", cli::ending(W * H, split.strength, score));
            }
            book
        }
    };
    let book = match &book {
        Some(book) => {
            let out = out.unwrap_or_else(|| dir.join("book.bin"));
            save_book(book, &out)?;
            format!(
                "{}: {} positions up to {} stones",
                out.display(),
                book.len(),
                book.depth()
            )
        }
        None => "weak results: no book".to_string(),
    };
    eprintln!(
        "{current} rounds, {} positions searched, {} positions explored, {:.1} s of solving in \
         all; {book}",
        merged.searched,
        merged.nodes,
        merged.micros as f64 / 1e6,
    );
    Ok(())
}

/// The results files at `paths`, each read against `rounds` and named by its path. A file
/// without a complete header is unfinished work ([`Failure::Unfinished`]); one that cannot be
/// read, or is malformed or another split's, is bad input.
fn read_results<const W: usize, const H: usize, B: Bitboard>(
    paths: &[PathBuf],
    rounds: &[Round<W, H, B>],
) -> Result<Vec<(String, Results)>, Failure> {
    let mut shards = Vec::with_capacity(paths.len());
    for path in paths {
        let name = path.display().to_string();
        let file =
            transpo_files::open_text(path).map_err(|e| Failure::usage(format!("{name}: {e}")))?;
        let results = Results::read_of_rounds(BufReader::new(file), rounds)
            .map_err(|e| Failure::usage(format!("{name}: {e}")))?
            .ok_or_else(|| {
                Failure::unfinished(format!(
                    "{name}: no complete header: its shard stopped before it searched \
                     anything; run it again"
                ))
            })?;
        shards.push((name, results));
    }
    Ok(shards)
}

/// Removes the shards' table files of a solved split (`table-I-of-N.bin`, each as big as
/// `--hash-mib`), which only later rounds would have read; says what it removed.
fn remove_tables(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut removed = 0;
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let is_table = name
            .to_str()
            .is_some_and(|n| n.starts_with("table-") && n.contains("-of-") && n.ends_with(".bin"));
        if is_table && entry.file_type().is_ok_and(|t| t.is_file()) {
            removed += usize::from(std::fs::remove_file(entry.path()).is_ok());
        }
    }
    if removed > 0 {
        eprintln!("{}: {removed} shard table files removed", dir.display());
    }
}

/// `transpo-c4 book`: every position below `--from` down to `--depth` stones, solved,
/// written to `--out`. The deepest positions are solved as the one round of a `split
/// --full-book` in the directory `OUT.work` ([`work_dir`]), by `--threads` solvers at once,
/// each on one thread and a table of `--hash-mib` of its own, taking the positions in runs
/// of neighbours ([`split::solve_shard_with`]). A `book` stopped at any moment and run again
/// goes on from what that directory holds; once the book is written, the directory is
/// removed.
fn book<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    tree: &TreeArgs,
) -> Result<(), Failure> {
    let TreeArgs { depth, out, from } = tree;
    if solving.strength == Strength::Weak {
        return Err(Failure::usage(
            "a book holds exact scores: book takes no --weak",
        ));
    }
    let root = Position::<W, H, B>::from_moves(from)
        .map_err(|e| Failure::usage(format!("--from: {e}")))?;
    let tree = Tree::new(&root, from, *depth).map_err(Failure::usage)?;
    let split = Split::of(&tree, root_name(from), Strength::Strong, true);
    let work = work_dir(out);
    let round = split.full_round();
    let files = [split.write_in(&work)?, round.write_in(&work)?];
    let shard = Shard { index: 1, count: 1 };
    let path = work.join(shard.file_name(round.number));
    let mut results = ResultsFile::open(&path, &round, shard, Strength::Strong)?;
    for note in results.notes() {
        eprintln!("{note}");
    }
    let mut solvers = solving.one_thread_solvers()?;
    let bar = progress::bar(results.todo(&round).len() as u64, "book");
    let run = split::solve_shard_with(&mut solvers, &round, &mut results, BOOK_RUN, || bar.inc(1))?;
    bar.finish_and_clear();
    drop(results);
    let rounds = [round];
    let shards = read_results(std::slice::from_ref(&path), &rounds)?;
    let merged = split::merge(&split, tree, &rounds, &shards)?;
    let Outcome::Solved {
        book: Some(book), ..
    } = merged.outcome
    else {
        return Err(Failure::run(format!(
            "{}: the positions are solved but give no book",
            work.display()
        )));
    };
    save_book(&book, out)?;
    for file in files.iter().chain([&path]) {
        let _ = std::fs::remove_file(file);
    }
    // Only if empty: a directory that held something else is left as it is.
    let _ = std::fs::remove_dir(&work);
    eprintln!(
        "{}: {} positions up to {} stones; {} positions with {} stones solved, {} by this \
         run in {:.1} s ({} thread{}), {:.1} s of solving in all",
        out.display(),
        book.len(),
        book.depth(),
        split.moves.len(),
        split.depth,
        run.solved_now,
        run.elapsed.as_secs_f64(),
        solvers.len(),
        if solvers.len() == 1 { "" } else { "s" },
        merged.micros as f64 / 1e6,
    );
    Ok(())
}

/// Positions a solver of `book` takes at a time: neighbours in the list's order, which share
/// most of their subtrees. At 32, the last run of two solvers ends within a second of the
/// other's on the 7×6 positions with 8 stones.
const BOOK_RUN: usize = 32;

/// Where `book --out OUT` keeps its work: the directory `OUT.work`.
fn work_dir(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".work");
    PathBuf::from(name)
}

/// The root's name in a split: its move sequence, `-` for the empty board.
fn root_name(from: &str) -> &str {
    if from.is_empty() { "-" } else { from }
}

/// The pool `transpo-c4 serve` answers from, on the board `W`×`H`: `--book`, or the built-in
/// book on 7×6 unless `--no-book`.
#[cfg(feature = "serve")]
fn serve_pool<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    serve: &ServeArgs,
) -> Result<std::sync::Arc<dyn transpo_connect4::pool::BoardPool>, Failure> {
    use transpo_connect4::pool::SolverPool;
    let mut pool = SolverPool::<W, H, B>::new(solving.hash_mib, solving.threads)?;
    let book = solving.book;
    if let Some(book) = book.or_else(|| (!serve.no_book).then(Book::bundled).flatten()) {
        pool.set_book(book);
    }
    Ok(std::sync::Arc::new(pool))
}

/// `transpo-c4 serve` on `pool` (a table of `hash_mib` MiB): serves until SIGINT (Ctrl-C) or
/// SIGTERM, then stops within a few seconds (a second signal: at once). An address that
/// cannot be listened on is bad usage.
#[cfg(feature = "serve")]
fn serve_http(
    serve: &ServeArgs,
    hash_mib: u64,
    pool: std::sync::Arc<dyn transpo_connect4::pool::BoardPool>,
) -> Result<(), Failure> {
    use std::time::Duration;
    use transpo_connect4::serve::{Limits, ServeOptions, router, serve as serve_on};
    let board = pool.board();
    let threads = pool.workers();
    let options = ServeOptions {
        max_time: Duration::from_millis(serve.max_ms),
        fresh_table: serve.fresh_table,
        hash_mib,
    };
    let (max_connections, fitted) = transpo_connect4::serve::fit_open_file_limit(
        usize::try_from(serve.max_connections).unwrap_or(usize::MAX),
    );
    if let Some(fitted) = fitted {
        eprintln!("{fitted}");
    }
    let limits = Limits {
        header_timeout: Duration::from_millis(serve.header_timeout_ms),
        idle_timeout: Duration::from_millis(serve.idle_timeout_ms),
        max_connections,
        ..Limits::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::run(format!("cannot start the server: {e}")))?;
    let served = runtime.block_on(async {
        let address = std::net::SocketAddr::new(serve.bind, serve.port);
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| Failure::usage(format!("cannot listen on {address}: {e}")))?;
        let local = listener
            .local_addr()
            .map_err(|e| Failure::run(format!("the server's address: {e}")))?;
        // Watched before the announcement: a signal sent on seeing it is never missed.
        let stop = transpo_connect4::serve::stop_signal();
        eprintln!(
            "listening on http://{local}/ ({board}, {threads} solver{}, {} MiB table{}; Ctrl-C \
             stops)",
            if threads == 1 { "" } else { "s" },
            hash_mib,
            pool.book_size().map_or_else(
                || ", no book".to_string(),
                |(positions, _)| format!(", book of {positions} positions")
            )
        );
        let shutdown = async {
            let signal = stop.await;
            eprintln!("{signal}: stopping (a second one exits at once)");
        };
        serve_on(listener, router(pool, options), limits, shutdown)
            .await
            .map_err(|e| Failure::run(format!("serving: {e}")))
    });
    // Cancelled solves end within a fraction of a millisecond; never wait on one for long.
    runtime.shutdown_timeout(Duration::from_millis(500));
    served
}
