//! A repository's index saved as bytes, so a host that is given them loads it without parsing.
//!
//! Parsing and analysing a repository is what preparing a dataset costs: networkx 3.4.2
//! (566 files, 6.1 MB) takes 2.8 s in the browser's one wasm thread; loading the same
//! analyses saved by the server takes 164 ms there. The saved form is the analyses
//! [`RepoIndex::build_with`] inserts, in the same order, so the loaded index is the built one.
//!
//! A snapshot names what it was made from: its format (this build of core) and a SHA-256
//! over the workspace's Python files (path and text, in path order). [`load`] checks both
//! against the workspace it is given and refuses a snapshot of other files or another
//! build; the caller then builds the index itself ([`RepoIndex::build_with`]).
//!
//! ```
//! use wheelwright_core::python::index::{IndexOptions, RepoIndex};
//! use wheelwright_core::python::snapshot;
//! use wheelwright_core::workspace::Workspace;
//!
//! let mut workspace = Workspace::new();
//! workspace.insert("pkg/__init__.py", "from .core import f\n");
//! workspace.insert("pkg/core.py", "def f():\n    return 1\n");
//! let options = IndexOptions::default();
//! let saved = snapshot::save(&workspace, &options).unwrap();
//! let loaded = snapshot::load(&saved, &workspace, &options).unwrap();
//! assert_eq!(loaded.lookup("pkg.f"), RepoIndex::build(&workspace, &options).lookup("pkg.f"));
//! workspace.insert("pkg/core.py", "def f():\n    return 2\n");
//! assert!(snapshot::load(&saved, &workspace, &options).is_err());
//! ```

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::index::{AnalysedFile, IndexOptions, RepoIndex, analyse_files, module_name};
use crate::budget::{Cancel, Cancelled};
use crate::workspace::Workspace;

/// The build of core that wrote a snapshot: analyses change with the code that makes them,
/// so a snapshot is loaded only by the build that saved it. The revision after the version
/// is raised whenever the analysis or its fields change within one version
/// (`snapshot_of_a_fixed_workspace_is_pinned` fails until it is).
const FORMAT: &str = concat!("wheelwright-index/", env!("CARGO_PKG_VERSION"), "/r2");

/// Why a snapshot was not loaded; the index is then built from the files instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    #[error(
        "the saved index cannot be read ({0}); it was not written by this version of Wheelwright"
    )]
    Unreadable(String),
    #[error("the saved index was written by {found}, not by this page's {FORMAT}; reload the page")]
    OtherBuild { found: String },
    #[error(
        "the saved index is of other files than the dataset's repository (SHA-256 {found}, the files here {expected})"
    )]
    OtherFiles { found: String, expected: String },
    #[error("the saved index names modules with other source roots than the dataset's")]
    OtherOptions,
}

#[derive(Serialize)]
struct Saving<'a> {
    format: &'a str,
    files_sha256: String,
    source_roots: &'a [String],
    files: Vec<AnalysedFile>,
}

#[derive(Deserialize)]
struct Saved {
    format: String,
    files_sha256: String,
    source_roots: Vec<String>,
    files: Vec<AnalysedFile>,
}

/// Analyses `workspace` as [`RepoIndex::build`] does and saves the analyses as bytes.
pub fn save(workspace: &Workspace, options: &IndexOptions) -> Result<Vec<u8>, Cancelled> {
    save_with(workspace, options, &Cancel::never())
}

/// [`save`] that stops with [`Cancelled`] soon after `cancel` is raised.
pub fn save_with(
    workspace: &Workspace,
    options: &IndexOptions,
    cancel: &Cancel,
) -> Result<Vec<u8>, Cancelled> {
    let saving = Saving {
        format: FORMAT,
        files_sha256: files_sha256(workspace, options),
        source_roots: &options.source_roots,
        files: analyse_files(workspace, options, cancel)?,
    };
    Ok(postcard::to_allocvec(&saving)
        .expect("an analysis serialises: it has no maps with non-string keys or unsized parts"))
}

/// The index saved in `bytes`, if it was saved by this build from exactly `workspace`'s
/// Python files with `options`: then it is the index [`RepoIndex::build`] makes of them.
pub fn load(
    bytes: &[u8],
    workspace: &Workspace,
    options: &IndexOptions,
) -> Result<RepoIndex, SnapshotError> {
    let saved: Saved =
        postcard::from_bytes(bytes).map_err(|e| SnapshotError::Unreadable(e.to_string()))?;
    if saved.format != FORMAT {
        return Err(SnapshotError::OtherBuild {
            found: saved.format,
        });
    }
    if saved.source_roots != options.source_roots {
        return Err(SnapshotError::OtherOptions);
    }
    let expected = files_sha256(workspace, options);
    if saved.files_sha256 != expected {
        return Err(SnapshotError::OtherFiles {
            found: saved.files_sha256,
            expected,
        });
    }
    Ok(RepoIndex::from_analysed(options, saved.files))
}

/// SHA-256 over the workspace's Python files (those that name a module), each as its
/// path's and text's lengths and bytes, in path order: what the index is made of.
fn files_sha256(workspace: &Workspace, options: &IndexOptions) -> String {
    let mut hasher = Sha256::new();
    for (path, text) in workspace.files() {
        if module_name(path, options).is_none() {
            continue;
        }
        let path = crate::workspace::normalise_path(path);
        hasher.update((path.len() as u64).to_le_bytes());
        hasher.update(path.as_bytes());
        hasher.update((text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    }
    hex::encode(hasher.finalize())
}
