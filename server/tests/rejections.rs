//! Every request the API refuses gets its JSON error shape with a message that says what is wrong (naming the limit where one was hit); nothing is stored and the server still answers.
//!
//! One table of requests and the status and words each answer must have; one helper
//! checks an answer, that the runs are unchanged, and that the health endpoint answers.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use common::{TestApp, app, assert_api_error, get, run_count, send};

/// 96 MiB: the upload limit (`routes::runs::UPLOAD_LIMIT`).
const UPLOAD_LIMIT: usize = 96 * 1024 * 1024;
/// 2 MiB: the analysis limit (`routes::analyze::BODY_LIMIT`).
const ANALYZE_LIMIT: usize = 2 * 1024 * 1024;

/// A request the API must refuse, with the status and the words its message must have.
struct Refused {
    name: &'static str,
    request: Request<Body>,
    status: StatusCode,
    words: &'static [&'static str],
}

fn post(uri: &str, content_type: &str, body: impl Into<Body>) -> Request<Body> {
    Request::post(uri)
        .header(header::CONTENT_TYPE, content_type)
        .body(body.into())
        .unwrap()
}

/// An upload as a browser's multipart form.
fn multipart_upload(fields: &[(&str, &[u8])]) -> Request<Body> {
    let (content_type, body) = common::multipart_form(fields);
    post("/api/v1/runs", &content_type, body)
}

