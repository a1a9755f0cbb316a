//! The Connect Four study's Markdown report: positions explored per scheme and size, paired
//! comparisons, and a verdict on the paper's findings.

use super::record::Row;
use crate::experiment::{schemes::SchemeSpec, sizes::size_name, stats};
use std::{collections::BTreeMap, fmt::Write as _};
use transpo_connect4::Strength;

/// What the report says about the run besides its rows.
pub(super) struct Context<'a> {
    /// The command that ran the study.
    pub(super) command_line: &'a str,
    /// The test set's file name.
    pub(super) set: &'a str,
    /// Positions solved per table setup.
    pub(super) positions: usize,
    /// Strong or weak solving.
    pub(super) strength: Strength,
    /// Wall time of the run.
    pub(super) seconds: f64,
    /// The schemes, in the order of the report's rows.
    pub(super) schemes: &'a [SchemeSpec],
    /// The sizes, in the order of the report's columns.
    pub(super) sizes: &'a [u64],
}

/// Node counts per position, in position order, for one (scheme, size).
type Samples = BTreeMap<(String, u64), Vec<u64>>;

fn mean(v: &[u64]) -> f64 {
    v.iter().sum::<u64>() as f64 / v.len().max(1) as f64
}

/// The rows by (scheme, size), with the run's context.
struct Study<'a> {
    ctx: &'a Context<'a>,
    samples: Samples,
    /// The schemes' names, in the report's order.
    names: Vec<String>,
}

impl Study<'_> {
    /// Positions explored per position, in position order, by one scheme at one size.
    fn get(&self, name: &str, size: u64) -> Option<&Vec<u64>> {
        self.samples.get(&(name.to_string(), size))
    }

    /// The scheme with the fewest positions explored (on the mean), per size.
    fn best(&self) -> Vec<Option<&String>> {
        self.ctx
            .sizes
            .iter()
            .map(|&size| {
                self.names
                    .iter()
                    .filter_map(|n| self.get(n, size).map(|v| (n, mean(v))))
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(n, _)| n)
            })
            .collect()
    }

    /// The table of mean positions explored, the ratio to `new`, the best per size in bold.
    fn explored(&self, md: &mut String, best: &[Option<&String>]) {
        md.push_str("## Positions explored\n\n| scheme |");
        for &size in self.ctx.sizes {
            let _ = write!(md, " {} |", size_name(size));
        }
        md.push_str("\n|---|");
        md.push_str(&"---:|".repeat(self.ctx.sizes.len()));
        md.push('\n');
        for name in &self.names {
            let _ = write!(md, "| {name} |");
            for (i, &size) in self.ctx.sizes.iter().enumerate() {
                match (self.get(name, size), self.get("new", size)) {
                    (Some(v), base) => {
                        let m = mean(v);
                        let ratio =
                            base.map_or(String::new(), |b| format!(" ({:.3})", m / mean(b)));
                        let text = format!("{m:.0}{ratio}");
                        if best[i] == Some(name) {
                            let _ = write!(md, " **{text}** |");
                        } else {
                            let _ = write!(md, " {text} |");
                        }
                    }
                    (None, _) => md.push_str(" – |"),
                }
            }
            md.push('\n');
        }
    }

    /// Per size, the best scheme against `new` and the paper's pairs, with ratio, interval
    /// and p-value; returns the verdict's line per size on the best scheme.
    fn paired(&self, md: &mut String, best: &[Option<&String>]) -> Vec<String> {
        md.push_str(
            "\n## Paired comparisons\n\nPer position, the ratio of positions explored (geometric \
             mean over the positions, 95% confidence interval) and the two-sided Wilcoxon \
             signed-rank p-value.\n\n| size | comparison | ratio | 95% CI | Wilcoxon |\n|---|---|---:|---|---:|\n",
        );
        let mut verdict = Vec::new();
        for (i, &size) in self.ctx.sizes.iter().enumerate() {
            let mut pairs: Vec<(String, String)> = Vec::new();
            if let Some(best) = best[i]
                && best != "new"
            {
                pairs.push((best.clone(), "new".into()));
            }
            for (a, b) in [
                ("twodeep", "deep"),
                ("twobig1", "big1"),
                ("big1", "deep"),
                ("twobig1", "twodeep"),
                ("deep", "new"),
            ] {
                pairs.push((a.into(), b.into()));
            }
            for (a, b) in pairs {
                let (Some(x), Some(y)) = (self.get(&a, size), self.get(&b, size)) else {
                    continue;
                };
                if let Some(p) = stats::paired(x, y) {
                    let _ = writeln!(
                        md,
                        "| {} | {a} / {b} | {:.3} | {:.3}–{:.3} | {} |",
                        size_name(size),
                        p.ratio,
                        p.low,
                        p.high,
                        stats::p_text(p.p)
                    );
                }
            }
            if let Some(best) = best[i]
                && let (Some(x), Some(y)) = (self.get(best, size), self.get("new", size))
            {
                verdict.push(format!(
                    "- {}: best `{best}`, {:.1}% fewer positions than `new` (mean over positions)",
                    size_name(size),
                    100.0 * (1.0 - mean(x) / mean(y))
                ));
            }
        }
        verdict
    }

    /// The verdict: the best scheme per size, and at how many sizes each finding holds.
    fn verdict(&self, md: &mut String, best_lines: Vec<String>) {
        md.push_str("\n## Verdict\n\n");
        for line in best_lines {
            md.push_str(&line);
            md.push('\n');
        }
        for (a, b, claim) in [
            (
                "twodeep",
                "deep",
                "two-level beats one-level (TWODEEP vs DEEP)",
            ),
            (
                "twobig1",
                "big1",
                "two-level beats one-level (TWOBIG1 vs BIG1)",
            ),
            ("big1", "deep", "subtree size beats depth (BIG1 vs DEEP)"),
        ] {
            let wins = self
                .ctx
                .sizes
                .iter()
                .filter(|&&size| match (self.get(a, size), self.get(b, size)) {
                    (Some(x), Some(y)) => mean(x) < mean(y),
                    _ => false,
                })
                .count();
            let _ = writeln!(
                md,
                "- {claim}: holds at {wins} of {} sizes",
                self.ctx.sizes.len()
            );
        }
    }
}

