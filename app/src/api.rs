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
    read_json(response).await
}

/// A benchmark's leaderboard as `GET /api/v1/leaderboard/{benchmark}` returns it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct Leaderboard {
    pub(crate) labels: Vec<String>,
    pub(crate) metrics: Vec<String>,
    pub(crate) rows: Vec<wheelwright_core::leaderboard::LeaderboardRow>,
}

/// Every row of a benchmark's leaderboard; the page filters and sorts them itself.
pub(crate) async fn leaderboard(benchmark: &str) -> Result<Leaderboard, ApiError> {
    get_json(&format!("/api/v1/leaderboard/{benchmark}")).await
}

async fn get_json<T: serde::de::DeserializeOwned>(url: &str) -> Result<T, ApiError> {
    let response = Request::get(url)
        .send()
        .await
        .map_err(|e| ApiError(format!("the server did not answer: {e}")))?;
    read_json(response).await
}

/// The body of a successful response, or the API's error message.
async fn read_json<T: serde::de::DeserializeOwned>(
    response: gloo_net::http::Response,
) -> Result<T, ApiError> {
    if !response.ok() {
        let status = response.status();
        let message = response
            .json::<ErrorBody>()
            .await
            .map_or_else(|_| format!("HTTP {status}"), |b| b.error);
        return Err(ApiError(message));
    }
    response
        .json::<T>()
        .await
        .map_err(|e| ApiError(format!("the server's answer was not understood: {e}")))
}
