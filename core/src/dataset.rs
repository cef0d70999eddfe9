//! What every benchmark's dataset format shares: the repository source, a problem found in a dataset, and canonical JSON for content hashes.
//!
//! Each benchmark's dataset is its own type in its own folder ([`crate::reporeuse::dataset`],
//! [`crate::recube::dataset`]); the pieces here mean the same in all of them.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The repository behind the tasks: a PyPI distribution at a pinned version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PypiRepository {
    /// The distribution name on PyPI (`networkx`).
    pub pypi: String,
    /// The pinned version (`3.4.2`).
    pub version: String,
    /// The top-level import package (`networkx`); repo targets start with it.
    pub import: String,
}

/// The repository behind the tasks, kept in the dataset itself: a directory of Python
/// sources (for tests and private datasets).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalRepository {
    /// The directory, relative to the dataset directory (`repository`). Its `.py` files,
    /// by path relative to it (`textkit/clean.py`), are W0, as a wheel's are.
    pub path: String,
    /// The top-level import package (`textkit`); repo targets start with it.
    pub import: String,
}

/// `dataset.json` `"repository"`: a PyPI distribution (`{"pypi", "version", "import"}`)
/// or a local directory of the dataset (`{"path", "import"}`), told apart by their fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "a PyPI repository {\"pypi\", \"version\", \"import\"} or a local one {\"path\", \"import\"}"
)]
pub enum RepositorySource {
    Pypi(PypiRepository),
    Local(LocalRepository),
}

impl RepositorySource {
    /// The top-level import package; repo targets start with it.
    pub fn import(&self) -> &str {
        match self {
            RepositorySource::Pypi(r) => &r.import,
            RepositorySource::Local(r) => &r.import,
        }
    }

    /// The repository's name in the scorer's input and in messages: the PyPI name, or
    /// the import package of a local repository.
    pub fn name(&self) -> &str {
        match self {
            RepositorySource::Pypi(r) => &r.pypi,
            RepositorySource::Local(r) => &r.import,
        }
    }
}

/// One thing wrong with a dataset: the file to fix (relative to the dataset root) and how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub file: String,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

/// A value as compact JSON with fields in declaration order (maps are `BTreeMap`s), so that
/// a manifest's hash does not depend on how its file was laid out.
pub(crate) fn canonical_json<T: Serialize>(value: &T) -> String {
    // Struct fields serialise in declaration order and maps are BTreeMaps: deterministic.
    serde_json::to_string(value).unwrap_or_default()
}

/// SHA-256 (lowercase hex) of `format` and then each file's path and text, in path order,
/// each preceded by its length in bytes (8 bytes, little endian), so no two different
/// datasets serialise alike.
pub(crate) fn content_hash<'a>(
    format: &str,
    files: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> String {
    let mut hasher = Sha256::new();
    let mut put = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    put(format.as_bytes());
    for (path, text) in files {
        put(path.as_bytes());
        put(text.as_bytes());
    }
    hex::encode(hasher.finalize())
}
