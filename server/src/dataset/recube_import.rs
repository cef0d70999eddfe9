//! The conversion behind `wheelwright recube import`: the original ReCUBE data (its Hugging Face layout) as a dataset of ours.
//!
//! The original layout (`data/README.md` of the ReCUBE release) is read as it is:
//!
//! ```text
//! target.json                       the evaluated targets: {"<subset>": ["path.py", ...]}
//!                                   or [{"repo_id": <subset>, "file": "path.py"}, ...]
//! tests/<subset>/test_metadata.json {"instances": [{"file", "test_file", "total_tests"}, ...]}
//! tests/<subset>/<test_file>        each target's pytest file
//! test_classifications/<subset>.json {"files": {"<file>": {"test_file", "test_classifications": {"<test>": "external"|"internal"}}}}
//! prompts/<subset>.txt              the repository: <implementations> "## <path>" then a ```python block per file
//! ```
//!
//! Each subset becomes a local repository of the dataset (`repositories/<subset>/`, from
//! its prompt's implementations) and each target an instance whose tests are the
//! classified ones, with their labels. `graphs/*.pkl` are not read: the graph is rebuilt
//! by `core::recube::graph` from the files. Anything missing or malformed is an error
//! naming the file; a test file defining tests that are not classified is reported, as
//! the dataset (not the run) fixes which tests count.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::dataset::{LocalRepository, RepositorySource};
use wheelwright_core::python::facts::DefinitionKind;
use wheelwright_core::recube::dataset::{InstanceManifest, RecubeDataset, RecubeManifest};
use wheelwright_core::recube::metrics::{LabelledTest, TestKind};

use super::{DatasetError, invalid, read_json, read_text};

/// `target.json`, in either of the shapes it is found in.
#[derive(Deserialize)]
#[serde(untagged)]
enum Targets {
    BySubset(BTreeMap<String, Vec<String>>),
    List(Vec<TargetEntry>),
}

#[derive(Deserialize)]
struct TargetEntry {
    repo_id: SubsetId,
    file: String,
}

/// A subset id, written as a number or a string.
#[derive(Deserialize)]
#[serde(untagged)]
enum SubsetId {
    Number(u64),
    Text(String),
}

impl SubsetId {
    fn text(&self) -> String {
        match self {
            SubsetId::Number(n) => n.to_string(),
            SubsetId::Text(t) => t.clone(),
        }
    }
}

#[derive(Deserialize)]
struct TestMetadata {
    instances: Vec<MetadataInstance>,
}

#[derive(Deserialize)]
struct MetadataInstance {
    file: String,
    #[serde(default)]
    total_tests: Option<usize>,
}

#[derive(Deserialize)]
struct Classifications {
    files: BTreeMap<String, ClassifiedFile>,
}

#[derive(Deserialize)]
struct ClassifiedFile {
    test_file: String,
    test_classifications: BTreeMap<String, String>,
}

/// What an import wrote, and what it noticed.
#[derive(Debug)]
pub struct Imported {
    pub dataset: RecubeDataset,
    /// Things worth a look that do not stop the import (a test count that differs from
    /// the metadata's).
    pub notes: Vec<String>,
}

/// A problem with file `file` of the original data in `source`.
fn problem(source: &Path, file: &str, message: impl Into<String>) -> DatasetError {
    invalid(source, file, message.into())
}

/// The files of a prompt's `<implementations>`: each `## <path>` heading and the fenced
/// block under it.
pub fn implementations(prompt: &str) -> Vec<(String, String)> {
    let section = prompt
        .split_once("<implementations>")
        .map_or("", |(_, rest)| rest);
    let section = section
        .split_once("</implementations>")
        .map_or(section, |(inside, _)| inside);
    let mut files = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        let Some(path) = line.strip_prefix("## ") else {
            continue;
        };
        // The fence opens on the next non-empty line.
        if !lines
            .by_ref()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.trim_start().starts_with("```"))
        {
            continue;
        }
        let mut text = String::new();
        for code in lines.by_ref() {
            if code.trim_end() == "```" {
                break;
            }
            text.push_str(code);
            text.push('\n');
        }
        files.push((path.trim().to_owned(), text));
    }
    files
}

/// Test names a pytest file defines, from core's outline of it: `test*` functions at the
/// top level and `test*` methods of `Test*` classes (`TestC::test_x`).
fn defined_tests(text: &str) -> Vec<String> {
    wheelwright_core::outline::outline(text)
        .definitions
        .into_iter()
        .filter(|d| d.name.starts_with("test"))
        .filter_map(|d| match d.qualified_name.split_once('.') {
            None if d.kind == DefinitionKind::Function => Some(d.name),
            Some((class, method)) if class.starts_with("Test") && method == d.name => {
                Some(format!("{class}::{method}"))
            }
            _ => None,
        })
        .collect()
}

