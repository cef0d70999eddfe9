//! What `wheelwright recube verify` and `recube test` share: a ReCUBE dataset's repositories fetched and their environments built, and instances' hidden tests run in sandboxes on this machine, with a progress bar.

use std::collections::BTreeMap;

use anyhow::Context;
use wheelwright_core::dataset::RepositorySource;
use wheelwright_core::hidden_tests::Verdict;
use wheelwright_core::recube::dataset::RecubeDataset;

use super::super::pool::in_slots;
use crate::TestConfig;
use crate::hidden_tests::Environments;
use crate::recube::hidden_tests::{InstanceTest, run_instance};

/// A ReCUBE dataset with its repositories' files and test environments.
pub(super) struct Prepared {
    pub(super) dataset: RecubeDataset,
    /// Each repository's files, by repository id.
    pub(super) repositories: BTreeMap<String, BTreeMap<String, String>>,
    /// Each repository's environment, by repository id.
    pub(super) environments: BTreeMap<String, std::path::PathBuf>,
}

/// Fetches `dataset`'s repositories and builds their environments.
pub(super) fn prepare(dataset: RecubeDataset, config: &TestConfig) -> anyhow::Result<Prepared> {
    let cache = crate::dataset::default_cache_dir();
    let environments_root = Environments::new(config.env_root.clone());
    let mut repositories = BTreeMap::new();
    let mut environments = BTreeMap::new();
    for (id, source) in &dataset.manifest.repositories {
        let files = match source {
            RepositorySource::Pypi(repo) => {
                crate::dataset::pypi::repository_source(repo, &cache)
                    .with_context(|| format!("cannot fetch the repository {id}"))?
            }
            RepositorySource::Local(_) => dataset
                .repository_files
                .get(id)
                .map(|files| files.iter().cloned().collect())
                .unwrap_or_default(),
        };
        repositories.insert(id.clone(), files);
        let env = environments_root
            .for_dependencies_of(source, &mut |step| eprintln!("environment: {step:?}"))
            .with_context(|| format!("cannot prepare the Python environment of {id}"))?;
        environments.insert(id.clone(), env);
    }
    Ok(Prepared {
        dataset,
        repositories,
        environments,
    })
}

/// Runs every `(instance index, target text)` of `work` in sandboxes, a worker per slot,
/// with a progress bar; the verdicts in the order of `work`.
pub(super) fn run_all(
    prepared: &Prepared,
    work: &[(usize, Option<String>)],
    config: &TestConfig,
) -> anyhow::Result<Vec<Verdict>> {
    let sandbox = config
        .sandbox()
        .map_err(|why| anyhow::anyhow!("no sandbox to run the tests in: {why}"))?;
    in_slots(work, config.workers, "instances", |(index, target)| {
        let instance = &prepared.dataset.instances[*index];
        let repository = &instance.manifest.repository;
        run_instance(
            sandbox.as_ref(),
            &prepared.environments[repository],
            &InstanceTest {
                instance,
                repository: &prepared.repositories[repository],
                target: target.as_deref(),
            },
            config.turn_timeout,
            None,
        )
        .with_context(|| format!("testing {}", instance.manifest.id))
    })
    .into_iter()
    .collect()
}
