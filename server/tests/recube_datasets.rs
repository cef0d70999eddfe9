//! `GET /api/v1/recube/datasets/...`: ReCUBE's shipped dataset served from the datasets directory; an instance's page is the masked and original target, its labelled tests and views computed with the target withheld; its repository's files are looked up in memory (their SchrodingerRepo views: `schrodinger_views.rs`).

use crate::common;

use std::collections::BTreeSet;

use axum::http::StatusCode;
use common::{app, assert_api_error, get};
use wheelwright_core::api::{RecubeDatasetDetail, RecubeInstanceDetail, SourceFiles};
use wheelwright_core::recube::mask::mask;
use wheelwright_core::recube::views::MAX_NODES;

const DATASET: &str = "/api/v1/recube/datasets/recube-pypi/1";

#[tokio::test]
async fn every_instance_page_shows_the_target_masked_and_views_without_its_code() {
    let app = app().await;
    let detail: RecubeDatasetDetail =
        serde_json::from_value(get(&app, DATASET).await.json()).expect("a dataset detail");
    assert_eq!(detail.summary.instance_count, detail.instances.len());
    for summary in &detail.instances {
        let reply = get(&app, &format!("{DATASET}/instances/{}", summary.id)).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        let page: RecubeInstanceDetail = serde_json::from_value(reply.json()).expect("a page");
        let id = &summary.id;
        assert_eq!(&page.summary, summary, "{id}");
        assert_eq!(page.masked, mask(&page.original).text, "{id}");
        assert_eq!(page.context.target, summary.target, "{id}");
        assert_eq!(
            page.tests.len(),
            summary.external_tests + summary.internal_tests,
            "{id}"
        );
        // The views name the target's entities but never hold its code: no line of an
        // original body that the mask removed appears in them.
        let views = serde_json::to_string(&(&page.context, &page.neighbourhood)).unwrap();
        let masked: BTreeSet<&str> = page.masked.lines().map(str::trim).collect();
        let leaked: Vec<&str> = page
            .original
            .lines()
            .map(str::trim)
            // Lines JSON writes as they are (no quote or backslash to escape).
            .filter(|l| l.len() > 30 && !l.contains(['"', '\\']) && !masked.contains(l))
            .filter(|l| views.contains(l))
            .collect();
        assert!(leaked.is_empty(), "{id}: the views show {leaked:?}");
        assert!(page.neighbourhood.nodes.len() <= MAX_NODES, "{id}");
        // Every file a view links to is a file of the repository.
        let files: SourceFiles = serde_json::from_value(
            get(
                &app,
                &format!("{DATASET}/repositories/{}/source", summary.repository),
            )
            .await
            .json(),
        )
        .expect("the repository's files");
        for caller in &page.context.callers {
            assert!(files.files.contains(&caller.path), "{id}: {}", caller.path);
        }
        for node in &page.neighbourhood.nodes {
            if let Some(path) = &node.path {
                assert!(files.files.contains(path), "{id}: {path}");
            }
        }
    }
}

#[tokio::test]
async fn unknown_names_and_paths_outside_the_repository_are_refused() {
    let app = app().await;
    for (uri, status, words) in [
        (
            "/api/v1/recube/datasets/nope/0",
            StatusCode::NOT_FOUND,
            "no ReCUBE dataset",
        ),
        (
            &format!("{DATASET}/instances/nope") as &str,
            StatusCode::NOT_FOUND,
            "has no instance",
        ),
        (
            &format!("{DATASET}/repositories/nope/source"),
            StatusCode::NOT_FOUND,
            "has no repository",
        ),
        (
            &format!("{DATASET}/repositories/click/source?path=/etc/passwd"),
            StatusCode::BAD_REQUEST,
            "must be relative",
        ),
        (
            &format!("{DATASET}/repositories/click/source?path=click/nope.py"),
            StatusCode::NOT_FOUND,
            "has no file",
        ),
        (
            &format!("{DATASET}/repositories/click/source?pth=x"),
            StatusCode::BAD_REQUEST,
            "unknown query parameter",
        ),
    ] {
        assert_api_error(&get(&app, uri).await, status, words);
    }
}
