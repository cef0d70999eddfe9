//! `GET /api/v1/benchmarks` and `GET /api/v1/benchmarks/{benchmark}/published`.

use crate::common;

use axum::http::StatusCode;
use common::{app, assert_api_error, get};
use wheelwright_core::published;

/// The bundled files, read the way a person would check them.
fn bundled(id: &str) -> published::PublishedFile {
    let path = format!("{}/../data/published/{id}.json", env!("CARGO_MANIFEST_DIR"));
    published::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn every_benchmark_is_listed_with_its_paper_and_tables() {
    let app = app().await;
    let reply = get(&app, "/api/v1/benchmarks").await;
    assert_eq!(reply.status, StatusCode::OK);
    let listed = reply.json();
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["reporeuse", "recube", "schrodinger"]);
    for benchmark in listed.as_array().unwrap() {
        let file = bundled(benchmark["id"].as_str().unwrap());
        assert_eq!(benchmark["source"], file.source.as_str());
        let tables: Vec<(String, u64)> = benchmark["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["id"].as_str().unwrap().to_owned(),
                    t["rows"].as_u64().unwrap(),
                )
            })
            .collect();
        let expected: Vec<(String, u64)> = file
            .tables
            .iter()
            .map(|t| (t.id.clone(), t.rows.len() as u64))
            .collect();
        assert_eq!(tables, expected);
    }
}

#[tokio::test]
async fn published_tables_are_the_files_rows_split_into_labels_and_metrics() {
    let app = app().await;
    for id in ["reporeuse", "recube", "schrodinger"] {
        let reply = get(&app, &format!("/api/v1/benchmarks/{id}/published")).await;
        assert_eq!(reply.status, StatusCode::OK, "{id}");
        let body = reply.json();
        let file = bundled(id);
        assert_eq!(body["notes"], file.notes.as_str());
        for (served, table) in body["tables"].as_array().unwrap().iter().zip(&file.tables) {
            let rows: Vec<published::ReportedRow> =
                serde_json::from_value(served["rows"].clone()).unwrap();
            assert_eq!(rows, table.reported_rows().unwrap(), "{id} {}", table.id);
            assert_eq!(served["columns"], serde_json::json!(table.metric_columns()));
        }
    }
}

#[tokio::test]
async fn unknown_benchmarks_are_404s_naming_the_known_ones() {
    let app = app().await;
    let reply = get(&app, "/api/v1/benchmarks/swebench/published").await;
    assert_api_error(
        &reply,
        StatusCode::NOT_FOUND,
        "reporeuse, recube, schrodinger",
    );
}

#[tokio::test]
async fn restarting_does_not_import_twice() {
    let first = app().await;
    let again = common::app_with_dist(first.dir, None).await;
    let body = get(&again, "/api/v1/benchmarks").await.json();
    let rows = body[0]["tables"][0]["rows"].as_u64().unwrap();
    assert_eq!(rows as usize, bundled("reporeuse").tables[0].rows.len());
}
