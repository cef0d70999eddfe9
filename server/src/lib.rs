//! Wheelwright's server and command line: a thin host over `wheelwright-core`.
//!
//! [`router`] is the whole HTTP application as a function of its [`AppState`], so tests drive
//! it with `oneshot` and the binary, the end-to-end tests and any embedding serve the same
//! thing through [`serve`].

mod body_budget;
pub mod bundle;
pub mod cli;
mod clients;
pub mod dataset;
mod error;
mod hidden_tests;
mod jobs;
pub mod listen;
mod no_follow;
mod published;
mod read_cache;
mod recube;
mod reporeuse;
mod routes;
mod schrodinger;
pub mod store;
mod submit;
mod work;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;

pub use routes::router;

/// What every request handler can reach.
#[derive(Clone)]
pub struct AppState {
    store: store::Store,
    app_dir: PathBuf,
    catalog: Arc<dataset::catalog::Catalog>,
    queue: Arc<jobs::Queue>,
    /// Slots for CPU-heavy request work (analyses, uploads).
    work: work::WorkPool,
    /// Bytes of upload bodies held at once, across requests.
    bodies: body_budget::BodyBudget,
    /// Answers of the read routes, kept while nothing has been written since.
    reads: Arc<read_cache::ReadCache>,
    http: HttpConfig,
}

/// The default of `HttpConfig::read_cache_bytes`: 64 MiB, some hundred turn cases or
/// thousands of pages of runs.
pub const DEFAULT_READ_CACHE_BYTES: usize = 64 << 20;

/// Everything `wheelwright serve` needs to know.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub addr: SocketAddr,
    pub data_dir: PathBuf,
    pub app_dir: PathBuf,
    /// Directory whose dataset directories are imported at start.
    pub datasets_dir: PathBuf,
    /// Where pinned repositories' wheels are cached.
    pub cache_dir: PathBuf,
    /// How hidden tests run.
    pub tests: TestConfig,
    /// What one client may cost: connections, time, concurrent analyses.
    pub http: HttpConfig,
}

/// The bounds on what clients can make the server do (see `listen` and `work`).
#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// Connections open at once; more wait in the listen backlog until one closes.
    pub max_connections: usize,
    /// Connections one client (IP address) may hold at once; more are closed at once.
    pub max_connections_per_client: usize,
    /// Time a connection has to send a request's headers, the first request's or the next
    /// one's on a kept-alive connection (so also the idle limit between requests).
    pub header_timeout: Duration,
    /// Time a request has to be answered; later it gets 408 and its work is cancelled.
    pub request_timeout: Duration,
    /// CPU-heavy requests (analyses, uploads) handled at once; more get 503.
    pub workers: usize,
    /// Of those, how many one client (IP address) may have at once; more get 429.
    /// `None`: half of `workers`, at least one.
    pub workers_per_client: Option<usize>,
    /// Bytes of upload bodies held in memory at once, across requests; more get 503.
    pub body_budget: usize,
    /// Bytes of read answers kept (the leaderboard, runs, turn cases) until the next write.
    pub read_cache_bytes: usize,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            max_connections: listen::default_max_connections(),
            max_connections_per_client: listen::DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            workers: work::default_workers(),
            workers_per_client: None,
            body_budget: body_budget::DEFAULT_BODY_BUDGET,
            read_cache_bytes: DEFAULT_READ_CACHE_BYTES,
        }
    }
}

