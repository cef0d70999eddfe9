//! Two memory attacks of the second review against the real server, its peak resident memory read from `/proc`: an upload flood whose clients stall, and many reads of one large trajectory's observations.
//!
//! Before the body budget and the pooled observations route, the first held every
//! client's upload whole (64 x 90 MiB) and the second parsed the trajectory once per
//! request (32 at once); each killed a server capped at 6 GiB. Here the server's peak
//! resident memory must stay within what its limits allow.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::serve::Server;

/// MiB the server may grow beyond what its limits hold (buffers, connections, allocator).
const SLACK_MIB: u64 = 160;

/// MiB two parses of a 14 MiB trajectory's observations may hold at once: each holds the
/// trajectory's text and its parse, about 25 MiB (32 at once, without the pool, grew the
/// server by 770 MiB).
const PARSES_MIB: u64 = 128;

/// Sends the headers of an upload declaring `declared` bytes, then up to `send` MiB of it,
/// then stalls `stall` without finishing; how many MiB the server took before it answered
/// or closed, and the status it answered (if it did).
fn stalled_upload(
    port: u16,
    declared: usize,
    send: usize,
    stall: Duration,
) -> (usize, Option<u16>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_write_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let head = format!(
        "POST /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\nContent-Length: {declared}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b'x'; 1 << 20];
    let mut sent = 0;
    for _ in 0..send {
        if stream.write_all(&chunk).is_err() {
            break;
        }
        sent += 1;
    }
    std::thread::sleep(stall);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let status = String::from_utf8_lossy(&reply)
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok());
    (sent, status)
}

#[test]
fn an_upload_flood_that_stalls_is_held_within_the_body_budget() {
    let data = tempfile::tempdir().unwrap();
    let log = data.path().join("server.log");
    let budget_mib = 256;
    let server = Server::start(
        data.path(),
        &log,
        &[
            "--backend",
            "none",
            "--upload-memory",
            &budget_mib.to_string(),
            "--request-timeout",
            "60",
            // The flood and the health checks share one address here.
            "--max-connections-per-client",
            "128",
        ],
    );
    server.wait_healthy(Duration::from_secs(180));
    let before = server.peak_rss_mib();
    let port = server.port;
    let clients: Vec<_> = (0..64)
        .map(|_| {
            std::thread::spawn(move || stalled_upload(port, 94 << 20, 90, Duration::from_secs(3)))
        })
        .collect();
    // While the flood stalls, the server still answers.
    std::thread::sleep(Duration::from_secs(2));
    let (health, _) = server
        .http("GET", "/api/v1/health", b"")
        .expect("health answers");
    assert_eq!(health, 200);
    let results: Vec<(usize, Option<u16>)> =
        clients.into_iter().map(|c| c.join().unwrap()).collect();
    let peak = server.peak_rss_mib();
    let refused = results.iter().filter(|(_, s)| *s == Some(503)).count();
    eprintln!("upload flood: peak {peak} MiB, {before} MiB before; {refused} of 64 refused");
    assert!(
        peak <= before + budget_mib + SLACK_MIB,
        "peak {peak} MiB, {before} MiB before the flood, budget {budget_mib} MiB; {refused} of 64 refused: {results:?}"
    );
    assert!(
        refused >= 60,
        "{refused} of 64 refused with 503: {results:?}"
    );
    let log_text = server.log();
    assert!(!log_text.contains("panicked"), "{}", server.log_tail());
    // Once the flood is gone, an honest upload is taken.
    let bundle = common::road_audit_bundle("after-the-flood", "def f():\n    return 1\n", 1);
    let (status, reply) = server
        .http("POST", "/api/v1/runs", bundle.as_bytes())
        .expect("the upload is answered");
    assert_eq!(status, 201, "{reply}");
}

