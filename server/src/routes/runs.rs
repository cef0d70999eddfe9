//! `/api/v1/runs`: upload a run bundle (scored here), list runs, and read a run, its turns and one turn's case.
//!
//! - `POST /runs`: the body is a run bundle as a `.zip` or JSON Lines, at most
//!   [`UPLOAD_LIMIT`] bytes; it is scored with core and stored in one transaction, or
//!   refused with a 4xx that says why and nothing stored.
//! - `GET /runs?benchmark=&origin=&format=`: run summaries with their overall scores.
//! - `GET /runs/{id}`: one run with its per-chain turns; `GET /runs/{id}/turns?format=`:
//!   the per-turn table; `GET /runs/{id}/chains/{chain}/turns/{turn}`: the case of one
//!   turn (requirement, submitted and reference source, targets with evidence, trajectory).

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
use wheelwright_core::metrics::run::COLUMNS;

use super::table::{Format, respond};
use crate::AppState;
use crate::error::AppError;

/// Largest run bundle accepted by upload (compressed, as sent).
pub(crate) const UPLOAD_LIMIT: usize = 32 * 1024 * 1024;

#[derive(Serialize, sqlx::FromRow)]
pub(crate) struct RunSummary {
    id: i64,
    origin: String,
    baseline: Option<String>,
    benchmark: String,
    dataset_name: String,
    dataset_version: String,
    dataset_sha256: String,
    model: String,
    harness: String,
    memory: String,
    run_date: String,
    cost_usd: Option<f64>,
    scaffold_version: Option<String>,
    notes: Option<String>,
    scorer_version: String,
    grammar_version: String,
    /// How many chains and turns were scored (`chains` of a run's detail lists them).
    #[serde(rename = "chain_count")]
    chains: i64,
    #[serde(rename = "turn_count")]
    turns: i64,
    created_at: String,
    /// The run's row: every column's score (`{"status", "value"}` or a reason).
    #[serde(serialize_with = "super::datasets::stored_json")]
    overall: String,
}

/// Column order of the run table's CSV: these, the score columns, then the rest.
const SUMMARY_FIRST: [&str; 10] = [
    "id",
    "origin",
    "baseline",
    "benchmark",
    "dataset_name",
    "dataset_version",
    "model",
    "harness",
    "memory",
    "run_date",
];
const SUMMARY_LAST: [&str; 8] = [
    "chain_count",
    "turn_count",
    "cost_usd",
    "scaffold_version",
    "scorer_version",
    "grammar_version",
    "created_at",
    "dataset_sha256",
];

/// Column order of a run's turn table: these, the score columns, then the rest.
const TURN_FIRST: [&str; 5] = ["chain", "turn", "path", "submission", "syntax_errors"];
const TURN_LAST: [&str; 3] = ["reimplemented", "unknown_targets", "trajectory"];

/// `first`, the score columns, then `last`: a CSV column order.
fn csv_order<'a>(first: &[&'a str], last: &[&'a str]) -> Vec<&'a str> {
    first
        .iter()
        .chain(COLUMNS.iter())
        .chain(last.iter())
        .copied()
        .collect()
}

const SUMMARY_COLUMNS: &str = "id, origin, baseline, benchmark, dataset_name, dataset_version,
    dataset_sha256, model, harness, memory, run_date, cost_usd, scaffold_version, notes,
    scorer_version, grammar_version, chains, turns, created_at, overall";

fn parse_json(text: &str) -> Result<Value, AppError> {
    serde_json::from_str(text).map_err(|e| AppError::Internal(e.into()))
}

pub(crate) async fn upload(
    State(state): State<AppState>,
    request: axum::extract::Request,
) -> Result<Response, AppError> {
    // A browser form posts multipart/form-data, which wraps the bundle in form fields.
    if super::content_type(request.headers()).is_some_and(|t| t.starts_with("multipart/")) {
        return Err(AppError::Client {
            status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
            message: "the run bundle was sent as a multipart form; send the bundle itself as the request body with Content-Type: application/zip (a .zip) or application/x-ndjson (JSON Lines), e.g. curl --data-binary @run.zip -H 'Content-Type: application/zip'".to_owned(),
        });
    }
    let body = super::raw_body(request, UPLOAD_LIMIT).await?;
    if body.is_empty() {
        return Err(AppError::bad_request(
            "the body is empty; send a run bundle as a .zip or JSON Lines (see /api/v1/openapi.json)",
        ));
    }
    // Reading (inflating) and scoring take one slot of the work pool, or a 503 at once.
    let job = state.work.try_job()?;
    let bundle = job
        .run(move |_| crate::bundle::read_bytes(&body))
        .await?
        .map_err(crate::runs::RunError::from)?;
    let id = crate::runs::submit(&state.pool, &state.catalog, bundle, &job).await?;
    drop(job);
    let detail = detail(&state, id).await?;
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, format!("/api/v1/runs/{id}"))],
        Json(detail),
    )
        .into_response())
}

