//! `GET /api/v1/datasets` and `GET /api/v1/datasets/{name}/{version}`: the imported datasets
//! and, for one, its chains and turns with their requirements and targets.

use axum::Json;
use axum::extract::{Path, State};
use serde::Serialize;

use crate::AppState;
use crate::error::AppError;

#[derive(Serialize, sqlx::FromRow)]
pub(crate) struct DatasetSummary {
    name: String,
    version: String,
    benchmark: String,
    content_sha256: String,
    chains: i64,
    turns: i64,
    tests: i64,
}

pub(crate) async fn list(
    State(state): State<AppState>,
) -> Result<Json<Vec<DatasetSummary>>, AppError> {
    let rows = sqlx::query_as::<_, DatasetSummary>(
        "SELECT name, version, benchmark, content_sha256, chains, turns, tests
         FROM dataset ORDER BY name, version",
    )
    .fetch_all(&state.pool)
    .await
    .map_err(anyhow::Error::from)?;
    Ok(Json(rows))
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
fn stored_json<S: serde::Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
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
) -> Result<Json<DatasetDetail>, AppError> {
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
    Ok(Json(DatasetDetail { summary, turns }))
}
