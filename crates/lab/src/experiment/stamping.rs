//! How a table is treated from one search to the next (its *stamping*), as both studies name
//! it on the command line and in their CSVs.
//!
//! `breuker` searches the positions of a set one after another and either clears the table
//! before each or keeps it with the paper's time stamping; `elo` keeps a table from move to
//! move within a game, with or without that stamping. The three treatments are one type, so
//! that a word means one thing and the rule of when the paper's stamping is on is stated
//! once; each command offers its own two ([`BREUKER`], [`ELO`]) and refuses the third.

use super::schemes::SchemeSpec;
use std::fmt;

/// How a table is treated between two searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stamping {
    /// Cleared before every search (`breuker`).
    Cleared,
    /// Kept, with entries of earlier searches marked old: the paper's time stamping (old
    /// entries count as empty when storing; probes still find them).
    Stamped,
    /// Kept as it is: entries of earlier searches compete under the scheme's own rule (OLD
    /// then keeps the first entries) (`elo`).
    Unstamped,
}

impl Stamping {
    /// The word the command line and the CSVs use.
    pub fn name(self) -> &'static str {
        match self {
            Stamping::Cleared => "cleared",
            Stamping::Stamped => "stamped",
            Stamping::Unstamped => "unstamped",
        }
    }

    /// The stamping written exactly as [`Stamping::name`] writes it.
    pub fn from_name(word: &str) -> Option<Stamping> {
        [Stamping::Cleared, Stamping::Stamped, Stamping::Unstamped]
            .into_iter()
            .find(|s| s.name() == word)
    }

    /// Whether a table of `spec` with this stamping turns the paper's stamping on: only the
    /// paper's schemes have it (depth-and-age weighs age by its own rule either way).
    pub fn table_flag(self, spec: &SchemeSpec) -> bool {
        self == Stamping::Stamped && spec.uses_paper_stamping()
    }
}

impl fmt::Display for Stamping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The stampings one command offers.
#[derive(Clone, Copy, Debug)]
pub struct Offered {
    /// The two it offers, in the order `both` lists them.
    pub both: [Stamping; 2],
    /// What its error message says it expected.
    pub expected: &'static str,
}

/// `breuker`'s: a table cleared before every position, or kept with time stamping.
pub const BREUKER: Offered = Offered {
    both: [Stamping::Cleared, Stamping::Stamped],
    expected: "cleared or stamped",
};

/// `elo`'s: a table kept from move to move with the paper's time stamping, or without.
pub const ELO: Offered = Offered {
    both: [Stamping::Stamped, Stamping::Unstamped],
    expected: "stamped, unstamped or both",
};

impl Offered {
    /// One stamping of the command's two (surrounding blanks ignored).
    pub fn parse_one(&self, s: &str) -> Result<Stamping, String> {
        Stamping::from_name(s.trim())
            .filter(|stamping| self.both.contains(stamping))
            .ok_or_else(|| format!("unknown stamping {s:?} (expected {})", self.expected))
    }

    /// `both` (the command's two) or a comma-separated list of its stampings, each once
    /// (a stamping given twice would run its cells twice).
    pub fn parse(&self, s: &str) -> Result<Vec<Stamping>, String> {
        let mut stampings = match s.trim() {
            "both" => self.both.to_vec(),
            other => other
                .split(',')
                .map(|item| self.parse_one(item))
                .collect::<Result<Vec<_>, _>>()?,
        };
        let mut seen = Vec::new();
        stampings.retain(|s| {
            let first = !seen.contains(s);
            seen.push(*s);
            first
        });
        Ok(stampings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_takes_its_two_and_refuses_the_third() {
        assert_eq!(
            BREUKER.parse("both"),
            Ok(vec![Stamping::Cleared, Stamping::Stamped])
        );
        assert_eq!(
            ELO.parse("both"),
            Ok(vec![Stamping::Stamped, Stamping::Unstamped])
        );
        assert_eq!(BREUKER.parse("stamped"), Ok(vec![Stamping::Stamped]));
        assert_eq!(
            ELO.parse("unstamped,stamped"),
            Ok(vec![Stamping::Unstamped, Stamping::Stamped])
        );
        assert_eq!(
            BREUKER.parse("unstamped"),
            Err("unknown stamping \"unstamped\" (expected cleared or stamped)".into())
        );
        assert_eq!(
            ELO.parse("cleared"),
            Err("unknown stamping \"cleared\" (expected stamped, unstamped or both)".into())
        );
        assert!(BREUKER.parse("sometimes").is_err());
        assert_eq!(
            BREUKER.parse("stamped,cleared,stamped"),
            Ok(vec![Stamping::Stamped, Stamping::Cleared])
        );
    }

    #[test]
    fn names_are_read_back_exactly() {
        for s in [Stamping::Cleared, Stamping::Stamped, Stamping::Unstamped] {
            assert_eq!(Stamping::from_name(&s.to_string()), Some(s));
        }
        assert_eq!(Stamping::from_name("Stamped"), None);
        assert_eq!(Stamping::from_name(" stamped"), None);
    }

    #[test]
    fn only_stamped_tables_of_the_papers_schemes_use_its_stamping() {
        let deep: SchemeSpec = "deep".parse().expect("known");
        let modern: SchemeSpec = "depth-age-8:4".parse().expect("known");
        assert!(Stamping::Stamped.table_flag(&deep));
        assert!(!Stamping::Stamped.table_flag(&modern));
        assert!(!Stamping::Cleared.table_flag(&deep));
        assert!(!Stamping::Unstamped.table_flag(&deep));
    }
}
