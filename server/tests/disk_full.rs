//! A full disk under the data directory, for real: the data directory on a small tmpfs, filled up, then writes. They are answered 507 with a message that says so, nothing is stored, the server still answers, and once space is freed (no restart) writes are stored, the queue resumes and reads agree.
//!
//! Mounting takes root (the tests run as root here and in CI). Without root the test says
//! SKIPPED; as root, a mount that fails fails the test.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::serve::Server;
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

/// The maintainer token the real server is started with, to cancel a job.
const TOKEN: &str = "disk-full-maintainer";

/// The id in a reply of the real server that must have `status`, or a problem noted.
fn id_of(
    problems: &mut Vec<String>,
    what: &str,
    reply: Option<(u16, serde_json::Value)>,
    status: u16,
    key: &str,
) -> Option<i64> {
    match reply {
        Some((got, body)) if got == status => body[key].as_i64(),
        other => {
            problems.push(format!("{what}: wanted {status}, got {other:?}"));
            None
        }
    }
}

/// The count of runs in `n` reads of the runs list, each on a fresh connection (so on
/// whichever pooled database connection the server takes).
fn run_totals(server: &Server, n: usize) -> Vec<Option<i64>> {
    (0..n)
        .map(|_| {
            server
                .http("GET", "/api/v1/runs", b"")
                .and_then(|(status, body)| (status == 200).then(|| body["total"].as_i64())?)
        })
        .collect()
}

/// The real server on a full disk while a job commits turns: every write is refused with
/// 507 and a message that says so (no job id handed out that was never stored), and once
/// space is freed, with no restart, the job finishes by itself with each turn's results
/// stored once, a cancelled job can be queued again, an upload reads back under its own
/// id, and every read agrees.
#[test]
fn a_full_disk_refuses_writes_and_the_queue_resumes_by_itself_when_space_is_back_needs_bwrap() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let Some(_tmpfs) = Tmpfs::mount(&data, "64m") else {
        return;
    };
    let server = Server::start(
        &data,
        &dir.path().join("server.log"),
        &[
            "--test-workers",
            "1",
            "--uid-base",
            "64300",
            "--maintainer-token",
            TOKEN,
        ],
    );
    server.wait_healthy(Duration::from_secs(90));
    let upload = |model: &str, module: &str, turns: usize| {
        let bundle = common::road_audit_bundle(model, module, turns);
        server.http("POST", "/api/v1/runs", bundle.as_bytes())
    };
    let queue = |run: i64| server.http("POST", &format!("/api/v1/runs/{run}/tests"), b"");
    let (_, baselines) = server
        .http("GET", "/api/v1/runs?origin=baseline", b"")
        .unwrap();
    let baseline = baselines["items"][0]["id"].as_i64().unwrap();

    // A run of sleeping turns, so its job is between a claim and a commit when the disk
    // fills; and a job cancelled at once, to be queued again later.
    let sleeps = "import time\ntime.sleep(1)\n";
    let (status, run) = upload("sleeping", sleeps, 5).unwrap();
    assert_eq!(status, 201, "{run}");
    let run = run["id"].as_i64().unwrap();
    let (status, cancelled) = upload("cancelled", "x = 1\n", 1).unwrap();
    assert_eq!(status, 201, "{cancelled}");
    let cancelled = cancelled["id"].as_i64().unwrap();
    let (status, job) = queue(run).unwrap();
    assert_eq!(status, 202, "{job}");
    let job = job["job"].as_i64().unwrap();
    let (status, other) = queue(cancelled).unwrap();
    assert_eq!(status, 202, "{other}");
    let other = other["job"].as_i64().unwrap();
    let bearer = format!("Bearer {TOKEN}");
    let (status, said) = server
        .http_with(
            "POST",
            &format!("/api/v1/jobs/{other}/cancel"),
            &[("Authorization", &bearer)],
            b"",
        )
        .unwrap();
    assert_eq!(status, 200, "{said}");
    server.wait_for(
        &format!("/api/v1/jobs/{job}"),
        Duration::from_secs(60),
        |p| p["turns_done"].as_u64().unwrap_or(0) >= 1,
    );
    let runs_before = run_totals(&server, 1)[0].unwrap();

    let mut problems = Vec::new();
    block_on(truncate_wal(&data));
    let filler = data.join("filler");
    fill(&filler);

    // Full: each write is refused as such, and nothing is handed out that was not stored.
    // Small uploads fail at their commit, a large one (more than SQLite's page cache) at a
    // statement inside its transaction: a connection must come back clean from both.
    let large = large_bundle();
    let mut writes: Vec<(String, Option<(u16, serde_json::Value)>)> = (0..6)
        .map(|i| {
            let module = format!("y = {i}\n");
            (
                format!("upload {i}"),
                upload(&format!("refused-{i}"), &module, 1),
            )
        })
        .collect();
    writes.push((
        "a large upload".to_owned(),
        server.http("POST", "/api/v1/runs", large.as_bytes()),
    ));
    writes.push(("queueing a new job".to_owned(), queue(baseline)));
    writes.push((
        "queueing a cancelled job again".to_owned(),
        queue(cancelled),
    ));
    for (what, reply) in writes {
        match reply {
            Some((507, body))
                if body["error"]
                    .as_str()
                    .is_some_and(|e| e.contains("disk is full")) => {}
            other => problems.push(format!("{what} on a full disk: wanted 507, got {other:?}")),
        }
    }
    // The job's next commit meets the full disk.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !server.log().contains("hidden-test attempt failed") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    if !server.log().contains("hidden-test attempt failed") {
        problems.push("no commit of the job met the full disk".to_owned());
    }

    std::fs::remove_file(&filler).unwrap();

    // Space again, no restart: the job goes on by itself and ends once.
    let deadline = Instant::now() + Duration::from_secs(60);
    let finished = loop {
        let progress = server.http("GET", &format!("/api/v1/jobs/{job}"), b"");
        match progress {
            Some((200, p)) if p["state"] == "done" || p["state"] == "failed" => break Some(p),
            _ if Instant::now() > deadline => {
                problems.push(format!(
                    "the job did not finish within a minute of space coming back: {progress:?}"
                ));
                break None;
            }
            _ => std::thread::sleep(Duration::from_millis(200)),
        }
    };
    if let Some(p) = &finished
        && (p["state"] != "done" || p["turns_done"] != 20)
    {
        problems.push(format!("the job ended as {p}"));
    }
    let (turns, distinct, results, distinct_results) = block_on(committed(&data, job));
    if (turns, distinct) != (20, 20) || results != distinct_results {
        problems.push(format!(
            "results stored more than once: {turns} turn rows for 20 turns ({distinct} distinct), {results} test rows ({distinct_results} distinct)"
        ));
    }

    // Every write works again, and what it says it stored is there.
    let uploaded = id_of(
        &mut problems,
        "an upload after space came back",
        upload("refused-0", "y = 0\n", 1),
        201,
        "id",
    );
    if let Some(id) = uploaded {
        match server.http("GET", &format!("/api/v1/runs/{id}"), b"") {
            Some((200, _)) => {}
            other => problems.push(format!("the new run {id} reads back as {other:?}")),
        }
    }
    for (what, run) in [
        ("a cancelled job queued again", cancelled),
        ("a new job", baseline),
    ] {
        if let Some(id) = id_of(&mut problems, what, queue(run), 202, "job") {
            match server.http("GET", &format!("/api/v1/jobs/{id}"), b"") {
                Some((200, p)) if p["state"] != "cancelled" => {}
                other => problems.push(format!("{what}: job {id} reads back as {other:?}")),
            }
        }
    }
    let expected = runs_before + i64::from(uploaded.is_some());
    let totals = run_totals(&server, 24);
    if totals.iter().any(|t| *t != Some(expected)) {
        problems.push(format!(
            "reads of the runs list disagree (wanted {expected}): {totals:?}"
        ));
    }
    let log = server.log();
    if log.contains("database is locked") {
        problems.push("the server logged \"database is locked\"".to_owned());
    }
    assert!(
        problems.is_empty(),
        "{problems:#?}\nlog:\n{}",
        server.log_tail()
    );
}

