//! Imports the datasets found in the datasets directory at start: into the database, and into the in-memory catalog that scoring reads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};
use wheelwright_core::api::ScoringKit;
use wheelwright_core::budget::Cancel;
use wheelwright_core::reporeuse::baseline::Baseline;
use wheelwright_core::reporeuse::bundle::RepoReuseBundle;
use wheelwright_core::reporeuse::dataset::{RepoReuseDataset, RepositoryFiles};
use wheelwright_core::reporeuse::scoring::{PreparedDataset, save_index};
use wheelwright_core::reporeuse::stats::DatasetStats;

use crate::dataset::DatasetError;
use crate::dataset::recube::{LoadedRecube, load_recube_dir};
use crate::store::Store;
use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::hidden_tests::compare::ExceptionClasses;

/// A dataset the server holds in memory: what scoring, reference sources and repository
/// sources are served from. The database holds what lists and filters need.
pub(crate) struct LoadedDataset {
    pub(crate) dataset: RepoReuseDataset,
    pub(crate) content_sha256: String,
    /// Table 1 of the dataset ([`DatasetStats::of`]), computed once as it loads: it reads
    /// every turn's expected values, which a dataset page should not do per request.
    pub(crate) stats: DatasetStats,
    cache_dir: PathBuf,
    /// What is made from the dataset on first use, shared with every other
    /// `LoadedDataset` of the same content in this process ([`Derived::of`]).
    derived: Arc<Derived>,
}

/// What a dataset version yields on first use, each a pure function of the dataset's
/// content and the pinned repositories in the cache directory.
#[derive(Default)]
struct Derived {
    /// W0's sources of every repository by id, obtained on first use (PyPI wheels may
    /// have to be downloaded).
    repositories: Mutex<Option<Arc<RepositoryFiles>>>,
    /// The scoring kit as gzip-compressed JSON, made on first request: the same bytes
    /// for every browser that asks.
    kit: Mutex<Option<axum::body::Bytes>>,
    /// Each repository's W0 index saved by core ([`save_index`]), gzip-compressed, with
    /// the SHA-256 of the saved bytes, by repository id; each made on first request.
    saved_indexes: Mutex<BTreeMap<String, (axum::body::Bytes, String)>>,
    /// The exception classes of each repository's W0 and the built-in ones, by repository
    /// id: what hidden tests judge a raised exception with; made on first use.
    exceptions: Mutex<Option<Arc<BTreeMap<String, ExceptionClasses>>>>,
    /// The dataset ready to score with, W0 loaded from the saved index above; made on
    /// first use and shared by every upload and re-score of this dataset version.
    prepared: Mutex<Option<Arc<PreparedDataset<'static>>>>,
    /// Each baseline's bundle by name ([`Baseline::bundle`]; `copy` indexes W0 again to
    /// find what to copy), made on first use.
    baselines: Mutex<BTreeMap<&'static str, Arc<RepoReuseBundle>>>,
}

impl Derived {
    /// The values of the dataset whose content hash is `content_sha256`, with its
    /// repository from `cache_dir`. A server opens its datasets once, but a process may
    /// open the same dataset again (the server's test binary opens a fresh state, and so
    /// the shipped dataset, for each test): indexing W0 again would give the same values,
    /// so each (content, cache) pair is analysed once per process. Never evicted: a
    /// process holds the few dataset versions it opened.
    fn of(content_sha256: &str, cache_dir: &Path) -> Arc<Self> {
        type Shared = BTreeMap<(String, PathBuf), Arc<Derived>>;
        static SHARED: Mutex<Shared> = Mutex::new(BTreeMap::new());
        let mut shared = SHARED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(
            shared
                .entry((content_sha256.to_owned(), cache_dir.to_owned()))
                .or_default(),
        )
    }
}

impl LoadedDataset {
    pub(crate) fn new(dataset: RepoReuseDataset, cache_dir: PathBuf) -> Self {
        let content_sha256 = dataset.content_hash();
        Self {
            derived: Derived::of(&content_sha256, &cache_dir),
            content_sha256,
            stats: DatasetStats::of(&dataset),
            dataset,
            cache_dir,
        }
    }

