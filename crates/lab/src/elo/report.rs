//! The Markdown report of an Elo study: one row per scheme × pressure × profile with its
//! pentanomial counts and `Elo ± half-width`, the figures, and the comparison the 1994 paper
//! could not make: does the node-count ranking of the schemes predict their Elo ranking?

use super::record::Row;
use super::stats::{Penta, SprtTest, spearman};
use crate::breuker::record as breuker_record;
use std::{
    collections::{BTreeMap, BTreeSet},
    fmt::Write,
    path::Path,
};

/// Cells compared with each other: (profile, reference, nodes per move, rules).
pub type Group = (String, String, u64, String);

/// A cell's identity, parsed from its CSV key (see [`super::plan::Setup::key`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CellId {
    /// `full` or `paper`.
    pub profile: String,
    /// The tested scheme, `name[:ways]`.
    pub scheme: String,
    /// `stamped` or `unstamped`.
    pub stamping: String,
    /// The reference scheme.
    pub reference: String,
    /// Table entries ÷ nodes per move.
    pub pressure: f64,
    /// Nodes per move.
    pub nodes: u64,
    /// Table entries asked for (before rounding to whole buckets).
    pub entries: u64,
    /// `max_plies/resign_cp/resign_plies`.
    pub rules: String,
}

impl CellId {
    /// Parses `profile,scheme,stamping,reference,pressure,nodes,entries,rules`.
    pub fn parse(key: &str) -> Result<CellId, String> {
        let f: Vec<&str> = key.split(',').collect();
        let bad = |what: &str| format!("cell {key:?}: bad {what}");
        if f.len() != 8 {
            return Err(bad("number of fields"));
        }
        Ok(CellId {
            profile: f[0].into(),
            scheme: f[1].into(),
            stamping: f[2].into(),
            reference: f[3].into(),
            pressure: f[4].parse().map_err(|_| bad("pressure"))?,
            nodes: f[5].parse().map_err(|_| bad("nodes"))?,
            entries: f[6].parse().map_err(|_| bad("entries"))?,
            rules: f[7].into(),
        })
    }

    /// What cells of one figure and one ranking share: (profile, reference, nodes, rules).
    pub fn group(&self) -> Group {
        (
            self.profile.clone(),
            self.reference.clone(),
            self.nodes,
            self.rules.clone(),
        )
    }

    /// The series a cell belongs to in a figure: the scheme, and its stamping when not the
    /// default (stamped).
    pub fn series(&self) -> String {
        if self.stamping == "stamped" {
            self.scheme.clone()
        } else {
            format!("{} {}", self.scheme, self.stamping)
        }
    }
}

/// Every cell with its counts, in the order profile, reference, nodes, rules, scheme,
/// stamping, pressure.
pub fn cells(rows: &[Row]) -> Result<Vec<(CellId, Penta)>, String> {
    let mut cells = Vec::new();
    for (key, penta) in super::record::by_cell(rows) {
        cells.push((CellId::parse(&key)?, penta));
    }
    cells.sort_by(|(a, _), (b, _)| {
        (a.group(), &a.scheme, &a.stamping)
            .cmp(&(b.group(), &b.scheme, &b.stamping))
            .then(a.pressure.total_cmp(&b.pressure))
    });
    Ok(cells)
}

/// Node counts from a `breuker` run: summed nodes per (scheme, stamping, entries, depth)
/// over complete cells, and the number of positions.
pub struct NodeCounts {
    /// Where they came from.
    pub source: String,
    /// Positions per cell.
    pub positions: usize,
    /// Summed nodes per (scheme, stamping, entries, depth); scheme `none` is the baseline.
    pub totals: BTreeMap<(String, String, u64, u32), u64>,
}