/// A run bundle with one turn whose files include 8 MB that do not compress: more than
/// SQLite's page cache, so storing it writes to the disk before its commit.
fn large_bundle() -> String {
    let mut bundle: Vec<serde_json::Value> = common::road_audit_bundle("large", "z = 1\n", 1)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    // A simple generator is enough: deflate finds no repeats in it.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let noise: String = (0..8 << 20)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(b'a' + (state % 26) as u8)
        })
        .collect();
    bundle[1]["files"]["solutions/road_audit/noise.txt"] = noise.into();
    bundle
        .iter()
        .map(serde_json::Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// How many turn rows `job` has in the database under `data`, how many distinct (chain,
/// turn), and the same for its test rows.
async fn committed(data: &Path, job: i64) -> (i64, i64, i64, i64) {
    let url = format!("sqlite://{}", data.join("wheelwright.sqlite").display());
    let mut db = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let turns: (i64, i64) = sqlx::query_as(
        "SELECT count(*), count(DISTINCT chain || '/' || turn) FROM test_turn WHERE job_id = ?",
    )
    .bind(job)
    .fetch_one(&mut db)
    .await
    .unwrap();
    let tests: (i64, i64) = sqlx::query_as(
        "SELECT count(*), count(DISTINCT chain || '/' || turn || '/' || module || '/' || name)
         FROM test_result WHERE job_id = ?",
    )
    .bind(job)
    .fetch_one(&mut db)
    .await
    .unwrap();
    db.close().await.unwrap();
    (turns.0, turns.1, tests.0, tests.1)
}

/// Runs a database helper of this file from a plain test (the real server needs no
/// runtime of the test's own).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}
