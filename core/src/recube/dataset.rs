//! ReCUBE's dataset format: instances (a target file of a pinned repository and its labelled hidden tests), versioned and content-hashed.
//!
//! A dataset directory (`docs/formats.md`, "Dataset (ReCUBE)") holds:
//!
//! ```text
//! dataset.json                          RecubeManifest: name, version, benchmark, repositories, instances
//! instances/<id>/instance.json          InstanceManifest: the target and its labelled tests
//! instances/<id>/tests/*                the hidden tests (pytest files)
//! ```
//!
//! One dataset may span several repositories (ReCUBE's instances come from many); each
//! instance names its own. Reading the directory is I/O and lives in the server; here are
//! the types, [`RecubeDataset::validate`] and [`RecubeDataset::content_hash`].

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::benchmark::Benchmark;
use crate::dataset::{Problem, RepositorySource, canonical_json};
use crate::recube::metrics::LabelledTest;
use crate::workspace::is_relative_down;

/// Prefix of the hashed serialisation; change it when the serialisation changes.
const HASH_FORMAT: &str = "wheelwright-recube-dataset-1";

/// `dataset.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecubeManifest {
    pub name: String,
    /// The dataset's own version; results record it with the content hash.
    pub version: String,
    pub benchmark: Benchmark,
    /// The repositories, by the id instances name them with.
    pub repositories: BTreeMap<String, RepositorySource>,
    /// Instance ids (directory names under `instances/`), in report order.
    pub instances: Vec<String>,
}

/// `instances/<id>/instance.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceManifest {
    /// Equal to the directory name.
    pub id: String,
    /// A key of [`RecubeManifest::repositories`].
    pub repository: String,
    /// The file to rebuild, relative to the repository's root (`packaging/version.py`).
    pub target: String,
    /// What the file is for, in a sentence (shown on the instance page).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Every hidden test, labelled external or internal; `module` is the test file's path
    /// relative to the instance's `tests/`.
    pub tests: Vec<LabelledTest>,
}

/// One instance with its hidden test files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instance {
    pub manifest: InstanceManifest,
    /// `tests/*`: (path relative to `tests/`, text), sorted by path.
    pub tests: Vec<(String, String)>,
}

/// A whole ReCUBE dataset, as read from its directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecubeDataset {
    pub manifest: RecubeManifest,
    /// In the order of [`RecubeManifest::instances`].
    pub instances: Vec<Instance>,
    /// Each local repository's files, by repository id: (path relative to its directory,
    /// text), sorted by path. PyPI repositories come from their wheels and are not here.
    #[serde(default)]
    pub repository_files: BTreeMap<String, Vec<(String, String)>>,
}

impl RecubeDataset {
    /// Every file of the dataset by path relative to its root, in path order; manifests in
    /// canonical JSON, test files verbatim.
    pub fn files(&self) -> BTreeMap<String, String> {
        let mut files = BTreeMap::new();
        files.insert("dataset.json".to_owned(), canonical_json(&self.manifest));
        for instance in &self.instances {
            let dir = format!("instances/{}", instance.manifest.id);
            files.insert(
                format!("{dir}/instance.json"),
                canonical_json(&instance.manifest),
            );
            for (path, text) in &instance.tests {
                files.insert(format!("{dir}/tests/{path}"), text.clone());
            }
        }
        for (id, repository) in &self.manifest.repositories {
            if let (RepositorySource::Local(local), Some(repo_files)) =
                (repository, self.repository_files.get(id))
            {
                let root = local.path.trim_end_matches('/');
                for (path, text) in repo_files {
                    files.insert(format!("{root}/{path}"), text.clone());
                }
            }
        }
        files
    }

    /// SHA-256 over [`RecubeDataset::files`] (as RepoReuse's datasets are hashed).
    pub fn content_hash(&self) -> String {
        crate::dataset::content_hash(HASH_FORMAT, &self.files())
    }

    /// Every problem of the dataset, each naming the file to fix; empty when valid.
    ///
    /// Checks: the benchmark is ReCUBE; `dataset.json` lists each instance once, in the
    /// order read; each `instance.json` id is its directory and names a repository of the
    /// manifest; the target is a relative `.py` path (inside the import package of a PyPI
    /// repository), and no two instances share a repository and target; every instance has
    /// tests, each (file, name) once, each file present under `tests/`.
    pub fn validate(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut problem = |file: &str, message: String| {
            problems.push(Problem {
                file: file.to_owned(),
                message,
            });
        };
        let m = &self.manifest;
        if m.benchmark != Benchmark::Recube {
            problem(
                "dataset.json",
                format!(
                    "\"benchmark\" is {:?}; a ReCUBE dataset has \"recube\"",
                    m.benchmark.id()
                ),
            );
        }
        let listed: BTreeSet<&str> = m.instances.iter().map(String::as_str).collect();
        if listed.len() != m.instances.len() {
            problem(
                "dataset.json",
                "\"instances\" lists an id twice; list each once".into(),
            );
        }
        let read: Vec<&str> = self
            .instances
            .iter()
            .map(|i| i.manifest.id.as_str())
            .collect();
        if read != m.instances.iter().map(String::as_str).collect::<Vec<_>>() {
            problem(
                "dataset.json",
                "\"instances\" must list exactly the directories under instances/, in order".into(),
            );
        }
        let mut targets = BTreeSet::new();
        for instance in &self.instances {
            let i = &instance.manifest;
            let file = format!("instances/{}/instance.json", i.id);
            let Some(repository) = m.repositories.get(&i.repository) else {
                problem(
                    &file,
                    format!(
                        "\"repository\" {:?} is not a key of dataset.json's \"repositories\"",
                        i.repository
                    ),
                );
                continue;
            };
            // A wheel holds its import package; a local repository (an imported one) may
            // have files beside it.
            let package = match repository {
                RepositorySource::Pypi(r) => format!("{}/", r.import.replace('.', "/")),
                RepositorySource::Local(_) => String::new(),
            };
            if !is_relative_down(&i.target)
                || !i.target.ends_with(".py")
                || !i.target.starts_with(&package)
            {
                let inside = if package.is_empty() {
                    "the repository".to_owned()
                } else {
                    format!("the package {package}")
                };
                problem(
                    &file,
                    format!(
                        "\"target\" {:?} must be a relative .py path inside {inside}",
                        i.target
                    ),
                );
            }
            if let Some(repo_files) = self.repository_files.get(&i.repository)
                && repo_files
                    .binary_search_by(|(path, _)| path.as_str().cmp(&i.target))
                    .is_err()
            {
                problem(
                    &file,
                    format!(
                        "\"target\" {:?} is not a file of the repository {:?}",
                        i.target, i.repository
                    ),
                );
            }
            if !targets.insert((i.repository.as_str(), i.target.as_str())) {
                problem(
                    &file,
                    format!("another instance already has the target {:?}", i.target),
                );
            }
            if i.tests.is_empty() {
                problem(
                    &file,
                    "\"tests\" is empty; an instance needs hidden tests".into(),
                );
            }
            let present: BTreeSet<&str> = instance.tests.iter().map(|(p, _)| p.as_str()).collect();
            let mut seen = BTreeSet::new();
            for test in &i.tests {
                if !seen.insert((test.module.as_str(), test.name.as_str())) {
                    problem(
                        &file,
                        format!("the test {}::{} is listed twice", test.module, test.name),
                    );
                }
                if !present.contains(test.module.as_str()) {
                    problem(
                        &file,
                        format!(
                            "the test {}::{} names a file that is not under tests/",
                            test.module, test.name
                        ),
                    );
                }
            }
        }
        problems
    }
}
