//! Hidden-test jobs: queue a run's tests, read their state and results, follow their progress live (server-sent events).
//!
//! - `POST /runs/{id}/tests`: queue the run's hidden tests, or queue its failed or cancelled
//!   job again (202; 409 while it is queued, running or done; 429 when the client has its
//!   limit of jobs queued or running).
//! - `GET /runs/{id}/tests`: the job's state, per turn passed/total and whether the report
//!   was tampered with, and per test its name and outcome. Failure text is never sent: it
//!   may quote the hidden tests.
//! - `GET /jobs/{id}`: the job's progress; `GET /jobs/{id}/events`: the same as a
//!   `text/event-stream`, one `progress` event per change, ending when the job ends.
//! - `POST /jobs/{id}/cancel`: maintainers (the bearer token) stop a job; `POST
//!   /runs/{id}/tests` queues a failed or cancelled job again.

use std::convert::Infallible;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt};
use tokio::sync::broadcast::error::RecvError;

use super::Client;
use crate::AppState;
use crate::error::AppError;
use crate::jobs::{Progress, QueueError, Submitter};
use wheelwright_core::api::RunTests;

impl From<QueueError> for AppError {
    fn from(error: QueueError) -> Self {
        let status = match &error {
            QueueError::UnknownRun(_) | QueueError::UnknownJob(_) => StatusCode::NOT_FOUND,
            QueueError::Exists { .. } | QueueError::NotCancellable { .. } => StatusCode::CONFLICT,
            QueueError::Unauthorized => StatusCode::UNAUTHORIZED,
            QueueError::NoSandbox => StatusCode::SERVICE_UNAVAILABLE,
            QueueError::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            QueueError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        // The cause itself, not its text, so a full disk is still told apart (507).
        if let QueueError::Internal(error) = error {
            return Self::Internal(error);
        }
        if let QueueError::TooMany(_) = error {
            return Self::TooMany {
                message: error.to_string(),
                retry_after: QueueError::RETRY_AFTER,
            };
        }
        Self::Client {
            status,
            message: error.to_string(),
        }
    }
}

pub(crate) async fn queue(
    State(state): State<AppState>,
    Client(client): Client,
    Path(run): Path<String>,
) -> Result<Response, AppError> {
    let run = super::positive_id(&run, "run")?;
    let job = state.queue.enqueue(run, Submitter::Client(client)).await?;
    let progress = state
        .queue
        .progress(job)
        .await?
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("job {job} vanished")))?;
    Ok((
        StatusCode::ACCEPTED,
        [(header::LOCATION, format!("/api/v1/jobs/{job}"))],
        Json(progress),
    )
        .into_response())
}

pub(crate) async fn results(
    State(state): State<AppState>,
    Path(run): Path<String>,
    Query(params): Query<std::collections::BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let format = super::table::Format::parse(params.get("format").map(String::as_str))?;
    let run = super::positive_id(&run, "run")?;
    let job = state.store.job_of_run(run).await?.ok_or_else(|| {
        AppError::not_found(format!(
            "run {run} has no hidden-test job; POST /api/v1/runs/{run}/tests queues one"
        ))
    })?;
    let progress = state
        .queue
        .progress(job)
        .await?
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("job {job} vanished")))?;
    let turns = state.store.job_turns(job).await?;
    let tests = state.store.job_tests(job).await?;
    if format == super::table::Format::Csv {
        // The per-test table; per-turn counts are its sums.
        return super::table::respond(
            format,
            &format!("run-{run}-tests"),
            &["chain", "turn", "module", "name", "outcome", "duration_s"],
            &tests,
        );
    }
    Ok(Json(RunTests {
        progress,
        turns,
        tests,
    })
    .into_response())
}

/// `POST /jobs/{id}/cancel` with `Authorization: Bearer <maintainer token>`: the job stops
/// (its running sandbox too) and can be queued again later.
pub(crate) async fn cancel(
    State(state): State<AppState>,
    Path(job): Path<String>,
    headers: axum::http::HeaderMap,
) -> Result<Json<Progress>, AppError> {
    let job = super::positive_id(&job, "job")?;
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    state.queue.cancel(job, token).await?;
    Ok(Json(progress_of(&state, job).await?))
}

async fn progress_of(state: &AppState, job: i64) -> Result<Progress, AppError> {
    state.queue.progress(job).await?.ok_or_else(|| {
        AppError::not_found(format!(
            "no job {job}; jobs are created by POST /api/v1/runs/{{id}}/tests"
        ))
    })
}

pub(crate) async fn get(
    State(state): State<AppState>,
    Path(job): Path<String>,
) -> Result<Json<Progress>, AppError> {
    Ok(Json(
        progress_of(&state, super::positive_id(&job, "job")?).await?,
    ))
}

fn event(progress: &Progress) -> Event {
    Event::default()
        .event("progress")
        .json_data(progress)
        .unwrap_or_else(|_| Event::default().event("progress"))
}

/// The job's progress now, then every change until it ends. A listener that falls behind
/// (the channel dropped events for it) gets the current state from the database instead.
pub(crate) async fn events(
    State(state): State<AppState>,
    Path(job): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, AppError> {
    let job = super::positive_id(&job, "job")?;
    // Subscribe before reading the state, so no change between the two is missed.
    let receiver = state.queue.subscribe();
    let first = progress_of(&state, job).await?;
    let stream = futures_util::stream::unfold(
        (Some(first), receiver, state, false),
        move |(pending, mut receiver, state, ended)| async move {
            if ended {
                return None;
            }
            if let Some(progress) = pending {
                let ended = progress.finished();
                return Some((Ok(event(&progress)), (None, receiver, state, ended)));
            }
            loop {
                let progress = match receiver.recv().await {
                    Ok(progress) if progress.job == job => progress,
                    Ok(_) => continue,
                    Err(RecvError::Lagged(_)) => match state.queue.progress(job).await {
                        Ok(Some(progress)) => progress,
                        _ => return None,
                    },
                    Err(RecvError::Closed) => return None,
                };
                let ended = progress.finished();
                return Some((Ok(event(&progress)), (None, receiver, state, ended)));
            }
        },
    );
    // Fused: nothing may poll an unfold stream after its end (it panics).
    Ok(Sse::new(stream.fuse()).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
