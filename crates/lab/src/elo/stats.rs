//! The statistics of a match played in game pairs: pentanomial counts, score, Elo with its
//! 95% interval, the generalized sequential probability ratio test (GSPRT), and Spearman's
//! rank correlation.
//!
//! A *pair* is one opening played twice with colours swapped. Its points for the tested side
//! are 0 (two losses, LL), ½ (LD), 1 (two draws DD, or a win and a loss WL), 1½ (WD) or 2
//! (WW): the five outcomes of the pentanomial model. Games of one pair are correlated (the
//! opening favours one colour), so the variance is taken over pairs, not games, which is
//! what makes the interval honest (the trinomial model of single games overstates it for
//! balanced openings and understates it for lopsided ones).
//!
//! - score `s` = mean of (pair points ÷ 2), in [0, 1];
//! - Elo = −400 · log10(1/s − 1), the logistic Elo difference;
//! - per-pair variance σ² = Σ pᵢ (xᵢ − s)² over the five outcomes xᵢ ∈ {0, ¼, ½, ¾, 1} with
//!   their frequencies pᵢ; the score's standard error is √(σ²/N) for N pairs;
//! - the 95% interval is [Elo(s − 1.96·se), Elo(s + 1.96·se)] (normal approximation on the
//!   score, mapped through the Elo function), written `Elo ± half-width` with the half-width
//!   (high − low) / 2;
//! - the GSPRT (as fastchess computes it for pentanomial results with logistic Elo bounds,
//!   the normal approximation of Fishtest's generalized SPRT): with s₀ and s₁ the scores of
//!   `elo0` and `elo1`, LLR = (s₁ − s₀)(2s − s₀ − s₁) / (2σ²/N), accepted as H1 at
//!   ln((1 − β)/α) and as H0 at ln(β/(1 − α)).

use std::fmt;

/// The 97.5% quantile of the standard normal distribution.
const Z_975: f64 = 1.959_964;

/// Pair outcomes, from the tested side: `counts[i]` pairs scored `i / 2` points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Penta {
    /// LL, LD, DD or WL, WD, WW: pairs with 0, ½, 1, 1½, 2 points.
    pub counts: [u64; 5],
}

impl Penta {
    /// Counts one pair worth `half_points` half points (0 to 4); more is an error.
    pub fn add(&mut self, half_points: usize) -> Result<(), String> {
        let slot = self
            .counts
            .get_mut(half_points)
            .ok_or_else(|| format!("a pair cannot score {half_points} half points"))?;
        *slot += 1;
        Ok(())
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The score as a fraction of the points (0.5 with no pairs).
    pub fn score(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.5;
        }
        let quarters: u64 = self.counts.iter().zip(0u64..).map(|(c, i)| c * i).sum();
        quarters as f64 / 4.0 / n as f64
    }

    /// The variance of one pair's score (points ÷ 2) about the mean, from the frequencies.
    pub fn pair_variance(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.0;
        }
        let s = self.score();
        self.counts
            .iter()
            .zip(0u32..)
            .map(|(&c, i)| c as f64 / n as f64 * (f64::from(i) / 4.0 - s).powi(2))
            .sum()
    }

    /// Elo with its 95% interval.
    pub fn elo(&self) -> Elo {
        let n = self.pairs();
        let s = self.score();
        if n == 0 {
            return Elo {
                elo: 0.0,
                low: f64::NEG_INFINITY,
                high: f64::INFINITY,
            };
        }
        let se = (self.pair_variance() / n as f64).sqrt();
        Elo {
            elo: elo_of(s),
            low: elo_of(s - Z_975 * se),
            high: elo_of(s + Z_975 * se),
        }
    }

    /// The GSPRT of `elo0` against `elo1` on these pairs.
    pub fn sprt(&self, test: &SprtTest) -> Sprt {
        let (lower, upper) = test.bounds();
        let n = self.pairs() as f64;
        let variance = self.pair_variance();
        // No pairs, or all pairs alike: no evidence either way.
        let llr = if n == 0.0 || variance == 0.0 {
            0.0
        } else {
            let (s0, s1) = (score_of(test.elo0), score_of(test.elo1));
            (s1 - s0) * (2.0 * self.score() - s0 - s1) / (2.0 * variance / n)
        };
        let verdict = if llr >= upper {
            Verdict::H1
        } else if llr <= lower {
            Verdict::H0
        } else {
            Verdict::Continue
        };
        Sprt {
            llr,
            lower,
            upper,
            verdict,
        }
    }

    /// `LL/LD/DD/WD/WW` counts, e.g. `2/5/20/8/5`.
    pub fn counts_text(&self) -> String {
        let c = self.counts;
        format!("{}/{}/{}/{}/{}", c[0], c[1], c[2], c[3], c[4])
    }
}