/// Where and how hidden tests run.
#[derive(Clone, Debug)]
pub struct TestConfig {
    /// The sandbox backend; `None` disables hidden tests (queueing them answers 503).
    pub backend: Option<Backend>,
    /// Jobs run at once (each takes one sandbox slot).
    pub workers: usize,
    /// Where the read-only Python environments are built (must be world-readable).
    pub env_root: PathBuf,
    /// Time limit of one turn's test run.
    pub turn_timeout: std::time::Duration,
    /// First uid of the sandbox slots (slot i runs as base + i); `None`: the backend's
    /// default. Two servers (or test commands) on one host must not share uids: the kernel
    /// counts processes per uid, so one job's fork bomb would starve the other's.
    pub uid_base: Option<u32>,
    /// Queue the hidden tests of every baseline at start (the public site wants their pass
    /// rates; tests of the server itself do not).
    pub test_baselines: bool,
    /// A run's tests may take this long per turn on average: its budget is this times its
    /// turns, and the turns left once it is spent fail as timed out without running. With
    /// the queue's round robin, this bounds what one run of sleeping modules costs.
    pub turn_budget: std::time::Duration,
    /// The bearer token that may cancel jobs; `None`: nobody may.
    pub maintainer_token: Option<String>,
    /// How long a job waits before it retries after a failed attempt (a full disk, PyPI
    /// unreachable); each further retry waits four times as long, and the third failure in a
    /// row fails the job (which can then be queued again).
    pub retry_delay: std::time::Duration,
    /// Hidden-test jobs one client (address; an IPv6 client by its /64) may have queued or
    /// running at once; over it, queueing answers 429.
    pub jobs_per_client: usize,
}

/// A sandbox backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// bubblewrap, started as an unprivileged uid per slot (Linux).
    Bwrap,
    /// Podman containers from the image `scripts/podman-image` builds.
    Podman,
    /// Docker through the same command-line backend (see docs/sandbox.md).
    Docker,
}

impl Default for TestConfig {
    fn default() -> Self {
        Self {
            backend: Some(Backend::Bwrap),
            workers: jobs::default_workers(),
            env_root: PathBuf::from(wheelwright_sandbox::DEFAULT_ENV_ROOT),
            turn_timeout: hidden_tests::DEFAULT_TURN_TIMEOUT,
            uid_base: None,
            test_baselines: false,
            turn_budget: jobs::DEFAULT_TURN_BUDGET,
            maintainer_token: None,
            retry_delay: jobs::DEFAULT_RETRY_DELAY,
            jobs_per_client: jobs::DEFAULT_JOBS_PER_CLIENT,
        }
    }
}

impl TestConfig {
    /// The configured sandbox, or why there is none.
    pub fn sandbox(&self) -> Result<Arc<dyn wheelwright_sandbox::Sandbox>, String> {
        match self.backend {
            None => Err("hidden tests are disabled (--backend none)".to_owned()),
            Some(Backend::Bwrap) => {
                let defaults = wheelwright_sandbox::BwrapConfig::default();
                wheelwright_sandbox::BwrapSandbox::new(wheelwright_sandbox::BwrapConfig {
                    slots: self.workers.max(1),
                    base_uid: self.uid_base.unwrap_or(defaults.base_uid),
                    ..defaults
                })
                .map(|s| Arc::new(s) as Arc<dyn wheelwright_sandbox::Sandbox>)
                .map_err(|e| e.to_string())
            }
            Some(engine @ (Backend::Podman | Backend::Docker)) => {
                let defaults = wheelwright_sandbox::PodmanConfig::default();
                wheelwright_sandbox::PodmanSandbox::new(wheelwright_sandbox::PodmanConfig {
                    program: if engine == Backend::Docker {
                        "docker".into()
                    } else {
                        "podman".into()
                    },
                    slots: self.workers.max(1),
                    base_uid: self.uid_base.unwrap_or(defaults.base_uid),
                    ..defaults
                })
                .map(|s| Arc::new(s) as Arc<dyn wheelwright_sandbox::Sandbox>)
                .map_err(|e| e.to_string())
            }
        }
    }
}

