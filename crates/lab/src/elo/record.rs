//! Game pairs: one CSV row per finished pair, appended as pairs finish, read back to resume
//! an interrupted run and to merge shards (the file's rules are
//! [`crate::experiment::csv`]'s).
//!
//! Games at a fixed node budget are deterministic, so two rows of the same pair must agree on
//! everything but the wall time; a merge that finds them disagreeing is an error.

use super::{plan, stats::Penta};
use crate::experiment::{
    csv::{CsvRow, Fields, ParseRow},
    files,
    stamping::{self, Stamping},
};
use std::{collections::BTreeMap, ops::RangeInclusive};
use transpo_engine::search::Profile;

/// Fields in a row.
const FIELDS: usize = 19;

/// One game's result for the tested configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Result3 {
    /// The tested configuration won.
    Win,
    /// Drawn.
    Draw,
    /// The tested configuration lost.
    Loss,
}

impl Result3 {
    /// Half points: 2, 1, 0.
    pub fn half_points(self) -> usize {
        match self {
            Result3::Win => 2,
            Result3::Draw => 1,
            Result3::Loss => 0,
        }
    }

    /// The result of a game in which the tested side scored `points` (1, ½ or 0).
    pub fn of_points(points: f64) -> Self {
        if points > 0.75 {
            Result3::Win
        } else if points > 0.25 {
            Result3::Draw
        } else {
            Result3::Loss
        }
    }

    fn letter(self) -> &'static str {
        match self {
            Result3::Win => "W",
            Result3::Draw => "D",
            Result3::Loss => "L",
        }
    }

    fn parse(s: &str) -> Result<Self, String> {
        [Result3::Win, Result3::Draw, Result3::Loss]
            .into_iter()
            .find(|r| r.letter() == s)
            .ok_or_else(|| format!("result {s:?} is not W, D or L"))
    }
}

/// One pair: the opening played with the tested configuration as White, then as Black.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The cell's identity, `profile,…,rules` (see [`super::plan::Setup::key`]).
    pub cell: String,
    /// Index of the pair in the cell.
    pub pair: usize,
    /// Index of its opening among the opening file's positions.
    pub opening: usize,
    /// Result of the game in which the tested configuration had White.
    pub white: Result3,
    /// … and Black.
    pub black: Result3,
    /// How those games ended (`checkmate`, `adjudicated win`, `move limit`, …).
    pub white_end: String,
    /// How the second game ended.
    pub black_end: String,
    /// Plies of the first game.
    pub white_plies: u32,
    /// Plies of the second game.
    pub black_plies: u32,
    /// Zobrist key of the first game's final position (a fingerprint of the game).
    pub white_key: u64,
    /// … of the second game's.
    pub black_key: u64,
    /// Wall time of the pair in microseconds (not deterministic; ignored when comparing).
    pub micros: u64,
}

impl Row {
    /// The pair's half points for the tested configuration, 0 (LL) to 4 (WW).
    pub fn half_points(&self) -> usize {
        self.white.half_points() + self.black.half_points()
    }

    /// Everything but the wall time, which differs between runs.
    pub fn deterministic(&self) -> Row {
        Row {
            micros: 0,
            ..self.clone()
        }
    }
}

impl CsvRow for Row {
    const HEADER: &'static str = "profile,scheme,stamping,reference,pressure,nodes,entries,rules,pair,opening,white,black,white_end,black_end,white_plies,black_plies,white_key,black_key,micros";

    fn to_csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{:016x},{:016x},{}",
            self.cell,
            self.pair,
            self.opening,
            self.white.letter(),
            self.black.letter(),
            self.white_end.replace(',', ";"),
            self.black_end.replace(',', ";"),
            self.white_plies,
            self.black_plies,
            self.white_key,
            self.black_key,
            self.micros
        )
    }
}

impl ParseRow for Row {
    const KIND: &'static str = "pairs";

    type Bounds = ();

    /// Every field as [`super::play_pair`] writes it: the cell as [`plan::Setup::key`]
    /// writes one the command line can ask for ([`cell_fields`]), a pair below the most
    /// `--pairs` allows, an opening index an openings file can hold, results `W`, `D` or
    /// `L`, how each game ended in words, plies within the rules' move limit, 16-digit
    /// hexadecimal keys and a count of microseconds.
    fn from_csv(line: &str, _: &()) -> Result<Row, String> {
        let f = Fields::split(line, FIELDS)?;
        let max_plies = cell_fields(&f)?;
        let plies = |i: usize| {
            // In range: at most the rules' move limit, itself at most MAX_PLIES.
            f.number(i, 0..=max_plies).map(|n| n as u32)
        };
        let key = |i: usize| {
            f.word(i, "a key of 16 hexadecimal digits", |s| {
                let lower = s
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
                (s.len() == 16 && lower)
                    .then(|| u64::from_str_radix(s, 16).ok())
                    .flatten()
            })
        };
        let end = |i: usize| {
            f.word(i, "how a game ends (e.g. checkmate, move limit)", |s| {
                let words = !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_lowercase() || b == b' ' || b == b'-');
                words.then(|| s.to_string())
            })
        };
        let most_pairs = usize::try_from(*plan::PAIRS.end()).unwrap_or(usize::MAX);
        Ok(Row {
            cell: f.joined(0..8),
            pair: f.index(8, most_pairs)?,
            // An opening is a line of at least two bytes (one character and its newline)
            // of an openings file of at most TEXT_MAX bytes.
            opening: f.index(9, files::TEXT_MAX / 2)?,
            white: Result3::parse(f.text(10)).map_err(|e| f.bad(10, e))?,
            black: Result3::parse(f.text(11)).map_err(|e| f.bad(11, e))?,
            white_end: end(12)?,
            black_end: end(13)?,
            white_plies: plies(14)?,
            black_plies: plies(15)?,
            white_key: key(16)?,
            black_key: key(17)?,
            micros: f.count(18)?,
        })
    }
}

