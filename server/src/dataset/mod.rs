//! Datasets on disk and in memory: reading a dataset directory, fetching its pinned repository, verifying it, the catalog.
//!
//! The format and its checks are pure and live in [`wheelwright_core::reporeuse::dataset`]; this
//! module does the I/O around them:
//! - [`load_dir`] reads a RepoReuse dataset directory (with size limits) and validates it;
//! - [`pypi::repository_source`] obtains the pinned repository's Python sources from its
//!   wheel on PyPI, cached; [`local_repository_source`] gives a local repository's, read
//!   with the dataset; [`repository_source`] picks whichever a repository of the dataset
//!   is, and [`repository_sources`] gives every repository's;
//! - [`verify`] checks every turn the way the dataset's own `tools/verify.py` does;
//! - [`catalog`] imports the datasets directory at start, into the store and into the
//!   in-memory catalog that scoring reads.

pub(crate) mod catalog;
pub mod pypi;
pub mod recube;
pub mod recube_import;
pub mod verify;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::reporeuse::dataset::{
    Chain, ChainManifest, DatasetManifest, LocalRepository, Problem, RepoReuseDataset,
    RepositoryFiles, RepositorySource, Turn, TurnManifest, turn_dir,
};
use wheelwright_core::workspace::is_relative_down;

/// Largest file of a dataset that is read.
pub const MAX_FILE_BYTES: u64 = 8 << 20;
/// Largest number of files in one turn's `tests/` or in `tools/`.
pub const MAX_DIR_FILES: usize = 256;
/// Largest number of turns in a chain.
pub const MAX_TURNS: usize = 1000;
/// Largest number of files (Python sources and text files) in a local repository.
pub const MAX_REPOSITORY_FILES: usize = 50_000;
/// Largest total size of a local repository's files.
pub const MAX_REPOSITORY_BYTES: u64 = 512 << 20;

/// Why a dataset could not be read or used. Every message names the file and what to do.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("cannot read {}: {source}; check the path and its permissions", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is missing; {hint}", path.display())]
    Missing { path: PathBuf, hint: &'static str },
    #[error("{} is {size} bytes, more than the limit of {limit}; a dataset file this large is a mistake", path.display())]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
    #[error("{} is not valid UTF-8 text; save it as UTF-8", path.display())]
    NotText { path: PathBuf },
    #[error("{} is not a valid {what} (see docs/formats.md, \"Dataset\"): {source}", path.display())]
    Json {
        path: PathBuf,
        what: &'static str,
        source: serde_json::Error,
    },
    #[error("{} has more than {limit} entries; remove the extra files", path.display())]
    TooManyFiles { path: PathBuf, limit: usize },
    #[error("{}: benchmark {:?} is not the one this reader reads; check \"benchmark\" or use the reader for that benchmark", path.display(), benchmark.id())]
    Unsupported { path: PathBuf, benchmark: Benchmark },
    #[error("the dataset in {} is invalid ({} problem{}):\n{}", dir.display(), problems.len(), if problems.len() == 1 { "" } else { "s" }, problems.iter().map(|p| format!("  {p}")).collect::<Vec<_>>().join("\n"))]
    Invalid {
        dir: PathBuf,
        problems: Vec<Problem>,
    },
    #[error("cannot obtain {what}: {message}")]
    Repository { what: String, message: String },
    /// Two folders of the datasets directory claim one name and version with different
    /// files: runs name a dataset by its name and version, so either could be the one a
    /// run was scored on, and the server would silently pick one.
    #[error("the datasets in {} and {} are both {name:?} version {version:?} but their files differ; give one of them a new \"version\" in its dataset.json, or remove the folder that is out of date", first.display(), second.display())]
    SameVersion {
        name: String,
        version: String,
        first: PathBuf,
        second: PathBuf,
    },
}