pub(crate) async fn list(
    State(state): State<AppState>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let mut params = params;
    let format = Format::parse(params.remove("format").as_deref())?;
    let benchmark = params.remove("benchmark");
    if let Some(b) = &benchmark {
        super::benchmarks::benchmark(b)?;
    }
    let origin = params.remove("origin");
    if let Some(o) = &origin
        && o != "verified"
        && o != "baseline"
    {
        return Err(AppError::bad_request(format!(
            "origin {o:?} is not verified or baseline (reported rows are not runs; see /api/v1/leaderboard)"
        )));
    }
    if let Some(unknown) = params.keys().next() {
        return Err(AppError::bad_request(format!(
            "unknown query parameter {unknown:?}; use benchmark, origin or format"
        )));
    }
    let rows = sqlx::query_as::<_, RunSummary>(&format!(
        "SELECT {SUMMARY_COLUMNS} FROM run
         WHERE (?1 IS NULL OR benchmark = ?1) AND (?2 IS NULL OR origin = ?2)
         ORDER BY id"
    ))
    .bind(&benchmark)
    .bind(&origin)
    .fetch_all(&state.pool)
    .await
    .map_err(anyhow::Error::from)?;
    if format == Format::Csv {
        // One column per score, not a nested object.
        let flat: Vec<Value> = super::table::to_values(&rows)?
            .into_iter()
            .map(|mut row| {
                if let Some(Value::Object(overall)) =
                    row.as_object_mut().and_then(|r| r.remove("overall"))
                {
                    for column in COLUMNS {
                        row[column] = overall.get(column).cloned().unwrap_or(Value::Null);
                    }
                }
                row
            })
            .collect();
        return respond(
            format,
            "runs",
            &csv_order(&SUMMARY_FIRST, &SUMMARY_LAST),
            &flat,
        );
    }
    respond(
        format,
        "runs",
        &csv_order(&SUMMARY_FIRST, &SUMMARY_LAST),
        &rows,
    )
}

async fn summary(state: &AppState, id: i64) -> Result<RunSummary, AppError> {
    sqlx::query_as::<_, RunSummary>(&format!("SELECT {SUMMARY_COLUMNS} FROM run WHERE id = ?"))
        .bind(id)
        .fetch_optional(&state.pool)
        .await
        .map_err(anyhow::Error::from)?
        .ok_or_else(|| AppError::not_found(format!("no run {id}; GET /api/v1/runs lists them")))
}

#[derive(sqlx::FromRow)]
struct StoredTurn {
    chain: String,
    turn: i64,
    files: String,
    trajectory: Option<String>,
    score: String,
}

/// One row of a run's turn table: the scorer's turn row without the bulky evidence.
fn turn_row(stored: &StoredTurn) -> Result<Value, AppError> {
    let mut score = parse_json(&stored.score)?;
    if let Some(map) = score.as_object_mut() {
        map.remove("targets");
        let reimplemented: Vec<Value> = map
            .remove("reimplemented")
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|r| r.get("target").cloned())
            .collect();
        map.insert("reimplemented".to_owned(), Value::Array(reimplemented));
    }
    Ok(score)
}

async fn turns(state: &AppState, id: i64) -> Result<Vec<StoredTurn>, AppError> {
    Ok(sqlx::query_as::<_, StoredTurn>(
        "SELECT chain, turn, files, trajectory, score FROM run_turn WHERE run_id = ? ORDER BY rowid",
    )
    .bind(id)
    .fetch_all(&state.pool)
    .await
    .map_err(anyhow::Error::from)?)
}

#[derive(Serialize)]
pub(crate) struct ChainTurns {
    chain: String,
    turns: Vec<Value>,
}

#[derive(Serialize)]
pub(crate) struct RunDetail {
    #[serde(flatten)]
    summary: RunSummary,
    series: Value,
    diagnostics: Value,
    chains: Vec<ChainTurns>,
}

async fn detail(state: &AppState, id: i64) -> Result<RunDetail, AppError> {
    let summary = summary(state, id).await?;
    let (series, diagnostics): (String, String) =
        sqlx::query_as("SELECT series, diagnostics FROM run WHERE id = ?")
            .bind(id)
            .fetch_one(&state.pool)
            .await
            .map_err(anyhow::Error::from)?;
    let mut chains: Vec<ChainTurns> = Vec::new();
    for stored in turns(state, id).await? {
        let row = turn_row(&stored)?;
        match chains.last_mut() {
            Some(last) if last.chain == stored.chain => last.turns.push(row),
            _ => chains.push(ChainTurns {
                chain: stored.chain,
                turns: vec![row],
            }),
        }
    }
    Ok(RunDetail {
        summary,
        series: parse_json(&series)?,
        diagnostics: parse_json(&diagnostics)?,
        chains,
    })
}