/// The Markdown report: positions explored per scheme and size, paired tests, a verdict.
pub(super) fn markdown(rows: &[Row], ctx: &Context) -> String {
    let mut samples = Samples::new();
    for row in rows {
        samples
            .entry((row.scheme.to_string(), row.size))
            .or_default()
            .push(row.nodes);
    }
    let study = Study {
        ctx,
        samples,
        names: ctx.schemes.iter().map(ToString::to_string).collect(),
    };
    let mut md = String::from("# Replacement schemes on Connect Four\n\n");
    let _ = writeln!(
        md,
        "Generated by `{}` ({:.0} s on this machine).\n\n\
         The workspace's Connect Four solver (`transpo-connect4`, unchanged) solved the first {} \
         positions of `{}` ({}) once per table setup, the table cleared before each position, \
         every score checked against the set. The table holds `ResearchEntry`s (full keys: no \
         false hits); *depth* is the number of empty squares below the position, *nodes* the \
         positions explored below it. `new` in one-way buckets is the table of Pons' solver and \
         of `transpo-c4` (always replace). Numbers are mean positions explored per position; \
         the ratio is to `new` at the same size.\n",
        ctx.command_line,
        ctx.seconds,
        ctx.positions,
        ctx.set,
        match ctx.strength {
            Strength::Strong => "strong: the exact score",
            Strength::Weak => "weak: win, draw or loss",
        }
    );
    let best = study.best();
    study.explored(&mut md, &best);
    let best_lines = study.paired(&mut md, &best);
    study.verdict(&mut md, best_lines);
    md.push_str(
        "\nThe CSV beside the report has one row per solve: scheme, size, position, nodes, \
         micros, probes, hits, overwrites.\n",
    );
    md
}
