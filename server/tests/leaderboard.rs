//! `GET /api/v1/leaderboard/{benchmark}`: reported rows, filters, sorting, CSV, bad queries.

use crate::common;

use axum::http::StatusCode;
use common::{app, assert_api_error, get};

fn models(body: &serde_json::Value) -> Vec<String> {
    body["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{} / {}",
                r["labels"]["harness"].as_str().unwrap_or(""),
                r["labels"]["model"].as_str().unwrap()
            )
        })
        .collect()
}

/// The RepoReuse Table 2 rows from the bundled file, sorted by a metric, best first.
fn expected_order(metric: &str, filter: Option<(&str, &str)>) -> Vec<String> {
    let path = format!(
        "{}/../data/published/reporeuse.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut rows: Vec<serde_json::Value> = file["tables"][0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| filter.is_none_or(|(k, v)| r[k] == v))
        .cloned()
        .collect();
    rows.sort_by(|a, b| b[metric].as_f64().partial_cmp(&a[metric].as_f64()).unwrap());
    rows.iter()
        .map(|r| {
            format!(
                "{} / {}",
                r["harness"].as_str().unwrap(),
                r["model"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn the_reporeuse_leaderboard_is_table_2_reported_with_interface_memory() {
    let app = app().await;
    let body = get(
        &app,
        "/api/v1/leaderboard/reporeuse?origin=reported&sort=resolve",
    )
    .await
    .json();
    assert_eq!(models(&body), expected_order("resolve", None));
    assert_eq!(
        body["metrics"],
        serde_json::json!([
            "reuse_repo",
            "reuse_self",
            "recall_repo",
            "recall_self",
            "files",
            "lines",
            "resolve",
            "pass",
            "c_dup"
        ])
    );
    for row in body["rows"].as_array().unwrap() {
        assert_eq!(row["origin"], "reported");
        assert_eq!(row["labels"]["memory"], "interface");
        assert!(
            row["source"]
                .as_str()
                .unwrap()
                .contains("Reinvent the Wheel")
        );
    }
}

#[tokio::test]
async fn filters_and_ascending_order_apply() {
    let app = app().await;
    let body = get(
        &app,
        "/api/v1/leaderboard/reporeuse?harness=OpenCode&sort=c_dup&order=asc",
    )
    .await
    .json();
    let mut expected = expected_order("c_dup", Some(("harness", "OpenCode")));
    expected.reverse();
    assert_eq!(models(&body), expected);
    assert!(!expected.is_empty());
    // Without an order, best first: C_dup is lower-is-better, so ascending.
    let best_first = get(
        &app,
        "/api/v1/leaderboard/reporeuse?harness=OpenCode&sort=c_dup",
    )
    .await
    .json();
    assert_eq!(models(&best_first), expected);
    let none = get(&app, "/api/v1/leaderboard/reporeuse?origin=verified")
        .await
        .json();
    assert_eq!(none["rows"], serde_json::json!([]));
}

#[tokio::test]
async fn csv_download_has_a_header_and_a_line_per_row() {
    let app = app().await;
    let reply = get(&app, "/api/v1/leaderboard/recube?format=csv").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.content_type.starts_with("text/csv"));
    let text = reply.text();
    let lines: Vec<&str> = text.lines().collect();
    // The paper's labels, then the harness of the dataset's baselines (runs have no setting).
    assert_eq!(
        lines[0],
        "origin,cohort,model,setting,harness,spr,apr,spr_external,apr_external,spr_internal,apr_internal,source"
    );
    let json = get(&app, "/api/v1/leaderboard/recube").await.json();
    assert_eq!(lines.len() - 1, json["rows"].as_array().unwrap().len());
}

#[tokio::test]
async fn bad_queries_are_400s_that_say_what_is_allowed() {
    let app = app().await;
    let cases = [
        ("/api/v1/leaderboard/reporeuse?modle=x", "filter by one of"),
        ("/api/v1/leaderboard/reporeuse?sort=speed", "sort by one of"),
        ("/api/v1/leaderboard/reporeuse?order=up", "asc or desc"),
        ("/api/v1/leaderboard/reporeuse?format=xml", "json or csv"),
        (
            "/api/v1/leaderboard/reporeuse?origin=rumour",
            "reported, verified, baseline",
        ),
    ];
    for (uri, words) in cases {
        assert_api_error(&get(&app, uri).await, StatusCode::BAD_REQUEST, words);
    }
    assert_api_error(
        &get(&app, "/api/v1/leaderboard/nope").await,
        StatusCode::NOT_FOUND,
        "known benchmarks",
    );
}
