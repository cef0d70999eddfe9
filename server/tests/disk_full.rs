//! A full disk under the data directory, for real: the data directory on a small tmpfs, filled up, then an upload. It is answered 507 with a message that says so, nothing of the run is stored, the server still answers, and once space is freed the same upload is stored.
//!
//! Mounting takes root (the tests run as root here and in CI). Without root the test says
//! SKIPPED; as root, a mount that fails fails the test.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use axum::http::StatusCode;
use common::{assert_api_error, get, post_bytes, real_dataset, run_count};
use sqlx::Connection;

/// A tmpfs mounted on a directory, unmounted (lazily: the server's pool may still hold
/// files on it) on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts a tmpfs of `size` (e.g. `64m`) on `dir`, or `None` when not root.
    fn mount(dir: &Path, size: &str) -> Option<Self> {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("SKIPPED: mounting a tmpfs for the full disk takes root");
            return None;
        }
        let status = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(dir)
            .status()
            .expect("run mount");
        assert!(
            status.success(),
            "cannot mount a tmpfs on {} as root ({status}); the full-disk test needs it",
            dir.display()
        );
        Some(Self(dir.to_owned()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Writes to `path` until the file system is full.
fn fill(path: &Path) {
    let mut file = std::fs::File::create(path).unwrap();
    let chunk = vec![0xa5u8; 64 * 1024];
    loop {
        match file.write(&chunk) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::StorageFull => break,
            Err(e) => panic!("filling the tmpfs: {e}"),
        }
    }
    // Whatever was buffered goes too; the last bytes may not fit.
    let _ = file.sync_all();
}

/// Rows of `table` in the database under `data` (read directly: the runs API lists runs
/// only, this also sees turns of a half-stored run).
async fn rows(data: &Path, table: &str) -> i64 {
    let url = format!("sqlite://{}", data.join("wheelwright.sqlite").display());
    let mut db = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let n = sqlx::query_scalar(&format!("SELECT count(*) FROM {table}"))
        .fetch_one(&mut db)
        .await
        .unwrap();
    db.close().await.unwrap();
    n
}

/// Empties the write-ahead log, so the next write must take new space on the disk.
async fn truncate_wal(data: &Path) {
    let url = format!("sqlite://{}", data.join("wheelwright.sqlite").display());
    let mut db = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(&mut db)
        .await
        .unwrap();
    db.close().await.unwrap();
}

/// A valid run bundle (the dataset's references) under a model name of its own.
fn bundle() -> String {
    let dataset = wheelwright_server::dataset::load_dir(&real_dataset()).expect("the dataset");
    let mut bundle = wheelwright_core::reporeuse::bundle::RepoReuseBundle::reference(&dataset);
    bundle.metadata.model = "disk-full-check".to_owned();
    bundle.to_jsonl()
}

#[tokio::test]
async fn an_upload_onto_a_full_disk_is_answered_507_and_nothing_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let Some(_tmpfs) = Tmpfs::mount(&data, "64m") else {
        return;
    };
    let app = common::app_with(dir, wheelwright_server::HttpConfig::default()).await;
    assert!(
        rows(&data, "run").await > 0,
        "the baselines are stored at start"
    );
    let (runs, turns) = (rows(&data, "run").await, rows(&data, "run_turn").await);
    let listed = run_count(&app).await;
    truncate_wal(&data).await;
    let filler = data.join("filler");
    fill(&filler);

    let reply = post_bytes(&app, "/api/v1/runs", bundle()).await;
    assert_api_error(&reply, StatusCode::INSUFFICIENT_STORAGE, "disk is full");
    assert_api_error(
        &reply,
        StatusCode::INSUFFICIENT_STORAGE,
        "nothing was stored",
    );
    assert!(
        !reply.text().contains(&data.display().to_string()),
        "{}",
        reply.text()
    );
    assert_eq!(run_count(&app).await, listed, "a run was stored");
    assert_eq!(rows(&data, "run").await, runs);
    assert_eq!(rows(&data, "run_turn").await, turns, "turns were stored");
    assert_eq!(get(&app, "/api/v1/health").await.status, StatusCode::OK);

    // With space again, the same bundle is stored: the failure left nothing behind.
    std::fs::remove_file(&filler).unwrap();
    let reply = post_bytes(&app, "/api/v1/runs", bundle()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    assert_eq!(run_count(&app).await, listed + 1);
}
