//! The Markdown report: our analogues of the paper's tables, beside the paper's numbers.
//!
//! Paper numbers: Breuker, Uiterwijk & van den Herik (1994), node counts in thousands summed
//! over the 18 positions, as transcribed in `shared/ANCHORS.md` §1.

use super::record::Row;
use crate::experiment::{sizes::size_name, stats};
use std::{collections::BTreeMap, fmt::Write};

/// Depths of the paper's table (3 to 8 ply).
const PAPER_DEPTHS: [u32; 6] = [3, 4, 5, 6, 7, 8];
/// The paper's no-table node counts, thousands.
const PAPER_NO_TABLE: [u64; 6] = [185, 1_083, 3_847, 23_573, 96_969, 610_696];
/// The paper's 1024K rows, thousands: (scheme, cleared counts, stamped counts).
const PAPER_1024K: [(&str, [u64; 6], [u64; 6]); 7] = [
    (
        "twobig1",
        [194, 897, 2_791, 12_591, 40_161, 191_687],
        [191, 915, 2_738, 12_296, 38_062, 180_187],
    ),
    (
        "twodeep",
        [194, 897, 2_791, 12_507, 39_596, 185_354],
        [191, 915, 2_738, 11_989, 38_514, 191_747],
    ),
    (
        "big1",
        [194, 907, 2_788, 12_568, 40_324, 197_502],
        [191, 914, 2_764, 12_327, 38_357, 197_978],
    ),
    (
        "bigall",
        [194, 907, 2_788, 12_542, 40_478, 197_377],
        [191, 914, 2_792, 11_822, 39_985, 197_573],
    ),
    (
        "deep",
        [194, 899, 2_816, 13_206, 40_916, 196_826],
        [191, 907, 2_753, 11_887, 39_622, 195_008],
    ),
    (
        "new",
        [194, 899, 2_816, 12_702, 39_634, 214_693],
        [191, 907, 2_753, 12_112, 40_656, 202_209],
    ),
    (
        "old",
        [194, 931, 2_798, 12_897, 40_116, 202_986],
        [191, 934, 2_777, 11_926, 39_580, 205_200],
    ),
];

/// A cell's identity: (scheme, stamping, entries, depth).
pub type CellId = (String, String, u64, u32);

/// Summed nodes per cell, from complete cells.
pub type Totals = BTreeMap<CellId, u64>;

/// Per-position nodes per cell, in position order.
pub type PerPosition = BTreeMap<CellId, Vec<u64>>;

fn cell_id(cell: &str) -> Option<CellId> {
    let f: Vec<&str> = cell.split(',').collect();
    match f[..] {
        [scheme, stamping, entries, depth] => Some((
            scheme.to_string(),
            stamping.to_string(),
            entries.parse().ok()?,
            depth.parse().ok()?,
        )),
        _ => None,
    }
}

/// Nodes per position for every cell.
pub fn per_position(rows: &[Row]) -> PerPosition {
    let mut sorted: Vec<&Row> = rows.iter().collect();
    sorted.sort_by_key(|r| r.position);
    let mut out = PerPosition::new();
    for row in sorted {
        if let Some(id) = cell_id(&row.cell) {
            out.entry(id).or_default().push(row.nodes);
        }
    }
    out
}

/// Summed nodes for every cell.
pub fn totals(rows: &[Row]) -> Totals {
    per_position(rows)
        .into_iter()
        .map(|(k, v)| (k, v.iter().sum()))
        .collect()
}

/// The distinct values of one field of the cells, ascending (e.g. every depth run).
pub fn distinct<T: Ord>(totals: &Totals, field: impl Fn(&CellId) -> Option<T>) -> Vec<T> {
    let set: std::collections::BTreeSet<T> = totals.keys().filter_map(field).collect();
    set.into_iter().collect()
}

