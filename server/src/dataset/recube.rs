//! Reading a ReCUBE dataset directory (`docs/formats.md`, "Dataset (ReCUBE)") into core's types.

use std::collections::BTreeMap;
use std::path::Path;

use wheelwright_core::api::{RecubeDatasetSummary, RecubeInstanceDetail, RecubeInstanceSummary};
use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::dataset::RepositorySource;
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::recube::dataset::{
    Instance, InstanceManifest, RecubeDataset, RecubeManifest,
};
use wheelwright_core::recube::metrics::TestKind;
use wheelwright_core::recube::scoring::{InstanceBasis, RecubeReport};
use wheelwright_core::recube::views::{Context, neighbourhood};
use wheelwright_core::workspace::Workspace;

use super::{DatasetError, check_dir_name, read_files, read_json};

/// Largest number of instances in a dataset.
pub const MAX_INSTANCES: usize = 10_000;

/// Reads the ReCUBE dataset in `dir` and validates it ([`RecubeDataset::validate`]); every
/// problem is reported, each with its file.
pub fn load_recube_dir(dir: &Path) -> Result<RecubeDataset, DatasetError> {
    let manifest_path = dir.join("dataset.json");
    super::expect_benchmark(dir, Benchmark::Recube)?;
    let manifest: RecubeManifest = read_json(&manifest_path, "dataset.json")?;
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

/// A ReCUBE dataset the server holds in memory: its repositories' files fetched on first
/// use, each instance's page computed once.
pub(crate) struct LoadedRecube {
    pub(crate) dataset: RecubeDataset,
    pub(crate) content_sha256: String,
    cache_dir: std::path::PathBuf,
    /// What is made from the dataset on first use, shared with every other `LoadedRecube`
    /// of the same content in this process ([`RecubeDerived::of`]).
    derived: std::sync::Arc<RecubeDerived>,
}

/// What a ReCUBE dataset version yields on first use, each a pure function of its content
/// and the pinned repositories in the cache directory.
#[derive(Default)]
struct RecubeDerived {
    repositories: std::sync::Mutex<BTreeMap<String, std::sync::Arc<BTreeMap<String, String>>>>,
    instances: std::sync::Mutex<BTreeMap<String, std::sync::Arc<RecubeInstanceDetail>>>,
    /// Each baseline's scores before any test ran, by baseline name.
    baselines: std::sync::Mutex<BTreeMap<&'static str, RecubeReport>>,
    /// Each instance's scoring basis (its masked target and caller graph), by instance id:
    /// the same for every submission, and most of the time scoring one takes.
    bases: std::sync::Mutex<BTreeMap<String, std::sync::Arc<InstanceBasis>>>,
    /// Each repository's files as a workspace, by repository id: what scoring, the bases
    /// and the instance pages read.
    workspaces: std::sync::Mutex<BTreeMap<String, std::sync::Arc<Workspace>>>,
}

impl RecubeDerived {
    /// As the RepoReuse catalog's `Derived::of`: a process may open the same dataset
    /// again (the server's test binary does, for each test), and its repositories'
    /// graphs would come out the same, so each (content, cache) pair is analysed once per
    /// process. Never evicted: a process holds the few dataset versions it opened.
    fn of(content_sha256: &str, cache_dir: &Path) -> std::sync::Arc<Self> {
        type Shared = BTreeMap<(String, std::path::PathBuf), std::sync::Arc<RecubeDerived>>;
        static SHARED: std::sync::Mutex<Shared> = std::sync::Mutex::new(BTreeMap::new());
        let mut shared = SHARED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        std::sync::Arc::clone(
            shared
                .entry((content_sha256.to_owned(), cache_dir.to_owned()))
                .or_default(),
        )
    }
}

impl LoadedRecube {
    pub(crate) fn new(dataset: RecubeDataset, cache_dir: std::path::PathBuf) -> Self {
        let content_sha256 = dataset.content_hash();
        Self {
            derived: RecubeDerived::of(&content_sha256, &cache_dir),
            content_sha256,
            dataset,
            cache_dir,
        }
    }

    /// The scores of the baseline `name` before its tests ran, made by `score` on first
    /// use (a baseline's bundle is a function of the dataset); later calls share them.
    pub(crate) fn baseline_report(
        &self,
        name: &'static str,
        score: impl FnOnce() -> anyhow::Result<RecubeReport>,
    ) -> anyhow::Result<RecubeReport> {
        let mut made = self
            .derived
            .baselines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(report) = made.get(name) {
            return Ok(report.clone());
        }
        let report = score()?;
        made.insert(name, report.clone());
        Ok(report)
    }

    pub(crate) fn summary(&self) -> RecubeDatasetSummary {
        let m = &self.dataset.manifest;
        RecubeDatasetSummary {
            name: m.name.clone(),
            version: m.version.clone(),
            content_sha256: self.content_sha256.clone(),
            repositories: m.repositories.clone(),
            instance_count: self.dataset.instances.len(),
            test_count: self
                .dataset
                .instances
                .iter()
                .map(|i| i.manifest.tests.len())
                .sum(),
        }
    }

    pub(crate) fn instance_summaries(&self) -> Vec<RecubeInstanceSummary> {
        self.dataset
            .instances
            .iter()
            .map(instance_summary)
            .collect()
    }

    /// The files of the repository `id`. Blocking: the first call may download its wheel;
    /// the lock keeps concurrent first calls from doing it twice.
    pub(crate) fn repository(
        &self,
        id: &str,
    ) -> Result<Option<std::sync::Arc<BTreeMap<String, String>>>, DatasetError> {
        let Some(source) = self.dataset.manifest.repositories.get(id) else {
            return Ok(None);
        };
        let mut slot = self
            .derived
            .repositories
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(files) = slot.get(id) {
            return Ok(Some(std::sync::Arc::clone(files)));
        }
        let files = match source {
            RepositorySource::Pypi(repo) => super::pypi::repository_source(repo, &self.cache_dir)?,
            RepositorySource::Local(_) => self
                .dataset
                .repository_files
                .get(id)
                .map(|files| files.iter().cloned().collect())
                .unwrap_or_default(),
        };
        let files = std::sync::Arc::new(files);
        slot.insert(id.to_owned(), std::sync::Arc::clone(&files));
        Ok(Some(files))
    }

    /// The files of the repository `id` as a workspace (empty for an id the dataset
    /// lacks), made on first use; later calls share it.
    pub(crate) fn workspace(&self, id: &str) -> Result<std::sync::Arc<Workspace>, DatasetError> {
        if let Some(done) = self
            .derived
            .workspaces
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
        {
            return Ok(std::sync::Arc::clone(done));
        }
        let files = self.repository(id)?.unwrap_or_default();
        let mut workspace = Workspace::new();
        for (path, text) in files.iter() {
            workspace.insert(path, text.as_str());
        }
        let workspace = std::sync::Arc::new(workspace);
        self.derived
            .workspaces
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id.to_owned(), std::sync::Arc::clone(&workspace));
        Ok(workspace)
    }

    /// The scoring basis of `instance` ([`InstanceBasis`]), made on first use from its
    /// repository (whose files may be downloaded then); later calls share it.
    pub(crate) fn basis(
        &self,
        instance: &Instance,
    ) -> Result<std::sync::Arc<InstanceBasis>, DatasetError> {
        let id = &instance.manifest.id;
        if let Some(basis) = self
            .derived
            .bases
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
        {
            return Ok(std::sync::Arc::clone(basis));
        }
        // Made outside the lock: two instances' bases are made at once, and two requests
        // racing for one make the same value.
        let workspace = self.workspace(&instance.manifest.repository)?;
        let basis = std::sync::Arc::new(InstanceBasis::of(
            &workspace,
            &instance.manifest.target,
            &IndexOptions::default(),
        ));
        self.derived
            .bases
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id.clone(), std::sync::Arc::clone(&basis));
        Ok(basis)
    }

    /// The page of the instance `id` (`None`: no such instance). Blocking: the first call
    /// builds (or takes from scoring) the repository's graph with the target withheld (a fraction of a second for
    /// the shipped libraries); later calls share the result.
    pub(crate) fn instance(
        &self,
        id: &str,
    ) -> Result<Option<std::sync::Arc<RecubeInstanceDetail>>, DatasetError> {
        let Some(instance) = self.dataset.instances.iter().find(|i| i.manifest.id == id) else {
            return Ok(None);
        };
        if let Some(done) = self
            .derived
            .instances
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
        {
            return Ok(Some(std::sync::Arc::clone(done)));
        }
        let m = &instance.manifest;
        let workspace = self.workspace(&m.repository)?;
        let original = workspace.text(&m.target).unwrap_or_default().to_owned();
        // The graph and masked target scoring uses: built once for both.
        let basis = self.basis(instance)?;
        let masked = basis.masked().clone();
        let context = Context::of(basis.graph(), &workspace, &masked.text);
        let detail = std::sync::Arc::new(RecubeInstanceDetail {
            dataset: self.dataset.manifest.name.clone(),
            version: self.dataset.manifest.version.clone(),
            summary: instance_summary(instance),
            original,
            masked: masked.text,
            masked_bodies: masked.bodies,
            tests: m.tests.clone(),
            neighbourhood: neighbourhood(&context),
            context,
        });
        self.derived
            .instances
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id.to_owned(), std::sync::Arc::clone(&detail));
        Ok(Some(detail))
    }
}

fn instance_summary(instance: &Instance) -> RecubeInstanceSummary {
    let m = &instance.manifest;
    let count = |kind: TestKind| m.tests.iter().filter(|t| t.kind == kind).count();
    RecubeInstanceSummary {
        id: m.id.clone(),
        repository: m.repository.clone(),
        target: m.target.clone(),
        description: m.description.clone(),
        external_tests: count(TestKind::External),
        internal_tests: count(TestKind::Internal),
    }
}
