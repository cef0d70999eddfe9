//! A RepoReuse dataset over two local repositories (`fixtures/multi/dataset`, chain `slugs` on `textkit`, `means` on `numkit`): read and validated, served (the scoring kit, each repository's saved index and source by `?repository=`), a run scored on each chain's own repository, and `wheelwright prepare` writing a turn's workspace with its chain's repository.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use axum::http::StatusCode;
use common::{assert_api_error, copy_dir, files_under, get, wheelwright};
use wheelwright_core::api::ScoringKit;
use wheelwright_core::budget::Cancel;
use wheelwright_core::metric::format_score;
use wheelwright_core::reporeuse::bundle::RepoReuseBundle;
use wheelwright_core::reporeuse::scoring::PreparedDataset;
use wheelwright_server::dataset::load_dir;

const DATASET: &str = "/api/v1/datasets/multi-fixture/1";

fn fixture() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/multi/dataset"
    ))
}

#[test]
fn each_repository_is_read_with_the_dataset_and_a_chain_without_one_names_its_file() {
    let dataset = load_dir(&fixture()).expect("the multi-repository fixture is valid");
    assert!(dataset.manifest.repository.is_none());
    let ids: Vec<&String> = dataset.repository_files.keys().collect();
    assert_eq!(ids, ["numkit", "textkit"]);
    let files = dataset.files();
    assert!(files.contains_key("repositories/numkit/numkit/stats.py"));
    assert!(files.contains_key("repositories/textkit/textkit/clean.py"));
    let sources = wheelwright_server::dataset::repository_sources(
        &dataset,
        &wheelwright_server::dataset::default_cache_dir(),
        std::path::Path::new("python3"),
    )
    .unwrap();
    assert!(sources["numkit"].contains_key("numkit/stats.py"));
    assert!(!sources["numkit"].contains_key("textkit/clean.py"));

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dataset");
    copy_dir(&fixture(), &dir);
    let chain = dir.join("chains/means/chain.json");
    let text = std::fs::read_to_string(&chain).unwrap();
    std::fs::write(
        &chain,
        text.replace("\"repository\": \"numkit\"", "\"repository\": \"nokit\""),
    )
    .unwrap();
    let error = load_dir(&dir).unwrap_err().to_string();
    assert!(
        error.contains("chains/means/chain.json")
            && error
                .contains("\"nokit\" is not one of the dataset's repositories (numkit, textkit)"),
        "{error}"
    );
}

#[tokio::test]
async fn the_server_serves_and_scores_each_repository_by_id() {
    let datasets = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), &datasets.path().join("multi-fixture"));
    let app = common::app_with_datasets(
        datasets.path(),
        wheelwright_server::TestConfig {
            backend: None,
            ..wheelwright_server::TestConfig::default()
        },
    )
    .await;

    // The kit carries every repository's files, by id.
    let kit = get(&app, &format!("{DATASET}/scoring")).await;
    assert_eq!(kit.status, StatusCode::OK, "{}", kit.text());
    let kit: ScoringKit = serde_json::from_slice(&kit.body).unwrap();
    let ids: Vec<&String> = kit.repositories.keys().collect();
    assert_eq!(ids, ["numkit", "textkit"]);
    assert!(kit.repositories["numkit"].contains_key("numkit/stats.py"));
    assert!(kit.repositories["textkit"].contains_key("textkit/clean.py"));

    // Each repository's saved index, asked for by id; the browser's way of scoring with
    // them refuses none and credits each chain with its own repository's targets.
    for (query, words) in [
        (
            "",
            "several repositories; name one with repository= (numkit, textkit)",
        ),
        ("?repository=nokit", "no repository \"nokit\""),
        ("?repo=numkit", "unknown query parameter \"repo\""),
    ] {
        let reply = get(&app, &format!("{DATASET}/scoring/index{query}")).await;
        assert_api_error(&reply, StatusCode::BAD_REQUEST, words);
    }
    let mut saved = BTreeMap::new();
    for id in kit.repositories.keys() {
        let reply = get(&app, &format!("{DATASET}/scoring/index?repository={id}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        saved.insert(id.clone(), reply.body);
    }
    assert_ne!(saved["numkit"], saved["textkit"]);
    let dataset = kit.dataset.to_score_dataset(kit.repositories.clone());
    let (prepared, refused) =
        PreparedDataset::with_saved_indexes(&dataset, &saved, &Cancel::never()).unwrap();
    assert!(refused.is_empty(), "{refused:?}");
    let files = load_dir(&fixture()).unwrap();
    let run = RepoReuseBundle::reference(&files).to_run(&files);
    let mut by_chain = prepared.chain_by_chain();
    for (id, chain) in &run.chains {
        by_chain.add(id, chain, &Cancel::never()).unwrap();
    }
    let report = by_chain.finish(&Cancel::never()).unwrap();
    assert_eq!(report.turns.len(), 2);
    for turn in &report.turns {
        assert_eq!(
            format_score("reuse_repo", turn.scores.reuse_repo).to_string(),
            "100.0",
            "{turn:?}"
        );
    }

    // A run uploaded is scored by the server the same way.
    let mut entries = vec![(
        "metadata.json".to_owned(),
        serde_json::json!({
            "model": "multi-test", "harness": "by hand", "memory": "none", "date": "2026-12-06",
            "dataset": {"name": "multi-fixture", "version": "1"},
        })
        .to_string()
        .into_bytes(),
    )];
    for chain in &files.chains {
        let turn = &chain.turns[0];
        entries.push((
            format!(
                "chains/{}/turn-1/files/{}",
                chain.manifest.id, turn.manifest.module_path
            ),
            turn.reference.clone().into_bytes(),
        ));
    }
    let refs: Vec<(&str, &[u8])> = entries
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let upload = common::post_bytes(&app, "/api/v1/runs", common::zip_of(&refs)).await;
    assert_eq!(upload.status, StatusCode::CREATED, "{}", upload.text());
    let id = upload.json()["id"].as_i64().unwrap();
    let detail = get(&app, &format!("/api/v1/runs/{id}")).await.json();
    assert_eq!(
        detail["overall"]["reuse_repo"]["value"], 100.0,
        "{detail:#}"
    );

    // The baselines are made on each chain's repository: the copy baseline copies each
    // chain's own repository's targets in, so nothing is reused.
    let listed = get(&app, "/api/v1/runs").await.json();
    let copy = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["baseline"] == "copy" && r["dataset_name"] == "multi-fixture")
        .unwrap_or_else(|| panic!("no copy baseline in {listed:#}"))["id"]
        .as_i64()
        .unwrap();
    let copy = get(&app, &format!("/api/v1/runs/{copy}")).await.json();
    assert_eq!(copy["overall"]["reuse_repo"]["value"], 0.0, "{copy:#}");
    assert_eq!(copy["diagnostics"], serde_json::json!([]), "{copy:#}");

    // Sources by repository id; a dataset of several needs the id.
    let listed = get(&app, &format!("{DATASET}/source?repository=numkit")).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.text());
    assert_eq!(
        listed.json()["files"],
        serde_json::json!(["numkit/__init__.py", "numkit/stats.py"])
    );
    let lines = get(
        &app,
        &format!("{DATASET}/source?repository=textkit&path=textkit/clean.py&start=1&end=2"),
    )
    .await;
    assert_eq!(lines.status, StatusCode::OK, "{}", lines.text());
    // Without an id, the repositories are read together: the pages link to a file by path.
    let unnamed = get(&app, &format!("{DATASET}/source?path=numkit/stats.py")).await;
    assert_eq!(unnamed.status, StatusCode::OK, "{}", unnamed.text());
    assert!(
        unnamed.json()["text"]
            .as_str()
            .unwrap()
            .contains("def mean")
    );
    let all = get(&app, &format!("{DATASET}/source")).await.json();
    assert_eq!(all["files"].as_array().unwrap().len(), 4, "{all}");
    let missing = get(&app, &format!("{DATASET}/source?path=nokit/a.py")).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    let unknown = get(&app, &format!("{DATASET}/source?repository=nokit")).await;
    assert_api_error(&unknown, StatusCode::BAD_REQUEST, "no repository \"nokit\"");
}

