//! Observations: one CSV row per (cell, position), written as cells finish, read back to
//! resume an interrupted run and to merge shards (the file's rules are
//! [`crate::experiment::csv`]'s).
//!
//! Node counts are deterministic, so two rows with the same identity must agree on them; a
//! merge that finds two different counts for one observation is an error, not a choice.

use super::matrix::{self, Cell};
use crate::experiment::{
    csv::{self, CsvRow, Fields, ParseRow},
    stamping::{self, Stamping},
};
use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

/// Fields in a row.
const FIELDS: usize = 16;

/// What an observation is checked against: the position set its index points into, and,
/// where they are known, the set's ids (written as a row writes them, commas as
/// semicolons), so that a row's position is one of the set and its id that position's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Positions in the set: an index is below it.
    pub positions: usize,
    /// The id of every position of the set, in order, if known.
    pub ids: Option<Vec<String>>,
}

impl Bounds {
    /// Any index and any id: the first reading of a run whose set is not at hand.
    const ANY: Bounds = Bounds {
        positions: usize::MAX,
        ids: None,
    };

    /// The bounds of a set of positions with these ids.
    pub fn of_set<'a>(ids: impl IntoIterator<Item = &'a str>) -> Bounds {
        let ids: Vec<String> = ids.into_iter().map(|id| id.replace(',', ";")).collect();
        Bounds {
            positions: ids.len(),
            ids: Some(ids),
        }
    }

    /// Whether `row` lies outside the set.
    fn leaves(&self, row: &Row) -> bool {
        row.position >= self.positions
            || self
                .ids
                .as_ref()
                .is_some_and(|ids| ids.get(row.position) != Some(&row.id))
    }
}

/// One observation: a position searched to a depth with one table setup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// `scheme,stamping,entries,depth` of the cell (see [`Cell::key`]).
    pub cell: String,
    /// Index of the position in the set (game order).
    pub position: usize,
    /// The position's EPD `id`, without commas.
    pub id: String,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time in microseconds (not deterministic; ignored when comparing runs).
    pub micros: u64,
    /// Table probes, hits, stores, overwrites of another position, refused stores.
    pub probes: u64,
    /// Probes that found an entry.
    pub hits: u64,
    /// Stores written.
    pub stores: u64,
    /// Stores that displaced another position.
    pub overwrites: u64,
    /// Stores the scheme refused.
    pub refused: u64,
    /// Table moves that were not legal in the position (detected type-1 errors).
    pub tt_move_failures: u64,
    /// Best move found, UCI.
    pub best_move: String,
    /// Score, `cp N` or `mate N`.
    pub score: String,
}

impl CsvRow for Row {
    const HEADER: &'static str = "scheme,stamping,entries,depth,position,id,nodes,micros,probes,hits,stores,overwrites,refused,tt_move_failures,best_move,score";

    fn to_csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            self.cell,
            self.position,
            self.id.replace(',', ";"),
            self.nodes,
            self.micros,
            self.probes,
            self.hits,
            self.stores,
            self.overwrites,
            self.refused,
            self.tt_move_failures,
            self.best_move,
            self.score
        )
    }
}

impl ParseRow for Row {
    const KIND: &'static str = "observations";

    type Bounds = Bounds;

    /// Every field as [`super::observe`] writes it: the cell as [`Cell::key`] writes one a
    /// command line can ask for (the baseline `none,none,0,DEPTH`; a scheme as it is
    /// spelled, a stamping `breuker` offers, at least one entry; a depth
    /// [`matrix::DEPTHS`] allows), a position of the set, counts that a table's counters
    /// can give (hits within probes, overwrites within stores), a move in UCI and a score
    /// `cp N` or `mate N`.
    fn from_csv(line: &str, bounds: &Bounds) -> Result<Row, String> {
        let f = Fields::split(line, FIELDS)?;
        cell_fields(&f)?;
        let row = Row {
            cell: f.joined(0..4),
            position: f.index(4, bounds.positions)?,
            id: f.text(5).to_string(),
            nodes: f.count(6)?,
            micros: f.count(7)?,
            probes: f.count(8)?,
            hits: f.count(9)?,
            stores: f.count(10)?,
            overwrites: f.count(11)?,
            refused: f.count(12)?,
            tt_move_failures: f.count(13)?,
            best_move: f.word(14, "a move in UCI (e.g. e2e4, e7e8q, 0000)", |m| {
                is_uci_move(m).then(|| m.to_string())
            })?,
            score: f.word(15, "a score (cp N or mate N)", |s| {
                is_score(s).then(|| s.to_string())
            })?,
        };
        if let Some(id) = bounds.ids.as_ref().and_then(|ids| ids.get(row.position))
            && row.id != *id
        {
            return Err(f.bad(
                5,
                format_args!(
                    "is not the id of position {} of the set, {id:?} (a run of another \
                     position set?)",
                    row.position
                ),
            ));
        }
        if row.hits > row.probes {
            return Err(f.bad(
                9,
                format_args!("hits are more than the {} probes", row.probes),
            ));
        }
        if row.overwrites > row.stores {
            return Err(f.bad(
                11,
                format_args!("overwrites are more than the {} stores", row.stores),
            ));
        }
        Ok(row)
    }
}

