//! The page's colours that carry meaning stay apart for people with colour-vision
//! deficiencies: the win, draw and loss swatches of the column scores, and the two
//! players' discs, read from `src/serve/page/style.css`'s `:root` custom properties.
//!
//! Each pair is compared under normal vision and under simulated deuteranopia, protanopia and
//! tritanopia: Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for
//! Simulation of Color Vision Deficiency", IEEE TVCG 15(6), 1291–1298, their matrices at
//! severity 1.0, applied to linear sRGB. The difference is CIEDE2000 (ΔE00) in CIELAB under
//! D65, after Sharma, Wu & Dalal (2005), "The CIEDE2000 color-difference formula:
//! implementation notes, supplementary test data, and mathematical observations", Color
//! Research & Application 30(1), 21–30. Every pair must be at least [`MIN_DELTA_E`] apart
//! under every vision; the page's old red and green are shown to fail that under
//! deuteranopia, so the simulation bites.
//!
//! The colour math is written out here (a few dozen lines) rather than taken from a crate:
//! each step is checked against published numbers below.

use std::path::Path;

/// The least ΔE00 between two colours that must not be confused: 20 is far beyond "just
/// noticeable" (about 1 to 2), so the swatches differ at a glance, not only side by side.
const MIN_DELTA_E: f64 = 20.0;

/// An sRGB colour, each channel in 0..=1 (gamma-encoded, as CSS writes it).
type Rgb = [f64; 3];
/// A CIELAB colour: L*, a*, b*.
type Lab = [f64; 3];
type Matrix = [[f64; 3]; 3];

/// How a colour is seen: as is, or through one of Machado et al.'s severity-1.0 matrices
/// (their paper's table, also on the authors' page
/// <https://www.inf.ufrgs.br/~oliveira/pubs_files/CVD_Simulation/CVD_Simulation.html>),
/// which act on linear sRGB.
#[derive(Clone, Copy, Debug)]
enum Vision {
    Normal,
    Deuteranopia,
    Protanopia,
    Tritanopia,
}

impl Vision {
    const ALL: [Vision; 4] = [
        Vision::Normal,
        Vision::Deuteranopia,
        Vision::Protanopia,
        Vision::Tritanopia,
    ];

    fn matrix(self) -> Option<Matrix> {
        match self {
            Vision::Normal => None,
            Vision::Protanopia => Some([
                [0.152286, 1.052583, -0.204868],
                [0.114503, 0.786281, 0.099216],
                [-0.003882, -0.048116, 1.051998],
            ]),
            Vision::Deuteranopia => Some([
                [0.367322, 0.860646, -0.227968],
                [0.280085, 0.672501, 0.047413],
                [-0.011820, 0.042940, 0.968881],
            ]),
            Vision::Tritanopia => Some([
                [1.255528, -0.076749, -0.178779],
                [-0.078411, 0.930809, 0.147602],
                [0.004733, 0.691367, 0.303900],
            ]),
        }
    }

    /// The colour `rgb` as seen with this vision, in linear sRGB; clamped to the gamut, since
    /// a screen cannot show what the matrix puts outside it.
    fn see(self, rgb: Rgb) -> [f64; 3] {
        let linear = rgb.map(to_linear);
        match self.matrix() {
            None => linear,
            Some(m) => mul(&m, linear).map(|c| c.clamp(0.0, 1.0)),
        }
    }
}

fn mul(m: &Matrix, v: [f64; 3]) -> [f64; 3] {
    m.map(|row| row[0] * v[0] + row[1] * v[1] + row[2] * v[2])
}

