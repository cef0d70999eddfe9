//! The hidden-test job queue: jobs persisted in SQLite, run by a bounded pool of workers, resumed after a restart, progress broadcast to listeners.
//!
//! A job runs the hidden tests of every turn of one stored run. Its state lives in the
//! database, never only in memory:
//! - `POST /api/v1/runs/{id}/tests` inserts it `queued` (one job per run);
//! - a worker claims the oldest queued job with a single `UPDATE ... RETURNING`, so two
//!   workers never take the same job;
//! - each finished turn is committed with its per-test results in one transaction, keyed by
//!   (job, chain, turn): after a crash the job is re-queued at start and resumes after the
//!   last committed turn, and no turn can have two results;
//! - the last turn's commit also re-scores the run with the test results and marks the job
//!   `done`, in one transaction.
//!
//! Progress (turn i of n, tests passed so far) goes to a broadcast channel that the
//! server-sent-events route forwards to browsers.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::SqlitePool;
use tokio::sync::{Notify, broadcast};
use wheelwright_core::hidden_tests::Verdict;
use wheelwright_core::metrics::pass_rate::TestResults;
use wheelwright_sandbox::Sandbox;

use crate::datasets::{Catalog, LoadedDataset};
use crate::hidden_tests::{Environments, TurnTest, run_turn};

pub(crate) use wheelwright_core::hidden_tests::JobProgress as Progress;

/// Why a job was not queued.
#[derive(Debug, thiserror::Error)]
pub(crate) enum QueueError {
    #[error("no run {0}; GET /api/v1/runs lists them")]
    UnknownRun(i64),
    #[error("run {run} already has hidden-test job {job}; GET /api/v1/jobs/{job} shows it")]
    Exists { run: i64, job: i64 },
    #[error(
        "this server has no sandbox to run hidden tests in ({0}); start it as root on Linux with bubblewrap installed"
    )]
    NoSandbox(String),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

/// The queue and its workers.
pub(crate) struct Queue {
    pool: SqlitePool,
    catalog: Arc<Catalog>,
    sandbox: Result<Arc<dyn Sandbox>, String>,
    environments: Arc<Environments>,
    events: broadcast::Sender<Progress>,
    wake: Notify,
    timeout: Duration,
}

/// How the queue runs jobs.
pub(crate) struct QueueConfig {
    /// The sandbox, or why there is none (jobs then cannot be queued).
    pub(crate) sandbox: Result<Arc<dyn Sandbox>, String>,
    pub(crate) environments: Arc<Environments>,
    /// Jobs run at once.
    pub(crate) workers: usize,
    /// Time limit of one turn's test run.
    pub(crate) turn_timeout: Duration,
}

/// Default workers: one core is left for the server itself.
pub(crate) fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get().saturating_sub(1))
        .max(1)
}

impl Queue {
    /// Re-queues jobs a previous process left running and starts the workers.
    pub(crate) async fn start(
        pool: SqlitePool,
        catalog: Arc<Catalog>,
        config: QueueConfig,
    ) -> anyhow::Result<Arc<Self>> {
        let requeued = sqlx::query("UPDATE test_job SET state = 'queued' WHERE state = 'running'")
            .execute(&pool)
            .await?
            .rows_affected();
        if requeued > 0 {
            tracing::info!(
                requeued,
                "hidden-test jobs interrupted by a restart are queued again"
            );
        }
        let (events, _) = broadcast::channel(1024);
        let queue = Arc::new(Self {
            pool,
            catalog,
            sandbox: config.sandbox,
            environments: config.environments,
            events,
            wake: Notify::new(),
            timeout: config.turn_timeout,
        });
        if queue.sandbox.is_ok() {
            for worker in 0..config.workers.max(1) {
                let queue = Arc::clone(&queue);
                tokio::spawn(async move { queue.work(worker).await });
            }
        }
        Ok(queue)
    }

