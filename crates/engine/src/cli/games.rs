//! `selfplay` (a match between two feature sets of the `full` profile) and `datagen`
//! (self-play games whose quiet positions become tuning data): the openings they read,
//! the lines they print and the file `datagen` appends to.

use std::io::{self, Write};
use std::time::Instant;

use clap::Args;

use super::{Failure, switch_off, threads_range};
use crate::search::{ENGINE_SCHEME, SearchConfig};
use crate::selfplay::{self, DEFAULT_OPENINGS, Game, Match, MatchResult, Outcome};

/// Most MiB of tables a match may take: two tables per game played at once, `--hash` MiB
/// each (the engine's largest single table, [`crate::uci::MAX_HASH_MIB`]).
pub const MAX_MATCH_TABLES_MIB: u64 = crate::uci::MAX_HASH_MIB;

/// A match's table size per side in MiB: 1 to half [`MAX_MATCH_TABLES_MIB`].
fn match_hash_range() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(1..=MAX_MATCH_TABLES_MIB / 2)
}

/// Nodes per self-play move: 1 to 10⁹.
fn nodes_per_move_range() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(1..=1_000_000_000)
}

/// The games of `selfplay` and `datagen`: which openings, how many nodes, how many at once.
#[derive(Args, Clone, Debug)]
pub struct GameArgs {
    /// Number of openings (games = 2 × openings), 1 to 100000.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub openings: u64,
    /// First opening line to use (openings are spread evenly over the file), 0 to 10⁹.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1_000_000_000))]
    pub offset: u64,
    /// Nodes per move, 1 to 10⁹.
    #[arg(long, default_value_t = 5000, value_parser = nodes_per_move_range())]
    pub nodes: u64,
    /// Games at once, 1 to 256.
    #[arg(long, default_value_t = 2, value_parser = threads_range())]
    pub concurrency: u64,
    /// Openings file (EPD or FEN lines).
    #[arg(long, default_value = DEFAULT_OPENINGS)]
    pub book: String,
}

impl GameArgs {
    /// The openings these arguments choose from the book, each one to play. The book may be
    /// a file or a pipe, not a device or directory; a line too long or not UTF-8, a chosen
    /// line that is no legal position and one whose game is already over (mate, stalemate)
    /// are each reported to `warn` as `BOOK:N: ...` and skipped, then their number as `BOOK:
    /// N lines rejected`. A book that cannot be read, or holds too much, is bad input.
    pub fn openings(&self, warn: &mut dyn FnMut(&str)) -> Result<Vec<String>, Failure> {
        let book = &self.book;
        let file = transpo_files::open_text(book)
            .map_err(|e| Failure::usage(format!("cannot read {book}: {e}")))?;
        let mut rejected = 0usize;
        let mut reject = |why: String| {
            warn(&why);
            rejected += 1;
        };
        let lines = selfplay::read_opening_lines(io::BufReader::new(file), book, &mut reject)
            .map_err(Failure::usage)?;
        // In range for usize: clap checked them (at most 10⁹).
        let chosen = (self.openings as usize, self.offset as usize);
        let openings = selfplay::playable_openings(&lines, book, chosen, &mut reject);
        if rejected > 0 {
            warn(&format!("{book}: {rejected} lines rejected"));
        }
        if openings.is_empty() {
            return Err(Failure::usage(format!(
                "{book}: no playable opening among the lines chosen"
            )));
        }
        Ok(openings)
    }

    /// The match of these games between `a` and `b` on `openings`, with the defaults of
    /// [`Match::new`] for the rest.
    fn game_match(&self, a: SearchConfig, b: SearchConfig, openings: Vec<String>) -> Match {
        Match {
            nodes: self.nodes,
            // In range for usize: clap checked it (at most 256).
            concurrency: self.concurrency as usize,
            ..Match::new(a, b, openings)
        }
    }
}

/// The arguments of `selfplay`.
#[derive(Args, Clone, Debug)]
pub struct SelfplayArgs {
    /// Features A switches off, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub a_without: Vec<String>,
    /// Features B switches off, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub b_without: Vec<String>,
    /// The games.
    #[command(flatten)]
    pub games: GameArgs,
    /// B's nodes per move, if different, 1 to 10⁹.
    #[arg(long, value_parser = nodes_per_move_range())]
    pub b_nodes: Option<u64>,
    /// Table size per side in MiB, 1 to 32768; 2 × hash × concurrency at most 65536.
    #[arg(long, default_value_t = 4, value_parser = match_hash_range())]
    pub hash: u64,
    /// Print every game.
    #[arg(long)]
    pub verbose: bool,
    /// B's table replacement scheme, if not the engine's (keep-deep-8), e.g. depth-age-8.
    #[arg(long)]
    pub b_scheme: Option<transpo::scheme::Scheme>,
}

