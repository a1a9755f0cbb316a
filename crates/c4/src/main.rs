//! `transpo-c4`: solve Connect Four positions from stdin, benchmark test sets, build books.
//!
//! ```text
//! transpo-c4 [--board WxH] [--weak] [--analyze] [--hash-mib N] [--book FILE]   < lines "moves [expected]"
//! transpo-c4 bench FILE... [--board WxH] [--weak] [--limit N] [--hash-mib N] [--book FILE]
//! transpo-c4 book --depth N --out FILE [--board WxH] [--from MOVES] [--hash-mib N] [--threads N]
//! transpo-c4 serve [--port 8080] [--bind 127.0.0.1] [--max-ms N] [--weak] [--book FILE] [--threads N]
//! transpo-c4 sample --depth D --count N [--seed S] [--board WxH] [--hash-mib N] [--book FILE] [--threads N]   > lines "moves score"
//! transpo-c4 estimate [--board WxH] [--weak] [--cores N] [--seconds S] [--samples N] [--max-empty E] [--seed S] [--hash-mib N]
//! transpo-c4 split --depth D --out DIR [--board WxH] [--from MOVES] [--weak | --full-book]
//! transpo-c4 solve-list DIR --shard I/N [--threads N] [--hash-mib N]
//! transpo-c4 merge DIR [RESULTS...] [--out BOOK] [--certificate CERT] [--weak]
//! transpo-c4 certify --depth D --out CERT [--board WxH] [--from MOVES] [--weak] [--threads N] [--hash-mib N]
//! transpo-c4 verify CERT [--shard I/N | --merge] [--threads N] [--hash-mib N]
//! mpirun -np N transpo-c4 [--board WxH] [--weak] [--analyze] [--threads T] [--hash-mib M] [--state FILE]   (feature `mpi`)
//! ```
//!
//! A global flag that a command does not honour is refused (exit status 2), never ignored:
//! [`Command::honours`] lists what each honours.
//!
//! This file only dispatches (as ripgrep's `main → try_main`): clap parses the command line,
//! [`try_main`] picks the board, and each command is one module of [`commands`] that wires
//! the libraries to stdin, stdout and stderr. What a command decides — the line protocol and
//! a test set's run (`transpo_connect4::protocol`, `bench`), a shard's resume policy and a
//! merge (`transpo_c4::split`) — lives in the libraries, where unit tests reach it.
//!
//! Exit status (`transpo_cli::failure`, stated in `--help`): 0 success; 1 a failed check (a line rejected
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

mod commands;

use clap::{Parser, Subcommand};
use commands::{Flag, SolveArgs, Solving, TreeArgs, bench, book, estimate, sample, solve, split};
use std::process::ExitCode;
use transpo_cli::{EXIT_STATUS, Failure, exit_status};
use transpo_connect4::board::Board;
use transpo_connect4::position::Bitboard;
use transpo_connect4::with_board;

