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
mod published;
mod routes;
mod runs;

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
        Ok(Self {
            pool,
            app_dir: config.app_dir.clone(),
            catalog: Arc::new(catalog),
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
