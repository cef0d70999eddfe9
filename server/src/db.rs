//! The SQLite database: opening it, migrating it, and the facts the server keeps about itself.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

/// What can go wrong opening the database, worded for the person starting the server.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error(
        "cannot create the data directory {path}: {source}; pass --data-dir with a writable path"
    )]
    DataDir {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "cannot open the database {path}: {source}; check the file's permissions or remove a corrupt file"
    )]
    Open { path: String, source: sqlx::Error },
    #[error("cannot migrate the database {path}: {source}; it may come from a newer Wheelwright")]
    Migrate {
        path: String,
        source: sqlx::migrate::MigrateError,
    },
    #[error(
        "cannot convert the stored runs of {path} to this version's storage: {source:#}; the database is unchanged where it failed, so fix the cause (disk full?) and start again"
    )]
    Upgrade { path: String, source: anyhow::Error },
    #[error("database query failed: {0}")]
    Query(#[from] sqlx::Error),
}

/// File name of the database inside the data directory.
pub const DATABASE_FILE: &str = "wheelwright.sqlite";

/// Opens (creating if needed) the database in `data_dir`, runs pending migrations and records
/// this start. WAL lets readers (API requests) proceed while a writer commits.
pub async fn open(data_dir: &Path) -> Result<SqlitePool, DbError> {
    std::fs::create_dir_all(data_dir).map_err(|source| DbError::DataDir {
        path: data_dir.display().to_string(),
        source,
    })?;
    let path = data_dir.join(DATABASE_FILE);
    let shown = path.display().to_string();
    let options = SqliteConnectOptions::from_str("sqlite:")
        .map_err(|source| DbError::Open {
            path: shown.clone(),
            source,
        })?
        .filename(&path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(5));
    let pool = SqlitePoolOptions::new()
        .max_connections(8)
        .connect_with(options)
        .await
        .map_err(|source| DbError::Open {
            path: shown.clone(),
            source,
        })?;
    sqlx::migrate!("./migrations")
        .run(&pool)
        .await
        .map_err(|source| DbError::Migrate {
            path: shown.clone(),
            source,
        })?;
    // What a migration cannot do in SQL: deflate the run files it moved (idempotent).
    crate::storage::upgrade(&pool)
        .await
        .map_err(|source| DbError::Upgrade {
            path: shown,
            source,
        })?;
    record_start(&pool).await?;
    Ok(pool)
}

/// Remembers when this installation was first created and which version started it last.
async fn record_start(pool: &SqlitePool) -> Result<(), DbError> {
    let now = sqlx::query_scalar::<_, String>("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')")
        .fetch_one(pool)
        .await?;
    let mut tx = pool.begin().await?;
    sqlx::query("INSERT OR IGNORE INTO server_meta (key, value) VALUES ('created_at', ?)")
        .bind(&now)
        .execute(&mut *tx)
        .await?;
    for (key, value) in [
        ("last_started_at", now.as_str()),
        ("last_version", env!("CARGO_PKG_VERSION")),
    ] {
        sqlx::query(
            "INSERT INTO server_meta (key, value) VALUES (?, ?)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(key)
        .bind(value)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The database's state as the health endpoint reports it.
#[derive(Debug, serde::Serialize)]
pub struct DatabaseHealth {
    /// Number of migrations applied.
    pub schema_version: i64,
    pub created_at: String,
}

pub async fn health(pool: &SqlitePool) -> Result<DatabaseHealth, DbError> {
    let schema_version =
        sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM _sqlx_migrations WHERE success = 1")
            .fetch_one(pool)
            .await?;
    let created_at =
        sqlx::query_scalar::<_, String>("SELECT value FROM server_meta WHERE key = 'created_at'")
            .fetch_one(pool)
            .await?;
    Ok(DatabaseHealth {
        schema_version,
        created_at,
    })
}
