//! The checks of `wheelwright dataset verify` (`crate::cli::dataset` runs and prints them): each turn checked the way the paper's pipeline does.
//!
//! 1. Structure: [`wheelwright_core::reporeuse::dataset::RepoReuseDataset::validate`] (done by
//!    [`super::load_dir`]).
//! 2. Targets, by static analysis with the scorer itself ([`check_targets`]): with W0 the
//!    pinned repository's sources plus the references of the chain's earlier turns, the
//!    reference must reference every declared repo and self target, and must define the
//!    required functions. The repository and earlier-turn definitions it references but
//!    does not declare are listed as notes: the targets derived from the reference.
//! 3. Execution, with the pinned package and pytest in a cached venv ([`regenerate`], [`run_turn_tests`]):
//!    re-running the dataset's `tools/generate_tests.py` on a copy must give exactly the
//!    stored `expected.json` and tests (expected values come from execution, never typed);
//!    the reference must pass every test, an empty implementation fail every test, and the
//!    `copy` baseline ([`wheelwright_core::reporeuse::baseline::copy_modules`]: the reference with its targets copied in under
//!    private names) pass every test, each run by pytest in a temporary workspace holding
//!    the references of turns 1..t-1 at their module paths and the module under test, read
//!    from pytest's JUnit XML.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::Serialize;
use wheelwright_core::python::index::{IndexOptions, RepoIndex, Resolution};
use wheelwright_core::python::references::analyse_submission;
use wheelwright_core::reporeuse::dataset::{RepoReuseDataset, RepositoryFiles, Turn, turn_dir};
use wheelwright_core::workspace::Workspace;

use super::DatasetError;
use super::pypi::run_with_timeout;

/// How long one pytest run may take.
const PYTEST_TIMEOUT: Duration = Duration::from_secs(600);
/// How long regenerating all tests may take.
const GENERATE_TIMEOUT: Duration = Duration::from_secs(1800);

/// The static check of one turn's reference.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TargetCheck {
    pub chain: String,
    pub turn: usize,
    /// Declared targets (repo, then self) the reference does not reference.
    pub missing: Vec<String>,
    /// Declared targets that name no definition of W0 plus the earlier references.
    pub unknown: Vec<String>,
    /// Required functions the reference does not define at module level.
    pub undefined_functions: Vec<String>,
    /// Derived from the reference: repository or earlier-turn definitions it references
    /// that are not declared targets (canonical names).
    pub undeclared: Vec<String>,
}

impl TargetCheck {
    /// No missing or unknown target and every required function defined.
    pub fn ok(&self) -> bool {
        self.missing.is_empty() && self.unknown.is_empty() && self.undefined_functions.is_empty()
    }

    /// What is wrong, in words that say what to fix; empty when [`TargetCheck::ok`].
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.missing.is_empty() {
            out.push(format!(
                "reference.py does not reference the declared target(s) {}",
                self.missing.join(", ")
            ));
        }
        if !self.unknown.is_empty() {
            out.push(format!(
                "target(s) {} name no definition of the repository or an earlier turn; fix turn.json",
                self.unknown.join(", ")
            ));
        }
        if !self.undefined_functions.is_empty() {
            out.push(format!(
                "reference.py does not define the required function(s) {}",
                self.undefined_functions.join(", ")
            ));
        }
        out
    }
}