/// `wheelwright prepare` on a chain of each repository: the workspace holds that chain's
/// repository and not the other's, and the package imports from it.
#[test]
fn a_turn_workspace_holds_its_chains_repository() {
    let tmp = tempfile::tempdir().unwrap();
    for (chain, own, other) in [
        ("means", "numkit/stats.py", "textkit/clean.py"),
        ("slugs", "textkit/clean.py", "numkit/stats.py"),
    ] {
        let out = tmp.path().join(chain);
        let output = wheelwright(&[
            "prepare",
            "--dataset",
            fixture().to_str().unwrap(),
            "--chain",
            chain,
            "--turn",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let files = files_under(&out);
        assert!(files.contains_key(own), "{chain}: {:?}", files.keys());
        assert!(!files.contains_key(other), "{chain}: {:?}", files.keys());
    }
}

/// `wheelwright dataset verify` checks each chain's targets on W0 of its own repository
/// and names every repository it read.
#[test]
fn verify_checks_each_chain_on_its_repository() {
    let out = wheelwright(&[
        "dataset",
        "verify",
        fixture().to_str().unwrap(),
        "--skip-execution",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("repository numkit: repositories/numkit (2 Python files, local)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("repository textkit: repositories/textkit (2 Python files, local)"),
        "{stdout}"
    );
    assert!(stdout.contains("all checks passed"), "{stdout}");
}

/// `wheelwright score` reads every repository of the dataset: the chain that reuses its
/// own repository's two targets is credited, the one that reimplements them is not.
#[test]
fn score_credits_each_chain_with_its_own_repositorys_targets() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let write = |path: &str, text: &str| {
        let path = run.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "metadata.json",
        &serde_json::json!({
            "model": "multi-test", "harness": "by hand", "memory": "none", "date": "2026-12-06",
            "dataset": {"name": "multi-fixture", "version": "1"},
        })
        .to_string(),
    );
    let dataset = load_dir(&fixture()).unwrap();
    let slugs = &dataset.chains[0].turns[0];
    write(
        &format!("chains/slugs/turn-1/files/{}", slugs.manifest.module_path),
        &slugs.reference,
    );
    write(
        "chains/means/turn-1/files/solutions/means/mean.py",
        "def average(x):\n    return sum(x) / len(x)\n\n\ndef middle(x):\n    return sum(x) / 2\n\n\ndef half(x):\n    return average(x) / 2\n",
    );
    let out = wheelwright(&[
        "score",
        run.to_str().unwrap(),
        "--dataset",
        fixture().to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reuse: Vec<(String, f64)> = report["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["chain"].as_str().unwrap_or_default().to_owned(),
                t["reuse_repo"]["value"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    assert_eq!(
        reuse,
        [("slugs".to_owned(), 100.0), ("means".to_owned(), 0.0)],
        "{report:#}"
    );
}
