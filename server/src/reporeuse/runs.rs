//! RepoReuse runs: a bundle scored with core against a loaded dataset, stored with every turn in one transaction, scored again with hidden-test results, and the baselines.
//!
//! The server never takes numbers from a submitter: a bundle carries files and
//! trajectories only, and everything stored here was computed by
//! [`wheelwright_core::reporeuse::scoring::score_run`] on this machine. The files and trajectories
//! are stored deflated by [`crate::store::run_files`], within its per-run limits, which are
//! checked before anything is written.

use std::sync::Arc;

use wheelwright_core::budget::{Cancel, Cancelled};
use wheelwright_core::bundle::{BundleError, InstanceId, RunBundle};
use wheelwright_core::hidden_tests::TestResults;
use wheelwright_core::reporeuse::baseline::Baseline;
use wheelwright_core::reporeuse::bundle::{RepoReuseBundle, TurnId};
use wheelwright_core::reporeuse::scoring::{
    ChainRun, Run, RunDiagnostic, RunReport, ScoreError, TurnRun,
};

use crate::dataset::catalog::{Catalog, LoadedDataset};
use crate::error::AppError;
use crate::store::run_files::{OverLimits, STORE_LIMITS};
use crate::store::{Inserted, NewRun, Scores, Store};
use crate::work::Job;

/// Where a stored run comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// Uploaded and scored here (origin `verified`).
    Upload,
    /// Computed by the server from the dataset (origin `baseline`).
    Baseline(Baseline),
}

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
                | BundleError::TooManyEntries { .. },
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

/// Scores `bundle` against the dataset it names (in `job`'s slot of the work pool) and
/// stores it; the new run's id.
pub(crate) async fn submit(
    store: &Store,
    catalog: &Catalog,
    bundle: RepoReuseBundle,
    job: &Job,
) -> Result<i64, SubmitError> {
    let wanted = &bundle.metadata.dataset;
    let loaded =
        catalog
            .get(&wanted.name, &wanted.version)
            .ok_or_else(|| SubmitError::UnknownDataset {
                name: wanted.name.clone(),
                version: wanted.version.clone(),
            })?;
    bundle.check_against(&loaded.dataset)?;
    let manifest = &loaded.dataset.manifest;
    let (bundle, hash) =
        hashed_if_new(store, bundle, &manifest.name, &manifest.version, job).await?;
    let (bundle, report) = score_blocking(Arc::clone(&loaded), bundle, job).await?;
    save(store, &loaded, Source::Upload, bundle, Some(hash), &report).await
}

/// `bundle` with its content hash, unless it is too large to store or already stored as a
/// run of dataset `name` `version`: both are refused before it costs a scoring.
pub(crate) async fn hashed_if_new<I>(
    store: &Store,
    bundle: RunBundle<I>,
    name: &str,
    version: &str,
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
    if let Some(id) = store.run_by_bundle(name, version, &hash).await? {
        return Err(SubmitError::Duplicate { id });
    }
    Ok((bundle, hash))
}

/// Scores on the blocking pool, in `job`'s slot and with its cancellation flag: indexing a
/// repository takes a while and may download it.
async fn score_blocking(
    loaded: Arc<LoadedDataset>,
    bundle: RepoReuseBundle,
    job: &Job,
) -> Result<(RepoReuseBundle, RunReport), SubmitError> {
    job.run(move |cancel| {
        let report = score(&loaded, &bundle, cancel)?;
        Ok((bundle, report))
    })
    .await?
}

/// Scores `bundle` (already checked against the dataset) with core, stopping with
/// [`SubmitError::Cancelled`] soon after `cancel` is raised.
pub(crate) fn score(
    loaded: &LoadedDataset,
    bundle: &RepoReuseBundle,
    cancel: &Cancel,
) -> Result<RunReport, SubmitError> {
    let prepared = loaded.prepared().map_err(SubmitError::Internal)?;
    cancel.check()?;
    let run = bundle.to_run(&loaded.dataset);
    prepared
        .score(&run, &mut |_| {}, cancel)
        .map_err(|e| match e {
            ScoreError::Cancelled(cancelled) => SubmitError::Cancelled(cancelled),
            ScoreError::Dataset(e) => SubmitError::Internal(anyhow::anyhow!(e)),
            // Only `score_chains` reads a bundle as it scores; this run was read whole.
            ScoreError::Bundle(e) => SubmitError::Internal(anyhow::anyhow!(e)),
        })
}

/// Stores the run, one row per scored turn and its files and trajectories in a single
/// transaction. The texts are deflated first, on the blocking pool, and the run refused
/// with [`SubmitError::Store`] if they are over [`STORE_LIMITS`]: nothing is written then.
/// `hash` is the bundle's content hash when the caller has it already.
pub(crate) async fn save(
    store: &Store,
    loaded: &LoadedDataset,
    source: Source,
    bundle: RepoReuseBundle,
    hash: Option<String>,
    report: &RunReport,
) -> Result<i64, SubmitError> {
    let scored: std::collections::BTreeSet<(&str, usize)> = report
        .turns
        .iter()
        .map(|row| (row.chain.as_str(), row.turn))
        .collect();
    if let Some(TurnId { chain, turn }) = bundle
        .predictions
        .keys()
        .find(|id| !scored.contains(&(id.chain.as_str(), id.turn)))
    {
        return Err(SubmitError::Internal(anyhow::anyhow!(
            "the report has no row for turn {turn} of chain {chain:?} of the bundle"
        )));
    }
    let manifest = &loaded.dataset.manifest;
    let from = Provenance {
        baseline: match source {
            Source::Upload => None,
            Source::Baseline(b) => Some(b.name()),
        },
        benchmark: manifest.benchmark.id(),
        dataset_name: &manifest.name,
        dataset_version: &manifest.version,
        dataset_sha256: &loaded.content_sha256,
    };
    insert(store, &from, bundle, hash, &Scores::of_reporeuse(report)?).await
}

