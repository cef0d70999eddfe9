//! `/api/v1/runs/{id}/tests` and `/api/v1/jobs/{id}[/events]`: queue a run's hidden tests, follow them live, read the results (needs bwrap).

use crate::common;

use axum::http::{StatusCode, header};
use common::{TestApp, app, assert_api_error, get, post_bytes, real_dataset};
use serde_json::Value;
use wheelwright_core::reporeuse::bundle::RepoReuseBundle;

/// Uploads the reference solutions as an agent's run; its id.
async fn upload_reference(app: &TestApp, model: &str) -> i64 {
    let dataset = wheelwright_server::dataset::load_dir(&real_dataset()).unwrap();
    let mut bundle = RepoReuseBundle::reference(&dataset);
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

/// A router whose hidden tests run as `tests` says.
async fn app_with(tests: wheelwright_server::TestConfig) -> TestApp {
    common::app_with_tests(tests).await
}

/// Uploads a run whose road-audit turns 1..=`turns` hold `module` at their module paths
/// (the other turns are missing); its id.
async fn upload_module(app: &TestApp, model: &str, module: &str, turns: usize) -> i64 {
    let reply = post_bytes(
        app,
        "/api/v1/runs",
        common::road_audit_bundle(model, module, turns),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    reply.json()["id"].as_i64().unwrap()
}

async fn queue_tests(app: &TestApp, run: i64) -> i64 {
    let reply = post_bytes(app, &format!("/api/v1/runs/{run}/tests"), Vec::new()).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.text());
    reply.json()["job"].as_i64().unwrap()
}

/// Polls the job until `done(progress)` or `limit` passes; the last progress.
async fn wait_for(
    app: &TestApp,
    job: i64,
    limit: std::time::Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let start = std::time::Instant::now();
    loop {
        let progress = get(app, &format!("/api/v1/jobs/{job}")).await.json();
        if done(&progress) {
            return progress;
        }
        assert!(start.elapsed() < limit, "job {job} still {progress:#}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// The database of a test app, opened beside the server (to read the order turns ran in).
async fn database(app: &TestApp) -> sqlx::SqlitePool {
    sqlx::SqlitePool::connect(&format!(
        "sqlite:{}",
        app.dir.path().join("data/wheelwright.sqlite").display()
    ))
    .await
    .unwrap()
}

/// Waits until every one of `jobs` is done; the job of each committed turn, in the order
/// the turns were committed.
async fn turn_order_once_done(app: &TestApp, jobs: &[i64]) -> Vec<i64> {
    for &job in jobs {
        wait_for(app, job, std::time::Duration::from_secs(300), |p| {
            p["state"] == "done"
        })
        .await;
    }
    sqlx::query_scalar("SELECT job_id FROM test_turn ORDER BY rowid")
        .fetch_all(&database(app).await)
        .await
        .unwrap()
}

/// Every job's failed attempts and last error, to say why a turn order was not the expected
/// one (a failed attempt waits for its retry while other jobs are served).
async fn attempts_said(app: &TestApp) -> Vec<(i64, i64, Option<String>)> {
    sqlx::query_as("SELECT id, attempts, error FROM test_job ORDER BY id")
        .fetch_all(&database(app).await)
        .await
        .unwrap()
}

const SLEEPS_FOREVER: &str = "import time\ntime.sleep(3600)\n";

#[tokio::test]
async fn turns_of_queued_runs_are_served_round_robin_needs_bwrap() {
    let app = app_with(wheelwright_server::TestConfig {
        workers: 1,
        ..wheelwright_server::TestConfig::default()
    })
    .await;
    // Turn 1 of each run takes two seconds; the other 19 turns have no file (failed at once).
    let slow = "import time\ntime.sleep(2)\n";
    let a = upload_module(&app, "first", slow, 1).await;
    let b = upload_module(&app, "second", &format!("{slow}# b\n"), 1).await;
    let job_a = queue_tests(&app, a).await;
    let job_b = queue_tests(&app, b).await;
    let order = turn_order_once_done(&app, &[job_a, job_b]).await;
    assert_eq!(order.len(), 40);
    // The second run's first turn did not wait for the first run's twenty.
    let first_b = order.iter().position(|&j| j == job_b).unwrap();
    assert!(first_b <= 1, "{order:?}");
    // Then they alternate while both have turns left.
    assert!(
        order.windows(2).all(|w| w[0] != w[1]),
        "turns did not alternate: {order:?}; jobs {:?}",
        attempts_said(&app).await
    );
}

/// Queues the tests of `run` as the client at `peer`; the reply.
async fn queue_from(app: &TestApp, peer: &str, run: i64) -> common::Reply {
    common::post_from(app, peer, &format!("/api/v1/runs/{run}/tests"), Vec::new()).await
}

#[tokio::test]
async fn submitters_take_turns_however_many_runs_each_queues_needs_bwrap() {
    let app = app_with(wheelwright_server::TestConfig {
        workers: 1,
        ..wheelwright_server::TestConfig::default()
    })
    .await;
    // One client queues three runs, another one; 20 turns each (19 without a file, which
    // fail at once).
    let mut runs = Vec::new();
    for (peer, model) in [
        ("10.0.0.1", "many-1"),
        ("10.0.0.1", "many-2"),
        ("10.0.0.1", "many-3"),
        ("10.0.0.2", "one"),
    ] {
        let run = upload_module(&app, model, &format!("x = 1  # {model}\n"), 1).await;
        runs.push((peer, run));
    }
    // Queued together (uploads are scored, slower than a turn without a file).
    let mut jobs = Vec::new();
    for (peer, run) in runs {
        let reply = queue_from(&app, peer, run).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.text());
        jobs.push(reply.json()["job"].as_i64().unwrap());
    }
    let order = turn_order_once_done(&app, &jobs).await;
    assert_eq!(order.len(), 80);
    let lone = jobs[3];
    let turns_of_lone: Vec<usize> = order
        .iter()
        .enumerate()
        .filter(|&(_, &job)| job == lone)
        .map(|(at, _)| at)
        .collect();
    // The lone run's submitter is served every other turn, as if the other had one run
    // (round robin over runs would serve it every fourth turn).
    assert!(turns_of_lone[0] <= 2, "{order:?}");
    assert!(
        turns_of_lone.windows(2).all(|w| w[1] - w[0] == 2),
        "the lone run waited behind the other client's runs: {order:?}; jobs {:?}",
        attempts_said(&app).await
    );
    // The many runs of one client are served in turn among themselves.
    let many: Vec<i64> = order.iter().copied().filter(|&job| job != lone).collect();
    assert!(
        many[..9]
            .windows(3)
            .all(|w| w[0] != w[1] && w[1] != w[2] && w[0] != w[2]),
        "{many:?}"
    );
}

#[tokio::test]
async fn a_client_has_at_most_its_limit_of_jobs_waiting_needs_bwrap() {
    let app = app_with(wheelwright_server::TestConfig {
        workers: 1,
        jobs_per_client: 2,
        maintainer_token: Some("s3cret-token".to_owned()),
        ..wheelwright_server::TestConfig::default()
    })
    .await;
    let mut runs = Vec::new();
    for model in ["a", "b", "c", "d"] {
        runs.push(upload_module(&app, model, &format!("{SLEEPS_FOREVER}# {model}\n"), 1).await);
    }
    let queued = |peer: &'static str, run: i64| {
        let app = &app;
        async move {
            let reply = queue_from(app, peer, run).await;
            assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.text());
            reply.json()["job"].as_i64().unwrap()
        }
    };
    let first = queued("10.0.0.1", runs[0]).await;
    let second = queued("10.0.0.1", runs[1]).await;
    let over = queue_from(&app, "10.0.0.1", runs[2]).await;
    assert_api_error(
        &over,
        StatusCode::TOO_MANY_REQUESTS,
        "this client has 2 hidden-test jobs queued or running, its limit",
    );
    assert_eq!(over.headers[header::RETRY_AFTER], "60");
    // Another client is counted apart.
    let other = queued("10.0.0.2", runs[2]).await;
    // A job that ends gives its place back.
    let cancel = |job: i64| {
        common::send(
            &app,
            axum::http::Request::post(format!("/api/v1/jobs/{job}/cancel"))
                .header("authorization", "Bearer s3cret-token")
                .body(axum::body::Body::empty())
                .unwrap(),
        )
    };
    assert_eq!(cancel(first).await.status, StatusCode::OK);
    let last = queued("10.0.0.1", runs[3]).await;
    // End the test without sleeping sandboxes left behind.
    for job in [second, other, last] {
        assert_eq!(cancel(job).await.status, StatusCode::OK);
    }
}

#[tokio::test]
async fn a_run_over_its_time_budget_fails_its_remaining_turns_without_running_them_needs_bwrap() {
    // 20 turns at 0.1 s each: a budget of 2 s, spent by the first sleeping turn.
    let app = app_with(wheelwright_server::TestConfig {
        workers: 1,
        turn_timeout: std::time::Duration::from_secs(20),
        turn_budget: std::time::Duration::from_millis(100),
        ..wheelwright_server::TestConfig::default()
    })
    .await;
    let run = upload_module(&app, "sleeper", SLEEPS_FOREVER, 5).await;
    let started = std::time::Instant::now();
    let job = queue_tests(&app, run).await;
    let last = wait_for(&app, job, std::time::Duration::from_secs(120), |p| {
        p["state"] == "done"
    })
    .await;
    assert_eq!(last["tests_passed"], 0);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "five sleeping turns took {:?}",
        started.elapsed()
    );
    let pool = database(&app).await;
    let spent: f64 = sqlx::query_scalar("SELECT sum(duration_s) FROM test_turn WHERE job_id = ?")
        .bind(job)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(spent < 10.0, "the run spent {spent} s of a 2 s budget");
    // The first turn ran into the budget; the later sleeping turns never ran.
    let outcomes: Vec<(i64, String, String)> = sqlx::query_as(
        "SELECT turn, outcome, excerpt FROM test_result WHERE job_id = ? AND chain = 'road-audit'",
    )
    .bind(job)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(
        outcomes.iter().all(|(_, o, _)| o == "timed_out"),
        "{outcomes:?}"
    );
    assert!(
        outcomes
            .iter()
            .filter(|(t, _, _)| *t >= 2)
            .all(|(_, _, e)| e.contains("time budget")),
        "{outcomes:?}"
    );
}

