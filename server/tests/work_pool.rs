//! The pool of CPU-heavy work (analyses, upload scoring) through the router: with one slot, a second request while a slow upload is scored is answered 503 with `Retry-After`; an abandoned or timed-out upload stops its work and frees the slot promptly; nothing is stored, and the server still answers.
//!
//! The slow input is a valid zip bundle whose 20 turns each submit 6 MiB of Python, near
//! the 128 MiB a stored run may hold: scored to the end it takes about 7 s here (0.35 s a
//! turn in the test profile; with 1 MiB a turn it took 3 s, too close to the checks
//! below). So the checks while it holds the slot come within its first 2 s. Scoring
//! checks its cancellation flag at every turn, but reading and hashing the bundle run to
//! their end, so an abandoned upload lets go of its slot within a few seconds here (2 to
//! 4.5 s measured): [`FREED_WITHIN`] bounds that.

use crate::common;

use std::time::{Duration, Instant};

use axum::http::{StatusCode, header};
use common::{TestApp, assert_api_error, get, post_bytes, post_json, real_dataset, run_count};
use wheelwright_server::HttpConfig;

/// How soon after its request is gone the slot must be free again.
const FREED_WITHIN: Duration = Duration::from_secs(15);

/// An app whose work pool has one slot, answering within `request_timeout`.
async fn one_slot(request_timeout: Duration) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    common::app_with(
        dir,
        HttpConfig {
            workers: 1,
            request_timeout,
            ..HttpConfig::default()
        },
    )
    .await
}

/// Python of about `bytes` bytes: many small definitions, each calling others.
fn big_module(bytes: usize) -> String {
    let mut source = String::with_capacity(bytes + 64);
    let mut i = 0;
    while source.len() < bytes {
        source.push_str(&format!(
            "def f{i}(x):\n    return g(x) + h(x, y=[1, 2, 3])\n"
        ));
        i += 1;
    }
    source
}

/// A zip bundle of every turn of the dataset, each submitting 6 MiB of Python.
fn slow_bundle() -> Vec<u8> {
    let dataset = wheelwright_server::dataset::load_dir(&real_dataset()).expect("the dataset");
    let module = big_module(6 << 20);
    let metadata = serde_json::json!({
        "model": "slow-check", "harness": "test", "memory": "none", "date": "2026-12-01",
        "dataset": {"name": "reporeuse-networkx", "version": "1"}
    })
    .to_string();
    let mut entries: Vec<(String, Vec<u8>)> = vec![("metadata.json".into(), metadata.into())];
    for chain in &dataset.chains {
        for (t, turn) in chain.turns.iter().enumerate() {
            entries.push((
                format!(
                    "chains/{}/turn-{}/files/{}",
                    chain.manifest.id,
                    t + 1,
                    turn.manifest.module_path
                ),
                module.clone().into_bytes(),
            ));
        }
    }
    let refs: Vec<(&str, &[u8])> = entries
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    common::zip_of(&refs)
}

/// A valid JSON Lines bundle that scores quickly.
fn quick_bundle() -> String {
    let dataset = wheelwright_server::dataset::load_dir(&real_dataset()).expect("the dataset");
    let mut bundle = wheelwright_core::reporeuse::bundle::RepoReuseBundle::reference(&dataset);
    bundle.metadata.model = "quick-check".to_owned();
    bundle.to_jsonl()
}

const SMALL_ANALYSIS: &str = r#"{"source": "def f():\n    return g()\n"}"#;

/// Starts an upload of `body` on its own task; a slow one holds the only slot until its
/// task is dropped.
fn start_upload(app: &TestApp, body: Vec<u8>) -> tokio::task::JoinHandle<common::Reply> {
    let router = app.router.clone();
    tokio::spawn(async move {
        let request = axum::http::Request::post("/api/v1/runs")
            .header(header::CONTENT_TYPE, "application/zip")
            .body(axum::body::Body::from(body))
            .unwrap();
        reply(tower::ServiceExt::oneshot(router, request).await.unwrap()).await
    })
}

async fn reply(response: axum::response::Response) -> common::Reply {
    common::reply_of(response).await
}