    /// The dataset prepared for scoring: checked, with each repository's W0 index loaded
    /// from the saved index the browser also loads ([`Self::saved_index_gzip`]), so W0 is
    /// analysed once per dataset version in this process, not once per upload. Blocking:
    /// the first call may index the repositories (about a second for networkx); later
    /// calls share the same.
    pub(crate) fn prepared(&self) -> anyhow::Result<Arc<PreparedDataset<'static>>> {
        use std::io::Read;
        once(&self.derived.prepared, || {
            let dataset = self
                .dataset
                .to_score_dataset((*self.repositories()?).clone());
            let mut saved = BTreeMap::new();
            for id in dataset.repositories.keys() {
                let (gzip, _) = self.saved_index_gzip(id)?;
                let mut bytes = Vec::new();
                flate2::read::GzDecoder::new(&gzip[..]).read_to_end(&mut bytes)?;
                saved.insert(id.clone(), bytes);
            }
            let (prepared, refused) =
                PreparedDataset::with_saved_indexes(dataset, &saved, &Cancel::never())?;
            for (repository, why) in refused {
                // Saved by this build from the same files, so it should always load.
                tracing::warn!(
                    repository,
                    "W0's saved index was refused, indexed again: {why}"
                );
            }
            Ok(Arc::new(prepared))
        })
    }

    /// The [`ScoringKit`] of this dataset, as gzip-compressed JSON. Blocking (it may need
    /// the repository, and compresses a few megabytes once); later calls return the same
    /// bytes.
    pub(crate) fn scoring_kit_gzip(&self) -> anyhow::Result<axum::body::Bytes> {
        use std::io::Write;
        once(&self.derived.kit, || {
            let kit = ScoringKit {
                content_sha256: self.content_sha256.clone(),
                dataset: self.dataset.without_hidden_tests(),
                repositories: (*self.repositories()?).clone(),
            };
            let mut gzip =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            serde_json::to_writer(&mut gzip, &kit)?;
            gzip.flush()?;
            let bytes = axum::body::Bytes::from(gzip.finish()?);
            Ok(bytes)
        })
    }

    /// The W0 index of repository `id` as core saves it ([`save_index`]: what the browser
    /// loads instead of parsing the repository), gzip-compressed, and the SHA-256 of the
    /// saved bytes (the same for the same files and build). Blocking: the first call per
    /// repository indexes it (about a second for networkx); later calls return the same
    /// bytes.
    pub(crate) fn saved_index_gzip(&self, id: &str) -> anyhow::Result<(axum::body::Bytes, String)> {
        use std::io::Write;
        // One lock for all repositories: two first requests must not index one twice.
        let mut saved_indexes = self
            .derived
            .saved_indexes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(entry) = saved_indexes.get(id) {
            return Ok(entry.clone());
        }
        // The repository exactly as the browser's scorer gets it from the kit.
        let dataset = self
            .dataset
            .to_score_dataset((*self.repositories()?).clone());
        let repository = dataset
            .repositories
            .get(id)
            .ok_or_else(|| anyhow::anyhow!("the dataset has no repository {id:?}"))?;
        let saved = save_index(repository, &Cancel::never())?;
        let sha256 = hex::encode(Sha256::digest(&saved));
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gzip.write_all(&saved)?;
        let entry = (axum::body::Bytes::from(gzip.finish()?), sha256);
        saved_indexes.insert(id.to_owned(), entry.clone());
        Ok(entry)
    }

    /// The exception classes the host knows for each repository of this dataset, by
    /// repository id ([`ExceptionClasses`]: its W0's and the built-in ones). Blocking: the
    /// first call indexes the repositories (about a second for networkx); later calls
    /// share the same.
    pub(crate) fn exceptions(
        &self,
    ) -> Result<Arc<BTreeMap<String, ExceptionClasses>>, DatasetError> {
        once(&self.derived.exceptions, || {
            Ok(Arc::new(
                self.dataset.exception_classes(&*self.repositories()?),
            ))
        })
    }

    /// The bundle of `baseline` over this dataset ([`Baseline::bundle`]; the caller dates it).
    /// Blocking: the first call of `copy` indexes W0 (about a second for networkx); later
    /// calls share the same.
    pub(crate) fn baseline_bundle(
        &self,
        baseline: Baseline,
    ) -> anyhow::Result<Arc<RepoReuseBundle>> {
        let mut made = self
            .derived
            .baselines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(bundle) = made.get(baseline.name()) {
            return Ok(Arc::clone(bundle));
        }
        let repositories = self.repositories()?;
        let bundle = Arc::new(baseline.bundle(&self.dataset, &repositories));
        made.insert(baseline.name(), Arc::clone(&bundle));
        Ok(bundle)
    }

    /// Every repository's Python sources by path, by repository id. Blocking: the first
    /// call may download the pinned wheels; the lock keeps concurrent first calls from
    /// doing it twice.
    pub(crate) fn repositories(&self) -> Result<Arc<RepositoryFiles>, DatasetError> {
        once(&self.derived.repositories, || {
            Ok(Arc::new(crate::dataset::repository_sources(
                &self.dataset,
                &self.cache_dir,
                Path::new("python3"),
            )?))
        })
    }

    /// The repository a request names by id (`?repository=`), or the dataset's only one
    /// when it names none; `Err` says what to name instead.
    pub(crate) fn repository_id(&self, named: Option<&str>) -> Result<String, String> {
        let sources = self.dataset.manifest.repository_sources();
        let ids = || sources.keys().copied().collect::<Vec<_>>().join(", ");
        match named {
            Some(id) if sources.contains_key(id) => Ok(id.to_owned()),
            Some(id) => Err(format!(
                "the dataset has no repository {id:?}; name one of {} (repository=)",
                ids()
            )),
            None if sources.len() == 1 => Ok(sources
                .keys()
                .next()
                .copied()
                .unwrap_or_default()
                .to_owned()),
            None => Err(format!(
                "the dataset has several repositories; name one with repository= ({})",
                ids()
            )),
        }
    }
}