fn read_text(path: &Path) -> Result<String, DatasetError> {
    let meta = std::fs::metadata(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            DatasetError::Missing {
                path: path.to_owned(),
                hint: "every dataset file listed in docs/formats.md must exist",
            }
        } else {
            DatasetError::Io {
                path: path.to_owned(),
                source,
            }
        }
    })?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(DatasetError::TooLarge {
            path: path.to_owned(),
            size: meta.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    let bytes = std::fs::read(path).map_err(|source| DatasetError::Io {
        path: path.to_owned(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|_| DatasetError::NotText {
        path: path.to_owned(),
    })
}

/// Refuses the dataset in `dir` unless its `dataset.json` says it is `benchmark`'s: the
/// benchmark is read before the rest, whose fields differ between benchmarks.
pub(crate) fn expect_benchmark(dir: &Path, benchmark: Benchmark) -> Result<(), DatasetError> {
    #[derive(serde::Deserialize)]
    struct Named {
        benchmark: Benchmark,
    }
    let path = dir.join("dataset.json");
    let named: Named = read_json(&path, "dataset.json")?;
    if named.benchmark == benchmark {
        Ok(())
    } else {
        Err(DatasetError::Unsupported {
            path,
            benchmark: named.benchmark,
        })
    }
}

fn read_json<T: serde::de::DeserializeOwned>(
    path: &Path,
    what: &'static str,
) -> Result<T, DatasetError> {
    let text = read_text(path)?;
    serde_json::from_str(&text).map_err(|source| DatasetError::Json {
        path: path.to_owned(),
        what,
        source,
    })
}

/// The regular files directly in `dir` (names and texts, sorted by name); subdirectories
/// and `__pycache__` are skipped. A missing directory gives no files.
fn read_files(dir: &Path) -> Result<Vec<(String, String)>, DatasetError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(DatasetError::Io {
                path: dir.to_owned(),
                source,
            });
        }
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| DatasetError::Io {
            path: dir.to_owned(),
            source,
        })?;
        let kind = entry.file_type().map_err(|source| DatasetError::Io {
            path: entry.path(),
            source,
        })?;
        if !kind.is_file() {
            continue;
        }
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if name.ends_with(".pyc") {
            continue;
        }
        if files.len() == MAX_DIR_FILES {
            return Err(DatasetError::TooManyFiles {
                path: dir.to_owned(),
                limit: MAX_DIR_FILES,
            });
        }
        let text = read_text(&entry.path())?;
        files.push((name, text));
    }
    files.sort();
    Ok(files)
}

fn read_turn(dir: &Path) -> Result<Turn, DatasetError> {
    let manifest: TurnManifest = read_json(&dir.join("turn.json"), "turn.json")?;
    let tests = read_files(&dir.join("tests"))?;
    Ok(Turn {
        manifest,
        requirement: read_text(&dir.join("requirement.md"))?,
        reference: read_text(&dir.join("reference.py"))?,
        tests,
        cases_json: read_text(&dir.join("cases.json"))?,
        expected_json: read_text(&dir.join("expected.json"))?,
    })
}

fn read_chain(root: &Path, id: &str) -> Result<Chain, DatasetError> {
    let dir = root.join("chains").join(id);
    let manifest: ChainManifest = read_json(&dir.join("chain.json"), "chain.json")?;
    let mut turns = Vec::new();
    // Turns are turn-1, turn-2, ... while they exist; a later stray turn-<n> is an error.
    for t in 1..=MAX_TURNS {
        let turn_dir = root.join(turn_dir(id, t));
        if !turn_dir.is_dir() {
            break;
        }
        turns.push(read_turn(&turn_dir)?);
    }
    let stray = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let n = name.strip_prefix("turn-")?.parse::<usize>().ok()?;
            (n > turns.len()).then_some(n)
        })
        .min();
    if let Some(n) = stray {
        return Err(DatasetError::Invalid {
            dir: root.to_owned(),
            problems: vec![Problem {
                file: format!("chains/{id}/turn-{n}"),
                message: format!(
                    "turns must be numbered 1..T without gaps, but turn-{} is missing",
                    turns.len() + 1
                ),
            }],
        });
    }
    if manifest.id != id {
        return Err(DatasetError::Invalid {
            dir: root.to_owned(),
            problems: vec![Problem {
                file: format!("chains/{id}/chain.json"),
                message: format!(
                    "\"id\" is {:?} but the directory is {id:?}; make them equal",
                    manifest.id
                ),
            }],
        });
    }
    Ok(Chain { manifest, turns })
}