fn cases() -> Vec<Refused> {
    vec![
        Refused {
            name: "an upload over the limit",
            request: post(
                "/api/v1/runs",
                "application/zip",
                vec![b'x'; UPLOAD_LIMIT + 1],
            ),
            status: StatusCode::PAYLOAD_TOO_LARGE,
            words: &["larger than 96 MiB", "100663296 bytes"],
        },
        Refused {
            name: "an upload whose Content-Length is over the limit",
            request: Request::post("/api/v1/runs")
                .header(header::CONTENT_TYPE, "application/x-ndjson")
                .header(header::CONTENT_LENGTH, (UPLOAD_LIMIT * 4).to_string())
                .body(Body::from("{}"))
                .unwrap(),
            status: StatusCode::PAYLOAD_TOO_LARGE,
            words: &["larger than 96 MiB"],
        },
        Refused {
            name: "a multipart form whose field is not named bundle",
            request: multipart_upload(&[("file", b"{}")]),
            status: StatusCode::BAD_REQUEST,
            words: &["field \"file\"", "named \"bundle\""],
        },
        Refused {
            name: "a multipart form with two bundles",
            request: multipart_upload(&[("bundle", b"{}"), ("bundle", b"{}")]),
            status: StatusCode::BAD_REQUEST,
            words: &["\"bundle\" twice", "one run bundle per upload"],
        },
        Refused {
            name: "a multipart form without fields",
            request: multipart_upload(&[]),
            status: StatusCode::BAD_REQUEST,
            words: &["no field \"bundle\""],
        },
        Refused {
            name: "a multipart form with an empty bundle",
            request: multipart_upload(&[("bundle", b"")]),
            status: StatusCode::BAD_REQUEST,
            words: &["body is empty"],
        },
        Refused {
            name: "a multipart form whose bundle is not one",
            request: multipart_upload(&[("bundle", b"{\"metadata\": {}}")]),
            status: StatusCode::UNPROCESSABLE_ENTITY,
            words: &["metadata"],
        },
        Refused {
            name: "a multipart form over the limit",
            request: multipart_upload(&[("bundle", &vec![b'x'; UPLOAD_LIMIT + 1])]),
            status: StatusCode::PAYLOAD_TOO_LARGE,
            words: &["larger than", "upload limit"],
        },
        Refused {
            name: "a multipart form whose boundary never ends",
            request: post(
                "/api/v1/runs",
                "multipart/form-data; boundary=xyz",
                "--xyz\r\nContent-Disposition: form-data; name=\"bundle\"\r\n\r\nabc",
            ),
            status: StatusCode::BAD_REQUEST,
            words: &["multipart form could not be read"],
        },
        Refused {
            name: "an empty upload",
            request: post("/api/v1/runs", "application/zip", Vec::new()),
            status: StatusCode::BAD_REQUEST,
            words: &["body is empty"],
        },
        Refused {
            name: "an analysis over the limit",
            request: post(
                "/api/v1/analyze",
                "application/json",
                format!(r#"{{"source": "{}"}}"#, "x".repeat(ANALYZE_LIMIT)),
            ),
            status: StatusCode::PAYLOAD_TOO_LARGE,
            words: &["larger than 2 MiB", "2097152 bytes"],
        },
        Refused {
            name: "an analysis that is not JSON by its Content-Type",
            request: post("/api/v1/analyze", "text/plain", r#"{"source": "x = 1"}"#),
            status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
            words: &["Content-Type: application/json", "text/plain"],
        },
        Refused {
            name: "an analysis without a Content-Type",
            request: Request::post("/api/v1/analyze")
                .body(Body::from(r#"{"source": "x = 1"}"#))
                .unwrap(),
            status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
            words: &["Content-Type: application/json", "none"],
        },
        Refused {
            name: "an analysis of broken JSON",
            request: post("/api/v1/analyze", "application/json", r#"{"source": "#),
            status: StatusCode::BAD_REQUEST,
            words: &["JSON"],
        },
        Refused {
            name: "an analysis of JSON of the wrong shape",
            request: post(
                "/api/v1/analyze",
                "application/json",
                r#"{"code": "x = 1"}"#,
            ),
            status: StatusCode::UNPROCESSABLE_ENTITY,
            words: &["unknown field `code`"],
        },
        Refused {
            name: "a path segment that is not UTF-8",
            request: Request::get("/api/v1/runs/%FF")
                .body(Body::empty())
                .unwrap(),
            status: StatusCode::BAD_REQUEST,
            words: &["UTF-8"],
        },
        Refused {
            name: "an unknown endpoint",
            request: Request::get("/api/v1/nothing-here")
                .body(Body::empty())
                .unwrap(),
            status: StatusCode::NOT_FOUND,
            words: &["no such API endpoint"],
        },
        Refused {
            name: "a method the endpoint does not answer",
            request: Request::delete("/api/v1/health")
                .body(Body::empty())
                .unwrap(),
            status: StatusCode::METHOD_NOT_ALLOWED,
            words: &["DELETE is not allowed", "Allow header"],
        },
        Refused {
            name: "a method the run list does not answer",
            request: Request::put("/api/v1/runs").body(Body::empty()).unwrap(),
            status: StatusCode::METHOD_NOT_ALLOWED,
            words: &["PUT is not allowed", "Allow header"],
        },
    ]
}

/// Sends `case`, checks its answer, that no run was stored, and that the server answers.
async fn assert_refused(app: &TestApp, case: Refused) {
    let before = run_count(app).await;
    let reply = send(app, case.request).await;
    assert!(
        reply.content_type.starts_with("application/json"),
        "{}: content type {:?}",
        case.name,
        reply.content_type
    );
    for words in case.words {
        assert_api_error(&reply, case.status, words);
    }
    assert_eq!(
        run_count(app).await,
        before,
        "{}: a run was stored",
        case.name
    );
    let health = get(app, "/api/v1/health").await;
    assert_eq!(
        health.status,
        StatusCode::OK,
        "{}: then {}",
        case.name,
        health.text()
    );
}

#[tokio::test]
async fn every_refusal_is_a_json_error_that_says_what_is_wrong() {
    let app = app().await;
    for case in cases() {
        assert_refused(&app, case).await;
    }
}

#[tokio::test]
async fn a_method_not_allowed_keeps_its_allow_header() {
    let app = app().await;
    let response = tower::ServiceExt::oneshot(
        app.router.clone(),
        Request::delete("/api/v1/runs").body(Body::empty()).unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    let allow = response.headers()[header::ALLOW]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(allow.contains("GET") && allow.contains("POST"), "{allow}");
    let content_type = response.headers()[header::CONTENT_TYPE].to_str().unwrap();
    assert_eq!(content_type, "application/json");
}