/// A Connect Four strong and weak solver on the transpo table, for the 7×6 board, any other
/// whose W·(H + 1) bits fit in 64, and the wide boards up to 128 bits.
#[derive(Parser)]
#[command(name = "transpo-c4", version, about, after_help = EXIT_STATUS)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    solve: SolveArgs,
    /// Print the score of every column (`-` for a full one) instead of the position's (only
    /// with no command).
    #[arg(long, global = true)]
    analyze: bool,
    /// Under mpirun (feature `mpi`): the manager's state file, written every few seconds;
    /// the same command run again goes on from it.
    #[cfg(feature = "mpi")]
    #[arg(long)]
    state: Option<std::path::PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Solve every line of test sets (`moves score`) and print a table like Pons'.
    Bench(bench::Args),
    /// Generate an opening book: every position with at most DEPTH stones, solved. The
    /// positions with DEPTH stones are solved in OUT.work by --threads solvers at once (one
    /// thread and a --hash-mib table each); stopped, the same command goes on from there.
    Book(TreeArgs),
    /// Print a test set like Pons': COUNT distinct positions with DEPTH stones from random
    /// play (no move wins or hands the opponent a win at once), each with its strong score,
    /// as `moves score` lines, for `bench` on any board.
    Sample(sample::Args),
    /// Estimate the positions and hours of a solve of the empty board, from solves of random
    /// positions with more and more empty squares, extrapolated; within --seconds.
    Estimate(estimate::Args),
    /// Write the split (the positions with DEPTH stones, one of each mirror pair) to
    /// OUT/positions.txt, and round 1's list, the positions the root needs searched first, to
    /// OUT/round-1.txt, for solve-list to search in shards and merge to unite, round after
    /// round. --weak proves only the root's outcome.
    Split(split::SplitArgs),
    /// Search the I-th of N shares of the split's current round (neighbouring positions
    /// together), each with its window, appending the results to
    /// DIR/round-K-results-I-of-N.txt (a shard started again goes on where it stopped).
    SolveList(split::SolveListArgs),
    /// Unite every round's results: print the root's score and write a book of the positions
    /// they proved, or write the next round's list and exit 3. Stops, naming it, at a missing
    /// or corrupt shard.
    Merge(split::MergeArgs),
    /// Solve the tree below --from down to --depth stones in rounds, as split, solve-list
    /// and merge would, in this process, and write its certificate to OUT/certificate.txt:
    /// the top of the proof tree and its leaves, each with its window and bound, for verify.
    Certify(TreeArgs),
    /// Check a certificate: its tree by the rules of the game alone, its leaves re-solved
    /// each on a fresh table (all of them, or with --shard one share, whose verdict
    /// DIR/verify-I-of-N.txt --merge unites). Exit status 1 names each failure.
    Verify(commands::certificate::VerifyArgs),
    /// Serve a page to play and analyse positions in a browser, and a JSON API
    /// (`/api/solve?pos=4453`); --threads solves run at once on the one table.
    #[cfg(feature = "serve")]
    Serve(commands::serve::ServeArgs),
}

fn main() -> ExitCode {
    // Under an MPI launcher, MPI starts first, so that a rank that refuses its command line
    // ends the whole job instead of leaving the others waiting (`commands::mpi::main`).
    #[cfg(feature = "mpi")]
    if commands::mpi::launched() {
        return commands::mpi::main(|| match Cli::try_parse() {
            Ok(cli) => try_main(cli),
            Err(e) if !e.use_stderr() => {
                // --help and --version: printed, and nothing else to do.
                print!("{e}");
                Ok(())
            }
            Err(e) => Err(Failure::usage(
                e.render()
                    .to_string()
                    .trim_start_matches("error: ")
                    .trim_end(),
            )),
        });
    }
    exit_status(try_main(Cli::parse()))
}

impl Command {
    /// The command's name and the global flags it honours besides `--board` (the table is
    /// in the crate README): any other is refused ([`commands::refuse_unhonoured`]).
    fn honours(&self) -> (&'static str, &'static [Flag]) {
        use Flag::{Book, HashMib, Threads, Weak};
        match self {
            Command::Bench(_) => ("bench", &[Weak, HashMib, Book, Threads]),
            Command::Book(_) => ("book", &[HashMib, Book, Threads]),
            Command::Sample(_) => ("sample", &[HashMib, Book, Threads]),
            Command::Estimate(_) => ("estimate", &[Weak, HashMib]),
            Command::Split(_) => ("split", &[Weak]),
            Command::SolveList(_) => ("solve-list", &[Weak, HashMib, Book, Threads]),
            Command::Merge(_) => ("merge", &[Weak]),
            Command::Certify(_) => ("certify", &[Weak, HashMib, Threads]),
            Command::Verify(_) => ("verify", &[HashMib, Threads]),
            #[cfg(feature = "serve")]
            Command::Serve(_) => ("serve", &[Weak, HashMib, Book, Threads]),
        }
    }
}

