//! SVG figures: the analogues of the paper's Figures 1–3.
//!
//! Figures 1 and 2: nodes against table size, one line per scheme, at one depth (7 ply in
//! the paper), for cleared and time-stamped tables. Figure 3: nodes against depth with and
//! without a table, on a log scale.

use super::report::Totals;
use crate::experiment::{palette, sizes::size_name};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// One named line of points, drawn in the colour and marker of [`palette::style`]`(style)`
/// (a scheme keeps its style in every figure).
struct Line {
    name: String,
    points: Vec<(f64, f64)>,
    style: usize,
}

/// The smallest and largest x and y of the lines' points, `(x0, x1, y0, y1)`, widened where
/// they are equal so that an axis has a length; an error when there are no points.
fn data_range(title: &str, lines: &[Line]) -> Result<(f64, f64, f64, f64), String> {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in lines.iter().flat_map(|l| l.points.iter()) {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return Err(format!("{title}: no data"));
    }
    let (x1, y1) = (
        if x1 > x0 { x1 } else { x0 + 1.0 },
        if y1 > y0 { y1 } else { y0 * 1.1 + 1.0 },
    );
    Ok((x0, x1, y0, y1))
}

/// Draws the mesh, every line with its markers, and the legend on a built chart, mapping
/// errors with `$err`. A macro, not a function: the two kinds of figure have charts of
/// different coordinate types (a log x axis, a log y axis).
macro_rules! finish_chart {
    ($chart:expr, $err:expr, $lines:expr, ($x_desc:expr, $y_desc:expr), $fmt_x:expr, $legend:expr, $x_labels:expr) => {{
        let err = $err;
        let mut chart = $chart.map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc($x_desc)
            .y_desc($y_desc)
            .x_labels($x_labels)
            .x_label_formatter(&$fmt_x)
            .y_label_formatter(&|v: &f64| format!("{:.0}", v))
            .draw()
            .map_err(|e| err(&e))?;
        for line in $lines {
            // Every series its own colour and marker (up to twelve: the eleven schemes
            // and the no-table baseline of Figure 3).
            let (color, kind) = palette::style(line.style);
            chart
                .draw_series(LineSeries::new(
                    line.points.iter().copied(),
                    color.stroke_width(2),
                ))
                .map_err(|e| err(&e))?
                .label(line.name.clone())
                .legend(move |at| palette::legend(at, color, kind));
            chart
                .draw_series(line.points.iter().map(|&p| palette::marker(kind, p, color)))
                .map_err(|e| err(&e))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position($legend)
            .draw()
            .map_err(|e| err(&e))?;
    }};
}

/// Draws lines, returning the file written: with `sizes_on_x`, table sizes on a log2 x axis
/// and a linear y axis (Figures 1–2); otherwise depths on a linear x axis and a log y axis
/// (Figure 3).
fn draw(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    lines: &[Line],
    sizes_on_x: bool,
) -> Result<PathBuf, String> {
    let (x0, x1, y0, y1) = data_range(title, lines)?;
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80);
    let integer = |v: &f64| {
        if (v - v.round()).abs() < 1e-6 {
            format!("{v:.0}")
        } else {
            String::new()
        }
    };
    if sizes_on_x {
        let margin = (y1 - y0) * 0.1;
        let chart = builder.build_cartesian_2d(
            (x0..x1).log_scale().base(2.0),
            (y0 - margin).max(0.0)..y1 + margin,
        );
        let points = lines.iter().map(|l| l.points.len()).max().unwrap_or(2);
        finish_chart!(
            chart,
            err,
            lines,
            (x_desc, y_desc),
            |v: &f64| size_name(v.round() as u64),
            SeriesLabelPosition::UpperRight,
            points
        );
    } else {
        let chart =
            builder.build_cartesian_2d(x0 - 0.2..x1 + 0.2, (y0 * 0.8..y1 * 1.25).log_scale());
        finish_chart!(
            chart,
            err,
            lines,
            (x_desc, y_desc),
            integer,
            SeriesLabelPosition::UpperLeft,
            (x1 - x0) as usize + 1
        );
    }
    root.present().map_err(|e| err(&e))?;
    Ok(path.to_path_buf())
}

/// Writes the figures for `totals` into `dir`; returns the files written.
pub fn figures(totals: &Totals, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    let schemes: Vec<String> =
        super::report::distinct(totals, |k| (k.0 != "none").then(|| k.0.clone()));
    let depths: Vec<u32> = super::report::distinct(totals, |k| Some(k.3));
    // Figures 1–2 at 7 ply, or the deepest depth with more than one size.
    let sizes_at = |depth: u32| {
        totals
            .keys()
            .filter(|k| k.0 != "none" && k.3 == depth)
            .map(|k| k.2)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    let figure_depth = if sizes_at(7) > 1 {
        Some(7)
    } else {
        depths.iter().rev().copied().find(|&d| sizes_at(d) > 1)
    };
    if let Some(depth) = figure_depth {
        for (number, stamping) in [(1, "cleared"), (2, "stamped")] {
            let lines: Vec<Line> = schemes
                .iter()
                .enumerate()
                .map(|(style, scheme)| Line {
                    name: scheme.clone(),
                    style,
                    points: totals
                        .iter()
                        .filter(|(k, _)| &k.0 == scheme && k.1 == stamping && k.3 == depth)
                        .map(|(k, &n)| (k.2 as f64, n as f64 / 1000.0))
                        .collect(),
                })
                .filter(|l| !l.points.is_empty())
                .collect();
            if lines.is_empty() {
                continue;
            }
            let path = dir.join(format!("figure{number}-{stamping}-{depth}ply.svg"));
            let title =
                format!("Figure {number}: nodes against table size, {depth} ply, {stamping}");
            written.push(draw(
                &path,
                &title,
                "table size (entries)",
                "nodes (thousands)",
                &lines,
                true,
            )?);
        }
    }
    // Figure 3: nodes against depth, no table and every scheme at the largest size, cleared.
    if let Some(largest) = totals.keys().filter(|k| k.0 != "none").map(|k| k.2).max() {
        let mut lines = vec![Line {
            name: "no table".into(),
            // After the schemes' styles, so that each scheme keeps its own.
            style: schemes.len(),
            points: totals
                .iter()
                .filter(|(k, _)| k.0 == "none")
                .map(|(k, &n)| (f64::from(k.3), n as f64 / 1000.0))
                .collect(),
        }];
        for (style, scheme) in schemes.iter().enumerate() {
            lines.push(Line {
                style,
                name: format!("{scheme} {}", size_name(largest)),
                points: totals
                    .iter()
                    .filter(|(k, _)| &k.0 == scheme && k.1 == "cleared" && k.2 == largest)
                    .map(|(k, &n)| (f64::from(k.3), n as f64 / 1000.0))
                    .collect(),
            });
        }
        lines.retain(|l| !l.points.is_empty());
        if lines.iter().any(|l| l.points.len() > 1) {
            let path = dir.join("figure3-depth.svg");
            written.push(draw(
                &path,
                "Figure 3: nodes against depth, with and without a table",
                "depth (plies)",
                "nodes (thousands)",
                &lines,
                false,
            )?);
        }
    }
    Ok(written)
}
