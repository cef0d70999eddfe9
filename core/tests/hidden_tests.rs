//! Hidden-test verdicts on real runner output: each scenario's stream was written by the project's runner on a real submission (`fixtures/hidden_tests/generate.sh`); core judges it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use wheelwright_core::hidden_tests::cases::CaseSuite;
use wheelwright_core::hidden_tests::pytest::PytestSuite;
use wheelwright_core::hidden_tests::{RunEnd, TestOutcome, Verdict};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hidden_tests")
}

/// Road-audit turn 1 of the shipped dataset, the turn every scenario submits to.
fn turn_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../datasets/reporeuse-networkx/chains/road-audit/turn-1")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// How the runner's process ended (`run.json`, written by the generator).
#[derive(Deserialize)]
struct Run {
    end: String,
    #[serde(default)]
    status: i32,
}

/// The verdict a scenario must get (`expected.json`, the judge's specification).
#[derive(Deserialize)]
struct Expected {
    passed: u32,
    total: u32,
    /// The start of the reason the run is not believed; `null` when it is.
    tampered: Option<String>,
    /// Outcomes of some tests, by name; the others are not checked.
    #[serde(default)]
    outcomes: BTreeMap<String, TestOutcome>,
}

/// Judges every scenario of `kind` with `judge` and checks it against its expected verdict.
fn check_scenarios(kind: &str, judge: impl Fn(&[u8], RunEnd) -> Verdict) -> usize {
    let mut checked = 0;
    for entry in std::fs::read_dir(fixtures().join(kind)).unwrap() {
        let dir = entry.unwrap().path();
        let name = format!("{kind}/{}", dir.file_name().unwrap().to_string_lossy());
        let run: Run = serde_json::from_str(&read(&dir.join("run.json"))).unwrap();
        let end = match run.end.as_str() {
            "exited" => RunEnd::Exited(run.status),
            "timed_out" => RunEnd::TimedOut,
            other => panic!("{name}: unknown end {other}"),
        };
        let stream = std::fs::read(dir.join("stream.txt")).unwrap();
        let want: Expected = serde_json::from_str(&read(&dir.join("expected.json")))
            .unwrap_or_else(|e| panic!("{name}/expected.json: {e}"));
        let got = judge(&stream, end);
        assert_eq!(
            (got.passed, got.total),
            (want.passed, want.total),
            "{name}: {:?}",
            got.tests
                .iter()
                .map(|t| (&t.name, t.outcome, &t.excerpt))
                .collect::<Vec<_>>()
        );
        match (&got.tampered, &want.tampered) {
            (None, None) => {}
            (Some(said), Some(prefix)) => {
                assert!(
                    said.starts_with(prefix.as_str()),
                    "{name}: {said:?} vs {prefix:?}"
                )
            }
            (said, wanted) => panic!("{name}: tampered {said:?}, expected {wanted:?}"),
        }
        for (test, outcome) in &want.outcomes {
            let found = got.tests.iter().find(|t| &t.name == test);
            assert_eq!(found.map(|t| t.outcome), Some(*outcome), "{name}: {test}");
        }
        checked += 1;
    }
    checked
}

fn case_suite() -> CaseSuite {
    CaseSuite::new(
        "solutions.road_audit.distances",
        "networkx",
        &read(&turn_dir().join("cases.json")),
        &read(&turn_dir().join("expected.json")),
    )
    .unwrap()
}

#[test]
fn case_suites_are_judged_on_the_host() {
    let suite = case_suite();
    let checked = check_scenarios("cases", |stream, end| {
        suite.verdict(Some(stream), false, end)
    });
    assert_eq!(checked, 7, "every scenario was checked");
}

#[test]
fn pytest_suites_are_judged_from_the_stream_and_the_canaries() {
    let file = read(&turn_dir().join("tests/test_turn.py"));
    // The generator picked the canaries with seed 7.
    let suite = PytestSuite::new(&[("test_turn.py".to_owned(), file)], 7);
    let checked = check_scenarios("pytest", |stream, end| {
        suite.verdict(Some(stream), false, end)
    });
    assert_eq!(checked, 5, "every scenario was checked");
}

