//! `/api/v1/runs`: upload (JSON Lines and zip), baselines, run, turn table and turn case, and every kind of bad upload.

mod common;

use axum::http::StatusCode;
use common::{TestApp, app, assert_api_error, get, post_bytes, real_dataset, run_count, zip_of};
use serde_json::{Value, json};
use wheelwright_core::bundle::RunBundle;

fn dataset() -> wheelwright_core::dataset::RepoReuseDataset {
    wheelwright_server::dataset::load_dir(&real_dataset()).unwrap()
}

/// The reference solutions as an agent's run (another model name, so another bundle than
/// the stored reference baseline).
fn agent_bundle(model: &str) -> RunBundle {
    let mut bundle = RunBundle::reference(&dataset());
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

async fn runs(app: &TestApp, query: &str) -> Vec<Value> {
    let reply = get(app, &format!("/api/v1/runs{query}")).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    reply.json().as_array().unwrap().clone()
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
    let chains = run["chains"].as_array().unwrap();
    assert_eq!(chains.len(), 4);
    assert!(
        chains
            .iter()
            .all(|c| c["turns"].as_array().unwrap().len() == 5)
    );
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
    assert_eq!(case["reference"]["text"], t2.reference.as_str());
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
    let mut entries: Vec<(String, Vec<u8>)> = vec![(
        "my-run/metadata.json".to_owned(),
        serde_json::to_vec(&bundle.metadata).unwrap(),
    )];
    for ((chain, turn), files) in &bundle.turns {
        for (path, text) in &files.files {
            entries.push((
                format!("my-run/chains/{chain}/turn-{turn}/files/{path}"),
                text.clone().into_bytes(),
            ));
        }
    }
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
            3,
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
    let cases: Vec<(&str, Vec<u8>, StatusCode, &str)> = vec![
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