/// sRGB's decoding (IEC 61966-2-1).
fn to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear sRGB to XYZ under D65 (Bruce Lindbloom's sRGB matrix).
const SRGB_TO_XYZ: Matrix = [
    [0.4124564, 0.3575761, 0.1804375],
    [0.2126729, 0.7151522, 0.0721750],
    [0.0193339, 0.1191920, 0.9503041],
];

/// CIELAB of a linear sRGB colour, relative to D65 white (sRGB's white: the matrix's row
/// sums, so that white comes out exactly L* 100, a* = b* = 0).
fn lab(linear: [f64; 3]) -> Lab {
    let xyz = mul(&SRGB_TO_XYZ, linear);
    let white = mul(&SRGB_TO_XYZ, [1.0; 3]);
    let f = |t: f64| {
        const EPSILON: f64 = 216.0 / 24389.0;
        const KAPPA: f64 = 24389.0 / 27.0;
        if t > EPSILON {
            t.cbrt()
        } else {
            (KAPPA * t + 16.0) / 116.0
        }
    };
    let [fx, fy, fz] = [0, 1, 2].map(|i| f(xyz[i] / white[i]));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// CIEDE2000 with kL = kC = kH = 1, step by step as in Sharma, Wu & Dalal (2005), eqs. 1–22.
fn delta_e_2000(lab1: Lab, lab2: Lab) -> f64 {
    let [l1, a1, b1] = lab1;
    let [l2, a2, b2] = lab2;
    let c_bar = (a1.hypot(b1) + a2.hypot(b2)) / 2.0;
    let c7 = c_bar.powi(7);
    let g = 0.5 * (1.0 - (c7 / (c7 + 25f64.powi(7))).sqrt());
    let (a1p, a2p) = ((1.0 + g) * a1, (1.0 + g) * a2);
    let (c1p, c2p) = (a1p.hypot(b1), a2p.hypot(b2));
    // Hue angles in degrees, 0..360; 0 for a neutral colour.
    let hue = |b: f64, a: f64| {
        if a == 0.0 && b == 0.0 {
            0.0
        } else {
            b.atan2(a).to_degrees().rem_euclid(360.0)
        }
    };
    let (h1p, h2p) = (hue(b1, a1p), hue(b2, a2p));

    let dl = l2 - l1;
    let dc = c2p - c1p;
    let dh_angle = if c1p * c2p == 0.0 {
        0.0
    } else if (h2p - h1p).abs() <= 180.0 {
        h2p - h1p
    } else if h2p - h1p > 180.0 {
        h2p - h1p - 360.0
    } else {
        h2p - h1p + 360.0
    };
    let dh = 2.0 * (c1p * c2p).sqrt() * (dh_angle.to_radians() / 2.0).sin();

    let l_bar = (l1 + l2) / 2.0;
    let c_bar_p = (c1p + c2p) / 2.0;
    let h_bar_p = if c1p * c2p == 0.0 {
        h1p + h2p
    } else if (h1p - h2p).abs() <= 180.0 {
        (h1p + h2p) / 2.0
    } else if h1p + h2p < 360.0 {
        (h1p + h2p + 360.0) / 2.0
    } else {
        (h1p + h2p - 360.0) / 2.0
    };
    let cos = |deg: f64| deg.to_radians().cos();
    let t = 1.0 - 0.17 * cos(h_bar_p - 30.0)
        + 0.24 * cos(2.0 * h_bar_p)
        + 0.32 * cos(3.0 * h_bar_p + 6.0)
        - 0.20 * cos(4.0 * h_bar_p - 63.0);
    let d_theta = 30.0 * (-((h_bar_p - 275.0) / 25.0).powi(2)).exp();
    let c7p = c_bar_p.powi(7);
    let r_c = 2.0 * (c7p / (c7p + 25f64.powi(7))).sqrt();
    let s_l = 1.0 + 0.015 * (l_bar - 50.0).powi(2) / (20.0 + (l_bar - 50.0).powi(2)).sqrt();
    let s_c = 1.0 + 0.045 * c_bar_p;
    let s_h = 1.0 + 0.015 * c_bar_p * t;
    let r_t = -(2.0 * d_theta).to_radians().sin() * r_c;
    let (l, c, h) = (dl / s_l, dc / s_c, dh / s_h);
    (l * l + c * c + h * h + r_t * c * h).sqrt()
}

/// ΔE00 between two sRGB colours as seen with `vision`.
fn difference(vision: Vision, one: Rgb, other: Rgb) -> f64 {
    delta_e_2000(lab(vision.see(one)), lab(vision.see(other)))
}

/// `#rrggbb` (or `#rgb`) as an sRGB colour.
fn parse_hex(text: &str) -> Rgb {
    let hex = text
        .strip_prefix('#')
        .unwrap_or_else(|| panic!("{text:?} is not a #rrggbb colour"));
    let digits: Vec<u8> = hex
        .chars()
        .map(|c| {
            c.to_digit(16)
                .unwrap_or_else(|| panic!("{text:?} is not a #rrggbb colour")) as u8
        })
        .collect();
    let channels = match digits[..] {
        [r, g, b] => [r * 17, g * 17, b * 17],
        [r1, r0, g1, g0, b1, b0] => [r1 * 16 + r0, g1 * 16 + g0, b1 * 16 + b0],
        _ => panic!("{text:?} is not a #rrggbb colour"),
    };
    channels.map(|c| f64::from(c) / 255.0)
}

/// CSS's `hsl(h s% l%)` (CSS Color 4's conversion), for the page's old colours.
fn hsl(hue: f64, saturation: f64, lightness: f64) -> Rgb {
    let (s, l) = (saturation / 100.0, lightness / 100.0);
    let a = s * l.min(1.0 - l);
    [0.0, 8.0, 4.0].map(|n: f64| {
        let k = (n + hue / 30.0).rem_euclid(12.0);
        l - a * (k - 3.0).min(9.0 - k).clamp(-1.0, 1.0)
    })
}

/// WCAG 2's contrast ratio of two sRGB colours (1 to 21).
fn contrast(one: Rgb, other: Rgb) -> f64 {
    let luminance = |c: Rgb| mul(&SRGB_TO_XYZ, c.map(to_linear))[1];
    let (a, b) = (luminance(one), luminance(other));
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

/// The page's stylesheet.
fn style_css() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/serve/page/style.css");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The value of custom property `name` (`--win`) in the first `:root { … }` block of `css`.
fn custom_property(css: &str, name: &str) -> String {
    // Comments out first: one may hold a `;` or a `}`.
    let mut text = String::new();
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        text.push_str(&rest[..start]);
        let end = rest[start..].find("*/").expect("a closed comment");
        rest = &rest[start + end + 2..];
    }
    text.push_str(rest);
    let root = text.find(":root").expect("a :root block");
    let open = root + text[root..].find('{').expect(":root's {");
    let close = open + text[open..].find('}').expect(":root's }");
    text[open + 1..close]
        .split(';')
        .filter_map(|declaration| declaration.split_once(':'))
        .find(|(property, _)| property.trim() == name)
        .map(|(_, value)| value.trim().to_string())
        .unwrap_or_else(|| panic!("no {name} in style.css's :root"))
}

/// `colours` (name, colour) pairwise: the least ΔE00 under each vision, each pair's ΔE00
/// printed as a table.
fn least_differences(colours: &[(&str, Rgb)]) -> Vec<(Vision, f64, String)> {
    Vision::ALL
        .iter()
        .map(|&vision| {
            let mut least = (f64::INFINITY, String::new());
            for (i, (name1, one)) in colours.iter().enumerate() {
                for (name2, other) in &colours[i + 1..] {
                    let d = difference(vision, *one, *other);
                    let seen = format!("{vision:?}");
                    println!("{seen:>12}  {name1:>6} / {name2:<6} ΔE00 {d:6.2}");
                    if d < least.0 {
                        least = (d, format!("{name1} / {name2}"));
                    }
                }
            }
            (vision, least.0, least.1)
        })
        .collect()
}

#[test]
fn ciede2000_matches_sharma_wu_dalals_test_data() {
    // Pairs 1, 7, 13, 15, 17–20 and 25 of the paper's Table 1: the hue-angle wrap around
    // 180° (13, 15), large differences (17–20) and an ordinary one (25).
    let pairs: [(Lab, Lab, f64); 9] = [
        ([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485], 2.0425),
        ([50.0, 0.0, 0.0], [50.0, -1.0, 2.0], 2.3669),
        ([50.0, -0.001, 2.49], [50.0, 0.0009, -2.49], 4.8045),
        ([50.0, -0.001, 2.49], [50.0, 0.0011, -2.49], 4.7461),
        ([50.0, 2.5, 0.0], [73.0, 25.0, -18.0], 27.1492),
        ([50.0, 2.5, 0.0], [61.0, -5.0, 29.0], 22.8977),
        ([50.0, 2.5, 0.0], [56.0, -27.0, -3.0], 31.9030),
        ([50.0, 2.5, 0.0], [58.0, 24.0, 15.0], 19.4535),
        (
            [60.2574, -34.0099, 36.2677],
            [60.4626, -34.1751, 39.4387],
            1.2644,
        ),
    ];
    for (one, other, expected) in pairs {
        for (a, b) in [(one, other), (other, one)] {
            let d = delta_e_2000(a, b);
            assert!(
                (d - expected).abs() < 5e-5,
                "ΔE00({a:?}, {b:?}) = {d:.4}, the paper has {expected}"
            );
        }
    }
}

#[test]
fn srgb_primaries_have_their_published_lab() {
    // Bruce Lindbloom's calculator on D65 sRGB (white from the same matrix, as here).
    for (hex, expected) in [
        ("#ff0000", [53.24, 80.09, 67.20]),
        ("#00ff00", [87.73, -86.18, 83.18]),
        ("#0000ff", [32.30, 79.19, -107.86]),
        ("#ffffff", [100.0, 0.0, 0.0]),
    ] {
        let got = lab(Vision::Normal.see(parse_hex(hex)));
        for i in 0..3 {
            assert!(
                (got[i] - expected[i]).abs() < 0.01,
                "{hex}: Lab {got:?}, published {expected:?}"
            );
        }
    }
}

#[test]
fn the_simulations_leave_greys_grey() {
    // Machado et al. normalise each matrix so that white maps to white: each row sums to 1.
    // A slip in copying a coefficient breaks that.
    for vision in Vision::ALL {
        let Some(matrix) = vision.matrix() else {
            continue;
        };
        for (i, row) in matrix.iter().enumerate() {
            let sum: f64 = row.iter().sum();
            assert!((sum - 1.0).abs() < 2e-6, "{vision:?} row {i} sums to {sum}");
        }
        let grey = parse_hex("#808080");
        assert!(difference(vision, grey, grey) < 1e-9);
        assert!(delta_e_2000(lab(vision.see(grey)), lab(Vision::Normal.see(grey))) < 0.01);
    }
}

#[test]
fn the_pages_old_red_and_green_merge_under_deuteranopia() {
    // Before the palette was chosen for colour-vision deficiencies, the legend's win and loss
    // swatches (and the scores' colours at that depth) were hsl(138 62% 48%) and
    // hsl(2 62% 48%) (style.css and app.js, commit d73a196).
    let green = hsl(138.0, 62.0, 48.0);
    let red = hsl(2.0, 62.0, 48.0);
    let normal = difference(Vision::Normal, green, red);
    let deuteranopia = difference(Vision::Deuteranopia, green, red);
    println!("old green / red: normal {normal:.2}, deuteranopia {deuteranopia:.2}");
    assert!(normal >= MIN_DELTA_E, "normal vision: {normal:.2}");
    assert!(
        deuteranopia < MIN_DELTA_E,
        "deuteranopia: {deuteranopia:.2}; the check would not catch red and green"
    );
    // colour-science 0.4.7 (matrix_cvd_Machado2009 at severity 1, delta_E "CIE 2000") gives
    // 17.21 for this pair: the whole chain, checked against an independent implementation.
    assert!((deuteranopia - 17.21).abs() < 0.05, "{deuteranopia:.3}");
}

#[test]
fn the_score_swatches_stay_apart_under_every_simulation() {
    let css = style_css();
    let colours: Vec<(&str, Rgb)> = ["win", "draw", "loss"]
        .iter()
        .map(|name| {
            (
                *name,
                parse_hex(&custom_property(&css, &format!("--{name}"))),
            )
        })
        .collect();
    for (vision, least, pair) in least_differences(&colours) {
        println!("{vision:?}: least ΔE00 {least:.2} ({pair})");
        assert!(
            least >= MIN_DELTA_E,
            "{vision:?}: {pair} only ΔE00 {least:.2} apart (at least {MIN_DELTA_E} wanted)"
        );
    }
}

#[test]
fn the_discs_stay_apart_under_every_simulation() {
    let css = style_css();
    let colours: Vec<(&str, Rgb)> = ["red", "yellow"]
        .iter()
        .map(|name| {
            (
                *name,
                parse_hex(&custom_property(&css, &format!("--{name}"))),
            )
        })
        .collect();
    for (vision, least, pair) in least_differences(&colours) {
        assert!(
            least >= MIN_DELTA_E,
            "{vision:?}: the discs ({pair}) only ΔE00 {least:.2} apart"
        );
    }
}

#[test]
fn the_scores_text_is_legible_on_its_swatch() {
    // WCAG 2 AA for normal text: 4.5 to 1.
    let css = style_css();
    for name in ["win", "draw", "loss"] {
        let swatch = parse_hex(&custom_property(&css, &format!("--{name}")));
        let ink = parse_hex(&custom_property(&css, &format!("--{name}-ink")));
        let ratio = contrast(swatch, ink);
        assert!(
            ratio >= 4.5,
            "--{name}-ink on --{name}: contrast {ratio:.2}"
        );
    }
}
