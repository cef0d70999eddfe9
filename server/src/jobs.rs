//! The hidden-test job queue: jobs persisted in SQLite, served turn by turn, submitters in turn and each one's runs in turn, within a time budget per run, retried, cancellable, resumed after a restart.
//!
//! A job runs the hidden tests of every turn of one stored run. Its state lives in the
//! database, never only in memory:
//! - `POST /api/v1/runs/{id}/tests` inserts it `queued` (one job per run), with a budget of
//!   sandbox seconds (the run's turns times `--turn-budget`); a job that `failed` or was
//!   `cancelled` can be queued again and resumes where it stopped;
//! - a worker claims ONE TURN at a time with a single `UPDATE ... RETURNING` that also marks
//!   the job busy, so two workers never take the same job: of the submitter (the client
//!   that queued it) holding the fewest workers and then served least recently, that
//!   submitter's job served least recently. So a run of 3,000 slow turns cannot hold the
//!   queue, and neither can one client's many runs: every other submitter gets a turn in
//!   between; a client has at most `--max-jobs-per-client` jobs waiting (429 beyond);
//! - each finished turn is committed with its per-test results and the time it spent in
//!   one transaction, keyed by (job, chain, turn): after a crash the job is re-queued at
//!   start and resumes after the last committed turn, and no turn can have two results;
//! - a turn runs with at most the budget left as its time limit; once the budget is spent,
//!   the turns left fail as timed out without running;
//! - a failed attempt (a full disk, PyPI unreachable for the environment) is retried after
//!   [`crate::TestConfig::retry_delay`], four times longer each time; the third failure in a
//!   row fails the job, which can then be queued again;
//! - `POST /api/v1/jobs/{id}/cancel` (maintainers, with the bearer token) cancels a job and
//!   stops its running sandbox at once;
//! - the last turn's commit also re-scores the run with the test results and marks the job
//!   `done`, in one transaction.
//!
//! Progress (turn i of n, tests passed so far) goes to a broadcast channel that the
//! server-sent-events route forwards to browsers.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, broadcast};
use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::hidden_tests::{ExpectedTest, TestOutcome, Verdict};
use wheelwright_sandbox::{Sandbox, StopFlag};

use crate::clients::ClientKey;
use crate::dataset::catalog::{Catalog, LoadedDataset};
use crate::dataset::recube::LoadedRecube;
use crate::hidden_tests::{Environments, TestRunError};
use crate::recube::hidden_tests::{InstanceTest, run_instance};
use crate::recube::runs as recube_runs;
use crate::reporeuse::hidden_tests::{TurnTest, expected_tests, run_turn};
use crate::store::{Claim, Queued, Rescore, Scores, Store};

pub(crate) use wheelwright_core::hidden_tests::JobProgress as Progress;

/// Default average seconds a run's tests may take per turn.
pub(crate) const DEFAULT_TURN_BUDGET: Duration = Duration::from_secs(30);

/// Default wait before the first retry of a failed attempt.
pub(crate) const DEFAULT_RETRY_DELAY: Duration = Duration::from_secs(5);

/// Default jobs one client may have queued or running at once.
pub(crate) const DEFAULT_JOBS_PER_CLIENT: usize = 8;

/// How long a client over its job limit is told to wait: about what a short run takes.
const JOBS_RETRY_AFTER: Duration = Duration::from_secs(60);

/// Who queues a run's hidden tests: the queue serves submitters in turn and limits how
/// many jobs each has waiting.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Submitter {
    /// A client of the API, by address (`None`: unknown, as in tests through the router
    /// alone).
    Client(Option<IpAddr>),
    /// The server itself, testing the baselines at start: no limit.
    Server,
}

impl Submitter {
    /// What the queue stores: the client (an IPv6 client by its /64), or `server`.
    fn key(self) -> String {
        match self {
            Self::Client(Some(ip)) => ClientKey::of(ip).to_string(),
            Self::Client(None) => String::new(),
            Self::Server => "server".to_owned(),
        }
    }
}

/// Failed attempts in a row after which a job fails.
const MAX_ATTEMPTS: i64 = 3;

/// The longest wait between two tries of a write that lets a held job go.
const MAX_STORE_WAIT: Duration = Duration::from_secs(5);

/// The shortest time limit a turn is given while budget is left.
const MIN_TURN_TIMEOUT: Duration = Duration::from_secs(1);

