//! `transpo-chess`: analyse a position, bench, perft with divide, a perft timing, self-play,
//! tuning data and tuning, and (with no arguments) the UCI loop.
//!
//! A dispatcher (ripgrep's `main → try_main`): clap parses the command line into the
//! argument structs of [`transpo_engine::cli`], which checks every number's range before
//! anything runs and states it in `--help` (a perft depth of a million used to overflow the
//! stack; a million threads or a table of exabytes are refused the same way); each command
//! is one call into the library, where the policy and its tests are. Exit status: see
//! [`cli::EXIT_STATUS`] (0 success, 1 a failed check or a failure while running, 2 bad usage
//! or bad input; `error: ...` on stderr).

use std::io;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use transpo_engine::cli::{self, Failure, games, perft, search, tune};
use transpo_engine::uci;

#[derive(Parser)]
#[command(
    version,
    about = "A chess engine on the transpo table: analyse, bench, perft and (with no arguments) UCI",
    after_help = cli::EXIT_STATUS
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count leaf nodes DEPTH plies deep, per move (like Stockfish's `go perft`).
    Perft(perft::PerftArgs),
    /// Search the 49 bench positions to DEPTH; ends with `N nodes N nps`.
    Bench(search::BenchArgs),
    /// Self-play match between two configurations of the `full` profile (A and B differ by
    /// the features each switches off), each opening played twice with colours swapped.
    Selfplay(games::SelfplayArgs),
    /// Self-play games of the `full` profile for tuning: appends each game's quiet positions
    /// (not in check, a quiet move chosen, no mate score) to OUT as `FEN;R`, R the game's
    /// result for White (1, 0.5 or 0).
    Datagen(games::DatagenArgs),
    /// Texel-tune the tapered evaluation's weights on DATA (`FEN;R` lines from `datagen`),
    /// starting from the compiled-in weights; writes the source of `eval/weights.rs` to OUT.
    Tune(tune::TuneArgs),
    /// Analyse a position: UCI-style info lines, then `bestmove`.
    Analyse(search::AnalyseArgs),
    /// Time perft playing every move: plain cozy-chess, with the key, and through Position.
    BenchPerft(perft::BenchPerftArgs),
}

fn main() -> ExitCode {
    cli::exit_status(try_main(Cli::parse()))
}

/// Runs the command line's command (the UCI loop when there is none).
fn try_main(cli: Cli) -> Result<(), Failure> {
    let Some(command) = cli.command else {
        return uci();
    };
    // Lines a command reports beside its output (a book's rejected lines): to stderr.
    let warn = &mut |line: &str| eprintln!("{line}");
    match command {
        Command::Perft(args) => args.run(&mut io::stdout().lock()),
        Command::Bench(args) => args.run(&mut io::stdout().lock()),
        Command::Analyse(args) => args.run(&mut io::stdout().lock()),
        Command::BenchPerft(args) => args.run(&mut io::stdout().lock()),
        // Its games are printed from the threads that play them: stdout is not locked.
        Command::Selfplay(args) => args.run(&mut io::stdout(), warn),
        Command::Datagen(args) => args.run(&mut io::stdout().lock(), warn),
        Command::Tune(args) => args.run(&mut io::stdout().lock(), warn),
    }
}

/// The UCI loop on stdin and stdout, until `quit` or the end of input. Bad input never ends
/// it (each bad line is answered with `info string error: ...`); only failing to write does.
fn uci() -> Result<(), Failure> {
    uci::run(io::stdin().lock(), io::stdout())
        .map_err(|e| Failure::run(format!("the UCI loop could not go on: {e}")))
}