/// Checks the cell's four fields, `scheme,stamping,entries,depth`, as [`Cell::key`] writes
/// them.
fn cell_fields(f: &Fields) -> Result<(), String> {
    let depths = matrix::DEPTHS;
    f.number(3, u64::from(*depths.start())..=u64::from(*depths.end()))?;
    if f.text(0) == "none" {
        // The baseline without a table.
        f.word(1, "none (the baseline has no table)", |s| {
            (s == "none").then_some(())
        })?;
        f.number(2, 0..=0)?;
        return Ok(());
    }
    f.scheme(0)?;
    let offered = stamping::BREUKER.both;
    f.word(1, "cleared or stamped", |s| {
        Stamping::from_name(s).filter(|stamping| offered.contains(stamping))
    })?;
    f.number(2, 1..=u64::MAX)?;
    Ok(())
}

/// A move as UCI writes it: from and to squares, an optional promotion piece, or `0000`
/// (no move).
fn is_uci_move(text: &str) -> bool {
    let b = text.as_bytes();
    let square =
        |file: u8, rank: u8| (b'a'..=b'h').contains(&file) && (b'1'..=b'8').contains(&rank);
    text == "0000"
        || (matches!(b.len(), 4 | 5)
            && square(b[0], b[1])
            && square(b[2], b[3])
            && b.get(4).is_none_or(|p| b"nbrq".contains(p)))
}

/// A score as the search writes it: `cp N` or `mate N`, N a 32-bit integer.
fn is_score(text: &str) -> bool {
    let value = text
        .strip_prefix("cp ")
        .or_else(|| text.strip_prefix("mate "));
    value.is_some_and(|n| n.parse::<i32>().is_ok_and(|v| v.to_string() == n))
}

/// Reads a run's observations where its position set is not at hand (`merge`, `elo
/// --node-counts`): the set is taken from the rows themselves. Its size is the most positions
/// one cell holds (a cell's rows are written together), and each position's id the first one
/// a row gives it; every row is then read against that set, so that an index beyond it or
/// another id for a position is refused with its line. `finished` refuses a torn last line
/// ([`csv::read_finished`]). Returns the rows and the set.
pub fn read_without_set(path: &Path, finished: bool) -> Result<(Vec<Row>, Bounds), String> {
    let read = |bounds: &Bounds| {
        if finished {
            csv::read_finished::<Row>(path, bounds)
        } else {
            csv::read::<Row>(path, bounds)
        }
    };
    let rows = read(&Bounds::ANY)?;
    let set = set_of(&rows);
    if rows.iter().any(|row| set.leaves(row)) {
        // Read again against the set: the error names the first row that leaves it.
        read(&set)?;
    }
    Ok((rows, set))
}

/// The position set that `rows` show: as many positions as the fullest cell holds, each with
/// the id most rows give it, the first of those on a tie (an index no row has keeps an empty
/// id, which no row then compares with).
fn set_of(rows: &[Row]) -> Bounds {
    let positions = positions_by_cell(rows)
        .values()
        .map(BTreeSet::len)
        .max()
        .unwrap_or(0);
    // For each position, its ids in the order first seen, with how many rows give each.
    let mut seen: Vec<Vec<(&str, usize)>> = vec![Vec::new(); positions];
    for row in rows {
        if let Some(ids) = seen.get_mut(row.position) {
            match ids.iter_mut().find(|(id, _)| *id == row.id) {
                Some((_, count)) => *count += 1,
                None => ids.push((&row.id, 1)),
            }
        }
    }
    let most_given = |ids: &Vec<(&str, usize)>| {
        let most = ids.iter().map(|&(_, count)| count).max().unwrap_or(0);
        ids.iter()
            .find(|&&(_, count)| count == most)
            .map_or(String::new(), |&(id, _)| id.to_string())
    };
    Bounds {
        positions,
        ids: Some(seen.iter().map(most_given).collect()),
    }
}

impl Row {
    /// Everything but the wall time, which differs between runs.
    pub fn deterministic(&self) -> Row {
        Row {
            micros: 0,
            ..self.clone()
        }
    }
}

/// The rows of the cells that are complete (one row per position), keyed by cell; rows of
/// an interrupted cell are dropped so it runs again whole.
pub fn complete_cells(rows: Vec<Row>, positions: usize) -> BTreeMap<String, Vec<Row>> {
    let mut by_cell: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for row in rows {
        by_cell.entry(row.cell.clone()).or_default().push(row);
    }
    by_cell.retain(|_, rows| {
        rows.sort_by_key(|r| r.position);
        rows.dedup_by_key(|r| r.position);
        rows.len() == positions && rows.iter().enumerate().all(|(i, r)| r.position == i)
    });
    by_cell
}