/// An instance id from a subset and a target path: `0-app-agent-base`.
fn instance_id(subset: &str, target: &str) -> String {
    let stem = target.strip_suffix(".py").unwrap_or(target);
    let slug: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{subset}-{slug}")
}

/// Reads the original data in `source` and writes it as a ReCUBE dataset into `out`
/// (which must not exist), then reads that back with every check.
pub fn import_original(
    source: &Path,
    out: &Path,
    name: &str,
    version: &str,
) -> Result<Imported, DatasetError> {
    let targets_path = source.join("target.json");
    let targets: Targets = read_json(&targets_path, "target.json")?;
    let mut by_subset: BTreeMap<String, Vec<String>> = BTreeMap::new();
    match targets {
        Targets::BySubset(map) => by_subset = map,
        Targets::List(list) => {
            for entry in list {
                by_subset
                    .entry(entry.repo_id.text())
                    .or_default()
                    .push(entry.file);
            }
        }
    }
    if out.exists() {
        return Err(DatasetError::Repository {
            what: format!("a new dataset at {}", out.display()),
            message: "the directory already exists; give a new directory to write the dataset into"
                .to_owned(),
        });
    }
    let mut notes = Vec::new();
    let mut files: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut repositories = BTreeMap::new();
    let mut instance_ids = Vec::new();
    for (subset, targets) in &by_subset {
        let prompt_path = source.join("prompts").join(format!("{subset}.txt"));
        let repository = implementations(&read_text(&prompt_path)?);
        if repository.is_empty() {
            return Err(problem(
                source,
                &format!("prompts/{subset}.txt"),
                "has no files in <implementations>",
            ));
        }
        let metadata_path = source.join("tests").join(subset).join("test_metadata.json");
        let metadata: TestMetadata = read_json(&metadata_path, "test_metadata.json")?;
        let classes_file = format!("test_classifications/{subset}.json");
        let classes_path = source.join(&classes_file);
        let classes: Classifications = read_json(&classes_path, "test classification")?;
        let root = format!("repositories/{subset}");
        for (path, text) in &repository {
            files.insert(PathBuf::from(&root).join(path), text.clone());
        }
        let import = targets
            .first()
            .and_then(|t| t.split('/').next())
            .unwrap_or_default()
            .trim_end_matches(".py")
            .to_owned();
        repositories.insert(
            subset.clone(),
            RepositorySource::Local(LocalRepository { path: root, import }),
        );
        for target in targets {
            let classified = classes.files.get(target).ok_or_else(|| {
                problem(
                    source,
                    &classes_file,
                    format!("has no classification of {target}"),
                )
            })?;
            let test_path = source
                .join("tests")
                .join(subset)
                .join(&classified.test_file);
            let test_text = read_text(&test_path)?;
            let mut tests = Vec::new();
            for (test, kind) in &classified.test_classifications {
                let kind = match kind.as_str() {
                    "external" => TestKind::External,
                    "internal" => TestKind::Internal,
                    other => {
                        return Err(problem(
                            source,
                            &classes_file,
                            format!(
                                "classifies {test} of {target} as {other:?}; only \"external\" and \"internal\" are known"
                            ),
                        ));
                    }
                };
                tests.push(LabelledTest {
                    module: classified.test_file.clone(),
                    name: test.clone(),
                    kind,
                });
            }
            let defined = defined_tests(&test_text);
            let unclassified = defined
                .iter()
                .filter(|d| !classified.test_classifications.contains_key(*d))
                .count();
            if unclassified > 0 {
                notes.push(format!(
                    "{target}: {unclassified} test(s) of {} are not classified and do not count",
                    classified.test_file
                ));
            }
            if let Some(expected) = metadata
                .instances
                .iter()
                .find(|i| &i.file == target)
                .and_then(|i| i.total_tests)
                && expected != tests.len()
            {
                notes.push(format!(
                    "{target}: test_metadata.json says {expected} tests, {} are classified",
                    tests.len()
                ));
            }
            let id = instance_id(subset, target);
            let manifest = InstanceManifest {
                id: id.clone(),
                repository: subset.clone(),
                target: target.clone(),
                description: String::new(),
                tests,
            };
            let dir = PathBuf::from("instances").join(&id);
            files.insert(
                dir.join("instance.json"),
                serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n",
            );
            files.insert(dir.join("tests").join(&classified.test_file), test_text);
            instance_ids.push(id);
        }
    }
    let manifest = RecubeManifest {
        name: name.to_owned(),
        version: version.to_owned(),
        benchmark: Benchmark::Recube,
        repositories,
        instances: instance_ids,
    };
    files.insert(
        PathBuf::from("dataset.json"),
        serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n",
    );
    for (path, text) in &files {
        let full = out.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).map_err(|source| DatasetError::Io {
                path: parent.to_owned(),
                source,
            })?;
        }
        std::fs::write(&full, text).map_err(|source| DatasetError::Io { path: full, source })?;
    }
    let dataset = super::recube::load_recube_dir(out)?;
    Ok(Imported { dataset, notes })
}
