//! Self-play matches between two search configurations, to measure whether a feature helps.
//!
//! Each opening is played twice with colours swapped, so neither side profits from a
//! lopsided opening. Every move is searched to a fixed node budget (reproducible, and
//! independent of the machine's load), each side on its own table, cleared before each game.
//! A game ends by checkmate, stalemate, threefold repetition, the fifty-move rule or
//! insufficient material; after `max_plies` plies it is adjudicated a draw, and once both
//! sides have reported a score of at least `resign_cp` for the same side in `resign_plies`
//! consecutive plies, a win for that side (that saves playing out won end games).
//!
//! The result is reported as wins/draws/losses of configuration A, its score, and the Elo
//! difference with a 95% error from the trinomial variance of the game results.
//!
//! ```
//! use transpo_engine::search::SearchConfig;
//! use transpo_engine::selfplay::{Match, play_match};
//!
//! let openings = vec!["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".to_string()];
//! let m = Match { nodes: 300, max_plies: 20, ..Match::new(SearchConfig::default(), SearchConfig::default(), openings) };
//! let result = play_match(&m, &mut |_| {})?;
//! assert_eq!(result.games(), 2);
//! # Ok::<(), transpo::Error>(())
//! ```

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use transpo::{Table, scheme::Scheme};

use crate::search::{
    ENGINE_SCHEME, Limits, MATE_BOUND, SearchConfig, SearchEntry, Searcher, engine_table,
};
use transpo_chess::Position;

/// The openings file `selfplay`, `datagen` and the lab's Elo study read by default: path
/// relative to the repository root (where they are run from).
pub const DEFAULT_OPENINGS: &str = "../shared/data/chess/openings/8moves_v3.epd";

/// A match between configurations A and B.
#[derive(Clone, Debug)]
pub struct Match {
    /// Configuration A (results are from its side).
    pub a: SearchConfig,
    /// Configuration B.
    pub b: SearchConfig,
    /// Opening positions as FEN; each is played twice, colours swapped.
    pub openings: Vec<String>,
    /// Node budget per move (A's, and B's unless `b_nodes` is set).
    pub nodes: u64,
    /// B's node budget per move, when it differs (to give a faster configuration the nodes
    /// it would search in the same time).
    pub b_nodes: Option<u64>,
    /// Table size per side, in MiB.
    pub hash_mib: u64,
    /// Games played at once (one thread each).
    pub concurrency: usize,
    /// Plies (from the opening position) after which a game is a draw.
    pub max_plies: u32,
    /// Win adjudication: both sides' scores at least this far for one side …
    pub resign_cp: i32,
    /// … in this many consecutive plies (0 turns win adjudication off).
    pub resign_plies: u32,
    /// The replacement schemes of A's and B's tables.
    pub schemes: (Scheme, Scheme),
    /// Keep the quiet positions of each game in [`Game::quiet_positions`] (for tuning).
    pub record_positions: bool,
}

impl Match {
    /// A match with defaults: 5,000 nodes a move, 4 MiB tables, 2 games at once, draw after
    /// 300 plies, win adjudication at 1000 cp for 8 plies.
    pub fn new(a: SearchConfig, b: SearchConfig, openings: Vec<String>) -> Self {
        Match {
            a,
            b,
            openings,
            nodes: 5_000,
            b_nodes: None,
            hash_mib: 4,
            concurrency: 2,
            max_plies: 300,
            resign_cp: 1000,
            resign_plies: 8,
            record_positions: false,
            schemes: (ENGINE_SCHEME, ENGINE_SCHEME),
        }
    }
}

/// How a game ended, from White's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// White won.
    WhiteWins,
    /// Drawn (by rule or adjudication).
    Draw,
    /// Black won.
    BlackWins,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// Index of the opening in [`Match::openings`].
    pub opening: usize,
    /// Whether A had White.
    pub a_white: bool,
    /// The result.
    pub outcome: Outcome,
    /// Why the game ended.
    pub reason: &'static str,
    /// Plies played after the opening.
    pub plies: u32,
    /// The Zobrist key of the position the game ended in: a fingerprint of the game, so
    /// that two runs can check that they played the same one.
    pub final_key: u64,
    /// With [`Match::record_positions`]: the FEN of every position of the game that was not
    /// in check, whose chosen move was quiet and whose score was not a mate (the positions a
    /// static evaluation should judge alone); empty otherwise.
    pub quiet_positions: Vec<String>,
}