/// Why a job was not queued or cancelled.
#[derive(Debug, thiserror::Error)]
pub(crate) enum QueueError {
    #[error("no run {0}; GET /api/v1/runs lists them")]
    UnknownRun(i64),
    #[error("no job {0}; jobs are created by POST /api/v1/runs/{{id}}/tests")]
    UnknownJob(i64),
    #[error("run {run} already has hidden-test job {job}; GET /api/v1/jobs/{job} shows it")]
    Exists { run: i64, job: i64 },
    #[error("job {job} is {state}; only queued or running jobs can be cancelled")]
    NotCancellable { job: i64, state: String },
    #[error(
        "cancelling a job needs the server's maintainer token: send it as `Authorization: Bearer <token>`"
    )]
    Unauthorized,
    /// Why there is none is in the log (written at start): it may name host paths.
    #[error(
        "this server has no sandbox to run hidden tests in (its log says why); its operator has to start it as root on Linux with bubblewrap or podman installed, without --backend none"
    )]
    NoSandbox,
    #[error(
        "this client has {0} hidden-test jobs queued or running, its limit; queue more once one of them is done (GET /api/v1/jobs/{{id}} shows their progress)"
    )]
    TooMany(i64),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl QueueError {
    /// How long a client refused with [`QueueError::TooMany`] should wait.
    pub(crate) const RETRY_AFTER: Duration = JOBS_RETRY_AFTER;
}

/// The queue and its workers.
pub(crate) struct Queue {
    store: Store,
    catalog: Arc<Catalog>,
    sandbox: Result<Arc<dyn Sandbox>, String>,
    environments: Arc<Environments>,
    events: broadcast::Sender<Progress>,
    wake: Notify,
    timeout: Duration,
    turn_budget: Duration,
    maintainer_token: Option<String>,
    retry_delay: Duration,
    jobs_per_client: i64,
    /// The stop flag of each job whose turn runs now, so cancelling stops the sandbox.
    running: Mutex<HashMap<i64, StopFlag>>,
}

/// How the queue runs jobs.
pub(crate) struct QueueConfig {
    /// The sandbox, or why there is none (jobs then cannot be queued).
    pub(crate) sandbox: Result<Arc<dyn Sandbox>, String>,
    pub(crate) environments: Arc<Environments>,
    /// Turns run at once (each takes one sandbox slot).
    pub(crate) workers: usize,
    /// Time limit of one turn's test run.
    pub(crate) turn_timeout: Duration,
    /// Average seconds per turn a run may spend.
    pub(crate) turn_budget: Duration,
    pub(crate) maintainer_token: Option<String>,
    pub(crate) retry_delay: Duration,
    /// Jobs one client may have queued or running at once.
    pub(crate) jobs_per_client: usize,
}

/// Default workers: one core is left for the server itself.
pub(crate) fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get().saturating_sub(1))
        .max(1)
}

/// What serving a claim did.
enum Served {
    /// A turn was run (or failed for lack of budget) and committed.
    Turn,
    /// Every turn was committed; the job is done.
    Finished,
    /// The job was cancelled meanwhile; nothing was committed.
    Cancelled,
}

impl Queue {
    /// Re-queues jobs a previous process left running and starts the workers.
    pub(crate) async fn start(
        store: Store,
        catalog: Arc<Catalog>,
        config: QueueConfig,
    ) -> anyhow::Result<Arc<Self>> {
        let requeued = store.recover_jobs().await?;
        if requeued > 0 {
            tracing::info!(
                requeued,
                "hidden-test jobs interrupted by a restart are queued again"
            );
        }
        let (events, _) = broadcast::channel(1024);
        let queue = Arc::new(Self {
            store,
            catalog,
            sandbox: config.sandbox,
            environments: config.environments,
            events,
            wake: Notify::new(),
            timeout: config.turn_timeout,
            turn_budget: config.turn_budget,
            maintainer_token: config.maintainer_token,
            retry_delay: config.retry_delay,
            jobs_per_client: i64::try_from(config.jobs_per_client.max(1)).unwrap_or(i64::MAX),
            running: Mutex::new(HashMap::new()),
        });
        if queue.sandbox.is_ok() {
            for worker in 0..config.workers.max(1) {
                let queue = Arc::clone(&queue);
                tokio::spawn(async move { queue.work(worker).await });
            }
        }
        Ok(queue)
    }

