//! Fixture tests for the `copy` baseline: one directory per case under `fixtures/baseline/`.
//!
//! Each case has `repo/` (W_{t-1}: repository plus the earlier turns' modules),
//! `reference.py` (the turn's reference), `case.json` (required path, repo and self
//! targets, the private name of each copied target, the targets the scorer must find
//! re-implemented in the copy, and words each expected diagnostic contains) and
//! `expected.py` (the copy module, compared byte for byte). Every case is also scored:
//! the reference reuses every target and re-implements none; the copy references no
//! copied target, and re-implements exactly the listed ones. `UPDATE_EXPECT=1`
//! rewrites each `expected.py` from the output (review the diff before committing).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::expect::check_text;
use serde::Deserialize;
use wheelwright_core::metric::Score;
use wheelwright_core::python::index::{IndexOptions, RepoIndex};
use wheelwright_core::reporeuse::baseline::{CopyResult, copy_module};
use wheelwright_core::reporeuse::metrics::turn::{TurnInput, TurnScore, score_turn};
use wheelwright_core::workspace::Workspace;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    path: String,
    repo_targets: Vec<String>,
    self_targets: Vec<String>,
    /// Target -> private name of its copy.
    copied: BTreeMap<String, String>,
    /// Targets the scorer finds re-implemented in the copy.
    reimplemented: Vec<String>,
    /// One entry per expected diagnostic: words it contains.
    diagnostics: Vec<String>,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/baseline")
}

fn load_repo(root: &Path) -> Workspace {
    let mut workspace = Workspace::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy();
                workspace.insert(&rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    workspace
}

fn score(index: &RepoIndex, case: &Case, submission: &str) -> TurnScore {
    score_turn(&TurnInput {
        workspace: index,
        submission: Some(submission),
        path: &case.path,
        repo_targets: &case.repo_targets,
        self_targets: &case.self_targets,
        shown: None,
        tests: None,
        files: None,
        lines: None,
    })
}

/// Runs one case; returns what differs from the fixture (empty: it passes).
fn run_case(dir: &Path) -> Vec<String> {
    let case: Case =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    let workspace = load_repo(&dir.join("repo"));
    let index = RepoIndex::build(&workspace, &IndexOptions::default());
    let reference = std::fs::read_to_string(dir.join("reference.py")).unwrap();
    let targets: Vec<String> = case
        .repo_targets
        .iter()
        .chain(&case.self_targets)
        .cloned()
        .collect();
    let result: CopyResult = copy_module(&workspace, &index, &case.path, &reference, &targets);
    let mut problems = Vec::new();
    // `UPDATE_EXPECT=1` rewrites expected.py from the output, to be reviewed in the diff.
    if let Err(problem) = check_text(&dir.join("expected.py"), &result.text) {
        problems.push(problem);
    }
    let copied: BTreeMap<String, String> = result
        .copied
        .iter()
        .map(|c| (c.target.clone(), c.private_name.clone()))
        .collect();
    if copied != case.copied {
        problems.push(format!("copied {copied:?}, want {:?}", case.copied));
    }
    let diagnostics_match = result.diagnostics.len() == case.diagnostics.len()
        && case
            .diagnostics
            .iter()
            .all(|words| result.diagnostics.iter().any(|d| d.contains(words)));
    if !diagnostics_match {
        problems.push(format!(
            "diagnostics {:?}, want one containing each of {:?}",
            result.diagnostics, case.diagnostics
        ));
    }
    // The reference reuses every target and re-implements none.
    let scored = score(&index, &case, &reference);
    for kind in [&scored.repo, &scored.self_targets] {
        if !kind.targets.is_empty() && kind.reuse != (Score::Defined { value: 1.0 }) {
            problems.push(format!(
                "the reference's {:?} reuse is {:?}",
                kind.kind, kind.reuse
            ));
        }
    }
    if scored.reimplemented {
        problems.push("the reference re-implements a target".to_owned());
    }
    // The copy references no copied target; the listed ones are re-implemented.
    let scored = score(&index, &case, &result.text);
    let mut reimplemented = BTreeSet::new();
    for outcome in scored
        .repo
        .targets
        .iter()
        .chain(&scored.self_targets.targets)
    {
        let copy = copied.contains_key(&outcome.target);
        if outcome.referenced == copy {
            problems.push(format!(
                "{}: referenced {} in the copy, copied {copy}",
                outcome.target, outcome.referenced
            ));
        }
        if outcome.reimplemented() {
            reimplemented.insert(outcome.target.clone());
        }
    }
    let want: BTreeSet<String> = case.reimplemented.iter().cloned().collect();
    if reimplemented != want {
        problems.push(format!("re-implemented {reimplemented:?}, want {want:?}"));
    }
    if result.text.trim() != reference.trim() && scored.syntax_errors && !copied.is_empty() {
        let before = score(&index, &case, &reference).syntax_errors;
        if !before {
            problems.push("the copy has syntax errors the reference has not".to_owned());
        }
    }
    problems
}

#[test]
fn copy_baseline_fixtures() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 10, "fixtures missing: {dirs:?}");
    let mut failures = Vec::new();
    for dir in &dirs {
        for problem in run_case(dir) {
            failures.push(format!(
                "{}: {problem}",
                dir.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
