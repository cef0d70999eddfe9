//! Tests of the execute step (RepoReuse's pipeline): what two runs of a reference reported in, the kept expected values and the discarded cases out.

use std::path::Path;

use serde_json::{Value, json};
use wheelwright_core::hidden_tests::RunEnd;
use wheelwright_core::hidden_tests::cases::CaseSuite;
use wheelwright_core::hidden_tests::compare::ExceptionClasses;
use wheelwright_core::python::index::{IndexOptions, RepoIndex};
use wheelwright_core::reporeuse::execution::{expected_json, expected_values, kept_cases_json};
use wheelwright_core::workspace::Workspace;

use crate::common::expect::expect_json;

/// The result stream a run would send for `results` (case id -> record body, `null`: no
/// record), each case under the alias the suite sent it as.
fn stream(suite: &CaseSuite, results: &Value) -> Vec<u8> {
    let input: Value = serde_json::from_str(&suite.judge_input()).unwrap();
    let mut out = String::new();
    let mut written = 0;
    for (sent, case) in input["cases"].as_array().unwrap().iter().enumerate() {
        // The suite sends cases shuffled; the alias is `c{position}` and the args tell
        // which case it is.
        let id = suite
            .cases()
            .iter()
            .find(|c| {
                c.args == case["args"].as_str().unwrap()
                    && c.function == case["function"].as_str().unwrap()
            })
            .unwrap()
            .id
            .clone();
        let body = &results[&id];
        if body.is_null() {
            continue;
        }
        let mut record = body.clone();
        record["case"] = json!(format!("c{}", sent + 1));
        out.push_str(&format!("WWR {record}\n"));
        written += 1;
    }
    out.push_str(&format!("WWR {{\"end\": {written}}}\n"));
    out.into_bytes()
}

#[test]
fn stable_values_of_the_proposed_kind_are_kept_and_every_other_case_is_discarded_with_its_reason() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reporeuse/execution");
    let fixture: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("runs.json")).unwrap()).unwrap();
    let cases_json = serde_json::to_string(&fixture["cases"]).unwrap();
    let suite = CaseSuite::to_execute("solutions.demo.mod", "pkg", &cases_json).unwrap();
    let mut repository = Workspace::new();
    for (path, text) in fixture["repository"].as_object().unwrap() {
        repository.insert(path, text.as_str().unwrap());
    }
    let classes = ExceptionClasses::of_repository(
        &RepoIndex::build(&repository, &IndexOptions::default()),
        "pkg",
    );
    let runs: Vec<_> = fixture["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| suite.observe(Some(&stream(&suite, r)), false, RunEnd::Exited(0)))
        .collect();
    let executed = expected_values(&suite, &runs, &classes).unwrap();
    let expected: Value =
        serde_json::from_str(&expected_json("demo", 1, "pkg==1.0", &executed.kept)).unwrap();
    expect_json(
        &dir.join("expected.json"),
        &json!({"expected.json": expected, "discarded": executed.discarded}),
    );
    // The kept cases judged on the same runs pass, every one: the expected values are
    // what the reference gives.
    let kept = CaseSuite::new(
        "solutions.demo.mod",
        "pkg",
        &kept_cases_json(&executed.kept),
        &serde_json::to_string(&expected).unwrap(),
    )
    .unwrap()
    .with_exceptions(classes.clone());
    let first = &fixture["runs"][0];
    let verdict = kept.verdict(Some(&stream(&kept, first)), false, RunEnd::Exited(0));
    assert_eq!(
        (verdict.passed, verdict.total),
        (executed.kept.len() as u32, executed.kept.len() as u32),
        "{verdict:?}"
    );
    assert_eq!(executed.kept.len(), 5);

    // A run whose stream cannot be trusted is refused whole, not read case by case.
    let mut tampered = stream(&suite, first);
    tampered.extend_from_slice(b"WWR {\"case\": \"c1\", \"value\": 1}\n");
    let bad = suite.observe(Some(&tampered), false, RunEnd::Exited(0));
    let err = expected_values(&suite, &[bad, runs[1].clone()], &classes).unwrap_err();
    assert!(
        err.starts_with("run 1 of the reference cannot be used"),
        "{err}"
    );
}
