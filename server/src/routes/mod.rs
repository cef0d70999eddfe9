//! The HTTP surface: `/api/v1/*` and the built app for every other path.

mod analyze;
mod app;
mod benchmarks;
mod datasets;
mod health;
mod jobs;
mod leaderboard;
mod openapi;
mod runs;
mod table;

use std::time::Duration;

use axum::extract::{DefaultBodyLimit, FromRequest, Request, rejection::JsonRejection};
use axum::http::StatusCode;
use axum::routing::{any, get, post};
use axum::{Json, Router};
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::AppState;
use crate::error::AppError;

/// Largest request body any route accepts unless it says otherwise.
pub(crate) const DEFAULT_BODY_LIMIT: usize = 64 * 1024;
/// A request that takes longer than this is answered with 408.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The whole HTTP application.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/health", get(health::get))
        .route("/benchmarks", get(benchmarks::list))
        .route(
            "/benchmarks/{benchmark}/published",
            get(benchmarks::published),
        )
        .route("/leaderboard/{benchmark}", get(leaderboard::get))
        .route("/datasets", get(datasets::list))
        .route("/datasets/{name}/{version}", get(datasets::get))
        .route("/datasets/{name}/{version}/source", get(datasets::source))
        .route(
            "/runs",
            get(runs::list)
                .post(runs::upload)
                .layer(DefaultBodyLimit::max(runs::UPLOAD_LIMIT)),
        )
        .route("/runs/{id}", get(runs::get))
        .route("/runs/{id}/turns", get(runs::turn_table))
        .route("/runs/{id}/chains/{chain}/turns/{turn}", get(runs::turn))
        .route(
            "/runs/{id}/chains/{chain}/turns/{turn}/files",
            get(runs::turn_files),
        )
        .route("/runs/{id}/tests", get(jobs::results).post(jobs::queue))
        .route("/jobs/{id}", get(jobs::get))
        .route("/jobs/{id}/events", get(jobs::events))
        .route("/openapi.json", get(openapi::get))
        .route(
            "/analyze",
            post(analyze::post).layer(DefaultBodyLimit::max(analyze::BODY_LIMIT)),
        )
        .fallback(api_not_found);
    let routes = Router::new()
        .nest("/api/v1", api)
        .route("/api", any(api_not_found))
        .route("/api/{*rest}", any(api_not_found));
    app::fallback(routes, &state.app_dir)
        .layer(DefaultBodyLimit::max(DEFAULT_BODY_LIMIT))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// A path segment naming a run or job by id: a positive integer, else a 400 that says so.
pub(crate) fn positive_id(text: &str, what: &str) -> Result<i64, AppError> {
    text.parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| {
            AppError::bad_request(format!("{what} id {text:?} is not a positive integer"))
        })
}

async fn api_not_found() -> AppError {
    AppError::not_found("no such API endpoint; see /api/v1/health")
}

/// `Json` whose rejections become [`AppError`]s, so malformed bodies get the API's error shape.
pub(crate) struct ApiJson<T>(pub(crate) T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    Json<T>: FromRequest<S, Rejection = JsonRejection>,
    S: Send + Sync,
{
    type Rejection = AppError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(request, state).await {
            Ok(Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(AppError::Client {
                status: rejection.status(),
                message: rejection.body_text(),
            }),
        }
    }
}
