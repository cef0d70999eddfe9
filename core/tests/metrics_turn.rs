//! Fixture tests for `score_turn`: one directory per case under `fixtures/metrics/`.
//!
//! Each case has `repo/` (W_{t-1}: repository plus the agent's earlier files),
//! `submission.py` (absent: missing), `case.json` (path, targets, shown line ranges or null,
//! tests, files, lines) and `expected.json` (rates as numbers or `{"undefined": reason}`,
//! re-implemented targets, evidence, canonical names). `expected.json` is the
//! specification, written by hand; `score.json` pins the whole score as serialised (every
//! field, so a refactor cannot change one unseen), rewritten by `UPDATE_EXPECT=1`.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::expect::check_json;
use serde_json::{Value, json};
use wheelwright_core::hidden_tests::TestResults;
use wheelwright_core::metric::Score;
use wheelwright_core::python::index::{IndexOptions, RepoIndex};
use wheelwright_core::reporeuse::metrics::turn::{TurnInput, TurnScore, score_turn};
use wheelwright_core::workspace::{ShownLines, Workspace};

fn load_repo(root: &Path) -> Workspace {
    let mut workspace = Workspace::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                workspace.insert(&rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    workspace
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// A score as the fixtures write it: a number, or `{"undefined": reason}`.
fn score_json(score: Score) -> Value {
    match score {
        Score::Defined { value } => json!(value),
        Score::Undefined { reason } => json!({ "undefined": reason }),
    }
}

fn close(got: &Value, want: &Value) -> bool {
    match (got.as_f64(), want.as_f64()) {
        (Some(g), Some(w)) => (g - w).abs() < 1e-9,
        _ => got == want,
    }
}

fn run_case(dir: &Path) -> (TurnScore, Value) {
    let case: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let index = RepoIndex::build(&load_repo(&dir.join("repo")), &IndexOptions::default());
    let submission = std::fs::read_to_string(dir.join("submission.py")).ok();
    let shown = case["shown"].as_object().map(|files| {
        let mut shown = ShownLines::new();
        for (path, ranges) in files {
            for range in ranges.as_array().unwrap() {
                let bound = |i: usize| u32::try_from(range[i].as_u64().unwrap()).unwrap();
                shown.add_range(path, bound(0), bound(1));
            }
        }
        shown
    });
    let tests: Option<TestResults> = serde_json::from_value(case["tests"].clone()).ok();
    let count = |key: &str| case[key].as_u64().map(|n| u32::try_from(n).unwrap());
    let repo_targets = strings(&case["repo_targets"]);
    let self_targets = strings(&case["self_targets"]);
    let input = TurnInput {
        workspace: &index,
        submission: submission.as_deref(),
        path: case["path"].as_str().unwrap(),
        repo_targets: &repo_targets,
        self_targets: &self_targets,
        shown: shown.as_ref(),
        tests,
        files: count("files"),
        lines: count("lines"),
    };
    (score_turn(&input), expected)
}

/// Compares every key present in `expected.json` with the turn's score.
fn check_turn(score: &TurnScore, expected: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    let as_json = serde_json::to_value(score).unwrap();
    let scores = [
        ("reuse_repo", score.repo.reuse),
        ("reuse_self", score.self_targets.reuse),
        ("recall_repo", score.repo.recall),
        ("recall_self", score.self_targets.recall),
        ("pass", score.pass),
        ("resolve", score.resolve),
        ("files", score.files),
        ("lines", score.lines),
    ];
    for (key, got) in scores {
        if let Some(want) = expected.get(key) {
            let got = score_json(got);
            if !close(&got, want) {
                errors.push(format!("{key}: {got}, want {want}"));
            }
        }
    }
    for key in ["submission", "syntax_errors"] {
        if let Some(want) = expected.get(key)
            && &as_json[key] != want
        {
            errors.push(format!("{key}: {}, want {want}", as_json[key]));
        }
    }
    if let Some(want) = expected["turn_reimplemented"].as_bool()
        && score.reimplemented != want
    {
        errors.push(format!("turn reimplemented: {}", score.reimplemented));
    }
    let targets: Vec<_> = score
        .repo
        .targets
        .iter()
        .chain(&score.self_targets.targets)
        .collect();
    let reimplemented: BTreeSet<String> = targets
        .iter()
        .filter(|t| t.reimplemented())
        .map(|t| t.target.clone())
        .collect();
    let want: BTreeSet<String> = strings(&expected["reimplemented"]).into_iter().collect();
    if reimplemented != want {
        errors.push(format!("reimplemented: {reimplemented:?}, want {want:?}"));
    }
    for (name, want) in expected["evidence"].as_object().into_iter().flatten() {
        let Some(evidence) = targets
            .iter()
            .find(|t| &t.target == name)
            .and_then(|t| t.reimplementation.as_ref())
        else {
            errors.push(format!("{name}: no evidence"));
            continue;
        };
        if json!(evidence.matched) != want["matched"]
            || !close(&json!(evidence.share), &want["share"])
        {
            errors.push(format!("{name}: evidence {evidence:?}, want {want}"));
        }
    }
    for (name, want) in expected["canonical"].as_object().into_iter().flatten() {
        let got = targets
            .iter()
            .find(|t| &t.target == name)
            .map(|t| t.canonical.clone());
        if got != Some(want.as_str().map(str::to_owned)) {
            errors.push(format!("{name}: canonical {got:?}, want {want}"));
        }
    }
    errors
}

#[test]
fn every_turn_fixture_matches_its_expectation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/metrics");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.json").exists())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 5);
    let mut failures = Vec::new();
    for dir in &dirs {
        let (score, expected) = run_case(dir);
        for error in check_turn(&score, &expected) {
            failures.push(format!(
                "{}: {error}",
                dir.file_name().unwrap().to_string_lossy()
            ));
        }
        // The whole score, pinned: what expected.json leaves out must not change either.
        let whole = serde_json::to_value(&score).expect("a turn score serialises");
        if let Err(problem) = check_json(&dir.join("score.json"), &whole) {
            failures.push(problem);
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn figure_one_reuses_half_of_each_kind_and_reimplements_the_rest() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/metrics/figure1");
    let (score, _) = run_case(&dir);
    assert_eq!(score.repo.reuse.value(), Some(0.5));
    assert_eq!(score.self_targets.reuse.value(), Some(0.5));
    let bypassed: Vec<&str> = score
        .repo
        .targets
        .iter()
        .chain(&score.self_targets.targets)
        .filter(|t| !t.referenced)
        .map(|t| t.target.as_str())
        .collect();
    assert_eq!(
        bypassed,
        ["shop.pricing.compute_tax", "shop.cart.cart_total"]
    );
    assert!(
        score
            .repo
            .targets
            .iter()
            .chain(&score.self_targets.targets)
            .all(|t| t.referenced || t.reimplemented())
    );
}

#[test]
fn run_row_macro_averages_in_percent_and_keeps_counts() {
    use wheelwright_core::reporeuse::metrics::run::aggregate_run;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/metrics");
    let (figure1, _) = run_case(&root.join("figure1"));
    let (missing, _) = run_case(&root.join("missing_submission"));
    let (empty, _) = run_case(&root.join("empty_submission"));
    // Chain 1: figure1 then missing; chain 2: empty.
    let row = aggregate_run(&[vec![figure1, missing], vec![empty]]);
    let v = |s: Score| s.value();
    // reuse_repo: chain 1 mean(50, 0) = 25, chain 2: 0 -> 12.5.
    assert_eq!(v(row.row.reuse_repo), Some(12.5));
    // reuse_self: chain 1 only figure1 defined (50), chain 2: 0 -> 25.
    assert_eq!(v(row.row.reuse_self), Some(25.0));
    // pass: chain 1 mean(80, 0) = 40; chain 2 undefined -> 40.
    assert_eq!(v(row.row.pass), Some(40.0));
    assert_eq!(v(row.row.resolve), Some(0.0));
    // files are counts, not percent: only figure1 has them.
    assert_eq!(v(row.row.files), Some(3.0));
    // C_dup: chain 1 re-implements at turn 1, chain 2 never: [50, 50] -> 50.
    assert_eq!(
        row.series
            .c_dup
            .iter()
            .map(|s| s.value())
            .collect::<Vec<_>>(),
        [Some(50.0), Some(50.0)]
    );
    assert_eq!(v(row.row.c_dup), Some(50.0));
    assert_eq!(
        row.series
            .reuse_repo
            .iter()
            .map(|s| s.value())
            .collect::<Vec<_>>(),
        [Some(25.0), Some(0.0)]
    );
}
