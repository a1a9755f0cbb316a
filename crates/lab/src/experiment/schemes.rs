//! Replacement schemes as the studies name them (`twobig1`, `depth-age-8:4`), and the
//! research table a scheme is run with.
//!
//! How many ways a bucket has and how many entries a size holds in whole buckets is the
//! table's to say ([`Config::ways_for`], [`Config::entries_for`]); the lab only asks.

use crate::failure::Failure;
use std::{fmt, str::FromStr};
use transpo::{Size, Table, entry::ResearchEntry, scheme::Scheme, table::Config};

/// A replacement scheme and, for schemes that take any number, the ways per bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SchemeSpec {
    /// The scheme.
    pub scheme: Scheme,
    /// Ways per bucket; `None` for the paper's schemes (which fix their own) and for the
    /// table's default ([`Table::DEFAULT_WAYS`], a full cache line) otherwise.
    pub ways: Option<usize>,
}

impl SchemeSpec {
    /// The paper's seven.
    pub fn paper() -> Vec<SchemeSpec> {
        Scheme::PAPER
            .iter()
            .map(|&scheme| SchemeSpec { scheme, ways: None })
            .collect()
    }

    /// 2026's common practice: depth-and-age with k = 4 (Ethereal) and 8 (Stockfish), in
    /// buckets of 3 and 4 entries.
    pub fn modern() -> Vec<SchemeSpec> {
        let mut specs = Vec::new();
        for k in [4, 8] {
            for ways in [3, 4] {
                specs.push(SchemeSpec {
                    scheme: Scheme::DepthAge { k },
                    ways: Some(ways),
                });
            }
        }
        specs
    }

    /// Whether the paper's time stamping (old entries count as empty) applies: only to the
    /// paper's schemes; the modern ones weigh age by their own rule.
    pub fn uses_paper_stamping(&self) -> bool {
        self.scheme.required_ways().is_some()
    }

    /// The configuration of a counting research table of this scheme, with the paper's
    /// time stamping if `stamping`.
    pub fn config(&self, stamping: bool) -> Config {
        Config {
            scheme: self.scheme,
            stamping,
            ways: self.ways,
            counting: true,
        }
    }

    /// A counting table of [`ResearchEntry`] of this scheme with `entries` rounded down to
    /// whole buckets (a 3-way bucket cannot divide a power of two), as
    /// [`Config::entries_for`] rounds them. A size the table refuses is bad input; memory
    /// the system refuses is a failure while running ([`Failure::of_table`]).
    pub fn research_table(
        &self,
        entries: u64,
        stamping: bool,
    ) -> Result<Table<ResearchEntry>, Failure> {
        let whole = self.whole_entries(entries)?;
        Table::new(Size::Entries(whole), self.config(stamping))
            .map_err(|e| Failure::of_table(format_args!("{self} with {entries} entries"), &e))
    }

    /// The entries a [`SchemeSpec::research_table`] of `entries` holds, in whole buckets,
    /// without making it: a size the table refuses (less than one bucket, more buckets than
    /// an address can count) is bad input. A study asks this of every cell before it runs
    /// one, so that a bad size stops it at once.
    pub fn whole_entries(&self, entries: u64) -> Result<u64, Failure> {
        // Stamping changes neither the ways nor the buckets.
        self.config(false)
            .entries_for::<ResearchEntry>(Size::Entries(entries))
            .map_err(|e| Failure::of_table(format_args!("{self} with {entries} entries"), &e))
    }
}

impl fmt::Display for SchemeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ways {
            Some(ways) => write!(f, "{}:{ways}", self.scheme),
            None => write!(f, "{}", self.scheme),
        }
    }
}

