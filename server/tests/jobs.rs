//! `/api/v1/runs/{id}/tests` and `/api/v1/jobs/{id}[/events]`: queue a run's hidden tests, follow them live, read the results (needs bwrap).

mod common;

use axum::http::StatusCode;
use common::{TestApp, app, assert_api_error, get, post_bytes, real_dataset};
use serde_json::Value;
use wheelwright_core::bundle::RunBundle;

/// Uploads the reference solutions as an agent's run; its id.
async fn upload_reference(app: &TestApp, model: &str) -> i64 {
    let dataset = wheelwright_server::dataset::load_dir(&real_dataset()).unwrap();
    let mut bundle = RunBundle::reference(&dataset);
    bundle.metadata.model = model.to_owned();
    let reply = post_bytes(app, "/api/v1/runs", bundle.to_jsonl()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    reply.json()["id"].as_i64().unwrap()
}

/// The `progress` events of a server-sent-events body, parsed.
fn progress_events(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter(|block| block.lines().any(|l| l == "event: progress"))
        .map(|block| {
            let data: String = block
                .lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .collect();
            serde_json::from_str(&data).unwrap_or_else(|e| panic!("{e}: {data}"))
        })
        .collect()
}

#[tokio::test]
async fn hidden_tests_run_once_stream_progress_and_rescore_the_run_needs_bwrap() {
    let app = app().await;
    let run = upload_reference(&app, "model-tests").await;
    let before = get(&app, &format!("/api/v1/runs/{run}")).await.json();
    assert_eq!(before["overall"]["pass"]["status"], "undefined");

    let reply = post_bytes(&app, &format!("/api/v1/runs/{run}/tests"), Vec::new()).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.text());
    let job = reply.json()["job"].as_i64().unwrap();
    assert_eq!(reply.json()["turns_total"], 20);

    // Queuing again is refused, pointing at the job.
    let again = post_bytes(&app, &format!("/api/v1/runs/{run}/tests"), Vec::new()).await;
    assert_api_error(
        &again,
        StatusCode::CONFLICT,
        &format!("already has hidden-test job {job}"),
    );

    // The event stream ends when the job does; progress only moves forward.
    let stream = tokio::time::timeout(
        std::time::Duration::from_secs(600),
        get(&app, &format!("/api/v1/jobs/{job}/events")),
    )
    .await
    .expect("the job finishes");
    assert!(
        stream.content_type.starts_with("text/event-stream"),
        "{}",
        stream.content_type
    );
    let events = progress_events(&stream.text());
    assert!(events.len() >= 2, "{events:#?}");
    let last = events.last().unwrap();
    assert_eq!(last["state"], "done", "{last:#}");
    assert_eq!(
        (last["turns_done"].as_u64(), last["turns_total"].as_u64()),
        (Some(20), Some(20))
    );
    assert_eq!(last["tests_passed"], 224);
    assert_eq!(last["tests_total"], 224);
    let done: Vec<u64> = events
        .iter()
        .map(|e| e["turns_done"].as_u64().unwrap())
        .collect();
    assert!(done.windows(2).all(|w| w[0] <= w[1]), "{done:?}");

    // The run is scored again with the results: everything resolved.
    let after = get(&app, &format!("/api/v1/runs/{run}")).await.json();
    assert_eq!(after["overall"]["pass"]["value"], 100.0);
    assert_eq!(after["overall"]["resolve"]["value"], 100.0);
    assert_eq!(
        after["overall"]["reuse_repo"],
        before["overall"]["reuse_repo"]
    );

    // Per turn and per test: names and outcomes, never failure text.
    let results = get(&app, &format!("/api/v1/runs/{run}/tests")).await;
    assert_eq!(results.status, StatusCode::OK, "{}", results.text());
    let results = results.json();
    assert_eq!(results["state"], "done");
    assert_eq!(results["turns"].as_array().unwrap().len(), 20);
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 224);
    assert!(
        tests
            .iter()
            .all(|t| t["outcome"] == "passed" && t.get("excerpt").is_none())
    );
    assert!(!results.to_string().contains("excerpt"));

    // A finished job's stream is one event.
    let replay = get(&app, &format!("/api/v1/jobs/{job}/events")).await;
    assert_eq!(progress_events(&replay.text()).len(), 1);
    assert_eq!(
        get(&app, &format!("/api/v1/jobs/{job}")).await.json()["state"],
        "done"
    );
}

#[tokio::test]
async fn unknown_runs_and_jobs_are_clear_errors() {
    let app = app().await;
    for (uri, status, words) in [
        (
            "/api/v1/jobs/999999",
            StatusCode::NOT_FOUND,
            "no job 999999",
        ),
        (
            "/api/v1/jobs/x",
            StatusCode::BAD_REQUEST,
            "is not a positive integer",
        ),
        (
            "/api/v1/jobs/999999/events",
            StatusCode::NOT_FOUND,
            "no job 999999",
        ),
        (
            "/api/v1/runs/1/tests",
            StatusCode::NOT_FOUND,
            "has no hidden-test job",
        ),
    ] {
        assert_api_error(&get(&app, uri).await, status, words);
    }
    let reply = post_bytes(&app, "/api/v1/runs/999999/tests", Vec::new()).await;
    assert_api_error(&reply, StatusCode::NOT_FOUND, "no run 999999");
}

#[tokio::test]
async fn without_a_sandbox_tests_cannot_be_queued() {
    let dir = tempfile::tempdir().unwrap();
    let config = wheelwright_server::ServeConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.path().join("data"),
        app_dir: dir.path().join("no-app"),
        datasets_dir: real_dataset().parent().unwrap().to_path_buf(),
        cache_dir: wheelwright_server::dataset::default_cache_dir(),
        tests: wheelwright_server::TestConfig {
            backend: None,
            ..wheelwright_server::TestConfig::default()
        },
        http: wheelwright_server::HttpConfig::default(),
    };
    let state = wheelwright_server::AppState::open(&config).await.unwrap();
    let app = TestApp {
        router: wheelwright_server::router(state),
        dir,
    };
    let reply = post_bytes(&app, "/api/v1/runs/1/tests", Vec::new()).await;
    assert_api_error(
        &reply,
        StatusCode::SERVICE_UNAVAILABLE,
        "no sandbox to run hidden tests in",
    );
}
