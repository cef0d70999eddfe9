//! ReCUBE's strict and average pass rates (spec 2) on hand-worked instance sets.
//!
//! Each `fixtures/recube/pass_rates/<case>.json` holds the instances (the dataset's labelled
//! tests and the run's verdict, `null` for an instance without a submission), the rates
//! worked out by hand (`null`: undefined) and, in `about`, how.

use std::path::Path;

use serde::Deserialize;
use wheelwright_core::hidden_tests::Verdict;
use wheelwright_core::metric::Score;
use wheelwright_core::recube::metrics::{LabelledTest, PassRates, judge};

#[derive(Deserialize)]
struct Case {
    instances: Vec<Instance>,
    expected: Expected,
}

#[derive(Deserialize)]
struct Instance {
    tests: Vec<LabelledTest>,
    verdict: Option<Verdict>,
}

#[derive(Deserialize)]
struct Expected {
    spr: Option<f64>,
    apr: Option<f64>,
    spr_external: Option<f64>,
    apr_external: Option<f64>,
    spr_internal: Option<f64>,
    apr_internal: Option<f64>,
}

/// `actual` is `expected` (to 1e-9), or both are undefined; else a line saying which differs.
fn check_rate(case: &str, name: &str, actual: Score, expected: Option<f64>) -> Option<String> {
    let same = match (actual.value(), expected) {
        (Some(a), Some(e)) => (a - e).abs() < 1e-9,
        (None, None) => true,
        _ => false,
    };
    (!same).then(|| format!("{case}: {name} is {actual:?}, expected {expected:?}"))
}

#[test]
fn each_hand_worked_case_has_its_rates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recube/pass_rates");
    let mut problems = Vec::new();
    let mut cases = 0;
    for entry in std::fs::read_dir(dir).expect("the fixtures") {
        let path = entry.expect("an entry").path();
        let case = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("a fixture");
        let Case {
            instances,
            expected: e,
        } = serde_json::from_str(&text).unwrap_or_else(|err| panic!("{case}: {err}"));
        cases += 1;
        let judged: Vec<_> = instances
            .iter()
            .map(|i| judge(&i.tests, i.verdict.as_ref()))
            .collect();
        for (i, (instance, tests)) in instances.iter().zip(&judged).enumerate() {
            // The dataset fixes how many tests count, whatever the run reported.
            if tests.len() != instance.tests.len() {
                problems.push(format!("{case}: instance {i} judged {} tests", tests.len()));
            }
        }
        let r = PassRates::of(&judged);
        problems.extend(
            [
                ("spr", r.spr, e.spr),
                ("apr", r.apr, e.apr),
                ("spr_external", r.spr_external, e.spr_external),
                ("apr_external", r.apr_external, e.apr_external),
                ("spr_internal", r.spr_internal, e.spr_internal),
                ("apr_internal", r.apr_internal, e.apr_internal),
            ]
            .into_iter()
            .filter_map(|(name, actual, expected)| check_rate(&case, name, actual, expected)),
        );
    }
    assert_eq!(cases, 5, "the fixtures are missing");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
