//! Game pairs: one CSV row per finished pair, appended as pairs finish, read back to resume
//! an interrupted run and to merge shards (the file's rules are
//! [`crate::experiment::csv`]'s).
//!
//! Games at a fixed node budget are deterministic, so two rows of the same pair must agree on
//! everything but the wall time; a merge that finds them disagreeing is an error.

use super::stats::Penta;
use crate::experiment::csv::{CsvRow, ParseRow};
use std::collections::BTreeMap;

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
        match s {
            "W" => Ok(Result3::Win),
            "D" => Ok(Result3::Draw),
            "L" => Ok(Result3::Loss),
            _ => Err(format!("result {s:?} is not W, D or L")),
        }
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

    fn from_csv(line: &str) -> Result<Row, String> {
        let f: Vec<&str> = line.trim_end().split(',').collect();
        if f.len() != FIELDS {
            return Err(format!("{} fields, expected {FIELDS}", f.len()));
        }
        let num = |i: usize| {
            f[i].parse::<u64>()
                .map_err(|_| format!("field {} ({:?}) is not a number", i + 1, f[i]))
        };
        let small = |i: usize| {
            num(i).and_then(|n| {
                u32::try_from(n).map_err(|_| format!("field {} ({n}) is too large", i + 1))
            })
        };
        let key = |i: usize| {
            u64::from_str_radix(f[i], 16)
                .map_err(|_| format!("field {} ({:?}) is not a hexadecimal key", i + 1, f[i]))
        };
        Ok(Row {
            cell: f[..8].join(","),
            pair: num(8)? as usize,
            opening: num(9)? as usize,
            white: Result3::parse(f[10])?,
            black: Result3::parse(f[11])?,
            white_end: f[12].to_string(),
            black_end: f[13].to_string(),
            white_plies: small(14)?,
            black_plies: small(15)?,
            white_key: key(16)?,
            black_key: key(17)?,
            micros: num(18)?,
        })
    }
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
        assert_eq!(Row::from_csv(&r.to_csv()), Ok(r.clone()));
        assert_eq!(r.half_points(), 3);
        assert!(Row::from_csv("a,b").unwrap_err().contains("19"));
        assert!(r.to_csv().contains(",463b96181691fc9c,0000000000000007,"));
        let bad = r.to_csv().replace(",W,D,", ",X,D,");
        assert!(Row::from_csv(&bad).unwrap_err().contains("\"X\""));
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