/// What a run to store is of, and whether it is a baseline (`None`: an upload, origin
/// `verified`).
pub(crate) struct Provenance<'a> {
    pub(crate) baseline: Option<&'a str>,
    pub(crate) benchmark: &'a str,
    pub(crate) dataset_name: &'a str,
    pub(crate) dataset_version: &'a str,
    pub(crate) dataset_sha256: &'a str,
}

/// Deflates `bundle`'s texts on the blocking pool (refused with [`SubmitError::Store`] over
/// [`STORE_LIMITS`], nothing written) and stores the run with `scores` in one transaction;
/// its id. `hash` is the bundle's content hash when the caller has it already.
pub(crate) async fn insert<I>(
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
        benchmark: from.benchmark,
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
/// content; baselines of older content of the same dataset are replaced.
pub(crate) async fn ensure_baselines(
    store: &Store,
    loaded: &Arc<LoadedDataset>,
) -> anyhow::Result<()> {
    let manifest = &loaded.dataset.manifest;
    let stale = store
        .delete_stale_baselines(&manifest.name, &manifest.version, &loaded.content_sha256)
        .await?;
    if stale > 0 {
        tracing::info!(
            dataset = manifest.name,
            "the dataset changed; its baselines are recomputed"
        );
    }
    let today = store.today().await?;
    for baseline in Baseline::ALL {
        let stored = store
            .baseline_run(baseline.name(), &manifest.name, &manifest.version)
            .await?;
        if stored.is_some() {
            continue;
        }
        let mut bundle = {
            let loaded = Arc::clone(loaded);
            tokio::task::spawn_blocking(move || -> anyhow::Result<RepoReuseBundle> {
                let files = loaded.repository()?;
                Ok(baseline.bundle(&loaded.dataset, &files))
            })
            .await??
        };
        bundle.metadata.date.clone_from(&today);
        // Baselines are computed before the server takes requests: outside the work pool.
        let (bundle, report) = score_blocking(Arc::clone(loaded), bundle, &Job::unpooled())
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        match save(
            store,
            loaded,
            Source::Baseline(baseline),
            bundle,
            None,
            &report,
        )
        .await
        {
            Ok(id) => tracing::info!(
                dataset = manifest.name,
                baseline = baseline.name(),
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

/// The stored run `run` scored again, now with the hidden-test results `tests` by
/// (chain, turn): the same files and trajectories, so only pass, resolve and their
/// aggregates change.
///
/// The diagnostics of the upload are kept: the stored texts are the run as scored, so a
/// chain the bundle left out or a turn it stopped before now looks present and empty,
/// and the re-score alone would no longer say what the bundle lacked.
pub(crate) async fn rescored(
    store: &Store,
    loaded: Arc<LoadedDataset>,
    run: i64,
    tests: std::collections::BTreeMap<(String, usize), TestResults>,
) -> anyhow::Result<RunReport> {
    let mut stored = crate::store::run_files::run_texts(store, run, true).await?;
    let (_, uploaded, _) = store.run_series(run).await?;
    let uploaded: Vec<RunDiagnostic> = serde_json::from_str(&uploaded)?;
    tokio::task::spawn_blocking(move || {
        let mut chains = std::collections::BTreeMap::new();
        for chain in &loaded.dataset.chains {
            let id = &chain.manifest.id;
            let turns = chain
                .turns
                .iter()
                .enumerate()
                .map(|(i, turn)| {
                    let key = (id.clone(), i + 1);
                    let crate::store::run_files::TurnTexts {
                        mut files,
                        trajectory,
                    } = stored.remove(&key).unwrap_or_default();
                    TurnRun {
                        submission: files.remove(&turn.manifest.module_path),
                        other_files: files,
                        trajectory: trajectory.map(serde_json::Value::String),
                        tests: tests.get(&key).copied(),
                    }
                })
                .collect();
            chains.insert(id.clone(), ChainRun { turns });
        }
        let mut report =
            loaded
                .prepared()?
                .score(&Run { chains }, &mut |_| {}, &Cancel::never())?;
        report.diagnostics = kept_and_new(uploaded, report.diagnostics);
        Ok(report)
    })
    .await?
}

/// The upload's diagnostics, then any of the re-score's that they do not already say.
fn kept_and_new(mut kept: Vec<RunDiagnostic>, new: Vec<RunDiagnostic>) -> Vec<RunDiagnostic> {
    for diagnostic in new {
        if !kept.contains(&diagnostic) {
            kept.push(diagnostic);
        }
    }
    kept
}
