//! Every request the app makes to the server, in one place.

use gloo_net::http::Request;
use serde::Deserialize;
use wheelwright_core::outline::Outline;

/// A failed API call, worded for the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ApiError(pub(crate) String);

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Deserialize)]
struct ErrorBody {
    error: String,
}

/// Asks the server for the outline of `source` (`POST /api/v1/analyze`).
pub(crate) async fn analyze(source: &str) -> Result<Outline, ApiError> {
    let body = serde_json::json!({ "source": source });
    let response = Request::post("/api/v1/analyze")
        .json(&body)
        .map_err(|e| ApiError(format!("could not encode the request: {e}")))?
        .send()
        .await
        .map_err(|e| ApiError(format!("the server did not answer: {e}")))?;
    if !response.ok() {
        let status = response.status();
        let message = response
            .json::<ErrorBody>()
            .await
            .map_or_else(|_| format!("HTTP {status}"), |b| b.error);
        return Err(ApiError(format!("the server refused: {message}")));
    }
    response
        .json::<Outline>()
        .await
        .map_err(|e| ApiError(format!("the server's answer was not understood: {e}")))
}