/// The value in `slot`, made by `make` on first use (when it fails, the next call tries
/// again); the lock keeps concurrent first calls from making it twice.
fn once<T: Clone, E>(slot: &Mutex<Option<T>>, make: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let mut slot = slot
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(value) = slot.as_ref() {
        return Ok(value.clone());
    }
    let value = make()?;
    *slot = Some(value.clone());
    Ok(value)
}

/// The loaded datasets by (name, version).
#[derive(Default)]
pub(crate) struct Catalog {
    datasets: BTreeMap<(String, String), Arc<LoadedDataset>>,
    /// ReCUBE's datasets, by (name, version).
    recube: BTreeMap<(String, String), Arc<LoadedRecube>>,
}

impl Catalog {
    pub(crate) fn get(&self, name: &str, version: &str) -> Option<Arc<LoadedDataset>> {
        self.datasets
            .get(&(name.to_owned(), version.to_owned()))
            .cloned()
    }

    pub(crate) fn all(&self) -> impl Iterator<Item = &Arc<LoadedDataset>> {
        self.datasets.values()
    }

    pub(crate) fn recube(&self, name: &str, version: &str) -> Option<Arc<LoadedRecube>> {
        self.recube
            .get(&(name.to_owned(), version.to_owned()))
            .cloned()
    }

    pub(crate) fn all_recube(&self) -> impl Iterator<Item = &Arc<LoadedRecube>> {
        self.recube.values()
    }
}

/// Number of hidden tests of a turn: one per case in its `cases.json`.
fn test_count(cases_json: &str) -> usize {
    serde_json::from_str::<Vec<serde_json::Value>>(cases_json).map_or(0, |cases| cases.len())
}