#[tokio::test]
async fn maintainers_cancel_a_job_at_once_and_it_can_be_queued_again_needs_bwrap() {
    let app = app_with(wheelwright_server::TestConfig {
        workers: 1,
        maintainer_token: Some("s3cret-token".to_owned()),
        ..wheelwright_server::TestConfig::default()
    })
    .await;
    let run = upload_module(&app, "stuck", SLEEPS_FOREVER, 1).await;
    let job = queue_tests(&app, run).await;
    wait_for(&app, job, std::time::Duration::from_secs(60), |p| {
        p["state"] == "running"
    })
    .await;
    // Let the sandbox start.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let cancel = |token: Option<&'static str>| {
        let mut request = axum::http::Request::post(format!("/api/v1/jobs/{job}/cancel"));
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        common::send(&app, request.body(axum::body::Body::empty()).unwrap())
    };
    for token in [None, Some("wrong")] {
        assert_api_error(
            &cancel(token).await,
            StatusCode::UNAUTHORIZED,
            "needs the server's maintainer token",
        );
    }
    let started = std::time::Instant::now();
    let reply = cancel(Some("s3cret-token")).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.json()["state"], "cancelled");
    // The sandbox stops at once; the stopped turn is not committed.
    wait_for(&app, job, std::time::Duration::from_secs(10), |p| {
        p["state"] == "cancelled" && p["turns_done"] == 0
    })
    .await;
    let pool = database(&app).await;
    let busy = || async {
        sqlx::query_scalar::<_, i64>("SELECT busy FROM test_job WHERE id = ?")
            .bind(job)
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    while busy().await == 1 {
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_api_error(
        &cancel(Some("s3cret-token")).await,
        StatusCode::CONFLICT,
        "is cancelled",
    );
    // Queued again, it runs again (and is cancelled again, to end the test).
    assert_eq!(queue_tests(&app, run).await, job);
    wait_for(&app, job, std::time::Duration::from_secs(60), |p| {
        p["state"] == "running"
    })
    .await;
    assert_eq!(cancel(Some("s3cret-token")).await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_failing_environment_is_retried_then_fails_and_can_be_queued_again_needs_bwrap() {
    // Environments cannot be built under a regular file: every attempt fails.
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("not-a-directory");
    std::fs::write(&blocker, "x").unwrap();
    let app = app_with(wheelwright_server::TestConfig {
        workers: 1,
        env_root: blocker.join("envs"),
        retry_delay: std::time::Duration::from_millis(200),
        ..wheelwright_server::TestConfig::default()
    })
    .await;
    let run = upload_module(&app, "retried", "x = 1\n", 1).await;
    let job = queue_tests(&app, run).await;
    // Retried after 0.2 s, then 0.8 s, then the third failure fails the job.
    let last = wait_for(&app, job, std::time::Duration::from_secs(60), |p| {
        p["state"] == "failed"
    })
    .await;
    let message = last["message"].as_str().unwrap();
    assert!(message.starts_with("failed 3 times in a row"), "{message}");
    assert!(!message.contains(dir.path().to_str().unwrap()), "{message}");
    let attempts: i64 = sqlx::query_scalar("SELECT attempts FROM test_job WHERE id = ?")
        .bind(job)
        .fetch_one(&database(&app).await)
        .await
        .unwrap();
    assert_eq!(attempts, 3);
    // A failed job is not stuck: it can be queued again.
    assert_eq!(queue_tests(&app, run).await, job);
    assert_eq!(
        get(&app, &format!("/api/v1/jobs/{job}")).await.json()["state"]
            .as_str()
            .map(|s| s == "queued" || s == "running"),
        Some(true)
    );
}

#[tokio::test]
async fn the_uploads_diagnostics_survive_the_rescore_needs_bwrap() {
    // Two turns of one chain: the upload says what the bundle lacked (the other chains,
    // the later turns); the re-score sees stored, empty turns and would not.
    let app = app().await;
    let run = upload_module(&app, "model-diagnostics", "x = 1\n", 2).await;
    let before = get(&app, &format!("/api/v1/runs/{run}")).await.json();
    let diagnostics = before["diagnostics"].clone();
    assert!(
        diagnostics
            .as_array()
            .is_some_and(|d| d.iter().any(|d| d["message"]
                .as_str()
                .unwrap()
                .contains("the run stops after turn 2"))),
        "{diagnostics:#}"
    );
    let job = queue_tests(&app, run).await;
    wait_for(&app, job, std::time::Duration::from_secs(600), |p| {
        p["state"] == "done"
    })
    .await;
    let after = get(&app, &format!("/api/v1/runs/{run}")).await.json();
    assert_eq!(after["overall"]["pass"]["status"], "defined", "{after:#}");
    assert_eq!(after["diagnostics"], diagnostics);
}
