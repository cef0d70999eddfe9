//! The ReCUBE instances the tool ships (`datasets/recube-pypi/`): a valid dataset of at
//! least 8 targets from 3 PyPI libraries, each with at least 10 tests of both kinds; and,
//! run with pytest on each library's pinned sources, the original target passes every
//! listed test and the masked one (`wheelwright mask`) fails every one.
//!
//! NEEDS PyPI the first time (the three wheels and pytest, then cached). The tests run in
//! a venv of the pinned package and pytest, with the library's sources first on the path
//! (`python -m pytest` from their directory), as `wheelwright dataset verify` runs
//! RepoReuse's references; a hostile submission is never run this way.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use wheelwright_core::dataset::RepositorySource;
use wheelwright_core::hidden_tests::junit::testcases;
use wheelwright_core::recube::dataset::{Instance, RecubeDataset};
use wheelwright_core::recube::mask::mask;
use wheelwright_core::recube::metrics::TestKind;
use wheelwright_server::dataset::pypi;
use wheelwright_server::dataset::recube::load_recube_dir;

fn dataset() -> RecubeDataset {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/recube-pypi");
    load_recube_dir(&dir).expect("the shipped ReCUBE dataset is valid")
}

#[test]
fn the_shipped_dataset_has_eight_targets_from_three_libraries_with_both_kinds_of_test() {
    let d = dataset();
    assert!(d.instances.len() >= 8, "{} instances", d.instances.len());
    let libraries: BTreeSet<&str> = d
        .instances
        .iter()
        .map(|i| i.manifest.repository.as_str())
        .collect();
    assert!(libraries.len() >= 3, "{libraries:?}");
    for instance in &d.instances {
        let tests = &instance.manifest.tests;
        let kinds: BTreeSet<TestKind> = tests.iter().map(|t| t.kind).collect();
        assert!(
            tests.len() >= 10,
            "{}: {} tests",
            instance.manifest.id,
            tests.len()
        );
        assert_eq!(
            kinds.len(),
            2,
            "{}: one kind of test only",
            instance.manifest.id
        );
    }
}

/// Each listed test of `instance` that passed when pytest ran its tests in `sources` with
/// the target's text `target`, and the names pytest reported.
fn passed(
    python: &Path,
    sources: &Path,
    instance: &Instance,
    target: &str,
) -> (BTreeSet<String>, usize) {
    let work = tempfile::tempdir().expect("a temporary directory");
    common::copy_dir(sources, work.path());
    std::fs::write(work.path().join(&instance.manifest.target), target)
        .expect("the target is written");
    let tests = work.path().join("hidden_tests");
    std::fs::create_dir_all(&tests).unwrap();
    for (path, text) in &instance.tests {
        std::fs::write(tests.join(path), text).unwrap();
    }
    let report = work.path().join("report.xml");
    let out = Command::new(python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml"])
        .arg(&report)
        .arg(&tests)
        .current_dir(work.path())
        .output()
        .expect("pytest runs");
    let xml = std::fs::read_to_string(&report)
        .unwrap_or_else(|_| panic!("no report: {}", String::from_utf8_lossy(&out.stdout)));
    let cases = testcases(&xml).expect("a JUnit report");
    let reported = cases.len();
    let names = cases
        .into_iter()
        .filter(|c| c.outcome.passed())
        .map(|c| match c.classname.rsplit_once('.') {
            // `test_mod.TestClass` holds methods: `TestClass::test_x`.
            Some((_, class)) if class.starts_with("Test") => format!("{class}::{}", c.name),
            _ => c.name,
        })
        .collect();
    (names, reported)
}

#[test]
fn each_original_passes_every_test_and_each_masked_target_fails_every_test_needs_pypi() {
    let d = dataset();
    let cache = wheelwright_server::dataset::default_cache_dir();
    let mut sources: BTreeMap<&str, (PathBuf, tempfile::TempDir)> = BTreeMap::new();
    for (id, repository) in &d.manifest.repositories {
        let RepositorySource::Pypi(repo) = repository else {
            panic!("{id}: the shipped instances use PyPI repositories");
        };
        let python =
            pypi::venv_python(repo, &cache, Path::new("python3")).expect("a venv (needs PyPI)");
        let files = pypi::repository_source(repo, &cache).expect("the wheel (needs PyPI)");
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in &files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        sources.insert(id.as_str(), (python, dir));
    }
    let mut problems = Vec::new();
    for instance in &d.instances {
        let m = &instance.manifest;
        let (python, dir) = &sources[m.repository.as_str()];
        let original = std::fs::read_to_string(dir.path().join(&m.target))
            .expect("the target is in the wheel");
        let listed: BTreeSet<String> = m.tests.iter().map(|t| t.name.clone()).collect();
        let (passing, reported) = passed(python, dir.path(), instance, &original);
        if passing != listed || reported != listed.len() {
            problems.push(format!(
                "{}: the original passes {passing:?} of {listed:?} ({reported} reported)",
                m.id
            ));
        }
        let (passing, _) = passed(python, dir.path(), instance, &mask(&original).text);
        if !passing.is_empty() {
            problems.push(format!("{}: the masked target passes {passing:?}", m.id));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
