//! The figure of an Elo study: Elo against pressure (log scale), one series per scheme, each
//! with its own colour and marker, with the 95% intervals as bars and the reference as the
//! line at 0. One figure per setup (profile, reference, nodes, rules).

use super::report::{CellId, Group};
use super::stats::Penta;
use crate::experiment::palette;
use plotters::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Elo beyond this is drawn at the edge (a scheme that loses every game is at −∞).
const CLIP: f64 = 800.0;

/// One series: its name, its style (see [`palette::style`]) and (pressure, Elo, low, high)
/// points.
struct Series {
    name: String,
    style: usize,
    points: Vec<(f64, f64, f64, f64)>,
}

/// Writes one figure per setup into `dir`; returns the files written.
pub fn figures(cells: &[(CellId, Penta)], dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut setups: BTreeMap<Group, Vec<&(CellId, Penta)>> = BTreeMap::new();
    for cell in cells {
        setups.entry(cell.0.group()).or_default().push(cell);
    }
    let profiles: BTreeSet<&str> = setups.keys().map(|g| g.0.as_str()).collect();
    // One figure per profile, numbered when a run holds more than one setup.
    let many = profiles.len() < setups.len();
    // A series keeps its colour and marker in every figure.
    let names: Vec<String> = cells
        .iter()
        .map(|(id, _)| id.series())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut written = Vec::new();
    for (index, (setup, cells)) in setups.iter().enumerate() {
        let mut series: Vec<Series> = Vec::new();
        for (id, penta) in cells {
            if penta.pairs() == 0 {
                continue;
            }
            let e = penta.elo();
            let clip = |v: f64| v.clamp(-CLIP, CLIP);
            let point = (id.pressure, clip(e.elo), clip(e.low), clip(e.high));
            match series.iter_mut().find(|s| s.name == id.series()) {
                Some(s) => s.points.push(point),
                None => series.push(Series {
                    style: names.iter().position(|n| *n == id.series()).unwrap_or(0),
                    name: id.series(),
                    points: vec![point],
                }),
            }
        }
        if series.is_empty() {
            continue;
        }
        let name = if many {
            format!("elo-{}-{}.svg", setup.0, index + 1)
        } else {
            format!("elo-{}.svg", setup.0)
        };
        let title = format!(
            "Elo against pressure, {} profile, vs {} at {} nodes/move",
            setup.0, setup.1, setup.2
        );
        written.push(draw(&dir.join(name), &title, &series)?);
    }
    Ok(written)
}

fn draw(path: &Path, title: &str, series: &[Series]) -> Result<PathBuf, String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let all = || series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, 0.0f64, 0.0f64);
    for &(x, _, low, high) in all() {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(low);
        y1 = y1.max(high);
    }
    // Room for the dodge and the markers at both ends.
    let (x0, x1) = (x0 / 1.6, x1 * 1.6);
    let margin = ((y1 - y0) * 0.08).max(5.0);
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((x0..x1).log_scale(), y0 - margin..y1 + margin)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("pressure: table entries ÷ nodes per move (log scale)")
        .y_desc("Elo against the reference (95% interval)")
        .x_label_formatter(&|v: &f64| format!("{v}"))
        .y_label_formatter(&|v: &f64| format!("{v:+.0}"))
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(LineSeries::new(
            [(x0, 0.0), (x1, 0.0)],
            BLACK.stroke_width(1),
        ))
        .map_err(|e| err(&e))?;
    let n = series.len() as f64;
    for (i, s) in series.iter().enumerate() {
        let (color, kind) = palette::style(s.style);
        // Each series is shifted a little along the (log) x axis so that the bars of
        // schemes at the same pressure do not hide each other.
        let dodge = 10f64.powf(0.025 * (i as f64 - (n - 1.0) / 2.0));
        let points: Vec<(f64, f64, f64, f64)> = s
            .points
            .iter()
            .map(|&(x, e, l, h)| (x * dodge, e, l, h))
            .collect();
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|p| (p.0, p.1)),
                color.stroke_width(2),
            ))
            .map_err(|e| err(&e))?
            .label(s.name.clone())
            .legend(move |at| palette::legend(at, color, kind));
        chart
            .draw_series(
                points
                    .iter()
                    .map(|p| PathElement::new(vec![(p.0, p.2), (p.0, p.3)], color.stroke_width(1))),
            )
            .map_err(|e| err(&e))?;
        chart
            .draw_series(
                points
                    .iter()
                    .map(|p| palette::marker(kind, (p.0, p.1), color)),
            )
            .map_err(|e| err(&e))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(path.to_path_buf())
}