pub(crate) async fn get(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<RunDetail>, AppError> {
    Ok(Json(detail(&state, super::positive_id(&id, "run")?).await?))
}

pub(crate) async fn turn_table(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let format = Format::parse(params.get("format").map(String::as_str))?;
    let id = super::positive_id(&id, "run")?;
    summary(&state, id).await?;
    let rows = turns(&state, id)
        .await?
        .iter()
        .map(turn_row)
        .collect::<Result<Vec<_>, _>>()?;
    respond(
        format,
        &format!("run-{id}-turns"),
        &csv_order(&TURN_FIRST, &TURN_LAST),
        &rows,
    )
}

/// A file as the case shows it.
#[derive(Serialize)]
pub(crate) struct SourceFile {
    path: String,
    /// `None`: the agent left no file there.
    text: Option<String>,
}

#[derive(Serialize)]
pub(crate) struct TrajectorySummary {
    /// Whether the bundle had a trajectory for the turn.
    present: bool,
    /// Its size in bytes as submitted.
    bytes: usize,
    /// Actions, uninterpreted actions and rejected responses as the scorer counted them;
    /// `null` when there was no trajectory or it could not be read.
    counts: Value,
    /// Distinct files touched and lines viewed (spec D14).
    files: Value,
    lines: Value,
    recall_repo: Value,
    recall_self: Value,
}

#[derive(Serialize)]
pub(crate) struct TurnDetail {
    run: i64,
    chain: String,
    turn: i64,
    title: String,
    requirement: String,
    submission: SourceFile,
    /// The other files the agent left in this turn.
    other_files: Vec<SourceFile>,
    reference: SourceFile,
    /// Every target: kind, name, definition, referenced (reused), recalled and
    /// re-implementation evidence.
    targets: Value,
    unknown_targets: Value,
    /// The turn's row: every column's score, submission status, syntax errors.
    scores: Value,
    trajectory: TrajectorySummary,
}

pub(crate) async fn turn(
    State(state): State<AppState>,
    Path((id, chain, turn)): Path<(String, String, String)>,
) -> Result<Json<TurnDetail>, AppError> {
    let id = super::positive_id(&id, "run")?;
    let run = summary(&state, id).await?;
    let number: i64 = turn.parse().ok().filter(|t| *t >= 1).ok_or_else(|| {
        AppError::bad_request(format!("turn {turn:?} is not a turn number (1, 2, ...)"))
    })?;
    let stored: StoredTurn = sqlx::query_as(
        "SELECT chain, turn, files, trajectory, score FROM run_turn
         WHERE run_id = ? AND chain = ? AND turn = ?",
    )
    .bind(id)
    .bind(&chain)
    .bind(number)
    .fetch_optional(&state.pool)
    .await
    .map_err(anyhow::Error::from)?
    .ok_or_else(|| {
        AppError::not_found(format!(
            "run {id} has no turn {number} of chain {chain:?}; GET /api/v1/runs/{id} lists its turns"
        ))
    })?;
    let loaded = state
        .catalog
        .get(&run.dataset_name, &run.dataset_version)
        .ok_or_else(|| {
            AppError::not_found(format!(
                "the dataset of run {id} ({} {}) is no longer served, so its case cannot be shown",
                run.dataset_name, run.dataset_version
            ))
        })?;
    let dataset_turn = loaded
        .dataset
        .chains
        .iter()
        .find(|c| c.manifest.id == chain)
        .and_then(|c| c.turns.get(usize::try_from(number - 1).ok()?))
        .ok_or_else(|| {
            AppError::not_found(format!(
                "the dataset no longer has turn {number} of chain {chain:?}"
            ))
        })?;
    let module_path = dataset_turn.manifest.module_path.clone();
    let mut files: BTreeMap<String, String> =
        serde_json::from_str(&stored.files).map_err(|e| AppError::Internal(e.into()))?;
    let submission = SourceFile {
        text: files.remove(&module_path),
        path: module_path.clone(),
    };
    let mut score = parse_json(&stored.score)?;
    let take = |score: &mut Value, key: &str| {
        score
            .as_object_mut()
            .and_then(|m| m.remove(key))
            .unwrap_or(Value::Null)
    };
    let targets = take(&mut score, "targets");
    let unknown_targets = take(&mut score, "unknown_targets");
    let counts = take(&mut score, "trajectory");
    take(&mut score, "reimplemented");
    let trajectory = TrajectorySummary {
        present: stored.trajectory.is_some(),
        bytes: stored.trajectory.as_ref().map_or(0, String::len),
        counts,
        files: score["files"].clone(),
        lines: score["lines"].clone(),
        recall_repo: score["recall_repo"].clone(),
        recall_self: score["recall_self"].clone(),
    };
    Ok(Json(TurnDetail {
        run: id,
        chain: stored.chain,
        turn: stored.turn,
        title: dataset_turn.manifest.title.clone(),
        requirement: dataset_turn.requirement.clone(),
        submission,
        other_files: files
            .into_iter()
            .map(|(path, text)| SourceFile {
                path,
                text: Some(text),
            })
            .collect(),
        reference: SourceFile {
            path: module_path,
            text: Some(dataset_turn.reference.clone()),
        },
        targets,
        unknown_targets,
        scores: score,
        trajectory,
    }))
}
