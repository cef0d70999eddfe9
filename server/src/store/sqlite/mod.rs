//! The SQLite store: opening and migrating the database, and every statement in SQLite's dialect.
//!
//! The statements are grouped by what they keep: [`runs`] (runs, their turns and
//! re-scores), [`files`] (a run's texts in parts), [`jobs`] (the hidden-test queue) and
//! [`catalog`] (datasets and the papers' published results). Each adds methods to the one
//! [`Store`].

mod catalog;
mod files;
mod jobs;
mod runs;

use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::future::BoxFuture;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Connection, Executor, Sqlite, SqliteConnection, SqlitePool, Transaction};

use super::DatabaseHealth;

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

/// The time of day as the database writes it (UTC, milliseconds, `Z`).
const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/// `SQLITE_FULL`: "insertion failed because database is full" (also a full disk).
const SQLITE_FULL: i32 = 13;

/// `SQLITE_BUSY`: "database is locked", another connection held the write lock for longer
/// than the busy timeout.
const SQLITE_BUSY: i32 = 5;

/// Whether `cause` is the database saying the disk is full (`SQLITE_FULL`, or `ENOSPC`
/// and `EDQUOT` from its file system calls); `None` when it is no database error.
pub(crate) fn says_full(cause: &(dyn std::error::Error + 'static)) -> Option<bool> {
    Some(match cause.downcast_ref::<sqlx::Error>()? {
        // The primary result code; sqlx reports the extended one, whose low byte it is.
        sqlx::Error::Database(db) => db
            .code()
            .and_then(|code| code.parse::<i32>().ok())
            .is_some_and(|code| code & 0xff == SQLITE_FULL),
        sqlx::Error::Io(io) => crate::error::io_full(io),
        _ => false,
    })
}

/// Whether `cause` is the database saying another writer held the lock for longer than the
/// busy timeout (`SQLITE_BUSY`): a moment of contention, not a fault of the request.
pub(crate) fn says_busy(cause: &(dyn std::error::Error + 'static)) -> bool {
    matches!(
        cause.downcast_ref::<sqlx::Error>(),
        Some(sqlx::Error::Database(db)) if db
            .code()
            .and_then(|code| code.parse::<i32>().ok())
            .is_some_and(|code| code & 0xff == SQLITE_BUSY)
    )
}

/// Whether a connection given back to the pool is outside any transaction, so that it may
/// serve the next caller; a connection that is not is closed (which rolls it back).
///
/// sqlx counts transactions itself and can be wrong after a failure: when `COMMIT` fails
/// on a full disk, SQLite has already rolled back, the `ROLLBACK` sqlx sends next fails,
/// and its count stays at one; the next transaction on that connection is then a
/// `SAVEPOINT` whose rollback leaves a real transaction open, holding the write lock and an
/// old snapshot in the pool. So both sqlx's count and SQLite's own state are checked.
fn outside_transaction(conn: &mut SqliteConnection) -> BoxFuture<'_, Result<bool, sqlx::Error>> {
    Box::pin(async move {
        // This statement also runs first the `ROLLBACK` a dropped transaction queued. A
        // deferred `BEGIN` takes no lock, and fails when SQLite is still in a transaction.
        let probed = conn.execute("BEGIN; ROLLBACK").await.is_ok();
        let clean = probed && !conn.is_in_transaction();
        if !clean {
            tracing::warn!("a database connection was left inside a transaction; it is closed");
        }
        Ok(clean)
    })
}

/// The server's database: a pool of SQLite connections, and every statement run on it.
#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
    /// How many writes have been committed since the store was opened (see
    /// [`Store::generation`]); shared by every clone.
    generation: Arc<AtomicU64>,
}

/// A write transaction from [`Store::write_tx`]. Statements run on it as on the
/// transaction's connection (`&mut *tx`); [`WriteTx::commit`] commits and then moves the
/// store's [`Store::generation`] on, so no committed write can be missed by what is cached
/// against it.
pub(super) struct WriteTx {
    tx: Transaction<'static, Sqlite>,
    generation: Arc<AtomicU64>,
}

impl Deref for WriteTx {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        &self.tx
    }
}

impl DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.tx
    }
}

impl WriteTx {
    /// Commits, then moves the generation on. Dropped without a commit, the transaction is
    /// rolled back and nothing has changed, so the generation stays.
    pub(super) async fn commit(self) -> Result<(), sqlx::Error> {
        let committed = self.tx.commit().await;
        // Also after a failed COMMIT (which has changed nothing): a cache emptied for
        // nothing costs one rebuild, a missed write would serve an old answer.
        self.generation.fetch_add(1, Ordering::Release);
        committed
    }
}

