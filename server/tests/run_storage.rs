//! How runs are stored: deflated within per-run limits, read back a turn or a part at a time (the real server's memory stays flat under 16 concurrent reads of a large run), and older databases moved over with nothing lost.

use crate::common;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::{
    app, app_with_dist, assert_api_error, get, post_bytes, real_dataset, run_count, zip_of,
};
use serde_json::{Value, json};
use wheelwright_core::reporeuse::bundle::{RepoReuseBundle, TurnId};

const MIB: usize = 1024 * 1024;

fn dataset() -> wheelwright_core::reporeuse::dataset::RepoReuseDataset {
    wheelwright_server::dataset::load_dir(&real_dataset()).unwrap()
}

/// The reference solutions as an agent's run named `model`.
fn agent_bundle(model: &str) -> RepoReuseBundle {
    let mut bundle = RepoReuseBundle::reference(&dataset());
    bundle.metadata.model = model.to_owned();
    bundle.metadata.harness = "mini-SWE-agent".to_owned();
    bundle.metadata.date = "2026-11-29".to_owned();
    bundle
}

/// `bytes` bytes of log text that deflates about a hundredfold: a 16 KiB block of
/// numbered lines, repeated (deflate sees 32 KiB back).
fn log_text(bytes: usize) -> String {
    let block: String = (0..512)
        .map(|i| format!("step {i:05}: ran the tests again\n"))
        .collect();
    let mut text = block.repeat(bytes / block.len() + 1);
    text.truncate(bytes);
    text
}

/// `bundle` as a zip, each of its turns also leaving `extra` (path, text) files.
fn zip_with(bundle: &RepoReuseBundle, extra: &[(String, String)]) -> Vec<u8> {
    let mut entries: Vec<(String, Vec<u8>)> = vec![(
        "metadata.json".to_owned(),
        serde_json::to_vec(&bundle.metadata).unwrap(),
    )];
    for (TurnId { chain, turn }, files) in &bundle.predictions {
        for (path, text) in files.files.iter().chain(extra.iter().map(|(p, t)| (p, t))) {
            entries.push((
                format!("chains/{chain}/turn-{turn}/files/{path}"),
                text.as_bytes().to_vec(),
            ));
        }
    }
    let refs: Vec<(&str, &[u8])> = entries
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    zip_of(&refs)
}

/// The metadata and one turn's entries of a zip whose logs inflate to `files` x `each`
/// bytes of one letter, which deflates a thousandfold (deflate's best).
fn bomb(files: usize, each: usize) -> Vec<u8> {
    let bundle = agent_bundle("model-bomb");
    let metadata = serde_json::to_vec(&bundle.metadata).unwrap();
    let text = "a".repeat(each);
    let names: Vec<String> = (0..files)
        .map(|i| format!("chains/road-audit/turn-1/files/logs/{i:02}.log"))
        .collect();
    let mut entries: Vec<(&str, &[u8])> = vec![("metadata.json", &metadata)];
    entries.extend(names.iter().map(|n| (n.as_str(), text.as_bytes())));
    zip_of(&entries)
}

#[tokio::test]
async fn a_small_zip_that_inflates_to_hundreds_of_megabytes_is_refused_and_nothing_is_stored() {
    let app = app().await;
    let before = run_count(&app).await;
    for (name, files, limit) in [
        // Within what core reads of a bundle (256 MiB), over what a run may store.
        (
            "195 MiB, within the bundle limits",
            13,
            "over the 134217728 bytes a stored run may hold",
        ),
        // Over what core reads: stopped while inflating.
        (
            "270 MiB, over the bundle limits",
            18,
            "holds more than 268435456 bytes once decompressed",
        ),
    ] {
        let body = bomb(files, 15 * MIB);
        eprintln!("{name}: a zip of {} bytes", body.len());
        assert!(
            body.len() < 400 * 1024,
            "{name}: the zip is {} bytes",
            body.len()
        );
        let reply = post_bytes(&app, "/api/v1/runs", body).await;
        assert_api_error(&reply, StatusCode::PAYLOAD_TOO_LARGE, limit);
        assert_eq!(run_count(&app).await, before, "{name} stored something");
    }
    let health = get(&app, "/api/v1/health").await;
    assert_eq!(health.status, StatusCode::OK);
}