impl Game {
    /// A's points from this game: 1, ½ or 0.
    pub fn a_points(&self) -> f64 {
        match (self.outcome, self.a_white) {
            (Outcome::Draw, _) => 0.5,
            (Outcome::WhiteWins, true) | (Outcome::BlackWins, false) => 1.0,
            _ => 0.0,
        }
    }
}

/// Wins, draws and losses of configuration A.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchResult {
    /// Games A won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games A lost.
    pub losses: u32,
}

impl MatchResult {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// A's score as a fraction of the points (0.5 if no games).
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n)
    }

    /// A's Elo advantage implied by its score, with the half-width of a 95% interval (from
    /// the trinomial variance of the results). Infinite when A scored all or nothing.
    pub fn elo(&self) -> (f64, f64) {
        let n = f64::from(self.games());
        let p = self.score();
        if n == 0.0 {
            return (0.0, f64::INFINITY);
        }
        let (w, d, l) = (
            f64::from(self.wins) / n,
            f64::from(self.draws) / n,
            f64::from(self.losses) / n,
        );
        let variance = w * (1.0 - p).powi(2) + d * (0.5 - p).powi(2) + l * p.powi(2);
        let sigma = (variance / n).sqrt();
        let elo = elo_of(p);
        let low = elo_of(p - 1.96 * sigma);
        let high = elo_of(p + 1.96 * sigma);
        (elo, (high - low) / 2.0)
    }
}

/// The logistic Elo difference of a score fraction: −400 · log10(1/s − 1); infinite at 0
/// and 1 (and beyond).
pub fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if score >= 1.0 {
        return f64::INFINITY;
    }
    // + 0.0 turns the −0 of an even score into 0, which prints as +0.0.
    -400.0 * (1.0 / score - 1.0).log10() + 0.0
}

impl std::fmt::Display for MatchResult {
    /// `W/D/L w/d/l, score 51.2%, Elo +8.3 ± 25.1 (n games)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (elo, error) = self.elo();
        write!(
            f,
            "W/D/L {}/{}/{}, score {:.1}%, Elo {:+.1} ± {:.1} ({} games)",
            self.wins,
            self.draws,
            self.losses,
            100.0 * self.score(),
            elo,
            error,
            self.games()
        )
    }
}

/// Plays every opening twice (colours swapped), `concurrency` games at a time, calling
/// `on_game` after each game (from whichever thread played it, one call at a time).
///
/// Openings that do not parse are skipped (the caller checks them first:
/// [`playable_openings`]), so the games played are twice the openings that do.
///
/// # Errors
///
/// The tables (two per game played at once — `concurrency`, or the number of games when
/// that is smaller —, `hash_mib` MiB each, at least 1) are taken before any game: a size the machine cannot give is an error, and no game is played.
pub fn play_match(
    m: &Match,
    on_game: &mut (dyn FnMut(&Game) + Send),
) -> Result<MatchResult, transpo::Error> {
    let total = m.openings.len() * 2;
    let next = AtomicUsize::new(0);
    let state = Mutex::new((MatchResult::default(), on_game));
    // No more games at once than there are games: a table pair each.
    let at_once = m.concurrency.clamp(1, total.max(1));
    let tables = (0..at_once)
        .map(|_| {
            Ok((
                engine_table(m.hash_mib.max(1), m.schemes.0)?,
                engine_table(m.hash_mib.max(1), m.schemes.1)?,
            ))
        })
        .collect::<Result<Vec<_>, transpo::Error>>()?;
    std::thread::scope(|scope| {
        for (table_a, table_b) in &tables {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Relaxed);
                    if index >= total {
                        break;
                    }
                    let opening = index / 2;
                    let a_white = index.is_multiple_of(2);
                    let Ok(pos) = Position::from_fen(&m.openings[opening]) else {
                        continue;
                    };
                    table_a.clear();
                    table_b.clear();
                    let game = play_game(m, pos, opening, a_white, table_a, table_b);
                    // A poisoned lock means another game thread panicked; keep counting.
                    let mut guard = state.lock().unwrap_or_else(|e| e.into_inner());
                    let (result, on_game) = &mut *guard;
                    match game.a_points() {
                        1.0 => result.wins += 1,
                        0.0 => result.losses += 1,
                        _ => result.draws += 1,
                    }
                    on_game(&game);
                }
            });
        }
    });
    Ok(state.into_inner().unwrap_or_else(|e| e.into_inner()).0)
}