impl SelfplayArgs {
    /// The match these arguments describe, on `openings`; an unknown feature, or tables
    /// (2 × hash × concurrency MiB) over [`MAX_MATCH_TABLES_MIB`], is bad usage.
    pub fn game_match(&self, openings: Vec<String>) -> Result<Match, Failure> {
        let tables = 2 * self.hash * self.games.concurrency;
        if tables > MAX_MATCH_TABLES_MIB {
            return Err(Failure::usage(format!(
                "the match's tables would take {tables} MiB (2 × --hash {} × --concurrency {}); \
                 at most {MAX_MATCH_TABLES_MIB}",
                self.hash, self.games.concurrency
            )));
        }
        let mut a = SearchConfig::default();
        let mut b = SearchConfig::default();
        switch_off(&mut a, &self.a_without)?;
        switch_off(&mut b, &self.b_without)?;
        Ok(Match {
            b_nodes: self.b_nodes,
            hash_mib: self.hash,
            schemes: (ENGINE_SCHEME, self.b_scheme.unwrap_or(ENGINE_SCHEME)),
            ..self.games.game_match(a, b, openings)
        })
    }

    /// Plays the match: a header line, every game when `verbose`, then the result, to
    /// `out`; the book's rejected lines go to `warn`.
    pub fn run(
        &self,
        out: &mut (impl Write + Send),
        warn: &mut dyn FnMut(&str),
    ) -> Result<(), Failure> {
        // The features are checked before the book is read, as they always were.
        let mut m = self.game_match(Vec::new())?;
        m.openings = self.games.openings(warn)?;
        writeln!(
            out,
            "A without {:?} vs B without {:?}: {} games, {} nodes/move (B {})",
            self.a_without,
            self.b_without,
            m.openings.len() * 2,
            m.nodes,
            m.b_nodes.unwrap_or(m.nodes)
        )?;
        let start = Instant::now();
        let mut tally = MatchResult::default();
        let mut written = Ok(());
        let result = selfplay::play_match(&m, &mut |game| {
            match game.a_points() {
                1.0 => tally.wins += 1,
                0.0 => tally.losses += 1,
                _ => tally.draws += 1,
            }
            if self.verbose && written.is_ok() {
                written = writeln!(out, "{}", game_line(game, &tally));
            }
        })?;
        written?;
        writeln!(out, "{result} in {:.0?}", start.elapsed())?;
        Ok(())
    }
}

/// A game of `selfplay --verbose`, with the tally after it.
fn game_line(game: &Game, tally: &MatchResult) -> String {
    format!(
        "game {} opening {} A {}: {:?} by {} after {} plies; {tally}",
        tally.games(),
        game.opening,
        if game.a_white { "white" } else { "black" },
        game.outcome,
        game.reason,
        game.plies
    )
}

/// The arguments of `datagen`.
#[derive(Args, Clone, Debug)]
pub struct DatagenArgs {
    /// Where to append the positions.
    pub out: String,
    /// The games.
    #[command(flatten)]
    pub games: GameArgs,
}

impl DatagenArgs {
    /// Plays self-play games of the `full` profile and appends their quiet positions to the
    /// output file with the results ([`position_lines`]); a summary line goes to `out`, the
    /// book's rejected lines to `warn`.
    ///
    /// Each game's lines go out in one write to a file opened for appending, so that lines
    /// stay whole when two runs append to one file; should an earlier run have been cut off
    /// in the middle of a line, a newline ends that line first, so the new lines stay
    /// readable. The file may be a pipe (a FIFO waits for its reader, as with a shell's
    /// `>`). A book that cannot be read or a file that cannot be opened is bad input; a
    /// failed write (a full disk) ends the run with a failure, and nothing more is written.
    pub fn run(&self, out: &mut impl Write, warn: &mut dyn FnMut(&str)) -> Result<(), Failure> {
        let path = &self.out;
        let openings = self.games.openings(warn)?;
        let config = SearchConfig::default();
        let m = Match {
            record_positions: true,
            ..self.games.game_match(config, config, openings)
        };
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Failure::usage(format!("cannot open {path}: {e}")))?;
        if ends_mid_line(path).map_err(|e| Failure::usage(format!("cannot read {path}: {e}")))? {
            file.write_all(b"\n")
                .map_err(|e| Failure::run(format!("cannot write {path}: {e}")))?;
        }
        let mut written = 0usize;
        let mut failure = None;
        let start = Instant::now();
        let result = selfplay::play_match(&m, &mut |game| {
            if failure.is_some() {
                // After a failed write nothing more is written: a later write could land
                // after a partial line.
                return;
            }
            match file.write_all(position_lines(game).as_bytes()) {
                Ok(()) => written += game.quiet_positions.len(),
                Err(e) => failure = Some(Failure::run(format!("cannot write {path}: {e}"))),
            }
        })?;
        if let Some(failure) = failure {
            return Err(failure);
        }
        writeln!(
            out,
            "{written} positions from {} games appended to {path} in {:.0}s",
            result.games(),
            start.elapsed().as_secs_f64()
        )?;
        Ok(())
    }
}

