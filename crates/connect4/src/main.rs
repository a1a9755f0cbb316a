//! `transpo-c4`: solve Connect Four positions from stdin, benchmark test sets, build books.
//!
//! ```text
//! transpo-c4 [--board WxH] [--weak] [--analyze] [--hash-mib N] [--book FILE]   < lines "moves [expected]"
//! transpo-c4 bench FILE... [--board WxH] [--weak] [--limit N] [--hash-mib N] [--book FILE]
//! transpo-c4 book --depth N --out FILE [--board WxH] [--from MOVES] [--hash-mib N]
//! transpo-c4 serve [--port 8080] [--bind 127.0.0.1] [--max-ms N] [--book FILE] [--threads N]
//! transpo-c4 sample --depth D --count N [--seed S] [--board WxH]   > lines "moves score"
//! transpo-c4 split --depth D --out DIR [--board WxH] [--from MOVES]
//! transpo-c4 solve-list DIR --shard I/N [--threads N] [--hash-mib N]
//! transpo-c4 merge DIR [RESULTS...] [--out BOOK]
//! ```
//!
//! Exit status: 0 when every line was solved (and matched its expected score), 1 when some
//! line was rejected or wrong, 2 on an unusable option, file or I/O error.
//!
//! Files the user names are opened so that they cannot hang or flood the program: a book or
//! a split's list only if it is a regular file (a FIFO or device is refused at once), a test
//! set or results file as a regular file or a pipe but not a device; text is read one line at
//! a time, each at most 4 KiB. Books and lists are replaced atomically; a shard's results
//! file is locked while its `solve-list` runs.

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, IsTerminal, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use transpo_connect4::{
    Strength, bench,
    board::Board,
    book::Book,
    book::Tree,
    cli::{self, Options},
    position::Position,
    solver::Solver,
    split::{self, List, Results, Shard},
    with_board,
};
use transpo_files::{Line, Lines, TEXT_LINE_MAX};

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
    /// 64 (4x4 to 12x4, 9x6, 8x7, 4x15, ...). Columns 10-12 are written a, b, c. Default:
    /// 7x6, or for solve-list and merge the board of the split.
    #[arg(long, global = true)]
    board: Option<Board>,
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
    /// Write the positions with DEPTH stones (one of each mirror pair) to OUT/positions.txt,
    /// for solve-list to solve in shards and merge to unite.
    Split(TreeArgs),
    /// Solve every N-th position of a split, from the I-th, appending the results to
    /// DIR/results-I-of-N.txt (a shard started again goes on where it stopped).
    SolveList {
        /// The directory split wrote.
        dir: PathBuf,
        /// Which shard: I/N, 1 <= I <= N (Slurm: $SLURM_ARRAY_TASK_ID/N).
        #[arg(long, default_value = "1/1")]
        shard: transpo_connect4::split::Shard,
    },
    /// Unite every shard's results: print the root's score and write a book of every
    /// position of the split's tree. Stops, naming it, at a missing or corrupt shard.
    Merge {
        /// The directory split wrote.
        dir: PathBuf,
        /// Results files (default: every DIR/results-*-of-*.txt).
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
    /// up to 4 stones): early positions then take seconds to minutes.
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
    // A split's commands solve the board of its list, whose header is read here.
    let mut list = None;
    let board = match &args.command {
        Some(Command::SolveList { dir, .. } | Command::Merge { dir, .. }) => {
            let path = dir.join(split::LIST_FILE);
            let header = list_header(&path)?;
            let listed =
                split::board_of(&header).map_err(|e| format!("{}: {e}", path.display()))?;
            match args.solve.board {
                Some(asked) if asked != listed => {
                    return Err(format!(
                        "--board {asked}, but {} is a {listed} split",
                        path.display()
                    )
                    .into());
                }
                _ => {
                    list = Some(path);
                    listed
                }
            }
        }
        _ => args.solve.board.unwrap_or(Board::STANDARD),
    };
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
    with_board!(board, run_on(args, list), else Err(format!("no {board} board").into()))
}

