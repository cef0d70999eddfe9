//! Rank correlations with p-values: Kendall's tau-b and Spearman's rho, as `scipy.stats` computes them.
//!
//! ReCUBE relates how much of a target's usage an agent saw (caller coverage) to how well
//! it rebuilt the file (APR), within quartiles of the model's own difficulty so that easy
//! files do not make the relation, leaving out instances at 0% and 100% (spec 2,
//! "Correlations"; [`by_quartile`]). The values and two-sided p-values
//! are those of scipy's `kendalltau` (variant b: the exact distribution without ties up to
//! 33 pairs, else the normal approximation with tie corrections) and `spearmanr` (Pearson's
//! r of average ranks; Student's t with n - 2 degrees of freedom), pinned by tests against
//! scipy's own output. Example: x = 1..8, y = [2, 1, 4, 3, 6, 8, 5, 7]: tau = 0.643
//! (p = 0.031), rho = 0.833 (p = 0.010).

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// A correlation coefficient, its two-sided p-value, and how many pairs it is over.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Correlation {
    pub coefficient: f64,
    pub p_value: f64,
    pub n: usize,
}

/// Kendall's tau-b of paired `x` and `y`; `None` with fewer than two pairs, unequal
/// lengths, or a side whose values are all equal.
pub fn kendall_tau(x: &[f64], y: &[f64]) -> Option<Correlation> {
    let n = x.len();
    if n < 2 || y.len() != n {
        return None;
    }
    let (mut concordant, mut discordant) = (0u64, 0u64);
    // Pairs tied on either side are neither (they enter through the tie terms).
    for i in 0..n {
        for j in i + 1..n {
            match (x[i] - x[j]) * (y[i] - y[j]) {
                p if p > 0.0 => concordant += 1,
                p if p < 0.0 => discordant += 1,
                _ => {}
            }
        }
    }
    let total = (n * (n - 1) / 2) as u64;
    let (x_ties, x0, x1) = tie_terms(x);
    let (y_ties, y0, y1) = tie_terms(y);
    if x_ties == total || y_ties == total {
        return None;
    }
    let difference = concordant as f64 - discordant as f64;
    let tau = (difference / ((total - x_ties) as f64).sqrt() / ((total - y_ties) as f64).sqrt())
        .clamp(-1.0, 1.0);
    let smaller = discordant.min(total - discordant);
    let p_value = if x_ties == 0 && y_ties == 0 && (n <= 33 || smaller <= 1) {
        exact_kendall_p(n, total - discordant)
    } else {
        let m = (n * (n - 1)) as f64;
        let nf = n as f64;
        let variance = (m * (2.0 * nf + 5.0) - x1 - y1) / 18.0
            + (2.0 * x_ties as f64 * y_ties as f64) / m
            + x0 * y0 / (9.0 * m * (nf - 2.0));
        let z = difference / variance.sqrt();
        2.0 * standard_normal().sf(z.abs())
    };
    Some(Correlation {
        coefficient: tau,
        p_value: p_value.clamp(0.0, 1.0),
        n,
    })
}

/// Spearman's rho of paired `x` and `y`; `None` with fewer than three pairs, unequal
/// lengths, or a side whose values are all equal.
pub fn spearman_rho(x: &[f64], y: &[f64]) -> Option<Correlation> {
    let n = x.len();
    if n < 3 || y.len() != n {
        return None;
    }
    let (rx, ry) = (average_ranks(x), average_ranks(y));
    let mean = (n as f64 + 1.0) / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        let (dx, dy) = (a - mean, b - mean);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx == 0.0 || syy == 0.0 {
        return None;
    }
    let rho = (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0);
    let freedom = (n - 2) as f64;
    let p_value = if rho.abs() == 1.0 {
        0.0
    } else {
        let t = rho * (freedom / ((rho + 1.0) * (1.0 - rho))).max(0.0).sqrt();
        let distribution =
            StudentsT::new(0.0, 1.0, freedom).expect("n - 2 >= 1 degrees of freedom");
        2.0 * distribution.sf(t.abs())
    };
    Some(Correlation {
        coefficient: rho,
        p_value: p_value.clamp(0.0, 1.0),
        n,
    })
}

/// One per-model difficulty quartile: its instances' mean caller coverage, and both
/// correlations of coverage with APR over those of its instances that neither failed nor
/// passed everything.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuartileCorrelation {
    /// 1 (the model's highest pass rates, its easiest instances) to 4 (its hardest).
    pub quartile: u8,
    /// The instances in the quartile.
    pub n: usize,
    /// Their mean caller coverage, in percent, 0% and 100% instances included (the
    /// coverage-by-quartile view); `None` for an empty quartile.
    #[serde(default)]
    pub mean_coverage: Option<f64>,
    /// How many of them enter the correlations: those whose APR is strictly between 0% and
    /// 100% (an instance every test failed or passed says nothing about how coverage helps).
    #[serde(default)]
    pub correlated: usize,
    pub kendall: Option<Correlation>,
    pub spearman: Option<Correlation>,
}

