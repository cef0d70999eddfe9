//! The HTTP surface: `/api/v1/*` and the built app for every other path.

mod analyze;
mod app;
mod benchmarks;
mod datasets;
mod health;
mod jobs;
mod leaderboard;
mod openapi;
mod recube;
mod runs;
mod schrodinger;
mod table;

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use tower_http::CompressionLevel;
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;

use crate::AppState;
use crate::body_budget::{BodyBudget, Counted, Held};
use crate::error::{AppError, error_response};

/// Largest request body any route accepts unless it says otherwise.
pub(crate) const DEFAULT_BODY_LIMIT: usize = 64 * 1024;

/// The whole HTTP application.
///
/// Every answer under `/api` that is an error has the API's shape, `{"error": message}`:
/// handlers return [`AppError`], bodies are read by [`ApiJson`] and [`counted_body`] (whose
/// messages name the limit), and [`json_errors`] rewrites whatever axum itself answers
/// (405, a path that does not decode). A request not answered within the configured
/// request timeout gets a JSON 408 from [`deadline`], which also drops the handler, and
/// with it any [`crate::work::Job`], so its work is cancelled.
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
        .route("/datasets/{name}/{version}/scoring", get(datasets::scoring))
        .route(
            "/datasets/{name}/{version}/scoring/index",
            get(datasets::saved_index),
        )
        .route(
            "/runs",
            get(runs::list).post(runs::upload).layer(
                // A form's bundle field may be as large as a bundle sent as the body; the
                // upload bounds the whole body itself before the form is read.
                axum::extract::DefaultBodyLimit::max(runs::FORM_LIMIT),
            ),
        )
        .route("/runs/{id}", get(runs::get))
        .route("/runs/{id}/turns", get(runs::turn_table))
        .route("/runs/{id}/chains/{chain}/turns/{turn}", get(runs::turn))
        .route(
            "/runs/{id}/chains/{chain}/turns/{turn}/files",
            get(runs::turn_files),
        )
        .route(
            "/runs/{id}/chains/{chain}/turns/{turn}/observations",
            get(runs::turn_observations),
        )
        .route("/runs/{id}/tests", get(jobs::results).post(jobs::queue))
        .route("/jobs/{id}", get(jobs::get))
        .route("/jobs/{id}/events", get(jobs::events))
        .route("/jobs/{id}/cancel", post(jobs::cancel))
        .route("/recube/datasets", get(recube::list))
        .route("/recube/datasets/{name}/{version}", get(recube::get))
        .route(
            "/recube/datasets/{name}/{version}/instances/{id}",
            get(recube::instance),
        )
        .route(
            "/recube/datasets/{name}/{version}/repositories/{repo}/source",
            get(recube::source),
        )
        .route(
            "/recube/datasets/{name}/{version}/repositories/{repo}/view",
            get(schrodinger::moved_view),
        )
        .route(
            "/recube/runs",
            post(recube::upload).layer(axum::extract::DefaultBodyLimit::max(runs::FORM_LIMIT)),
        )
        .route("/recube/runs/{id}", get(recube::run))
        .route(
            "/schrodinger/datasets/{name}/{version}/repositories/{repo}/view",
            get(schrodinger::view),
        )
        .route("/openapi.json", get(openapi::get))
        .route("/analyze", post(analyze::post))
        .fallback(api_not_found)
        .layer(middleware::from_fn(json_errors))
        // JSON and CSV compressed for clients that accept it (a run list is a megabyte of
        // JSON); not event streams, nor what is compressed already (the scoring kit).
        // Quality 4: brotli's best is seconds per megabyte, too slow to spend per request.
        .layer(CompressionLayer::new().quality(CompressionLevel::Precise(4)));
    let routes = Router::new()
        .nest("/api/v1", api)
        .route("/api", any(api_not_found))
        .route("/api/{*rest}", any(api_not_found));
    let timeout = state.http.request_timeout;
    app::fallback(routes, &state.app_dir)
        // Bodies read by axum's own extractors; ours (ApiJson, counted_body) take their limit and the body budget.
        .layer(axum::extract::DefaultBodyLimit::max(DEFAULT_BODY_LIMIT))
        .layer(middleware::from_fn_with_state(timeout, deadline))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// Answers 408 in the API's shape when the request takes longer than `timeout`, dropping