/// A real trajectory (the largest vendored one) with its messages repeated until it is
/// about `mib` MiB: a long agent run of the real shape.
fn long_trajectory(mib: usize) -> serde_json::Value {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/fixtures/real/gemini-3-pro");
    let largest = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".traj.json.gz"))
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let text = common::gunzip(&std::fs::read(largest).unwrap());
    let mut trajectory: serde_json::Value = serde_json::from_slice(&text).unwrap();
    let messages = trajectory["messages"].as_array().unwrap().clone();
    let one = serde_json::to_vec(&messages).unwrap().len();
    let copies = (mib << 20) / one;
    let all = trajectory["messages"].as_array_mut().unwrap();
    for _ in 1..copies {
        all.extend(messages.iter().skip(2).cloned());
    }
    trajectory
}

#[test]
fn many_reads_of_a_large_trajectory_are_parsed_within_the_work_pool() {
    let data = tempfile::tempdir().unwrap();
    let log = data.path().join("server.log");
    let server = Server::start(
        data.path(),
        &log,
        &[
            "--backend",
            "none",
            "--analysis-workers",
            "2",
            // The readers share one address here: let them have the whole pool.
            "--analysis-workers-per-client",
            "2",
            "--request-timeout",
            "120",
            "--max-connections-per-client",
            "128",
        ],
    );
    server.wait_healthy(Duration::from_secs(180));
    let dataset = wheelwright_server::dataset::load_dir(&common::real_dataset()).unwrap();
    let turn = &dataset
        .chains
        .iter()
        .find(|c| c.manifest.id == "road-audit")
        .unwrap()
        .turns[0];
    let trajectory = long_trajectory(14);
    let bundle = [
        serde_json::json!({"metadata": {
            "model": "long-trajectory", "harness": "test", "memory": "none",
            "date": "2026-12-06", "dataset": {"name": "reporeuse-networkx", "version": "1"}}})
        .to_string(),
        serde_json::json!({
            "instance_id": "road-audit/turn-1",
            "files": {turn.manifest.module_path.clone(): "def f():\n    return 1\n"},
            "trajectory": trajectory,
        })
        .to_string(),
    ]
    .join("\n");
    assert!(bundle.len() > 12 << 20, "{} bytes", bundle.len());
    let (status, reply) = server
        .http("POST", "/api/v1/runs", bundle.as_bytes())
        .expect("the upload is answered");
    assert_eq!(status, 201, "{reply}");
    let id = reply["id"].as_i64().expect("the run's id");
    let path = format!("/api/v1/runs/{id}/chains/road-audit/turns/1/observations");
    // One read on its own: it is served, and what it costs is known.
    let (status, one) = server.http("GET", &path, b"").expect("answered");
    assert_eq!(status, 200);
    assert!(
        one["observations"]
            .as_array()
            .is_some_and(|o| !o.is_empty())
    );
    let before = server.peak_rss_mib();
    let port = server.port;
    let readers: Vec<_> = (0..32)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                common::serve::http(port, "GET", &path, &[], b"").map(|(status, _)| status)
            })
        })
        .collect();
    let statuses: Vec<Option<u16>> = readers.into_iter().map(|r| r.join().unwrap()).collect();
    let peak = server.peak_rss_mib();
    let served = statuses.iter().filter(|s| **s == Some(200)).count();
    // Refused at once: 503 when the pool is full, 429 when this client holds it all.
    let busy = statuses
        .iter()
        .filter(|s| matches!(s, Some(429 | 503)))
        .count();
    eprintln!("observations: peak {peak} MiB, {before} MiB before; {served} served, {busy} busy");
    assert_eq!(served + busy, 32, "{statuses:?}");
    assert!(served >= 2, "{statuses:?}");
    // Two slots of the pool, each holding one trajectory and its parse at most: far from
    // 32 at once.
    assert!(
        peak <= before + PARSES_MIB + SLACK_MIB,
        "peak {peak} MiB, {before} MiB before the reads; {served} served, {busy} busy"
    );
}
