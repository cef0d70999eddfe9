//! Every path outside `/api`: the built app, with client-side routes falling back to it.

mod common;

use axum::http::StatusCode;
use common::{app, app_with_dist, get};

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