impl FromStr for SchemeSpec {
    type Err = String;
    /// `name` or `name:ways`, e.g. `twobig1`, `depth-age-8:4`; the table checks the ways.
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, ways) = match s.split_once(':') {
            Some((name, ways)) => {
                let ways: usize = ways
                    .trim()
                    .parse()
                    .map_err(|_| format!("bad ways in {s:?}: expected a number of entries"))?;
                (name, Some(ways))
            }
            None => (s, None),
        };
        let scheme: Scheme = name
            .parse()
            .map_err(|e: transpo::scheme::UnknownScheme| e.to_string())?;
        let spec = SchemeSpec { scheme, ways };
        spec.config(false)
            .ways_for::<ResearchEntry>()
            .map_err(|e| format!("bad ways in {s:?}: {e}"))?;
        Ok(spec)
    }
}

/// Schemes as a list of `name[:ways]`, where `all` (or `paper`) stands for the paper's seven
/// and `modern` for depth-and-age with k = 4, 8 in 3- and 4-way buckets; each once.
pub fn parse_schemes(s: &str) -> Result<Vec<SchemeSpec>, String> {
    let mut specs = Vec::new();
    for item in s.split(',') {
        match item.trim() {
            "all" | "paper" => specs.extend(SchemeSpec::paper()),
            "modern" => specs.extend(SchemeSpec::modern()),
            other => specs.push(other.parse()?),
        }
    }
    let mut seen = std::collections::HashSet::new();
    specs.retain(|s| seen.insert(*s));
    Ok(specs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use transpo::table::Instrumented;

    #[test]
    fn schemes_parse_and_bad_ones_say_why() {
        assert_eq!(parse_schemes("all").map(|v| v.len()), Ok(7));
        let spec = |scheme, ways| SchemeSpec { scheme, ways };
        assert_eq!(
            parse_schemes("deep,twobig1"),
            Ok(vec![spec(Scheme::Deep, None), spec(Scheme::TwoBig1, None)])
        );
        assert_eq!(parse_schemes("all,modern").map(|v| v.len()), Ok(11));
        assert_eq!(
            parse_schemes("depth-age-8:4"),
            Ok(vec![spec(Scheme::DepthAge { k: 8 }, Some(4))])
        );
        assert!(parse_schemes("twodeep:4").unwrap_err().contains("2 way"));
        for bad in ["priority:99", "priority:0", "priority:x"] {
            assert!(
                parse_schemes(bad).unwrap_err().contains("bad ways"),
                "{bad}"
            );
        }
        for s in SchemeSpec::modern() {
            assert_eq!(s.to_string().parse(), Ok(s));
        }
        assert!(
            parse_schemes("deep,shallow")
                .unwrap_err()
                .contains("shallow")
        );
    }

    #[test]
    fn tables_hold_whole_buckets_of_the_ways_the_table_chooses() {
        let capacity = |spec: &str, entries| {
            let spec: SchemeSpec = spec.parse().expect("a scheme");
            spec.research_table(entries, false)
                .map(|t| t.shape().entries)
        };
        // The paper's schemes fix their ways: 1 or 2, every power of two is whole.
        assert_eq!(capacity("deep", 8192), Ok(8192));
        assert_eq!(capacity("twobig1", 8192), Ok(8192));
        assert_eq!(capacity("twobig1", 9999), Ok(9998));
        // Given ways round down: 3 ways of 8K hold 8190.
        assert_eq!(capacity("depth-age-8:3", 8192), Ok(8190));
        // No ways given: the table's default of two, so an odd count rounds down.
        assert_eq!(Table::<ResearchEntry>::DEFAULT_WAYS, 2);
        assert_eq!(capacity("depth-age-8", 9999), Ok(9998));
        assert_eq!(capacity("priority", 9999), Ok(9998));
        let spec: SchemeSpec = "depth-age-8:3".parse().expect("a scheme");
        assert_eq!(spec.whole_entries(8192), Ok(8190));
        assert!(matches!(spec.whole_entries(2), Err(Failure::Usage(_))));
        let refused = capacity("priority", 1).expect_err("one entry");
        assert!(
            matches!(&refused, Failure::Usage(m) if m.contains("priority")),
            "{refused}"
        );
    }
}
