//! Kendall's tau and Spearman's rho with p-values (spec 2, "Correlations") against scipy.
//!
//! `fixtures/recube/correlation/cases.json` is scipy.stats' output on fixed inputs, written
//! by `generate.py` beside it (run it with a Python that has scipy to regenerate); `null`
//! is scipy's NaN (undefined).

use std::path::Path;

use serde::Deserialize;
use wheelwright_core::recube::metrics::{Correlation, by_quartile, kendall_tau, spearman_rho};

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
fn quartiles_split_by_difficulty_and_correlate_within_each() {
    // Twelve pairs, difficulty 0..12 in reverse input order: quartile 1 is the last three.
    let difficulty: Vec<f64> = (0..12).rev().map(f64::from).collect();
    let x: Vec<f64> = (0..12).map(f64::from).collect();
    let y: Vec<f64> = (0..12)
        .map(|i| {
            if i % 2 == 0 {
                f64::from(i)
            } else {
                -f64::from(i)
            }
        })
        .collect();
    let quartiles = by_quartile(&difficulty, &x, &y);
    assert_eq!(
        quartiles.iter().map(|q| q.n).collect::<Vec<_>>(),
        [3, 3, 3, 3]
    );
    // Quartile 1 holds pairs 11, 10, 9: x 11, 10, 9; y -11, 10, -9.
    let q1 = &quartiles[0];
    assert_eq!(q1.quartile, 1);
    let expected = kendall_tau(&[11.0, 10.0, 9.0], &[-11.0, 10.0, -9.0]);
    assert_eq!(q1.kendall, expected);
    // Uneven sizes: the first quartiles take the extra pairs.
    let sizes: Vec<usize> = by_quartile(&[1.0; 10], &[0.0; 10], &[0.0; 10])
        .iter()
        .map(|q| q.n)
        .collect();
    assert_eq!(sizes, [3, 3, 2, 2]);
    // Too few pairs in a quartile: undefined, not 0.
    assert!(
        by_quartile(&[1.0, 2.0], &[1.0, 2.0], &[1.0, 2.0])[0]
            .spearman
            .is_none()
    );
}
