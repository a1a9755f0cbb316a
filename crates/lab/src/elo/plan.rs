//! The study's plan: which configurations play the reference (cells), in which order the
//! game pairs run, and which opening each pair plays.
//!
//! A *cell* is one (profile, scheme, stamping, pressure) against the fixed reference; the
//! unit of work, of resumption and of sharding is one *pair* of a cell (one opening, played
//! twice with colours swapped). Pairs are enumerated pair-major (pair 0 of every cell, then
//! pair 1 of every cell, …), so that an interrupted run or one shard of many holds about
//! as many pairs of every cell.
//!
//! **Pressure** `p` is table entries ÷ nodes per move: the table holds `p × nodes` entries
//! (rounded down to whole buckets), so `p = 0.1` is a table that holds a tenth of the tree
//! of one move and `p = 100` one that holds the trees of a hundred moves, a whole game of
//! one side without replacement pressure.

use crate::experiment::{schemes::SchemeSpec, stamping::Stamping};
use std::ops::RangeInclusive;
use transpo::key::SplitMix64;
use transpo_engine::search::Profile;

/// Nodes per move the command line allows (and a row of the CSV is read against).
pub const NODES: RangeInclusive<u64> = 100..=100_000_000;

/// Game pairs per cell the command line allows; a pair's index is below the largest.
pub const PAIRS: RangeInclusive<u64> = 1..=1_000_000;

/// Plies after which a game is a draw, as the command line allows them.
pub const MAX_PLIES: RangeInclusive<i64> = 1..=10_000;

/// Win adjudication's centipawns, as the command line allows them.
pub const RESIGN_CP: RangeInclusive<i64> = 1..=100_000;

/// Win adjudication's consecutive plies, as the command line allows them (0: off).
pub const RESIGN_PLIES: RangeInclusive<i64> = 0..=1_000;

/// Profiles: `full`, `paper`, `both` or a comma-separated list, each once (a profile given
/// twice would play its cells twice).
pub fn parse_profiles(s: &str) -> Result<Vec<Profile>, String> {
    let mut profiles: Vec<Profile> = match s.trim() {
        "both" => vec![Profile::Full, Profile::Paper],
        other => other
            .split(',')
            .map(|p| {
                p.parse()
                    .map_err(|e: transpo_engine::search::UnknownProfile| e.to_string())
            })
            .collect::<Result<_, _>>()?,
    };
    let mut seen = Vec::new();
    profiles.retain(|p| {
        let first = !seen.contains(p);
        seen.push(*p);
        first
    });
    Ok(profiles)
}

/// Pressures, comma-separated, each a positive number (table entries ÷ nodes per move).
pub fn parse_pressures(s: &str) -> Result<Vec<f64>, String> {
    let mut v = Vec::new();
    for t in s.split(',') {
        let p: f64 = t.trim().parse().map_err(|_| {
            format!("bad pressure {t:?}: expected a positive number, e.g. 0.1,1,10,100")
        })?;
        if !(p.is_finite() && p > 0.0) {
            return Err(format!("bad pressure {t:?}: must be positive"));
        }
        v.push(p);
    }
    v.sort_by(f64::total_cmp);
    v.dedup();
    Ok(v)
}

/// One configuration against the reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// The search profile of both sides.
    pub profile: Profile,
    /// The tested scheme.
    pub scheme: SchemeSpec,
    /// The tested table's stamping.
    pub stamping: Stamping,
    /// Table entries ÷ nodes per move, for both sides.
    pub pressure: f64,
}

/// What every cell of a run shares: the reference, the node budget, the game rules.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    /// The reference scheme (stamped: the paper's stamping if it is one of the paper's).
    pub reference: SchemeSpec,
    /// Nodes per move, both sides.
    pub nodes: u64,
    /// Plies after which a game is a draw.
    pub max_plies: u32,
    /// Win adjudication: both sides' scores this far for one side …
    pub resign_cp: i32,
    /// … in this many consecutive plies (0: off).
    pub resign_plies: u32,
}

impl Setup {
    /// The game rules as the CSV records them: `max_plies/resign_cp/resign_plies`.
    pub fn rules(&self) -> String {
        format!(
            "{}/{}/{}",
            self.max_plies, self.resign_cp, self.resign_plies
        )
    }

