//! Serves the built browser app: precompressed, hashed assets cached for good, client-side routes falling back to `index.html`.

use std::path::Path;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, Response};
use tower_http::services::{ServeDir, ServeFile};

use crate::AppState;

/// Adds the static files in `app_dir` as the router's fallback, or, when the app is not built,
/// a page that says how to build it.
///
/// Files are sent as their brotli or gzip copies (`x.wasm.br`, `x.wasm.gz`, written beside
/// them by `scripts/precompress` after `trunk build`) to a browser that accepts them: the
/// wasm is 3.6 MB, 1.0 MB as brotli. Trunk names each asset by a hash of its content, so those
/// are cached for a year without asking again; `index.html`, which names them, is always
/// revalidated, so a new build reaches every reader at their next visit.
pub(crate) fn fallback(router: Router<AppState>, app_dir: &Path) -> Router<AppState> {
    let index = app_dir.join("index.html");
    if index.is_file() {
        let files = ServeDir::new(app_dir)
            .precompressed_br()
            .precompressed_gzip()
            .fallback(
                ServeFile::new(index)
                    .precompressed_br()
                    .precompressed_gzip(),
            );
        router.fallback_service(
            Router::new()
                .fallback_service(files)
                .layer(middleware::from_fn(cache_control)),
        )
    } else {
        tracing::warn!(dir = %app_dir.display(), "the app is not built; serving the API only");
        router.fallback(not_built)
    }
}

/// Sets how long a browser may keep what it was sent for the request's path
/// ([`cache_policy`]).
async fn cache_control(request: Request, next: Next) -> Response {
    let policy = cache_policy(request.uri().path());
    let mut response = next.run(request).await;
    if response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    }
    response
}

/// `immutable` for an asset whose name carries Trunk's content hash
/// (`wheelwright-app-a857600dce566eb7_bg.wasm`, `main-5b9a74e7617fed4.css`); `no-cache`
/// (revalidate every time) for everything else: `index.html` for every client-side route,
/// and the unhashed files of `public/`.
fn cache_policy(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or_default();
    let stem = name.split('.').next().unwrap_or_default();
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    let hashed = stem
        .rsplit_once('-')
        .is_some_and(|(_, hash)| hash.len() >= 15 && hash.bytes().all(|b| b.is_ascii_hexdigit()));
    if hashed && !path.starts_with("/public/") {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
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

#[cfg(test)]
mod tests {
    use super::cache_policy;

    #[test]
    fn only_content_hashed_assets_are_immutable() {
        let immutable = "public, max-age=31536000, immutable";
        let cases = [
            ("/wheelwright-app-a857600dce566eb7_bg.wasm", immutable),
            ("/wheelwright-app-a857600dce566eb7.js", immutable),
            ("/main-5b9a74e7617fed4.css", immutable),
            ("/", "no-cache"),
            ("/index.html", "no-cache"),
            ("/leaderboard/reporeuse", "no-cache"),
            ("/runs/12/road-audit/2", "no-cache"),
            ("/public/favicon.svg", "no-cache"),
            ("/my-page", "no-cache"),
            ("/cafe-beef.js", "no-cache"),
        ];
        for (path, want) in cases {
            assert_eq!(cache_policy(path), want, "{path}");
        }
    }
}
