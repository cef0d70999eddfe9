//! `POST /api/v1/analyze`: the same outline of a Python file that the browser computes.

use axum::Json;
use serde::Deserialize;
use wheelwright_core::outline::{self, Outline};

use super::ApiJson;
use crate::error::AppError;

/// Largest accepted body: a generous single source file.
pub(crate) const BODY_LIMIT: usize = 2 * 1024 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AnalyzeRequest {
    source: String,
}

pub(crate) async fn post(
    ApiJson(request): ApiJson<AnalyzeRequest>,
) -> Result<Json<Outline>, AppError> {
    // Parsing is CPU-bound; keep it off the async workers.
    let outline = tokio::task::spawn_blocking(move || outline::outline(&request.source))
        .await
        .map_err(|e| AppError::Internal(e.into()))?;
    Ok(Json(outline))
}