impl NodeCounts {
    /// Reads a `breuker` observations CSV; `None` if the file is not there.
    pub fn read(path: &Path) -> Result<Option<NodeCounts>, String> {
        if !path.is_file() {
            return Ok(None);
        }
        let (rows, set) = breuker_record::read_without_set(path, false)?;
        let positions = set.positions;
        let mut totals = BTreeMap::new();
        for rows in breuker_record::complete_cells(rows, positions).into_values() {
            let Some(first) = rows.first() else { continue };
            let f: Vec<&str> = first.cell.split(',').collect();
            let (Some(entries), Some(depth)) = (
                f.get(2).and_then(|s| s.parse::<u64>().ok()),
                f.get(3).and_then(|s| s.parse::<u32>().ok()),
            ) else {
                return Err(format!("{}: bad cell {:?}", path.display(), first.cell));
            };
            let nodes = rows.iter().map(|r| r.nodes).sum();
            totals.insert((f[0].to_string(), f[1].to_string(), entries, depth), nodes);
        }
        Ok(Some(NodeCounts {
            source: path.display().to_string(),
            positions,
            totals,
        }))
    }

    /// The (depth, entries) cell whose pressure — entries ÷ the no-table nodes of one
    /// position at that depth — is nearest `pressure` (on a log scale) among the cells that
    /// hold the most of `schemes` (stamped); ties go to the deeper search. Returns the depth,
    /// the entries, that pressure, and the node totals of the schemes it holds.
    pub fn nearest(&self, pressure: f64, schemes: &[String]) -> Option<NodeCell> {
        let combos: BTreeSet<(u32, u64)> = self.totals.keys().map(|k| (k.3, k.2)).collect();
        let mut best: Option<(usize, f64, u32, NodeCell)> = None;
        for (depth, entries) in combos {
            let nodes: Vec<(String, u64)> = schemes
                .iter()
                .filter_map(|s| {
                    self.totals
                        .get(&(s.clone(), "stamped".into(), entries, depth))
                        .map(|&n| (s.clone(), n))
                })
                .collect();
            if nodes.is_empty() {
                continue;
            }
            let baseline = self
                .totals
                .get(&("none".into(), "none".into(), 0, depth))
                .copied()
                .unwrap_or_else(|| nodes.iter().map(|(_, n)| n).sum::<u64>() / nodes.len() as u64);
            let per_position = baseline as f64 / self.positions.max(1) as f64;
            let cell_pressure = entries as f64 / per_position.max(1.0);
            let distance = (cell_pressure / pressure).ln().abs();
            let better = match &best {
                None => true,
                Some((count, d, best_depth, _)) => {
                    nodes.len() > *count
                        || (nodes.len() == *count
                            && (distance < d - 1e-9
                                || ((distance - d).abs() <= 1e-9 && depth > *best_depth)))
                }
            };
            if better {
                best = Some((
                    nodes.len(),
                    distance,
                    depth,
                    NodeCell {
                        depth,
                        entries,
                        pressure: cell_pressure,
                        nodes,
                    },
                ));
            }
        }
        best.map(|b| b.3)
    }
}

/// The `breuker` cell a pressure is compared with.
pub struct NodeCell {
    /// Search depth.
    pub depth: u32,
    /// Table entries.
    pub entries: u64,
    /// Its pressure: entries ÷ no-table nodes of one position.
    pub pressure: f64,
    /// Summed nodes of each scheme it holds.
    pub nodes: Vec<(String, u64)>,
}

/// What the report says beyond the rows.
pub struct Context<'a> {
    /// The GSPRT to show, if one was asked for.
    pub sprt: Option<SprtTest>,
    /// Node counts of a `breuker` run, for the rank comparison.
    pub node_counts: Option<&'a NodeCounts>,
    /// Where the node counts were looked for (to say so when they are missing).
    pub node_counts_path: &'a Path,
    /// Figure links, already relative to the report.
    pub figures: Vec<String>,
}

/// Formats a pressure as given: `0.1`, `10`.
fn pressure_text(p: f64) -> String {
    format!("{p}")
}