// ---------------------------------------------------------------------------------------
// The real server under concurrent reads of a large run.

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The server, killed (by its own pid) when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(data: &Path) -> Server {
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["serve", "--backend", "none", "--data-dir"])
        .arg(data)
        .arg("--datasets-dir")
        .arg(real_dataset().parent().unwrap())
        .arg("--addr")
        .arg(format!("127.0.0.1:{port}"))
        // Scoring and storing a 100 MiB run in a debug build on a busy machine can take
        // longer than the default 30 s; these tests measure memory and storage, not speed.
        .args(["--request-timeout", "300"])
        .env("WHEELWRIGHT_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start wheelwright serve");
    let server = Server { child, port };
    let deadline = Instant::now() + Duration::from_secs(120);
    while http(port, "GET", "/api/v1/health", b"").map(|r| r.0) != Some(200) {
        assert!(Instant::now() < deadline, "the server never became healthy");
        std::thread::sleep(Duration::from_millis(100));
    }
    server
}

/// One HTTP/1.1 request on a fresh connection: the status and the body (de-chunked).
fn http(port: u16, method: &str, path: &str, body: &[u8]) -> Option<(u16, Vec<u8>)> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .ok()?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body).ok()?;
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).ok()?;
    let split = reply.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&reply[..split]).to_lowercase();
    let status = head.get(9..12)?.parse().ok()?;
    let mut body = reply[split + 4..].to_vec();
    if head.contains("transfer-encoding: chunked") {
        let mut plain = Vec::new();
        let mut rest = &body[..];
        loop {
            let line = rest.windows(2).position(|w| w == b"\r\n")?;
            let size = usize::from_str_radix(std::str::from_utf8(&rest[..line]).ok()?, 16).ok()?;
            if size == 0 {
                break;
            }
            plain.extend_from_slice(&rest[line + 2..line + 2 + size]);
            rest = &rest[line + 2 + size + 2..];
        }
        body = plain;
    }
    Some((status, body))
}

/// A field of `/proc/<pid>/status` in KiB (`VmRSS`, `VmHWM`).
fn proc_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// Sends `requests` copies of GET `path` at once; each reply's status and size.
fn concurrently(port: u16, path: &str, requests: usize) -> Vec<(u16, usize)> {
    let threads: Vec<_> = (0..requests)
        .map(|_| {
            let path = path.to_owned();
            std::thread::spawn(move || {
                let (status, body) = http(port, "GET", &path, b"").expect("an answer");
                (status, body.len())
            })
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

#[test]
fn sixteen_concurrent_reads_of_a_large_run_keep_the_real_servers_memory_flat() {
    let data = tempfile::tempdir().unwrap();
    let server = start(data.path());
    let pid = server.child.id();

    // 20 turns, each also leaving a 5 MiB log: 100 MiB of text in a zip of about 1 MiB.
    let log = log_text(5 * MIB);
    let body = zip_with(
        &agent_bundle("model-large"),
        &[("logs/agent.log".to_owned(), log.clone())],
    );
    let (status, reply) = http(server.port, "POST", "/api/v1/runs", &body).unwrap();
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&reply));
    let run: Value = serde_json::from_slice(&reply).unwrap();
    let id = run["id"].as_i64().unwrap();

    // Stored deflated: the whole database is a fraction of the text it holds.
    let stored: u64 = std::fs::read_dir(data.path())
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("wheelwright.sqlite")
        })
        .map(|e| e.metadata().unwrap().len())
        .sum();
    eprintln!(
        "zip {} bytes, 100 MiB of text, database {stored} bytes",
        body.len()
    );
    assert!(
        stored < 16 * MIB as u64,
        "the database takes {stored} bytes"
    );

    // 16 reads at once of the run, its turn table and a turn's case, each measured from
    // the RSS before it (the upload's peak forgotten): each answer is small, and memory
    // grows by what the answers hold, not by the run's 100 MiB.
    let case = format!("/api/v1/runs/{id}/chains/road-audit/turns/1");
    for (path, largest, growth_kib) in [
        (format!("/api/v1/runs/{id}"), 64 * 1024, 32 * 1024),
        (
            format!("/api/v1/runs/{id}/turns?format=csv"),
            256 * 1024,
            32 * 1024,
        ),
        (case.clone(), 5 * MIB / 4, 128 * 1024),
    ] {
        std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();
        let before = proc_kib(pid, "VmRSS");
        let replies = concurrently(server.port, &path, 16);
        let peak = proc_kib(pid, "VmHWM");
        for (status, size) in &replies {
            assert_eq!(*status, 200, "{path}");
            assert!(*size < largest, "{path}: a {size}-byte answer");
        }
        eprintln!(
            "16 x GET {path}: {} bytes each; RSS {before} KiB before, peak {peak} KiB",
            replies[0].1
        );
        assert!(
            peak.saturating_sub(before) < growth_kib,
            "16 x GET {path} raised the server's RSS from {before} KiB to {peak} KiB"
        );
    }

    // The log is still there whole, and the server still answers.
    let (status, whole) = http(
        server.port,
        "GET",
        &format!("{case}/files?path=logs/agent.log"),
        b"",
    )
    .unwrap();
    assert_eq!(status, 200);
    assert!(whole == log.as_bytes(), "the log comes back whole");
    assert_eq!(
        http(server.port, "GET", "/api/v1/health", b"").unwrap().0,
        200
    );
}