/// The positions each cell of `rows` holds.
fn positions_by_cell(rows: &[Row]) -> BTreeMap<&str, BTreeSet<usize>> {
    let mut by_cell: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for row in rows {
        by_cell.entry(&row.cell).or_default().insert(row.position);
    }
    by_cell
}

/// The first cell of `rows` that lacks one of the `positions` positions, with how many it
/// holds; `None` when every cell is whole.
pub fn incomplete_cell(rows: &[Row], positions: usize) -> Option<(String, usize)> {
    positions_by_cell(rows)
        .into_iter()
        .find(|(_, held)| held.len() < positions)
        .map(|(cell, held)| (cell.to_string(), held.len()))
}

/// Merges observations from several runs: the union, with identical duplicates collapsed
/// and contradicting ones (same observation, different node count) reported.
pub fn merge(runs: Vec<Vec<Row>>) -> Result<Vec<Row>, String> {
    let mut merged: BTreeMap<(String, usize), Row> = BTreeMap::new();
    for row in runs.into_iter().flatten() {
        let key = (row.cell.clone(), row.position);
        match merged.get(&key) {
            Some(old) if old.deterministic() != row.deterministic() => {
                return Err(format!(
                    "runs disagree on cell {} position {}: {} vs {} nodes",
                    row.cell, row.position, old.nodes, row.nodes
                ));
            }
            Some(_) => {}
            None => {
                merged.insert(key, row);
            }
        }
    }
    Ok(merged.into_values().collect())
}

/// The cells of `cells` not yet in `done`.
pub fn pending(cells: Vec<Cell>, done: &BTreeMap<String, Vec<Row>>) -> Vec<Cell> {
    cells
        .into_iter()
        .filter(|c| !done.contains_key(&c.key()))
        .collect()
}

/// A row for tests: the given identity and node count, fixed other fields.
#[cfg(test)]
pub fn sample_row(cell: &str, position: usize, nodes: u64) -> Row {
    Row {
        cell: cell.into(),
        position,
        id: "KS94 w15".into(),
        nodes,
        micros: 17,
        probes: 5,
        hits: 2,
        stores: 4,
        overwrites: 3,
        refused: 5,
        tt_move_failures: 0,
        best_move: "d2d4".into(),
        score: "cp 35".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::{sample_row as row, *};

    #[test]
    fn rows_round_trip_through_csv() {
        let r = row("twobig1,stamped,8192,5", 3, 12345);
        let bounds = Bounds {
            positions: 4,
            ids: None,
        };
        assert_eq!(Row::from_csv(&r.to_csv(), &bounds), Ok(r));
        assert!(Row::from_csv("a,b", &bounds).unwrap_err().contains("16"));
        assert!(Row::from_csv(&"x,".repeat(15).replace("x,x", "x,1"), &bounds).is_err());
    }

    #[test]
    fn the_set_a_run_shows_is_its_fullest_cell_with_the_ids_most_rows_give() {
        let mut rows = vec![
            row("a,cleared,8,3", 0, 1),
            row("a,cleared,8,3", 1, 1),
            row("b,cleared,8,3", 0, 1),
            row("b,cleared,8,3", 1, 1),
            row("b,cleared,8,3", 2, 1),
            row("c,cleared,8,3", 0, 1),
        ];
        // Position 0: one row says "odd one", two the true id.
        rows[0].id = "odd one".into();
        let set = set_of(&rows);
        assert_eq!(set.positions, 3);
        assert_eq!(
            set.ids,
            Some(vec![
                "KS94 w15".into(),
                "KS94 w15".into(),
                "KS94 w15".into()
            ])
        );
        assert!(set.leaves(&rows[0]) && !set.leaves(&rows[1]));
        assert!(set.leaves(&row("a,cleared,8,3", 3, 1)));
        assert!(!Bounds::ANY.leaves(&rows[0]));
    }

    #[test]
    fn only_complete_cells_are_kept() {
        let rows = vec![
            row("a,cleared,8,3", 0, 1),
            row("a,cleared,8,3", 1, 1),
            row("b,cleared,8,3", 0, 1),
        ];
        let done = complete_cells(rows, 2);
        assert_eq!(done.keys().collect::<Vec<_>>(), vec!["a,cleared,8,3"]);
    }

    #[test]
    fn merge_unites_and_catches_contradictions() {
        let a = vec![row("a,cleared,8,3", 0, 10), row("a,cleared,8,3", 1, 11)];
        let mut b = vec![row("a,cleared,8,3", 1, 11), row("b,cleared,8,3", 0, 12)];
        b[0].micros = 999; // wall time may differ
        assert_eq!(merge(vec![a.clone(), b]).map(|m| m.len()), Ok(3));
        let c = vec![row("a,cleared,8,3", 0, 99)];
        assert!(merge(vec![a, c]).unwrap_err().contains("disagree"));
    }
}
