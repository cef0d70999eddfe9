//! `GET /api/v1/datasets`, `GET /api/v1/datasets/{name}/{version}` and `.../source`: the
//! imported datasets; for one, its chains and turns with their requirements and targets, and
//! its repository's source files by path and line range.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::table::{Format, respond};
use crate::AppState;
use crate::error::AppError;

/// Column orders of the CSV downloads.
const DATASET_ORDER: [&str; 7] = [
    "name",
    "version",
    "benchmark",
    "chain_count",
    "turn_count",
    "test_count",
    "content_sha256",
];
const DATASET_TURN_ORDER: [&str; 8] = [
    "chain",
    "turn",
    "title",
    "module_path",
    "repo_targets",
    "self_targets",
    "tests",
    "requirement",
];

/// Most lines one source request returns; ask for ranges to read more.
pub(crate) const MAX_SOURCE_LINES: usize = 5_000;

#[derive(Serialize, sqlx::FromRow)]
pub(crate) struct DatasetSummary {
    name: String,
    version: String,
    benchmark: String,
    content_sha256: String,
    /// Counts; a dataset's detail lists its `turns` themselves.
    #[serde(rename = "chain_count")]
    chains: i64,
    #[serde(rename = "turn_count")]
    turns: i64,
    #[serde(rename = "test_count")]
    tests: i64,
}

pub(crate) async fn list(
    State(state): State<AppState>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let format = Format::parse(params.get("format").map(String::as_str))?;
    let rows = sqlx::query_as::<_, DatasetSummary>(
        "SELECT name, version, benchmark, content_sha256, chains, turns, tests
         FROM dataset ORDER BY name, version",
    )
    .fetch_all(&state.pool)
    .await
    .map_err(anyhow::Error::from)?;
    respond(format, "datasets", &DATASET_ORDER, &rows)
}

#[derive(Serialize, sqlx::FromRow)]
pub(crate) struct TurnRow {
    chain: String,
    turn: i64,
    title: String,
    module_path: String,
    requirement: String,
    #[serde(serialize_with = "stored_json")]
    repo_targets: String,
    #[serde(serialize_with = "stored_json")]
    self_targets: String,
    tests: i64,
}

/// Sends a column that holds JSON (written by the importer) as JSON, not as a string.
pub(crate) fn stored_json<S: serde::Serializer>(
    text: &str,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(serde::ser::Error::custom)?;
    value.serialize(serializer)
}

#[derive(Serialize)]
pub(crate) struct DatasetDetail {
    #[serde(flatten)]
    summary: DatasetSummary,
    turns: Vec<TurnRow>,
}

pub(crate) async fn get(
    State(state): State<AppState>,
    Path((name, version)): Path<(String, String)>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let format = Format::parse(params.get("format").map(String::as_str))?;
    let summary = sqlx::query_as::<_, DatasetSummary>(
        "SELECT name, version, benchmark, content_sha256, chains, turns, tests
         FROM dataset WHERE name = ? AND version = ?",
    )
    .bind(&name)
    .bind(&version)
    .fetch_optional(&state.pool)
    .await
    .map_err(anyhow::Error::from)?
    .ok_or_else(|| {
        AppError::not_found(format!(
            "no dataset {name:?} at version {version:?}; GET /api/v1/datasets lists them"
        ))
    })?;
    let turns = sqlx::query_as::<_, TurnRow>(
        "SELECT chain, turn, title, module_path, requirement, repo_targets, self_targets, tests
         FROM dataset_turn WHERE dataset_name = ? AND dataset_version = ?
         ORDER BY rowid",
    )
    .bind(&name)
    .bind(&version)
    .fetch_all(&state.pool)
    .await
    .map_err(anyhow::Error::from)?;
    if format == Format::Csv {
        return respond(
            format,
            &format!("{name}-{version}-turns"),
            &DATASET_TURN_ORDER,
            &turns,
        );
    }
    Ok(Json(DatasetDetail { summary, turns }).into_response())
}

#[derive(Serialize)]
pub(crate) struct SourceLines {
    path: String,
    /// First and last line returned, 1-based and inclusive.
    start: usize,
    end: usize,
    /// Lines in the whole file.
    total_lines: usize,
    text: String,
}

#[derive(Serialize)]
pub(crate) struct SourceFiles {
    files: Vec<String>,
}

/// `GET /api/v1/datasets/{name}/{version}/source[?path=P[&start=S][&end=E]]`: the
/// repository's files (W0) without `path`; with it, lines S..=E of that file (default
/// all, at most [`MAX_SOURCE_LINES`]). Paths are looked up among the repository's files,
/// never on the file system, so `..` or an absolute path can only be refused.
pub(crate) async fn source(
    State(state): State<AppState>,
    Path((name, version)): Path<(String, String)>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let loaded = state.catalog.get(&name, &version).ok_or_else(|| {
        AppError::not_found(format!(
            "no dataset {name:?} at version {version:?}; GET /api/v1/datasets lists them"
        ))
    })?;
    if let Some(unknown) = params
        .keys()
        .find(|k| !["path", "start", "end"].contains(&k.as_str()))
    {
        return Err(AppError::bad_request(format!(
            "unknown query parameter {unknown:?}; use path, start and end"
        )));
    }
    let files = tokio::task::spawn_blocking(move || loaded.repository())
        .await
        .map_err(|e| AppError::Internal(e.into()))?
        .map_err(|e| AppError::Internal(e.into()))?;
    let Some(path) = params.get("path") else {
        return Ok(Json(SourceFiles {
            files: files.keys().cloned().collect(),
        })
        .into_response());
    };
    if !wheelwright_core::reporeuse::dataset::is_relative_down(path) {
        return Err(AppError::bad_request(format!(
            "path {path:?} must be relative to the repository root, without \"..\" (e.g. networkx/classes/graph.py)"
        )));
    }
    let text = files.get(path.as_str()).ok_or_else(|| {
        AppError::not_found(format!(
            "the repository has no file {path:?}; GET this endpoint without path lists its files"
        ))
    })?;
    let line = |key: &str| -> Result<Option<usize>, AppError> {
        params
            .get(key)
            .map(|v| {
                v.parse::<usize>().ok().filter(|n| *n >= 1).ok_or_else(|| {
                    AppError::bad_request(format!("{key} {v:?} is not a line number (1, 2, ...)"))
                })
            })
            .transpose()
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total_lines = lines.len();
    let start = line("start")?.unwrap_or(1);
    let end = line("end")?.unwrap_or(total_lines).min(total_lines);
    if start > end.max(1) || start > total_lines.max(1) {
        return Err(AppError::bad_request(format!(
            "lines {start}..{end} are not in {path}, which has {total_lines} lines"
        )));
    }
    if end + 1 - start > MAX_SOURCE_LINES {
        return Err(AppError::bad_request(format!(
            "at most {MAX_SOURCE_LINES} lines per request; ask for a smaller range with start and end"
        )));
    }
    Ok(Json(SourceLines {
        path: path.clone(),
        start,
        end,
        total_lines,
        text: lines[start.min(total_lines + 1) - 1..end].concat(),
    })
    .into_response())
}
