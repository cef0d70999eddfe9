//! The API's replies pinned: every reading route of `openapi.json` on the same data, compared
//! with the expectation files in `snapshots/`.
//!
//! The data: the shipped dataset and the score fixture's dataset imported, their baselines
//! computed at start, and the score fixture's run uploaded (as a zip of its folder). Hidden
//! tests are off (no sandbox), so the job routes answer with their errors. Each case's reply
//! (status, media type and body: JSON pretty-printed with sorted keys, anything else as sent)
//! is one file `snapshots/<case>.txt`, with the values that change from run to run
//! (timestamps, and today's date that baselines carry) replaced by placeholders. The files pin the JSON
//! before a refactor: after it, the same replies must come back. To accept a deliberate
//! change: `UPDATE_EXPECT=1 cargo test -p wheelwright-server --test it api_snapshots::`, then
//! review the diff.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::expect::check_text;
use common::{Reply, TestApp, get, post_json, run_count, send, zip_of};
use serde_json::Value;

fn snapshots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

/// The score fixture (`tests/fixtures/score/`): a small hand-written dataset and run.
fn score_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/score")
}

/// One request and the file its reply is compared with.
struct Case {
    name: String,
    method: &'static str,
    uri: String,
    body: Option<String>,
}

fn get_case(name: &str, uri: impl Into<String>) -> Case {
    Case {
        name: name.to_owned(),
        method: "GET",
        uri: uri.into(),
        body: None,
    }
}

fn post_case(name: &str, uri: impl Into<String>, body: Option<Value>) -> Case {
    Case {
        name: name.to_owned(),
        method: "POST",
        uri: uri.into(),
        body: body.map(|b| b.to_string()),
    }
}

/// `text` with what differs between two runs of the same test, whatever the code, replaced
/// by placeholders: timestamps (when a row was written) become `<timestamp>`, and `today`
/// (the date a baseline is computed on) becomes `<today>`. Text, not keys, so that CSV
/// bodies are normalised like JSON ones; the fields themselves stay, so a reply that loses
/// one still differs.
fn normalise(text: &str, today: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied) = (0, 0);
    while i < bytes.len() {
        let replaced = if let Some(n) = timestamp_len(&bytes[i..]) {
            Some((n, "<timestamp>"))
        } else if bytes[i..].starts_with(today.as_bytes()) {
            Some((today.len(), "<today>"))
        } else {
            None
        };
        match replaced {
            Some((n, placeholder)) => {
                out.push_str(&text[copied..i]);
                out.push_str(placeholder);
                i += n;
                copied = i;
            }
            None => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// The length of the RFC 3339 UTC timestamp `bytes` starts with
/// (`YYYY-MM-DDTHH:MM:SS[.fraction]Z`), if it starts with one.
fn timestamp_len(bytes: &[u8]) -> Option<usize> {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:dd";
    if bytes.len() < SHAPE.len()
        || !SHAPE.iter().zip(bytes).all(|(s, b)| match s {
            b'd' => b.is_ascii_digit(),
            s => s == b,
        })
    {
        return None;
    }
    let mut n = SHAPE.len();
    if bytes.get(n) == Some(&b'.') {
        n += 1;
        while bytes.get(n).is_some_and(u8::is_ascii_digit) {
            n += 1;
        }
    }
    (bytes.get(n) == Some(&b'Z')).then_some(n + 1)
}

/// What a case's file holds: the request, the status and media type, then the body.
fn render(case: &Case, reply: &Reply, today: &str) -> String {
    let mut out = format!(
        "{} {}\n{} {}\n\n",
        case.method, case.uri, reply.status, reply.content_type
    );
    if reply.content_type.starts_with("application/json") {
        out += &serde_json::to_string_pretty(&reply.json()).expect("JSON serialises");
        out.push('\n');
    } else {
        out += &reply.text();
    }
    normalise(&out, today)
}

async fn call(app: &TestApp, case: &Case) -> Reply {
    match (case.method, &case.body) {
        ("GET", None) => get(app, &case.uri).await,
        ("POST", Some(body)) => post_json(app, &case.uri, body.clone()).await,
        ("POST", None) => {
            send(
                app,
                Request::post(&case.uri)
                    .body(Body::empty())
                    .expect("request"),
            )
            .await
        }
        (method, _) => panic!("{}: no way to send {method} with a body", case.name),
    }
}

/// The score fixture's run folder as a zip, entries sorted by path.
fn fixture_run_zip() -> Vec<u8> {
    let root = score_fixture().join("run");
    let mut entries = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("the fixture run") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(&root)
                    .expect("under the root")
                    .to_string_lossy()
                    .replace('\\', "/");
                entries.push((rel, std::fs::read(&path).expect("readable")));
            }
        }
    }
    entries.sort();
    let refs: Vec<(&str, &[u8])> = entries
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    zip_of(&refs)
}