// ---------------------------------------------------------------------------------------
// Databases of the previous version: files and trajectories as JSON text in run_turn.

/// The migrations of the version before run_file (the files of `server/migrations` up
/// to and including the runs and test jobs).
const OLD_MIGRATIONS: [&str; 5] = [
    "20261129000000_server_meta.sql",
    "20261129000001_published.sql",
    "20261129000002_datasets.sql",
    "20261129000003_runs.sql",
    "20261129000004_test_jobs.sql",
];

/// What the old version stored for a turn: its files (as the JSON column) and trajectory.
fn old_turns() -> Vec<(&'static str, i64, Value, Option<String>)> {
    let big: String = (0..120_000)
        .map(|i| format!("# line {i} ünïcödé ✓\n"))
        .collect();
    assert!(big.len() > 2 * MIB, "spans three parts at least");
    vec![
        (
            "road-audit",
            1,
            json!({
                "solutions/road_audit/distances.py": "def f():\n    return \"\\u0000\"\n",
                "notes/control.txt": "a\u{0}b\u{1}c\u{7f}\"\\",
                "notes/big.txt": big,
                "notes/empty.txt": "",
            }),
            Some("{\"trajectory_format\": \"generic-1\", \"steps\": []}".to_owned()),
        ),
        ("road-audit", 2, json!({}), None),
        (
            "road-audit",
            3,
            json!({"solutions/road_audit/x.py": "x = 1\n"}),
            Some("not JSON at all \u{1}".to_owned()),
        ),
    ]
}

