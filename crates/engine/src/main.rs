//! `transpo-chess`: analyse a position, bench, perft with divide, a perft timing, and (with no
//! arguments) the UCI loop.
//!
//! Exit status: 0 on success, 1 on an error (an illegal FEN, a table the machine cannot give,
//! an unknown feature, an unreadable file, I/O; the message goes to stderr as
//! `error: ...`), 2 on a malformed command line (clap's message, naming the range).
//!
//! Every numeric argument has a range that clap checks before anything runs, stated in
//! `--help` (a perft depth of a million used to overflow the stack; a million threads or a
//! table of exabytes are refused the same way).

use std::io;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use transpo::{ChessEntry, Table};
use transpo_chess::{Position, perft};
use transpo_engine::search::{Limits, Profile, SearchConfig, Searcher};
use transpo_engine::{bench, selfplay, tune, uci};

#[derive(Parser)]
#[command(
    version,
    about = "A chess engine on the transpo table: analyse, bench, perft and (with no arguments) UCI"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// The games of `selfplay` and `datagen`: which openings, how many nodes, how many at once.
#[derive(Args)]
struct GameArgs {
    /// Number of openings (games = 2 × openings), 1 to 100000.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    openings: u64,
    /// First opening line to use (openings are spread evenly over the file), 0 to 10⁹.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1_000_000_000))]
    offset: u64,
    /// Nodes per move, 1 to 10⁹.
    #[arg(long, default_value_t = 5000, value_parser = nodes_per_move_range())]
    nodes: u64,
    /// Games at once, 1 to 256.
    #[arg(long, default_value_t = 2, value_parser = threads_range())]
    concurrency: u64,
    /// Openings file (EPD or FEN lines).
    #[arg(long, default_value = "../shared/data/chess/openings/8moves_v3.epd")]
    book: String,
}

impl GameArgs {
    /// The openings these arguments choose from the book. The book may be a file or a pipe,
    /// not a device or directory; a line too long or not UTF-8 is reported on stderr as
    /// `BOOK:N: ...` and skipped.
    fn openings(&self) -> Result<Vec<String>, String> {
        let book = &self.book;
        let file =
            transpo_files::open_text(book).map_err(|e| format!("cannot read {book}: {e}"))?;
        let mut rejected = 0usize;
        let lines = selfplay::read_opening_lines(io::BufReader::new(file), book, &mut |why| {
            eprintln!("{why}");
            rejected += 1;
        })?;
        if rejected > 0 {
            eprintln!("{book}: {rejected} lines rejected");
        }
        // In range for usize: clap checked them (at most 10⁹).
        Ok(selfplay::pick_openings(
            &lines,
            self.openings as usize,
            self.offset as usize,
        ))
    }
}