fn thousands(n: u64) -> String {
    let k = (n + 500) / 1000;
    let s = k.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The no-table total at `depth`, if that baseline ran.
fn baseline(totals: &Totals, depth: u32) -> Option<u64> {
    totals
        .get(&("none".into(), "none".into(), 0, depth))
        .copied()
}

/// "holds", "holds in part" or "does not hold", for a finding true in `wins` of `total`.
fn holds(wins: usize, total: usize) -> &'static str {
    match wins {
        w if w == total => "holds",
        0 => "does not hold",
        _ => "holds in part",
    }
}

/// The report for complete cells' rows.
pub fn markdown(rows: &[Row]) -> String {
    let totals = totals(rows);
    let mut md = String::from(
        "# Replacement schemes: reproduction of Breuker, Uiterwijk & van den Herik (1994)\n\n",
    );
    let positions = rows.iter().map(|r| r.position + 1).max().unwrap_or(0);
    let _ = writeln!(
        md,
        "{} observations on {positions} positions. Node counts are all nodes searched, interior and \
         leaf, quiescence included (the paper counts every node; ALIBABA's quiescence nodes are nodes \
         of its tree). Thousands, summed over the positions.\n",
        rows.len()
    );
    let depths: Vec<u32> = distinct(&totals, |k| Some(k.3));
    // Table 1: the largest size, both stampings, beside the paper's 1024K.
    if let Some(largest) = totals.keys().filter(|k| k.0 != "none").map(|k| k.2).max() {
        table_1(&mut md, &totals, &depths, largest);
    }
    // Table 2 and 3: per size, at the deepest depth every size ran: ratio to no table,
    // ranking, spread.
    let sizes: Vec<u64> = distinct(&totals, |k| (k.0 != "none").then_some(k.2));
    let common_depth = depths
        .iter()
        .rev()
        .find(|&&d| {
            sizes
                .iter()
                .all(|&s| totals.keys().any(|k| k.2 == s && k.3 == d))
        })
        .copied();
    if let Some(depth) = common_depth {
        for stamping in ["cleared", "stamped"] {
            rankings(&mut md, &totals, &sizes, stamping, depth);
        }
        Findings::new(&totals, depth).verdict(&mut md);
        paired_section(&mut md, &per_position(rows), depth);
    }
    md
}

/// Table 1: node counts at the `largest` size, ours beside the paper's 1024K, per depth.
fn table_1(md: &mut String, totals: &Totals, depths: &[u32], largest: u64) {
    let _ = writeln!(
        md,
        "## Table 1: node counts at {} entries (paper: 1024K), ours / paper\n",
        size_name(largest)
    );
    let _ = write!(md, "| | ");
    for d in depths {
        let _ = write!(md, "{d} | ");
    }
    let _ = write!(md, "\n|---|");
    md.push_str(&"---|".repeat(depths.len()));
    md.push('\n');
    let paper_at =
        |d: u32, values: &[u64; 6]| PAPER_DEPTHS.iter().position(|&p| p == d).map(|i| values[i]);
    let _ = write!(md, "| no table | ");
    for &d in depths {
        let ours = baseline(totals, d).map_or("–".into(), thousands);
        let paper = paper_at(d, &PAPER_NO_TABLE).map_or("–".into(), |v| thousands(v * 1000));
        let _ = write!(md, "{ours} / {paper} | ");
    }
    md.push('\n');
    for stamping in ["cleared", "stamped"] {
        for (scheme, cleared, stamped) in PAPER_1024K {
            let paper_row = if stamping == "cleared" {
                cleared
            } else {
                stamped
            };
            let mut any = false;
            let mut line = format!("| {stamping} {scheme} | ");
            for &d in depths {
                let ours = totals.get(&(scheme.to_string(), stamping.to_string(), largest, d));
                any |= ours.is_some();
                let ours = ours.map_or("–".into(), |&n| thousands(n));
                let paper = paper_at(d, &paper_row).map_or("–".into(), |v| thousands(v * 1000));
                let _ = write!(line, "{ours} / {paper} | ");
            }
            if any {
                md.push_str(&line);
                md.push('\n');
            }
        }
    }
    md.push('\n');
}

