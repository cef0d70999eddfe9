//! Wheelwright's server and command line: a thin host over `wheelwright-core`.
//!
//! [`router`] is the whole HTTP application as a function of its [`AppState`], so tests drive
//! it with `oneshot` and the binary, the end-to-end tests and any embedding serve the same
//! thing through [`serve`].

pub mod bundle;
pub mod cli;
pub mod dataset;
mod datasets;
pub mod db;
mod error;
mod hidden_tests;
mod jobs;
mod published;
mod routes;
mod runs;
pub mod storage;
mod test_command;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use sqlx::SqlitePool;
use tokio::net::TcpListener;

pub use routes::router;

/// What every request handler can reach.
#[derive(Clone)]
pub struct AppState {
    pool: SqlitePool,
    app_dir: PathBuf,
    catalog: Arc<datasets::Catalog>,
    queue: Arc<jobs::Queue>,
}

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
    pub async fn open(config: &ServeConfig) -> anyhow::Result<Self> {
        let pool = db::open(&config.data_dir).await?;
        let report = published::import_bundled(&pool).await?;
        let catalog = datasets::import_dir(&pool, &config.datasets_dir, &config.cache_dir).await?;
        for loaded in catalog.all() {
            // A baseline that cannot be computed (no network for the wheel, say) must not
            // keep the server from serving everything else.
            if let Err(error) = runs::ensure_baselines(&pool, loaded).await {
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
            pool.clone(),
            Arc::clone(&catalog),
            jobs::QueueConfig {
                sandbox,
                environments: Arc::new(hidden_tests::Environments::new(
                    config.tests.env_root.clone(),
                )),
                workers: config.tests.workers,
                turn_timeout: config.tests.turn_timeout,
            },
        )
        .await?;
        if config.tests.test_baselines {
            let baselines: Vec<i64> = sqlx::query_scalar(
                "SELECT id FROM run WHERE origin = 'baseline'
                 AND id NOT IN (SELECT run_id FROM test_job) ORDER BY id",
            )
            .fetch_all(&pool)
            .await?;
            for run in baselines {
                if let Err(error) = queue.enqueue(run).await {
                    tracing::warn!(run, "baseline tests not queued: {error}");
                }
            }
        }
        Ok(Self {
            pool,
            app_dir: config.app_dir.clone(),
            catalog,
            queue,
        })
    }

    /// Closes the database cleanly (checkpointing the WAL).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Serves the application on `listener` until `shutdown` completes, then lets requests in
/// flight finish and closes the database.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let addr = listener.local_addr()?;
    tracing::info!(%addr, "serving Wheelwright on http://{addr}");
    axum::serve(listener, router(state.clone()))
        .with_graceful_shutdown(shutdown)
        .await
        .context("the HTTP server stopped with an error")?;
    state.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// Binds `config.addr`, opens the state and serves until SIGINT or SIGTERM.
pub async fn run(config: ServeConfig) -> anyhow::Result<()> {
    let state = AppState::open(&config).await?;
    let listener = TcpListener::bind(config.addr).await.with_context(|| {
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