#[derive(Subcommand)]
enum Command {
    /// Count leaf nodes DEPTH plies deep, per move (like Stockfish's `go perft`).
    Perft {
        /// Depth in plies, 0 to 12.
        #[arg(value_parser = clap::value_parser!(u32).range(0..=i64::from(perft::MAX_DEPTH)))]
        depth: u32,
        /// Position as FEN (the start position if absent); may be given unquoted.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        fen: Vec<String>,
    },
    /// Search the 49 bench positions to DEPTH; ends with `N nodes N nps`.
    Bench {
        /// Depth in plies, 1 to 100.
        #[arg(default_value_t = transpo_engine::bench::DEFAULT_DEPTH, value_parser = depth_range())]
        depth: u32,
        /// Table size in MiB, 0 to 65536; 0 searches without a table.
        #[arg(long, default_value_t = 16, value_parser = hash_range())]
        hash: u64,
        /// Search threads, 1 to 256.
        #[arg(long, default_value_t = 1, value_parser = threads_range())]
        threads: u64,
        /// Search profile: full or paper.
        #[arg(long, default_value = "full")]
        profile: Profile,
        /// Features of the profile to switch off, comma-separated (e.g. `lmr,killers`).
        #[arg(long, value_delimiter = ',')]
        without: Vec<String>,
    },
    /// Self-play match between two configurations of the `full` profile (A and B differ by
    /// the features each switches off), each opening played twice with colours swapped.
    Selfplay {
        /// Features A switches off, comma-separated.
        #[arg(long, value_delimiter = ',')]
        a_without: Vec<String>,
        /// Features B switches off, comma-separated.
        #[arg(long, value_delimiter = ',')]
        b_without: Vec<String>,
        #[command(flatten)]
        games: GameArgs,
        /// B's nodes per move, if different, 1 to 10⁹.
        #[arg(long, value_parser = nodes_per_move_range())]
        b_nodes: Option<u64>,
        /// Table size per side in MiB, 0 to 65536.
        #[arg(long, default_value_t = 4, value_parser = hash_range())]
        hash: u64,
        /// Print every game.
        #[arg(long)]
        verbose: bool,
        /// B's table replacement scheme, if not the engine's (keep-deep-8), e.g. depth-age-8.
        #[arg(long)]
        b_scheme: Option<transpo::Scheme>,
    },
    /// Self-play games of the `full` profile for tuning: appends each game's quiet positions
    /// (not in check, a quiet move chosen, no mate score) to OUT as `FEN;R`, R the game's
    /// result for White (1, 0.5 or 0).
    Datagen {
        /// Where to append the positions.
        out: String,
        #[command(flatten)]
        games: GameArgs,
    },
    /// Texel-tune the tapered evaluation's weights on DATA (`FEN;R` lines from `datagen`),
    /// starting from the compiled-in weights; writes the source of `eval/weights.rs` to OUT.
    Tune {
        /// The positions, `FEN;R` lines.
        data: String,
        /// Where to write the weights' source.
        #[arg(long)]
        out: String,
        /// Gradient steps over the whole set, 1 to 100000.
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=100_000))]
        steps: u64,
        /// The first step of the steepest weight, in centipawns (the others in proportion).
        #[arg(long, default_value_t = 2.0)]
        rate: f64,
        /// Weight of the squared distance from the starting weights, added to the error.
        #[arg(long, default_value_t = 1e-7)]
        prior: f64,
    },
    /// Analyse a position: UCI-style info lines, then `bestmove`.
    Analyse {
        /// Search to this depth, 1 to 100 (the default when no limit is given: 14).
        #[arg(long, value_parser = depth_range())]
        depth: Option<u32>,
        /// Search this many milliseconds, 1 to 2⁶³ − 1.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        movetime: Option<u64>,
        /// Search this many nodes, 1 to 2⁶³ − 1.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        nodes: Option<u64>,
        /// Table size in MiB, 0 to 65536; 0 searches without a table.
        #[arg(long, default_value_t = 64, value_parser = hash_range())]
        hash: u64,
        /// Search threads, 1 to 256.
        #[arg(long, default_value_t = 1, value_parser = threads_range())]
        threads: u64,
        /// Search profile: full or paper.
        #[arg(long, default_value = "full")]
        profile: Profile,
        /// Position as FEN (the start position if absent); may be given unquoted.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        fen: Vec<String>,
    },
    /// Time perft playing every move: plain cozy-chess, with the key, and through Position.
    BenchPerft {
        /// Depth in plies, 0 to 12.
        #[arg(default_value_t = 5, value_parser = clap::value_parser!(u32).range(0..=i64::from(perft::MAX_DEPTH)))]
        depth: u32,
        /// Runs of each variant, 1 to 1000; the fastest run counts.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
        repeat: u32,
        /// Position as FEN (the start position if absent).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        fen: Vec<String>,
    },
}

/// Search depths: 1 to the search's maximum.
fn depth_range() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..=i64::from(transpo_engine::search::MAX_DEPTH))
}

/// Table sizes in MiB: 0 to the UCI maximum.
fn hash_range() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(0..=uci::MAX_HASH_MIB)
}

/// Threads: 1 to the UCI maximum.
fn threads_range() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(1..=uci::MAX_THREADS as u64)
}

/// Nodes per self-play move: 1 to 10⁹.
fn nodes_per_move_range() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(1..=1_000_000_000)
}

fn position_from(fen: &[String]) -> Result<Position, String> {
    if fen.is_empty() {
        Ok(Position::startpos())
    } else {
        Position::from_fen(&fen.join(" ")).map_err(|e| e.to_string())
    }
}

