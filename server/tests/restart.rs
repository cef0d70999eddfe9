//! A hidden-test job survives the server being killed: after a restart it resumes and completes once (needs bwrap).

mod common;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::real_dataset;
use wheelwright_core::reporeuse::bundle::RepoReuseBundle;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start(data: &Path, port: u16) -> Child {
    Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["serve", "--skip-baseline-tests", "--test-workers", "1"])
        .arg("--data-dir")
        .arg(data)
        .arg("--datasets-dir")
        .arg(real_dataset().parent().unwrap())
        .arg("--addr")
        .arg(format!("127.0.0.1:{port}"))
        .env("WHEELWRIGHT_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wheelwright serve")
}

/// One HTTP/1.1 request over a fresh connection; the status and the body.
fn http(port: u16, method: &str, path: &str, body: &[u8]) -> Option<(u16, serde_json::Value)> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .ok()?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body).ok()?;
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).ok()?;
    let reply = String::from_utf8_lossy(&reply);
    let status = reply.get(9..12)?.parse().ok()?;
    let (_, body) = reply.split_once("\r\n\r\n")?;
    Some((
        status,
        serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
    ))
}

/// Polls `path` until `done` holds for its JSON, or panics after `limit`.
fn wait_for(
    port: u16,
    path: &str,
    limit: Duration,
    done: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = Instant::now() + limit;
    loop {
        if let Some((200, body)) = http(port, "GET", path, b"")
            && done(&body)
        {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "{path} did not get there in {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_job_interrupted_by_a_kill_completes_once_after_restart_needs_bwrap() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut first = start(data.path(), port);
    wait_for(port, "/api/v1/health", Duration::from_secs(120), |_| true);

    let dataset = wheelwright_server::dataset::load_dir(&real_dataset()).unwrap();
    let mut bundle = RepoReuseBundle::reference(&dataset);
    bundle.metadata.model = "restart".to_owned();
    let (status, run) = http(port, "POST", "/api/v1/runs", bundle.to_jsonl().as_bytes()).unwrap();
    assert_eq!(status, 201, "{run}");
    let run = run["id"].as_i64().unwrap();
    let (status, job) = http(port, "POST", &format!("/api/v1/runs/{run}/tests"), b"").unwrap();
    assert_eq!(status, 202, "{job}");
    let job = job["job"].as_i64().unwrap();

    // Kill the server (no chance to clean up) once some turns are committed, none finished.
    let seen = wait_for(
        port,
        &format!("/api/v1/jobs/{job}"),
        Duration::from_secs(300),
        |p| p["turns_done"].as_u64().unwrap_or(0) >= 2,
    );
    first.kill().unwrap();
    first.wait().unwrap();
    let done_before_kill = seen["turns_done"].as_u64().unwrap();
    assert!(
        done_before_kill < 20,
        "the job finished before the kill: {seen}"
    );

    let mut second = start(data.path(), port);
    let finished = wait_for(
        port,
        &format!("/api/v1/jobs/{job}"),
        Duration::from_secs(600),
        |p| p["state"] == "done" || p["state"] == "failed",
    );
    assert_eq!(finished["state"], "done", "{finished}");
    assert_eq!(finished["turns_done"], 20);
    assert_eq!(finished["tests_passed"], 224);

    // Once: one result per turn and per test, and the run scored with them.
    let (_, results) = http(port, "GET", &format!("/api/v1/runs/{run}/tests"), b"").unwrap();
    let turns = results["turns"].as_array().unwrap();
    let mut keys: Vec<(String, i64)> = turns
        .iter()
        .map(|t| {
            (
                t["chain"].as_str().unwrap().to_owned(),
                t["turn"].as_i64().unwrap(),
            )
        })
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!((turns.len(), keys.len()), (20, 20));
    assert_eq!(results["tests"].as_array().unwrap().len(), 224);
    let (_, stored) = http(port, "GET", &format!("/api/v1/runs/{run}"), b"").unwrap();
    assert_eq!(stored["overall"]["resolve"]["value"], 100.0);

    second.kill().unwrap();
    second.wait().unwrap();
    let mut log = String::new();
    second
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(
        log.contains("queued again"),
        "the restart did not re-queue the job:\n{log}"
    );
}
