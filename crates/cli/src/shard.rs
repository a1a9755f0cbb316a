//! `--shard I/N`: which part of a run's work is this process's, so that any batch scheduler
//! (a Slurm array, GNU parallel over ssh) can spread one run over machines.

use std::fmt;
use std::str::FromStr;

/// `I/N`: the units of work whose 0-based index modulo `N` is `I − 1` (1-based, like Slurm
/// array ids). A command may deal its units otherwise (`transpo-c4`'s rounds deal
/// neighbouring positions together); `I` and `N` mean the same everywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    /// This shard, 1 to `count`.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// The whole run as one shard, `1/1`.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Whether unit `i` (0-based) belongs to this shard.
    pub fn contains(&self, i: usize) -> bool {
        i % self.count == self.index - 1
    }

    /// The units of this shard.
    pub fn select<T>(&self, units: Vec<T>) -> Vec<T> {
        units
            .into_iter()
            .enumerate()
            .filter(|(i, _)| self.contains(*i))
            .map(|(_, u)| u)
            .collect()
    }

    /// How many of `total` units (indices `0..total`) belong to this shard.
    pub fn units(&self, total: usize) -> usize {
        if total < self.index {
            0
        } else {
            (total - self.index) / self.count + 1
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("bad shard {s:?}: expected I/N with 1 ≤ I ≤ N, e.g. 3/8");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_units() {
        for count in 1..=7 {
            let mut seen = [0; 30];
            for index in 1..=count {
                let shard = Shard { index, count };
                let mine = shard.select((0..30).collect::<Vec<usize>>());
                assert_eq!(mine.len(), shard.units(30));
                for i in mine {
                    seen[i] += 1;
                }
            }
            assert!(seen.iter().all(|&n| n == 1));
        }
    }

    #[test]
    fn bad_shards_are_refused() {
        for bad in [
            "0/2",
            "3/2",
            "1/0",
            "x",
            "1/",
            "/2",
            "1/99999999999999999999999",
        ] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!("2/5".parse(), Ok(Shard { index: 2, count: 5 }));
        assert_eq!(Shard { index: 2, count: 5 }.to_string(), "2/5");
    }
}