/// The first line of the split list at `path` (a regular file; the line at most
/// [`TEXT_LINE_MAX`] bytes), which names its board.
fn list_header(path: &Path) -> Result<String, Box<dyn std::error::Error>> {
    let file = transpo_files::open_regular(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(
        match Lines::new(BufReader::new(file), TEXT_LINE_MAX).next() {
            None => String::new(),
            Some(Err(e)) => return Err(format!("{}: {e}", path.display()).into()),
            Some(Ok(Line { text: Ok(text), .. })) => text,
            Some(Ok(Line {
                number,
                text: Err(bad),
            })) => return Err(format!("{}:{number}: {bad}", path.display()).into()),
        },
    )
}

/// The split list at `path`, whose header [`list_header`] read, for the board `W`×`H`.
fn parse_list<const W: usize, const H: usize>(
    path: Option<PathBuf>,
) -> Result<List<W, H>, Box<dyn std::error::Error>> {
    let path = path.ok_or("no split list was read")?;
    let named = |e: String| format!("{}: {e}", path.display());
    let file = transpo_files::open_regular(&path).map_err(|e| named(e.to_string()))?;
    Ok(List::read(BufReader::new(file)).map_err(named)?)
}

/// Refuses a standard input that is a device other than a terminal or `/dev/null` (such as
/// `/dev/zero`, one endless line): the rule [`transpo_files::open_text`] applies to a file
/// named on the command line.
#[cfg(unix)]
fn check_stdin() -> Result<(), String> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let stdin = std::io::stdin();
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

/// Whether `file` (a regular file) holds exactly `bytes`: it is read only when its length is
/// theirs, and no further.
fn holds(file: &File, bytes: &[u8]) -> std::io::Result<bool> {
    if file.metadata()?.len() != bytes.len() as u64 {
        return Ok(false);
    }
    let mut text = Vec::with_capacity(bytes.len());
    file.take(bytes.len() as u64 + 1).read_to_end(&mut text)?;
    Ok(text == bytes)
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

/// Every command but `serve`, on the board `W`×`H`; `list` is the path of the split list of
/// `solve-list` and `merge`.
fn run_on<const W: usize, const H: usize>(args: Cli, list: Option<PathBuf>) -> Outcome {
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
        // `run` serves before it picks a board, so this is never reached.
        Some(Command::Serve(_)) => return Err("serve runs before a board is picked".into()),
        None => {
            check_stdin()?;
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
                let named = |e: std::io::Error| format!("{}: {e}", path.display());
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
                let bar = progress_bar(total as u64, &name);
                let input = BufReader::new(file);
                let result = bench::run_lines(&mut solver, &name, input, strength, limit, |d| {
                    bar.set_position(d as u64)
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
                results.push(result);
            }
            let kind = match strength {
                Strength::Strong => "strong",
                Strength::Weak => "weak",
            };
            println!(
                "{kind} solve of {W}x{H}, {} thread{}, {} MiB table + {} MiB near table ({} entries){}\n",
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
        Some(Command::Sample { depth, count, seed }) => {
            let mut solver = make_solver(book)?;
            let bar = progress_bar(count as u64, "sample");
            let set = bench::sample::<W, H>(depth, count, seed, |pos| {
                solver.reset();
                bar.inc(1);
                solver.solve(pos, Strength::Strong)
            });
            bar.finish_and_clear();
            for (moves, score) in &set {
                println!("{moves} {score}");
            }
            if set.len() < count {
                eprintln!(
                    "only {} distinct positions with {depth} stones found",
                    set.len()
                );
            }
            true
        }
        Some(Command::Split(TreeArgs { depth, out, from })) => {
            let root = Position::<W, H>::from_moves(&from).map_err(|e| format!("--from: {e}"))?;
            let tree = Tree::new(&root, &from, depth)?;
            let list = List::of(&tree, if from.is_empty() { "-" } else { &from });
            std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            let path = out.join(split::LIST_FILE);
            let named = |e: std::io::Error| format!("{}: {e}", path.display());
            let text = list.to_text();
            match transpo_files::open_regular(&path) {
                // The same split again: the list is already there.
                Ok(file) if holds(&file, text.as_bytes()).map_err(named)? => {}
                Ok(_) => {
                    return Err(format!(
                        "{} holds another split: remove it or choose another --out",
                        path.display()
                    )
                    .into());
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    transpo_files::write_atomic(&path, |file| {
                        let mut writer = std::io::BufWriter::new(file);
                        writer.write_all(text.as_bytes())?;
                        writer.flush()
                    })
                    .map_err(named)?;
                }
                Err(e) => return Err(named(e).into()),
            }
            eprintln!(
                "{}: {} positions of {W}x{H} with {} stones, the leaves of a tree of {}",
                path.display(),
                list.moves.len(),
                list.depth,
                tree.len()
            );
            true
        }
        Some(Command::SolveList { dir, shard }) => {
            let list = parse_list::<W, H>(list)?;
            let mut solver = make_solver(book)?;
            solve_list(
                &mut solver,
                &list,
                shard,
                strength,
                &dir.join(shard.file_name()),
            )?
        }
        Some(Command::Merge { dir, results, out }) => {
            let list = parse_list::<W, H>(list)?;
            let files = if results.is_empty() {
                results_files(&dir)?
            } else {
                results
            };
            let mut shards = Vec::with_capacity(files.len());
            for path in &files {
                let name = path.display().to_string();
                let file = transpo_files::open_text(path).map_err(|e| format!("{name}: {e}"))?;
                let results = Results::read(BufReader::new(file), &list)
                    .map_err(|e| format!("{name}: {e}"))?
                    .ok_or_else(|| {
                        format!(
                            "{name}: no complete header: its shard stopped before it solved \
                             anything; run it again"
                        )
                    })?;
                shards.push((name, results));
            }
            let merged = split::merge(&list, &shards)?;
            let score = merged.score;
            println!("{} {score} {} {}", list.root, merged.nodes, merged.micros);
            if list.root == "-" {
                eprintln!("{}", cli::ending(W * H, merged.strength, score));
            }
            let book = match &merged.book {
                Some(book) => {
                    let out = out.unwrap_or_else(|| dir.join("book.bin"));
                    book.save(&out)
                        .map_err(|e| format!("{}: {e}", out.display()))?;
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
                "{} shards, {} positions, {:.1} s of solving in all; {book}",
                shards.len(),
                list.moves.len(),
                merged.micros as f64 / 1e6,
            );
            true
        }
        Some(Command::Book(TreeArgs { depth, out, from })) => {
            let mut solver = make_solver(book)?;
            let root = Position::<W, H>::from_moves(&from).map_err(|e| format!("--from: {e}"))?;
            let bar = progress_bar(0, "book");
            let solve = |pos: &Position<W, H>| solver.solve(pos, Strength::Strong);
            let book = Book::generate(&root, depth, solve, |done, total| {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            })?;
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

/// `transpo-c4 serve`: serves until SIGINT (Ctrl-C) or SIGTERM, then stops within a few
/// seconds (a second signal: at once).
#[cfg(feature = "serve")]
fn run_server(
    serve: &ServeArgs,
    solve: &SolveArgs,
    threads: usize,
    book: Option<Book>,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    use std::sync::Arc;
    use std::time::Duration;
    use transpo_connect4::pool::SolverPool;
    use transpo_connect4::serve::{Limits, ServeOptions, router, serve as serve_on};
    let mut pool = SolverPool::new(solve.hash_mib, threads)?;
    if let Some(book) = book.or_else(|| (!serve.no_book).then(Book::built_in)) {
        pool.set_book(book);
    }
    let options = ServeOptions {
        max_time: std::time::Duration::from_millis(serve.max_ms),
        fresh_table: serve.fresh_table,
        hash_mib: solve.hash_mib,
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
        .build()?;
    let served = runtime.block_on(async {
        let address = std::net::SocketAddr::new(serve.bind, serve.port);
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| format!("cannot listen on {address}: {e}"))?;
        let local = listener.local_addr()?;
        // Watched before the announcement: a signal sent on seeing it is never missed.
        let stop = transpo_connect4::serve::stop_signal();
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
            let signal = stop.await;
            eprintln!("{signal}: stopping (a second one exits at once)");
        };
        serve_on(listener, router(Arc::new(pool), options), limits, shutdown).await?;
        Ok::<_, Box<dyn std::error::Error>>(ExitCode::SUCCESS)
    });
    // Cancelled solves end within a fraction of a millisecond; never wait on one for long.
    runtime.shutdown_timeout(Duration::from_millis(500));
    served
}

/// Solves the positions of `shard` of `list` that `out` (a results file, made if missing)
/// does not hold yet, appending a line for each as soon as it is solved, in one write. Holds
/// an advisory lock on `out` for the whole run, so that a second run of the shard is refused
/// rather than interleave its lines with this one's. A file without a complete header (empty,
/// or a header cut short by a kill) is started over. Returns `true` once every position of
/// the shard is solved (a run that stops early is an error).
fn solve_list<const W: usize, const H: usize>(
    solver: &mut Solver<W, H>,
    list: &List<W, H>,
    shard: Shard,
    strength: Strength,
    out: &Path,
) -> Result<bool, Box<dyn std::error::Error>> {
    let name = out.display();
    let named = |e: std::io::Error| format!("{name}: {e}");
    let mut file = open_results(out).map_err(named)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(format!("{name}: another solve-list holds it (lock); not started").into());
        }
        // A file system without locks (some NFS setups): go on, as before locks existed.
        Err(std::fs::TryLockError::Error(e)) => eprintln!(
            "{name}: cannot lock it ({e}); going on: make sure no other solve-list runs shard \
             {shard}"
        ),
    }
    let length = file.metadata().map_err(named)?.len();
    let read = Results::read(BufReader::new(&file), list).map_err(|e| format!("{name}: {e}"))?;
    let done: std::collections::HashSet<String> = match read {
        Some(results) => {
            if results.shard != shard {
                return Err(format!("{name} holds shard {}, not {shard}", results.shard).into());
            }
            if results.strength != strength {
                return Err(format!(
                    "{name} holds {:?} results: run with{} --weak",
                    results.strength,
                    if results.strength == Strength::Weak {
                        ""
                    } else {
                        "out"
                    }
                )
                .into());
            }
            if (results.complete_bytes as u64) < length {
                // A shard killed while writing a line: cut the part off and go on.
                file.set_len(results.complete_bytes as u64).map_err(named)?;
                eprintln!("{name}: cut off an unfinished last line");
            }
            results.solved.into_iter().map(|s| s.moves).collect()
        }
        None => {
            // Empty (new), or a header cut short by a kill before its newline: start over.
            if length > 0 {
                eprintln!(
                    "{name}: an unfinished header ({length} bytes, a run stopped as it \
                     started): starting over"
                );
                file.set_len(0).map_err(named)?;
            }
            // One write; the file is opened to append, so it lands at the (new) end.
            file.write_all(Results::header(list, shard, strength).as_bytes())
                .map_err(named)?;
            std::collections::HashSet::new()
        }
    };
    let todo: Vec<&String> = shard
        .select(list.moves.iter().collect())
        .into_iter()
        .filter(|m| !done.contains(*m))
        .collect();
    let bar = progress_bar(todo.len() as u64, &format!("shard {shard}"));
    let started = std::time::Instant::now();
    let mut nodes = 0u64;
    for moves in &todo {
        // Every line of a list that parsed is a position of the board.
        let pos = Position::<W, H>::from_moves(moves).map_err(|e| e.to_string())?;
        let before = solver.nodes();
        let start = std::time::Instant::now();
        let score = solver.solve(&pos, strength);
        let solved = split::Solved {
            moves: moves.to_string(),
            score,
            nodes: solver.nodes().saturating_sub(before),
            micros: u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX),
        };
        nodes = nodes.saturating_add(solved.nodes);
        // The line and its newline in one write on the unbuffered file: a kill leaves at
        // most one partial line, at the end, which the next run cuts off.
        let line = format!("{}\n", solved.line());
        file.write_all(line.as_bytes()).map_err(named)?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    eprintln!(
        "{name}: shard {shard}: {} positions solved now, {} before, {:.1} s, {nodes} positions explored",
        todo.len(),
        done.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(true)
}

/// Opens a shard's results file `path` to read it and append to it, made if missing. Only a
/// regular file is accepted: a symbolic link at `path` is refused (so that results, and the
/// cut a restart may make, never land in another file), and so is a FIFO or device, at once.
fn open_results(path: &Path) -> std::io::Result<File> {
    use std::io::{Error, ErrorKind};
    let mut options = OpenOptions::new();
    options.read(true).append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: a FIFO is not waited on (it is refused below); it changes nothing for
        // a regular file.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return Error::new(
                ErrorKind::InvalidInput,
                "a symbolic link: solve-list writes results only into a file of its own",
            );
        }
        e
    })?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        #[cfg(unix)]
        let what = {
            use std::os::unix::fs::FileTypeExt;
            if kind.is_fifo() {
                "a FIFO (named pipe)"
            } else if kind.is_char_device() || kind.is_block_device() {
                "a device"
            } else if kind.is_socket() {
                "a socket"
            } else {
                "not a regular file"
            }
        };
        #[cfg(not(unix))]
        let what = "not a regular file";
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("{what}: a results file must be a regular file"),
        ));
    }
    Ok(file)
}

/// Every `results-*-of-*.txt` in `dir`, sorted.
fn results_files(dir: &Path) -> Result<Vec<PathBuf>, Box<dyn std::error::Error>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with("results-") && n.contains("-of-") && n.ends_with(".txt")
            })
        })
        .collect();
    files.sort();
    Ok(files)
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