/// The report, without its title line's "Generated by" (the caller inserts it).
pub fn markdown(rows: &[Row], context: &Context) -> Result<String, String> {
    let cells = cells(rows)?;
    let mut md = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(
        md,
        "# Replacement schemes in games: Elo against a reference\n"
    );
    method_section(&mut md, &cells, context);
    elo_table(&mut md, &cells, context);
    figures_section(&mut md, context);
    ranking_section(&mut md, &cells, context);
    Ok(md)
}

/// How the games were played and scored: the setup, the rules, the Elo and its interval,
/// and the SPRT if one was asked for.
fn method_section(md: &mut String, cells: &[(CellId, Penta)], context: &Context) {
    let pairs: u64 = cells.iter().map(|(_, p)| p.pairs()).sum();
    let references: BTreeSet<&str> = cells.iter().map(|(c, _)| c.reference.as_str()).collect();
    let nodes: BTreeSet<u64> = cells.iter().map(|(c, _)| c.nodes).collect();
    let rules: BTreeSet<&str> = cells.iter().map(|(c, _)| c.rules.as_str()).collect();
    let list = |v: Vec<String>| v.join(", ");
    let _ = writeln!(
        md,
        "{pairs} game pairs ({} games) in {} cells. In every cell the tested table plays the \
         reference ({}, stamped) with the same engine, profile and node budget ({} nodes per \
         move): the configurations differ only in the table. Each side has its own \
         `ResearchEntry` table (full keys, subtree sizes for the BIG schemes) of \
         *pressure × nodes per move* entries, rounded down to whole buckets, kept from move \
         to move within a game (each move is a new search: the paper's stamping, or \
         depth-and-age's aging) and cleared between games. **Pressure** is table entries ÷ \
         nodes per move: 0.1 is a table that holds a tenth of one move's tree, 100 one that \
         holds a hundred moves' trees, a whole game of one side.\n",
        2 * pairs,
        cells.len(),
        list(references.iter().map(|s| format!("`{s}`")).collect()),
        list(nodes.iter().map(|n| n.to_string()).collect()),
    );
    let _ = writeln!(
        md,
        "Each opening is played twice with colours swapped (a *pair*). Games end by mate, \
         stalemate, repetition, the fifty-move rule or insufficient material, else are drawn \
         after `max_plies` plies, and are adjudicated a win when both sides' scores agree on \
         at least `resign_cp` for one side in `resign_plies` consecutive plies (rules \
         `max_plies/resign_cp/resign_plies`: {}). Elo is the tested scheme's advantage over \
         the reference (positive: stronger), from the pair score s: Elo = −400·log10(1/s − 1), \
         with a 95% interval from the pentanomial variance (the variance of the pair scores \
         over the pairs, normal approximation on s, mapped through the Elo function), written \
         `Elo ± half-width`. Counts are pairs LL/LD/DD+WL/WD/WW (0 to 2 points); \
         `± 0.0` means every pair scored alike (typically one point each: the two tables \
         led to the same games, or to mirrored ones).\n",
        list(rules.iter().map(|s| format!("`{s}`")).collect())
    );
    if let Some(test) = &context.sprt {
        let (lower, upper) = test.bounds();
        let _ = writeln!(
            md,
            "SPRT: a GSPRT on the pentanomial counts ({test}; logistic Elo; bounds \
             {lower:.2} and {upper:.2}), for the question \"is this scheme at least elo1 \
             better than the reference rather than at most elo0?\"; H1 accepted = yes, H0 = no. \
             A run with `--sprt` stops playing a cell once its test is decided.\n"
        );
    }
}

