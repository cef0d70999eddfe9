//! Hidden-test verdicts from real pytest JUnit reports: honest, forged, cut short, missing, timed out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use wheelwright_core::hidden_tests::{
    ExpectedTest, RunEnd, TestOutcome, canary_source, expected_tests, verdict,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hidden_tests")
}

#[derive(Deserialize)]
struct Expected {
    end: String,
    passed: u32,
    total: u32,
    tampered: bool,
    #[serde(default)]
    reason: Option<String>,
    outcomes: BTreeMap<String, TestOutcome>,
}

#[test]
fn the_expected_tests_are_what_pytest_collects_by_default() {
    let source = std::fs::read_to_string(fixtures().join("test_turn.py")).unwrap();
    let names: Vec<String> = expected_tests("test_turn", &source)
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        names,
        [
            "test_passes",
            "test_fails",
            "test_errors",
            "test_skipped",
            "test_param",
            "TestGroup.test_method"
        ]
    );
    // The canary file defines exactly its one test.
    let canary = canary_source("test_canary_zq81");
    assert_eq!(
        expected_tests("test_canary_zq81", &canary),
        [ExpectedTest {
            module: "test_canary_zq81".to_owned(),
            name: "test_canary_zq81".to_owned()
        }]
    );
}

#[test]
fn every_report_fixture_gets_its_expected_verdict() {
    let source = std::fs::read_to_string(fixtures().join("test_turn.py")).unwrap();
    let expected_tests = expected_tests("test_turn", &source);
    let canary = ExpectedTest {
        module: "test_canary_zq81".to_owned(),
        name: "test_canary_zq81".to_owned(),
    };
    let mut checked = 0;
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        let want: Expected =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                .unwrap();
        let report = std::fs::read_to_string(dir.join("report.xml")).ok();
        let end = match want.end.as_str() {
            "finished" => RunEnd::Finished,
            "timed_out" => RunEnd::TimedOut,
            "out_of_memory" => RunEnd::OutOfMemory,
            other => panic!("{case}: unknown end {other}"),
        };
        let got = verdict(report.as_deref(), end, &expected_tests, &canary);
        assert_eq!((got.passed, got.total), (want.passed, want.total), "{case}");
        assert_eq!(
            got.tampered.is_some(),
            want.tampered,
            "{case}: {:?}",
            got.tampered
        );
        if let Some(reason) = &want.reason {
            let said = got.tampered.clone().unwrap_or_default();
            assert!(said.starts_with(reason), "{case}: {said:?} vs {reason:?}");
        }
        let outcomes: BTreeMap<String, TestOutcome> = got
            .tests
            .iter()
            .map(|t| (t.name.clone(), t.outcome))
            .collect();
        assert_eq!(outcomes, want.outcomes, "{case}");
        checked += 1;
    }
    assert_eq!(checked, 8, "every fixture directory was checked");
}

#[test]
fn failure_text_is_kept_as_a_capped_excerpt() {
    let source = std::fs::read_to_string(fixtures().join("test_turn.py")).unwrap();
    let report = std::fs::read_to_string(fixtures().join("honest/report.xml")).unwrap();
    let canary = ExpectedTest {
        module: "test_canary_zq81".to_owned(),
        name: "test_canary_zq81".to_owned(),
    };
    let got = verdict(
        Some(&report),
        RunEnd::Finished,
        &expected_tests("test_turn", &source),
        &canary,
    );
    let fails = got.tests.iter().find(|t| t.name == "test_fails").unwrap();
    assert!(
        fails.excerpt.starts_with("assert [1, 2] == [1, 3]"),
        "{}",
        fails.excerpt
    );
    // A huge failure message is cut to the limit.
    let huge = report.replace("assert [1, 2] == [1, 3]&#10;", &"x".repeat(100_000));
    let got = verdict(
        Some(&huge),
        RunEnd::Finished,
        &expected_tests("test_turn", &source),
        &canary,
    );
    let fails = got.tests.iter().find(|t| t.name == "test_fails").unwrap();
    assert!(fails.excerpt.len() <= wheelwright_core::hidden_tests::EXCERPT_BYTES + 3);
}
