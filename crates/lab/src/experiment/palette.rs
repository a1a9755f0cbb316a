//! Series styles for the lab's figures: twelve colours and twelve markers, so that every
//! series of a figure (up to twelve) differs from every other in both, and a figure stays
//! readable in grey or to a colour-blind reader.

use plotters::element::{Drawable, PointCollection};
use plotters::prelude::{BLACK, DrawingBackend};
use plotters::style::{Color, RGBColor, ShapeStyle};
use plotters_backend::{BackendCoord, DrawingErrorKind};

/// Twelve colours: the ten of Matplotlib's `tab10`, black and a dark gold.
pub const COLORS: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    BLACK,
    RGBColor(200, 150, 0),
];

/// A point marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// ●
    Circle,
    /// ■
    Square,
    /// ▲
    Triangle,
    /// ◆
    Diamond,
    /// ×
    Cross,
    /// +
    Plus,
    /// ○
    OpenCircle,
    /// □
    OpenSquare,
    /// △
    OpenTriangle,
    /// ◇
    OpenDiamond,
    /// ▼
    Down,
    /// ✳ (× and + together)
    Star,
}

/// The markers, in the order series take them.
pub const MARKERS: [Marker; 12] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::Cross,
    Marker::OpenCircle,
    Marker::OpenSquare,
    Marker::OpenTriangle,
    Marker::OpenDiamond,
    Marker::Plus,
    Marker::Down,
    Marker::Star,
];

/// The style of series `i`: its colour and marker (both repeat only after twelve series).
pub fn style(i: usize) -> (RGBColor, Marker) {
    (COLORS[i % COLORS.len()], MARKERS[i % MARKERS.len()])
}

/// Marker size: the radius of a circle, in pixels.
const R: i32 = 4;

/// A marker drawn at one point: one element type for every [`Marker`], so that a series of
/// them, or a legend entry, is one ordinary plotters element.
pub struct MarkerElement<C> {
    at: C,
    kind: Marker,
    color: RGBColor,
    /// Also draw a line 20 pixels long through the marker (a legend entry).
    line: bool,
}

/// A marker of `color` centred on `at`, a chart coordinate.
pub fn marker<C>(kind: Marker, at: C, color: RGBColor) -> MarkerElement<C> {
    MarkerElement {
        at,
        kind,
        color,
        line: false,
    }
}

/// A legend entry whose line starts at pixel `at`: a short line of the series' colour with
/// its marker in the middle.
pub fn legend((x, y): (i32, i32), color: RGBColor, kind: Marker) -> MarkerElement<(i32, i32)> {
    MarkerElement {
        at: (x + 10, y),
        kind,
        color,
        line: true,
    }
}

impl<'a, C: 'a> PointCollection<'a, C> for &'a MarkerElement<C> {
    type Point = &'a C;
    type IntoIter = std::iter::Once<&'a C>;
    fn point_iter(self) -> Self::IntoIter {
        std::iter::once(&self.at)
    }
}

impl<C, DB: DrawingBackend> Drawable<DB> for MarkerElement<C> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let Some((x, y)) = points.next() else {
            return Ok(());
        };
        let filled: ShapeStyle = self.color.filled();
        let line: ShapeStyle = self.color.stroke_width(2);
        let at =
            |offsets: Vec<(i32, i32)>| offsets.into_iter().map(move |(dx, dy)| (x + dx, y + dy));
        let closed = |offsets: Vec<(i32, i32)>| {
            let first = offsets.first().copied();
            at(offsets.into_iter().chain(first).collect())
        };
        if self.line {
            backend.draw_line((x - 10, y), (x + 10, y), &line)?;
        }
        let square = vec![(-R, -R), (R, -R), (R, R), (-R, R)];
        let up = vec![(0, -R - 1), (R + 1, R), (-R - 1, R)];
        let down = vec![(-R - 1, -R), (R + 1, -R), (0, R + 1)];
        let diamond = vec![(0, -R - 1), (R + 1, 0), (0, R + 1), (-R - 1, 0)];
        match self.kind {
            Marker::Circle => backend.draw_circle((x, y), R as u32, &filled, true),
            Marker::OpenCircle => backend.draw_circle((x, y), R as u32, &line, false),
            Marker::Square => backend.fill_polygon(at(square), &filled),
            Marker::OpenSquare => backend.draw_path(closed(square), &line),
            Marker::Triangle => backend.fill_polygon(at(up), &filled),
            Marker::OpenTriangle => backend.draw_path(closed(up), &line),
            Marker::Down => backend.fill_polygon(at(down), &filled),
            Marker::Diamond => backend.fill_polygon(at(diamond), &filled),
            Marker::OpenDiamond => backend.draw_path(closed(diamond), &line),
            Marker::Cross => {
                backend.draw_line((x - R, y - R), (x + R, y + R), &line)?;
                backend.draw_line((x - R, y + R), (x + R, y - R), &line)
            }
            Marker::Plus => {
                backend.draw_line((x - R - 1, y), (x + R + 1, y), &line)?;
                backend.draw_line((x, y - R - 1), (x, y + R + 1), &line)
            }
            Marker::Star => {
                backend.draw_line((x - R, y - R), (x + R, y + R), &line)?;
                backend.draw_line((x - R, y + R), (x + R, y - R), &line)?;
                backend.draw_line((x - R - 1, y), (x + R + 1, y), &line)?;
                backend.draw_line((x, y - R - 1), (x, y + R + 1), &line)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twelve_series_differ_in_colour_and_in_marker() {
        for i in 0..12 {
            for j in 0..i {
                assert_ne!(style(i).0, style(j).0, "colours {i} {j}");
                assert_ne!(style(i).1, style(j).1, "markers {i} {j}");
            }
        }
    }
}
