//! `GET /api/v1/benchmarks` and `GET /api/v1/benchmarks/{benchmark}/published`.

use axum::Json;
use axum::extract::{Path, State};
use serde::Serialize;
use wheelwright_core::benchmark::Benchmark;

use crate::AppState;
use crate::error::AppError;
use crate::published::{self, StoredTable};

#[derive(Serialize)]
pub(crate) struct BenchmarkSummary {
    id: &'static str,
    title: &'static str,
    /// The paper whose results are reported, when imported.
    source: Option<String>,
    /// The published table used as the leaderboard.
    leaderboard_table: &'static str,
    tables: Vec<TableSummary>,
}

#[derive(Serialize)]
pub(crate) struct TableSummary {
    id: String,
    title: String,
    rows: usize,
}

pub(crate) async fn list(
    State(state): State<AppState>,
) -> Result<Json<Vec<BenchmarkSummary>>, AppError> {
    let mut out = Vec::new();
    for benchmark in Benchmark::ALL {
        let source = published::source(&state.pool, benchmark).await?;
        let tables = published::tables(&state.pool, benchmark, None).await?;
        out.push(BenchmarkSummary {
            id: benchmark.id(),
            title: benchmark.title(),
            source: source.map(|s| s.source),
            leaderboard_table: benchmark.leaderboard_table().0,
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

#[derive(Serialize)]
pub(crate) struct Published {
    benchmark: &'static str,
    source: String,
    notes: String,
    tables: Vec<StoredTable>,
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
) -> Result<Json<Published>, AppError> {
    let benchmark = benchmark(&id)?;
    let source = published::source(&state.pool, benchmark)
        .await?
        .ok_or_else(|| AppError::not_found("no published results for this benchmark"))?;
    Ok(Json(Published {
        benchmark: benchmark.id(),
        source: source.source,
        notes: source.notes,
        tables: published::tables(&state.pool, benchmark, None).await?,
    }))
}