/// Reads the RepoReuse dataset in `dir` and validates it
/// ([`RepoReuseDataset::validate`]); every problem is reported, each with its file.
pub fn load_dir(dir: &Path) -> Result<RepoReuseDataset, DatasetError> {
    let dataset = read_dir_unvalidated(dir)?;
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

/// Reads the dataset in `dir` without [`RepoReuseDataset::validate`]: only files that
/// cannot be read or parsed are errors.
pub fn read_dir_unvalidated(dir: &Path) -> Result<RepoReuseDataset, DatasetError> {
    let manifest_path = dir.join("dataset.json");
    expect_benchmark(dir, Benchmark::RepoReuse)?;
    let manifest: DatasetManifest = read_json(&manifest_path, "dataset.json")?;
    let mut chains = Vec::new();
    for id in &manifest.chains {
        check_dir_name(dir, id, "chain", "chains")?;
        chains.push(read_chain(dir, id)?);
    }
    let tools = read_files(&dir.join("tools"))?
        .into_iter()
        .map(|(name, text)| (format!("tools/{name}"), text))
        .collect();
    let mut repository_files = BTreeMap::new();
    for (id, source) in manifest.repository_sources() {
        if let RepositorySource::Local(repo) = source {
            repository_files.insert(id.to_owned(), read_local_repository(dir, repo)?);
        }
    }
    Ok(RepoReuseDataset {
        manifest,
        chains,
        tools,
        repository_files,
    })
}

/// `id`, listed in dataset.json's `list` (a chain, an instance), must name a directory
/// under `<list>/`: no separator, not `.` or `..`, not empty (nothing outside is read).
fn check_dir_name(dir: &Path, id: &str, what: &str, list: &str) -> Result<(), DatasetError> {
    if id.is_empty() || id.contains(['/', '\\']) || id == "." || id == ".." {
        return Err(invalid(
            dir,
            "dataset.json",
            format!("{what} id {id:?} is not a directory name under {list}/; fix \"{list}\""),
        ));
    }
    Ok(())
}

fn invalid(dir: &Path, file: &str, message: String) -> DatasetError {
    DatasetError::Invalid {
        dir: dir.to_owned(),
        problems: vec![Problem {
            file: file.to_owned(),
            message,
        }],
    }
}

/// The files of a local repository's directory ([`read_source_tree`]); the directory
/// must lie inside the dataset directory.
fn read_local_repository(
    dir: &Path,
    repo: &LocalRepository,
) -> Result<Vec<(String, String)>, DatasetError> {
    if repo.path.trim().is_empty() {
        // validate() reports the empty field.
        return Ok(Vec::new());
    }
    if !is_relative_down(&repo.path) {
        return Err(invalid(
            dir,
            "dataset.json",
            format!(
                "\"repository.path\" {:?} is not a directory inside the dataset directory; write a relative path without \"..\" (repository)",
                repo.path
            ),
        ));
    }
    let repo_dir = dir.join(&repo.path);
    if !repo_dir.is_dir() {
        return Err(DatasetError::Missing {
            path: repo_dir,
            hint: "\"repository.path\" in dataset.json names a directory of the dataset holding the repository's sources",
        });
    }
    read_source_tree(dir, &repo_dir, repo.path.trim_end_matches('/'))
}

/// The files of the repository at `repo_dir` a workspace keeps (paths relative to it,
/// sorted): its `.py` files and its text files (`workspace::text_file`), `__pycache__` and
/// hidden directories skipped, within [`MAX_REPOSITORY_FILES`] and
/// [`MAX_REPOSITORY_BYTES`]. `repo_dir` must lie inside `dir`, and so must everything a
/// symbolic link under it points to; errors name files as `<shown_as>/<path>`.
pub(crate) fn read_source_tree(
    dir: &Path,
    repo_dir: &Path,
    shown_as: &str,
) -> Result<Vec<(String, String)>, DatasetError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| DatasetError::Io { path, source }
    };
    let root = dir.canonicalize().map_err(io(dir))?;
    let repo_dir = repo_dir.to_owned();
    let mut files = Vec::new();
    let mut total = 0u64;
    let mut pending = vec![(repo_dir.clone(), String::new())];
    while let Some((current, prefix)) = pending.pop() {
        let real = current.canonicalize().map_err(io(&current))?;
        if !real.starts_with(&root) {
            return Err(invalid(
                dir,
                &format!("{shown_as}/{prefix}"),
                "is a symbolic link to outside the dataset directory; copy the files in instead"
                    .to_owned(),
            ));
        }
        for entry in std::fs::read_dir(&current).map_err(io(&current))? {
            let entry = entry.map_err(io(&current))?;
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let path = entry.path();
            let rel = format!("{prefix}{name}");
            let meta = std::fs::metadata(&path).map_err(io(&path))?;
            if meta.is_dir() {
                if name != "__pycache__" && !name.starts_with('.') {
                    pending.push((path, format!("{rel}/")));
                }
                continue;
            }
            let python = name.ends_with(".py");
            // Other files are kept when they are text, for the line counts of reads.
            if !meta.is_file()
                || (!python && meta.len() > wheelwright_core::workspace::MAX_TEXT_FILE_BYTES as u64)
            {
                continue;
            }
            let real = path.canonicalize().map_err(io(&path))?;
            if !real.starts_with(&root) {
                return Err(invalid(
                    dir,
                    &format!("{shown_as}/{rel}"),
                    "is a symbolic link to outside the dataset directory; copy the file in instead"
                        .to_owned(),
                ));
            }
            if files.len() == MAX_REPOSITORY_FILES {
                return Err(DatasetError::TooManyFiles {
                    path: repo_dir.clone(),
                    limit: MAX_REPOSITORY_FILES,
                });
            }
            let text = if python {
                read_text(&path)?
            } else {
                let bytes = std::fs::read(&path).map_err(io(&path))?;
                match wheelwright_core::workspace::text_file(&bytes) {
                    Some(text) => text.to_owned(),
                    None => continue,
                }
            };
            total += text.len() as u64;
            if total > MAX_REPOSITORY_BYTES {
                return Err(DatasetError::TooLarge {
                    path: repo_dir.clone(),
                    size: total,
                    limit: MAX_REPOSITORY_BYTES,
                });
            }
            files.push((rel, text));
        }
    }
    files.sort();
    Ok(files)
}

