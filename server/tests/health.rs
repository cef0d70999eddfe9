//! `GET /api/v1/health` and unknown API paths.

use crate::common;

use axum::http::StatusCode;
use common::{app, assert_api_error, get};

#[tokio::test]
async fn health_reports_versions_and_a_migrated_database() {
    let app = app().await;
    let reply = get(&app, "/api/v1/health").await;
    assert_eq!(reply.status, StatusCode::OK);
    let body = reply.json();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["scorer"], wheelwright_core::SCORER_VERSION);
    assert_eq!(body["grammar"], wheelwright_core::syntax::GRAMMAR_VERSION);
    let migrations = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "sql")
        })
        .count();
    assert_eq!(body["database"]["schema_version"], migrations as u64);
    assert!(
        body["database"]["created_at"]
            .as_str()
            .unwrap()
            .starts_with("20")
    );
}

#[tokio::test]
async fn the_database_survives_a_restart_with_its_creation_date() {
    let first = app().await;
    let created = get(&first, "/api/v1/health").await.json()["database"]["created_at"].clone();
    let dir = first.dir;
    let again = common::app_with_dist(dir, None).await;
    let reply = get(&again, "/api/v1/health").await.json();
    assert_eq!(reply["database"]["created_at"], created);
}

#[tokio::test]
async fn unknown_api_paths_are_json_404s() {
    let app = app().await;
    for path in ["/api/v1/nope", "/api/v2/health", "/api"] {
        let reply = get(&app, path).await;
        assert_api_error(&reply, StatusCode::NOT_FOUND, "no such API endpoint");
    }
}
