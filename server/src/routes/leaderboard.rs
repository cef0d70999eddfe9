//! `GET /api/v1/leaderboard/{benchmark}`: rows with their origin, filtered and sorted, as
//! JSON or CSV.
//!
//! Query parameters: `origin` (reported, verified, baseline), `sort` (a metric or label),
//! `order` (asc, desc; default desc), `format` (json, csv; default json), and any label name
//! (`model`, `harness`, `memory`, ...) as an equality filter.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use wheelwright_core::api::Leaderboard;
use wheelwright_core::leaderboard::{self, LeaderboardRow, Order, Origin};

use super::benchmarks::benchmark;
use crate::AppState;
use crate::error::AppError;
use crate::store::LeaderboardRun;

pub(crate) async fn get(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(mut params): Query<BTreeMap<String, String>>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let benchmark = benchmark(&id)?;
    let mut query = leaderboard::Query::default();
    if let Some(origin) = params.remove("origin") {
        query.origin = Some(Origin::from_id(&origin).ok_or_else(|| {
            AppError::bad_request(format!(
                "origin {origin:?} is not one of reported, verified, baseline"
            ))
        })?);
    }
    query.sort = params.remove("sort");
    if let Some(order) = params.remove("order") {
        query.order = Some(Order::from_id(&order).ok_or_else(|| {
            AppError::bad_request(format!(
                "order {order:?} is not asc or desc (without it, the best rows come first)"
            ))
        })?);
    }
    let csv = match params.remove("format").as_deref() {
        None | Some("json") => false,
        Some("csv") => true,
        Some(other) => {
            return Err(AppError::bad_request(format!(
                "format {other:?} is not json or csv"
            )));
        }
    };
    query.filters = params;
    // Label filters take any value, so filtered tables are built each time: only the
    // unfiltered ones (what the app asks for; it filters in the page) are kept, under a
    // key of what was parsed.
    if !query.filters.is_empty() {
        return build(&state, benchmark, query, csv).await;
    }
    let key = format!(
        "leaderboard/{}?origin={:?}&sort={:?}&order={:?}&csv={csv}",
        benchmark.id(),
        query.origin,
        query.sort,
        query.order
    );
    super::cached(&state, key, &headers, || {
        build(&state, benchmark, query, csv)
    })
    .await
}

/// The leaderboard of `benchmark` as `query` selects it, as JSON or CSV.
async fn build(
    state: &AppState,
    benchmark: wheelwright_core::benchmark::Benchmark,
    query: leaderboard::Query,
    csv: bool,
) -> Result<Response, AppError> {
    let (table, implicit) = benchmark.leaderboard_table();
    let source = state.store.published_source(benchmark).await?;
    let reported = state
        .store
        .published_tables(benchmark, Some(table))
        .await?
        .into_iter()
        .next();
    let columns = reported
        .as_ref()
        .map(|t| t.columns.clone())
        .unwrap_or_default();
    let rows: Vec<LeaderboardRow> = reported
        .map(|t| t.rows)
        .unwrap_or_default()
        .into_iter()
        .map(|row| {
            let mut labels = row.labels;
            for (key, value) in implicit {
                labels
                    .entry((*key).to_owned())
                    .or_insert_with(|| (*value).to_owned());
            }
            // A paper's subset is not its full set: never ranked together.
            let cohort = match labels.get("subset") {
                Some(subset) => format!("published: {subset}"),
                None => "published: full set".to_owned(),
            };
            LeaderboardRow {
                origin: Origin::Reported,
                labels,
                metrics: row.metrics,
                source: source.as_ref().map(|s| s.source.clone()),
                run: None,
                cohort,
            }
        })
        .chain(run_rows(state, benchmark).await?)
        .collect();
    let rows =
        leaderboard::apply(rows, &query).map_err(|e| AppError::bad_request(e.to_string()))?;
    let (labels, mut metrics) = leaderboard::columns(&rows);
    // The paper's column order, not alphabetical.
    metrics.sort_by_key(|m| columns.iter().position(|c| c == m).unwrap_or(usize::MAX));
    if csv {
        return Ok((
            [
                (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
                (
                    header::CONTENT_DISPOSITION,
                    format!(
                        "attachment; filename=\"{}-leaderboard.csv\"",
                        benchmark.id()
                    ),
                ),
            ],
            leaderboard::to_csv(&labels, &metrics, &rows),
        )
            .into_response());
    }
    Ok(Json(Leaderboard {
        benchmark: benchmark.id().to_owned(),
        labels,
        metrics,
        rows,
    })
    .into_response())
}

/// Runs stored by this server (verified uploads and baselines) as leaderboard rows: labels
/// from their metadata, metrics from their overall row (undefined values left out).
async fn run_rows(
    state: &AppState,
    benchmark: wheelwright_core::benchmark::Benchmark,
) -> Result<Vec<LeaderboardRow>, AppError> {
    let stored = state.store.leaderboard_runs(benchmark.id()).await?;
    let mut rows = Vec::with_capacity(stored.len());
    for LeaderboardRun {
        id,
        origin,
        model,
        harness,
        memory,
        overall,
        dataset_name,
        dataset_version,
    } in stored
    {
        let overall: BTreeMap<String, wheelwright_core::metric::Score> =
            serde_json::from_str(&overall).map_err(|e| AppError::Internal(e.into()))?;
        // A baseline's model is named after it ("copy baseline") and its origin badge sets
        // it apart; no extra column is needed.
        let mut labels =
            BTreeMap::from([("model".to_owned(), model), ("harness".to_owned(), harness)]);
        // What the agent kept between turns is a RepoReuse setting; ReCUBE has no turns.
        if benchmark != wheelwright_core::benchmark::Benchmark::Recube {
            labels.insert("memory".to_owned(), memory);
        }
        rows.push(LeaderboardRow {
            origin: Origin::from_id(&origin).unwrap_or(Origin::Verified),
            labels,
            metrics: overall
                .into_iter()
                .filter_map(|(k, v)| v.value().map(|v| (k, v)))
                .collect(),
            source: None,
            run: Some(id),
            // Runs of another dataset, or another version of it, are another contest.
            cohort: format!("dataset {dataset_name} {dataset_version}"),
        });
    }
    Ok(rows)
}
