//! A run submitted to any benchmark: its dataset found, the bundle checked, refused when stored already, scored off the async runtime and stored in one transaction; the baselines likewise.
//!
//! The server never takes numbers from a submitter: a bundle carries files and
//! trajectories only, and everything stored here was computed by core on this machine.
//! What differs between benchmarks (which datasets, how a bundle is checked and scored,
//! which baselines there are) is one [`Scorer`], implemented by each benchmark's loaded
//! dataset: RepoReuse's in `reporeuse/runs.rs`, ReCUBE's in `recube/runs.rs`. Everything
//! else, the order of the steps and the limits, is here once. The files and trajectories
//! are stored deflated by [`crate::store::run_files`], within its per-run limits, which
//! are checked before anything is scored or written.

use std::sync::Arc;

use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::budget::{Cancel, Cancelled};
use wheelwright_core::bundle::{BundleError, InstanceId, RunBundle};

use crate::dataset::catalog::Catalog;
use crate::error::AppError;
use crate::store::run_files::{OverLimits, STORE_LIMITS};
use crate::store::{Inserted, NewRun, Scores, Store};
use crate::work::Job;

/// Why a run was not stored. Nothing is stored when any of these is returned.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SubmitError {
    #[error("{0}")]
    Bundle(#[from] BundleError),
    #[error(
        "the run names dataset {name:?} version {version:?}, which this server does not have; GET /api/v1/datasets lists the datasets it scores"
    )]
    UnknownDataset { name: String, version: String },
    #[error("this run bundle is already stored as run {id}; GET /api/v1/runs/{id} shows it")]
    Duplicate { id: i64 },
    /// The request was abandoned or timed out while its run was scored.
    #[error(transparent)]
    Cancelled(#[from] Cancelled),
    #[error("{0}")]
    Store(#[from] OverLimits),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<SubmitError> for AppError {
    fn from(error: SubmitError) -> Self {
        use axum::http::StatusCode;
        let status = match &error {
            SubmitError::Bundle(
                BundleError::TooLarge { .. }
                | BundleError::FileTooLarge { .. }
                | BundleError::LineTooLong { .. }
                | BundleError::TooManyEntries { .. }
                | BundleError::UploadTooLarge { .. }
                | BundleError::StoredTooLarge { .. },
            ) => StatusCode::PAYLOAD_TOO_LARGE,
            SubmitError::Store(_) => StatusCode::PAYLOAD_TOO_LARGE,
            SubmitError::Bundle(_) => StatusCode::UNPROCESSABLE_ENTITY,
            SubmitError::UnknownDataset { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            SubmitError::Duplicate { .. } => StatusCode::CONFLICT,
            SubmitError::Cancelled(_) => StatusCode::SERVICE_UNAVAILABLE,
            SubmitError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        // The cause itself, not its text, so a full disk is still told apart (507).
        if let SubmitError::Internal(error) = error {
            return Self::Internal(error);
        }
        Self::Client {
            status,
            message: error.to_string(),
        }
    }
}

/// One benchmark's loaded dataset version as [`submit`] and [`ensure_baselines`] use it:
/// how a bundle is read, checked, scored and stored, and which baselines the server
/// computes. The blocking methods run on the blocking pool.
pub(crate) trait Scorer: Send + Sync + Sized + 'static {
    /// What the benchmark's run bundles key their predictions by.
    type Key: InstanceId + Send + 'static;
    /// A run's scores as core computes them.
    type Report: Send + 'static;
    /// A baseline the server computes from the dataset itself.
    type Baseline: Copy + Send + 'static;

    /// The benchmark's baselines, stored in this order.
    const BASELINES: &'static [Self::Baseline];

    /// The dataset `name` `version` of this benchmark in `catalog`.
    fn find(catalog: &Catalog, name: &str, version: &str) -> Option<Arc<Self>>;

    /// What a run of this dataset is stored as: an upload (no baseline).
    fn provenance(&self) -> Provenance<'_>;

    /// Reads an uploaded bundle (its bytes as sent) within the upload limits.
    fn read(bytes: &[u8]) -> Result<RunBundle<Self::Key>, BundleError>;

    /// Checks `bundle` against the dataset (its instances, paths, chains).
    fn check(&self, bundle: &RunBundle<Self::Key>) -> Result<(), BundleError>;

    /// Scores `bundle` (already checked) with core, stopping with
    /// [`SubmitError::Cancelled`] soon after `cancel` is raised. Blocking: a repository may
    /// be indexed or downloaded.
    fn score(
        &self,
        bundle: &RunBundle<Self::Key>,
        cancel: &Cancel,
    ) -> Result<Self::Report, SubmitError>;

    /// The rows `report` stores for `bundle`.
    fn scores(
        &self,
        bundle: &RunBundle<Self::Key>,
        report: &Self::Report,
    ) -> Result<Scores, SubmitError>;

    /// The name a baseline is stored under (`reference`, `empty`, ...).
    fn baseline_name(baseline: Self::Baseline) -> &'static str;

    /// A baseline's report: [`Scorer::score`]'s, unless the dataset keeps the one it made
    /// earlier in this process (the same content scores the same).
    fn score_baseline(
        &self,
        _baseline: Self::Baseline,
        bundle: &RunBundle<Self::Key>,
        cancel: &Cancel,
    ) -> Result<Self::Report, SubmitError> {
        self.score(bundle, cancel)
    }

    /// The baseline's bundle over the whole dataset, dated `today`. Blocking.
    fn baseline(
        &self,
        baseline: Self::Baseline,
        today: &str,
    ) -> anyhow::Result<RunBundle<Self::Key>>;
}

/// What a run to store is of, and whether it is a baseline (`None`: an upload, origin
/// `verified`).
#[derive(Clone, Copy)]
pub(crate) struct Provenance<'a> {
    pub(crate) baseline: Option<&'a str>,
    pub(crate) benchmark: Benchmark,
    pub(crate) dataset_name: &'a str,
    pub(crate) dataset_version: &'a str,
    pub(crate) dataset_sha256: &'a str,
}

impl<'a> Provenance<'a> {
    /// An upload of a run of `benchmark`'s dataset `name` `version`, whose content hash is
    /// `sha256`.
    pub(crate) fn upload(
        benchmark: Benchmark,
        name: &'a str,
        version: &'a str,
        sha256: &'a str,
    ) -> Self {
        Self {
            baseline: None,
            benchmark,
            dataset_name: name,
            dataset_version: version,
            dataset_sha256: sha256,
        }
    }
}

/// Scores `bundle` against the dataset it names (in `job`'s slot of the work pool) and
/// stores it; the new run's id.
pub(crate) async fn submit<S: Scorer>(
    store: &Store,
    catalog: &Catalog,
    bundle: RunBundle<S::Key>,
    job: &Job,
) -> Result<i64, SubmitError> {
    let wanted = &bundle.metadata.dataset;
    let loaded = S::find(catalog, &wanted.name, &wanted.version).ok_or_else(|| {
        SubmitError::UnknownDataset {
            name: wanted.name.clone(),
            version: wanted.version.clone(),
        }
    })?;
    loaded.check(&bundle)?;
    let (bundle, hash) = hashed_if_new(store, bundle, &loaded.provenance(), job).await?;
    let scored = Arc::clone(&loaded);
    let (bundle, report) = job
        .run(move |cancel| {
            let report = scored.score(&bundle, cancel)?;
            Ok::<_, SubmitError>((bundle, report))
        })
        .await??;
    save(&*loaded, store, None, bundle, Some(hash), &report).await
}

/// `bundle` with its content hash, unless it is too large to store or already stored as a
/// run of the dataset `of` names: both are refused before it costs a scoring.
async fn hashed_if_new<I>(
    store: &Store,
    bundle: RunBundle<I>,
    of: &Provenance<'_>,
    job: &Job,
) -> Result<(RunBundle<I>, String), SubmitError>
where
    I: InstanceId + Send + 'static,
{
    crate::store::run_files::check_raw(&bundle, STORE_LIMITS)?;
    // The hash reads every text of the bundle: on the blocking pool, once.
    let (bundle, hash) = job
        .run(move |_| {
            let hash = bundle.content_hash();
            (bundle, hash)
        })
        .await?;
    if let Some(id) = store
        .run_by_bundle(of.dataset_name, of.dataset_version, &hash)
        .await?
    {
        return Err(SubmitError::Duplicate { id });
    }
    Ok((bundle, hash))
}

/// Stores the run scored as `report`, a baseline's when `baseline` names one. `hash` is
/// the bundle's content hash when the caller has it already.
async fn save<S: Scorer>(
    loaded: &S,
    store: &Store,
    baseline: Option<&str>,
    bundle: RunBundle<S::Key>,
    hash: Option<String>,
    report: &S::Report,
) -> Result<i64, SubmitError> {
    let scores = loaded.scores(&bundle, report)?;
    let from = Provenance {
        baseline,
        ..loaded.provenance()
    };
    insert(store, &from, bundle, hash, &scores).await
}

/// Deflates `bundle`'s texts on the blocking pool (refused with [`SubmitError::Store`] over
/// [`STORE_LIMITS`], nothing written) and stores the run with `scores` in one transaction;
/// its id. `hash` is the bundle's content hash when the caller has it already.
async fn insert<I>(
    store: &Store,
    from: &Provenance<'_>,
    bundle: RunBundle<I>,
    hash: Option<String>,
    scores: &Scores,
) -> Result<i64, SubmitError>
where
    I: InstanceId + Send + 'static,
{
    let (bundle, hash, packed) = tokio::task::spawn_blocking(move || {
        let hash = hash.unwrap_or_else(|| bundle.content_hash());
        let packed = crate::store::run_files::pack(&bundle, STORE_LIMITS);
        (bundle, hash, packed)
    })
    .await
    .map_err(|e| SubmitError::Internal(e.into()))?;
    let packed = packed?;
    let run = NewRun {
        origin: if from.baseline.is_some() {
            "baseline"
        } else {
            "verified"
        },
        baseline: from.baseline,
        benchmark: from.benchmark.id(),
        dataset_name: from.dataset_name,
        dataset_version: from.dataset_version,
        dataset_sha256: from.dataset_sha256,
        bundle_sha256: &hash,
        metadata: &bundle.metadata,
    };
    match store.insert_run(&run, scores, &packed).await? {
        Inserted::Run(id) => Ok(id),
        Inserted::Duplicate(id) => Err(SubmitError::Duplicate { id }),
    }
}

/// Computes and stores the baselines of `loaded` unless they are stored for its current
/// content; baselines of older content of the same dataset are replaced. Baselines are
/// computed before the server takes requests: outside the work pool.
pub(crate) async fn ensure_baselines<S: Scorer>(
    store: &Store,
    loaded: &Arc<S>,
) -> anyhow::Result<()> {
    let of = loaded.provenance();
    let stale = store
        .delete_stale_baselines(of.dataset_name, of.dataset_version, of.dataset_sha256)
        .await?;
    if stale > 0 {
        tracing::info!(
            dataset = of.dataset_name,
            "the dataset changed; its baselines are recomputed"
        );
    }
    let today = store.today().await?;
    for &baseline in S::BASELINES {
        let name = S::baseline_name(baseline);
        let stored = store
            .baseline_run(name, of.dataset_name, of.dataset_version)
            .await?;
        if stored.is_some() {
            continue;
        }
        let scored = Arc::clone(loaded);
        let today = today.clone();
        let (bundle, report) = Job::unpooled()
            .run(move |cancel| {
                let bundle = scored.baseline(baseline, &today)?;
                let report = scored
                    .score_baseline(baseline, &bundle, cancel)
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                anyhow::Ok((bundle, report))
            })
            .await??;
        match save(&**loaded, store, Some(name), bundle, None, &report).await {
            Ok(id) => tracing::info!(
                dataset = of.dataset_name,
                baseline = name,
                id,
                "baseline stored"
            ),
            // Another server process on the same database stored it first.
            Err(SubmitError::Duplicate { .. }) => {}
            Err(e) => return Err(anyhow::anyhow!("{e}")),
        }
    }
    Ok(())
}
