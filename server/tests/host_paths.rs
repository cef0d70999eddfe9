//! Messages that reach clients never contain the server's own paths (data, datasets, cache and environment directories), even when the cause inside the server names them: a failed hidden-test job, refused uploads, a missing repository file.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::{TestApp, get, post_bytes, real_dataset, zip_of};

/// Prefixes of host paths a client message must not contain, besides the server's dirs.
const HOST_PREFIXES: [&str; 5] = ["/tmp/", "/root/", "/home/", "/var/", "/work/"];

/// Fails when `message` names one of `dirs` or any host path prefix.
fn assert_no_host_path(message: &str, dirs: &[&Path]) {
    for dir in dirs {
        let dir = dir.display().to_string();
        assert!(!message.contains(&dir), "{message:?} names {dir}");
    }
    for prefix in HOST_PREFIXES {
        assert!(
            !message.contains(prefix),
            "{message:?} names a {prefix} path"
        );
    }
}

/// A server whose hidden tests cannot build their environment: its root is under a
/// regular file, so creating it fails with an error that names the path.
async fn app_with_broken_env_root(dir: tempfile::TempDir) -> (TestApp, PathBuf) {
    let file = dir.path().join("not-a-directory");
    std::fs::write(&file, "").unwrap();
    let env_root = file.join("envs");
    let config = wheelwright_server::ServeConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.path().join("data"),
        app_dir: dir.path().join("no-app"),
        datasets_dir: real_dataset().parent().unwrap().to_path_buf(),
        cache_dir: wheelwright_server::dataset::default_cache_dir(),
        tests: wheelwright_server::TestConfig {
            env_root: env_root.clone(),
            workers: 1,
            // Never started: the environment fails first. Its own range all the same.
            uid_base: Some(62_800),
            retry_delay: std::time::Duration::from_millis(100),
            ..wheelwright_server::TestConfig::default()
        },
        http: wheelwright_server::HttpConfig::default(),
    };
    let state = wheelwright_server::AppState::open(&config).await.unwrap();
    let app = TestApp {
        router: wheelwright_server::router(state),
        dir,
    };
    (app, env_root)
}

#[tokio::test]
async fn a_failed_job_says_so_without_the_paths_in_its_cause_needs_bwrap() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_owned();
    let (app, env_root) = app_with_broken_env_root(dir).await;
    let run = get(&app, "/api/v1/runs").await.json()["items"][0]["id"].clone();
    let queued = post_bytes(&app, &format!("/api/v1/runs/{run}/tests"), Vec::new()).await;
    assert_eq!(queued.status, StatusCode::ACCEPTED, "{}", queued.text());
    let job = queued.json()["job"].clone();
    let deadline = Instant::now() + Duration::from_secs(60);
    let progress = loop {
        let progress = get(&app, &format!("/api/v1/jobs/{job}")).await.json();
        if progress["state"] == "failed" {
            break progress;
        }
        assert!(
            Instant::now() < deadline,
            "the job never failed: {progress}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let message = progress["message"].as_str().unwrap();
    assert!(
        message.contains("error inside the server") && message.contains("log has the details"),
        "{message}"
    );
    assert_no_host_path(message, &[&env_root, &data]);
    assert_eq!(get(&app, "/api/v1/health").await.status, StatusCode::OK);
}

#[tokio::test]
async fn refused_uploads_and_missing_files_name_the_client_s_entries_only() {
    let app = common::app().await;
    let data = app.dir.path().to_owned();
    let datasets = real_dataset();
    let cache = wheelwright_server::dataset::default_cache_dir();
    let dirs: [&Path; 3] = [&data, &datasets, &cache];
    let metadata = br#"{"model": "m", "harness": "h", "memory": "none", "date": "2026-12-01",
        "dataset": {"name": "reporeuse-networkx", "version": "1"}}"#;
    // (what is sent, the status, words the message must have)
    let cases: Vec<(Vec<u8>, StatusCode, &str)> = vec![
        (
            zip_of(&[("metadata.json", metadata), ("../escape.py", b"x = 1\n")]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "../escape.py",
        ),
        (
            zip_of(&[("metadata.json", b"{ not json")]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "metadata.json",
        ),
        (
            b"PK\x03\x04 not really a zip".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "not a readable zip file",
        ),
        (
            format!(
                "{{\"metadata\": {}}}\n{{\"instance_id\": \"nowhere/turn-1\"}}\n",
                String::from_utf8_lossy(metadata).replace('\n', " ")
            )
            .into_bytes(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "no chain \"nowhere\"",
        ),
    ];
    let before = common::run_count(&app).await;
    for (body, status, words) in cases {
        let reply = post_bytes(&app, "/api/v1/runs", body).await;
        common::assert_api_error(&reply, status, words);
        assert_no_host_path(reply.json()["error"].as_str().unwrap(), &dirs);
    }
    let missing = get(
        &app,
        "/api/v1/datasets/reporeuse-networkx/1/source?path=networkx/no_such_module.py",
    )
    .await;
    common::assert_api_error(&missing, StatusCode::NOT_FOUND, "no file");
    assert_no_host_path(missing.json()["error"].as_str().unwrap(), &dirs);
    assert_eq!(
        common::run_count(&app).await,
        before,
        "a refused upload was stored"
    );
    assert_eq!(get(&app, "/api/v1/health").await.status, StatusCode::OK);
}
