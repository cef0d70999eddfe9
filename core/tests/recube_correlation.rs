//! Kendall's tau and Spearman's rho with p-values (spec 2, "Correlations") against scipy.
//!
//! `fixtures/recube/correlation/cases.json` is scipy.stats' output on fixed inputs, written
//! by `generate.py` beside it (run it with a Python that has scipy to regenerate); `null`
//! is scipy's NaN (undefined).

use std::path::Path;

use serde::Deserialize;
use wheelwright_core::recube::metrics::{
    Correlation, by_quartile, correlated, kendall_tau, spearman_rho,
};

#[derive(Deserialize)]
struct Cases {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    x: Vec<f64>,
    y: Vec<f64>,
    kendall_tau: Option<f64>,
    kendall_p: Option<f64>,
    spearman_rho: Option<f64>,
    spearman_p: Option<f64>,
}

/// `actual` equals scipy's coefficient and p-value to 1e-9 (relative for small p-values),
/// or both are undefined.
fn check(
    what: &str,
    actual: Option<Correlation>,
    coefficient: Option<f64>,
    p: Option<f64>,
) -> Option<String> {
    let close = |a: f64, e: f64| (a - e).abs() <= 1e-9 * e.abs().max(1e-3);
    let same = match (actual, coefficient, p) {
        (Some(a), Some(c), Some(p)) => close(a.coefficient, c) && close(a.p_value, p),
        (None, None, None) => true,
        _ => false,
    };
    (!same).then(|| format!("{what}: {actual:?}, scipy says {coefficient:?} (p {p:?})"))
}

#[test]
fn each_case_matches_scipy() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recube/correlation/cases.json");
    let cases: Cases =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture")).expect("JSON");
    assert!(cases.cases.len() >= 6);
    let mut problems = Vec::new();
    for c in &cases.cases {
        problems.extend(check(
            &format!("{} kendall", c.name),
            kendall_tau(&c.x, &c.y),
            c.kendall_tau,
            c.kendall_p,
        ));
        problems.extend(check(
            &format!("{} spearman", c.name),
            spearman_rho(&c.x, &c.y),
            c.spearman_rho,
            c.spearman_p,
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn quartiles_are_the_models_own_pass_rates_and_correlate_without_0_and_100() {
    // Twelve instances: APR (percent) and caller coverage (percent), in input order. Ranked
    // by APR, highest first: quartile 1 is 100, 100, 90 (the last three given), quartile 4
    // is 0, 0, 10.
    let pass = [
        0.0, 10.0, 0.0, 20.0, 40.0, 30.0, 50.0, 60.0, 70.0, 90.0, 100.0, 100.0,
    ];
    let coverage = [
        5.0, 20.0, 15.0, 10.0, 60.0, 30.0, 40.0, 80.0, 50.0, 70.0, 100.0, 90.0,
    ];
    let quartiles = by_quartile(&coverage, &pass);
    let shape: Vec<(u8, usize, usize)> = quartiles
        .iter()
        .map(|q| (q.quartile, q.n, q.correlated))
        .collect();
    assert_eq!(shape, [(1, 3, 1), (2, 3, 3), (3, 3, 3), (4, 3, 1)]);
    // Mean coverage counts every instance of the quartile, 0% and 100% included.
    let means: Vec<Option<f64>> = quartiles.iter().map(|q| q.mean_coverage).collect();
    assert_eq!(
        means,
        [
            Some((100.0 + 90.0 + 70.0) / 3.0),
            Some((50.0 + 80.0 + 40.0) / 3.0),
            Some((60.0 + 30.0 + 10.0) / 3.0),
            Some((20.0 + 5.0 + 15.0) / 3.0),
        ]
    );
    // Quartile 2 holds APR 70, 60, 50 with coverage 50, 80, 40.
    assert_eq!(
        quartiles[1].kendall,
        kendall_tau(&[50.0, 80.0, 40.0], &[70.0, 60.0, 50.0])
    );
    assert_eq!(
        quartiles[1].spearman,
        spearman_rho(&[50.0, 80.0, 40.0], &[70.0, 60.0, 50.0])
    );
    // Quartiles 1 and 4 keep one instance each for the correlations: undefined, not 0.
    assert!(quartiles[0].kendall.is_none() && quartiles[3].spearman.is_none());
    // Uneven sizes: the first quartiles take the extra instances; an empty one has no mean.
    let sizes: Vec<usize> = by_quartile(&[50.0; 10], &[50.0; 10])
        .iter()
        .map(|q| q.n)
        .collect();
    assert_eq!(sizes, [3, 3, 2, 2]);
    assert_eq!(
        by_quartile(&[1.0, 2.0], &[50.0, 60.0])[3].mean_coverage,
        None
    );
    assert!(!correlated(0.0) && !correlated(100.0) && correlated(0.1) && correlated(99.9));
}