fn bench_perft(pos: &mut Position, depth: u32, repeat: u32) {
    fn best(times: &mut Duration, nodes: &mut u64, f: impl FnOnce() -> u64) {
        let start = Instant::now();
        *nodes = f();
        *times = (*times).min(start.elapsed());
    }
    let board = pos.board().clone();
    let key = pos.key();
    let mut plain = (Duration::MAX, 0);
    let mut cozy_hash = (Duration::MAX, 0);
    let mut keyed = (Duration::MAX, 0);
    let mut full = (Duration::MAX, 0);
    // Interleaved, so that load from other processes hits all three alike.
    for _ in 0..repeat.max(1) {
        best(&mut plain.0, &mut plain.1, || {
            perft::perft_plain_make_all(&board, depth)
        });
        best(&mut cozy_hash.0, &mut cozy_hash.1, || {
            perft::perft_plain_hash_make_all(&board, depth)
        });
        best(&mut keyed.0, &mut keyed.1, || {
            perft::perft_keyed_make_all(&board, key, depth)
        });
        best(&mut full.0, &mut full.1, || {
            perft::perft_make_all(pos, depth)
        });
    }
    let mnps = |(time, nodes): (Duration, u64)| nodes as f64 / time.as_secs_f64() / 1e6;
    let cost = |variant: (Duration, u64)| (1.0 - mnps(variant) / mnps(plain)) * 100.0;
    println!(
        "perft {depth} of {}: {} nodes, best of {repeat}",
        pos.fen(),
        plain.1
    );
    println!(
        "plain cozy-chess copy-make:         {:8.2} Mnps  {:?}",
        mnps(plain),
        plain.0
    );
    println!(
        "copy-make, reading cozy's own hash: {:8.2} Mnps  {:?}  costs {:5.1}%",
        mnps(cozy_hash),
        cozy_hash.0,
        cost(cozy_hash)
    );
    println!(
        "copy-make + incremental key:        {:8.2} Mnps  {:?}  key costs {:5.1}%",
        mnps(keyed),
        keyed.0,
        cost(keyed)
    );
    println!(
        "Position play/undo (key + history): {:8.2} Mnps  {:?}  costs {:5.1}%",
        mnps(full),
        full.0,
        cost(full)
    );
}

/// The errors a subcommand reports: a message, printed as `error: <message>`.
type Error = Box<dyn std::error::Error>;

