//! Writes at once on the real server: forty uploads while a hidden-test job commits turns are all stored, none refused as "database is locked" (needs bwrap).

use crate::common;

use std::sync::{Arc, Barrier};
use std::time::Duration;

use common::serve::Server;

/// Uploads that wait for one another's write lock, and a job's commits between them: SQLite
/// cannot upgrade a transaction that read before another connection committed, so a
/// deferred `BEGIN` that reads first fails at once instead of waiting its turn.
#[test]
fn forty_uploads_while_a_job_commits_are_all_stored_needs_bwrap() {
    let data = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let server = Server::start(
        data.path(),
        &logs.path().join("server.log"),
        &[
            "--test-workers",
            "1",
            "--uid-base",
            "64350",
            // Every upload is worked on at once (none is turned away as busy) and none
            // times out while the others are scored on this machine's few cores.
            "--analysis-workers",
            "40",
            // All from one address here.
            "--analysis-workers-per-client",
            "40",
            "--request-timeout",
            "110",
        ],
    );
    server.wait_healthy(Duration::from_secs(90));
    // Five turns of two seconds each: the job commits while the uploads are scored.
    let bundle = common::road_audit_bundle("committing", "import time\ntime.sleep(2)\n", 5);
    let (status, run) = server
        .http("POST", "/api/v1/runs", bundle.as_bytes())
        .unwrap();
    assert_eq!(status, 201, "{run}");
    let run = run["id"].as_i64().unwrap();
    let (status, job) = server
        .http("POST", &format!("/api/v1/runs/{run}/tests"), b"")
        .unwrap();
    assert_eq!(status, 202, "{job}");
    let job = job["job"].as_i64().unwrap();
    server.wait_for(
        &format!("/api/v1/jobs/{job}"),
        Duration::from_secs(60),
        |p| p["turns_done"].as_u64().unwrap_or(0) >= 1,
    );

    let start = Arc::new(Barrier::new(40));
    let uploads: Vec<_> = (0..40)
        .map(|i| {
            let start = Arc::clone(&start);
            let port = server.port;
            // ReCUBE runs: scored faster than RepoReuse's, stored by the same statements.
            let bundle = [
                serde_json::json!({"metadata": {
                    "model": format!("upload-{i}"), "harness": "test", "memory": "none",
                    "date": "2026-12-01", "dataset": {"name": "recube-pypi", "version": "1"}}}),
                serde_json::json!({"instance_id": "click-parser",
                    "files": {"click/parser.py": format!("y = {i}\n")}}),
            ]
            .map(|line| line.to_string())
            .join("\n");
            std::thread::spawn(move || {
                start.wait();
                common::serve::http(port, "POST", "/api/v1/recube/runs", &[], bundle.as_bytes())
            })
        })
        .collect();
    let replies: Vec<_> = uploads.into_iter().map(|t| t.join().unwrap()).collect();
    let refused: Vec<_> = replies
        .iter()
        .filter(|r| !matches!(r, Some((201, _))))
        .collect();
    assert!(
        refused.is_empty(),
        "{} of 40 uploads were not stored: {refused:?}\nlog:\n{}",
        refused.len(),
        server.log_tail()
    );
    for (_, body) in replies.iter().flatten() {
        let id = body["summary"]["id"].as_i64().unwrap();
        let (status, _) = server
            .http("GET", &format!("/api/v1/runs/{id}"), b"")
            .unwrap();
        assert_eq!(status, 200, "run {id} does not read back");
    }

    let finished = server.wait_for(
        &format!("/api/v1/jobs/{job}"),
        Duration::from_secs(60),
        |p| p["state"] == "done" || p["state"] == "failed",
    );
    assert_eq!(finished["state"], "done", "{finished}");
    assert_eq!(finished["turns_done"], 20, "{finished}");
    assert!(
        !server.log().contains("database is locked"),
        "{}",
        server.log_tail()
    );
}