/// Checks every turn's reference against the declared targets (step 2 of the module doc).
/// `repositories` are the repositories' sources by id ([`super::repository_sources`]);
/// each chain is checked on W0 of its own.
pub fn check_targets(
    dataset: &RepoReuseDataset,
    repositories: &RepositoryFiles,
) -> Vec<TargetCheck> {
    // Each repository indexed once, when a chain first needs it.
    let mut bases: BTreeMap<&str, RepoIndex> = BTreeMap::new();
    let no_files = BTreeMap::new();
    let mut out = Vec::new();
    for chain in &dataset.chains {
        let (id, import) = dataset
            .manifest
            .repository_of(&chain.manifest)
            .map_or(("", ""), |(id, source)| (id, source.import()));
        let import_prefix = format!("{import}.");
        let base = bases.entry(id).or_insert_with(|| {
            let mut workspace = Workspace::new();
            for (path, text) in repositories.get(id).unwrap_or(&no_files) {
                workspace.insert(path, text.as_str());
            }
            RepoIndex::build(&workspace, &IndexOptions::default())
        });
        let mut index = base.clone();
        let mut earlier_modules: Vec<String> = Vec::new();
        for (i, turn) in chain.turns.iter().enumerate() {
            let tm = &turn.manifest;
            let mut check = TargetCheck {
                chain: chain.manifest.id.clone(),
                turn: i + 1,
                ..TargetCheck::default()
            };
            let analysis = analyse_submission(&index, &tm.module_path, Some(&turn.reference));
            let mut declared = BTreeSet::new();
            for target in tm.repo_targets.iter().chain(&tm.self_targets) {
                match index.resolve(target) {
                    Resolution::Definition { canonical, .. } => {
                        if !analysis.references(&canonical) {
                            check.missing.push(target.clone());
                        }
                        declared.insert(canonical);
                    }
                    _ => check.unknown.push(target.clone()),
                }
            }
            check.undeclared = analysis
                .references
                .keys()
                .filter(|r| !declared.contains(*r))
                .filter(|r| {
                    r.starts_with(&import_prefix)
                        || earlier_modules.iter().any(|m| {
                            r.strip_prefix(m.as_str())
                                .is_some_and(|s| s.starts_with('.'))
                        })
                })
                .cloned()
                .collect();
            let outline = wheelwright_core::outline::outline(&turn.reference);
            for f in &tm.functions {
                if !outline
                    .definitions
                    .iter()
                    .any(|d| d.qualified_name == f.name)
                {
                    check.undefined_functions.push(f.name.clone());
                }
            }
            index.insert(&tm.module_path, &turn.reference);
            earlier_modules.push(tm.module_name());
            out.push(check);
        }
    }
    out
}

/// What pytest reported for one run (from its JUnit XML).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PytestCounts {
    pub collected: usize,
    pub passed: usize,
    /// Failed, errored or skipped.
    pub failed: usize,
}

/// Counts the test cases of a JUnit XML report and those that passed (failed, errored and
/// skipped ones do not); a missing or unreadable report counts nothing.
pub fn parse_junit(xml: &str) -> PytestCounts {
    let cases = wheelwright_core::hidden_tests::junit::testcases(xml).unwrap_or_default();
    let passed = cases.iter().filter(|c| c.outcome.passed()).count();
    PytestCounts {
        collected: cases.len(),
        passed,
        failed: cases.len() - passed,
    }
}

fn write_file(root: &Path, relative: &str, text: &str) -> Result<(), DatasetError> {
    let path = root.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| DatasetError::Io {
            path: parent.to_owned(),
            source,
        })?;
    }
    std::fs::write(&path, text).map_err(|source| DatasetError::Io { path, source })
}

fn tmp_dir(prefix: &str) -> Result<tempfile::TempDir, DatasetError> {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map_err(|source| DatasetError::Io {
            path: std::env::temp_dir(),
            source,
        })
}

/// Runs the turn's tests against `module_text` at the turn's module path, in a temporary
/// workspace that also holds the references of the chain's turns before `turn_index`.
pub fn run_turn_tests(
    python: &Path,
    turns: &[Turn],
    turn_index: usize,
    module_text: &str,
) -> Result<PytestCounts, DatasetError> {
    let ws = tmp_dir("wheelwright-verify-")?;
    for earlier in &turns[..turn_index] {
        write_file(ws.path(), &earlier.manifest.module_path, &earlier.reference)?;
    }
    let turn = &turns[turn_index];
    write_file(ws.path(), &turn.manifest.module_path, module_text)?;
    let mut names = Vec::new();
    for (name, text) in &turn.tests {
        write_file(ws.path(), name, text)?;
        if name.ends_with(".py") {
            names.push(name.clone());
        }
    }
    let mut command = Command::new(python);
    command
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--junitxml",
            "report.xml",
        ])
        .args(&names)
        .current_dir(ws.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("PYTHONPATH");
    run_with_timeout(command, PYTEST_TIMEOUT).map_err(|e| DatasetError::Repository {
        what: "a pytest run".to_owned(),
        message: format!("cannot run {} -m pytest: {e}", python.display()),
    })?;
    // No report (a crash or a timeout) reads as nothing collected.
    let xml = std::fs::read_to_string(ws.path().join("report.xml")).unwrap_or_default();
    Ok(parse_junit(&xml))
}

