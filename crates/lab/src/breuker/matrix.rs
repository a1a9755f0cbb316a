//! The experiment's matrix: which (scheme, stamping, size, depth) cells to run, parsed from
//! the command line, enumerated in a fixed order, and split into shards.
//!
//! A *cell* searches every position of the set in game order with one table configuration;
//! it is the unit of work (time stamping carries the table from one position to the next, so
//! a cell's positions cannot be split) and of resumption.

use crate::experiment::{schemes::SchemeSpec, stamping::Stamping};
use std::ops::RangeInclusive;

/// The table of a cell: `None` is the no-table baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableSetup {
    /// Replacement scheme and ways.
    pub scheme: SchemeSpec,
    /// Cleared or time-stamped between positions.
    pub stamping: Stamping,
    /// Entries in the table.
    pub entries: u64,
}

/// One cell of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cell {
    /// The table, or `None` for the baseline without one.
    pub table: Option<TableSetup>,
    /// Search depth in plies.
    pub depth: u32,
}

impl Cell {
    /// The cell's identity as written in the CSV: `scheme,stamping,entries,depth`.
    pub fn key(&self) -> String {
        match self.table {
            Some(t) => format!("{},{},{},{}", t.scheme, t.stamping, t.entries, self.depth),
            None => format!("none,none,0,{}", self.depth),
        }
    }
}

/// The experiment's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matrix {
    /// Schemes, in the order given.
    pub schemes: Vec<SchemeSpec>,
    /// Stampings, in the order given.
    pub stampings: Vec<Stamping>,
    /// Table sizes in entries, ascending.
    pub sizes: Vec<u64>,
    /// Depths, ascending.
    pub depths: Vec<u32>,
    /// Depths from which on only `deep_sizes` are run (the paper ran 8 ply only at 16K, 64K,
    /// 256K and 1024K); `None` runs every size at every depth.
    pub deep_from: Option<u32>,
    /// The sizes run at depths of `deep_from` and more.
    pub deep_sizes: Vec<u64>,
}

impl Matrix {
    /// The paper's matrix: 7 schemes × both stampings × 8K…1024K × depths 3–7, plus 8 ply at
    /// 16K, 64K, 256K and 1024K — 616 cells, 11,088 observations on 18 positions.
    pub fn paper() -> Self {
        Matrix {
            schemes: SchemeSpec::paper(),
            stampings: vec![Stamping::Cleared, Stamping::Stamped],
            sizes: (13..=20).map(|b| 1u64 << b).collect(),
            depths: (3..=8).collect(),
            deep_from: Some(8),
            deep_sizes: [14, 16, 18, 20].map(|b| 1u64 << b).to_vec(),
        }
    }

    /// Every cell, baselines first (one per depth), then tables in the order
    /// depth, scheme, stamping, size — so that a cheap shallow sweep finishes first.
    pub fn cells(&self) -> Vec<Cell> {
        let mut cells: Vec<Cell> = self
            .depths
            .iter()
            .map(|&depth| Cell { table: None, depth })
            .collect();
        for &depth in &self.depths {
            for &scheme in &self.schemes {
                for &stamping in &self.stampings {
                    for &entries in &self.sizes {
                        let deep = self.deep_from.is_some_and(|d| depth >= d);
                        if deep && !self.deep_sizes.contains(&entries) {
                            continue;
                        }
                        cells.push(Cell {
                            table: Some(TableSetup {
                                scheme,
                                stamping,
                                entries,
                            }),
                            depth,
                        });
                    }
                }
            }
        }
        cells
    }
}

/// The depths a cell can have, in plies.
pub const DEPTHS: RangeInclusive<u32> = 1..=30;

/// Depths as a range (`3..8`, inclusive) or a list (`3,5,7`); each within [`DEPTHS`].
pub fn parse_depths(s: &str) -> Result<Vec<u32>, String> {
    let bad = || {
        format!(
            "bad depths {s:?}: expected e.g. 3..8 or 3,5,7 ({} to {})",
            DEPTHS.start(),
            DEPTHS.end()
        )
    };
    let parse = |t: &str| {
        t.trim()
            .parse::<u32>()
            .ok()
            .filter(|d| DEPTHS.contains(d))
            .ok_or_else(bad)
    };
    let mut depths: Vec<u32> = if let Some((lo, hi)) = s.split_once("..") {
        let range: RangeInclusive<u32> = parse(lo)?..=parse(hi)?;
        if range.is_empty() {
            return Err(bad());
        }
        range.collect()
    } else {
        s.split(',').map(parse).collect::<Result<_, _>>()?
    };
    depths.sort_unstable();
    depths.dedup();
    Ok(depths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::runner::Shard;

    #[test]
    fn the_paper_matrix_has_616_cells_and_six_baselines() {
        let cells = Matrix::paper().cells();
        assert_eq!(cells.iter().filter(|c| c.table.is_none()).count(), 6);
        assert_eq!(cells.iter().filter(|c| c.table.is_some()).count(), 616);
        assert_eq!(616 * 18, 11_088);
    }

    #[test]
    fn shards_partition_the_cells() {
        let cells = Matrix::paper().cells();
        let mut union: Vec<String> = (1..=5)
            .flat_map(|i| Shard { index: i, count: 5 }.select(cells.clone()))
            .map(|c| c.key())
            .collect();
        union.sort();
        let mut all: Vec<String> = cells.iter().map(Cell::key).collect();
        all.sort();
        assert_eq!(union, all);
        assert_eq!(
            Shard { index: 1, count: 1 }.select(cells.clone()).len(),
            cells.len()
        );
    }

    #[test]
    fn values_parse_and_bad_ones_say_why() {
        assert_eq!(parse_depths("3..5"), Ok(vec![3, 4, 5]));
        assert_eq!(parse_depths("7,3"), Ok(vec![3, 7]));
        assert!(parse_depths("5..3").is_err());
        assert!(parse_depths("0").is_err());
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "x/4", "4", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
