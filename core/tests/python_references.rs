//! Fixture tests for reference resolution: one directory per spec case under `fixtures/python/`.
//!
//! Each case has `repo/` (W_{t-1}), `submission.py` (absent: missing file), `case.json`
//! (`path`, `targets`, optional `options.source_roots`) and `expected.json`: `referenced`
//! (exactly the targets referenced), and optionally `canonical` (target -> canonical name or
//! null for unknown), `callees` (exact D5 identities), `syntax_errors`, `missing`, `module`,
//! `uses` (target -> where the submission uses it: line, import line, rule; exactly).
//! Each case runs with its repository's index built and with it saved and loaded again.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::repo::workspace_of;
use serde_json::Value;
use wheelwright_core::python::index::{IndexOptions, RepoIndex, Resolution};
use wheelwright_core::python::references::analyse_submission;
use wheelwright_core::python::snapshot;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/python")
}

fn strings(value: &Value) -> BTreeSet<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// How a case's repository is indexed: every case is run both ways, and must pass both.
#[derive(Clone, Copy, Debug)]
enum Indexing {
    /// Parsed here ([`RepoIndex::build`]), as the server and the command line do.
    Built,
    /// Saved and loaded again ([`snapshot`]), as the browser gets the server's.
    Loaded,
}

/// Loads one case, runs it with its repository indexed `how` and returns the mismatches.
fn check_case(dir: &Path, how: Indexing) -> Vec<String> {
    let case: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let options = IndexOptions {
        source_roots: strings(&case["options"]["source_roots"])
            .into_iter()
            .collect(),
    };
    let workspace = workspace_of(&dir.join("repo"));
    let index = match how {
        Indexing::Built => RepoIndex::build(&workspace, &options),
        Indexing::Loaded => {
            let saved = snapshot::save(&workspace, &options).expect("never cancelled");
            snapshot::load(&saved, &workspace, &options).expect("saved from these files")
        }
    };
    let submission = std::fs::read_to_string(dir.join("submission.py")).ok();
    let path = case["path"].as_str().unwrap();
    let analysis = analyse_submission(&index, path, submission.as_deref());
    let mut errors = Vec::new();
    let mut referenced = BTreeSet::new();
    for target in strings(&case["targets"]) {
        let canonical = match index.resolve(&target) {
            Resolution::Definition { canonical, .. } => Some(canonical),
            _ => None,
        };
        if let Some(want) = expected["canonical"].get(&target)
            && want.as_str() != canonical.as_deref()
        {
            errors.push(format!("canonical of {target}: {canonical:?}, want {want}"));
        }
        if let Some(want) = expected["uses"].get(&target) {
            let got =
                serde_json::to_value(canonical.as_deref().map_or(&[][..], |c| analysis.uses(c)))
                    .unwrap();
            if &got != want {
                errors.push(format!("uses of {target}: {got}, want {want}"));
            }
        }
        if canonical.is_some_and(|c| analysis.references(&c)) {
            referenced.insert(target);
        }
    }
    let want = strings(&expected["referenced"]);
    if referenced != want {
        errors.push(format!(
            "referenced: extra {:?}, missing {:?}",
            referenced.difference(&want).collect::<Vec<_>>(),
            want.difference(&referenced).collect::<Vec<_>>()
        ));
    }
    if expected.get("callees").is_some() {
        let want = strings(&expected["callees"]);
        if analysis.callees != want {
            errors.push(format!("callees: {:?}, want {want:?}", analysis.callees));
        }
    }
    for (key, got) in [
        ("syntax_errors", analysis.syntax_errors),
        ("missing", analysis.missing),
    ] {
        if let Some(want) = expected[key].as_bool()
            && want != got
        {
            errors.push(format!("{key}: {got}, want {want}"));
        }
    }
    if let Some(want) = expected["module"].as_str()
        && analysis.module != want
    {
        errors.push(format!("module: {}, want {want}", analysis.module));
    }
    errors
}

#[test]
fn every_reference_fixture_matches_its_expectation() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.json").exists())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 15, "fixtures found: {}", dirs.len());
    let mut failures = Vec::new();
    for dir in &dirs {
        for how in [Indexing::Built, Indexing::Loaded] {
            for error in check_case(dir, how) {
                failures.push(format!(
                    "{} ({how:?}): {error}",
                    dir.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