/// Plays one game from `pos` under the rules of `m` (its configurations, node budgets,
/// move cap and adjudication; not its openings, hash size or concurrency); A has White when
/// `a_white`, and `opening` is only recorded in the [`Game`].
///
/// Each side searches with its own table, of any entry type (the lab plays on research
/// tables of a chosen replacement scheme); the caller clears them before a game. With one
/// search thread per side the game is deterministic: it depends only on its arguments.
pub fn play_game<E: SearchEntry>(
    m: &Match,
    mut pos: Position,
    opening: usize,
    a_white: bool,
    table_a: &Table<E>,
    table_b: &Table<E>,
) -> Game {
    let searchers = (Searcher::new(m.a), Searcher::new(m.b));
    let limits = (
        Limits::nodes(m.nodes.max(1)),
        Limits::nodes(m.b_nodes.unwrap_or(m.nodes).max(1)),
    );
    // Consecutive plies in which the mover's score said White (+) or Black (−) is winning.
    let mut streak: (i32, u32) = (0, 0);
    let mut plies = 0;
    let mut quiet_positions = Vec::new();
    // The loop ends with the game: its outcome and why; the position is the final one.
    let (outcome, reason) = loop {
        let white = pos.side_to_move() == cozy_chess::Color::White;
        if let Some(end) = ended_by_rule(&pos) {
            break end;
        }
        if plies >= m.max_plies {
            break (Outcome::Draw, "move limit");
        }
        let a_to_move = white == a_white;
        let (searcher, table, limits) = if a_to_move {
            (&searchers.0, table_a, &limits.0)
        } else {
            (&searchers.1, table_b, &limits.1)
        };
        let result = searcher.search(&mut pos, limits, Some(table), &mut |_| {});
        if m.record_positions
            && !pos.is_check()
            && result.raw_score.abs() < MATE_BOUND
            && result
                .best_move
                .is_some_and(|mv| crate::search::is_quiet(pos.board(), mv))
        {
            quiet_positions.push(pos.board().to_string());
        }
        let Some(mv) = result.best_move else {
            // Only without legal moves, which the checks above caught.
            break (Outcome::Draw, "no move");
        };
        // Win adjudication: the score from White's side, counted while both agree.
        let white_score = if white {
            result.raw_score
        } else {
            -result.raw_score
        };
        if let Some(outcome) = adjudicate(&mut streak, white_score, m) {
            break (outcome, "adjudicated win");
        }
        if pos.play(mv).is_err() {
            // Cannot happen: the search only returns legal moves. Score it as a loss for
            // the side that produced it rather than panic.
            let outcome = if white {
                Outcome::BlackWins
            } else {
                Outcome::WhiteWins
            };
            break (outcome, "illegal move");
        }
        plies += 1;
    };
    Game {
        opening,
        a_white,
        outcome,
        reason,
        plies,
        final_key: pos.key(),
        quiet_positions,
    }
}

/// How the game at `pos` has ended by the rules (checkmate, stalemate, threefold repetition,
/// the fifty-move rule, insufficient material), and why; `None` while it goes on.
pub fn ended_by_rule(pos: &Position) -> Option<(Outcome, &'static str)> {
    if pos.is_checkmate() {
        let outcome = if pos.side_to_move() == cozy_chess::Color::White {
            Outcome::BlackWins
        } else {
            Outcome::WhiteWins
        };
        return Some((outcome, "checkmate"));
    }
    let draw = if pos.is_stalemate() {
        "stalemate"
    } else if pos.is_draw_by_repetition() {
        "threefold repetition"
    } else if pos.is_fifty_move_draw() {
        "fifty-move rule"
    } else if pos.is_insufficient_material() {
        "insufficient material"
    } else {
        return None;
    };
    Some((Outcome::Draw, draw))
}

