//! `GET /api/v1/benchmarks` and `GET /api/v1/benchmarks/{benchmark}/published` (one table
//! as CSV with `?table=<id>&format=csv`).

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};

use super::table::Format;
use wheelwright_core::benchmark::Benchmark;

use crate::AppState;
use crate::error::AppError;
use wheelwright_core::api::{BenchmarkSummary, Published, TableSummary};

pub(crate) async fn list(
    State(state): State<AppState>,
) -> Result<Json<Vec<BenchmarkSummary>>, AppError> {
    let mut out = Vec::new();
    for benchmark in Benchmark::ALL {
        let source = state.store.published_source(benchmark).await?;
        let tables = state.store.published_tables(benchmark, None).await?;
        out.push(BenchmarkSummary {
            id: benchmark.id().to_owned(),
            title: benchmark.title().to_owned(),
            source: source.map(|s| s.source),
            leaderboard_table: benchmark.leaderboard_table().0.to_owned(),
            tables: tables
                .into_iter()
                .map(|t| TableSummary {
                    id: t.id,
                    title: t.title,
                    rows: t.rows.len(),
                })
                .collect(),
        });
    }
    Ok(Json(out))
}

/// Parses a benchmark id from a path, or answers 404 naming the known ones.
pub(crate) fn benchmark(id: &str) -> Result<Benchmark, AppError> {
    Benchmark::from_id(id).ok_or_else(|| {
        let known: Vec<&str> = Benchmark::ALL.iter().map(|b| b.id()).collect();
        AppError::not_found(format!(
            "no benchmark {id:?}; known benchmarks: {}",
            known.join(", ")
        ))
    })
}

pub(crate) async fn published(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let benchmark = benchmark(&id)?;
    let format = Format::parse(params.get("format").map(String::as_str))?;
    let source = state
        .store
        .published_source(benchmark)
        .await?
        .ok_or_else(|| AppError::not_found("no published results for this benchmark"))?;
    let tables = state.store.published_tables(benchmark, None).await?;
    if format == Format::Csv {
        // A CSV file holds one table: the one named by `table`.
        let ids: Vec<&str> = tables.iter().map(|t| t.id.as_str()).collect();
        let wanted = params.get("table").ok_or_else(|| {
            AppError::bad_request(format!(
                "format=csv needs table=<id>, one of {}",
                ids.join(", ")
            ))
        })?;
        let table = tables.iter().find(|t| &t.id == wanted).ok_or_else(|| {
            AppError::not_found(format!(
                "no table {wanted:?}; the tables are {}",
                ids.join(", ")
            ))
        })?;
        let records: Vec<serde_json::Value> = table
            .rows
            .iter()
            .map(|row| {
                let mut record = serde_json::Map::new();
                for (k, v) in &row.labels {
                    record.insert(k.clone(), serde_json::Value::from(v.clone()));
                }
                for (k, v) in &row.metrics {
                    record.insert(k.clone(), serde_json::Value::from(*v));
                }
                serde_json::Value::Object(record)
            })
            .collect();
        let mut order: Vec<&str> = vec!["harness", "model", "memory", "setting"];
        order.extend(table.columns.iter().map(String::as_str));
        return Ok(super::table::csv(
            &format!("{}-{}", benchmark.id(), table.id),
            wheelwright_core::table::to_csv(&records, &order),
        ));
    }
    Ok(Json(Published {
        benchmark: benchmark.id().to_owned(),
        source: source.source,
        notes: source.notes,
        tables,
    })
    .into_response())
}