/// Tables 2–3 for one stamping at `depth`: per size, the schemes ranked by nodes relative
/// to no table, and the spread between the worst and the best.
fn rankings(md: &mut String, totals: &Totals, sizes: &[u64], stamping: &str, depth: u32) {
    let _ = writeln!(
        md,
        "## Tables 2–3: {stamping}, {depth} ply: nodes relative to no table, best scheme first; spread = worst / best − 1\n"
    );
    md.push_str("| size | ranking (nodes ÷ no-table nodes) | spread |\n|---|---|---|\n");
    for &size in sizes {
        let mut ranked: Vec<(String, u64)> = totals
            .iter()
            .filter(|(k, _)| k.1 == stamping && k.2 == size && k.3 == depth)
            .map(|(k, &n)| (k.0.clone(), n))
            .collect();
        if ranked.is_empty() {
            continue;
        }
        ranked.sort_by_key(|(_, n)| *n);
        let base = baseline(totals, depth);
        let ranking: Vec<String> = ranked
            .iter()
            .map(|(s, n)| match base {
                Some(b) if b > 0 => format!("{s} {:.3}", *n as f64 / b as f64),
                _ => format!("{s} {}", thousands(*n)),
            })
            .collect();
        let (best, worst) = (ranked[0].1, ranked[ranked.len() - 1].1);
        let spread = if best > 0 {
            worst as f64 / best as f64 - 1.0
        } else {
            0.0
        };
        let _ = writeln!(
            md,
            "| {} | {} | {:.1}% |",
            size_name(size),
            ranking.join(", "),
            spread * 100.0
        );
    }
    md.push('\n');
}

/// The paper's findings, each checked against the data at `depth` (the deepest depth every
/// size ran): holds, holds in part, or does not, with the numbers.
struct Findings<'a> {
    totals: &'a Totals,
    depth: u32,
    /// The sizes with a table at `depth`, ascending.
    sizes: Vec<u64>,
}

impl<'a> Findings<'a> {
    fn new(totals: &'a Totals, depth: u32) -> Self {
        let sizes = distinct(totals, |k| (k.0 != "none" && k.3 == depth).then_some(k.2));
        Findings {
            totals,
            depth,
            sizes,
        }
    }

    /// Summed nodes of one table setup at the depth.
    fn nodes(&self, scheme: &str, stamping: &str, size: u64) -> Option<u64> {
        self.totals
            .get(&(scheme.to_string(), stamping.to_string(), size, self.depth))
            .copied()
    }

    /// Every table total of one stamping and size at the depth, with its scheme.
    fn setups(&self, stamping: &'a str, size: u64) -> impl Iterator<Item = (&'a String, u64)> {
        let depth = self.depth;
        self.totals
            .iter()
            .filter(move |(k, _)| k.0 != "none" && k.1 == stamping && k.2 == size && k.3 == depth)
            .map(|(k, &n)| (&k.0, n))
    }

    /// The verdict section.
    fn verdict(&self, md: &mut String) {
        let _ = writeln!(
            md,
            "## Verdict at {} ply: the paper's findings against ours\n",
            self.depth
        );
        // 1 and 2: pairwise comparisons over every (stamping, size).
        for (text, better, worse) in [
            ("Two-level tables beat one-level ones", "twobig1", "big1"),
            ("Two-level tables beat one-level ones", "twodeep", "deep"),
            ("Node counts beat depth as a criterion", "big1", "deep"),
            (
                "Node counts beat depth as a criterion",
                "twobig1",
                "twodeep",
            ),
        ] {
            self.claim(md, text, better, worse);
        }
        self.stamping(md);
        self.spread(md);
        self.doubling(md);
        self.recommendation(md);
    }

