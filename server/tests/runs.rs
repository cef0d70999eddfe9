//! `/api/v1/runs`: upload (JSON Lines, zip and a browser form), baselines, run, turn table and turn case, and every kind of bad upload.

use crate::common;

use axum::http::StatusCode;
use common::{
    TestApp, app, assert_api_error, get, multipart_form, post_bytes, real_dataset, run_count, send,
    zip_of,
};
use serde_json::{Value, json};
use wheelwright_core::reporeuse::bundle::RepoReuseBundle;

fn dataset() -> wheelwright_core::reporeuse::dataset::RepoReuseDataset {
    wheelwright_server::dataset::load_dir(&real_dataset()).unwrap()
}

/// The reference solutions as an agent's run (another model name, so another bundle than
/// the stored reference baseline).
fn agent_bundle(model: &str) -> RepoReuseBundle {
    let mut bundle = RepoReuseBundle::reference(&dataset());
    bundle.metadata.model = model.to_owned();
    bundle.metadata.harness = "mini-SWE-agent".to_owned();
    bundle.metadata.memory = "interface".to_owned();
    bundle.metadata.date = "2026-11-29".to_owned();
    bundle.metadata.notes = None;
    bundle
}

fn score(value: &Value) -> Option<f64> {
    (value["status"] == "defined").then(|| value["value"].as_f64().unwrap())
}

/// The runs of the first page of `GET /api/v1/runs{query}`.
async fn runs(app: &TestApp, query: &str) -> Vec<Value> {
    let reply = get(app, &format!("/api/v1/runs{query}")).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    reply.json()["items"].as_array().unwrap().clone()
}

