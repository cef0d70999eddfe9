//! Reading a ReCUBE dataset directory (`docs/formats.md`, "Dataset (ReCUBE)") into core's types.

use std::collections::BTreeMap;
use std::path::Path;

use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::dataset::RepositorySource;
use wheelwright_core::recube::dataset::{
    Instance, InstanceManifest, RecubeDataset, RecubeManifest,
};

use super::{DatasetError, check_dir_name, read_files, read_json};

/// Largest number of instances in a dataset.
pub const MAX_INSTANCES: usize = 10_000;

/// Reads the ReCUBE dataset in `dir` and validates it ([`RecubeDataset::validate`]); every
/// problem is reported, each with its file.
pub fn load_recube_dir(dir: &Path) -> Result<RecubeDataset, DatasetError> {
    let manifest_path = dir.join("dataset.json");
    let manifest: RecubeManifest = read_json(&manifest_path, "dataset.json")?;
    if manifest.benchmark != Benchmark::Recube {
        return Err(DatasetError::Unsupported {
            path: manifest_path,
            benchmark: manifest.benchmark,
        });
    }
    if manifest.instances.len() > MAX_INSTANCES {
        return Err(DatasetError::TooManyFiles {
            path: manifest_path,
            limit: MAX_INSTANCES,
        });
    }
    let mut instances = Vec::with_capacity(manifest.instances.len());
    for id in &manifest.instances {
        check_dir_name(dir, id, "instance", "instances")?;
        let root = dir.join("instances").join(id);
        let instance: InstanceManifest = read_json(&root.join("instance.json"), "instance.json")?;
        instances.push(Instance {
            manifest: instance,
            tests: read_files(&root.join("tests"))?,
        });
    }
    let mut repository_files = BTreeMap::new();
    for (id, repository) in &manifest.repositories {
        if let RepositorySource::Local(local) = repository {
            repository_files.insert(id.clone(), super::read_local_repository(dir, local)?);
        }
    }
    let dataset = RecubeDataset {
        manifest,
        instances,
        repository_files,
    };
    let problems = dataset.validate();
    if problems.is_empty() {
        Ok(dataset)
    } else {
        Err(DatasetError::Invalid {
            dir: dir.to_owned(),
            problems,
        })
    }
}