    /// "`better` searches fewer nodes than `worse`", over every (stamping, size).
    fn claim(&self, md: &mut String, text: &str, better: &str, worse: &str) {
        let mut wins = 0;
        let mut gains = Vec::new();
        for stamping in ["cleared", "stamped"] {
            for &size in &self.sizes {
                if let (Some(b), Some(w)) = (
                    self.nodes(better, stamping, size),
                    self.nodes(worse, stamping, size),
                ) {
                    wins += usize::from(b <= w);
                    gains.push(1.0 - b as f64 / w as f64);
                }
            }
        }
        if gains.is_empty() {
            return;
        }
        let (lo, hi) = gains
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &g| (lo.min(g), hi.max(g)));
        let _ = writeln!(
            md,
            "- {text} ({better} vs {worse}): **{}** — fewer or equal nodes in {wins} of {} \
             table setups; saving {:.1}% to {:.1}%.",
            holds(wins, gains.len()),
            gains.len(),
            lo * 100.0,
            hi * 100.0
        );
    }

    /// Time stamping against clearing, scheme by scheme.
    fn stamping(&self, md: &mut String) {
        let schemes: Vec<String> = distinct(self.totals, |k| (k.0 != "none").then(|| k.0.clone()));
        let (mut wins, mut gains) = (0, Vec::new());
        for scheme in &schemes {
            for &size in &self.sizes {
                if let (Some(st), Some(cl)) = (
                    self.nodes(scheme, "stamped", size),
                    self.nodes(scheme, "cleared", size),
                ) {
                    wins += usize::from(st <= cl);
                    gains.push(1.0 - st as f64 / cl as f64);
                }
            }
        }
        if !gains.is_empty() {
            let mean = gains.iter().sum::<f64>() / gains.len() as f64;
            let _ = writeln!(
                md,
                "- Time stamping beats clearing the table between moves: stamped searched fewer or \
                 equal nodes in {wins} of {} (scheme, size) pairs, {:.1}% fewer on average.",
                gains.len(),
                mean * 100.0
            );
        }
    }

    /// 3: the spreads between best and worst scheme at the smallest and the largest sizes.
    fn spread(&self, md: &mut String) {
        let spread = |stamping: &'a str, size: u64| {
            let all: Vec<u64> = self.setups(stamping, size).map(|(_, n)| n).collect();
            let (min, max) = (all.iter().min()?, all.iter().max()?);
            (all.len() > 1).then(|| *max as f64 / *min as f64 - 1.0)
        };
        if let (Some(&small), Some(&large)) = (self.sizes.first(), self.sizes.last()) {
            let fmt =
                |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{:.1}%", v * 100.0));
            let _ = writeln!(
                md,
                "- The spread between best and worst scheme shrinks with size (paper: about 23% at 8K, \
                 about 3% at 512K and up): ours {} cleared / {} stamped at {}, {} / {} at {}.",
                fmt(spread("cleared", small)),
                fmt(spread("stamped", small)),
                size_name(small),
                fmt(spread("cleared", large)),
                fmt(spread("stamped", large)),
                size_name(large)
            );
        }
    }

    /// 4: what each doubling of the table saves, for the best scheme of the paper.
    fn doubling(&self, md: &mut String) {
        let savings: Vec<String> = self
            .sizes
            .windows(2)
            .filter_map(|w| {
                let (a, b) = (
                    self.nodes("twobig1", "cleared", w[0])?,
                    self.nodes("twobig1", "cleared", w[1])?,
                );
                Some(format!("{:.1}%", (1.0 - b as f64 / a as f64) * 100.0))
            })
            .collect();
        if !savings.is_empty() {
            let _ = writeln!(
                md,
                "- Each doubling of the table saves 5–10% of the tree while the table is short of room \
                 (paper, after Ebeling, Schaeffer, Hyatt): TWOBIG1, cleared, per doubling from {}: {}.",
                self.sizes.first().map_or(String::new(), |&s| size_name(s)),
                savings.join(", ")
            );
        }
    }

    /// 5: the recommendation — which scheme searched the fewest nodes, setup by setup.
    fn recommendation(&self, md: &mut String) {
        let mut wins: BTreeMap<String, usize> = BTreeMap::new();
        let mut setups = 0;
        for stamping in ["cleared", "stamped"] {
            for &size in &self.sizes {
                if let Some((best, _)) = self.setups(stamping, size).min_by_key(|(_, n)| *n) {
                    setups += 1;
                    *wins.entry(best.clone()).or_default() += 1;
                }
            }
        }
        if setups > 0 {
            let twobig1 = wins.get("twobig1").copied().unwrap_or(0);
            let mut ranked: Vec<(String, usize)> = wins.into_iter().collect();
            ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let tally: Vec<String> = ranked.iter().map(|(s, n)| format!("{s} {n}")).collect();
            let _ = writeln!(
                md,
                "- TWOBIG1 is the scheme to recommend (the paper, and its 1996 follow-up): **{}** — \
                 best in {twobig1} of {setups} table setups (best per setup: {}).\n",
                holds(twobig1, setups),
                tally.join(", ")
            );
        }
    }
}