/// The table of every cell: its counts, score and `Elo ± half-width` (and LLR).
fn elo_table(md: &mut String, cells: &[(CellId, Penta)], context: &Context) {
    // Runs with more than one reference, node budget or rule set name them in every row.
    let setups: BTreeSet<(&str, u64, &str)> = cells
        .iter()
        .map(|(c, _)| (c.reference.as_str(), c.nodes, c.rules.as_str()))
        .collect();
    let _ = writeln!(md, "## Elo by scheme, pressure and profile\n");
    let sprt_head = if context.sprt.is_some() {
        " SPRT |"
    } else {
        ""
    };
    let _ = writeln!(
        md,
        "| profile | scheme | stamping | pressure | entries | pairs | LL/LD/DD+WL/WD/WW | score | Elo |{sprt_head}"
    );
    let _ = writeln!(
        md,
        "|---|---|---|---|---|---|---|---|---|{}",
        if context.sprt.is_some() { "---|" } else { "" }
    );
    for (id, penta) in cells {
        let sprt = context
            .sprt
            .map_or(String::new(), |t| format!(" {} |", penta.sprt(&t)));
        let extra = if setups.len() > 1 {
            format!(" (vs {}, {} nodes, {})", id.reference, id.nodes, id.rules)
        } else {
            String::new()
        };
        let _ = writeln!(
            md,
            "| {} | {}{extra} | {} | {} | {} | {} | {} | {:.1}% | {} |{sprt}",
            id.profile,
            id.scheme,
            id.stamping,
            pressure_text(id.pressure),
            id.entries,
            penta.pairs(),
            penta.counts_text(),
            100.0 * penta.score(),
            penta.elo()
        );
    }
    md.push('\n');
}

/// The figures' links, with what they show; nothing without figures.
fn figures_section(md: &mut String, context: &Context) {
    if !context.figures.is_empty() {
        let _ = writeln!(
            md,
            "## Figures\n\nElo against pressure (log scale), one series per scheme, each with \
             its own colour and marker; bars are the 95% intervals; the reference is the \
             line at 0.\n"
        );
        for link in &context.figures {
            let name = Path::new(link)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(link);
            let _ = writeln!(md, "![{name}]({link})\n");
        }
    }
}

/// The rank comparison: per setup and pressure, Spearman's ρ between the `breuker` node
/// counts (fewest first) and the Elo (highest first), over the stamped schemes and the
/// reference.
fn ranking_section(md: &mut String, cells: &[(CellId, Penta)], context: &Context) {
    let _ = writeln!(
        md,
        "## Does the node-count ranking predict the Elo ranking?\n"
    );
    let Some(counts) = context.node_counts else {
        let _ = writeln!(
            md,
            "No node counts: {} is not there. Run `transpo-lab breuker --schemes all,modern` \
             (or pass its observations with `--node-counts`) and write this report again \
             with `--report-only`.\n",
            context.node_counts_path.display()
        );
        return;
    };
    ranking_method(md, counts);
    let mut groups: BTreeMap<Group, BTreeSet<u64>> = BTreeMap::new();
    for (id, _) in cells {
        groups
            .entry(id.group())
            .or_default()
            .insert(id.pressure.to_bits());
    }
    for (setup, pressures) in groups {
        let mut pressures: Vec<f64> = pressures.into_iter().map(f64::from_bits).collect();
        pressures.sort_by(f64::total_cmp);
        for pressure in pressures {
            ranking_row(md, cells, counts, &setup, pressure);
        }
    }
    md.push('\n');
}