/// Starts the slow upload and waits until it holds the slot: the first 503 an analysis
/// gets, with its `Retry-After`, and the upload's task. An analysis probing at the moment
/// the upload asks for the slot makes the upload itself 503; it is then started again.
async fn hold_the_slot(
    app: &TestApp,
) -> (
    common::Reply,
    String,
    tokio::task::JoinHandle<common::Reply>,
) {
    let body = slow_bundle();
    let mut slow = start_upload(app, body.clone());
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if slow.is_finished() {
            let lost = slow.await.unwrap();
            assert_api_error(&lost, StatusCode::SERVICE_UNAVAILABLE, "busy");
            slow = start_upload(app, body.clone());
        }
        let response = tower::ServiceExt::oneshot(
            app.router.clone(),
            axum::http::Request::post("/api/v1/analyze")
                .header(header::CONTENT_TYPE, "application/json")
                .body(axum::body::Body::from(SMALL_ANALYSIS))
                .unwrap(),
        )
        .await
        .unwrap();
        if response.status() == StatusCode::SERVICE_UNAVAILABLE {
            let retry_after = response.headers()[header::RETRY_AFTER]
                .to_str()
                .unwrap()
                .to_owned();
            return (reply(response).await, retry_after, slow);
        }
        assert_eq!(response.status(), StatusCode::OK);
        assert!(
            Instant::now() < deadline,
            "the slow upload never took the slot"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Retries a small analysis until it is answered 200; how long that took. Fails after
/// [`FREED_WITHIN`].
async fn slot_freed(app: &TestApp) -> Duration {
    let started = Instant::now();
    loop {
        let reply = post_json(app, "/api/v1/analyze", SMALL_ANALYSIS).await;
        if reply.status == StatusCode::OK {
            assert_eq!(reply.json()["definitions"][0]["qualified_name"], "f");
            return started.elapsed();
        }
        assert_api_error(&reply, StatusCode::SERVICE_UNAVAILABLE, "busy");
        assert!(
            started.elapsed() < FREED_WITHIN,
            "the slot was still taken {FREED_WITHIN:?} after its request was gone"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_full_pool_answers_503_and_an_abandoned_upload_frees_its_slot() {
    let app = one_slot(Duration::from_secs(300)).await;
    let before = run_count(&app).await;
    let (busy, retry_after, slow) = hold_the_slot(&app).await;
    assert_api_error(&busy, StatusCode::SERVICE_UNAVAILABLE, "server is busy");
    assert_api_error(&busy, StatusCode::SERVICE_UNAVAILABLE, "all 1 of its slots");
    assert_eq!(retry_after, "5");
    // An upload is refused the same way, and stores nothing.
    let upload = post_bytes(&app, "/api/v1/runs", quick_bundle()).await;
    assert_api_error(&upload, StatusCode::SERVICE_UNAVAILABLE, "retry in 5 s");
    // Reading is not work: the server still answers everything else.
    assert_eq!(get(&app, "/api/v1/health").await.status, StatusCode::OK);

    // Into scoring, the upload still holds the slot; then its client goes away (hyper
    // drops the request's future, as here).
    tokio::time::sleep(Duration::from_secs(1)).await;
    let still = post_json(&app, "/api/v1/analyze", SMALL_ANALYSIS).await;
    assert_api_error(&still, StatusCode::SERVICE_UNAVAILABLE, "server is busy");
    slow.abort();
    match slow.await {
        Err(error) => assert!(error.is_cancelled(), "{error}"),
        Ok(reply) => panic!("the slow upload finished: {}", reply.text()),
    }
    let freed = slot_freed(&app).await;
    eprintln!("slot free {freed:?} after the upload was abandoned");
    assert_eq!(
        run_count(&app).await,
        before,
        "the abandoned upload was stored"
    );
    // The freed slot takes an upload again.
    let stored = post_bytes(&app, "/api/v1/runs", quick_bundle()).await;
    assert_eq!(stored.status, StatusCode::CREATED, "{}", stored.text());
    assert_eq!(run_count(&app).await, before + 1);
}

#[tokio::test]
async fn a_timed_out_upload_is_answered_408_and_its_work_stops() {
    let timeout = Duration::from_secs(2);
    let app = one_slot(timeout).await;
    let before = run_count(&app).await;
    let body = slow_bundle();
    let started = Instant::now();
    let reply = start_upload(&app, body).await.unwrap();
    let answered = started.elapsed();
    assert_api_error(&reply, StatusCode::REQUEST_TIMEOUT, "took longer than 2 s");
    assert!(
        answered < timeout + Duration::from_secs(10),
        "answered after {answered:?}"
    );
    let freed = slot_freed(&app).await;
    eprintln!("slot free {freed:?} after the 408");
    assert_eq!(
        run_count(&app).await,
        before,
        "the timed-out upload was stored"
    );
    assert_eq!(get(&app, "/api/v1/health").await.status, StatusCode::OK);
}
