//! `transpo-c4`: solve Connect Four positions from stdin, benchmark test sets, build books.
//!
//! ```text
//! transpo-c4 [--weak] [--analyze] [--hash-mib N] [--book FILE]   < lines "moves [expected]"
//! transpo-c4 bench FILE... [--weak] [--limit N] [--hash-mib N] [--book FILE]
//! transpo-c4 book --depth N --out FILE [--from MOVES] [--hash-mib N]
//! ```
//!
//! Exit status: 0 when every line was solved (and matched its expected score), 1 when some
//! line was rejected or wrong, 2 on an unusable option, file or I/O error.

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use transpo_connect4::{
    Book, Position, Solver, Strength, bench,
    cli::{self, Options},
};

/// A 7×6 Connect Four strong and weak solver on the transpo table.
#[derive(Parser)]
#[command(name = "transpo-c4", version, about)]
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
    /// Weak solve: 1 win, 0 draw, -1 loss.
    #[arg(long, global = true)]
    weak: bool,
    /// Table size in MiB (8 bytes an entry; rounded down to a power of two of entries, so
    /// that the table can grow without losing entries), plus a fixed 2 MiB table for
    /// positions near the end of the game.
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
    /// Generate an opening book: every position with at most DEPTH stones, solved.
    Book {
        /// The most stones of a position in the book.
        #[arg(long)]
        depth: u32,
        /// Where to write it.
        #[arg(long)]
        out: PathBuf,
        /// Only positions reachable from this move sequence.
        #[arg(long, default_value = "")]
        from: String,
    },
}

fn main() -> ExitCode {
    let args = Cli::parse();
    match run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("transpo-c4: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Cli) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let strength = if args.solve.weak {
        Strength::Weak
    } else {
        Strength::Strong
    };
    let mut solver = Solver::new(args.solve.hash_mib)?;
    let threads = match args.solve.threads {
        Some(n) => usize::from(n),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    solver.set_threads(threads)?;
    if let Some(path) = &args.solve.book {
        let book = Book::load(path).map_err(|e| format!("{}: {e}", path.display()))?;
        solver.set_book(book);
    }
    let ok = match args.command {
        None => {
            // A long solve says how its score search goes, so a user knows it is alive.
            solver.set_progress(Box::new(|step| {
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
            }));
            let options = Options {
                strength,
                analyze: args.analyze,
            };
            let summary = cli::run(
                &mut solver,
                std::io::stdin().lock(),
                std::io::stdout().lock(),
                std::io::stderr(),
                options,
            )?;
            summary.rejected == 0 && summary.wrong == 0
        }
        Some(Command::Bench { files, limit }) => {
            let mut results = Vec::new();
            for path in &files {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let name = bench::set_name(path);
                let total = text.lines().count().min(limit.unwrap_or(usize::MAX));
                let bar = progress_bar(total as u64, &name);
                let result = bench::run_set(&mut solver, &name, &text, strength, limit, |d, _| {
                    bar.set_position(d as u64)
                });
                bar.finish_and_clear();
                for f in &result.failures {
                    eprintln!("{}:{}: {}", path.display(), f.line, f.reason);
                }
                results.push(result);
            }
            let kind = match strength {
                Strength::Strong => "strong",
                Strength::Weak => "weak",
            };
            println!(
                "{kind} solve, {} thread{}, {} MiB table + {} MiB near table ({} entries){}\n",
                solver.threads(),
                if solver.threads() == 1 { "" } else { "s" },
                args.solve.hash_mib,
                transpo_connect4::bounds::NEAR_TABLE_MIB,
                solver.table_capacity(),
                if args.solve.book.is_some() {
                    ", with book"
                } else {
                    ", no book"
                }
            );
            print!("{}", bench::format_table(&results));
            results.iter().all(|r| r.failures.is_empty())
        }
        Some(Command::Book { depth, out, from }) => {
            let root = Position::from_moves(&from).map_err(|e| format!("--from: {e}"))?;
            let bar = progress_bar(0, "book");
            let solve = |pos: &Position| solver.solve(pos, Strength::Strong);
            let book = Book::generate(&root, depth, solve, |done, total| {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            });
            bar.finish_and_clear();
            book.save(&out)
                .map_err(|e| format!("{}: {e}", out.display()))?;
            eprintln!(
                "{}: {} positions up to {} stones",
                out.display(),
                book.len(),
                book.depth()
            );
            true
        }
    };
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
fn progress_bar(len: u64, name: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    let style = ProgressStyle::with_template("{prefix} [{bar:40}] {pos}/{len} {elapsed} eta {eta}")
        // The template is a constant that parses.
        .expect("valid progress template")
        .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(name.to_string());
    bar
}
