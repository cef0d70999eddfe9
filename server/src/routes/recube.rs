//! `GET /api/v1/recube/datasets[/{name}/{version}[/instances/{id} | /repositories/{repo}/source]]`: ReCUBE's datasets, their instances (masked and original target, labelled tests, the four views and their drawing) and their repositories' files.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};

use super::datasets::{check_source_params, source_reply};
use crate::AppState;
use crate::dataset::recube::LoadedRecube;
use crate::error::AppError;
use wheelwright_core::api::{RecubeDatasetDetail, RecubeDatasetSummary};

fn dataset(state: &AppState, name: &str, version: &str) -> Result<Arc<LoadedRecube>, AppError> {
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