/// Win adjudication after a move scored `white_score` (from White's side): `streak` counts
/// the consecutive plies whose score said the same side (+1 White, −1 Black) is winning by
/// at least `m.resign_cp` (or a mate); the win, once that reaches `m.resign_plies` (never
/// when that is 0).
fn adjudicate(streak: &mut (i32, u32), white_score: i32, m: &Match) -> Option<Outcome> {
    let side = if white_score >= m.resign_cp || white_score >= MATE_BOUND {
        1
    } else if white_score <= -m.resign_cp || white_score <= -MATE_BOUND {
        -1
    } else {
        0
    };
    *streak = if side != 0 && side == streak.0 {
        (side, streak.1 + 1)
    } else {
        (side, u32::from(side != 0))
    };
    if m.resign_plies > 0 && streak.1 >= m.resign_plies {
        Some(if streak.0 > 0 {
            Outcome::WhiteWins
        } else {
            Outcome::BlackWins
        })
    } else {
        None
    }
}

/// Most lines [`read_opening_lines`] reads from an openings file (blank and rejected lines
/// included): 4 million, over a hundred times the 34,700 of `8moves_v3.epd`. A longer file,
/// or a pipe that never ends, is an error rather than memory spent without bound.
pub const MAX_OPENING_LINES: usize = 4_000_000;

/// Most bytes of opening lines [`read_opening_lines`] keeps (256 MiB; `8moves_v3.epd` has
/// 2.3 MB), for the same reason.
pub const MAX_OPENING_BYTES: usize = 256 << 20;

/// Reads the non-blank lines of an openings file (EPD or FEN lines) from `reader`, each at
/// most [`transpo_files::TEXT_LINE_MAX`] bytes. A longer line, or one that is not UTF-8, is
/// skipped and reported to `rejected` as `NAME:N: line too long (over 4096 bytes)` or
/// `NAME:N: not UTF-8`; reading goes on. Each line comes with its number in the file (from
/// 1). The lines are not checked as positions here ([`playable_openings`] does that).
///
/// # Errors
///
/// A read error, or more than [`MAX_OPENING_LINES`] lines or [`MAX_OPENING_BYTES`] bytes
/// (`name` names the file in the message).
pub fn read_opening_lines(
    reader: impl std::io::BufRead,
    name: &str,
    rejected: &mut dyn FnMut(String),
) -> Result<Vec<(usize, String)>, String> {
    read_opening_lines_within(
        reader,
        name,
        (MAX_OPENING_LINES, MAX_OPENING_BYTES),
        rejected,
    )
}

/// [`read_opening_lines`] with its limits, (lines, bytes), as arguments.
fn read_opening_lines_within(
    reader: impl std::io::BufRead,
    name: &str,
    (max_lines, max_bytes): (usize, usize),
    rejected: &mut dyn FnMut(String),
) -> Result<Vec<(usize, String)>, String> {
    let mut lines = Vec::new();
    let mut bytes = 0usize;
    for line in transpo_files::Lines::new(reader, transpo_files::TEXT_LINE_MAX) {
        let line = line.map_err(|e| format!("cannot read {name}: {e}"))?;
        if line.number > max_lines {
            return Err(format!(
                "{name} has more than {max_lines} lines, the most an openings file may have"
            ));
        }
        match line.text {
            Ok(text) if text.trim().is_empty() => {}
            Ok(text) => {
                bytes += text.len();
                if bytes > max_bytes {
                    return Err(format!(
                        "{name} holds more than {max_bytes} bytes of openings, the most an \
                         openings file may have"
                    ));
                }
                lines.push((line.number, text));
            }
            Err(bad) => rejected(format!("{name}:{}: {bad}", line.number)),
        }
    }
    Ok(lines)
}

/// Reads opening FENs (the first four or six fields of each EPD line), taking `count`
/// lines spread evenly over the file starting at line `offset`.
pub fn read_openings(text: &str, count: usize, offset: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    pick_openings(&lines, count, offset)
}

