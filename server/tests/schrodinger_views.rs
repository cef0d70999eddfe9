//! `GET /api/v1/schrodinger/datasets/{name}/{version}/repositories/{repo}/view`: one file of a ReCUBE dataset's repository beside its SchrodingerRepo view, the same for the same seed; bad requests refused saying what to give; the view's first address under `/recube` redirected here for good.

use crate::common;

use axum::http::{StatusCode, header};
use common::{app, assert_api_error, get};
use wheelwright_core::api::ViewFile;

const VIEWS: &str = "/api/v1/schrodinger/datasets/recube-pypi/1";

#[tokio::test]
async fn a_repository_file_is_shown_beside_its_view_and_the_same_seed_gives_the_same_view() {
    let app = app().await;
    let uri = |q: &str| format!("{VIEWS}/repositories/packaging/view?{q}");
    let reply = get(&app, &uri("seed=3&levels=2,3&path=packaging/version.py")).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let file: ViewFile = serde_json::from_value(reply.json()).expect("a view file");
    assert_eq!((file.seed, file.levels.as_slice()), (3, &[2u8, 3][..]));
    assert!(file.files.contains(&"packaging/version.py".to_owned()));
    assert_ne!(file.view, file.original);
    assert!(file.names.len() > 5, "{:?}", file.names);
    for (original, view) in &file.names {
        assert!(file.view.contains(view.as_str()) && file.original.contains(original.as_str()));
    }
    assert!(!file.runs.is_empty());
    for run in &file.runs {
        let mut a = run.original_order.clone();
        let mut b = run.view_order.clone();
        a.sort();
        b.sort();
        assert_eq!(
            a, b,
            "a run's view order is a permutation of its original order"
        );
    }
    let again = get(&app, &uri("seed=3&levels=2,3&path=packaging/version.py")).await;
    assert_eq!(again.json(), reply.json(), "a seed gives one view");
    let other: ViewFile = serde_json::from_value(
        get(&app, &uri("seed=4&path=packaging/version.py"))
            .await
            .json(),
    )
    .unwrap();
    assert_ne!(other.view, file.view);

    // Level 3 alone moves whole definitions: the same lines, in another order.
    let moved: ViewFile = serde_json::from_value(
        get(&app, &uri("seed=3&levels=3&path=packaging/version.py"))
            .await
            .json(),
    )
    .unwrap();
    assert!(moved.names.is_empty() && moved.view_path == moved.path);
    let sorted = |t: &str| {
        let mut l: Vec<&str> = t.lines().collect();
        l.sort_unstable();
        l.join("\n")
    };
    assert_eq!(sorted(&moved.view), sorted(&moved.original));
    assert_ne!(moved.view, moved.original);

    // The virtual namespace renames what a rewritten file cannot: the package, the
    // names in strings and `__all__`; nothing is reordered or rewritten but the names.
    let virtual_file: ViewFile = serde_json::from_value(
        get(
            &app,
            &uri("seed=3&levels=2&namespace=virtual&path=packaging/version.py"),
        )
        .await
        .json(),
    )
    .unwrap();
    assert!(virtual_file.virtual_namespace && virtual_file.runs.is_empty());
    assert!(!virtual_file.view_path.starts_with("packaging/"));
    assert!(
        virtual_file.names.len() > file.names.len(),
        "{} names, {} materialised",
        virtual_file.names.len(),
        file.names.len()
    );
    assert!(!virtual_file.view.contains("\"Version\""));
    assert_eq!(
        virtual_file.view.lines().count(),
        virtual_file.original.lines().count()
    );

    // Without a path: the first Python file.
    let first: ViewFile = serde_json::from_value(get(&app, &uri("")).await.json()).unwrap();
    assert_eq!(first.path, first.files[0]);
}

#[tokio::test]
async fn bad_view_requests_are_refused_saying_what_to_give() {
    let app = app().await;
    let uri = |q: &str| format!("{VIEWS}/repositories/packaging/view?{q}");
    for (uri, status, words) in [
        (uri("seed=-1"), StatusCode::BAD_REQUEST, "whole number"),
        (uri("levels=1"), StatusCode::BAD_REQUEST, "language model"),
        (uri("levels=2,x"), StatusCode::BAD_REQUEST, "not a number"),
        (uri("sed=1"), StatusCode::BAD_REQUEST, "unknown parameter"),
        (
            uri("namespace=virtual"),
            StatusCode::BAD_REQUEST,
            "level 2 alone",
        ),
        (uri("namespace=dreamt"), StatusCode::BAD_REQUEST, "neither"),
        (
            uri("path=packaging/nope.py"),
            StatusCode::NOT_FOUND,
            "no such Python file",
        ),
        (
            uri("path=../../etc/passwd"),
            StatusCode::NOT_FOUND,
            "no such Python file",
        ),
        (
            format!("{VIEWS}/repositories/nope/view"),
            StatusCode::NOT_FOUND,
            "no repository",
        ),
    ] {
        assert_api_error(&get(&app, &uri).await, status, words);
    }
}

#[tokio::test]
async fn the_views_first_address_under_recube_redirects_permanently_keeping_the_query() {
    let app = app().await;
    for (old, new) in [
        (
            "/api/v1/recube/datasets/recube-pypi/1/repositories/packaging/view?seed=3&levels=2,3&path=packaging/version.py",
            "/api/v1/schrodinger/datasets/recube-pypi/1/repositories/packaging/view?seed=3&levels=2,3&path=packaging/version.py",
        ),
        (
            "/api/v1/recube/datasets/recube-pypi/1/repositories/packaging/view",
            "/api/v1/schrodinger/datasets/recube-pypi/1/repositories/packaging/view",
        ),
        // Segments stay encoded as sent.
        (
            "/api/v1/recube/datasets/a%2Fb/0/repositories/r%20s/view?path=x%2Fy.py",
            "/api/v1/schrodinger/datasets/a%2Fb/0/repositories/r%20s/view?path=x%2Fy.py",
        ),
    ] {
        let reply = get(&app, old).await;
        assert_eq!(reply.status, StatusCode::PERMANENT_REDIRECT, "{old}");
        assert_eq!(reply.headers[header::LOCATION], new, "{old}");
    }
    // Where it leads answers as the view did.
    let moved = get(
        &app,
        "/api/v1/schrodinger/datasets/recube-pypi/1/repositories/packaging/view?seed=3&path=packaging/version.py",
    )
    .await;
    assert_eq!(moved.status, StatusCode::OK, "{}", moved.text());
}