/// A game's quiet positions as tuning data: one `FEN;R` line each, R the game's result
/// for White (1, 0.5 or 0).
pub fn position_lines(game: &Game) -> String {
    let result = match game.outcome {
        Outcome::WhiteWins => "1",
        Outcome::Draw => "0.5",
        Outcome::BlackWins => "0",
    };
    game.quiet_positions
        .iter()
        .map(|fen| format!("{fen};{result}\n"))
        .collect()
}

/// Whether `path` is a regular file whose last byte is not a newline (a line cut off by a
/// run that died mid-write). Anything else (a pipe, an empty file) is `false`.
pub fn ends_mid_line(path: &str) -> io::Result<bool> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh scratch file path for one test.
    fn scratch(name: &str) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("transpo-engine-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        path
    }

    fn game(outcome: Outcome, positions: &[&str]) -> Game {
        Game {
            opening: 0,
            a_white: true,
            outcome,
            reason: "test",
            plies: 1,
            final_key: 0,
            quiet_positions: positions.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_games_positions_carry_its_result_for_white() {
        let fens = [
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/3K4 b - - 1 1",
        ];
        assert_eq!(
            position_lines(&game(Outcome::Draw, &fens)),
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1;0.5\n4k3/8/8/8/8/8/8/3K4 b - - 1 1;0.5\n"
        );
        assert_eq!(
            position_lines(&game(Outcome::BlackWins, &fens[..1])),
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1;0\n"
        );
        assert_eq!(position_lines(&game(Outcome::WhiteWins, &[])), "");
    }

    #[test]
    fn a_cut_off_last_line_is_seen() {
        let path = scratch("mid-line");
        let name = path.to_str().unwrap();
        assert!(ends_mid_line(name).is_err(), "no such file");
        std::fs::write(&path, "").unwrap();
        assert!(!ends_mid_line(name).unwrap());
        std::fs::write(&path, "a;1\nb;0").unwrap();
        assert!(ends_mid_line(name).unwrap());
        std::fs::write(&path, "a;1\n").unwrap();
        assert!(!ends_mid_line(name).unwrap());
        std::fs::remove_file(&path).unwrap();
        // A directory is no regular file: nothing to end.
        assert!(!ends_mid_line(std::env::temp_dir().to_str().unwrap()).unwrap());
    }

    #[test]
    fn an_unreadable_book_is_bad_input_and_bad_lines_are_reported() {
        let args = |book: &str| GameArgs {
            openings: 1,
            offset: 0,
            nodes: 100,
            concurrency: 1,
            book: book.to_string(),
        };
        let failure = args("/nonexistent/book.epd")
            .openings(&mut |_| {})
            .unwrap_err();
        assert_eq!(failure.exit_code(), 2);
        assert!(
            failure
                .to_string()
                .starts_with("cannot read /nonexistent/book.epd")
        );

        let path = scratch("book");
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        std::fs::write(&path, format!("{}\n{fen}\n", "x".repeat(5000))).unwrap();
        let book = path.to_str().unwrap();
        let mut warnings = Vec::new();
        let openings = args(book)
            .openings(&mut |w| warnings.push(w.to_string()))
            .unwrap();
        assert_eq!(openings, [fen]);
        assert_eq!(
            warnings,
            [
                format!("{book}:1: line too long (over 4096 bytes)"),
                format!("{book}: 1 lines rejected")
            ]
        );
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn an_output_that_cannot_be_opened_is_bad_usage_before_any_game() {
        let book = scratch("datagen-book");
        std::fs::write(
            &book,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n",
        )
        .unwrap();
        let args = DatagenArgs {
            out: "/nonexistent/dir/data.txt".into(),
            games: GameArgs {
                openings: 1,
                offset: 0,
                nodes: 100,
                concurrency: 1,
                book: book.to_str().unwrap().into(),
            },
        };
        let mut out = Vec::new();
        let failure = args.run(&mut out, &mut |_| {}).unwrap_err();
        assert_eq!(failure.exit_code(), 2);
        assert!(
            failure
                .to_string()
                .starts_with("cannot open /nonexistent/dir/data.txt"),
            "{failure}"
        );
        assert!(out.is_empty());
        std::fs::remove_file(&book).unwrap();
    }

    #[test]
    fn selfplay_refuses_an_unknown_feature_before_reading_the_book() {
        let args = SelfplayArgs {
            a_without: vec!["nonsense".into()],
            b_without: Vec::new(),
            games: GameArgs {
                openings: 1,
                offset: 0,
                nodes: 100,
                concurrency: 1,
                book: "/nonexistent/book.epd".into(),
            },
            b_nodes: Some(200),
            hash: 1,
            verbose: false,
            b_scheme: None,
        };
        let failure = args.run(&mut io::sink(), &mut |_| {}).unwrap_err();
        assert_eq!(failure.exit_code(), 2);
        assert!(failure.to_string().contains("unknown feature"), "{failure}");
        let args = SelfplayArgs {
            a_without: vec!["lmr".into()],
            ..args
        };
        let m = args.game_match(vec!["x".into()]).unwrap();
        assert!(!m.a.features.lmr && m.b.features.lmr);
        assert_eq!((m.nodes, m.b_nodes, m.hash_mib), (100, Some(200), 1));
    }
}