    /// Queues the hidden tests of `run` for `submitter`, or queues its failed or cancelled
    /// job again (it resumes after its last committed turn); the job's id.
    pub(crate) async fn enqueue(&self, run: i64, submitter: Submitter) -> Result<i64, QueueError> {
        if self.sandbox.is_err() {
            return Err(QueueError::NoSandbox);
        }
        let turns = self.store.run_turn_total(run).await?;
        let turns = turns.ok_or(QueueError::UnknownRun(run))?;
        let budget = self.turn_budget.as_secs_f64() * turns as f64;
        let limit = match submitter {
            Submitter::Client(_) => Some(self.jobs_per_client),
            Submitter::Server => None,
        };
        let job = match self
            .store
            .queue_job(run, turns, budget, &submitter.key(), limit)
            .await?
        {
            Queued::Job(job) => job,
            Queued::Exists(job) => return Err(QueueError::Exists { run, job }),
            Queued::Full(active) => return Err(QueueError::TooMany(active)),
        };
        self.wake.notify_waiters();
        self.publish(job, None).await;
        Ok(job)
    }

    /// Cancels `job` if `token` is the maintainer token: it stops at once (a running
    /// sandbox is stopped; its turn is not committed) and can be queued again later.
    pub(crate) async fn cancel(&self, job: i64, token: Option<&str>) -> Result<(), QueueError> {
        let authorised = match (&self.maintainer_token, token) {
            (Some(want), Some(got)) => constant_time_eq(want.as_bytes(), got.as_bytes()),
            _ => false,
        };
        if !authorised {
            return Err(QueueError::Unauthorized);
        }
        if !self.store.cancel_job(job).await? {
            return Err(match self.store.job_state(job).await? {
                None => QueueError::UnknownJob(job),
                Some(state) => QueueError::NotCancellable { job, state },
            });
        }
        if let Some(flag) = self.flags().get(&job) {
            flag.raise();
        }
        tracing::info!(job, "hidden-test job cancelled");
        self.publish(job, None).await;
        Ok(())
    }