/// What re-running the generator gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Regeneration {
    /// Per (chain id, turn): whether regenerating gave the stored files back.
    pub same: BTreeMap<(String, usize), bool>,
    /// Chains whose generator run failed, with the end of its output.
    pub failed: Vec<(String, String)>,
}

/// Re-runs the dataset's `tools/generate_tests.py`, chain by chain, on a copy of the
/// dataset (its `expected.json` and tests removed first) and compares the regenerated files
/// with the stored ones. Each chain's generator runs with the Python of its repository's
/// environment, `pythons[id]`. A chain whose generator run fails has every turn different.
pub fn regenerate(
    pythons: &BTreeMap<String, PathBuf>,
    dataset: &RepoReuseDataset,
) -> Result<Regeneration, DatasetError> {
    let copy = tmp_dir("wheelwright-regen-")?;
    for (path, text) in dataset.files() {
        let generated = path.ends_with("/expected.json") || path.contains("/tests/");
        if path.starts_with("chains/") && generated {
            continue;
        }
        write_file(copy.path(), &path, &text)?;
    }
    let mut out = Regeneration::default();
    for chain in &dataset.chains {
        let id = &chain.manifest.id;
        let python = dataset
            .manifest
            .repository_of(&chain.manifest)
            .and_then(|(repository, _)| pythons.get(repository))
            .ok_or_else(|| DatasetError::Repository {
                what: format!("chains/{id}/chain.json"),
                message: "the chain's repository has no environment; name one of the dataset's repositories in its \"repository\"".to_owned(),
            })?;
        let mut command = Command::new(python);
        command
            .arg("tools/generate_tests.py")
            .arg(id)
            .current_dir(copy.path())
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env_remove("PYTHONPATH");
        let finished =
            run_with_timeout(command, GENERATE_TIMEOUT).map_err(|e| DatasetError::Repository {
                what: "tools/generate_tests.py".to_owned(),
                message: format!("cannot run {}: {e}", python.display()),
            })?;
        if !finished.success {
            let lines: Vec<&str> = finished.output.lines().collect();
            let tail = lines[lines.len().saturating_sub(6)..].join("\n");
            out.failed.push((id.clone(), tail));
        }
        for (i, turn) in chain.turns.iter().enumerate() {
            let dir = copy.path().join(turn_dir(id, i + 1));
            let expected = std::fs::read_to_string(dir.join("expected.json")).ok();
            let same_tests = turn.tests.iter().all(|(name, text)| {
                std::fs::read_to_string(dir.join("tests").join(name))
                    .ok()
                    .as_deref()
                    == Some(text.as_str())
            });
            let regenerated_count = std::fs::read_dir(dir.join("tests"))
                .map(|d| d.flatten().filter(|e| e.path().is_file()).count())
                .unwrap_or(0);
            let same = finished.success
                && expected.as_deref() == Some(turn.expected_json.as_str())
                && same_tests
                && regenerated_count == turn.tests.len();
            out.same.insert((id.clone(), i + 1), same);
        }
    }
    Ok(out)
}

/// The number of cases in a turn's `expected.json` (`None` when it cannot be read).
pub fn expected_count(turn: &Turn) -> Option<usize> {
    let value: serde_json::Value = serde_json::from_str(&turn.expected_json).ok()?;
    value.get("cases")?.as_array().map(Vec::len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junit_counts_passes_failures_errors_and_skips() {
        let xml = r#"<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="5">
<testcase classname="test_turn" name="test_a" time="0.001" />
<testcase classname="test_turn" name="test_b" time="0.001"><failure message="assert 1 == 2">x &gt; y</failure></testcase>
<testcase classname="test_turn" name="test_c" time="0.001"><error message="boom" /></testcase>
<testcase classname="test_turn" name="test_d" time="0.001"><skipped message="skip" /></testcase>
<testcase classname="test_turn" name="test_e" time="0.001"><system-out>ok</system-out></testcase>
</testsuite></testsuites>"#;
        assert_eq!(
            parse_junit(xml),
            PytestCounts {
                collected: 5,
                passed: 2,
                failed: 3
            }
        );
        assert_eq!(parse_junit(""), PytestCounts::default());
    }
}
