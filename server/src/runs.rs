//! Runs: scoring a bundle with core against a loaded dataset, storing it with every turn in one transaction, and the baselines.
//!
//! The server never takes numbers from a submitter: a bundle carries files and
//! trajectories only, and everything stored here was computed by
//! [`wheelwright_core::reporeuse::scoring::score_run`] on this machine. The files and trajectories
//! are stored deflated by [`crate::storage`], within its per-run limits, which are
//! checked before anything is written.

use std::sync::Arc;

use sqlx::SqlitePool;
use wheelwright_core::budget::{Cancel, Cancelled};
use wheelwright_core::bundle::{BundleError, RunBundle};
use wheelwright_core::reporeuse::baseline::Baseline;
use wheelwright_core::reporeuse::metrics::pass_rate::TestResults;
use wheelwright_core::reporeuse::scoring::{
    ChainRun, Run, RunReport, ScoreError, TurnRun, score_run, score_run_with,
};

use crate::datasets::{Catalog, LoadedDataset};
use crate::error::AppError;
use crate::storage::{STORE_LIMITS, StoreError};
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
pub(crate) enum RunError {
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
    Store(#[from] StoreError),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<RunError> for AppError {
    fn from(error: RunError) -> Self {
        use axum::http::StatusCode;
        let status = match &error {
            RunError::Bundle(
                BundleError::TooLarge { .. }
                | BundleError::FileTooLarge { .. }
                | BundleError::TooManyEntries { .. },
            ) => StatusCode::PAYLOAD_TOO_LARGE,
            RunError::Store(_) => StatusCode::PAYLOAD_TOO_LARGE,
            RunError::Bundle(_) => StatusCode::UNPROCESSABLE_ENTITY,
            RunError::UnknownDataset { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            RunError::Duplicate { .. } => StatusCode::CONFLICT,
            RunError::Cancelled(_) => StatusCode::SERVICE_UNAVAILABLE,
            RunError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        // The cause itself, not its text, so a full disk is still told apart (507).
        if let RunError::Internal(error) = error {
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
    pool: &SqlitePool,
    catalog: &Catalog,
    bundle: RunBundle,
    job: &Job,
) -> Result<i64, RunError> {
    let wanted = &bundle.metadata.dataset;
    let loaded =
        catalog
            .get(&wanted.name, &wanted.version)
            .ok_or_else(|| RunError::UnknownDataset {
                name: wanted.name.clone(),
                version: wanted.version.clone(),
            })?;
    bundle.check_against(&loaded.dataset)?;
    // A run too large to store is refused before it costs a hash or a scoring.
    crate::storage::check_raw(&bundle, STORE_LIMITS)?;
    if let Some(id) = existing(pool, &loaded, &bundle.content_hash()).await? {
        return Err(RunError::Duplicate { id });
    }
    let (bundle, report) = score_blocking(Arc::clone(&loaded), bundle, job).await?;
    store(pool, &loaded, Source::Upload, bundle, &report).await
}

/// Scores on the blocking pool, in `job`'s slot and with its cancellation flag: indexing a
/// repository takes a while and may download it.
async fn score_blocking(
    loaded: Arc<LoadedDataset>,
    bundle: RunBundle,
    job: &Job,
) -> Result<(RunBundle, RunReport), RunError> {
    job.run(move |cancel| {
        let report = score(&loaded, &bundle, cancel)?;
        Ok((bundle, report))
    })
    .await?
}

/// Scores `bundle` (already checked against the dataset) with core, stopping with
/// [`RunError::Cancelled`] soon after `cancel` is raised.
pub(crate) fn score(
    loaded: &LoadedDataset,
    bundle: &RunBundle,
    cancel: &Cancel,
) -> Result<RunReport, RunError> {
    let files = loaded
        .repository()
        .map_err(|e| RunError::Internal(anyhow::anyhow!(e)))?;
    cancel.check()?;
    let dataset = loaded.dataset.to_score_dataset((*files).clone());
    let run = bundle.to_run(&loaded.dataset);
    score_run_with(&dataset, &run, &mut |_| {}, cancel).map_err(|e| match e {
        ScoreError::Cancelled(cancelled) => RunError::Cancelled(cancelled),
        ScoreError::Dataset(e) => RunError::Internal(anyhow::anyhow!(e)),
    })
}

async fn existing(
    pool: &SqlitePool,
    loaded: &LoadedDataset,
    bundle_sha256: &str,
) -> anyhow::Result<Option<i64>> {
    let manifest = &loaded.dataset.manifest;
    Ok(sqlx::query_scalar(
        "SELECT id FROM run WHERE dataset_name = ? AND dataset_version = ? AND bundle_sha256 = ?",
    )
    .bind(&manifest.name)
    .bind(&manifest.version)
    .bind(bundle_sha256)
    .fetch_optional(pool)
    .await?)
}

/// Stores the run, one row per scored turn and its files and trajectories in a single
/// transaction. The texts are deflated first, on the blocking pool, and the run refused
/// with [`RunError::Store`] if they are over [`STORE_LIMITS`]: nothing is written then.
pub(crate) async fn store(
    pool: &SqlitePool,
    loaded: &LoadedDataset,
    source: Source,
    bundle: RunBundle,
    report: &RunReport,
) -> Result<i64, RunError> {
    let scored: std::collections::BTreeSet<(&str, usize)> = report
        .turns
        .iter()
        .map(|row| (row.chain.as_str(), row.turn))
        .collect();
    if let Some((chain, turn)) = bundle
        .turns
        .keys()
        .find(|(chain, turn)| !scored.contains(&(chain.as_str(), *turn)))
    {
        return Err(RunError::Internal(anyhow::anyhow!(
            "the report has no row for turn {turn} of chain {chain:?} of the bundle"
        )));
    }
    let (bundle, hash, packed) = tokio::task::spawn_blocking(move || {
        let hash = bundle.content_hash();
        let packed = crate::storage::pack(&bundle, STORE_LIMITS);
        (bundle, hash, packed)
    })
    .await
    .map_err(|e| RunError::Internal(e.into()))?;
    let packed = packed?;
    let manifest = &loaded.dataset.manifest;
    let m = &bundle.metadata;
    let (origin, baseline) = match source {
        Source::Upload => ("verified", None),
        Source::Baseline(b) => ("baseline", Some(b.name())),
    };
    let mut tx = pool.begin().await.map_err(anyhow::Error::from)?;
    // Checked again inside the transaction: two identical uploads at once store one run.
    let duplicate: Option<i64> = sqlx::query_scalar(
        "SELECT id FROM run WHERE dataset_name = ? AND dataset_version = ? AND bundle_sha256 = ?",
    )
    .bind(&manifest.name)
    .bind(&manifest.version)
    .bind(&hash)
    .fetch_optional(&mut *tx)
    .await
    .map_err(anyhow::Error::from)?;
    if let Some(id) = duplicate {
        return Err(RunError::Duplicate { id });
    }
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO run (origin, baseline, benchmark, dataset_name, dataset_version,
             dataset_sha256, bundle_sha256, model, harness, memory, run_date, cost_usd,
             scaffold_version, notes, scorer_version, grammar_version, chains, turns,
             overall, series, diagnostics, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
             strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
         RETURNING id",
    )
    .bind(origin)
    .bind(baseline)
    .bind(manifest.benchmark.id())
    .bind(&manifest.name)
    .bind(&manifest.version)
    .bind(&loaded.content_sha256)
    .bind(&hash)
    .bind(&m.model)
    .bind(&m.harness)
    .bind(&m.memory)
    .bind(&m.date)
    .bind(m.cost_usd)
    .bind(&m.scaffold_version)
    .bind(&m.notes)
    .bind(&report.scorer_version)
    .bind(wheelwright_core::syntax::GRAMMAR_VERSION)
    .bind(i64::try_from(report.chains).map_err(anyhow::Error::from)?)
    .bind(i64::try_from(report.turns.len()).map_err(anyhow::Error::from)?)
    .bind(json(&report.overall)?)
    .bind(json(&report.series)?)
    .bind(json(&report.diagnostics)?)
    .fetch_one(&mut *tx)
    .await
    .map_err(anyhow::Error::from)?;
    for row in &report.turns {
        sqlx::query("INSERT INTO run_turn (run_id, chain, turn, score) VALUES (?, ?, ?, ?)")
            .bind(id)
            .bind(&row.chain)
            .bind(i64::try_from(row.turn).map_err(anyhow::Error::from)?)
            .bind(json(row)?)
            .execute(&mut *tx)
            .await
            .map_err(anyhow::Error::from)?;
    }
    crate::storage::insert(&mut tx, id, &packed).await?;
    tx.commit().await.map_err(anyhow::Error::from)?;
    Ok(id)
}

/// The text of a JSON column.
fn json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, RunError> {
    serde_json::to_string(value).map_err(|e| RunError::Internal(e.into()))
}

/// Computes and stores the baselines of `loaded` unless they are stored for its current
/// content; baselines of older content of the same dataset are replaced.
pub(crate) async fn ensure_baselines(
    pool: &SqlitePool,
    loaded: &Arc<LoadedDataset>,
) -> anyhow::Result<()> {
    let manifest = &loaded.dataset.manifest;
    let stale = sqlx::query(
        "DELETE FROM run WHERE origin = 'baseline' AND dataset_name = ? AND dataset_version = ?
             AND dataset_sha256 <> ?",
    )
    .bind(&manifest.name)
    .bind(&manifest.version)
    .bind(&loaded.content_sha256)
    .execute(pool)
    .await?;
    if stale.rows_affected() > 0 {
        tracing::info!(
            dataset = manifest.name,
            "the dataset changed; its baselines are recomputed"
        );
    }
    let today: String = sqlx::query_scalar("SELECT date('now')")
        .fetch_one(pool)
        .await?;
    for baseline in Baseline::ALL {
        let stored: Option<i64> = sqlx::query_scalar(
            "SELECT id FROM run WHERE origin = 'baseline' AND baseline = ?
                 AND dataset_name = ? AND dataset_version = ?",
        )
        .bind(baseline.name())
        .bind(&manifest.name)
        .bind(&manifest.version)
        .fetch_optional(pool)
        .await?;
        if stored.is_some() {
            continue;
        }
        let mut bundle = {
            let loaded = Arc::clone(loaded);
            tokio::task::spawn_blocking(move || -> anyhow::Result<RunBundle> {
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
        match store(pool, loaded, Source::Baseline(baseline), bundle, &report).await {
            Ok(id) => tracing::info!(
                dataset = manifest.name,
                baseline = baseline.name(),
                id,
                "baseline stored"
            ),
            // Another server process on the same database stored it first.
            Err(RunError::Duplicate { .. }) => {}
            Err(e) => return Err(anyhow::anyhow!("{e}")),
        }
    }
    Ok(())
}

/// The stored run `run` scored again, now with the hidden-test results `tests` by
/// (chain, turn): the same files and trajectories, so only pass, resolve and their
/// aggregates change.
pub(crate) async fn rescored(
    pool: &SqlitePool,
    loaded: Arc<LoadedDataset>,
    run: i64,
    tests: std::collections::BTreeMap<(String, usize), TestResults>,
) -> anyhow::Result<RunReport> {
    let mut stored = crate::storage::run_texts(pool, run, true).await?;
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
                    let crate::storage::TurnTexts {
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
        let files = loaded.repository()?;
        let dataset = loaded.dataset.to_score_dataset((*files).clone());
        Ok(score_run(&dataset, &Run { chains }, &mut |_| {})?)
    })
    .await?
}

/// Replaces the stored scores of run `run` (its row, series, diagnostics and every turn's
/// row) with `report`, inside `tx`.
pub(crate) async fn write_rescore(
    tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
    run: i64,
    report: &RunReport,
) -> anyhow::Result<()> {
    sqlx::query("UPDATE run SET overall = ?, series = ?, diagnostics = ? WHERE id = ?")
        .bind(serde_json::to_string(&report.overall)?)
        .bind(serde_json::to_string(&report.series)?)
        .bind(serde_json::to_string(&report.diagnostics)?)
        .bind(run)
        .execute(&mut **tx)
        .await?;
    for row in &report.turns {
        sqlx::query("UPDATE run_turn SET score = ? WHERE run_id = ? AND chain = ? AND turn = ?")
            .bind(serde_json::to_string(row)?)
            .bind(run)
            .bind(&row.chain)
            .bind(i64::try_from(row.turn)?)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}
