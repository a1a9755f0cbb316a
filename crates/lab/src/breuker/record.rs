//! Observations: one CSV row per (cell, position), written as cells finish, read back to
//! resume an interrupted run and to merge shards (the file's rules are
//! [`crate::experiment::csv`]'s).
//!
//! Node counts are deterministic, so two rows with the same identity must agree on them; a
//! merge that finds two different counts for one observation is an error, not a choice.

use super::matrix::Cell;
use crate::experiment::csv::{CsvRow, ParseRow};
use std::collections::BTreeMap;

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

    fn from_csv(line: &str) -> Result<Row, String> {
        let f: Vec<&str> = line.trim_end().split(',').collect();
        if f.len() != 16 {
            return Err(format!("{} fields, expected 16", f.len()));
        }
        let num = |i: usize| {
            f[i].parse::<u64>()
                .map_err(|_| format!("field {} ({:?}) is not a number", i + 1, f[i]))
        };
        Ok(Row {
            cell: f[..4].join(","),
            position: num(4)? as usize,
            id: f[5].to_string(),
            nodes: num(6)?,
            micros: num(7)?,
            probes: num(8)?,
            hits: num(9)?,
            stores: num(10)?,
            overwrites: num(11)?,
            refused: num(12)?,
            tt_move_failures: num(13)?,
            best_move: f[14].to_string(),
            score: f[15].to_string(),
        })
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
        probes: 1,
        hits: 2,
        stores: 3,
        overwrites: 4,
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
        assert_eq!(Row::from_csv(&r.to_csv()), Ok(r));
        assert!(Row::from_csv("a,b").unwrap_err().contains("16"));
        assert!(Row::from_csv(&"x,".repeat(15).replace("x,x", "x,1")).is_err());
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
