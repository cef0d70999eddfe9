//! ReCUBE's run bundles: one prediction per instance, keyed by the instance's id; the file scored is the one at the instance's target.
//!
//! The envelope (metadata, limits, JSON Lines, the content hash) is [`crate::bundle`]'s.
//! An instance's prediction holds the rebuilt target at its path relative to the repository
//! root (other files the agent touched may be there too: they are kept and shown, never
//! tested, since ReCUBE rebuilds one file in an otherwise unchanged repository) and the
//! agent's trajectory. Example:
//! ```
//! use wheelwright_core::recube::bundle::{InstanceKey, RecubeBundle};
//! let jsonl = r#"{"metadata": {"model": "m", "harness": "h", "memory": "none", "date": "2026-12-03", "dataset": {"name": "recube-pypi", "version": "1"}}}
//! {"instance_id": "packaging-utils", "files": {"packaging/utils.py": "def f():\n    return 1\n"}}"#;
//! let bundle = RecubeBundle::from_jsonl(jsonl).unwrap();
//! let files = &bundle.predictions[&InstanceKey::new("packaging-utils")].files;
//! assert!(files.contains_key("packaging/utils.py"));
//! ```

use std::collections::BTreeMap;

use crate::bundle::{
    BundleError, InstanceId, Metadata, Prediction, RunBundle, check_file_path, is_name,
};
use crate::recube::dataset::{Instance, RecubeDataset};

/// An instance's id as bundles spell it: the dataset's directory name for it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InstanceKey(String);

impl InstanceKey {
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for InstanceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl InstanceId for InstanceKey {
    const FORM: &'static str = "<instance>";
    const NOUN: &'static str = "instance";
    const ADD: &'static str = "after the metadata line, add one line per instance, {\"instance_id\": \"<instance>\", \"files\": {\"<target path>\": \"<rebuilt file>\"}, \"trajectory\": ...}";

    fn parse(text: &str) -> Option<Self> {
        is_name(text).then(|| Self::new(text))
    }

    fn hash_key(&self) -> String {
        self.0.clone()
    }

    fn slot(&self) -> (&str, usize) {
        (&self.0, 1)
    }
}

/// A ReCUBE run bundle: predictions keyed by instance.
pub type RecubeBundle = RunBundle<InstanceKey>;

impl RunBundle<InstanceKey> {
    /// Reads a bundle from its bytes: JSON Lines, plain or gzip-compressed, within `limits`;
    /// `source` names the bytes in messages.
    pub fn from_bytes(
        bytes: &[u8],
        source: &str,
        limits: crate::bundle::BundleLimits,
    ) -> Result<Self, BundleError> {
        let Some(lines) = crate::archive::jsonl_lines_of(bytes, source, limits) else {
            return Err(BundleError::entry(
                source,
                "is a zip archive; a ReCUBE run bundle is JSON Lines (.jsonl or .jsonl.gz): a metadata line, then one line per instance",
            ));
        };
        Self::from_jsonl_lines(lines).map_err(|e| match e {
            BundleError::LineNotUtf8 { .. } => BundleError::entry(
                source,
                "is not UTF-8 JSON Lines; give a ReCUBE run bundle as .jsonl or .jsonl.gz",
            ),
            other => other,
        })
    }

    /// Reads a bundle from JSON Lines text (see [`crate::bundle`]).
    pub fn from_jsonl(text: &str) -> Result<Self, BundleError> {
        Self::from_jsonl_lines(text.lines().enumerate().map(|(i, line)| Ok((i + 1, line))))
    }

    /// Reads a bundle from JSON Lines given line by line with their 1-based numbers.
    pub fn from_jsonl_lines<S: AsRef<str>>(
        lines: impl IntoIterator<Item = Result<(usize, S), BundleError>>,
    ) -> Result<Self, BundleError> {
        let (bundle, line_of) = Self::read_jsonl(lines)?;
        for (id, prediction) in &bundle.predictions {
            let line = line_of.get(id).copied().unwrap_or(0);
            for path in prediction.files.keys() {
                check_file_path(&format!("line {line} ({id}, file {path:?})"), path)?;
            }
        }
        Ok(bundle)
    }

    /// Refuses a bundle made on another dataset or naming an instance `dataset` does not
    /// have. Instances the bundle lacks are allowed: they fail every test.
    pub fn check_against(&self, dataset: &RecubeDataset) -> Result<(), BundleError> {
        let m = &dataset.manifest;
        crate::bundle::check_dataset(&self.metadata, &m.name, &m.version)?;
        for id in self.predictions.keys() {
            if !m.instances.iter().any(|i| i == id.as_str()) {
                return Err(BundleError::entry(
                    id.to_string(),
                    format!(
                        "the dataset {} {} has no instance {:?}; its instances are {}",
                        m.name,
                        m.version,
                        id.as_str(),
                        m.instances.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The rebuilt target of `instance`, if the bundle has one.
    pub fn target_of(&self, instance: &Instance) -> Option<&str> {
        self.predictions
            .get(&InstanceKey::new(instance.manifest.id.as_str()))?
            .files
            .get(&instance.manifest.target)
            .map(String::as_str)
    }

    /// A baseline's bundle: for each instance of `dataset`, the text `file` gives for its
    /// target (the original file, the masked one), no trajectory. An instance `file` has
    /// nothing for is left out (and fails every test).
    pub fn baseline(
        dataset: &RecubeDataset,
        metadata: Metadata,
        mut file: impl FnMut(&Instance) -> Option<String>,
    ) -> Self {
        let predictions = dataset
            .instances
            .iter()
            .filter_map(|instance| {
                let text = file(instance)?;
                let files = BTreeMap::from([(instance.manifest.target.clone(), text)]);
                Some((
                    InstanceKey::new(instance.manifest.id.as_str()),
                    Prediction {
                        files,
                        trajectory: None,
                    },
                ))
            })
            .collect();
        Self {
            metadata,
            predictions,
        }
    }
}