impl AppState {
    /// Opens the database under `config.data_dir` (migrating it) and remembers the app dir.
    ///
    /// The baselines computed here bypass the work pool: no request is served yet, and a
    /// baseline must not be refused as busy.
    pub async fn open(config: &ServeConfig) -> anyhow::Result<Self> {
        let store = store::Store::open(&config.data_dir).await?;
        let report = published::import_bundled(&store).await?;
        let catalog =
            dataset::catalog::import_dir(&store, &config.datasets_dir, &config.cache_dir).await?;
        for loaded in catalog.all() {
            // A baseline that cannot be computed (no network for the wheel, say) must not
            // keep the server from serving everything else.
            if let Err(error) = submit::ensure_baselines(&store, loaded).await {
                tracing::error!(
                    dataset = loaded.dataset.manifest.name,
                    "baselines not computed: {error:#}"
                );
            }
        }
        for loaded in catalog.all_recube() {
            if let Err(error) = submit::ensure_baselines(&store, loaded).await {
                tracing::error!(
                    dataset = loaded.dataset.manifest.name,
                    "baselines not computed: {error:#}"
                );
            }
        }
        tracing::info!(
            imported = ?report.imported,
            unchanged = ?report.unchanged,
            "published results"
        );
        let catalog = Arc::new(catalog);
        let sandbox = config.tests.sandbox();
        if let Err(why) = &sandbox {
            tracing::warn!("hidden tests cannot run: {why}");
        }
        let queue = jobs::Queue::start(
            store.clone(),
            Arc::clone(&catalog),
            jobs::QueueConfig {
                sandbox,
                environments: Arc::new(hidden_tests::Environments::new(
                    config.tests.env_root.clone(),
                )),
                workers: config.tests.workers,
                turn_timeout: config.tests.turn_timeout,
                turn_budget: config.tests.turn_budget,
                maintainer_token: config.tests.maintainer_token.clone(),
                retry_delay: config.tests.retry_delay,
                jobs_per_client: config.tests.jobs_per_client,
            },
        )
        .await?;
        if config.tests.test_baselines {
            for run in store.untested_baselines().await? {
                if let Err(error) = queue.enqueue(run, jobs::Submitter::Server).await {
                    tracing::warn!(run, "baseline tests not queued: {error}");
                }
            }
        }
        Ok(Self {
            store,
            app_dir: config.app_dir.clone(),
            catalog,
            queue,
            work: work::WorkPool::new(config.http.workers, config.http.workers_per_client),
            // Never below what one multipart upload of the largest size holds (its body and
            // the field's copy), so every valid upload can be taken when the server is idle.
            bodies: body_budget::BodyBudget::new(
                config.http.body_budget.max(routes::LARGEST_UPLOAD_HOLDS),
            ),
            reads: Arc::new(read_cache::ReadCache::new(config.http.read_cache_bytes)),
            http: config.http.clone(),
        })
    }

    /// How many read answers are kept and the bytes they are counted as (keys, bodies and
    /// a fixed overhead each): what `HttpConfig::read_cache_bytes` bounds.
    pub fn read_cache_usage(&self) -> (usize, usize) {
        self.reads.usage()
    }

    /// Closes the database cleanly (checkpointing the WAL).
    pub async fn close(&self) {
        self.store.close().await;
    }
}

/// Serves the application on `listener` until `shutdown` completes, then lets requests in
/// flight finish and closes the database. Connections are bounded by the state's
/// [`HttpConfig`] (see the `listen` module).
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let addr = listener.local_addr()?;
    tracing::info!(
        %addr,
        max_connections = state.http.max_connections,
        header_timeout_s = state.http.header_timeout.as_secs_f64(),
        workers = state.http.workers,
        "serving Wheelwright on http://{addr}"
    );
    listen::serve_connections(listener, router(state.clone()), &state.http, shutdown).await;
    state.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// Binds `config.addr`, opens the state and serves until SIGINT or SIGTERM.
pub async fn run(config: ServeConfig) -> anyhow::Result<()> {
    listen::check_limits(&config.http)?;
    let state = AppState::open(&config).await?;
    let listener = listen::bind(config.addr).with_context(|| {
        format!(
            "cannot listen on {}; is another server running there? pass --addr",
            config.addr
        )
    })?;
    serve(listener, state, shutdown_signal()).await
}

/// Completes on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => tracing::info!("SIGINT received; shutting down"),
        () = terminate => tracing::info!("SIGTERM received; shutting down"),
    }
}
