//! Every path outside `/api`: the built app, with client-side routes falling back to it,
//! sent precompressed, hashed assets cached for good; and the API's answers compressed.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{app, app_with_dist, get, send};

/// `GET` of `path` from a browser that accepts `encodings`.
async fn get_encoded(app: &common::TestApp, path: &str, encodings: &str) -> common::Reply {
    let request = Request::get(path)
        .header("accept-encoding", encodings)
        .body(Body::empty())
        .unwrap();
    send(app, request).await
}

#[tokio::test]
async fn assets_go_out_precompressed_and_hashed_ones_are_cached_for_good() {
    let dir = tempfile::tempdir().unwrap();
    let dist = dir.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    let wasm = "wheelwright-app-a857600dce566eb7_bg.wasm";
    for (name, body) in [
        ("index.html", "<html>the app</html>".as_bytes()),
        ("index.html.br", b"brotli index"),
        (wasm, b"\0asm plain"),
        (&format!("{wasm}.br"), b"brotli wasm"),
        (&format!("{wasm}.gz"), b"gzip wasm"),
    ] {
        std::fs::write(dist.join(name), body).unwrap();
    }
    let app = app_with_dist(dir, Some(&dist)).await;
    let path = format!("/{wasm}");
    let immutable = "public, max-age=31536000, immutable";
    // (accepted encodings, the copy sent, its Content-Encoding)
    let cases = [
        ("br, gzip", "brotli wasm", Some("br")),
        ("gzip", "gzip wasm", Some("gzip")),
        ("identity", "\0asm plain", None),
    ];
    for (accepts, body, encoding) in cases {
        let reply = get_encoded(&app, &path, accepts).await;
        assert_eq!(reply.status, StatusCode::OK, "{accepts}");
        assert_eq!(reply.body, body.as_bytes(), "{accepts}");
        assert_eq!(
            reply
                .headers
                .get("content-encoding")
                .map(|v| v.to_str().unwrap()),
            encoding,
            "{accepts}"
        );
        assert_eq!(reply.headers["cache-control"], immutable, "{accepts}");
        assert!(
            reply.content_type.contains("wasm"),
            "{}",
            reply.content_type
        );
    }
    // A client-side route is index.html, revalidated every time (it names the hashed files).
    let page = get_encoded(&app, "/leaderboard/reporeuse", "br").await;
    assert_eq!(page.body, b"brotli index");
    assert_eq!(page.headers["cache-control"], "no-cache");
}

#[tokio::test]
async fn api_answers_are_compressed_for_clients_that_accept_it() {
    let app = app().await;
    let plain = get(&app, "/api/v1/leaderboard/reporeuse").await;
    assert!(plain.headers.get("content-encoding").is_none());
    for (accepts, encoding) in [("gzip", "gzip"), ("br", "br")] {
        let reply = get_encoded(&app, "/api/v1/leaderboard/reporeuse", accepts).await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.headers["content-encoding"], encoding);
        assert!(
            reply.body.len() * 3 < plain.body.len(),
            "{accepts}: {} of {} bytes",
            reply.body.len(),
            plain.body.len()
        );
    }
    // Errors keep the API's JSON shape, compressed or not.
    let missing = get_encoded(&app, "/api/v1/runs/9999", "gzip").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(missing.content_type.starts_with("application/json"));
}

#[tokio::test]
async fn client_routes_and_files_come_from_the_built_app() {
    let dir = tempfile::tempdir().unwrap();
    let dist = dir.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<html>the app</html>").unwrap();
    std::fs::write(dist.join("app.js"), "console.log(1)").unwrap();
    let app = app_with_dist(dir, Some(&dist)).await;
    for path in ["/", "/analyze", "/some/deep/route"] {
        let reply = get(&app, path).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.text(), "<html>the app</html>", "{path}");
    }
    let script = get(&app, "/app.js").await;
    assert_eq!(script.text(), "console.log(1)");
    assert!(script.content_type.contains("javascript"));
}

#[tokio::test]
async fn without_a_built_app_the_page_says_how_to_build_it() {
    let app = app().await;
    let reply = get(&app, "/").await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(reply.text().contains("scripts/start"));
}

#[tokio::test]
async fn paths_cannot_escape_the_app_directory() {
    let dir = tempfile::tempdir().unwrap();
    let dist = dir.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<html>the app</html>").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
    let app = app_with_dist(dir, Some(&dist)).await;
    for path in ["/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt"] {
        let reply = get(&app, path).await;
        assert!(!reply.text().contains("secret"), "{path} leaked");
    }
}
