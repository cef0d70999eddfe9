//! `POST /api/v1/recube/runs` and `GET /api/v1/recube/runs/{id}`: a ReCUBE run bundle scored and stored untested, its hidden tests run through the same queue and sandbox as RepoReuse's, the server agreeing with `wheelwright recube test`; baselines and refusals.

use crate::common;

use std::collections::BTreeMap;

use axum::http::StatusCode;
use common::recube::{all_but_two, bundle, dataset_dir};
use common::{TestApp, app, assert_api_error, get, post_bytes};
use serde_json::{Value, json};
use wheelwright_server::dataset::recube::load_recube_dir;

const RATES: [&str; 6] = [
    "spr",
    "apr",
    "spr_external",
    "apr_external",
    "spr_internal",
    "apr_internal",
];

/// Uploads the hand-worked bundle of `common::recube`; the reply's body.
async fn upload(app: &TestApp) -> Value {
    let d = load_recube_dir(&dataset_dir()).expect("the shipped dataset");
    let reply = post_bytes(app, "/api/v1/recube/runs", bundle(&d).to_jsonl()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    let id = reply.json()["summary"]["id"].as_i64().unwrap();
    assert_eq!(
        reply.headers[axum::http::header::LOCATION],
        format!("/api/v1/recube/runs/{id}")
    );
    reply.json()
}

/// The leaderboard rows of stored runs, by model.
async fn run_rows(app: &TestApp) -> BTreeMap<String, Value> {
    let board = get(app, "/api/v1/leaderboard/recube").await.json();
    board["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["origin"] != "reported")
        .map(|r| (r["labels"]["model"].as_str().unwrap().to_owned(), r.clone()))
        .collect()
}

/// Polls the job until it is done; the last progress.
async fn wait_done(app: &TestApp, job: i64) -> Value {
    let start = std::time::Instant::now();
    loop {
        let progress = get(app, &format!("/api/v1/jobs/{job}")).await.json();
        if progress["state"] == "done" || progress["state"] == "failed" {
            return progress;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(900),
            "job {job} still {progress:#}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_run_is_stored_untested_then_tested_in_the_sandbox_as_the_command_line_scores_it_needs_bwrap()
 {
    let app = app().await;
    let stored = upload(&app).await;
    let id = stored["summary"]["id"].as_i64().unwrap();
    assert_eq!(stored["summary"]["benchmark"], "recube");
    assert_eq!(stored["summary"]["origin"], "verified");
    let d = load_recube_dir(&dataset_dir()).unwrap();
    let n = d.instances.len();
    assert_eq!(stored["summary"]["chain_count"], n);
    // Nothing is tested yet: no pass rate is claimed, not even 0.
    for rate in RATES {
        assert_eq!(
            stored["summary"]["overall"][rate]["status"], "undefined",
            "{rate}"
        );
    }
    let instances = stored["instances"].as_array().unwrap();
    assert_eq!(instances.len(), n);
    assert!(instances.iter().all(|i| i["tested"] == json!(false)));
    // What the trajectories say is scored at upload.
    let formatting = instances
        .iter()
        .find(|i| i["instance"] == "click-formatting")
        .unwrap();
    assert_eq!(formatting["caller_coverage"]["value"], json!(100.0));
    assert_eq!(formatting["cost_usd"], json!(0.5));

    let mine = &run_rows(&app).await["test-model"];
    assert_eq!(mine["origin"], "verified");
    assert_eq!(mine["run"], json!(id));
    assert!(mine["metrics"].get("spr").is_none(), "{mine:#}");

    // The same bundle again is the same run.
    let again = post_bytes(&app, "/api/v1/recube/runs", bundle(&d).to_jsonl()).await;
    assert_api_error(
        &again,
        StatusCode::CONFLICT,
        &format!("already stored as run {id}"),
    );

    // The hidden tests run through the queue: every instance, one slot each.
    let reply = post_bytes(&app, &format!("/api/v1/runs/{id}/tests"), Vec::new()).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.text());
    assert_eq!(reply.json()["turns_total"], n);
    let job = reply.json()["job"].as_i64().unwrap();
    let done = wait_done(&app, job).await;
    assert_eq!(done["state"], "done", "{done:#}");

    // Hand-worked in `cli_recube_test.rs`: every instance but two passes every test.
    let tested = get(&app, &format!("/api/v1/recube/runs/{id}")).await;
    assert_eq!(tested.status, StatusCode::OK, "{}", tested.text());
    let tested = tested.json();
    for rate in RATES {
        let value = tested["summary"]["overall"][rate]["value"]
            .as_f64()
            .unwrap();
        assert!((value - all_but_two(&d)).abs() < 1e-9, "{rate}: {value}");
    }
    let instances = tested["instances"].as_array().unwrap();
    assert!(instances.iter().all(|i| i["tested"] == json!(true)));
    for instance in instances {
        let (passed, total) = (&instance["all"]["passed"], &instance["all"]["total"]);
        let all_pass = !matches!(
            instance["instance"].as_str(),
            Some("packaging-version" | "click-parser")
        );
        assert_eq!(all_pass, passed == total, "{instance:#}");
        // Failure text never leaves the server.
        assert!(
            instance["tests"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t.get("excerpt").is_none())
        );
    }
    // Caller coverage did not change with the tests.
    let formatting = instances
        .iter()
        .find(|i| i["instance"] == "click-formatting")
        .unwrap();
    assert_eq!(formatting["caller_coverage"]["value"], json!(100.0));

    let mine = &run_rows(&app).await["test-model"];
    for metric in ["spr", "apr_internal"] {
        let value = mine["metrics"][metric].as_f64().unwrap();
        assert!((value - all_but_two(&d)).abs() < 1e-9, "{metric}: {value}");
    }
    // Two trajectories of all the instances gave a cost: the run's cost is unknown, not 0.75; model
    // calls are a mean over the instances that gave them, (7 + 3) / 2.
    assert!(mine["metrics"].get("cost_usd").is_none(), "{mine:#}");
    assert_eq!(mine["metrics"]["turns"], json!(5.0));
}

#[tokio::test]
async fn the_original_and_masked_files_are_baselines_on_the_leaderboard() {
    let app = app().await;
    let rows = run_rows(&app).await;
    for (model, baseline) in [
        ("original file (baseline)", "reference"),
        ("masked file (baseline)", "empty"),
    ] {
        let row = rows
            .get(model)
            .unwrap_or_else(|| panic!("no {model} row in {rows:#?}"));
        assert_eq!(row["origin"], "baseline");
        let run = row["run"].as_i64().unwrap();
        let detail = get(&app, &format!("/api/v1/recube/runs/{run}"))
            .await
            .json();
        assert_eq!(detail["summary"]["baseline"], baseline);
        let instances = detail["instances"].as_array().unwrap();
        assert_eq!(
            instances.len(),
            load_recube_dir(&dataset_dir()).unwrap().instances.len()
        );
        assert!(instances.iter().all(|i| i["submitted"] == json!(true)));
    }
}

#[tokio::test]
async fn bad_uploads_are_refused_and_nothing_is_stored() {
    let app = app().await;
    let before = run_rows(&app).await.len();
    let meta = r#"{"metadata": {"model": "m", "harness": "h", "memory": "none", "date": "2026-12-03", "dataset": {"name": "recube-pypi", "version": "1"}}}"#;
    for (body, status, words) in [
        (String::new(), StatusCode::BAD_REQUEST, "the body is empty"),
        (
            format!("{meta}\n"),
            StatusCode::UNPROCESSABLE_ENTITY,
            "the bundle has no instances: after the metadata line, add one line per instance",
        ),
        (
            format!("{meta}\n{}", r#"{"instance_id": "no-such", "files": {}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "has no instance \"no-such\"",
        ),
        (
            format!(
                "{meta}\n{}",
                r#"{"instance_id": "click-parser", "files": {"../x.py": "x = 1\n"}}"#
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            "is not a file path relative to the repository root",
        ),
        (
            format!(
                "{}\n{}",
                meta.replace("recube-pypi", "reporeuse-networkx")
                    .replace("\"0\"", "\"1\""),
                r#"{"instance_id": "click-parser", "files": {}}"#
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            "which this server does not have",
        ),
        (
            "PK\u{3}\u{4}not really a zip".to_owned(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "a ReCUBE run bundle is JSON Lines",
        ),
    ] {
        let reply = post_bytes(&app, "/api/v1/recube/runs", body.clone()).await;
        assert_api_error(&reply, status, words);
    }
    assert_eq!(run_rows(&app).await.len(), before);
}

#[tokio::test]
async fn a_recube_run_is_not_read_as_turns_nor_a_reporeuse_run_as_instances() {
    let app = app().await;
    let id = upload(&app).await["summary"]["id"].as_i64().unwrap();
    assert_api_error(
        &get(&app, &format!("/api/v1/runs/{id}/turns")).await,
        StatusCode::NOT_FOUND,
        &format!("GET /api/v1/recube/runs/{id}"),
    );
    assert_api_error(
        &get(
            &app,
            &format!("/api/v1/runs/{id}/chains/click-parser/turns/1"),
        )
        .await,
        StatusCode::NOT_FOUND,
        "is a ReCUBE run",
    );
    // Its files are read as any run's are: the instance is the chain, its turn 1.
    let file = get(
        &app,
        &format!("/api/v1/runs/{id}/chains/click-parser/turns/1/files?path=notes.md"),
    )
    .await;
    assert_eq!(file.status, StatusCode::OK, "{}", file.text());
    assert_eq!(file.text(), "gave up\n");
    // A RepoReuse baseline is not a ReCUBE run.
    let runs = get(&app, "/api/v1/runs?benchmark=reporeuse").await.json();
    let other = runs["items"][0]["id"].as_i64().unwrap();
    assert_api_error(
        &get(&app, &format!("/api/v1/recube/runs/{other}")).await,
        StatusCode::NOT_FOUND,
        "is not a ReCUBE run",
    );
    assert_api_error(
        &get(&app, "/api/v1/recube/runs/999999").await,
        StatusCode::NOT_FOUND,
        "no run 999999",
    );
}