    /// Queues the hidden tests of `run`; the job's id.
    pub(crate) async fn enqueue(&self, run: i64) -> Result<i64, QueueError> {
        if let Err(why) = &self.sandbox {
            return Err(QueueError::NoSandbox(why.clone()));
        }
        let turns: Option<i64> = sqlx::query_scalar("SELECT turns FROM run WHERE id = ?")
            .bind(run)
            .fetch_optional(&self.pool)
            .await
            .map_err(anyhow::Error::from)?;
        let turns = turns.ok_or(QueueError::UnknownRun(run))?;
        let inserted: Option<i64> = sqlx::query_scalar(
            "INSERT INTO test_job (run_id, state, turns_total, created_at)
             VALUES (?, 'queued', ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
             ON CONFLICT (run_id) DO NOTHING RETURNING id",
        )
        .bind(run)
        .bind(turns)
        .fetch_optional(&self.pool)
        .await
        .map_err(anyhow::Error::from)?;
        let Some(job) = inserted else {
            let job: i64 = sqlx::query_scalar("SELECT id FROM test_job WHERE run_id = ?")
                .bind(run)
                .fetch_one(&self.pool)
                .await
                .map_err(anyhow::Error::from)?;
            return Err(QueueError::Exists { run, job });
        };
        self.wake.notify_one();
        if let Ok(Some(progress)) = self.progress(job).await {
            let _ = self.events.send(progress);
        }
        Ok(job)
    }

    /// Listens to every job's progress.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Progress> {
        self.events.subscribe()
    }

    /// A job's progress as stored; `None` for an unknown job.
    pub(crate) async fn progress(&self, job: i64) -> anyhow::Result<Option<Progress>> {
        let row: Option<(i64, String, i64, Option<String>)> =
            sqlx::query_as("SELECT run_id, state, turns_total, error FROM test_job WHERE id = ?")
                .bind(job)
                .fetch_optional(&self.pool)
                .await?;
        let Some((run, state, turns_total, error)) = row else {
            return Ok(None);
        };
        let (turns_done, passed, total): (i64, Option<i64>, Option<i64>) = sqlx::query_as(
            "SELECT count(*), sum(passed), sum(total) FROM test_turn WHERE job_id = ?",
        )
        .bind(job)
        .fetch_one(&self.pool)
        .await?;
        let n = |v: i64| u32::try_from(v).unwrap_or(0);
        Ok(Some(Progress {
            job,
            run,
            state,
            turns_done: n(turns_done),
            turns_total: n(turns_total),
            tests_passed: n(passed.unwrap_or(0)),
            tests_total: n(total.unwrap_or(0)),
            message: error,
        }))
    }

