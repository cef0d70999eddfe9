//! ReCUBE's shipped dataset and a run bundle built from its own files, whose scores are worked out by hand (see `cli_recube_test.rs`): what the command line and the server must agree on.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};
use wheelwright_core::bundle::{DatasetRef, Metadata, Prediction};
use wheelwright_core::dataset::RepositorySource;
use wheelwright_core::recube::bundle::{InstanceKey, RecubeBundle};
use wheelwright_core::recube::dataset::RecubeDataset;
use wheelwright_core::recube::mask::mask;
use wheelwright_server::dataset::pypi;

/// The shipped dataset's directory.
pub fn dataset_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/recube-pypi")
}

/// Each repository's files, by repository id (the wheels; needs PyPI the first time).
pub fn repositories(d: &RecubeDataset) -> BTreeMap<String, BTreeMap<String, String>> {
    let cache = wheelwright_server::dataset::default_cache_dir();
    d.manifest
        .repositories
        .iter()
        .map(|(id, source)| {
            let RepositorySource::Pypi(repo) = source else {
                panic!("{id}: the shipped instances use PyPI repositories");
            };
            (
                id.clone(),
                pypi::repository_source(repo, &cache).expect("the wheel"),
            )
        })
        .collect()
}

/// A generic-1 trajectory that reads `paths` whole, with what the run cost.
pub fn reading(paths: &[&str], cost_usd: f64, model_calls: u64) -> String {
    let actions: Vec<Value> = paths
        .iter()
        .map(|p| json!({"kind": "read", "path": p}))
        .collect();
    json!({"format": "generic-1", "cost_usd": cost_usd, "model_calls": model_calls, "actions": actions})
        .to_string()
}

/// The pass rate of [`bundle`], hand-worked: every instance but two passes all its tests,
/// so SPR = APR = (n - 2)/n, in percent.
pub fn all_but_two(d: &RecubeDataset) -> f64 {
    let n = d.instances.len() as f64;
    (n - 2.0) / n * 100.0
}

/// Every instance with its original target but two: `packaging-version` masked,
/// `click-parser` without a target but with a trajectory; two trajectories with costs.
pub fn bundle(d: &RecubeDataset) -> RecubeBundle {
    let repos = repositories(d);
    let metadata = Metadata {
        model: "test-model".into(),
        harness: "test".into(),
        memory: "none".into(),
        date: "2026-12-03".into(),
        dataset: DatasetRef {
            name: d.manifest.name.clone(),
            version: d.manifest.version.clone(),
        },
        cost_usd: None,
        scaffold_version: None,
        notes: None,
    };
    let mut bundle = RecubeBundle::baseline(d, metadata, |instance| {
        let original = &repos[&instance.manifest.repository][&instance.manifest.target];
        match instance.manifest.id.as_str() {
            "packaging-version" => Some(mask(original).text),
            "click-parser" => None,
            _ => Some(original.clone()),
        }
    });
    bundle
        .predictions
        .get_mut(&InstanceKey::new("click-formatting"))
        .expect("click-formatting is in the bundle")
        .trajectory = Some(reading(&["click/core.py"], 0.5, 7));
    bundle.predictions.insert(
        InstanceKey::new("click-parser"),
        Prediction {
            files: BTreeMap::from([("notes.md".to_owned(), "gave up\n".to_owned())]),
            trajectory: Some(reading(
                &["click/core.py", "click/shell_completion.py"],
                0.25,
                3,
            )),
        },
    );
    bundle
}