#[test]
fn the_sandbox_gets_no_expected_value() {
    let suite = case_suite();
    let input: serde_json::Value = serde_json::from_str(&suite.judge_input()).unwrap();
    let cases: serde_json::Value =
        serde_json::from_str(&read(&turn_dir().join("cases.json"))).unwrap();
    // Exactly cases.json's calls and the module: nothing of expected.json.
    assert_eq!(
        input,
        serde_json::json!({"module": "solutions.road_audit.distances", "cases": cases})
    );
    let expected: serde_json::Value =
        serde_json::from_str(&read(&turn_dir().join("expected.json"))).unwrap();
    let text = suite.judge_input();
    for case in expected["cases"].as_array().unwrap() {
        let value = case["expected"].to_string();
        // Values long enough to be recognisable never appear (short ones like `0` would
        // match by chance anywhere).
        if value.len() > 12 {
            assert!(
                !text.contains(&value),
                "{value} leaked into the judge input"
            );
        }
    }
}

#[test]
fn a_stream_over_its_limit_is_not_believed() {
    let suite = case_suite();
    let stream = std::fs::read(fixtures().join("cases/reference/stream.txt")).unwrap();
    let got = suite.verdict(Some(&stream), true, RunEnd::Exited(0));
    assert_eq!(got.passed, 0);
    assert!(got.tampered.unwrap().contains("size limit"));
    // Out of memory before anything reported: every case errored, not tampered.
    let got = suite.verdict(None, false, RunEnd::OutOfMemory);
    assert!(got.tampered.is_none());
    assert!(got.tests.iter().all(|t| t.outcome == TestOutcome::Errored));
}

#[test]
fn pytest_canaries_look_like_the_real_tests() {
    let file = read(&turn_dir().join("tests/test_turn.py"));
    let real: Vec<String> =
        wheelwright_core::hidden_tests::pytest::expected_tests("test_turn", &file)
            .into_iter()
            .map(|t| t.name)
            .collect();
    let words: std::collections::BTreeSet<&str> = real.iter().flat_map(|n| n.split('_')).collect();
    let mut names = std::collections::BTreeSet::new();
    for seed in 0..50 {
        let suite = PytestSuite::new(&[("test_turn.py".to_owned(), file.clone())], seed);
        let canaries = suite.canaries();
        assert_eq!(canaries.len(), 1);
        let canary = &canaries[0];
        assert_eq!(canary.module, "test_turn");
        assert!(!real.contains(&canary.name), "{}", canary.name);
        assert!(
            canary.name.split('_').all(|w| words.contains(w)),
            "{} is made of the file's own words",
            canary.name
        );
        // The canary is a test of the same module, in the file the sandbox gets.
        let staged = suite
            .judge_files()
            .into_iter()
            .find(|(p, _)| p == "tests/test_turn.py")
            .unwrap();
        assert!(
            String::from_utf8(staged.1)
                .unwrap()
                .contains(&format!("def {}():", canary.name))
        );
        names.insert(canary.name.clone());
    }
    assert!(names.len() > 25, "seeds pick different canaries: {names:?}");
}

/// One comparison: what the sandbox sent, the expected value, and what Python decided
/// (`fixtures/hidden_tests/compare/generate.py` ran the dataset's own canon.py and
/// pytest.raises logic).
#[derive(Deserialize)]
struct Comparison {
    kind: wheelwright_core::hidden_tests::compare::Compare,
    got: serde_json::Value,
    expected: serde_json::Value,
    python: bool,
    /// Why the host decides otherwise than the generated pytest file did, where it does.
    #[serde(default)]
    host_differs: Option<String>,
}

#[test]
fn comparisons_agree_with_python() {
    use wheelwright_core::hidden_tests::compare::{Got, matches};
    let entries: Vec<Comparison> =
        serde_json::from_str(&read(&fixtures().join("compare/expected.json"))).unwrap();
    assert!(entries.len() >= 40);
    for entry in &entries {
        let got = match entry.got.get("raised") {
            Some(classes) => Got::Raised(serde_json::from_value(classes.clone()).unwrap()),
            None => Got::Value(entry.got["value"].clone()),
        };
        let host = matches(entry.kind, &got, &entry.expected, "networkx");
        let want = entry.python ^ entry.host_differs.is_some();
        assert_eq!(
            host, want,
            "{:?} {} vs {} (python said {})",
            entry.kind, entry.got, entry.expected, entry.python
        );
    }
}