impl Store {
    /// Opens (creating if needed) the database in `data_dir`, runs pending migrations,
    /// converts what a migration cannot (see [`crate::store::run_files::upgrade`]) and records this
    /// start. WAL lets readers (API requests) proceed while a writer commits.
    pub async fn open(data_dir: &Path) -> Result<Self, DbError> {
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
            .after_release(|conn, _| outside_transaction(conn))
            .connect_with(options)
            .await
            .map_err(|source| DbError::Open {
                path: shown.clone(),
                source,
            })?;
        // The path is the crate's: the migrations stay in server/migrations, their names
        // and contents unchanged (the database keeps their checksums).
        sqlx::migrate!("./migrations")
            .run(&pool)
            .await
            .map_err(|source| DbError::Migrate {
                path: shown.clone(),
                source,
            })?;
        let store = Self {
            pool,
            generation: Arc::new(AtomicU64::new(0)),
        };
        // What a migration cannot do in SQL: deflate the run files it moved (idempotent).
        crate::store::run_files::upgrade(&store)
            .await
            .map_err(|source| DbError::Upgrade {
                path: shown,
                source,
            })?;
        store.record_start().await?;
        Ok(store)
    }

    /// The connection pool, for tests that read the database's rows themselves.
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// Closes the database cleanly: the WAL checkpointed into the database and truncated,
    /// then every connection closed.
    ///
    /// SQLite checkpoints and removes the WAL when its last connection closes, but only if
    /// that connection can take the database for itself at that moment; under load a
    /// connection of the pool still closing beside it left a WAL of committed pages behind
    /// (safe, SQLite replays it on the next open, but not a clean close). An explicit
    /// `TRUNCATE` checkpoint first, while the pool is still open, leaves it empty.
    pub async fn close(&self) {
        if let Err(error) = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&self.pool)
            .await
        {
            tracing::warn!("checkpointing the database before closing it failed: {error}");
        }
        self.pool.close().await;
    }

    /// A transaction that takes the write lock as it begins (`BEGIN IMMEDIATE`), for every
    /// write of more than one statement and every write whose `RETURNING` is read.
    ///
    /// A deferred `BEGIN` whose first statement reads holds a read snapshot, and SQLite
    /// never waits to upgrade one: its first write answers "database is locked" at once
    /// while another connection writes, and for good once another has committed since the
    /// read. Taking the lock at `BEGIN` waits the busy timeout like any single write. And
    /// a `RETURNING` row read outside a transaction is handed out before the statement
    /// commits, and sqlx drops the commit's error (a full disk): inside one,
    /// [`Transaction::commit`] reports it.
    ///
    /// Its [`WriteTx::commit`] moves [`Store::generation`] on; a write outside a transaction
    /// (one statement on the pool) calls [`Store::wrote`] once it has run.
    pub(super) async fn write_tx(&self) -> Result<WriteTx, sqlx::Error> {
        Ok(WriteTx {
            tx: self.pool.begin_with("BEGIN IMMEDIATE").await?,
            generation: Arc::clone(&self.generation),
        })
    }

    /// The write generation: how many writes this store has committed since it was opened.
    /// What is read after it was loaded is at least as new as every write it counts, so an
    /// answer computed after loading generation `g` may be served again while the
    /// generation is still `g` (`crate::read_cache`). Every write moves it on: a
    /// transaction at its commit, a single statement run on the pool by [`Store::wrote`].
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Moves the generation on after a write that ran outside [`Store::write_tx`].
    fn wrote(&self) {
        self.generation.fetch_add(1, Ordering::Release);
    }

    /// Remembers when this installation was first created and which version started it last.
    async fn record_start(&self) -> Result<(), DbError> {
        let now = sqlx::query_scalar::<_, String>(&format!("SELECT {NOW}"))
            .fetch_one(&self.pool)
            .await?;
        let mut tx = self.write_tx().await?;
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

    /// How many migrations are applied and when the installation was created.
    pub async fn health(&self) -> Result<DatabaseHealth, DbError> {
        let schema_version =
            sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM _sqlx_migrations WHERE success = 1")
                .fetch_one(&self.pool)
                .await?;
        let created_at = sqlx::query_scalar::<_, String>(
            "SELECT value FROM server_meta WHERE key = 'created_at'",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(DatabaseHealth {
            schema_version,
            created_at,
        })
    }

    /// Today's date (UTC) as the database sees it, `YYYY-MM-DD`.
    pub(crate) async fn today(&self) -> anyhow::Result<String> {
        Ok(sqlx::query_scalar("SELECT date('now')")
            .fetch_one(&self.pool)
            .await?)
    }

    /// Rows in `table`: what tests of "nothing stored" count.
    #[cfg(test)]
    pub(crate) async fn count_rows(&self, table: &str) -> anyhow::Result<i64> {
        Ok(sqlx::query_scalar(&format!("SELECT COUNT(*) FROM {table}"))
            .fetch_one(&self.pool)
            .await?)
    }
}