/// Exit status 0 on success, 1 on an error `run` reports (an illegal FEN, a table the
/// machine cannot give, an unknown feature name, an unreadable openings file, I/O); clap
/// answers a malformed command line itself, with status 2.
fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the command line's subcommand (the UCI loop when there is none).
fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        None => uci::run(io::stdin().lock(), io::stdout())?,
        Some(Command::Perft { depth, fen }) => {
            let mut pos = position_from(&fen)?;
            uci::write_divide(&mut pos, depth, &mut io::stdout().lock())?;
        }
        Some(Command::Bench {
            depth,
            hash,
            threads,
            profile,
            without,
        }) => {
            let mut config = SearchConfig {
                // In range: clap checked 1..=MAX_THREADS.
                threads: threads as usize,
                ..SearchConfig::with_profile(profile)
            };
            switch_off(&mut config, &without)?;
            let table = table_of(hash, profile)?;
            bench::run(depth, config, table.as_ref(), &mut io::stdout().lock())?;
        }
        Some(Command::Analyse {
            depth,
            movetime,
            nodes,
            hash,
            threads,
            profile,
            fen,
        }) => {
            let mut pos = position_from(&fen)?;
            let table = table_of(hash, profile)?;
            let mut limits = Limits {
                depth,
                nodes,
                movetime: movetime.map(Duration::from_millis),
                ..Limits::default()
            };
            if depth.is_none() && nodes.is_none() && movetime.is_none() {
                limits.depth = Some(14);
            }
            let config = SearchConfig {
                // In range: clap checked 1..=MAX_THREADS.
                threads: threads as usize,
                move_overhead: Duration::ZERO,
                ..SearchConfig::with_profile(profile)
            };
            let result =
                Searcher::new(config).search(&mut pos, &limits, table.as_ref(), &mut |info| {
                    println!("{info}");
                });
            match result.best_move_uci() {
                Some(best) => println!("bestmove {best}"),
                None => println!("bestmove 0000"),
            }
        }
        Some(Command::Selfplay {
            a_without,
            b_without,
            games,
            b_nodes,
            hash,
            verbose,
            b_scheme,
        }) => {
            let mut a = SearchConfig::default();
            let mut b = SearchConfig::default();
            switch_off(&mut a, &a_without)?;
            switch_off(&mut b, &b_without)?;
            let openings = games.openings()?;
            let nodes = games.nodes;
            let m = selfplay::Match {
                nodes,
                b_nodes,
                // In range for usize: clap checked it (at most 256).
                concurrency: games.concurrency as usize,
                hash_mib: hash,
                schemes: (
                    transpo_engine::search::ENGINE_SCHEME,
                    b_scheme.unwrap_or(transpo_engine::search::ENGINE_SCHEME),
                ),
                ..selfplay::Match::new(a, b, openings)
            };
            println!(
                "A without {a_without:?} vs B without {b_without:?}: {} games, {nodes} nodes/move (B {})",
                m.openings.len() * 2,
                b_nodes.unwrap_or(nodes)
            );
            run_match(&m, verbose);
        }
        Some(Command::Datagen { out, games }) => datagen(&out, &games)?,
        Some(Command::Tune {
            data,
            out,
            steps,
            rate,
            prior,
        }) => tune_weights(&data, &out, (steps, rate, prior))?,
        Some(Command::BenchPerft { depth, repeat, fen }) => {
            bench_perft(&mut position_from(&fen)?, depth, repeat);
        }
    }
    Ok(())
}