/// The local repository `id`'s Python sources (W0), by path relative to its directory;
/// they were read with the dataset ([`load_dir`]). `None` for a PyPI repository.
pub fn local_repository_source(
    dataset: &RepoReuseDataset,
    id: &str,
) -> Option<BTreeMap<String, String>> {
    match dataset.manifest.repository_sources().get(id)? {
        RepositorySource::Local(_) => Some(
            dataset
                .repository_files
                .get(id)
                .map(|files| files.iter().cloned().collect())
                .unwrap_or_default(),
        ),
        RepositorySource::Pypi(_) => None,
    }
}

/// The Python sources (W0) of the dataset's repository `id`, `source`: a local
/// repository's ([`local_repository_source`]), or the PyPI wheel's
/// ([`pypi::repository_source_with`], cached under `cache_dir`, pip run by `python`).
pub fn repository_source(
    dataset: &RepoReuseDataset,
    id: &str,
    source: &RepositorySource,
    cache_dir: &Path,
    python: &Path,
) -> Result<BTreeMap<String, String>, DatasetError> {
    match source {
        RepositorySource::Pypi(repo) => pypi::repository_source_with(repo, cache_dir, python),
        RepositorySource::Local(_) => Ok(local_repository_source(dataset, id).unwrap_or_default()),
    }
}

/// Every repository's Python sources (W0) by repository id ([`repository_source`] of each).
pub fn repository_sources(
    dataset: &RepoReuseDataset,
    cache_dir: &Path,
    python: &Path,
) -> Result<RepositoryFiles, DatasetError> {
    dataset
        .manifest
        .repository_sources()
        .into_iter()
        .map(|(id, source)| {
            let files = repository_source(dataset, id, source, cache_dir, python)?;
            Ok((id.to_owned(), files))
        })
        .collect()
}

/// Where wheels and venvs are kept: `$WHEELWRIGHT_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/wheelwright`, else `$HOME/.cache/wheelwright`.
pub fn default_cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("WHEELWRIGHT_CACHE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("wheelwright");
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".cache").join("wheelwright")
}