    /// Table entries at a pressure: `pressure × nodes`, rounded to the nearest entry (the
    /// table then rounds down to whole buckets).
    pub fn entries(&self, pressure: f64) -> u64 {
        entries_at(pressure, self.nodes)
    }

    /// The cell's identity as the CSV writes it:
    /// `profile,scheme,stamping,reference,pressure,nodes,entries,rules`.
    pub fn key(&self, cell: &Cell) -> String {
        format!(
            "{},{},{},{},{},{},{},{}",
            cell.profile,
            cell.scheme,
            cell.stamping,
            self.reference,
            cell.pressure,
            self.nodes,
            self.entries(cell.pressure),
            self.rules()
        )
    }
}

/// Table entries at a pressure with `nodes` per move: `pressure × nodes`, rounded to the
/// nearest entry, at least one (a pressure too large for 64 bits gives the most).
pub fn entries_at(pressure: f64, nodes: u64) -> u64 {
    (pressure * nodes as f64).round().max(1.0) as u64
}

/// The cells of a study, in the order profile, scheme, stamping, pressure; the reference
/// itself is left out (it would play itself: deterministic mirror games, Elo 0 exactly),
/// and a scheme without the paper's stamping runs only `stamped` (unstamped would repeat
/// its games).
pub fn cells(
    profiles: &[Profile],
    schemes: &[SchemeSpec],
    stampings: &[Stamping],
    pressures: &[f64],
    reference: &SchemeSpec,
) -> Vec<Cell> {
    let mut cells = Vec::new();
    for &profile in profiles {
        for &scheme in schemes {
            let own: Vec<Stamping> = if scheme.uses_paper_stamping() {
                stampings.to_vec()
            } else {
                vec![Stamping::Stamped]
            };
            for stamping in own {
                if scheme == *reference && stamping == Stamping::Stamped {
                    continue;
                }
                for &pressure in pressures {
                    cells.push(Cell {
                        profile,
                        scheme,
                        stamping,
                        pressure,
                    });
                }
            }
        }
    }
    cells
}

/// One unit of work: pair `pair` of cell `cell` (an index into the cell list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    /// Index of the cell.
    pub cell: usize,
    /// Index of the pair, which fixes its opening.
    pub pair: usize,
}

/// The most pairs one run may hold, all cells together before sharding: 2^24, far beyond
/// what any study can play, and a bound on the memory its list of [`Item`]s takes.
pub const MOST_PAIRS_IN_A_RUN: usize = 1 << 24;

/// Checks that `cells` cells of `pairs` pairs each stay within [`MOST_PAIRS_IN_A_RUN`], before
/// anything is sized by them.
pub fn check_run_size(cells: usize, pairs: usize) -> Result<(), String> {
    match cells.checked_mul(pairs) {
        Some(total) if total <= MOST_PAIRS_IN_A_RUN => Ok(()),
        _ => Err(format!(
            "{cells} cells × {pairs} pairs is more than the {MOST_PAIRS_IN_A_RUN} pairs one run \
             may hold: give fewer --pairs, schemes, pressures or profiles"
        )),
    }
}

/// Every pair of every cell, pair-major.
pub fn items(cells: usize, pairs: usize) -> Vec<Item> {
    (0..pairs)
        .flat_map(|pair| (0..cells).map(move |cell| Item { cell, pair }))
        .collect()
}

/// An opening: its index among the file's non-empty, non-comment lines, and its FEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Index of the line among the file's positions (0-based).
    pub index: usize,
    /// The position as FEN.
    pub fen: String,
}