/// Whether an instance's APR (in percent) enters ReCUBE's correlations: not at 0% or 100%.
pub fn correlated(pass_rate: f64) -> bool {
    pass_rate > 0.0 && pass_rate < 100.0
}

/// Caller coverage against APR by per-model difficulty quartile (spec 2, "Correlations"):
/// one run's (one model's) instances, `coverage` and `pass_rate` in percent, one pair per
/// instance, ranked by that model's own pass rate, highest first (ties in input order), and
/// cut into four groups of sizes as equal as can be, the larger ones first. Each quartile's
/// mean coverage is over all its instances; its correlations leave out those at 0% and
/// 100% ([`correlated`]).
///
/// Example: pass rates 100, 80, 60, 50, 40, 0 give quartiles {100, 80}, {60, 50}, {40},
/// {0}; quartile 1 correlates only the instance at 80% (too few: no coefficient).
pub fn by_quartile(coverage: &[f64], pass_rate: &[f64]) -> Vec<QuartileCorrelation> {
    let n = coverage.len().min(pass_rate.len());
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| pass_rate[b].total_cmp(&pass_rate[a]));
    let mut out = Vec::with_capacity(4);
    let mut start = 0;
    for q in 0..4 {
        let size = n / 4 + usize::from(q < n % 4);
        let group = &order[start..start + size];
        start += size;
        let mean_coverage =
            (size > 0).then(|| group.iter().map(|&i| coverage[i]).sum::<f64>() / size as f64);
        let (xs, ys): (Vec<f64>, Vec<f64>) = group
            .iter()
            .filter(|&&i| correlated(pass_rate[i]))
            .map(|&i| (coverage[i], pass_rate[i]))
            .unzip();
        out.push(QuartileCorrelation {
            quartile: q as u8 + 1,
            n: size,
            mean_coverage,
            correlated: xs.len(),
            kendall: kendall_tau(&xs, &ys),
            spearman: spearman_rho(&xs, &ys),
        });
    }
    out
}

fn standard_normal() -> Normal {
    Normal::new(0.0, 1.0).expect("the standard normal distribution")
}

/// Pairs tied on one side, and scipy's sums over tie groups of t(t-1)(t-2) and
/// t(t-1)(2t+5).
fn tie_terms(values: &[f64]) -> (u64, f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let (mut ties, mut v0, mut v1) = (0u64, 0.0, 0.0);
    for group in sorted.chunk_by(|a, b| a == b) {
        let t = group.len() as f64;
        ties += (group.len() * (group.len() - 1) / 2) as u64;
        v0 += t * (t - 1.0) * (t - 2.0);
        v1 += t * (t - 1.0) * (2.0 * t + 5.0);
    }
    (ties, v0, v1)
}

/// The 1-based ranks of `values`, ties given the mean of their ranks.
fn average_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
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

/// The exact two-sided p-value of Kendall's statistic without ties (scipy's
/// `_kendall_p_exact`): `concordant` of n(n-1)/2 pairs, from the number of permutations of
/// `n` with at most as many inversions as the nearer tail.
fn exact_kendall_p(n: usize, concordant: u64) -> f64 {
    let total = (n * (n - 1) / 2) as u64;
    let c = concordant.min(total - concordant) as usize;
    let factorial = |k: usize| (1..=k).map(|i| i as f64).product::<f64>();
    if n <= 2 {
        return 1.0;
    }
    if c == 0 {
        return 2.0 / factorial(n);
    }
    if c == 1 {
        return 2.0 / factorial(n - 1);
    }
    if 4 * c as u64 == (n * (n - 1)) as u64 {
        return 1.0;
    }
    // counts[k]: permutations of j elements with k inversions, for k <= c.
    let mut counts = vec![0.0f64; c + 1];
    counts[0] = 1.0;
    counts[1] = 1.0;
    for j in 3..=n {
        let mut running = 0.0;
        for value in counts.iter_mut() {
            running += *value;
            *value = running;
        }
        if j <= c {
            // new[j:] -= new[:c+1-j], from the right so each subtrahend is unchanged.
            for k in (j..=c).rev() {
                counts[k] -= counts[k - j];
            }
        }
    }
    2.0 * counts.iter().sum::<f64>() / factorial(n)
}
