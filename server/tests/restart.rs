//! A hidden-test job survives the server being killed: after a restart it resumes and completes once (needs bwrap).

use crate::common;

use std::time::Duration;

use common::real_dataset;
use common::serve::Server;
use wheelwright_core::reporeuse::bundle::RepoReuseBundle;

#[test]
fn a_job_interrupted_by_a_kill_completes_once_after_restart_needs_bwrap() {
    let data = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let first = Server::start(
        data.path(),
        &logs.path().join("first.log"),
        &["--test-workers", "1"],
    );
    first.wait_healthy(Duration::from_secs(120));

    let dataset = wheelwright_server::dataset::load_dir(&real_dataset()).unwrap();
    let mut bundle = RepoReuseBundle::reference(&dataset);
    bundle.metadata.model = "restart".to_owned();
    let (status, run) = first
        .http("POST", "/api/v1/runs", bundle.to_jsonl().as_bytes())
        .unwrap();
    assert_eq!(status, 201, "{run}");
    let run = run["id"].as_i64().unwrap();
    let (status, job) = first
        .http("POST", &format!("/api/v1/runs/{run}/tests"), b"")
        .unwrap();
    assert_eq!(status, 202, "{job}");
    let job = job["job"].as_i64().unwrap();

    // Kill the server (no chance to clean up) once some turns are committed, none finished.
    let seen = first.wait_for(
        &format!("/api/v1/jobs/{job}"),
        Duration::from_secs(300),
        |p| p["turns_done"].as_u64().unwrap_or(0) >= 2,
    );
    drop(first);
    let done_before_kill = seen["turns_done"].as_u64().unwrap();
    assert!(
        done_before_kill < 20,
        "the job finished before the kill: {seen}"
    );

    let second = Server::start(
        data.path(),
        &logs.path().join("second.log"),
        &["--test-workers", "1"],
    );
    let finished = second.wait_for(
        &format!("/api/v1/jobs/{job}"),
        Duration::from_secs(600),
        |p| p["state"] == "done" || p["state"] == "failed",
    );
    assert_eq!(finished["state"], "done", "{finished}");
    assert_eq!(finished["turns_done"], 20);
    assert_eq!(finished["tests_passed"], 224);

    // Once: one result per turn and per test, and the run scored with them.
    let (_, results) = second
        .http("GET", &format!("/api/v1/runs/{run}/tests"), b"")
        .unwrap();
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
    let (_, stored) = second
        .http("GET", &format!("/api/v1/runs/{run}"), b"")
        .unwrap();
    assert_eq!(stored["overall"]["resolve"]["value"], 100.0);

    let log = second.log();
    assert!(
        log.contains("queued again"),
        "the restart did not re-queue the job:\n{log}"
    );
}
