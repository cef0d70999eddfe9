//! `GET /api/v1/openapi.json`: the document lists exactly the router's endpoints, each one
//! answers, and answers carry the fields the document says are required.

use crate::common;

use std::collections::BTreeSet;

use axum::http::StatusCode;
use common::{app, get, post_bytes, post_json};

/// The API routes as written in `src/routes/mod.rs` (those not under the outer `/api`).
fn routed_paths() -> BTreeSet<String> {
    let source = include_str!("../src/routes/mod.rs");
    let mut paths = BTreeSet::new();
    let mut rest = source;
    while let Some(at) = rest.find(".route(") {
        rest = &rest[at + ".route(".len()..];
        let literal = rest.trim_start().strip_prefix('"').unwrap_or("");
        let path = &literal[..literal.find('"').unwrap_or(0)];
        if !path.is_empty() && !path.starts_with("/api") {
            paths.insert(path.to_owned());
        }
    }
    paths
}

/// Follows a local `$ref` such as `#/components/schemas/Health`.
fn resolve<'a>(doc: &'a serde_json::Value, node: &'a serde_json::Value) -> &'a serde_json::Value {
    match node.get("$ref").and_then(|r| r.as_str()) {
        Some(reference) => doc
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("dangling $ref {reference}")),
        None => node,
    }
}

/// Checks the fields a schema requires, one level deep (arrays: each item).
fn assert_required(
    doc: &serde_json::Value,
    schema: &serde_json::Value,
    value: &serde_json::Value,
    at: &str,
) {
    let schema = resolve(doc, schema);
    if let (Some(items), Some(values)) = (schema.get("items"), value.as_array()) {
        for v in values {
            assert_required(doc, items, v, at);
        }
        return;
    }
    for field in schema["required"].as_array().into_iter().flatten() {
        let field = field.as_str().unwrap();
        assert!(
            value.get(field).is_some(),
            "{at}: answer lacks required {field:?}: {value}"
        );
    }
}

#[tokio::test]
async fn the_document_and_the_router_list_the_same_endpoints() {
    let app = app().await;
    let reply = get(&app, "/api/v1/openapi.json").await;
    assert_eq!(reply.status, StatusCode::OK);
    let doc = reply.json();
    assert_eq!(doc["openapi"], "3.1.0");
    let documented: BTreeSet<String> = doc["paths"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(documented, routed_paths());
}

/// A request body for each documented POST: a run bundle for uploads, Python to analyse.
async fn post(app: &common::TestApp, uri: &str) -> common::Reply {
    if uri.ends_with("/tests") {
        return post_bytes(app, uri, Vec::new()).await;
    }
    if uri.ends_with("/cancel") {
        let request = axum::http::Request::post(uri)
            .header("authorization", format!("Bearer {MAINTAINER_TOKEN}"))
            .body(axum::body::Body::empty())
            .unwrap();
        return common::send(app, request).await;
    }
    if uri.ends_with("/recube/runs") {
        let d =
            wheelwright_server::dataset::recube::load_recube_dir(&common::recube::dataset_dir())
                .expect("the shipped ReCUBE dataset");
        return post_bytes(app, uri, common::recube::bundle(&d).to_jsonl()).await;
    }
    if uri.ends_with("/runs") {
        let dataset =
            wheelwright_server::dataset::load_dir(&common::real_dataset()).expect("the dataset");
        let mut bundle = wheelwright_core::reporeuse::bundle::RepoReuseBundle::reference(&dataset);
        bundle.metadata.model = "openapi-check".to_owned();
        return post_bytes(app, uri, bundle.to_jsonl()).await;
    }
    post_json(app, uri, r#"{"source": "def f():\n    return g()\n"}"#).await
}

/// The maintainer token of the checked server, so that cancelling succeeds.
const MAINTAINER_TOKEN: &str = "openapi-check-token";

#[tokio::test]
async fn every_documented_operation_answers_with_its_required_fields() {
    let app = common::app_with_tests(wheelwright_server::TestConfig {
        maintainer_token: Some(MAINTAINER_TOKEN.to_owned()),
        ..wheelwright_server::TestConfig::default()
    })
    .await;
    let doc = get(&app, "/api/v1/openapi.json").await.json();
    let runs = get(&app, "/api/v1/runs").await.json();
    let runs = &runs["items"];
    let (run, other_run) = (runs[0]["id"].to_string(), runs[1]["id"].to_string());
    // A job to read: the first run's hidden tests, queued before the checks.
    let queued = post_bytes(&app, &format!("/api/v1/runs/{run}/tests"), Vec::new()).await;
    assert_eq!(queued.status, StatusCode::ACCEPTED, "{}", queued.text());
    let job = queued.json()["job"].to_string();
    let recube_run =
        get(&app, "/api/v1/runs?benchmark=recube").await.json()["items"][0]["id"].to_string();
    for (path, operations) in doc["paths"].as_object().unwrap() {
        let id = if path.starts_with("/jobs/") {
            &job
        } else if path.starts_with("/recube/runs/") {
            &recube_run
        } else {
            &run
        };
        let uri = if path.starts_with("/recube/runs") {
            format!("/api/v1{path}")
        } else if path.starts_with("/recube/") || path.starts_with("/schrodinger/") {
            // ReCUBE's shipped dataset, an instance and a repository of it.
            format!(
                "/api/v1{}",
                path.replace("{name}", "recube-pypi")
                    .replace("{version}", "1")
                    .replace("{id}", "packaging-utils")
                    .replace("{repo}", "click")
            )
        } else {
            format!(
                "/api/v1{}",
                path.replace("{benchmark}", "reporeuse")
                    .replace("{name}", "reporeuse-networkx")
                    .replace("{version}", "1")
                    .replace("{chain}", "road-audit")
                    .replace("{turn}", "2")
            )
        };
        for (method, operation) in operations.as_object().unwrap() {
            // Queuing is checked on a run whose tests are not queued yet.
            let target = if method == "post" && path.ends_with("/tests") {
                other_run.as_str()
            } else {
                id.as_str()
            };
            let uri = uri.replace("{id}", target);
            let reply = match method.as_str() {
                "get" => get(&app, &uri).await,
                "post" => post(&app, &uri).await,
                other => panic!("{path}: method {other} has no check here"),
            };
            // The one success status the operation documents (a moved address: its redirect).
            let success = operation["responses"]
                .as_object()
                .unwrap()
                .keys()
                .find(|code| code.starts_with('2') || code.starts_with('3'))
                .unwrap_or_else(|| panic!("{method} {path} documents no success"));
            assert_eq!(
                reply.status.as_str(),
                success,
                "{method} {uri}: {}",
                reply.text()
            );
            let schema = &operation["responses"][success]["content"]["application/json"]["schema"];
            if !schema.is_null() {
                assert_required(&doc, schema, &reply.json(), &uri);
            }
        }
    }
}