/// A range of the command line as a range of counts (every one of them is non-negative).
fn counts(range: &RangeInclusive<i64>) -> RangeInclusive<u64> {
    let unsigned = |n: i64| u64::try_from(n).unwrap_or(0);
    unsigned(*range.start())..=unsigned(*range.end())
}

/// Checks the cell's eight fields, `profile,scheme,stamping,reference,pressure,nodes,
/// entries,rules`, as [`plan::Setup::key`] writes them: a profile, schemes and a stamping
/// spelled as the lab spells them, a positive pressure, nodes and rules within the command
/// line's ranges, and the entries that pressure and nodes give. Returns the rules' move
/// limit.
fn cell_fields(f: &Fields) -> Result<u64, String> {
    f.word(0, "full or paper", |s| {
        s.parse::<Profile>().ok().filter(|p| p.to_string() == s)
    })?;
    f.scheme(1)?;
    let offered = stamping::ELO.both;
    f.word(2, "stamped or unstamped", |s| {
        Stamping::from_name(s).filter(|stamping| offered.contains(stamping))
    })?;
    f.scheme(3)?;
    let pressure = f.word(
        4,
        "a positive number as the lab writes it (e.g. 0.1)",
        |s| {
            s.parse::<f64>()
                .ok()
                .filter(|p| p.is_finite() && *p > 0.0 && p.to_string() == s)
        },
    )?;
    let nodes = f.number(5, plan::NODES)?;
    let entries = plan::entries_at(pressure, nodes);
    f.number(6, entries..=entries)?;
    let rules: Vec<&str> = f.text(7).split('/').collect();
    let [max_plies, resign_cp, resign_plies] = rules[..] else {
        return Err(f.bad(7, "is not max_plies/resign_cp/resign_plies"));
    };
    let rule = |text: &str, what: &str, range: &RangeInclusive<i64>| {
        let range = counts(range);
        text.parse::<u64>()
            .ok()
            .filter(|n| n.to_string() == text && range.contains(n))
            .ok_or_else(|| {
                f.bad(
                    7,
                    format_args!(
                        "has {what} {text:?}, not a whole number from {} to {}",
                        range.start(),
                        range.end()
                    ),
                )
            })
    };
    let max_plies = rule(max_plies, "max_plies", &plan::MAX_PLIES)?;
    rule(resign_cp, "resign_cp", &plan::RESIGN_CP)?;
    rule(resign_plies, "resign_plies", &plan::RESIGN_PLIES)?;
    Ok(max_plies)
}

/// The rows keyed by (cell, pair), with identical duplicates collapsed and contradicting
/// ones (same pair, different games) reported.
pub fn unite(
    runs: impl IntoIterator<Item = Row>,
) -> Result<BTreeMap<(String, usize), Row>, String> {
    let mut merged: BTreeMap<(String, usize), Row> = BTreeMap::new();
    for row in runs {
        let key = (row.cell.clone(), row.pair);
        match merged.get(&key) {
            Some(old) if old.deterministic() != row.deterministic() => {
                return Err(format!(
                    "runs disagree on cell {} pair {}: {} vs {}",
                    row.cell,
                    row.pair,
                    old.to_csv(),
                    row.to_csv()
                ));
            }
            Some(_) => {}
            None => {
                merged.insert(key, row);
            }
        }
    }
    Ok(merged)
}

/// The pentanomial counts of every cell, with its pairs.
pub fn by_cell<'a>(rows: impl IntoIterator<Item = &'a Row>) -> BTreeMap<String, Penta> {
    let mut cells: BTreeMap<String, Penta> = BTreeMap::new();
    for row in rows {
        // Cannot fail: two games of at most 2 half points each make at most 4.
        let _ = cells
            .entry(row.cell.clone())
            .or_default()
            .add(row.half_points());
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cell: &str, pair: usize, white: Result3) -> Row {
        Row {
            cell: cell.into(),
            pair,
            opening: 7,
            white,
            black: Result3::Draw,
            white_end: "threefold repetition".into(),
            black_end: "move limit".into(),
            white_plies: 80,
            black_plies: 300,
            white_key: 0x463b_9618_1691_fc9c,
            black_key: 7,
            micros: 12,
        }
    }

    const CELL: &str = "full,twobig1,stamped,depth-age-8:4,0.1,5000,500,300/1000/8";

    #[test]
    fn rows_round_trip_and_bad_ones_say_why() {
        let r = row(CELL, 3, Result3::Win);
        assert_eq!(Row::from_csv(&r.to_csv(), &()), Ok(r.clone()));
        assert_eq!(r.half_points(), 3);
        assert!(Row::from_csv("a,b", &()).unwrap_err().contains("19"));
        assert!(r.to_csv().contains(",463b96181691fc9c,0000000000000007,"));
        let bad = r.to_csv().replace(",W,D,", ",X,D,");
        assert!(Row::from_csv(&bad, &()).unwrap_err().contains("\"X\""));
    }

    #[test]
    fn unite_collapses_twins_and_catches_contradictions() {
        let a = row(CELL, 0, Result3::Win);
        let mut twin = a.clone();
        twin.micros = 999;
        let other = row(CELL, 1, Result3::Loss);
        let merged = unite([a.clone(), twin, other]).expect("consistent");
        assert_eq!(merged.len(), 2);
        let counts = by_cell(merged.values());
        assert_eq!(counts[CELL].counts, [0, 1, 0, 1, 0]);
        let liar = row(CELL, 0, Result3::Draw);
        assert!(unite([a, liar]).unwrap_err().contains("disagree"));
    }
}
