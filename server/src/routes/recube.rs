//! `/api/v1/recube`: ReCUBE's datasets, their instances (masked and original target, labelled tests, the four views and their drawing) and repositories' files; runs uploaded and read.
//!
//! - `GET /recube/datasets[/{name}/{version}[/instances/{id} | /repositories/{repo}/source]]`;
//! - `POST /recube/runs`: a ReCUBE run bundle (JSON Lines, plain or gzip, as the body or the
//!   field `bundle` of a form), scored and stored in one transaction, or refused with a 4xx
//!   that says why; its hidden tests are queued by `POST /api/v1/runs/{id}/tests`;
//! - `GET /recube/runs/{id}`: the run and its instances' scores.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::datasets::{check_source_params, source_reply};
use crate::AppState;
use crate::dataset::recube::LoadedRecube;
use crate::error::AppError;
use crate::recube::runs as recube_runs;
use wheelwright_core::api::{RecubeDatasetDetail, RecubeDatasetSummary, RecubeRunDetail};

/// The ReCUBE dataset `name` `version`, else a 404 that says where they are listed.
pub(super) fn dataset(
    state: &AppState,
    name: &str,
    version: &str,
) -> Result<Arc<LoadedRecube>, AppError> {
    state.catalog.recube(name, version).ok_or_else(|| {
        AppError::not_found(format!(
            "no ReCUBE dataset {name:?} at version {version:?}; GET /api/v1/recube/datasets lists them"
        ))
    })
}

/// `GET /api/v1/recube/datasets`: every ReCUBE dataset the server holds.
pub(crate) async fn list(State(state): State<AppState>) -> Json<Vec<RecubeDatasetSummary>> {
    Json(state.catalog.all_recube().map(|d| d.summary()).collect())
}

/// `GET /api/v1/recube/datasets/{name}/{version}`: the dataset and its instances.
pub(crate) async fn get(
    State(state): State<AppState>,
    Path((name, version)): Path<(String, String)>,
) -> Result<Json<RecubeDatasetDetail>, AppError> {
    let loaded = dataset(&state, &name, &version)?;
    Ok(Json(RecubeDatasetDetail {
        summary: loaded.summary(),
        instances: loaded.instance_summaries(),
    }))
}

/// `GET /api/v1/recube/datasets/{name}/{version}/instances/{id}`: one instance's page.
pub(crate) async fn instance(
    State(state): State<AppState>,
    Path((name, version, id)): Path<(String, String, String)>,
) -> Result<Response, AppError> {
    let loaded = dataset(&state, &name, &version)?;
    let detail = {
        let id = id.clone();
        tokio::task::spawn_blocking(move || loaded.instance(&id))
            .await
            .map_err(|e| AppError::Internal(e.into()))?
            .map_err(|e| AppError::Internal(e.into()))?
    };
    let detail = detail.ok_or_else(|| {
        AppError::not_found(format!(
            "the dataset {name} {version} has no instance {id:?}; GET /api/v1/recube/datasets/{name}/{version} lists them"
        ))
    })?;
    Ok(Json(&*detail).into_response())
}

/// `GET /api/v1/recube/datasets/{name}/{version}/repositories/{repo}/source[?path=P[&start=S][&end=E]]`:
/// the repository's files without `path`, else lines of one, as a RepoReuse dataset's
/// `.../source` answers (paths are looked up in memory, never on the file system).
pub(crate) async fn source(
    State(state): State<AppState>,
    Path((name, version, repo)): Path<(String, String, String)>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let loaded = dataset(&state, &name, &version)?;
    check_source_params(&params)?;
    let files = {
        let repo = repo.clone();
        tokio::task::spawn_blocking(move || loaded.repository(&repo))
            .await
            .map_err(|e| AppError::Internal(e.into()))?
            .map_err(|e| AppError::Internal(e.into()))?
    };
    let files = files.ok_or_else(|| {
        AppError::not_found(format!(
            "the dataset {name} {version} has no repository {repo:?}; GET /api/v1/recube/datasets/{name}/{version} lists them"
        ))
    })?;
    source_reply(&files, &params)
}

/// `POST /api/v1/recube/runs`: scores and stores a ReCUBE run bundle.
pub(crate) async fn upload(
    State(state): State<AppState>,
    client: super::Client,
    request: axum::extract::Request,
) -> Result<Response, AppError> {
    let id = super::runs::submitted::<LoadedRecube>(&state, client, request).await?;
    let detail = run_detail(&state, id).await?;
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, format!("/api/v1/recube/runs/{id}"))],
        Json(detail),
    )
        .into_response())
}

/// `GET /api/v1/recube/runs/{id}`: a stored ReCUBE run and its instances.
pub(crate) async fn run(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<RecubeRunDetail>, AppError> {
    let id = super::positive_id(&id, "run")?;
    Ok(Json(run_detail(&state, id).await?))
}

async fn run_detail(state: &AppState, id: i64) -> Result<RecubeRunDetail, AppError> {
    let summary = super::runs::summary(state, id).await?;
    if summary.benchmark != wheelwright_core::benchmark::Benchmark::Recube.id() {
        return Err(AppError::not_found(format!(
            "run {id} is not a ReCUBE run; GET /api/v1/runs/{id} shows it"
        )));
    }
    Ok(recube_runs::detail(&state.store, summary).await?)
}
