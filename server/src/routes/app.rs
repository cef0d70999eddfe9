//! Serves the built browser app; client-side routes fall back to `index.html`.

use std::path::Path;

use axum::Router;
use axum::http::StatusCode;
use axum::response::Html;
use tower_http::services::{ServeDir, ServeFile};

use crate::AppState;

/// Adds the static files in `app_dir` as the router's fallback, or, when the app is not built,
/// a page that says how to build it.
pub(crate) fn fallback(router: Router<AppState>, app_dir: &Path) -> Router<AppState> {
    let index = app_dir.join("index.html");
    if index.is_file() {
        router.fallback_service(ServeDir::new(app_dir).fallback(ServeFile::new(index)))
    } else {
        tracing::warn!(dir = %app_dir.display(), "the app is not built; serving the API only");
        router.fallback(not_built)
    }
}

async fn not_built() -> (StatusCode, Html<&'static str>) {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Html(
            "<h1>Wheelwright</h1><p>The browser app is not built. Run \
             <code>scripts/start</code>, or point <code>--app-dir</code> at a directory built \
             by <code>trunk build --release</code>.</p>",
        ),
    )
}
