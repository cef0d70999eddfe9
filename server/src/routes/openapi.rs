//! `GET /api/v1/openapi.json`: the API's OpenAPI 3.1 description (`server/openapi.json`).

use axum::http::header;
use axum::response::IntoResponse;

/// Written by hand next to the routes; `tests/openapi.rs` checks that it and the router list
/// the same endpoints, so neither can drift from the other unnoticed.
const DOCUMENT: &str = include_str!("../../openapi.json");

pub(crate) async fn get() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], DOCUMENT)
}