    /// Listens to every job's progress.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Progress> {
        self.events.subscribe()
    }

    /// A job's progress as stored; `None` for an unknown job.
    pub(crate) async fn progress(&self, job: i64) -> anyhow::Result<Option<Progress>> {
        self.store.job_progress(job).await
    }

    fn flags(&self) -> std::sync::MutexGuard<'_, HashMap<i64, StopFlag>> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes one turn of the job served least recently, if any is ready.
    async fn claim(&self) -> anyhow::Result<Option<Claim>> {
        self.store.claim_turn().await
    }

    async fn work(self: Arc<Self>, worker: usize) {
        loop {
            match self.claim().await {
                Ok(Some(claim)) => {
                    let (job, run, attempts) = (claim.id, claim.run_id, claim.attempts);
                    tracing::debug!(worker, job, run, "hidden-test turn claimed");
                    match self.serve(&claim).await {
                        Ok(Served::Turn) => {}
                        Ok(Served::Finished) => tracing::info!(job, run, "hidden-test job done"),
                        Ok(Served::Cancelled) => self.release(job).await,
                        Err(error) => self.failed_attempt(job, attempts + 1, &error).await,
                    }
                    self.publish(job, None).await;
                }
                Ok(None) => {
                    // Woken by enqueue; the timeout wakes retries that came due and is a
                    // backstop for a missed wake-up.
                    let _ =
                        tokio::time::timeout(Duration::from_secs(1), self.wake.notified()).await;
                }
                Err(error) => {
                    tracing::error!("cannot claim a hidden-test turn: {error:#}");
                    tokio::time::sleep(Duration::from_secs(5)).await;
                }
            }
        }
    }

    /// Lets other workers take the job again.
    async fn release(&self, job: i64) {
        self.until_stored(job, "release the job", || self.store.release_job(job))
            .await;
    }

    /// Records a failed attempt: a retry later, or, at the limit, a failed job.
    async fn failed_attempt(&self, job: i64, attempts: i64, error: &anyhow::Error) {
        tracing::error!(job, attempts, "hidden-test attempt failed: {error:#}");
        let (said, retry_in) = if attempts >= MAX_ATTEMPTS {
            let said = format!(
                "failed {attempts} times in a row: {}; queue it again with POST /api/v1/runs/{{id}}/tests",
                client_message(error)
            );
            (said, None)
        } else {
            let delay = self.retry_delay * 4u32.pow(u32::try_from(attempts - 1).unwrap_or(0));
            let said = format!(
                "attempt {attempts} failed ({}); retrying in {} s",
                client_message(error),
                delay.as_secs_f64()
            );
            (said, Some(delay))
        };
        // Released whatever happens next (a job cancelled meanwhile stays cancelled).
        self.until_stored(job, "record the failed attempt", || {
            self.store
                .record_failed_attempt(job, attempts, &said, retry_in)
        })
        .await;
    }

    /// Runs `write` (of the job this worker holds) until it is stored. The job is marked
    /// busy in the database, so if this worker gave up, no worker would take it again
    /// before a restart; what makes such a write fail (a full disk, the write lock held
    /// for longer than the busy timeout) passes, and the worker waits for it.
    async fn until_stored<F, W>(&self, job: i64, what: &str, write: W)
    where
        W: Fn() -> F,
        F: std::future::Future<Output = anyhow::Result<()>>,
    {
        let mut wait = Duration::from_millis(200);
        while let Err(error) = write().await {
            tracing::error!(
                job,
                "cannot {what}: {error:#}; trying again in {:.1} s",
                wait.as_secs_f64()
            );
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(MAX_STORE_WAIT);
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

    /// Runs the next turn of the claimed job and commits it, or finalises the job.
    async fn serve(&self, claim: &Claim) -> anyhow::Result<Served> {
        let (job, run) = (claim.id, claim.run_id);
        let sandbox = self
            .sandbox
            .as_ref()
            .map_err(|why| anyhow::anyhow!("no sandbox: {why}"))?
            .clone();
        let (benchmark, name, version) = self.store.run_dataset(run).await?;
        if benchmark == Benchmark::Recube.id() {
            let loaded = self.catalog.recube(&name, &version).ok_or_else(|| {
                anyhow::anyhow!("dataset {name} {version} of run {run} is not served any more")
            })?;
            return self.serve_instance(claim, sandbox, loaded).await;
        }
        let loaded = self.catalog.get(&name, &version).ok_or_else(|| {
            anyhow::anyhow!("dataset {name} {version} of run {run} is not served any more")
        })?;
        let done = self.store.committed_turns(job).await?;
        let next = loaded
            .dataset
            .chains
            .iter()
            .enumerate()
            .find_map(|(c, chain)| {
                let id = &chain.manifest.id;
                (1..=chain.turns.len())
                    .find(|t| {
                        !done
                            .iter()
                            .any(|(dc, dt)| dc == id && usize::try_from(*dt) == Ok(*t))
                    })
                    .map(|t| (c, t))
            });
        let Some((c, t)) = next else {
            // Every turn was committed but the job was not finalised (the last turn's commit
            // finalises, so only an interrupted finalisation lands here).
            let tests = self.store.test_results(job).await?;
            let report =
                crate::reporeuse::runs::rescored(&self.store, Arc::clone(&loaded), run, tests)
                    .await?;
            let scores = crate::store::Scores::of_reporeuse(&report)?;
            self.store.finish_job(job, run, &scores).await?;
            return Ok(Served::Finished);
        };
        let chain_id = loaded.dataset.chains[c].manifest.id.clone();
        self.publish(job, Some("preparing the Python environment".to_owned()))
            .await;
        let (env_dir, exceptions) = {
            let loaded = Arc::clone(&loaded);
            let environments = Arc::clone(&self.environments);
            tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
                let env_dir = environments.for_chain(&loaded.dataset, c, &mut |step| {
                    tracing::info!(?step, "test environment");
                })?;
                Ok((env_dir, loaded.exceptions()?))
            })
            .await??
        };
        let files =
            crate::store::run_files::chain_files(&self.store, run, &chain_id, i64::try_from(t)?)
                .await?;
        let chain_files: Vec<BTreeMap<String, String>> = (1..=t)
            .map(|turn| {
                files
                    .get(&(chain_id.clone(), turn))
                    .map(|texts| texts.files.clone())
                    .unwrap_or_default()
            })
            .collect();
        let started = Instant::now();
        let verdict = match time_left(claim) {
            Some(left) if left < MIN_TURN_TIMEOUT => {
                let test = TurnTest {
                    dataset: &loaded.dataset,
                    chain: c,
                    turn: t,
                    files: &chain_files,
                    exceptions: &exceptions,
                };
                budget_spent(&expected_tests(&test)?, claim)
            }
            left => {
                let timeout = left.map_or(self.timeout, |left| left.min(self.timeout));
                self.publish(job, Some(format!("testing {chain_id} turn {t}")))
                    .await;
                let loaded = Arc::clone(&loaded);
                let tested = self.guarded(job, move |flag| {
                    run_turn(
                        sandbox.as_ref(),
                        &env_dir,
                        &TurnTest {
                            dataset: &loaded.dataset,
                            chain: c,
                            turn: t,
                            files: &chain_files,
                            exceptions: &exceptions,
                        },
                        timeout,
                        Some(flag),
                    )
                });
                match tested.await? {
                    Some(verdict) => verdict,
                    None => return Ok(Served::Cancelled),
                }
            }
        };
        let elapsed = started.elapsed();
        let scores = if self.is_last_turn(job, &loaded).await? {
            let mut tests = self.store.test_results(job).await?;
            tests.insert((chain_id.clone(), t), verdict.results());
            let report =
                crate::reporeuse::runs::rescored(&self.store, Arc::clone(&loaded), run, tests)
                    .await?;
            Some(Scores::of_reporeuse(&report)?)
        } else {
            None
        };
        let rescore = scores.as_ref().map_or(Rescore::Nothing, Rescore::Finish);
        let finished = self
            .store
            .commit_turn(job, run, &chain_id, t, &verdict, elapsed, rescore)
            .await?;
        Ok(if finished {
            Served::Finished
        } else {
            Served::Turn
        })
    }

    async fn is_last_turn(&self, job: i64, loaded: &LoadedDataset) -> anyhow::Result<bool> {
        self.is_last_of(job, loaded.dataset.turn_count()).await
    }

    /// Whether the slot being served is the last of the `total` slots of `job`.
    async fn is_last_of(&self, job: i64, total: usize) -> anyhow::Result<bool> {
        let done = self.store.committed_turn_count(job).await?;
        Ok(usize::try_from(done + 1)? == total)
    }

    /// Runs `test` (a sandboxed test run, given the stop flag that cancelling raises) on
    /// the blocking pool for `job`; `None` when the job was cancelled before or while it ran.
    async fn guarded<F>(&self, job: i64, test: F) -> anyhow::Result<Option<Verdict>>
    where
        F: FnOnce(StopFlag) -> Result<Verdict, TestRunError> + Send + 'static,
    {
        let flag = StopFlag::new();
        self.flags().insert(job, flag.clone());
        // Read after the flag is in place: a cancel that came first is seen here, one that
        // comes later finds the flag and raises it.
        let state = self
            .store
            .job_state(job)
            .await?
            .ok_or_else(|| anyhow::anyhow!("job {job} vanished while it ran"));
        if !matches!(state.as_deref(), Ok(s) if s != "cancelled") {
            self.flags().remove(&job);
            return state.map(|_| None);
        }
        let outcome = tokio::task::spawn_blocking(move || test(flag)).await;
        self.flags().remove(&job);
        match outcome? {
            Ok(verdict) => Ok(Some(verdict)),
            Err(TestRunError::Stopped) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Runs the next instance of the claimed ReCUBE job and commits it with its score, or
    /// finalises the job.
    async fn serve_instance(
        &self,
        claim: &Claim,
        sandbox: Arc<dyn Sandbox>,
        loaded: Arc<LoadedRecube>,
    ) -> anyhow::Result<Served> {
        let (job, run) = (claim.id, claim.run_id);
        let done = self.store.committed_turns(job).await?;
        let instances = &loaded.dataset.instances;
        let next = instances
            .iter()
            .position(|i| !done.iter().any(|(id, _)| *id == i.manifest.id));
        let Some(index) = next else {
            // Only an interrupted finalisation lands here (see `serve`).
            let scores = recube_runs::stored_scores(&self.store, run).await?;
            let report = recube_runs::report_of(&loaded, scores)?;
            let scores = Scores::of_recube(&report, true)?;
            self.store.finish_job(job, run, &scores).await?;
            return Ok(Served::Finished);
        };
        let instance = &instances[index];
        let id = instance.manifest.id.clone();
        self.publish(job, Some("preparing the Python environment".to_owned()))
            .await;
        let (env_dir, repository) = {
            let loaded = Arc::clone(&loaded);
            let environments = Arc::clone(&self.environments);
            tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
                let instance = &loaded.dataset.instances[index];
                let source = loaded
                    .dataset
                    .manifest
                    .repositories
                    .get(&instance.manifest.repository)
                    .ok_or_else(|| {
                        anyhow::anyhow!("instance {} names no repository", instance.manifest.id)
                    })?;
                let env_dir = environments.for_dependencies_of(source, &mut |step| {
                    tracing::info!(?step, "test environment");
                })?;
                Ok((env_dir, recube_runs::repository(&loaded, instance)?))
            })
            .await??
        };
        let mut texts = crate::store::run_files::chain_files(&self.store, run, &id, 1).await?;
        let target = texts
            .remove(&(id.clone(), 1))
            .and_then(|mut t| t.files.remove(&instance.manifest.target));
        let started = Instant::now();
        let verdict = match time_left(claim) {
            Some(left) if left < MIN_TURN_TIMEOUT => {
                budget_spent(&crate::recube::hidden_tests::expected(instance), claim)
            }
            left => {
                let timeout = left.map_or(self.timeout, |left| left.min(self.timeout));
                self.publish(job, Some(format!("testing instance {id}")))
                    .await;
                let loaded = Arc::clone(&loaded);
                let tested = self.guarded(job, move |flag| {
                    run_instance(
                        sandbox.as_ref(),
                        &env_dir,
                        &InstanceTest {
                            instance: &loaded.dataset.instances[index],
                            repository: &repository,
                            target: target.as_deref(),
                        },
                        timeout,
                        Some(flag),
                    )
                });
                match tested.await? {
                    Some(verdict) => verdict,
                    None => return Ok(Served::Cancelled),
                }
            }
        };
        let elapsed = started.elapsed();
        let last = self.is_last_of(job, instances.len()).await?;
        let (slot, finish) =
            recube_runs::rescore(&self.store, &loaded, run, instance, &verdict, last).await?;
        let rescore = finish.as_ref().map_or(Rescore::Slot(slot), Rescore::Finish);
        let finished = self
            .store
            .commit_turn(job, run, &id, 1, &verdict, elapsed, rescore)
            .await?;
        Ok(if finished {
            Served::Finished
        } else {
            Served::Turn
        })
    }
}