/// Imports every dataset directory under `dir` (a directory holding `dataset.json`) whose
/// content changed since the last import, and returns all of them loaded. A dataset that
/// does not load is logged and skipped, so one broken directory cannot keep the server
/// from starting; two that load with one benchmark, name and version but different
/// files do ([`DatasetError::SameVersion`], naming both folders), since runs name their
/// dataset by name and version alone. An identical second copy is skipped.
pub(crate) async fn import_dir(
    store: &Store,
    dir: &Path,
    cache_dir: &Path,
) -> anyhow::Result<Catalog> {
    let mut catalog = Catalog::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        tracing::warn!(dir = %dir.display(), "no datasets directory; no dataset imported");
        return Ok(catalog);
    };
    let mut imported = 0;
    let mut dirs: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("dataset.json").is_file())
        .collect();
    dirs.sort();
    // Each (benchmark, name, version) with the folder and content hash it was read from.
    let mut seen: BTreeMap<(Benchmark, String, String), (PathBuf, String)> = BTreeMap::new();
    let mut claim = |benchmark: Benchmark, name: &str, version: &str, path: &Path, hash: &str| {
        let key = (benchmark, name.to_owned(), version.to_owned());
        match seen.get(&key) {
            Some((first, first_hash)) if first_hash != hash => Err(DatasetError::SameVersion {
                name: name.to_owned(),
                version: version.to_owned(),
                first: first.clone(),
                second: path.to_owned(),
            }),
            Some(_) => Ok(false),
            None => {
                seen.insert(key, (path.to_owned(), hash.to_owned()));
                Ok(true)
            }
        }
    };
    for path in dirs {
        let loaded = {
            let path = path.clone();
            tokio::task::spawn_blocking(move || crate::dataset::load_dir(&path)).await?
        };
        match loaded {
            Ok(dataset) => {
                let m = &dataset.manifest;
                let hash = dataset.content_hash();
                if !claim(Benchmark::RepoReuse, &m.name, &m.version, &path, &hash)? {
                    tracing::info!(dir = %path.display(), "the same dataset as an earlier folder: skipped");
                    continue;
                }
                if import(store, &dataset).await? {
                    imported += 1;
                }
                let key = (
                    dataset.manifest.name.clone(),
                    dataset.manifest.version.clone(),
                );
                let loaded = LoadedDataset::new(dataset, cache_dir.to_owned());
                catalog.datasets.insert(key, Arc::new(loaded));
            }
            Err(crate::dataset::DatasetError::Unsupported {
                benchmark: Benchmark::Recube,
                ..
            }) => {
                let read = {
                    let path = path.clone();
                    tokio::task::spawn_blocking(move || load_recube_dir(&path)).await?
                };
                match read {
                    Ok(dataset) => {
                        let key = (
                            dataset.manifest.name.clone(),
                            dataset.manifest.version.clone(),
                        );
                        let loaded = LoadedRecube::new(dataset, cache_dir.to_owned());
                        if !claim(
                            Benchmark::Recube,
                            &key.0,
                            &key.1,
                            &path,
                            &loaded.content_sha256,
                        )? {
                            tracing::info!(dir = %path.display(), "the same dataset as an earlier folder: skipped");
                            continue;
                        }
                        catalog.recube.insert(key, Arc::new(loaded));
                    }
                    Err(error) => {
                        tracing::error!(dir = %path.display(), "ReCUBE dataset not loaded: {error}");
                    }
                }
            }
            Err(crate::dataset::DatasetError::Unsupported { benchmark, .. }) => {
                tracing::info!(dir = %path.display(), benchmark = benchmark.id(), "dataset of a benchmark without datasets here yet: not served");
            }
            Err(error) => {
                tracing::error!(dir = %path.display(), "dataset not imported: {error}");
            }
        }
    }
    tracing::info!(
        imported,
        loaded = catalog.datasets.len(),
        recube = catalog.recube.len(),
        "datasets"
    );
    Ok(catalog)
}

/// Stores one dataset in a single transaction; `false` when the same content is there.
pub(crate) async fn import(store: &Store, dataset: &RepoReuseDataset) -> anyhow::Result<bool> {
    let manifest = &dataset.manifest;
    let hash = dataset.content_hash();
    let stored = store
        .dataset_hash(&manifest.name, &manifest.version)
        .await?;
    match stored.as_deref() {
        Some(h) if h == hash => return Ok(false),
        Some(_) => tracing::warn!(
            name = manifest.name,
            version = manifest.version,
            "the dataset's files changed without a new version; replacing the stored copy"
        ),
        None => {}
    }
    let tests: usize = dataset
        .chains
        .iter()
        .flat_map(|c| &c.turns)
        .map(|t| test_count(&t.cases_json))
        .sum();
    store
        .replace_dataset(dataset, &hash, tests, test_count)
        .await?;
    Ok(true)
}