/// The openings of pairs `0..pairs`: the file's positions in an order shuffled by `seed`
/// (the same for every cell, so that all cells play the same openings), each position at
/// most once. Every chosen line must parse.
pub fn openings(text: &str, name: &str, seed: u64, pairs: usize) -> Result<Vec<Opening>, String> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    if lines.len() < pairs {
        return Err(format!(
            "{name}: {} positions, fewer than the {pairs} pairs asked for",
            lines.len()
        ));
    }
    let mut order: Vec<usize> = (0..lines.len()).collect();
    // SplitMix64's first output for a seed: a fixed, well-mixed hash of a 64-bit number.
    let hash = |x: u64| SplitMix64::new(x).next_u64();
    order.sort_by_key(|&i| (hash(seed ^ hash(i as u64)), i));
    order
        .into_iter()
        .take(pairs)
        .map(|index| {
            let (line_number, line) = lines[index];
            let fen = transpo_engine::selfplay::read_openings(line, 1, 0)
                .pop()
                .unwrap_or_default();
            transpo_chess::Position::from_fen(&fen)
                .map_err(|e| format!("{name}: line {}: {e}", line_number + 1))?;
            Ok(Opening { index, fen })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::schemes::parse_schemes;

    #[test]
    fn the_default_study_has_eighty_cells() {
        let schemes = parse_schemes("all,modern").expect("known");
        let reference: SchemeSpec = "depth-age-8:4".parse().expect("known");
        let cells = cells(
            &[Profile::Full, Profile::Paper],
            &schemes,
            &[Stamping::Stamped],
            &[0.1, 1.0, 10.0, 100.0],
            &reference,
        );
        // 7 paper + 4 modern − the reference = 10 schemes × 4 pressures × 2 profiles.
        assert_eq!(cells.len(), 80);
        assert!(cells.iter().all(|c| c.scheme != reference));
        // Both stampings: the paper's seven twice, the three modern ones once.
        let both = super::cells(
            &[Profile::Full],
            &schemes,
            &[Stamping::Stamped, Stamping::Unstamped],
            &[1.0],
            &reference,
        );
        assert_eq!(both.len(), 7 * 2 + 3);
    }

    #[test]
    fn pressure_is_entries_per_node_of_a_move() {
        let setup = Setup {
            reference: "depth-age-8:4".parse().expect("known"),
            nodes: 5_000,
            max_plies: 300,
            resign_cp: 1000,
            resign_plies: 8,
        };
        assert_eq!(setup.entries(0.1), 500);
        assert_eq!(setup.entries(100.0), 500_000);
        let cell = Cell {
            profile: Profile::Paper,
            scheme: "twobig1".parse().expect("known"),
            stamping: Stamping::Stamped,
            pressure: 0.1,
        };
        assert_eq!(
            setup.key(&cell),
            "paper,twobig1,stamped,depth-age-8:4,0.1,5000,500,300/1000/8"
        );
    }

    #[test]
    fn items_are_pair_major_and_openings_fixed_by_the_seed() {
        let items = items(3, 2);
        assert_eq!(items.len(), 6);
        assert_eq!(items[3], Item { cell: 0, pair: 1 });
        let text = "8/8/8/8/8/8/8/K1k5 w - - 0 1\n\n# c\n4k3/8/8/8/8/8/8/4K3 w - - 0 1\n\
                    4k3/8/8/8/8/8/8/R3K3 w - -\n";
        let a = openings(text, "t", 7, 3).expect("three positions");
        assert_eq!(a, openings(text, "t", 7, 3).expect("again"));
        // The order of seed 7, pinned: a study resumed by a later build must get the same.
        assert_eq!(a.iter().map(|o| o.index).collect::<Vec<_>>(), vec![2, 0, 1]);
        let mut indices: Vec<usize> = a.iter().map(|o| o.index).collect();
        indices.sort_unstable();
        assert_eq!(indices, vec![0, 1, 2]);
        assert!(openings(text, "t", 7, 4).unwrap_err().contains("fewer"));
        assert_eq!(check_run_size(80, 400), Ok(()));
        assert_eq!(check_run_size(16, 1 << 20), Ok(()));
        assert!(
            check_run_size(17, 1 << 20)
                .unwrap_err()
                .contains("fewer --pairs")
        );
        assert!(check_run_size(usize::MAX, 2).is_err());
        assert!(
            openings("nonsense here\n", "t", 1, 1)
                .unwrap_err()
                .contains("line 1")
        );
    }

    #[test]
    fn bad_values_say_why() {
        assert_eq!(parse_pressures("10,0.1,1"), Ok(vec![0.1, 1.0, 10.0]));
        for bad in ["0", "-1", "x", "inf"] {
            assert!(parse_pressures(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_profiles("both").map(|v| v.len()), Ok(2));
        assert!(parse_profiles("fast").unwrap_err().contains("fast"));
        assert_eq!(
            parse_profiles("paper,full,paper"),
            Ok(vec![Profile::Paper, Profile::Full])
        );
    }
}