/// A database at the old schema in `data`, holding one run (id 1) with [`old_turns`].
async fn old_database(data: &Path) {
    use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
    let migrations = tempfile::tempdir().unwrap();
    for name in OLD_MIGRATIONS {
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("migrations")
            .join(name);
        std::fs::copy(from, migrations.path().join(name)).unwrap();
    }
    std::fs::create_dir_all(data).unwrap();
    let options = SqliteConnectOptions::new()
        .filename(data.join("wheelwright.sqlite"))
        .create_if_missing(true);
    let pool = SqlitePoolOptions::new()
        .connect_with(options)
        .await
        .unwrap();
    sqlx::migrate::Migrator::new(migrations.path())
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO run (id, origin, benchmark, dataset_name, dataset_version, dataset_sha256,
             bundle_sha256, model, harness, memory, run_date, scorer_version, grammar_version,
             chains, turns, overall, series, diagnostics, created_at)
         VALUES (1, 'verified', 'reporeuse', 'reporeuse-networkx', '1', 'old', 'old-bundle',
             'old-model', 'h', 'none', '2026-11-29', 'old', 'old', 1, 3, '{}', '{}', '[]',
             '2026-11-29T00:00:00Z')",
    )
    .execute(&pool)
    .await
    .unwrap();
    for (chain, turn, files, trajectory) in old_turns() {
        // The scorer's row as every version stored it: the nine columns were there from
        // the first scorer on, so a row without them is not a row this database held.
        let undefined = json!({"status": "undefined", "reason": "no_targets"});
        let mut score = json!({"chain": chain, "turn": turn, "path": "p.py", "submission": "present",
            "syntax_errors": false, "reimplemented": [], "unknown_targets": [], "targets": [],
            "trajectory": null});
        for column in wheelwright_core::reporeuse::metrics::run::COLUMNS {
            score[column] = undefined.clone();
        }
        sqlx::query(
            "INSERT INTO run_turn (run_id, chain, turn, files, trajectory, score)
             VALUES (1, ?, ?, ?, ?, ?)",
        )
        .bind(chain)
        .bind(turn)
        .bind(files.to_string())
        .bind(trajectory)
        .bind(score.to_string())
        .execute(&pool)
        .await
        .unwrap();
    }
    pool.close().await;
}

/// Every part of every stored text: (file id, part, encoding, bytes).
async fn all_parts(pool: &sqlx::SqlitePool) -> Vec<(i64, i64, String, Vec<u8>)> {
    sqlx::query_as("SELECT file_id, part, encoding, data FROM run_file_part ORDER BY file_id, part")
        .fetch_all(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn an_older_database_is_moved_to_deflated_parts_with_nothing_lost_once() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    old_database(&data).await;

    // Opening it migrates and deflates; what the queue reads is what was stored.
    let store = wheelwright_server::store::Store::open(&data).await.unwrap();
    let pool = store.pool();
    let parts = all_parts(pool).await;
    assert!(
        parts.iter().all(|p| p.2 == "deflate"),
        "every part deflated"
    );
    let texts = wheelwright_server::store::run_files::run_texts(&store, 1, true)
        .await
        .unwrap();
    assert_eq!(texts.len(), 3, "every stored turn, with or without files");
    for (chain, turn, files, trajectory) in old_turns() {
        let got = &texts[&(chain.to_owned(), usize::try_from(turn).unwrap())];
        assert_eq!(
            serde_json::to_value(&got.files).unwrap(),
            files,
            "{chain} {turn}"
        );
        assert_eq!(got.trajectory, trajectory, "{chain} {turn}");
    }
    let big: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM run_file_part JOIN run_file ON run_file.id = file_id
         WHERE path = 'notes/big.txt'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    let big_text = old_turns()[0].2["notes/big.txt"]
        .as_str()
        .unwrap()
        .to_owned();
    let expected = wheelwright_server::store::run_files::split(&big_text).count();
    assert!(expected >= 3);
    assert_eq!(usize::try_from(big).unwrap(), expected, "a part per MiB");
    store.close().await;

    // Opening it again changes nothing.
    let store = wheelwright_server::store::Store::open(&data).await.unwrap();
    assert_eq!(all_parts(store.pool()).await, parts);
    store.close().await;

    // And the server shows the moved files.
    let app = app_with_dist(dir, None).await;
    let base = "/api/v1/runs/1/chains/road-audit/turns/1";
    let case = get(&app, base).await;
    assert_eq!(case.status, StatusCode::OK, "{}", case.text());
    let case = case.json();
    assert_eq!(
        case["submission"]["text"],
        "def f():\n    return \"\\u0000\"\n"
    );
    assert_eq!(case["trajectory"]["present"], true);
    let old = &old_turns()[0].2;
    let whole = get(&app, &format!("{base}/files?path=notes/big.txt")).await;
    assert_eq!(whole.text(), old["notes/big.txt"].as_str().unwrap());
    let control = get(&app, &format!("{base}/files?path=notes/control.txt")).await;
    assert_eq!(control.text(), old["notes/control.txt"].as_str().unwrap());
}