/// An Elo difference with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Elo {
    /// The estimate (infinite when one side scored everything).
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

impl Elo {
    /// Half the interval's width, the `±` of a report.
    pub fn half_width(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

impl fmt::Display for Elo {
    /// `+12.3 ± 19.7`, or `+inf` / `-inf` when one side scored everything.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.elo.is_infinite() {
            return f.write_str(if self.elo > 0.0 { "+inf" } else { "-inf" });
        }
        let half = self.half_width();
        if half.is_finite() {
            write!(f, "{:+.1} ± {half:.1}", self.elo)
        } else {
            write!(f, "{:+.1} ± inf", self.elo)
        }
    }
}

/// The logistic Elo difference of a score fraction: one rule, the engine's.
pub use transpo_engine::selfplay::elo_of;

/// The score fraction of a logistic Elo difference, the inverse of [`elo_of`].
pub fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// A yes/no question for the GSPRT: is the difference `elo1` (H1) rather than `elo0` (H0)?
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtTest {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1 (greater than `elo0`).
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

impl SprtTest {
    /// The LLR bounds: H0 is accepted at or below the first, H1 at or above the second.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }
}

impl std::str::FromStr for SprtTest {
    type Err = String;
    /// `elo0,elo1` or `elo0,elo1,alpha,beta` (alpha and beta default to 0.05).
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "bad SPRT {s:?}: expected elo0,elo1[,alpha,beta] with elo0 < elo1 and \
                 0 < alpha, beta < 0.5, e.g. -10,0 or 0,5,0.05,0.05"
            )
        };
        let v: Vec<f64> = s
            .split(',')
            .map(|t| t.trim().parse::<f64>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let test = match v[..] {
            [elo0, elo1] => SprtTest {
                elo0,
                elo1,
                alpha: 0.05,
                beta: 0.05,
            },
            [elo0, elo1, alpha, beta] => SprtTest {
                elo0,
                elo1,
                alpha,
                beta,
            },
            _ => return Err(bad()),
        };
        let rate = |r: f64| r > 0.0 && r < 0.5;
        let valid = test.elo0.is_finite()
            && test.elo1.is_finite()
            && test.elo0 < test.elo1
            && rate(test.alpha)
            && rate(test.beta);
        if !valid {
            return Err(bad());
        }
        Ok(test)
    }
}

impl fmt::Display for SprtTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0 {}, elo1 {}, alpha {}, beta {}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

/// What the GSPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// H0 accepted: the difference is `elo0` or less.
    H0,
    /// H1 accepted: the difference is `elo1` or more.
    H1,
    /// Neither yet: play on.
    Continue,
}

/// The state of a GSPRT.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Log-likelihood ratio of H1 against H0.
    pub llr: f64,
    /// H0 bound.
    pub lower: f64,
    /// H1 bound.
    pub upper: f64,
    /// The verdict.
    pub verdict: Verdict,
}

impl fmt::Display for Sprt {
    /// `LLR 1.48 (-2.94, 2.94) H1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match self.verdict {
            Verdict::H0 => "H0",
            Verdict::H1 => "H1",
            Verdict::Continue => "continue",
        };
        write!(
            f,
            "LLR {:.2} ({:.2}, {:.2}) {verdict}",
            self.llr, self.lower, self.upper
        )
    }
}

