//! `POST /api/v1/analyze`: the server's outline equals core's, and bad bodies are refused.

use crate::common;

use axum::http::StatusCode;
use common::{app, assert_api_error, post_json};
use wheelwright_core::outline::{Outline, outline};

/// Sources whose server answer must equal core's own, byte for byte.
const SOURCES: &[&str] = &[
    "",
    "def f(x):\n    return g(x)\n",
    "class C(Base):\n    @property\n    def p(self):\n        return self.q()\n",
    "def broken(:\n    pass\n\ndef ok():\n    helper()\n",
    "async def fetch(url):\n    async with session() as s:\n        return await s.get(url)\n",
];

#[tokio::test]
async fn the_server_answers_what_core_computes() {
    let app = app().await;
    for source in SOURCES {
        let body = serde_json::json!({ "source": source }).to_string();
        let reply = post_json(&app, "/api/v1/analyze", body).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        assert!(reply.content_type.starts_with("application/json"));
        let theirs: Outline = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(theirs, outline(source), "{source:?}");
    }
}

#[tokio::test]
async fn bad_bodies_are_client_errors_with_a_message() {
    let app = app().await;
    let cases: &[(&str, StatusCode, &str)] = &[
        ("{not json", StatusCode::BAD_REQUEST, "parse"),
        (
            "{\"code\": \"x\"}",
            StatusCode::UNPROCESSABLE_ENTITY,
            "source",
        ),
        (
            "{\"source\": 3}",
            StatusCode::UNPROCESSABLE_ENTITY,
            "source",
        ),
    ];
    for (body, status, words) in cases {
        let reply = post_json(&app, "/api/v1/analyze", *body).await;
        assert_api_error(&reply, *status, words);
    }
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused() {
    let app = app().await;
    let source = "x = 1\n".repeat(500_000);
    let body = serde_json::json!({ "source": source }).to_string();
    let reply = post_json(&app, "/api/v1/analyze", body).await;
    assert_api_error(&reply, StatusCode::PAYLOAD_TOO_LARGE, "larger than 2 MiB");
}

#[tokio::test]
async fn a_body_without_json_content_type_is_refused() {
    let app = app().await;
    let request = axum::http::Request::post("/api/v1/analyze")
        .header("content-type", "text/plain")
        .body(axum::body::Body::from("{\"source\": \"\"}"))
        .unwrap();
    let reply = common::send(&app, request).await;
    assert_api_error(&reply, StatusCode::UNSUPPORTED_MEDIA_TYPE, "content-type");
}