/// The sandbox seconds the claimed job has left (`None`: no limit).
fn time_left(claim: &Claim) -> Option<Duration> {
    claim
        .budget_s
        .map(|budget| Duration::from_secs_f64((budget - claim.spent_s).max(0.0)))
}

/// The verdict on a slot reached after the job's time budget was spent: every test timed
/// out, none ran.
fn budget_spent(expected: &[ExpectedTest], claim: &Claim) -> Verdict {
    let budget = claim.budget_s.unwrap_or_default();
    Verdict::all(
        expected,
        TestOutcome::TimedOut,
        &format!("the run's time budget of {budget:.0} s was spent before this turn"),
        None,
    )
}

/// What a client may read of an internal error: whether the disk is full (which the
/// server's operator must fix, and retries may outlast), else only that it was internal.
/// The cause stays in the log: sandbox and environment errors name host paths.
fn client_message(error: &anyhow::Error) -> String {
    if crate::error::is_disk_full(error) {
        "the server's disk is full".to_owned()
    } else {
        "an error inside the server; its log has the details".to_owned()
    }
}

/// Compares two secrets in time that depends on their lengths only.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_name_no_host_path() {
        let full = anyhow::Error::new(std::io::Error::from_raw_os_error(28))
            .context("cannot stage /tmp/wheelwright-sandbox-12-ab/in/x.py");
        assert_eq!(client_message(&full), "the server's disk is full");
        let other = anyhow::anyhow!("cannot open /var/tmp/wheelwright/envs/x: permission denied");
        let said = client_message(&other);
        assert!(!said.contains('/'), "{said}");
    }

    #[test]
    fn secrets_compare_exactly() {
        assert!(constant_time_eq(b"token", b"token"));
        assert!(!constant_time_eq(b"token", b"tokem"));
        assert!(!constant_time_eq(b"token", b"token2"));
    }
}