/// The id of the run whose list row satisfies `pick`.
fn run_id(runs: &[Value], what: &str, pick: impl Fn(&Value) -> bool) -> i64 {
    runs.iter()
        .find(|r| pick(r))
        .and_then(|r| r["id"].as_i64())
        .unwrap_or_else(|| panic!("no {what} in {runs:#?}"))
}

/// Whether `path` (no query) is an instance of the OpenAPI path `template`.
fn matches_template(template: &str, path: &str) -> bool {
    let (t, p): (Vec<&str>, Vec<&str>) = (template.split('/').collect(), path.split('/').collect());
    t.len() == p.len()
        && t.iter()
            .zip(&p)
            .all(|(t, p)| (t.starts_with('{') && t.ends_with('}') && !p.is_empty()) || t == p)
}

/// Every (method, path template) of `openapi.json` that reads (every GET, and the analysis
/// POST, which computes without storing), but the description itself: the test below
/// pins it against the file.
fn reading_routes() -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi.json"))
        .expect("server/openapi.json");
    let doc: Value = serde_json::from_str(&text).expect("openapi.json is JSON");
    let mut out = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("path item").keys() {
            if (method == "get" && path != "/openapi.json") || path == "/analyze" {
                out.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    out
}

#[tokio::test]
async fn every_reading_route_answers_as_its_snapshot_says() {
    // The datasets folder: the shipped dataset and the score fixture's, side by side.
    let datasets = tempfile::tempdir().expect("temporary directory");
    common::copy_dir(
        &common::real_dataset(),
        &datasets.path().join("reporeuse-networkx"),
    );
    common::copy_dir(
        &score_fixture().join("dataset"),
        &datasets.path().join("score-fixture"),
    );
    common::copy_dir(
        &common::real_dataset().parent().unwrap().join("recube-pypi"),
        &datasets.path().join("recube-pypi"),
    );
    let app = common::app_with_datasets(
        datasets.path(),
        wheelwright_server::TestConfig {
            backend: None,
            ..wheelwright_server::TestConfig::default()
        },
    )
    .await;
    let upload = common::post_bytes(&app, "/api/v1/runs", fixture_run_zip()).await;
    assert_eq!(upload.status, StatusCode::CREATED, "{}", upload.text());
    let run = upload.json()["id"].as_i64().expect("the new run's id");
    let listed = get(&app, "/api/v1/runs").await.json();
    let runs = listed["items"].as_array().expect("a page of runs").clone();
    // The shipped dataset's baselines, by kind.
    let baseline = |kind: &'static str| {
        run_id(&runs, kind, move |r| {
            r["baseline"] == kind && r["dataset_name"] == "reporeuse-networkx"
        })
    };
    let (reference, networkx_empty, networkx_copy) =
        (baseline("reference"), baseline("empty"), baseline("copy"));
    let copy = run_id(&runs, "score-fixture copy baseline", |r| {
        r["baseline"] == "copy" && r["dataset_name"] == "score-fixture"
    });
    let recube_original = run_id(&runs, "ReCUBE original-file baseline", |r| {
        r["baseline"] == "reference" && r["dataset_name"] == "recube-pypi"
    });
    let stored = run_count(&app).await;
    // Today, as the server sees it: the fresh database's creation date.
    let health = get(&app, "/api/v1/health").await.json();
    let created = health["database"]["created_at"]
        .as_str()
        .expect("the database's creation time");
    assert!(timestamp_len(created.as_bytes()).is_some(), "{created}");
    let today = created[..10].to_owned();

    let benchmarks = get(&app, "/api/v1/benchmarks").await.json();
    let ids: Vec<String> = benchmarks
        .as_array()
        .expect("a list of benchmarks")
        .iter()
        .map(|b| b["id"].as_str().expect("a benchmark id").to_owned())
        .collect();
    assert!(ids.contains(&"reporeuse".to_owned()), "{benchmarks:#}");

    let mut cases = vec![
        get_case("health", "/api/v1/health"),
        get_case("benchmarks", "/api/v1/benchmarks"),
        get_case("benchmark-unknown", "/api/v1/benchmarks/nope/published"),
        get_case(
            "published-table2-csv",
            "/api/v1/benchmarks/reporeuse/published?table=table2&format=csv",
        ),
        get_case(
            "leaderboard-reporeuse-baselines",
            "/api/v1/leaderboard/reporeuse?origin=baseline",
        ),
        get_case(
            "leaderboard-reporeuse-sorted",
            "/api/v1/leaderboard/reporeuse?sort=reuse_repo&order=asc",
        ),
        get_case(
            "leaderboard-reporeuse-csv",
            "/api/v1/leaderboard/reporeuse?format=csv",
        ),
        get_case(
            "leaderboard-bad-sort",
            "/api/v1/leaderboard/reporeuse?sort=speed",
        ),
        get_case("datasets", "/api/v1/datasets"),
        get_case("datasets-csv", "/api/v1/datasets?format=csv"),
        get_case("dataset-networkx", "/api/v1/datasets/reporeuse-networkx/1"),
        get_case(
            "dataset-networkx-csv",
            "/api/v1/datasets/reporeuse-networkx/1?format=csv",
        ),
        get_case("dataset-score-fixture", "/api/v1/datasets/score-fixture/1"),
        get_case(
            "dataset-unknown-version",
            "/api/v1/datasets/reporeuse-networkx/99",
        ),
        get_case(
            "dataset-score-fixture-source",
            "/api/v1/datasets/score-fixture/1/source",
        ),
        // What the browser scores with: no hidden test in it (plain JSON: this client
        // does not ask for gzip).
        get_case(
            "dataset-score-fixture-scoring",
            "/api/v1/datasets/score-fixture/1/scoring",
        ),
        // The saved index is binary (its success is checked in datasets.rs); here, its
        // refusal of a dataset that is not there.
        get_case(
            "dataset-unknown-version-scoring-index",
            "/api/v1/datasets/reporeuse-networkx/99/scoring/index",
        ),
        get_case(
            "dataset-networkx-source-range",
            "/api/v1/datasets/reporeuse-networkx/1/source?path=networkx/utils/misc.py&start=1&end=30",
        ),
        get_case("recube-datasets", "/api/v1/recube/datasets"),
        get_case("recube-dataset", "/api/v1/recube/datasets/recube-pypi/1"),
        get_case(
            "recube-dataset-unknown",
            "/api/v1/recube/datasets/recube-pypi/9",
        ),
        get_case(
            "recube-instance-packaging-utils",
            "/api/v1/recube/datasets/recube-pypi/1/instances/packaging-utils",
        ),
        get_case(
            "recube-instance-unknown",
            "/api/v1/recube/datasets/recube-pypi/1/instances/nope",
        ),
        get_case(
            "recube-source-range",
            "/api/v1/recube/datasets/recube-pypi/1/repositories/click/source?path=click/parser.py&start=1&end=20",
        ),
        get_case(
            "recube-source-outside",
            "/api/v1/recube/datasets/recube-pypi/1/repositories/click/source?path=../etc/passwd",
        ),
        get_case(
            "schrodinger-view-packaging-utils",
            "/api/v1/schrodinger/datasets/recube-pypi/1/repositories/packaging/view?seed=3&levels=2,3&path=packaging/utils.py",
        ),
        get_case(
            "recube-view-moved",
            "/api/v1/recube/datasets/recube-pypi/1/repositories/packaging/view?levels=1",
        ),
        get_case(
            "schrodinger-view-level-1",
            "/api/v1/schrodinger/datasets/recube-pypi/1/repositories/packaging/view?levels=1",
        ),
        get_case(
            "recube-run-original",
            format!("/api/v1/recube/runs/{recube_original}"),
        ),
        get_case("recube-run-unknown", "/api/v1/recube/runs/9999"),
        get_case(
            "recube-run-of-reporeuse",
            format!("/api/v1/recube/runs/{reference}"),
        ),
        get_case("runs", "/api/v1/runs"),
        get_case("runs-csv", "/api/v1/runs?format=csv"),
        get_case(
            "runs-baselines",
            "/api/v1/runs?origin=baseline&benchmark=reporeuse",
        ),
        get_case("runs-page", "/api/v1/runs?limit=2&offset=1"),
        get_case("runs-bad-limit", "/api/v1/runs?limit=0"),
        get_case("run-fixture", format!("/api/v1/runs/{run}")),
        get_case(
            "run-networkx-reference",
            format!("/api/v1/runs/{reference}"),
        ),
        get_case("run-score-fixture-copy", format!("/api/v1/runs/{copy}")),
        get_case("run-unknown", "/api/v1/runs/9999"),
        get_case("run-bad-id", "/api/v1/runs/x"),
        get_case("run-fixture-turns", format!("/api/v1/runs/{run}/turns")),
        get_case(
            "run-fixture-turns-page",
            format!("/api/v1/runs/{run}/turns?limit=1&offset=1"),
        ),
        get_case(
            "run-fixture-turns-csv",
            format!("/api/v1/runs/{run}/turns?format=csv"),
        ),
        get_case(
            "run-networkx-reference-turns-csv",
            format!("/api/v1/runs/{reference}/turns?format=csv"),
        ),
        // Every score of the shipped dataset's baselines, turn by turn.
        get_case(
            "run-networkx-empty-turns-csv",
            format!("/api/v1/runs/{networkx_empty}/turns?format=csv"),
        ),
        get_case(
            "run-networkx-copy-turns-csv",
            format!("/api/v1/runs/{networkx_copy}/turns?format=csv"),
        ),
        get_case(
            "turn-fixture-slugs-1",
            format!("/api/v1/runs/{run}/chains/slugs/turns/1"),
        ),
        get_case(
            "turn-fixture-slugs-2",
            format!("/api/v1/runs/{run}/chains/slugs/turns/2"),
        ),
        get_case(
            "turn-fixture-tokens-1",
            format!("/api/v1/runs/{run}/chains/tokens/turns/1"),
        ),
        get_case(
            "turn-fixture-absent-1",
            format!("/api/v1/runs/{run}/chains/absent/turns/1"),
        ),
        get_case(
            "turn-score-fixture-copy-slugs-2",
            format!("/api/v1/runs/{copy}/chains/slugs/turns/2"),
        ),
        get_case(
            "turn-unknown-chain",
            format!("/api/v1/runs/{run}/chains/nope/turns/1"),
        ),
        get_case(
            "files-fixture-slugs-1",
            format!("/api/v1/runs/{run}/chains/slugs/turns/1/files"),
        ),
        get_case(
            "files-fixture-slugs-1-one",
            format!("/api/v1/runs/{run}/chains/slugs/turns/1/files?path=textkit/slug.py"),
        ),
        get_case(
            "observations-fixture-slugs-1",
            format!("/api/v1/runs/{run}/chains/slugs/turns/1/observations"),
        ),
        get_case(
            "observations-fixture-tokens-1",
            format!("/api/v1/runs/{run}/chains/tokens/turns/1/observations"),
        ),
        get_case(
            "files-fixture-unknown-path",
            format!("/api/v1/runs/{run}/chains/slugs/turns/1/files?path=nope.py"),
        ),
        get_case("tests-fixture-none", format!("/api/v1/runs/{run}/tests")),
        post_case(
            "tests-fixture-queue-no-sandbox",
            format!("/api/v1/runs/{run}/tests"),
            None,
        ),
        get_case("job-unknown", "/api/v1/jobs/1"),
        get_case("job-unknown-events", "/api/v1/jobs/1/events"),
        get_case("job-bad-id", "/api/v1/jobs/x"),
        post_case(
            "analyze",
            "/api/v1/analyze",
            Some(serde_json::json!({
                "source": "import os\n\nclass C(Base):\n    @property\n    def p(self):\n        return self.q(os.sep)\n\ndef broken(:\n    pass\n\ndef ok():\n    helper()\n"
            })),
        ),
        post_case(
            "analyze-bad-body",
            "/api/v1/analyze",
            Some(serde_json::json!({ "code": "x" })),
        ),
    ];
    for id in &ids {
        cases.push(get_case(
            &format!("published-{id}"),
            format!("/api/v1/benchmarks/{id}/published"),
        ));
        cases.push(get_case(
            &format!("leaderboard-{id}"),
            format!("/api/v1/leaderboard/{id}"),
        ));
    }

    let mut problems = Vec::new();
    let mut names = BTreeSet::new();
    for case in &cases {
        assert!(names.insert(case.name.clone()), "case {} twice", case.name);
        let reply = call(&app, case).await;
        let file = snapshots().join(format!("{}.txt", case.name));
        // Gather every difference before failing: one refactor may change many replies.
        let rendered = render(case, &reply, &today);
        if let Err(problem) = check_text(&file, &rendered) {
            problems.push(problem);
        }
    }
    // A snapshot no case writes is stale: it would pin nothing.
    for entry in std::fs::read_dir(snapshots()).expect("tests/snapshots") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        let case = name.strip_suffix(".txt").unwrap_or(&name);
        if !names.contains(case) {
            problems.push(format!(
                "tests/snapshots/{name} belongs to no case; remove it"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));

    // Every reading route of the API description has a case.
    for (method, template) in reading_routes() {
        let covered = cases.iter().any(|c| {
            let path = c.uri.split('?').next().unwrap_or("");
            c.method == method
                && path
                    .strip_prefix("/api/v1")
                    .is_some_and(|p| matches_template(&template, p))
        });
        assert!(covered, "{method} {template} has no snapshot case");
    }

    // Reading stored nothing, and the server still answers.
    assert_eq!(run_count(&app).await, stored);
    assert_eq!(get(&app, "/api/v1/health").await.status, StatusCode::OK);
}

/// `GET /openapi.json` serves the document in the repository as it is (so the snapshot of
/// the API's description is the file itself).
#[tokio::test]
async fn the_api_description_is_the_file_in_the_repository() {
    let app = common::app().await;
    let reply = get(&app, "/api/v1/openapi.json").await;
    assert_eq!(reply.status, StatusCode::OK);
    let file = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi.json"))
        .expect("server/openapi.json");
    let served = reply.json();
    let expected: Value = serde_json::from_str(&file).expect("openapi.json is JSON");
    assert_eq!(served, expected);
}

/// The normalisation replaces timestamps and today's date, and nothing else.
#[test]
fn normalising_replaces_timestamps_and_today_only() {
    for (text, expected) in [
        (
            r#"{"created_at": "2026-12-01T15:49:17.106Z"}"#,
            r#"{"created_at": "<timestamp>"}"#,
        ),
        ("1,2026-12-01T15:49:17Z,x", "1,<timestamp>,x"),
        ("2026-12-01,2026-11-29", "<today>,2026-11-29"),
        // Not timestamps: no zone, or cut short.
        (
            "2026-11-29T15:49:17 2026-11-29T15:49",
            "2026-11-29T15:49:17 2026-11-29T15:49",
        ),
        ("é 0.1.0 12345", "é 0.1.0 12345"),
    ] {
        assert_eq!(normalise(text, "2026-12-01"), expected, "{text}");
    }
}