/// the handler (which cancels its work).
async fn deadline(State(timeout): State<Duration>, request: Request, next: Next) -> Response {
    match tokio::time::timeout(timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_elapsed) => AppError::Client {
            status: StatusCode::REQUEST_TIMEOUT,
            message: format!(
                "the request took longer than {}, this server's limit, and was stopped; send a smaller input or retry later",
                seconds(timeout)
            ),
        }
        .into_response(),
    }
}

/// `30 s`, `1.5 s`.
fn seconds(duration: Duration) -> String {
    format!("{} s", duration.as_secs_f64())
}

/// Largest error body from axum that [`json_errors`] reads to quote it.
const QUOTED_BODY_LIMIT: usize = 4096;

/// Rewrites error answers that are not JSON (axum's rejections and its 405) into the
/// API's error shape, keeping their status and headers.
async fn json_errors(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let quoted = axum::body::to_bytes(body, QUOTED_BODY_LIMIT)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .unwrap_or_default();
    let message = match status {
        // Axum adds the `Allow` header after this layer, so it is named, not quoted.
        StatusCode::METHOD_NOT_ALLOWED => format!(
            "{method} is not allowed on this endpoint; its Allow header lists the methods it answers"
        ),
        StatusCode::PAYLOAD_TOO_LARGE => format!(
            "the request body is larger than this endpoint accepts ({})",
            bytes(DEFAULT_BODY_LIMIT)
        ),
        // Axum's own words for a rejected path or query; never internals (those are 5xx).
        _ if status.is_client_error() && !quoted.is_empty() => quoted,
        _ if status.is_client_error() => status
            .canonical_reason()
            .unwrap_or("the request was refused")
            .to_owned(),
        _ => "internal error; the server log has the details".to_owned(),
    };
    let mut rewritten = error_response(status, &message);
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            rewritten.headers_mut().insert(name, value.clone());
        }
    }
    rewritten
}

/// The answer of a read that changes only when something is written, named by `key` (built
/// from the values the route parsed, never the raw URL): the one kept since the last write,
/// or `build`'s (kept when it is a 200), with an `ETag`; a 304 to a client that has it.
pub(crate) async fn cached<F, Fut>(
    state: &AppState,
    key: String,
    request: &HeaderMap,
    build: F,
) -> Result<Response, AppError>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<Response, AppError>>,
{
    state.reads.serve(&state.store, key, request, build).await
}

/// `64 KiB (65536 bytes)`: a size limit as clients read it.
pub(crate) fn bytes(limit: usize) -> String {
    if limit >= 1 << 20 && limit.is_multiple_of(1 << 20) {
        format!("{} MiB ({limit} bytes)", limit >> 20)
    } else if limit >= 1 << 10 && limit.is_multiple_of(1 << 10) {
        format!("{} KiB ({limit} bytes)", limit >> 10)
    } else {
        format!("{limit} bytes")
    }
}

/// The address of the client that sent a request, as the accept loop recorded it
/// (`ConnectInfo`); `None` when the router is called without one (tests through the
/// router alone). Never rejects.
pub(crate) struct Client(pub(crate) Option<std::net::IpAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Client {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(Self(
            parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|info| info.0.ip()),
        ))
    }
}

/// What the largest upload holds of the body budget: a multipart form of the largest size
/// and its field's copy. The budget is never smaller, so any valid upload is taken when the
/// server holds no other.
pub(crate) const LARGEST_UPLOAD_HOLDS: usize = 2 * runs::FORM_LIMIT;

/// A body may wait this long for its next bytes, and after this long must have come at
/// [`MIN_BODY_RATE`] on average; else 408. The request timeout alone let a client hold its
/// connection (and its share of the body budget) for 30 s with a byte a second.
pub(crate) const BODY_GRACE: Duration = Duration::from_secs(5);

/// The slowest a body may arrive once [`BODY_GRACE`] has passed, in bytes a second: a
/// modem's pace, far below any upload that fits the request timeout.
pub(crate) const MIN_BODY_RATE: f64 = 8.0 * 1024.0;