/// Opening FENs (the first four or six fields of each EPD or FEN line) from the non-blank
/// `lines` of an openings file: `count` lines spread evenly over them, starting at line
/// `offset` (modulo their number).
pub fn pick_openings(lines: &[impl AsRef<str>], count: usize, offset: usize) -> Vec<String> {
    picked(lines.len(), count, offset)
        .map(|i| opening_fen(lines[i].as_ref()))
        .collect()
}

/// The indices of the `count` lines out of `len` that [`pick_openings`] takes: spread evenly,
/// starting at `offset` (modulo `len`).
fn picked(len: usize, count: usize, offset: usize) -> impl Iterator<Item = usize> {
    let (start, step) = match (len, count) {
        (0, _) | (_, 0) => (0, 1),
        _ => (offset % len, (len / count).max(1)),
    };
    (start..len).step_by(step).take(count)
}

/// The FEN of an EPD or FEN line: its first six fields when the fifth and sixth are the
/// clocks (FEN), else its first four (EPD: the position, then operations).
pub fn opening_fen(line: &str) -> String {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let is_clock = |s: &&str| s.parse::<u32>().is_ok();
    if fields.len() >= 6 && is_clock(&fields[4]) && is_clock(&fields[5]) {
        fields[..6].join(" ")
    } else {
        fields.iter().take(4).copied().collect::<Vec<_>>().join(" ")
    }
}