/// Each scheme against the best at every size: per-position ratios with a 95% interval and
/// the Wilcoxon signed-rank p-value, so that "A beats B" comes with its evidence.
fn paired_section(md: &mut String, per: &PerPosition, depth: u32) {
    let _ = writeln!(
        md,
        "## Paired comparisons, {depth} ply: each scheme against the best of its row\n\n\
         Geometric mean over positions of nodes ÷ the best scheme's nodes, its 95% confidence \
         interval, and the two-sided Wilcoxon signed-rank p-value.\n"
    );
    md.push_str("| stamping | size | best | others: ratio [95% CI] p |\n|---|---|---|---|\n");
    let sizes: std::collections::BTreeSet<u64> = per
        .keys()
        .filter(|k| k.0 != "none" && k.3 == depth)
        .map(|k| k.2)
        .collect();
    for stamping in ["cleared", "stamped"] {
        for &size in &sizes {
            let mut cells: Vec<(&String, &Vec<u64>)> = per
                .iter()
                .filter(|(k, _)| k.1 == stamping && k.2 == size && k.3 == depth)
                .map(|(k, v)| (&k.0, v))
                .collect();
            if cells.len() < 2 {
                continue;
            }
            cells.sort_by_key(|(_, v)| v.iter().sum::<u64>());
            let (best, best_nodes) = cells[0];
            let others: Vec<String> = cells[1..]
                .iter()
                .filter_map(|(scheme, nodes)| {
                    let p = stats::paired(nodes, best_nodes)?;
                    let p_text = stats::p_text(p.p);
                    Some(format!(
                        "{scheme} {:.3} [{:.3}, {:.3}] {p_text}",
                        p.ratio, p.low, p.high
                    ))
                })
                .collect();
            let _ = writeln!(
                md,
                "| {stamping} | {} | {best} | {} |",
                size_name(size),
                others.join("; ")
            );
        }
    }
    md.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::breuker::record::sample_row as row;

    #[test]
    fn tables_sum_positions_and_rank_schemes() {
        let rows = vec![
            row("none,none,0,3", 0, 1000),
            row("none,none,0,3", 1, 1000),
            row("deep,cleared,8192,3", 0, 600),
            row("deep,cleared,8192,3", 1, 600),
            row("new,cleared,8192,3", 0, 700),
            row("new,cleared,8192,3", 1, 800),
        ];
        let md = markdown(&rows);
        assert!(md.contains("| no table | 2 / 185 |"), "{md}");
        assert!(md.contains("| cleared deep | 1 / 194 |"), "{md}");
        assert!(
            md.contains("| 8K | deep 0.600, new 0.750 | 25.0% |"),
            "{md}"
        );
        assert_eq!(thousands(1_234_567_000), "1,234,567");
    }
}