/// The body of an upload, at most `limit` bytes, held within the server's [`BodyBudget`]:
/// the declared `Content-Length` is taken from the budget before a byte is read, a chunked
/// body's bytes as they arrive; 413 over the limit, 503 when the budget is spent, 408 when
/// it stalls or trickles ([`BODY_GRACE`], [`MIN_BODY_RATE`]).
pub(crate) async fn counted_body(
    request: Request,
    limit: usize,
    budget: &BodyBudget,
) -> Result<Counted, AppError> {
    use futures_util::StreamExt;
    let too_large = || AppError::Client {
        status: StatusCode::PAYLOAD_TOO_LARGE,
        message: format!(
            "the request body is larger than {}, the limit of this endpoint",
            bytes(limit)
        ),
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    let mut held = Held::default();
    let declared = declared.map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
    budget.take(declared, &mut held)?;
    let mut body = Vec::with_capacity(declared.min(limit));
    let mut chunks = request.into_body().into_data_stream();
    let started = tokio::time::Instant::now();
    let slow = |why: String| AppError::Client {
        status: StatusCode::REQUEST_TIMEOUT,
        message: format!(
            "the request body {why}; send it at {} KiB/s or faster",
            MIN_BODY_RATE as u64 / 1024
        ),
    };
    loop {
        let next = tokio::time::timeout(BODY_GRACE, chunks.next())
            .await
            .map_err(|_| {
                slow(format!(
                    "stalled: nothing came for {} s",
                    BODY_GRACE.as_secs()
                ))
            })?;
        let Some(chunk) = next else { break };
        let chunk = chunk.map_err(|error| {
            // The client hung up or sent a broken chunked body.
            AppError::bad_request(format!("the request body could not be read: {error}"))
        })?;
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        if body.len() + chunk.len() > declared {
            budget.take(
                body.len() + chunk.len() - declared.max(body.len()),
                &mut held,
            )?;
        }
        body.extend_from_slice(&chunk);
        let elapsed = started.elapsed();
        if elapsed > BODY_GRACE && (body.len() as f64) < MIN_BODY_RATE * elapsed.as_secs_f64() {
            return Err(slow(format!(
                "came at {:.0} bytes/s over {:.0} s",
                body.len() as f64 / elapsed.as_secs_f64(),
                elapsed.as_secs_f64()
            )));
        }
    }
    Ok(Counted {
        bytes: Bytes::from(body),
        held,
    })
}

/// The essence of the request's `Content-Type` (`application/json`), lowercase.
pub(crate) fn content_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    let essence = value.split(';').next().unwrap_or("").trim();
    Some(essence.to_ascii_lowercase())
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

/// A JSON body of at most `LIMIT` bytes whose every rejection is an [`AppError`] in the
/// API's shape: 415 without `Content-Type: application/json`, 413 over the limit (named),
/// 400 for broken JSON, 422 for JSON of the wrong shape. The body is read within the
/// server's body budget (503 when it is spent), like an upload's.
pub(crate) struct ApiJson<T, const LIMIT: usize = DEFAULT_BODY_LIMIT>(pub(crate) T);

impl<T, const LIMIT: usize> FromRequest<AppState> for ApiJson<T, LIMIT>
where
    T: DeserializeOwned,
{
    type Rejection = AppError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let kind = content_type(request.headers());
        let json = kind
            .as_deref()
            .is_some_and(|k| k == "application/json" || k.ends_with("+json"));
        if !json {
            let got = kind.map_or_else(
                || "none".to_owned(),
                |k| format!("{:?}", k.chars().take(64).collect::<String>()),
            );
            return Err(AppError::Client {
                status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
                message: format!(
                    "send the body as JSON with Content-Type: application/json (the request's Content-Type: {got})"
                ),
            });
        }
        let body = counted_body(request, LIMIT, &state.bodies).await?;
        match Json::<T>::from_bytes(&body.bytes) {
            Ok(Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(AppError::Client {
                status: rejection.status(),
                message: rejection.body_text(),
            }),
        }
    }
}
