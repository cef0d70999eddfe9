//! `POST /api/v1/analyze`: the same outline of a Python file that the browser computes.
//!
//! Parsing is CPU-bound, so it runs in a slot of the work pool (503 when all are busy)
//! with a cancellation flag that is raised when the request times out or is abandoned.

use axum::Json;
use axum::extract::State;
use wheelwright_core::api::AnalyzeRequest;
use wheelwright_core::outline::{self, Outline};

use super::ApiJson;
use crate::AppState;
use crate::error::AppError;

/// Largest accepted body: a generous single source file.
pub(crate) const BODY_LIMIT: usize = 2 * 1024 * 1024;

pub(crate) async fn post(
    State(state): State<AppState>,
    client: super::Client,
    ApiJson(request): ApiJson<AnalyzeRequest, BODY_LIMIT>,
) -> Result<Json<Outline>, AppError> {
    let job = state.work.try_job(client.0)?;
    let outline = job
        .run(move |cancel| outline::outline_with(&request.source, cancel))
        .await?
        .map_err(|cancelled| AppError::Busy {
            // Only seen if the flag was raised while the client still waits.
            message: cancelled.to_string(),
            retry_after: crate::work::RETRY_AFTER,
        })?;
    Ok(Json(outline))
}