/// Ranks of `values`, 1 for the smallest, ties given their average rank.
pub fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            ranks[k] = rank;
        }
        i = j + 1;
    }
    ranks
}

/// Spearman's rank correlation of `a` and `b` (the Pearson correlation of their ranks, ties
/// averaged); `None` for fewer than three pairs or when either side is all ties.
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.len() < 3 {
        return None;
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = ra.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = rb.iter().map(|y| (y - mb).powi(2)).sum();
    (va > 0.0 && vb > 0.0).then(|| cov / (va * vb).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn penta(counts: [u64; 5]) -> Penta {
        Penta { counts }
    }

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() < tolerance
    }

    #[test]
    fn elo_of_scores_by_hand() {
        // s = ½: 1/s − 1 = 1, log10 1 = 0.
        assert!(close(elo_of(0.5), 0.0, 1e-12));
        // s = ¾: 1/s − 1 = ⅓, −400 · log10 ⅓ = 400 · 0.477121 = 190.8485.
        assert!(close(elo_of(0.75), 190.8485, 1e-3));
        assert!(close(score_of(190.8485), 0.75, 1e-6));
        assert_eq!(elo_of(0.0), f64::NEG_INFINITY);
        assert_eq!(elo_of(1.0), f64::INFINITY);
    }

    #[test]
    fn ten_double_wins_and_ten_double_losses() {
        // 10 WW (x = 1) and 10 LL (x = 0): s = 10/20 = 0.5, Elo 0.
        // σ² = ½(1 − ½)² + ½(0 − ½)² = 0.25; se = √(0.25/20) = 0.111803.
        // Interval: s ± 1.959964 · 0.111803 = 0.5 ± 0.219131 = [0.280869, 0.719131];
        // Elo(0.719131) = −400 · log10(0.390567) = 163.32, and symmetric below.
        let p = penta([10, 0, 0, 0, 10]);
        assert_eq!(p.pairs(), 20);
        assert!(close(p.score(), 0.5, 1e-12));
        assert!(close(p.pair_variance(), 0.25, 1e-12));
        let e = p.elo();
        assert!(close(e.elo, 0.0, 1e-9));
        assert!(close(e.high, 163.3214, 1e-3) && close(e.low, -163.3214, 1e-3));
        assert!(close(e.half_width(), 163.3214, 1e-3));
        assert_eq!(e.to_string(), "+0.0 ± 163.3");
    }

    #[test]
    fn a_lopsided_sample_with_known_variance() {
        // LL 2, LD 5, DD/WL 20, WD 8, WW 5: N = 40 pairs.
        // s = (2·0 + 5·¼ + 20·½ + 8·¾ + 5·1) / 40 = (1.25 + 10 + 6 + 5) / 40 = 0.55625.
        // σ² = [2·0.55625² + 5·0.30625² + 20·0.05625² + 8·0.19375² + 5·0.44375²] / 40
        //    = [0.618828 + 0.468945 + 0.063281 + 0.300313 + 0.984570] / 40 = 0.0608984.
        // se = √(0.0608984/40) = 0.0390187. Elo(0.55625) = 39.253;
        // Elo(0.55625 − 0.076475) = Elo(0.479775) = −14.062;
        // Elo(0.55625 + 0.076475) = Elo(0.632725) = 94.490; half-width 54.276.
        let p = penta([2, 5, 20, 8, 5]);
        assert!(close(p.score(), 0.55625, 1e-12));
        assert!(close(p.pair_variance(), 0.060_898_437_5, 1e-12));
        let e = p.elo();
        assert!(close(e.elo, 39.2527, 1e-3), "{e:?}");
        assert!(close(e.low, -14.0616, 1e-3), "{e:?}");
        assert!(close(e.high, 94.4897, 1e-3), "{e:?}");
        assert!(close(e.half_width(), 54.2757, 1e-3), "{e:?}");
        // 350 pairs of a typical spread give the study's target of ±20:
        // LL 30, LD 60, DD 150, WD 70, WW 40: s = 0.521429, σ² = 0.0727551, Elo +14.9 ± 19.7.
        let e = penta([30, 60, 150, 70, 40]).elo();
        assert!(close(e.elo, 14.8992, 1e-3) && close(e.half_width(), 19.6932, 1e-3));
    }

    #[test]
    fn gsprt_llr_by_hand() {
        // The sample above, elo0 = 0, elo1 = 10, α = β = 0.05:
        // s0 = 0.5, s1 = 1/(1 + 10^(−10/400)) = 0.514387;
        // LLR = (s1 − s0)(2s − s0 − s1) / (2σ²/N)
        //     = 0.014387 · (1.1125 − 1.014387) / (2 · 0.0608984 / 40) = 0.463581;
        // bounds ln(0.05/0.95) = −2.944439 and ln(0.95/0.05) = 2.944439: continue.
        let test: SprtTest = "0,10".parse().expect("valid");
        let s = penta([2, 5, 20, 8, 5]).sprt(&test);
        assert!(close(s.llr, 0.463_581, 1e-5), "{s:?}");
        assert!(close(s.lower, -2.944_439, 1e-5) && close(s.upper, 2.944_439, 1e-5));
        assert_eq!(s.verdict, Verdict::Continue);
        // The 350-pair sample with elo0 = −5, elo1 = 5: LLR 1.483418 (same formula).
        let test: SprtTest = "-5,5,0.05,0.05".parse().expect("valid");
        let s = penta([30, 60, 150, 70, 40]).sprt(&test);
        assert!(close(s.llr, 1.483_418, 1e-5), "{s:?}");
        // Many more such pairs cross the upper bound; the mirror image the lower.
        let s = penta([300, 600, 1500, 700, 400]).sprt(&test);
        assert_eq!(s.verdict, Verdict::H1);
        let s = penta([400, 700, 1500, 600, 300]).sprt(&test);
        assert_eq!(s.verdict, Verdict::H0);
        assert_eq!(penta([0, 0, 9, 0, 0]).sprt(&test).llr, 0.0);
        for bad in ["5,0", "0", "0,5,0.7,0.05", "a,b", "0,5,0.05"] {
            assert!(bad.parse::<SprtTest>().is_err(), "{bad}");
        }
    }

    #[test]
    fn pairs_count_into_their_slots() {
        let mut p = Penta::default();
        for half in [0, 2, 2, 4, 3] {
            p.add(half).expect("0 to 4");
        }
        assert_eq!(p.counts, [1, 0, 2, 1, 1]);
        assert_eq!(p.counts_text(), "1/0/2/1/1");
        assert!(p.add(5).is_err());
        assert_eq!(Penta::default().elo().to_string(), "+0.0 ± inf");
        assert_eq!(penta([0, 0, 0, 0, 3]).elo().to_string(), "+inf");
    }

    #[test]
    fn spearman_by_hand() {
        // Ranks 1..5 against 2,1,4,3,5: Σd² = 4, ρ = 1 − 6·4 / (5·24) = 0.8.
        let rho = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 1.0, 4.0, 3.0, 5.0]);
        assert!(close(rho.expect("five"), 0.8, 1e-12));
        // Ties average: 10, 20, 20, 30 → ranks 1, 2.5, 2.5, 4; against 1..4 the Pearson
        // correlation of the ranks is 4.5 / √(4.5 · 5) = 0.948683.
        assert_eq!(ranks(&[10.0, 20.0, 20.0, 30.0]), vec![1.0, 2.5, 2.5, 4.0]);
        let rho = spearman(&[10.0, 20.0, 20.0, 30.0], &[1.0, 2.0, 3.0, 4.0]);
        assert!(close(rho.expect("four"), 0.948_683, 1e-6));
        assert!(spearman(&[1.0, 2.0], &[1.0, 2.0]).is_none());
        assert!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).is_none());
    }
}