    async fn claim(&self) -> anyhow::Result<Option<(i64, i64)>> {
        Ok(sqlx::query_as(
            "UPDATE test_job SET state = 'running', attempts = attempts + 1,
                 started_at = coalesce(started_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
             WHERE id = (SELECT id FROM test_job WHERE state = 'queued' ORDER BY id LIMIT 1)
             RETURNING id, run_id",
        )
        .fetch_optional(&self.pool)
        .await?)
    }

    async fn work(self: Arc<Self>, worker: usize) {
        loop {
            match self.claim().await {
                Ok(Some((job, run))) => {
                    tracing::info!(worker, job, run, "hidden-test job started");
                    if let Err(error) = self.run_job(job, run).await {
                        tracing::error!(job, "hidden-test job failed: {error:#}");
                        let _ = sqlx::query(
                            "UPDATE test_job SET state = 'failed', error = ?,
                                 finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
                             WHERE id = ?",
                        )
                        .bind(format!("{error:#}"))
                        .bind(job)
                        .execute(&self.pool)
                        .await;
                        self.publish(job, None).await;
                    }
                }
                Ok(None) => {
                    // Woken by enqueue; the timeout is a backstop for a missed wake-up.
                    let _ =
                        tokio::time::timeout(Duration::from_secs(5), self.wake.notified()).await;
                }
                Err(error) => {
                    tracing::error!("cannot claim a hidden-test job: {error:#}");
                    tokio::time::sleep(Duration::from_secs(5)).await;
                }
            }
        }
    }

    async fn publish(&self, job: i64, message: Option<String>) {
        if let Ok(Some(mut progress)) = self.progress(job).await {
            if message.is_some() {
                progress.message = message;
            }
            let _ = self.events.send(progress);
        }
    }

    async fn run_job(&self, job: i64, run: i64) -> anyhow::Result<()> {
        let sandbox = self
            .sandbox
            .as_ref()
            .map_err(|why| anyhow::anyhow!("no sandbox: {why}"))?
            .clone();
        let (name, version): (String, String) =
            sqlx::query_as("SELECT dataset_name, dataset_version FROM run WHERE id = ?")
                .bind(run)
                .fetch_one(&self.pool)
                .await?;
        let loaded = self.catalog.get(&name, &version).ok_or_else(|| {
            anyhow::anyhow!("dataset {name} {version} of run {run} is not served any more")
        })?;
        self.publish(job, Some("preparing the Python environment".to_owned()))
            .await;
        let env_dir = {
            let loaded = Arc::clone(&loaded);
            let environments = Arc::clone(&self.environments);
            tokio::task::spawn_blocking(move || {
                environments.for_dataset(&loaded.dataset, &mut |step| {
                    tracing::info!(?step, "test environment");
                })
            })
            .await??
        };
        let files = stored_files(&self.pool, run).await?;
        let done: Vec<(String, i64)> =
            sqlx::query_as("SELECT chain, turn FROM test_turn WHERE job_id = ?")
                .bind(job)
                .fetch_all(&self.pool)
                .await?;
        for (c, chain) in loaded.dataset.chains.iter().enumerate() {
            let id = &chain.manifest.id;
            let chain_files: Vec<BTreeMap<String, String>> = (1..=chain.turns.len())
                .map(|t| files.get(&(id.clone(), t)).cloned().unwrap_or_default())
                .collect();
            for t in 1..=chain.turns.len() {
                if done
                    .iter()
                    .any(|(dc, dt)| dc == id && usize::try_from(*dt) == Ok(t))
                {
                    continue;
                }
                self.publish(job, Some(format!("testing {id} turn {t}")))
                    .await;
                let started = Instant::now();
                let verdict = {
                    let sandbox = Arc::clone(&sandbox);
                    let loaded = Arc::clone(&loaded);
                    let env_dir = env_dir.clone();
                    let chain_files = chain_files.clone();
                    let timeout = self.timeout;
                    tokio::task::spawn_blocking(move || {
                        run_turn(
                            sandbox.as_ref(),
                            &env_dir,
                            &TurnTest {
                                dataset: &loaded.dataset,
                                chain: c,
                                turn: t,
                                files: &chain_files,
                            },
                            timeout,
                        )
                    })
                    .await??
                };
                let report = if self.is_last_turn(job, &loaded).await? {
                    let mut tests = self.test_results(job).await?;
                    tests.insert((id.clone(), t), verdict.results());
                    Some(crate::runs::rescored(&self.pool, Arc::clone(&loaded), run, tests).await?)
                } else {
                    None
                };
                self.commit_turn(
                    job,
                    run,
                    id,
                    t,
                    &verdict,
                    started.elapsed(),
                    report.as_ref(),
                )
                .await?;
                self.publish(job, None).await;
            }
        }
        // Every turn was committed before this attempt, but the job was not finalised (the
        // last turn's commit finalises, so only an interrupted finalisation lands here).
        let state: String = sqlx::query_scalar("SELECT state FROM test_job WHERE id = ?")
            .bind(job)
            .fetch_one(&self.pool)
            .await?;
        if state != "done" {
            let tests = self.test_results(job).await?;
            let report = crate::runs::rescored(&self.pool, Arc::clone(&loaded), run, tests).await?;
            let mut tx = self.pool.begin().await?;
            finalise(&mut tx, job, run, &report).await?;
            tx.commit().await?;
            self.publish(job, None).await;
        }
        tracing::info!(job, run, "hidden-test job done");
        Ok(())
    }

    async fn is_last_turn(&self, job: i64, loaded: &LoadedDataset) -> anyhow::Result<bool> {
        let done: i64 = sqlx::query_scalar("SELECT count(*) FROM test_turn WHERE job_id = ?")
            .bind(job)
            .fetch_one(&self.pool)
            .await?;
        Ok(usize::try_from(done + 1)? == loaded.dataset.turn_count())
    }

    /// The test results of the turns committed so far, by (chain, turn).
    async fn test_results(
        &self,
        job: i64,
    ) -> anyhow::Result<BTreeMap<(String, usize), TestResults>> {
        let rows: Vec<(String, i64, i64, i64)> =
            sqlx::query_as("SELECT chain, turn, passed, total FROM test_turn WHERE job_id = ?")
                .bind(job)
                .fetch_all(&self.pool)
                .await?;
        let mut tests = BTreeMap::new();
        for (chain, turn, passed, total) in rows {
            tests.insert(
                (chain, usize::try_from(turn)?),
                TestResults {
                    passed: u32::try_from(passed)?,
                    total: u32::try_from(total)?,
                },
            );
        }
        Ok(tests)
    }

    /// Commits one turn's results; with `report` (the last turn), also the re-scored run
    /// and the job's end, in the same transaction.
    #[allow(clippy::too_many_arguments)]
    async fn commit_turn(
        &self,
        job: i64,
        run: i64,
        chain: &str,
        turn: usize,
        verdict: &Verdict,
        elapsed: Duration,
        report: Option<&wheelwright_core::score::RunReport>,
    ) -> anyhow::Result<()> {
        let turn = i64::try_from(turn)?;
        let mut tx = self.pool.begin().await?;
        let passed = verdict.results().passed;
        sqlx::query(
            "INSERT INTO test_turn (job_id, chain, turn, passed, total, tampered, duration_s)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(job)
        .bind(chain)
        .bind(turn)
        .bind(i64::from(passed))
        .bind(i64::from(verdict.total))
        .bind(&verdict.tampered)
        .bind(elapsed.as_secs_f64())
        .execute(&mut *tx)
        .await?;
        for test in &verdict.tests {
            sqlx::query(
                "INSERT INTO test_result (job_id, chain, turn, module, name, class, outcome,
                     duration_s, excerpt)
                 VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?)",
            )
            .bind(job)
            .bind(chain)
            .bind(turn)
            .bind(&test.module)
            .bind(&test.name)
            .bind(
                serde_json::to_value(test.outcome)?
                    .as_str()
                    .unwrap_or("failed"),
            )
            .bind(test.duration_s)
            .bind(&test.excerpt)
            .execute(&mut *tx)
            .await?;
        }
        if let Some(report) = report {
            finalise(&mut tx, job, run, report).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

/// Files of a stored run by (chain, turn), every stored turn present (an empty map when
/// the agent left nothing), decompressed from [`crate::storage`].
async fn stored_files(
    pool: &SqlitePool,
    run: i64,
) -> anyhow::Result<BTreeMap<(String, usize), BTreeMap<String, String>>> {
    Ok(crate::storage::run_texts(pool, run, false)
        .await?
        .into_iter()
        .map(|(key, turn)| (key, turn.files))
        .collect())
}

/// Stores the run re-scored with its test results and marks the job done, inside `tx`.
async fn finalise(
    tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
    job: i64,
    run: i64,
    report: &wheelwright_core::score::RunReport,
) -> anyhow::Result<()> {
    crate::runs::write_rescore(tx, run, report).await?;
    sqlx::query(
        "UPDATE test_job SET state = 'done', error = NULL,
             finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
         WHERE id = ?",
    )
    .bind(job)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