/// `datagen`: self-play games whose quiet positions are appended to `out` with the results.
///
/// Each game's lines go out in one write to a file opened for appending, so that lines stay
/// whole when two runs append to one file; should an earlier run have been cut off in the
/// middle of a line, a newline ends that line first, so the new lines stay readable. `out`
/// may be a pipe (a FIFO waits for its reader, as with a shell's `>`).
fn datagen(out: &str, games: &GameArgs) -> Result<(), String> {
    use std::io::Write as _;
    let openings = games.openings()?;
    let config = SearchConfig::default();
    let m = selfplay::Match {
        nodes: games.nodes,
        // In range for usize: clap checked it (at most 256).
        concurrency: games.concurrency as usize,
        record_positions: true,
        ..selfplay::Match::new(config, config, openings)
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(|e| format!("cannot open {out}: {e}"))?;
    if ends_mid_line(out).map_err(|e| format!("cannot read {out}: {e}"))? {
        file.write_all(b"\n")
            .map_err(|e| format!("cannot write {out}: {e}"))?;
    }
    let mut written = 0usize;
    let mut failure = None;
    let start = Instant::now();
    selfplay::play_match(&m, &mut |game| {
        if failure.is_some() {
            // After a failed write (a full disk) nothing more is written: a later write
            // could land after a partial line.
            return;
        }
        let result = match game.outcome {
            selfplay::Outcome::WhiteWins => "1",
            selfplay::Outcome::Draw => "0.5",
            selfplay::Outcome::BlackWins => "0",
        };
        let lines: String = game
            .quiet_positions
            .iter()
            .map(|fen| format!("{fen};{result}\n"))
            .collect();
        match file.write_all(lines.as_bytes()) {
            Ok(()) => written += game.quiet_positions.len(),
            Err(e) => failure = Some(format!("cannot write {out}: {e}")),
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    println!(
        "{written} positions from {} games appended to {out} in {:.0}s",
        m.openings.len() * 2,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Whether `path` is a regular file whose last byte is not a newline (a line cut off by a
/// run that died mid-write). Anything else (a pipe, an empty file) is `false`.
fn ends_mid_line(path: &str) -> io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = match transpo_files::open_regular(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::InvalidInput => return Ok(false),
        Err(e) => return Err(e),
    };
    if file.metadata()?.len() == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0];
    file.read_exact(&mut last)?;
    Ok(last != *b"\n")
}

/// `tune`: fits the weights to `data` and writes their source to `out`.
fn tune_weights(
    data: &str,
    out: &str,
    (steps, rate, prior): (u64, f64, f64),
) -> Result<(), String> {
    if !(rate.is_finite() && rate > 0.0) {
        return Err(format!("the rate must be a positive number, not {rate}"));
    }
    if !(prior.is_finite() && prior >= 0.0) {
        return Err(format!(
            "the prior must be a number at least 0, not {prior}"
        ));
    }
    // Checked before the fit, which may take minutes: the weights file is replaced by a
    // rename, which must not land on a directory, a FIFO or a device (`/dev/null`).
    transpo_files::check_replaceable(out).map_err(|e| {
        format!("cannot write {out}: {e}; the weights go to a regular file or a new name")
    })?;
    let file = transpo_files::open_text(data).map_err(|e| format!("cannot read {data}: {e}"))?;
    let (set, bad) = tune::Dataset::read(io::BufReader::new(file), data, &mut |why| {
        eprintln!("{why}");
    })?;
    if set.is_empty() {
        return Err(format!("{data} holds no `FEN;R` line"));
    }
    println!("{} positions ({bad} lines skipped)", set.len());
    let fit = tune::tune(
        &set,
        &tune::current_weights(),
        (steps as usize, rate, prior),
        &mut |step, error| println!("step {step}: training error {error:.6}"),
    );
    println!(
        "K {:.6}; error before {:.6} (held out {:.6}), after {:.6} (held out {:.6})",
        fit.k, fit.before.0, fit.before.1, fit.after.0, fit.after.1
    );
    if !fit.is_finite() {
        return Err(format!(
            "the fit diverged to non-finite weights or errors (NaN or infinity): --rate \
             {rate:?} is too large; {out} is left as it was"
        ));
    }
    let provenance = format!(
        "Fitted to {} positions of {data} ({steps} steps at rate {rate}, prior {prior}): K = {:.6}, mean squared
error {:.6} -> {:.6}, on the held-out tenth {:.6} -> {:.6}.",
        set.len(),
        fit.k,
        fit.before.0,
        fit.after.0,
        fit.before.1,
        fit.after.1
    );
    let source = tune::weights_source(&fit.weights, &provenance);
    // Replaced whole: until the new file is complete and synced, `out` keeps its contents.
    transpo_files::write_atomic(out, |file: &std::fs::File| {
        let mut writer = io::BufWriter::new(file);
        io::Write::write_all(&mut writer, source.as_bytes())?;
        io::Write::flush(&mut writer)
    })
    .map_err(|e: io::Error| format!("cannot write {out}: {e}"))?;
    println!("weights written to {out}");
    Ok(())
}

/// Switches off the features named in `without` (an unknown name is an error).
fn switch_off(config: &mut SearchConfig, without: &[String]) -> Result<(), String> {
    without
        .iter()
        .try_for_each(|name| config.features.set(name, false))
}

/// Plays a self-play match, printing every game when `verbose`, then the result.
fn run_match(m: &selfplay::Match, verbose: bool) {
    let start = Instant::now();
    let mut tally = selfplay::MatchResult::default();
    let result = selfplay::play_match(m, &mut |game| {
        match game.a_points() {
            1.0 => tally.wins += 1,
            0.0 => tally.losses += 1,
            _ => tally.draws += 1,
        }
        if verbose {
            println!(
                "game {} opening {} A {}: {:?} by {} after {} plies; {tally}",
                tally.games(),
                game.opening,
                if game.a_white { "white" } else { "black" },
                game.outcome,
                game.reason,
                game.plies
            );
        }
    });
    println!("{result} in {:.0?}", start.elapsed());
}

/// The table for a Hash size in MiB and the profile's scheme: none for 0.
fn table_of(mib: u64, profile: Profile) -> Result<Option<Table<ChessEntry>>, transpo::Error> {
    match mib {
        0 => Ok(None),
        mib => transpo_engine::search::engine_table(mib, profile.scheme()).map(Some),
    }
}