/// Picks the board and runs the command on the board compiled for it.
fn try_main(args: Cli) -> Result<(), Failure> {
    #[cfg(feature = "mpi")]
    check_mpi(&args)?;
    if let Some(command) = &args.command {
        let (name, honoured) = command.honours();
        commands::refuse_unhonoured(name, honoured, &args.solve, args.analyze)?;
    }
    let board = board(&args)?;
    with_board!(
        board,
        run_on(args),
        else Err(Failure::usage(format!("no {board} board")))
    )
}

/// Refuses what MPI does not run: a command other than the plain solve under an MPI
/// launcher, and `--state` without one.
#[cfg(feature = "mpi")]
fn check_mpi(args: &Cli) -> Result<(), Failure> {
    let launched = commands::mpi::launched();
    if launched && args.command.is_some() {
        return Err(Failure::usage(
            "under mpirun or srun only the plain solve runs (lines on stdin): run other \
             commands without it",
        ));
    }
    if !launched && let Some(state) = &args.state {
        return Err(Failure::usage(format!(
            "--state {}: a state file is for a solve under mpirun or srun",
            state.display()
        )));
    }
    Ok(())
}

/// The board to solve: `--board` (7×6 by default), or for `solve-list` and `merge` the board
/// their split's list names, which a `--board` must not contradict.
fn board(args: &Cli) -> Result<Board, Failure> {
    let dir = match &args.command {
        Some(Command::Verify(verify)) => {
            let listed = transpo_c4::certificate::Certificate::board_in(&verify.dir)
                .map_err(|e| Failure::usage(e.to_string()))?;
            return match args.solve.board {
                Some(asked) if asked != listed => Err(Failure::usage(format!(
                    "--board {asked}, but {} holds a {listed} certificate",
                    verify.dir.display()
                ))),
                _ => Ok(listed),
            };
        }
        Some(Command::SolveList(list)) => &list.dir,
        Some(Command::Merge(merge)) => &merge.dir,
        _ => return Ok(args.solve.board.unwrap_or(Board::STANDARD)),
    };
    let path = dir.join(transpo_c4::split::LIST_FILE);
    let listed = transpo_c4::split::list_board(&path)?;
    match args.solve.board {
        Some(asked) if asked != listed => Err(Failure::usage(format!(
            "--board {asked}, but {} is a {listed} split",
            path.display()
        ))),
        _ => Ok(listed),
    }
}

/// Every command, on the board `W`×`H`: one function a command.
fn run_on<const W: usize, const H: usize, B: Bitboard>(args: Cli) -> Result<(), Failure> {
    let bench = matches!(args.command, Some(Command::Bench(_)));
    let solving = Solving::<W, H, B>::new(&args.solve, bench)?;
    match args.command {
        #[cfg(feature = "mpi")]
        None if commands::mpi::launched() => commands::mpi::run(
            solving,
            args.solve.book.as_deref(),
            args.analyze,
            args.state,
        ),
        None => solve::run(solving, args.analyze),
        Some(Command::Bench(bench)) => bench::run(solving, &bench.files, bench.limit),
        Some(Command::Sample(s)) => sample::run(solving, s.depth, s.count, s.seed),
        Some(Command::Estimate(e)) => estimate::run(solving, &e),
        Some(Command::Split(s)) => split::split_tree(solving, &s.tree, s.full_book),
        Some(Command::SolveList(list)) => split::solve_list(solving, &list.dir, list.shard),
        Some(Command::Merge(m)) => split::merge::<W, H, B>(solving.strength, m),
        Some(Command::Certify(tree)) => commands::certificate::certify(solving, &tree),
        Some(Command::Verify(v)) => commands::certificate::verify(solving, &v),
        Some(Command::Book(tree)) => book::run(solving, &tree),
        #[cfg(feature = "serve")]
        Some(Command::Serve(serve)) => {
            let (hash_mib, strength) = (solving.hash_mib, solving.strength);
            let pool = commands::serve::pool(solving, &serve)?;
            commands::serve::run(&serve, hash_mib, strength, pool)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
