//! Paired statistics for "scheme A searches fewer nodes than scheme B" claims.
//!
//! Observations are paired by position: both schemes searched the same positions. The effect
//! is the per-position log ratio of node counts; we report its geometric mean with a 95%
//! confidence interval (Student's t), and the two-sided p-value of the Wilcoxon signed-rank
//! test — exact for small samples without ties, normal approximation with tie correction
//! otherwise.

/// The comparison of two paired samples of node counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Paired {
    /// Number of pairs.
    pub n: usize,
    /// Geometric mean of `a / b`.
    pub ratio: f64,
    /// 95% confidence interval of that ratio.
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
    /// Two-sided Wilcoxon signed-rank p-value (1 when every pair is tied).
    pub p: f64,
}

/// Compares `a[i]` with `b[i]`; pairs with a zero count are skipped.
pub fn paired(a: &[u64], b: &[u64]) -> Option<Paired> {
    let logs: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| **x > 0 && **y > 0)
        .map(|(x, y)| (*x as f64 / *y as f64).ln())
        .collect();
    let n = logs.len();
    if n < 2 {
        return None;
    }
    let mean = logs.iter().sum::<f64>() / n as f64;
    let var = logs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = t_quantile_975(n - 1) * (var / n as f64).sqrt();
    Some(Paired {
        n,
        ratio: mean.exp(),
        low: (mean - half).exp(),
        high: (mean + half).exp(),
        p: wilcoxon(&logs),
    })
}

/// A p-value as the reports print it: `p<0.001` below a thousandth, else `p=0.123`.
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p<0.001".to_string()
    } else {
        format!("p={p:.3}")
    }
}

/// Two-sided p-value of the Wilcoxon signed-rank test on differences `d` (zeros dropped).
pub fn wilcoxon(d: &[f64]) -> f64 {
    let mut nonzero: Vec<f64> = d.iter().copied().filter(|x| *x != 0.0).collect();
    let n = nonzero.len();
    if n == 0 {
        return 1.0;
    }
    nonzero.sort_by(|x, y| x.abs().total_cmp(&y.abs()));
    // Average ranks over ties of |d|.
    let mut ranks = vec![0.0; n];
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && nonzero[j + 1].abs() == nonzero[i].abs() {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        ranks[i..=j].iter_mut().for_each(|r| *r = rank);
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    let w_plus: f64 = nonzero
        .iter()
        .zip(&ranks)
        .filter(|(d, _)| **d > 0.0)
        .map(|(_, r)| r)
        .sum();
    let nf = n as f64;
    let mean = nf * (nf + 1.0) / 4.0;
    if tie_term == 0.0 && n <= 30 {
        return exact_p(n, w_plus);
    }
    let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie_term / 48.0;
    if var <= 0.0 {
        return 1.0;
    }
    let z = ((w_plus - mean).abs() - 0.5).max(0.0) / var.sqrt();
    (2.0 * (1.0 - normal_cdf(z))).min(1.0)
}

/// Exact two-sided p-value: the chance, under the null, of a rank sum at least as far from
/// its mean as `w`. Counts subsets of ranks 1..=n by sum.
fn exact_p(n: usize, w: f64) -> f64 {
    let max = n * (n + 1) / 2;
    let mut counts = vec![0f64; max + 1];
    counts[0] = 1.0;
    for rank in 1..=n {
        for s in (rank..=max).rev() {
            counts[s] += counts[s - rank];
        }
    }
    let total: f64 = counts.iter().sum();
    let mean = max as f64 / 2.0;
    let distance = (w - mean).abs();
    let extreme: f64 = counts
        .iter()
        .enumerate()
        .filter(|(s, _)| (*s as f64 - mean).abs() >= distance - 1e-9)
        .map(|(_, c)| c)
        .sum();
    (extreme / total).min(1.0)
}

/// The standard normal distribution function (Abramowitz & Stegun 7.1.26 through erf).
fn normal_cdf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    if z >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (Cornish–Fisher expansion
/// around the normal 1.959964; within 0.01 of the tables from df = 3 on).
fn t_quantile_975(df: usize) -> f64 {
    let z: f64 = 1.959_964;
    let v = df.max(1) as f64;
    z + (z.powi(3) + z) / (4.0 * v)
        + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * v * v)
        + (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / (384.0 * v * v * v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        // Student's t, 97.5%: df 5 → 2.571, 10 → 2.228, 17 → 2.110, 30 → 2.042.
        for (df, table) in [(5, 2.571), (10, 2.228), (17, 2.110), (30, 2.042)] {
            assert!(
                (t_quantile_975(df) - table).abs() < 0.01,
                "df {df}: {}",
                t_quantile_975(df)
            );
        }
    }

    #[test]
    fn normal_cdf_matches_known_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-6);
        assert!((normal_cdf(1.959_964) - 0.975).abs() < 1e-4);
        assert!((normal_cdf(-1.0) - 0.158_655).abs() < 1e-4);
    }

    #[test]
    fn exact_wilcoxon_matches_the_tables() {
        // n = 10, all differences positive: W+ = 55, two-sided p = 2 / 2^10.
        let all_up: Vec<f64> = (1..=10).map(f64::from).collect();
        assert!((wilcoxon(&all_up) - 2.0 / 1024.0).abs() < 1e-12);
        // n = 8: critical value for two-sided 0.05 is W = 3 (p = 0.039); W = 4 gives 0.055.
        let w3 = [-1.0, -2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        assert!((wilcoxon(&w3) - 0.039_06).abs() < 1e-3, "{}", wilcoxon(&w3));
        let w4 = [1.0, -2.0, 3.0, -4.0, -5.0, -6.0, -7.0, -8.0];
        assert!((wilcoxon(&w4) - 0.054_7).abs() < 1e-3, "{}", wilcoxon(&w4));
        // Symmetric differences: no evidence either way.
        assert!(wilcoxon(&[1.0, -1.5, 2.0, -2.5]) > 0.5);
    }

    #[test]
    fn paired_ratio_and_interval() {
        let a = [90, 180, 270, 360, 450];
        let b = [100, 200, 300, 400, 500];
        let p = paired(&a, &b).expect("five pairs");
        assert!(
            (p.ratio - 0.9).abs() < 1e-9
                && (p.low - 0.9).abs() < 1e-9
                && (p.high - 0.9).abs() < 1e-9
        );
        // All five ratios tie: the normal approximation with tie correction gives p = 0.037.
        assert!((p.p - 0.037).abs() < 0.002, "{}", p.p);
        assert!(paired(&[1], &[2]).is_none());
    }
}