/// Where the node counts come from, how a pressure finds its node-count cell, how ranks are
/// compared; then the ranking table's head.
fn ranking_method(md: &mut String, counts: &NodeCounts) {
    let _ = writeln!(
        md,
        "Games cannot give nodes-to-depth (a game searches a fixed number of nodes, not to a \
         fixed depth), so the node counts come from the `breuker` experiment ({}: the \
         `paper` profile searching {} positions to a fixed depth, time-stamped tables). For \
         each pressure it takes the (depth, size) cell whose own pressure — entries ÷ the \
         no-table nodes of one position at that depth — is nearest, among the cells that \
         hold the most of the schemes. Ranks: fewest nodes = 1 and highest Elo = 1, ties \
         averaged; ρ = +1 means the node counts order the schemes exactly as the games do. The \
         node spread (most ÷ fewest nodes − 1) says how much the node ranking rests on: \
         where it is a fraction of a percent, the ranking orders schemes that search alike. \
         The reference counts in both rankings (Elo 0). With 11 schemes |ρ| above about \
         0.62 is significant at 5% (two-sided); ρ ignores the Elo intervals, so where the \
         intervals overlap it measures the noise too.\n",
        counts.source, counts.positions
    );
    let _ = writeln!(
        md,
        "| profile | pressure | node-count cell (its pressure) | schemes | node spread | Spearman ρ | fewest nodes first (nodes) | highest Elo first (Elo) |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
}

/// A scheme with its summed nodes and its Elo.
type NodesAndElo = (String, f64, f64);

/// One row of the ranking table: the setup's stamped schemes at one pressure (and the
/// reference, Elo 0) against the node counts of the nearest `breuker` cell.
fn ranking_row(
    md: &mut String,
    cells: &[(CellId, Penta)],
    counts: &NodeCounts,
    setup: &Group,
    pressure: f64,
) {
    let mut elo: Vec<(String, f64)> = cells
        .iter()
        .filter(|(id, p)| {
            id.group() == *setup
                && id.pressure == pressure
                && id.stamping == "stamped"
                && p.pairs() > 0
        })
        .map(|(id, p)| (id.scheme.clone(), p.elo().elo))
        .collect();
    elo.push((setup.1.clone(), 0.0));
    let names: Vec<String> = elo.iter().map(|(s, _)| s.clone()).collect();
    let Some(node_cell) = counts.nearest(pressure, &names) else {
        let _ = writeln!(
            md,
            "| {} | {} | none holds these schemes | | | | | |",
            setup.0,
            pressure_text(pressure)
        );
        return;
    };
    let both: Vec<NodesAndElo> = node_cell
        .nodes
        .iter()
        .filter_map(|(s, n)| {
            elo.iter()
                .find(|(e, _)| e == s)
                .map(|(_, v)| (s.clone(), *n as f64, *v))
        })
        .collect();
    let nodes: Vec<f64> = both.iter().map(|b| b.1).collect();
    // Highest Elo first: rank the negated Elo.
    let neg_elo: Vec<f64> = both.iter().map(|b| -b.2).collect();
    let rho = spearman(&nodes, &neg_elo).map_or("n/a".to_string(), |r| format!("{r:+.2}"));
    let nodes_order = ordered(&both, &|b| b.1, &|b| format!("{:.1}K", b.1 / 1000.0));
    let (low, high) = nodes
        .iter()
        .fold((f64::MAX, 0.0f64), |(l, h), &n| (l.min(n), h.max(n)));
    let spread = if low > 0.0 && low < f64::MAX {
        format!("{:.2}%", 100.0 * (high / low - 1.0))
    } else {
        "n/a".into()
    };
    let elo_order = ordered(&both, &|b| -b.2, &|b| format!("{:+.0}", b.2));
    let _ = writeln!(
        md,
        "| {} | {} | {} ply, {} entries ({:.2}) | {} | {spread} | {rho} | {} | {} |",
        setup.0,
        pressure_text(pressure),
        node_cell.depth,
        node_cell.entries,
        node_cell.pressure,
        both.len(),
        nodes_order,
        elo_order
    );
}

/// The schemes sorted by `key`, each name with its value as `show` writes it (nodes in
/// thousands, Elo signed).
fn ordered(
    both: &[NodesAndElo],
    key: &dyn Fn(&NodesAndElo) -> f64,
    show: &dyn Fn(&NodesAndElo) -> String,
) -> String {
    let mut v: Vec<&NodesAndElo> = both.iter().collect();
    v.sort_by(|a, b| key(a).total_cmp(&key(b)));
    v.iter()
        .map(|b| format!("{} ({})", b.0, show(b)))
        .collect::<Vec<_>>()
        .join(", ")
}