#[tokio::test]
async fn every_dataset_gets_reference_empty_and_copy_baselines_scored_by_the_server() {
    let app = app().await;
    let baselines = runs(&app, "?origin=baseline").await;
    let by_kind = |kind: &str| {
        baselines
            .iter()
            .find(|r| r["baseline"] == kind)
            .unwrap_or_else(|| panic!("no {kind} baseline in {baselines:#?}"))
            .clone()
    };
    let reference = by_kind("reference");
    let empty = by_kind("empty");
    let copy = by_kind("copy");
    for run in [&reference, &empty, &copy] {
        assert_eq!(run["origin"], "baseline");
        assert_eq!(run["dataset_name"], "reporeuse-networkx");
        assert_eq!(
            (run["chain_count"].as_i64(), run["turn_count"].as_i64()),
            (Some(4), Some(20))
        );
        assert_eq!(run["harness"], "baseline");
    }
    assert_eq!(score(&reference["overall"]["reuse_repo"]), Some(100.0));
    assert_eq!(score(&reference["overall"]["reuse_self"]), Some(100.0));
    assert_eq!(score(&reference["overall"]["c_dup"]), Some(0.0));
    assert_eq!(score(&empty["overall"]["reuse_repo"]), Some(0.0));
    // The copy calls its own copies of the targets: reuse drops to 0 and chains
    // re-implement targets (25 of the 49 repo targets qualify under D6; see
    // server/tests/baseline_copy.rs).
    assert_eq!(score(&copy["overall"]["reuse_repo"]), Some(0.0));
    assert_eq!(score(&copy["overall"]["reuse_self"]), Some(0.0));
    assert!(score(&copy["overall"]["c_dup"]).unwrap() > 0.0, "{copy:#}");

    // The leaderboard shows them as baselines, apart from reported rows, linked to the run.
    let board = get(&app, "/api/v1/leaderboard/reporeuse?origin=baseline")
        .await
        .json();
    let rows = board["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{board:#}");
    for row in rows {
        assert_eq!(row["origin"], "baseline");
        assert!(row["run"].as_i64().is_some());
        assert!(
            row["labels"]["model"]
                .as_str()
                .unwrap()
                .ends_with(" baseline")
        );
        assert!(row["source"].is_null());
    }
    let reported = get(&app, "/api/v1/leaderboard/reporeuse?origin=reported")
        .await
        .json();
    assert!(
        reported["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["run"].is_null() && r["origin"] == "reported")
    );
}

#[tokio::test]
async fn a_json_lines_upload_is_scored_stored_and_served_down_to_each_turn() {
    let app = app().await;
    let before = run_count(&app).await;
    let reply = post_bytes(&app, "/api/v1/runs", agent_bundle("model-a").to_jsonl()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    let run = reply.json();
    let id = run["id"].as_i64().unwrap();
    assert_eq!(run["origin"], "verified");
    assert_eq!(run["model"], "model-a");
    assert_eq!(score(&run["overall"]["reuse_repo"]), Some(100.0));
    // No hidden tests have run yet: pass is undefined, never 0.
    assert_eq!(score(&run["overall"]["pass"]), None);
    // The run names its chains and how many turns each has; the turns are a table of
    // their own.
    let chains = run["chains"].as_array().unwrap();
    assert_eq!(chains.len(), 4);
    assert!(chains.iter().all(|c| c["turn_count"] == 5), "{chains:#?}");
    let turns = get(&app, &format!("/api/v1/runs/{id}/turns")).await.json();
    assert_eq!(turns["total"], 20);
    assert_eq!(turns["items"].as_array().unwrap().len(), 20);
    assert_eq!(run_count(&app).await, before + 1);

    // The same run again is the same run: refused, pointing at it.
    let again = post_bytes(&app, "/api/v1/runs", agent_bundle("model-a").to_jsonl()).await;
    assert_api_error(
        &again,
        StatusCode::CONFLICT,
        &format!("already stored as run {id}"),
    );
    assert_eq!(run_count(&app).await, before + 1);

    // GET /runs/{id} is what the upload answered.
    assert_eq!(get(&app, &format!("/api/v1/runs/{id}")).await.json(), run);

    // One turn's case: requirement, the agent's file beside the reference, every target.
    let d = dataset();
    let chain = &d.chains[0];
    let t2 = &chain.turns[1];
    let case = get(
        &app,
        &format!("/api/v1/runs/{id}/chains/{}/turns/2", chain.manifest.id),
    )
    .await;
    assert_eq!(case.status, StatusCode::OK, "{}", case.text());
    let case = case.json();
    assert_eq!(case["requirement"], t2.requirement.as_str());
    assert_eq!(case["submission"]["path"], t2.manifest.module_path.as_str());
    assert_eq!(case["submission"]["text"], t2.reference.as_str());
    assert_eq!(case["submission"]["bytes"], t2.reference.len());
    assert_eq!(case["submission"]["truncated"], false);
    assert_eq!(case["reference"]["text"], t2.reference.as_str());
    assert_eq!(case["other_file_count"], 0);
    let targets = case["targets"].as_array().unwrap();
    assert_eq!(
        targets.len(),
        t2.manifest.repo_targets.len() + t2.manifest.self_targets.len()
    );
    for target in targets {
        assert_eq!(target["referenced"], true, "{target:#}");
        assert!(target["reimplementation"].is_null(), "{target:#}");
        assert!(target["canonical"].is_string(), "{target:#}");
    }
    assert_eq!(case["trajectory"]["present"], false);
    assert_eq!(score(&case["scores"]["reuse_repo"]), Some(100.0));
}

#[tokio::test]
async fn a_zip_upload_of_a_bundle_folder_is_the_same_run_as_its_json_lines() {
    let app = app().await;
    let bundle = agent_bundle("model-zip");
    // Every entry under one folder, as zipping the bundle's folder gives.
    let entries: Vec<(String, Vec<u8>)> = bundle
        .to_files()
        .into_iter()
        .map(|(path, bytes)| (format!("my-run/{path}"), bytes))
        .collect();
    let refs: Vec<(&str, &[u8])> = entries
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let reply = post_bytes(&app, "/api/v1/runs", zip_of(&refs)).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    // The JSON Lines spelling of the same bundle is recognised as the same run.
    let again = post_bytes(&app, "/api/v1/runs", bundle.to_jsonl()).await;
    assert_api_error(&again, StatusCode::CONFLICT, "already stored");
}

#[tokio::test]
async fn a_browser_form_upload_is_the_same_run_as_the_bundle_sent_as_the_body() {
    let app = app().await;
    let bundle = agent_bundle("model-form");
    let (content_type, form) = multipart_form(&[("bundle", bundle.to_jsonl().as_bytes())]);
    let request = axum::http::Request::post("/api/v1/runs")
        .header(axum::http::header::CONTENT_TYPE, content_type)
        .body(axum::body::Body::from(form))
        .unwrap();
    let reply = send(&app, request).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    let stored = reply.json();
    assert_eq!(stored["model"], "model-form");
    assert_eq!(stored["turn_count"], 20);
    let again = post_bytes(&app, "/api/v1/runs", bundle.to_jsonl()).await;
    assert_api_error(&again, StatusCode::CONFLICT, "already stored");
}

/// The records of CSV `text` (RFC 4180: quoted fields may hold commas, quotes, line ends).
fn csv_records(text: &str) -> Vec<Vec<String>> {
    let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {
                chars.next();
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    records
}

/// `bytes` with every `from` replaced by `to` (of the same length).
fn replace_all(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let mut out = bytes.to_vec();
    let mut at = 0;
    while let Some(found) = out[at..].windows(from.len()).position(|w| w == from) {
        out[at + found..at + found + to.len()].copy_from_slice(to);
        at += found + to.len();
    }
    assert_ne!(out, bytes, "nothing to replace");
    out
}

/// `bundle` as a zip of its directory spelling, with `extra` entries (path, bytes).
fn bundle_zip(bundle: &RepoReuseBundle, extra: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut entries = bundle.to_files();
    entries.extend_from_slice(extra);
    let refs: Vec<(&str, &[u8])> = entries
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    zip_of(&refs)
}

/// Rows of a table of the RepoReuse paper's published results.
fn published_rows(table: &str) -> usize {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/published/reporeuse.json"
    );
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    file["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == table)
        .unwrap()["rows"]
        .as_array()
        .unwrap()
        .len()
}

#[tokio::test]
async fn tables_download_as_csv() {
    let app = app().await;
    let id = runs(&app, "?origin=baseline").await[0]["id"]
        .as_i64()
        .unwrap();
    for (uri, header_words, rows) in [
        (
            format!("/api/v1/runs/{id}/turns?format=csv"),
            "chain,turn,path",
            20,
        ),
        (
            "/api/v1/runs?format=csv".to_owned(),
            "id,origin,baseline",
            5,
        ),
        ("/api/v1/datasets?format=csv".to_owned(), "name,version", 1),
        (
            "/api/v1/datasets/reporeuse-networkx/1?format=csv".to_owned(),
            "chain,turn,title",
            20,
        ),
        (
            "/api/v1/benchmarks/reporeuse/published?table=table2&format=csv".to_owned(),
            "harness,model,reuse_repo",
            published_rows("table2"),
        ),
    ] {
        let reply = get(&app, &uri).await;
        assert_eq!(reply.status, StatusCode::OK, "{uri}: {}", reply.text());
        assert!(reply.content_type.starts_with("text/csv"), "{uri}");
        let text = reply.text();
        let lines: Vec<&str> = text.trim_end().split("\r\n").collect();
        assert!(lines[0].starts_with(header_words), "{uri}: {}", lines[0]);
        assert_eq!(lines.len(), rows + 1, "{uri}:\n{text}");
    }
    // The run table's CSV has one column per score, with values.
    let text = get(&app, "/api/v1/runs?format=csv&origin=baseline")
        .await
        .text();
    assert!(
        text.lines().next().unwrap().contains("reuse_repo"),
        "{text}"
    );
    assert!(text.contains(",100.0,") || text.contains(",100,"), "{text}");
}

/// Bad uploads: each a 4xx with a message that says what is wrong, and nothing stored.
#[tokio::test]
async fn bad_uploads_are_refused_and_nothing_is_stored() {
    let app = app().await;
    let before = run_count(&app).await;
    let good = agent_bundle("model-bad").to_jsonl();
    let meta_line = good.lines().next().unwrap().to_owned();
    let metadata = serde_json::to_vec(&agent_bundle("model-bad").metadata).unwrap();

    // An entry that inflates to 20 MiB from a few KiB: refused before it is inflated
    // past the per-file limit.
    let bomb = vec![0u8; 20 * 1024 * 1024];
    let many: Vec<(String, Vec<u8>)> = (0..20_001)
        .map(|i| {
            (
                format!("chains/road-audit/turn-1/files/f{i}.py"),
                Vec::new(),
            )
        })
        .collect();
    let many_refs: Vec<(&str, &[u8])> = many
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    // Metadata with one field replaced (a JSON Lines bundle of one turn).
    let with_meta = |field: &str, value: Value| {
        let mut meta = serde_json::to_value(&agent_bundle("model-bad").metadata).unwrap();
        meta[field] = value;
        format!(
            "{}\n{{\"instance_id\": \"road-audit/turn-1\"}}\n",
            json!({ "metadata": meta })
        )
        .into_bytes()
    };
    let instance = |turn: usize, files: Value| {
        json!({"instance_id": format!("road-audit/turn-{turn}"), "files": files}).to_string()
    };
    // Two zip entries with one name: the zip writer refuses to write that, so the second
    // name is patched into the first (names are not covered by the checksums).
    let twice = zip_of(&[
        ("metadata.json", &metadata),
        ("chains/road-audit/turn-1/files/solutions/a.py", b"x = 1\n"),
        ("chains/road-audit/turn-1/files/solutions/b.py", b"x = 2\n"),
    ]);
    let twice = replace_all(&twice, b"solutions/b.py", b"solutions/a.py");
    let cases: Vec<(&str, Vec<u8>, StatusCode, &str)> = vec![
        (
            "a NUL in a file path",
            format!("{meta_line}\n{}\n", instance(1, json!({"solutions/a\u{0}.py": "x = 1\n"})))
                .into_bytes(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "line 2: file path \"solutions/a\\0.py\" contains a control character",
        ),
        (
            "a NUL in a zip entry",
            zip_of(&[
                ("metadata.json", &metadata),
                ("chains/road-audit/turn-1/files/a\u{0}.py", b"x = 1\n"),
            ]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "contains a control character",
        ),
        (
            "a file in turn 1 is a directory in turn 2",
            format!(
                "{meta_line}\n{}\n{}\n",
                instance(1, json!({"solutions": "x = 1\n"})),
                instance(2, json!({"solutions/road_audit/closures.py": "x = 2\n"}))
            )
            .into_bytes(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "line 3 (road-audit/turn-2, file \"solutions/road_audit/closures.py\"): is inside \"solutions\", which turn 1 of chain road-audit leaves as a file",
        ),
        (
            "a zip entry twice",
            twice,
            StatusCode::UNPROCESSABLE_ENTITY,
            "chains/road-audit/turn-1/files/solutions/a.py: appears twice in the archive",
        ),
        (
            "a file twice in one instance",
            format!(
                "{meta_line}\n{{\"instance_id\": \"road-audit/turn-1\", \"files\": {{\"a.py\": \"1\", \"a.py\": \"2\"}}}}\n"
            )
            .into_bytes(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "\"files\" names \"a.py\" twice",
        ),
        (
            "a 1 MB scaffold version",
            with_meta("scaffold_version", json!("v".repeat(1_000_000))),
            StatusCode::UNPROCESSABLE_ENTITY,
            "\"scaffold_version\" must be 1-200 characters",
        ),
        (
            "a model name with an escape sequence",
            with_meta("model", json!("model\u{1b}[2J")),
            StatusCode::UNPROCESSABLE_ENTITY,
            "\"model\" contains the control character U+001B",
        ),
        (
            "empty body",
            Vec::new(),
            StatusCode::BAD_REQUEST,
            "the body is empty",
        ),
        (
            "malformed JSON",
            format!("{meta_line}\n{{\"instance_id\": \"road-audit/turn-1\", ").into_bytes(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "line 2: is not an instance",
        ),
        (
            "not a bundle at all",
            b"\xff\xfe binary".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "neither a zip archive nor UTF-8 JSON Lines",
        ),
        (
            "unknown dataset",
            good.replace("\"reporeuse-networkx\"", "\"no-such-dataset\"")
                .into_bytes(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "which this server does not have",
        ),
        (
            "unknown chain",
            format!("{meta_line}\n{{\"instance_id\": \"no-such-chain/turn-1\"}}\n").into_bytes(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "the dataset has no chain \"no-such-chain\"",
        ),
        (
            "turn beyond the chain",
            format!("{meta_line}\n{{\"instance_id\": \"road-audit/turn-6\"}}\n").into_bytes(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "has 5 turns",
        ),
        (
            "zip with ../ entry",
            zip_of(&[
                ("metadata.json", &metadata),
                ("../../etc/cron.d/evil", b"* * * * * root rm -rf /"),
            ]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "../../etc/cron.d/evil: is not a relative path inside the bundle",
        ),
        (
            "zip with an absolute entry",
            zip_of(&[("metadata.json", &metadata), ("/tmp/evil.py", b"x = 1\n")]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "is not a relative path inside the bundle",
        ),
        (
            "zip file path escaping the repository",
            zip_of(&[
                ("metadata.json", &metadata),
                ("chains/road-audit/turn-1/files/../../../x.py", b"x = 1\n"),
            ]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "is not a relative path inside the bundle",
        ),
        (
            "zip bomb",
            zip_of(&[
                ("metadata.json", &metadata),
                ("chains/road-audit/turn-1/files/bomb.py", &bomb),
            ]),
            StatusCode::PAYLOAD_TOO_LARGE,
            "over the limit of 16777216 bytes per file",
        ),
        (
            "too many entries",
            zip_of(&many_refs),
            StatusCode::PAYLOAD_TOO_LARGE,
            "more than 20000 entries",
        ),
        (
            "not a zip after all",
            b"PK\x03\x04 truncated".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "is not a readable zip file",
        ),
    ];
    for (name, body, status, words) in cases {
        let size = body.len();
        let reply = post_bytes(&app, "/api/v1/runs", body).await;
        assert_eq!(
            reply.status,
            status,
            "{name} ({size} bytes): {}",
            reply.text()
        );
        assert_api_error(&reply, status, words);
        assert_eq!(run_count(&app).await, before, "{name} stored something");
    }

    // Over the body limit: refused before it is read.
    let huge = vec![b' '; 33 * 1024 * 1024];
    let reply = post_bytes(&app, "/api/v1/runs", huge).await;
    assert_eq!(
        reply.status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "{}",
        reply.text()
    );
    assert_eq!(run_count(&app).await, before);
}

#[tokio::test]
async fn unknown_ids_and_malformed_parameters_are_clear_errors() {
    let app = app().await;
    let id = runs(&app, "").await[0]["id"].as_i64().unwrap();
    for (uri, status, words) in [
        (
            "/api/v1/runs/999999".to_owned(),
            StatusCode::NOT_FOUND,
            "no run 999999",
        ),
        (
            "/api/v1/runs/abc".to_owned(),
            StatusCode::BAD_REQUEST,
            "is not a positive integer",
        ),
        (
            "/api/v1/benchmarks/reporeuse/published?format=csv".to_owned(),
            StatusCode::BAD_REQUEST,
            "format=csv needs table=<id>",
        ),
        (
            "/api/v1/benchmarks/reporeuse/published?format=csv&table=nope".to_owned(),
            StatusCode::NOT_FOUND,
            "no table \"nope\"",
        ),
        (
            "/api/v1/runs/-1/turns".to_owned(),
            StatusCode::BAD_REQUEST,
            "is not a positive integer",
        ),
        (
            format!("/api/v1/runs/{id}/chains/road-audit/turns/9"),
            StatusCode::NOT_FOUND,
            "has no turn 9 of chain \"road-audit\"",
        ),
        (
            format!("/api/v1/runs/{id}/chains/nope/turns/1"),
            StatusCode::NOT_FOUND,
            "has no turn 1 of chain \"nope\"",
        ),
        (
            format!("/api/v1/runs/{id}/chains/road-audit/turns/zero"),
            StatusCode::BAD_REQUEST,
            "is not a turn number",
        ),
        (
            "/api/v1/runs?origin=reported".to_owned(),
            StatusCode::BAD_REQUEST,
            "is not verified or baseline",
        ),
        (
            "/api/v1/runs?benchmark=nope".to_owned(),
            StatusCode::NOT_FOUND,
            "no benchmark \"nope\"",
        ),
        (
            "/api/v1/runs?colour=red".to_owned(),
            StatusCode::BAD_REQUEST,
            "unknown query parameter",
        ),
        (
            format!("/api/v1/runs/{id}/turns?format=xml"),
            StatusCode::BAD_REQUEST,
            "is not json or csv",
        ),
    ] {
        let reply = get(&app, &uri).await;
        assert_api_error(&reply, status, words);
    }
}

#[tokio::test]
async fn runs_and_baselines_survive_a_restart_without_being_computed_twice() {
    let first = app().await;
    let reply = post_bytes(&first, "/api/v1/runs", agent_bundle("model-r").to_jsonl()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    let stored = runs(&first, "").await;
    let dir = first.dir;
    // A second server on the same data directory.
    let second = common::app_with_dist(dir, None).await;
    assert_eq!(runs(&second, "").await, stored);
}

#[tokio::test]
async fn repository_source_is_served_by_path_and_line_range_and_nothing_else() {
    let app = app().await;
    let base = "/api/v1/datasets/reporeuse-networkx/1/source";
    let files = get(&app, base).await.json();
    let files = files["files"].as_array().unwrap();
    assert!(
        files.iter().any(|f| f == "networkx/utils/misc.py"),
        "{files:?}"
    );

    let whole = get(&app, &format!("{base}?path=networkx/utils/misc.py"))
        .await
        .json();
    let text = whole["text"].as_str().unwrap();
    let total = whole["total_lines"].as_u64().unwrap() as usize;
    assert_eq!(text.lines().count(), total);
    let part = get(
        &app,
        &format!("{base}?path=networkx/utils/misc.py&start=3&end=5"),
    )
    .await
    .json();
    assert_eq!(
        (part["start"].as_u64(), part["end"].as_u64()),
        (Some(3), Some(5))
    );
    let expected: String = text.split_inclusive('\n').skip(2).take(3).collect();
    assert_eq!(part["text"], json!(expected));

    for (query, status, words) in [
        (
            "?path=../../../../etc/passwd",
            StatusCode::BAD_REQUEST,
            "without \"..\"",
        ),
        (
            "?path=/etc/passwd",
            StatusCode::BAD_REQUEST,
            "must be relative",
        ),
        (
            "?path=networkx/../../etc/passwd",
            StatusCode::BAD_REQUEST,
            "without \"..\"",
        ),
        (
            "?path=networkx%2F..%2F..%2Fsecret",
            StatusCode::BAD_REQUEST,
            "without \"..\"",
        ),
        (
            "?path=networkx/nope.py",
            StatusCode::NOT_FOUND,
            "has no file",
        ),
        (
            "?path=networkx/utils/misc.py&start=0",
            StatusCode::BAD_REQUEST,
            "is not a line number",
        ),
        (
            "?path=networkx/utils/misc.py&start=9999999",
            StatusCode::BAD_REQUEST,
            "are not in",
        ),
        (
            "?path=networkx/utils/misc.py&end=x",
            StatusCode::BAD_REQUEST,
            "is not a line number",
        ),
        (
            "?file=x",
            StatusCode::BAD_REQUEST,
            "unknown query parameter",
        ),
    ] {
        let reply = get(&app, &format!("{base}{query}")).await;
        assert_api_error(&reply, status, words);
    }
    let reply = get(&app, "/api/v1/datasets/nope/1/source").await;
    assert_api_error(&reply, StatusCode::NOT_FOUND, "no dataset \"nope\"");
}

#[tokio::test]
async fn runs_and_turns_are_served_in_pages_and_their_csv_whole() {
    let app = app().await;
    // Every page of runs, one at a time: each run once, in order, with the total (the
    // baselines: three of RepoReuse's dataset, two of ReCUBE's).
    let mut ids = Vec::new();
    for offset in 0..6 {
        let page = get(&app, &format!("/api/v1/runs?limit=1&offset={offset}"))
            .await
            .json();
        assert_eq!(
            (page["total"].as_i64(), page["limit"].as_i64()),
            (Some(5), Some(1))
        );
        assert_eq!(page["offset"], offset);
        let items = page["items"].as_array().unwrap();
        assert_eq!(items.len(), usize::from(offset < 5), "{page:#}");
        ids.extend(items.iter().map(|r| r["id"].as_i64().unwrap()));
    }
    let whole: Vec<i64> = runs(&app, "")
        .await
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, whole);
    let csv = get(&app, "/api/v1/runs?format=csv").await.text();
    assert_eq!(csv.trim_end().split("\r\n").count(), 1 + 5, "{csv}");
    let gzipped = common::get_with(
        &app,
        "/api/v1/runs?format=csv",
        &[("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(gzipped.headers["content-encoding"], "gzip");
    assert_eq!(common::gunzip(&gzipped.body), csv.as_bytes());

    // A run's turns, in pages that add up to its CSV, row for row.
    let id = whole[0];
    let mut keys = Vec::new();
    for offset in [0, 7, 14] {
        let page = get(
            &app,
            &format!("/api/v1/runs/{id}/turns?limit=7&offset={offset}"),
        )
        .await
        .json();
        assert_eq!(page["total"], 20);
        let items = page["items"].as_array().unwrap();
        assert_eq!(items.len(), if offset == 14 { 6 } else { 7 });
        for row in items {
            assert!(
                row.get("targets").is_none(),
                "the table leaves evidence out: {row:#}"
            );
            keys.push(format!(
                "{},{}",
                row["chain"].as_str().unwrap(),
                row["turn"]
            ));
        }
    }
    let csv = get(&app, &format!("/api/v1/runs/{id}/turns?format=csv"))
        .await
        .text();
    let rows: Vec<String> = csv
        .trim_end()
        .split("\r\n")
        .skip(1)
        .map(|line| line.split(',').take(2).collect::<Vec<_>>().join(","))
        .collect();
    assert_eq!(rows, keys);

    for (uri, words) in [
        (
            "/api/v1/runs?limit=0",
            "limit \"0\" is not a page size from 1 to 200",
        ),
        (
            "/api/v1/runs?limit=201",
            "limit \"201\" is not a page size from 1 to 200",
        ),
        ("/api/v1/runs?limit=ten", "is not a page size"),
        (
            "/api/v1/runs?offset=-1",
            "offset \"-1\" is not a number of rows to skip",
        ),
        (
            "/api/v1/runs?format=csv&limit=5",
            "format=csv is always the whole table",
        ),
        (
            &format!("/api/v1/runs/{id}/turns?limit=1001"),
            "from 1 to 1000",
        ),
        (
            &format!("/api/v1/runs/{id}/turns?offset=x"),
            "is not a number of rows to skip",
        ),
        (
            &format!("/api/v1/runs/{id}/turns?format=csv&offset=3"),
            "leave them out",
        ),
        (
            &format!("/api/v1/runs/{id}/turns?chain=x"),
            "unknown query parameter \"chain\"",
        ),
    ] {
        assert_api_error(&get(&app, uri).await, StatusCode::BAD_REQUEST, words);
    }
    assert_eq!(run_count(&app).await, 5);
}

#[tokio::test]
async fn csv_cells_a_submitter_wrote_cannot_run_as_formulas() {
    let app = app().await;
    let mut bundle = agent_bundle("=HYPERLINK(\"http://evil.example\",\"x\")");
    bundle.metadata.harness = "@SUM(1+1)".to_owned();
    bundle.metadata.memory = "-2+3".to_owned();
    bundle.metadata.notes = Some("+cmd|' /C calc'!A0".to_owned());
    let reply = post_bytes(&app, "/api/v1/runs", bundle.to_jsonl()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    // JSON carries the text as it was given; only CSV cells are neutralised.
    assert_eq!(reply.json()["harness"], "@SUM(1+1)");
    let csv = get(&app, "/api/v1/runs?format=csv&origin=verified")
        .await
        .text();
    let records = csv_records(&csv);
    let cell = |column: &str| {
        let at = records[0].iter().position(|c| c == column).unwrap();
        records[1][at].clone()
    };
    assert_eq!(cell("model"), "'=HYPERLINK(\"http://evil.example\",\"x\")");
    assert_eq!(cell("harness"), "'@SUM(1+1)");
    assert_eq!(cell("memory"), "'-2+3");
    assert_eq!(cell("notes"), "'+cmd|' /C calc'!A0");
    // Scores stay numbers.
    assert_eq!(cell("reuse_repo").parse::<f64>().ok(), Some(100.0));
}

#[tokio::test]
async fn a_turn_case_inlines_files_within_bounds_and_serves_each_whole() {
    let app = app().await;
    let bundle = agent_bundle("model-files");
    // Turn 1 of road-audit also leaves a 3 MiB log, a file of 2 MiB control characters
    // (6 bytes each once escaped in JSON) and 300 small files.
    let log: String = (0..100_000)
        .map(|i| format!("line {i:07} of the agent's log\n"))
        .collect::<String>();
    let log = log.repeat(3 * 1024 * 1024 / log.len() + 1);
    let controls = "\u{1}".repeat(2 * 1024 * 1024);
    let dir = "chains/road-audit/turn-1/files";
    let mut extra = vec![
        (format!("{dir}/logs/agent.log"), log.clone().into_bytes()),
        (
            format!("{dir}/logs/controls.txt"),
            controls.clone().into_bytes(),
        ),
    ];
    for i in 0..300 {
        extra.push((
            format!("{dir}/notes/n{i:03}.txt"),
            format!("note {i}\n").into_bytes(),
        ));
    }
    let reply = post_bytes(&app, "/api/v1/runs", bundle_zip(&bundle, &extra)).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    let id = reply.json()["id"].as_i64().unwrap();
    let base = format!("/api/v1/runs/{id}/chains/road-audit/turns/1");

    let reply = get(&app, &base).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    // The whole answer stays within the inline limit (4 MiB) plus the case itself.
    assert!(
        reply.body.len() < 4 * 1024 * 1024 + 256 * 1024,
        "{} bytes",
        reply.body.len()
    );
    let case = reply.json();
    assert_eq!(case["submission"]["truncated"], false);
    assert_eq!(case["other_file_count"], 302);
    let others = case["other_files"].as_array().unwrap();
    assert_eq!(
        others.len(),
        200,
        "the case lists the first 200 other files"
    );
    let file = |path: &str| {
        others
            .iter()
            .find(|f| f["path"] == path)
            .unwrap_or_else(|| panic!("no {path}"))
            .clone()
    };
    let shown_log = file("logs/agent.log");
    assert_eq!(shown_log["truncated"], true);
    assert_eq!(shown_log["bytes"], log.len());
    // 1 MiB as JSON: its line ends take two bytes each there.
    let text = shown_log["text"].as_str().unwrap();
    let as_json = serde_json::to_string(text).unwrap().len() - 2;
    assert!(
        (1024 * 1024 - 2..=1024 * 1024).contains(&as_json),
        "{as_json}"
    );
    assert!(log.starts_with(text));
    // Escapes count: 1 MiB of JSON holds a sixth as many control characters.
    let shown_controls = file("logs/controls.txt");
    assert_eq!(shown_controls["truncated"], true);
    assert_eq!(
        shown_controls["text"].as_str().unwrap().len(),
        1024 * 1024 / 6
    );

    // Each file whole as text, streamed, and the list of all of them.
    let whole = get(&app, &format!("{base}/files?path=logs/agent.log")).await;
    assert_eq!(whole.status, StatusCode::OK);
    assert_eq!(whole.content_type, "text/plain; charset=utf-8");
    assert_eq!(whole.body, log.as_bytes());
    let whole = get(&app, &format!("{base}/files?path=logs/controls.txt")).await;
    assert_eq!(whole.body, controls.as_bytes());
    // As a browser asks for it, compressed: the stream ends once, whole.
    let gzipped = common::get_with(
        &app,
        &format!("{base}/files?path=logs/agent.log"),
        &[("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(gzipped.status, StatusCode::OK);
    assert_eq!(gzipped.headers["content-encoding"], "gzip");
    assert_eq!(common::gunzip(&gzipped.body), log.as_bytes());
    let listed = get(&app, &format!("{base}/files?limit=1000")).await.json();
    assert_eq!(listed["total"], 303);
    let paths: Vec<&str> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 303);
    assert!(paths.windows(2).all(|w| w[0] < w[1]), "by path");
    assert!(paths.contains(&"solutions/road_audit/distances.py"));

    let before = run_count(&app).await;
    for (query, status, words) in [
        (
            "?path=../../etc/passwd",
            StatusCode::BAD_REQUEST,
            "is not a file path relative",
        ),
        (
            "?path=/etc/passwd",
            StatusCode::BAD_REQUEST,
            "is not a file path relative",
        ),
        (
            "?path=a%00b",
            StatusCode::BAD_REQUEST,
            "no control characters",
        ),
        (
            "?path=",
            StatusCode::BAD_REQUEST,
            "is not a file path relative",
        ),
        (
            "?path=nope.py",
            StatusCode::NOT_FOUND,
            "has no file \"nope.py\"",
        ),
        (
            "?path=logs/agent.log&limit=5",
            StatusCode::BAD_REQUEST,
            "leave them out with path=",
        ),
        (
            "?limit=0",
            StatusCode::BAD_REQUEST,
            "is not a page size from 1 to 1000",
        ),
        (
            "?name=x",
            StatusCode::BAD_REQUEST,
            "unknown query parameter \"name\"",
        ),
    ] {
        assert_api_error(
            &get(&app, &format!("{base}/files{query}")).await,
            status,
            words,
        );
    }
    let other = format!("/api/v1/runs/{id}/chains/road-audit/turns/9/files?path=a.py");
    assert_api_error(
        &get(&app, &other).await,
        StatusCode::NOT_FOUND,
        "has no turn 9",
    );
    let missing = "/api/v1/runs/999999/chains/road-audit/turns/1/files";
    assert_api_error(
        &get(&app, missing).await,
        StatusCode::NOT_FOUND,
        "no run 999999",
    );
    assert_eq!(run_count(&app).await, before);
}

/// `text` gzip-compressed, as `gzip` writes a `.jsonl.gz`.
fn gzip(text: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(text).unwrap();
    encoder.finish().unwrap()
}

#[tokio::test]
async fn a_gzip_json_lines_upload_is_the_same_run_and_its_lines_stay_within_the_limits() {
    let app = app().await;
    let jsonl = agent_bundle("model-gzip").to_jsonl();
    let reply = post_bytes(&app, "/api/v1/runs", gzip(jsonl.as_bytes())).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    let run = reply.json();
    assert_eq!(run["model"], "model-gzip");
    // The plain spelling of the same bundle is recognised as the same run.
    let again = post_bytes(&app, "/api/v1/runs", jsonl.clone()).await;
    assert_api_error(&again, StatusCode::CONFLICT, "already stored");

    let before = run_count(&app).await;
    let meta_line = jsonl.lines().next().unwrap();
    // A line without end that inflates past 16 MiB from a few KiB: stopped at the limit.
    let mut endless = format!("{meta_line}\n").into_bytes();
    endless.extend(std::iter::repeat_n(b' ', 17 * 1024 * 1024));
    let reply = post_bytes(&app, "/api/v1/runs", gzip(&endless)).await;
    assert_api_error(
        &reply,
        StatusCode::PAYLOAD_TOO_LARGE,
        "line 2 is longer than 16777216 bytes once decompressed",
    );
    // Compressed bytes that are not text.
    let reply = post_bytes(&app, "/api/v1/runs", gzip(&[0xff, 0xfe, b'\n'])).await;
    assert_api_error(
        &reply,
        StatusCode::UNPROCESSABLE_ENTITY,
        "neither a zip archive nor UTF-8 JSON Lines",
    );
    // A truncated gzip stream.
    let whole = gzip(jsonl.as_bytes());
    let reply = post_bytes(&app, "/api/v1/runs", whole[..whole.len() / 2].to_vec()).await;
    assert_api_error(
        &reply,
        StatusCode::UNPROCESSABLE_ENTITY,
        "cannot be read or decompressed",
    );
    assert_eq!(run_count(&app).await, before, "nothing was stored");
}

/// The trajectory of a recorded turn: the shell fixtures of class "turn", commands run with
/// bash in networkx 3.4.2's own files and rendered as mini-SWE-agent renders them
/// (`scripts/record-shell-fixtures`), in order, with one response the harness rejected.
fn recorded_trajectory(requirement: &str) -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/fixtures/shell/recorded.json"
    );
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut messages = vec![
        json!({"role": "system", "content": "You are a helpful assistant that can interact with a computer."}),
        json!({"role": "user", "content": requirement}),
    ];
    let turn: Vec<&Value> = recorded["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["class"] == "turn")
        .collect();
    assert_eq!(turn.len(), 4, "the recorded turn's actions");
    for (i, case) in turn.iter().enumerate() {
        if i == 2 {
            messages.push(json!({"role": "assistant", "content": "THOUGHT: I will read it next."}));
            messages.push(json!({"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 0 actions."}));
        }
        let command = case["command"].as_str().unwrap();
        messages.push(json!({"role": "assistant", "content": format!("THOUGHT: next.\n\n```bash\n{command}\n```")}));
        messages.push(json!({"role": "user", "content": case["observation"].clone()}));
    }
    json!({"trajectory_format": "mini-swe-agent-1", "instance_id": "road-audit/turn-1", "messages": messages})
}

/// A turn of the shipped dataset with a recorded trajectory: its case explains every number.
/// Reused: the uses' lines and imports; recalled: the span and the actions that showed it;
/// each action's reading, the rejected response, and the command not understood. The whole
/// case is pinned in `fixtures/recorded_turn/case.json` (`UPDATE_EXPECT=1` rewrites it).
#[tokio::test]
async fn a_recorded_turn_case_shows_the_evidence_behind_every_number() {
    let app = app().await;
    let d = dataset();
    let chain = &d.chains[0];
    let turn = &chain.turns[0];
    assert_eq!(chain.manifest.id, "road-audit");
    let metadata = json!({"metadata": {"model": "recorded-turn", "harness": "mini-SWE-agent",
        "memory": "interface", "date": "2026-12-02",
        "dataset": {"name": d.manifest.name, "version": d.manifest.version}}});
    let instance = json!({"instance_id": "road-audit/turn-1",
        "files": {turn.manifest.module_path.clone(): turn.reference},
        "trajectory": recorded_trajectory(&turn.requirement)});
    let reply = post_bytes(&app, "/api/v1/runs", format!("{metadata}\n{instance}\n")).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    let run = reply.json();
    let id = run["id"].as_i64().unwrap();
    assert_eq!(
        run["unparsed"]["not_understood"], 1,
        "{:#}",
        run["unparsed"]
    );
    assert_eq!(run["unparsed"]["reasons"][0]["program"], "semgrep");
    assert_eq!(run["unparsed"]["rejected_responses"], 1);

    let mut case = get(
        &app,
        &format!("/api/v1/runs/{id}/chains/road-audit/turns/1"),
    )
    .await
    .json();
    let actions = case["trajectory"]["actions"].as_array().unwrap();
    let kinds: Vec<&str> = actions
        .iter()
        .map(|a| a["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["list", "search", "read", "other"]);
    assert_eq!(
        case["trajectory"]["rejected"],
        json!([{"message": 6, "after_action": 2}])
    );
    assert_eq!(actions[3]["not_understood"]["reason"], "unknown_command");
    let pairwise = case["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["target"] == "networkx.utils.misc.pairwise")
        .unwrap()
        .clone();
    // Line 216 (the grep hit) and 210-245 (the read) both fall in pairwise's 216-222.
    assert_eq!(pairwise["definition"]["spans"], json!([[216, 222]]));
    assert_eq!(pairwise["recalled_by"], json!([2, 3]));
    assert_eq!(pairwise["referenced"], true);
    let uses = pairwise["uses"].as_array().unwrap();
    assert!(!uses.is_empty());
    for site in uses {
        let line = usize::try_from(site["line"].as_u64().unwrap()).unwrap();
        assert!(
            turn.reference
                .lines()
                .nth(line - 1)
                .unwrap()
                .contains("pairwise"),
            "{site}"
        );
    }
    case["run"] = json!("<run>");
    let pinned = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/recorded_turn/case.json"
    );
    common::expect::expect_json(std::path::Path::new(pinned), &case);
}

/// `GET uri` with `If-None-Match: etag`.
async fn revalidate(app: &TestApp, uri: &str, etag: &str) -> common::Reply {
    send(
        app,
        axum::http::Request::get(uri)
            .header(axum::http::header::IF_NONE_MATCH, etag)
            .body(axum::body::Body::empty())
            .unwrap(),
    )
    .await
}

/// The `ETag` of a reply.
fn etag(reply: &common::Reply) -> String {
    reply
        .headers
        .get(axum::http::header::ETAG)
        .unwrap_or_else(|| panic!("no ETag on {}", reply.text()))
        .to_str()
        .unwrap()
        .to_owned()
}

/// The read routes the cache keeps, for run `run`: the runs list, the run, one turn case
/// and the leaderboard.
fn cached_routes(run: i64) -> [String; 4] {
    [
        "/api/v1/runs".to_owned(),
        format!("/api/v1/runs/{run}"),
        format!("/api/v1/runs/{run}/chains/road-audit/turns/1"),
        "/api/v1/leaderboard/reporeuse".to_owned(),
    ]
}

#[tokio::test]
async fn cached_reads_show_each_upload_at_once_and_revalidate_by_etag() {
    let app = app().await;
    let first = post_bytes(
        &app,
        "/api/v1/runs",
        agent_bundle("model-cache-a").to_jsonl(),
    )
    .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text());
    let first = first.json()["id"].as_i64().unwrap();

    // Read twice: the same bytes and tag; a client that has them gets a 304 without a body.
    let mut tags = Vec::new();
    for uri in cached_routes(first) {
        let once = get(&app, &uri).await;
        let twice = get(&app, &uri).await;
        assert_eq!(once.status, StatusCode::OK, "{uri}: {}", once.text());
        assert_eq!(once.body, twice.body, "{uri}");
        assert_eq!(twice.content_type, "application/json", "{uri}");
        assert_eq!(etag(&once), etag(&twice), "{uri}");
        let again = revalidate(&app, &uri, &etag(&once)).await;
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{uri}");
        assert!(again.body.is_empty(), "{uri}");
        assert_eq!(etag(&again), etag(&once), "{uri}");
        // Another tag is another body: answered whole.
        let other = revalidate(&app, &uri, "W/\"0123\"").await;
        assert_eq!(other.body, once.body, "{uri}");
        tags.push(etag(&once));
    }
    let total = get(&app, "/api/v1/runs").await.json()["total"]
        .as_i64()
        .unwrap();

    // Another upload shows at once in the list and the leaderboard, under a new tag; the
    // first run's own answers are the same bytes as before.
    let second = post_bytes(
        &app,
        "/api/v1/runs",
        agent_bundle("model-cache-b").to_jsonl(),
    )
    .await;
    assert_eq!(second.status, StatusCode::CREATED, "{}", second.text());
    let second = second.json()["id"].as_i64().unwrap();
    let list = get(&app, "/api/v1/runs").await;
    assert_eq!(list.json()["total"].as_i64(), Some(total + 1));
    assert!(
        list.json()["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == second && r["model"] == "model-cache-b"),
        "{}",
        list.text()
    );
    assert_ne!(etag(&list), tags[0]);
    let stale = revalidate(&app, "/api/v1/runs", &tags[0]).await;
    assert_eq!(stale.status, StatusCode::OK, "an old tag gets the new list");
    let board = get(&app, "/api/v1/leaderboard/reporeuse").await.json();
    assert!(
        board["rows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["run"] == second),
        "{board:#}"
    );
    let run = get(&app, &format!("/api/v1/runs/{first}")).await;
    assert_eq!(etag(&run), tags[1], "the first run did not change");
    let case = get(
        &app,
        &format!("/api/v1/runs/{second}/chains/road-audit/turns/1"),
    )
    .await;
    assert_eq!(case.status, StatusCode::OK, "{}", case.text());
    assert_eq!(case.json()["run"], second);

    // What is not kept answers as ever: a missing run, a missing turn, a bad turn number.
    let missing = get(&app, "/api/v1/runs/999999").await;
    assert_api_error(&missing, StatusCode::NOT_FOUND, "no run 999999");
    assert!(missing.headers.get(axum::http::header::ETAG).is_none());
    let no_turn = get(
        &app,
        &format!("/api/v1/runs/{first}/chains/nowhere/turns/1"),
    )
    .await;
    assert_api_error(&no_turn, StatusCode::NOT_FOUND, "has no turn 1");
    let bad = get(&app, "/api/v1/runs/999999/chains/road-audit/turns/x").await;
    assert_api_error(&bad, StatusCode::NOT_FOUND, "no run 999999");
}

#[tokio::test]
async fn the_read_cache_stays_within_its_bytes_however_many_pages_are_asked_for() {
    const CAP: usize = 32 * 1024;
    let (app, state) = common::app_and_state(wheelwright_server::HttpConfig {
        read_cache_bytes: CAP,
        ..wheelwright_server::HttpConfig::default()
    })
    .await;
    let run = post_bytes(
        &app,
        "/api/v1/runs",
        agent_bundle("model-cache-c").to_jsonl(),
    )
    .await;
    let run = run.json()["id"].as_i64().unwrap();
    let total = run_count(&app).await;

    // Every page size and offset is a key of its own: far more than the cap holds (the
    // default page, read by `run_count`, is one more).
    let mut asked = 1;
    for limit in 1..=total {
        for offset in 0..=total {
            let uri = format!("/api/v1/runs?limit={limit}&offset={offset}");
            let page = get(&app, &uri).await;
            assert_eq!(page.status, StatusCode::OK, "{uri}: {}", page.text());
            let items = page.json()["items"].as_array().unwrap().len();
            assert_eq!(items, limit.min(total - offset.min(total)), "{uri}");
            asked += 1;
            let (entries, bytes) = state.read_cache_usage();
            assert!(bytes <= CAP, "{bytes} bytes kept after {uri}");
            assert!(entries <= asked);
        }
    }
    let (entries, bytes) = state.read_cache_usage();
    assert!(
        entries < asked,
        "{entries} of {asked} pages kept: some evicted"
    );
    assert!(bytes > CAP / 2, "{bytes} bytes: the cache is used");

    // The least recently used went first: the newest page is still kept, and answered the same.
    let newest = format!("/api/v1/runs?limit={total}&offset={total}");
    assert_eq!(get(&app, &newest).await.json()["items"], json!([]));

    // A turn case larger than an eighth of the cap is answered but not kept.
    let case = get(
        &app,
        &format!("/api/v1/runs/{run}/chains/road-audit/turns/1"),
    )
    .await;
    assert_eq!(case.status, StatusCode::OK, "{}", case.text());
    assert!(case.body.len() > CAP / 8, "{} bytes", case.body.len());
    assert_eq!(state.read_cache_usage().0, entries);

    // A write empties it: the next read keeps only itself.
    let other = post_bytes(
        &app,
        "/api/v1/runs",
        agent_bundle("model-cache-d").to_jsonl(),
    )
    .await;
    assert_eq!(other.status, StatusCode::CREATED, "{}", other.text());
    let page = get(&app, "/api/v1/runs?limit=1").await.json();
    assert_eq!(page["total"].as_u64(), Some(total as u64 + 1));
    assert_eq!(state.read_cache_usage().0, 1);
}

#[tokio::test]
async fn cached_reads_show_a_finished_hidden_test_job_at_once_needs_bwrap() {
    let app = app().await;
    // Road-audit's first turn solved with its reference, the other 19 missing (failed at
    // once): a short job.
    let dataset = dataset();
    let reference = &dataset
        .chains
        .iter()
        .find(|c| c.manifest.id == "road-audit")
        .unwrap()
        .turns[0]
        .reference;
    let run = post_bytes(
        &app,
        "/api/v1/runs",
        common::road_audit_bundle("model-cache-tests", reference, 1),
    )
    .await;
    assert_eq!(run.status, StatusCode::CREATED, "{}", run.text());
    let run = run.json()["id"].as_i64().unwrap();
    let before: Vec<common::Reply> = {
        let mut replies = Vec::new();
        for uri in cached_routes(run) {
            replies.push(get(&app, &uri).await);
        }
        replies
    };
    assert_eq!(before[1].json()["overall"]["pass"]["status"], "undefined");

    let queued = post_bytes(&app, &format!("/api/v1/runs/{run}/tests"), Vec::new()).await;
    assert_eq!(queued.status, StatusCode::ACCEPTED, "{}", queued.text());
    let job = queued.json()["job"].as_i64().unwrap();
    let start = std::time::Instant::now();
    // Reading while the job runs keeps the answers in use as the queue writes.
    while get(&app, &format!("/api/v1/jobs/{job}")).await.json()["state"] != "done" {
        for uri in cached_routes(run) {
            assert_eq!(get(&app, &uri).await.status, StatusCode::OK, "{uri}");
        }
        assert!(start.elapsed().as_secs() < 300, "job {job} not done");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }

    // The re-scored run shows at once wherever it appears.
    let detail = get(&app, &format!("/api/v1/runs/{run}")).await.json();
    assert_eq!(detail["overall"]["pass"]["status"], "defined", "{detail:#}");
    let case = get(
        &app,
        &format!("/api/v1/runs/{run}/chains/road-audit/turns/1"),
    )
    .await;
    assert_ne!(case.body, before[2].body, "the turn case shows its tests");
    assert_eq!(
        case.json()["scores"]["pass"]["status"],
        "defined",
        "{}",
        case.text()
    );
    let list = get(&app, "/api/v1/runs").await.json();
    let listed = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == run)
        .unwrap()
        .clone();
    assert_eq!(listed["overall"], detail["overall"]);
    let board = get(&app, "/api/v1/leaderboard/reporeuse").await.json();
    let row = board["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["run"] == run)
        .unwrap()
        .clone();
    assert_eq!(row["metrics"]["pass"], detail["overall"]["pass"]["value"]);
}