/// The openings to play from the numbered `lines` of the openings file `name` (as
/// [`read_opening_lines`] gives them): the `count` lines [`pick_openings`] picks from
/// `offset`, less those that are no legal position (reported to `rejected` as `NAME:N:
/// WHY; skipped`) and those whose game is already over (`NAME:N: the game is already over
/// (checkmate); skipped`). Every opening returned is played: a match on them plays twice as
/// many games.
pub fn playable_openings(
    lines: &[(usize, String)],
    name: &str,
    (count, offset): (usize, usize),
    rejected: &mut dyn FnMut(String),
) -> Vec<String> {
    let mut openings = Vec::new();
    for (number, text) in picked(lines.len(), count, offset).map(|i| &lines[i]) {
        let fen = opening_fen(text);
        match Position::from_fen(&fen) {
            Err(e) => rejected(format!("{name}:{number}: {e}; skipped")),
            Ok(pos) => match ended_by_rule(&pos) {
                Some((_, why)) => rejected(format!(
                    "{name}:{number}: the game is already over ({why}); skipped"
                )),
                None => openings.push(fen),
            },
        }
    }
    openings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_scores() {
        assert!((elo_of(0.5)).abs() < 1e-9);
        // An even score is +0, not −0 (which would print as -0.0).
        assert!(elo_of(0.5).is_sign_positive());
        assert_eq!(format!("{:+.1}", elo_of(0.5)), "+0.0");
        assert!((elo_of(0.75) - 190.85).abs() < 0.1);
        let r = MatchResult {
            wins: 30,
            draws: 40,
            losses: 30,
        };
        let (elo, error) = r.elo();
        assert!(elo.abs() < 1e-9 && error > 40.0 && error < 60.0, "{error}");
    }

    #[test]
    fn openings_are_read_from_epd_and_fen() {
        let text = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\
                    r3k2r/8/8/8/8/8/8/R3K2R w KQkq - id \"x\";\n";
        let o = read_openings(text, 2, 0);
        assert_eq!(o.len(), 2);
        assert!(o.iter().all(|f| Position::from_fen(f).is_ok()), "{o:?}");
    }

    #[test]
    fn opening_lines_are_capped_and_bad_lines_reported() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let long = "x".repeat(transpo_files::TEXT_LINE_MAX + 1);
        let mut bytes = format!("{fen}\n\n{long}\n").into_bytes();
        bytes.extend_from_slice(b"\xff\n");
        bytes.extend_from_slice(format!("{fen}\n").as_bytes());
        let mut reports = Vec::new();
        let lines =
            read_opening_lines(&bytes[..], "book", &mut |m| reports.push(m)).expect("a good file");
        assert_eq!(lines, [(1, fen.to_string()), (5, fen.to_string())]);
        assert_eq!(
            reports,
            [
                "book:3: line too long (over 4096 bytes)",
                "book:4: not UTF-8"
            ]
        );
        assert_eq!(pick_openings(&[fen, fen], 1, 0), [fen]);
        // An endless input stops at the caps with an error naming them.
        let endless = std::io::BufReader::new(std::io::repeat(b'\n'));
        let error = read_opening_lines_within(endless, "pipe", (1000, 1 << 20), &mut |_| {})
            .expect_err("endless");
        assert!(error.contains("more than 1000 lines"), "{error}");
        let many = format!("{}\n", "a".repeat(100)).repeat(20);
        let error =
            read_opening_lines_within(many.as_bytes(), "pipe", (usize::MAX, 1000), &mut |_| {})
                .expect_err("too many bytes");
        assert!(error.contains("more than 1000 bytes"), "{error}");
    }

    #[test]
    fn openings_that_cannot_be_played_are_reported_by_line_and_skipped() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let lines: Vec<(usize, String)> = [
            (1, start),
            (2, "not a position"),
            (4, "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"),
            (5, "7k/5Q2/6K1/8/8/8/8/8 b - - id \"stalemate\";"),
            (6, "8/8/8/8/8/8/8/K1k5 w - - 0 1"),
            (7, "6k1/5ppp/8/8/8/8/8/R5K1 w - - c0 \"mate in one\";"),
        ]
        .into_iter()
        .map(|(n, text)| (n, text.to_string()))
        .collect();
        let mut reports = Vec::new();
        let openings = playable_openings(&lines, "book", (6, 0), &mut |r| reports.push(r));
        assert_eq!(openings, [start, "6k1/5ppp/8/8/8/8/8/R5K1 w - -"]);
        assert_eq!(reports.len(), 4, "{reports:?}");
        assert!(reports[0].starts_with("book:2: "), "{reports:?}");
        assert_eq!(
            reports[1..],
            [
                "book:4: the game is already over (checkmate); skipped",
                "book:5: the game is already over (stalemate); skipped",
                "book:6: the game is already over (insufficient material); skipped",
            ]
        );
        // Picked as pick_openings picks: every other line, from the second or the first.
        let picked = playable_openings(&lines, "book", (3, 1), &mut |_| {});
        assert_eq!(picked, ["6k1/5ppp/8/8/8/8/8/R5K1 w - -"]);
        let picked = playable_openings(&lines, "book", (3, 0), &mut |_| {});
        assert_eq!(picked, [start]);
        let texts: Vec<&str> = lines.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(pick_openings(&texts, 3, 0).len(), 3);
    }

    #[test]
    fn a_game_on_research_tables_depends_only_on_its_arguments() {
        let m = Match {
            nodes: 400,
            max_plies: 30,
            ..Match::new(SearchConfig::default(), SearchConfig::paper(), Vec::new())
        };
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let play = || {
            let table = || {
                Table::<transpo::entry::ResearchEntry>::new(
                    transpo::Size::Entries(1024),
                    transpo::table::Config::default(),
                )
                .expect("a small table")
            };
            let position = Position::from_fen(fen).expect("a legal FEN");
            play_game(&m, position, 0, true, &table(), &table())
        };
        let game = play();
        assert_eq!(game, play());
        assert_eq!(game.plies, 30, "{game:?}");
        assert_ne!(game.final_key, 0);
    }

    #[test]
    fn a_short_match_plays_every_game_to_an_end() {
        let openings = vec![
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".to_string(),
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1".to_string(),
        ];
        let m = Match {
            nodes: 500,
            max_plies: 40,
            ..Match::new(SearchConfig::default(), SearchConfig::default(), openings)
        };
        let mut games = Vec::new();
        let r = play_match(&m, &mut |g| games.push(g.clone())).expect("small tables");
        assert_eq!(r.games(), 4);
        assert_eq!(games.len(), 4);
        // The back-rank mate is found by whoever has White.
        assert!(
            games
                .iter()
                .filter(|g| g.opening == 1)
                .all(|g| g.outcome == Outcome::WhiteWins),
            "{games:?}"
        );
    }
}
