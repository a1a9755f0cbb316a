//! `transpo-c4`: solve Connect Four positions from stdin, benchmark test sets, build books.
//!
//! ```text
//! transpo-c4 [--board WxH] [--weak] [--analyze] [--hash-mib N] [--book FILE]   < lines "moves [expected]"
//! transpo-c4 bench FILE... [--board WxH] [--weak] [--limit N] [--hash-mib N] [--book FILE]
//! transpo-c4 book --depth N --out FILE [--board WxH] [--from MOVES] [--hash-mib N]
//! transpo-c4 serve [--port 8080] [--bind 127.0.0.1] [--max-ms N] [--book FILE] [--threads N]
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
    Strength, bench,
    board::Board,
    book::Book,
    cli::{self, Options},
    position::Position,
    solver::Solver,
    with_board,
};

/// A Connect Four strong and weak solver on the transpo table, for the 7×6 board and any
/// other whose W·(H + 1) bits fit in 64.
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
    /// The board, WIDTHxHEIGHT: width and height at least 4, width x (height + 1) at most
    /// 64 (4x4 to 12x4, 9x6, 8x7, 4x15, ...). Columns 10-12 are written a, b, c.
    #[arg(long, global = true, default_value = "7x6")]
    board: Board,
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
    /// Serve a page to play and analyse positions in a browser, and a JSON API
    /// (`/api/solve?pos=4453`); --threads solves run at once on the one table.
    #[cfg(feature = "serve")]
    Serve(ServeArgs),
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
    /// up to 4 stones): early positions then take seconds to minutes.
    #[arg(long, conflicts_with = "book")]
    no_book: bool,
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

/// What a command's run gives back: its exit status, or the error that stopped it.
type Outcome = Result<ExitCode, Box<dyn std::error::Error>>;

fn run(args: Cli) -> Outcome {
    let board = args.solve.board;
    #[cfg(feature = "serve")]
    if let Some(Command::Serve(serve)) = &args.command {
        if board != Board::STANDARD {
            return Err(format!("serve knows the 7x6 board only, not {board}").into());
        }
        let book = match &args.solve.book {
            Some(path) => Some(load_book(path)?),
            None => None,
        };
        return run_server(serve, &args.solve, threads(&args.solve), book);
    }
    with_board!(board, run_on(args), else Err(format!("no {board} board").into()))
}

/// The threads asked for, or all cores.
fn threads(solve: &SolveArgs) -> usize {
    match solve.threads {
        Some(n) => usize::from(n),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// The book at `path`, for the board `W`×`H`.
fn load_book<const W: usize, const H: usize>(
    path: &std::path::Path,
) -> Result<Book<W, H>, Box<dyn std::error::Error>> {
    Ok(Book::load(path).map_err(|e| format!("{}: {e}", path.display()))?)
}

/// Every command but `serve`, on the board `W`×`H`.
fn run_on<const W: usize, const H: usize>(args: Cli) -> Outcome {
    let strength = if args.solve.weak {
        Strength::Weak
    } else {
        Strength::Strong
    };
    let threads = threads(&args.solve);
    let book = match &args.solve.book {
        Some(path) => Some(load_book::<W, H>(path)?),
        None => None,
    };
    let make_solver =
        |book: Option<Book<W, H>>| -> Result<Solver<W, H>, Box<dyn std::error::Error>> {
            let mut solver = Solver::new(args.solve.hash_mib)?;
            solver.set_threads(threads)?;
            if let Some(book) = book {
                solver.set_book(book);
            }
            Ok(solver)
        };
    let ok = match args.command {
        #[cfg(feature = "serve")]
        Some(Command::Serve(_)) => unreachable!("run serves before it picks a board"),
        None => {
            let mut solver = make_solver(book)?;
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
            let mut solver = make_solver(book)?;
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
                "{kind} solve of {}, {} thread{}, {} MiB table + {} MiB near table ({} entries){}\n",
                args.solve.board,
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
            let mut solver = make_solver(book)?;
            let root = Position::<W, H>::from_moves(&from).map_err(|e| format!("--from: {e}"))?;
            let bar = progress_bar(0, "book");
            let solve = |pos: &Position<W, H>| solver.solve(pos, Strength::Strong);
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

/// `transpo-c4 serve`: serves until interrupted (Ctrl-C), then lets running requests finish.
#[cfg(feature = "serve")]
fn run_server(
    serve: &ServeArgs,
    solve: &SolveArgs,
    threads: usize,
    book: Option<Book>,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    use std::sync::Arc;
    use transpo_connect4::pool::SolverPool;
    use transpo_connect4::serve::{ServeOptions, router, serve as serve_on};
    let mut pool = SolverPool::new(solve.hash_mib, threads)?;
    if let Some(book) = book.or_else(|| (!serve.no_book).then(Book::built_in)) {
        pool.set_book(book);
    }
    let options = ServeOptions {
        max_time: std::time::Duration::from_millis(serve.max_ms),
        fresh_table: serve.fresh_table,
        hash_mib: solve.hash_mib,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let address = std::net::SocketAddr::new(serve.bind, serve.port);
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| format!("cannot listen on {address}: {e}"))?;
        let local = listener.local_addr()?;
        eprintln!(
            "listening on http://{local}/ ({threads} solver{}, {} MiB table{}; Ctrl-C stops)",
            if threads == 1 { "" } else { "s" },
            solve.hash_mib,
            pool.book().map_or_else(
                || ", no book".to_string(),
                |b| format!(", book of {} positions", b.len())
            )
        );
        let shutdown = async {
            // Without a Ctrl-C handler the server runs until killed, which is fine too.
            let _ = tokio::signal::ctrl_c().await;
            eprintln!("stopping: letting running requests finish");
        };
        serve_on(listener, router(Arc::new(pool), options), shutdown).await?;
        Ok::<_, Box<dyn std::error::Error>>(ExitCode::SUCCESS)
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
