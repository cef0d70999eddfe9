//! `GET /api/v1/datasets`, `GET /api/v1/datasets/{name}/{version}`, its `scoring` kit and the
//! kit's saved `index`: the shipped dataset, imported at start, as its files say.

use crate::common;

use axum::http::StatusCode;
use common::{app, assert_api_error, get, real_dataset};
use wheelwright_server::dataset::load_dir;

#[tokio::test]
async fn the_shipped_dataset_is_imported_with_its_hash_and_sizes() {
    let app = app().await;
    let files = load_dir(&real_dataset()).unwrap();
    let listed = get(&app, "/api/v1/datasets").await;
    assert_eq!(listed.status, StatusCode::OK);
    let body = listed.json();
    let row = &body.as_array().unwrap()[0];
    assert_eq!(row["name"], files.manifest.name.as_str());
    assert_eq!(row["version"], files.manifest.version.as_str());
    assert_eq!(row["benchmark"], "reporeuse");
    assert_eq!(row["content_sha256"], files.content_hash().as_str());
    assert_eq!(row["chain_count"], files.chains.len() as u64);
    assert_eq!(row["turn_count"], files.turn_count() as u64);
    let cases: usize = files
        .chains
        .iter()
        .flat_map(|c| &c.turns)
        .map(|t| {
            serde_json::from_str::<Vec<serde_json::Value>>(&t.cases_json)
                .unwrap()
                .len()
        })
        .sum();
    assert_eq!(row["test_count"], cases as u64);
}

/// (chain, turn, requirement, repo targets, self targets)
type TurnFacts = (String, usize, String, Vec<String>, Vec<String>);

#[tokio::test]
async fn a_dataset_lists_every_turn_with_its_requirement_and_targets() {
    let app = app().await;
    let files = load_dir(&real_dataset()).unwrap();
    let uri = format!(
        "/api/v1/datasets/{}/{}",
        files.manifest.name, files.manifest.version
    );
    let body = get(&app, &uri).await.json();
    let turns = body["turns"].as_array().unwrap();
    let expected: Vec<TurnFacts> = files
        .chains
        .iter()
        .flat_map(|c| {
            c.turns.iter().map(|t| {
                (
                    c.manifest.id.clone(),
                    t.manifest.turn,
                    t.requirement.clone(),
                    t.manifest.repo_targets.clone(),
                    t.manifest.self_targets.clone(),
                )
            })
        })
        .collect();
    let served: Vec<TurnFacts> = turns
        .iter()
        .map(|t| {
            (
                t["chain"].as_str().unwrap().to_owned(),
                t["turn"].as_u64().unwrap() as usize,
                t["requirement"].as_str().unwrap().to_owned(),
                serde_json::from_value(t["repo_targets"].clone()).unwrap(),
                serde_json::from_value(t["self_targets"].clone()).unwrap(),
            )
        })
        .collect();
    assert_eq!(served, expected);
}

/// The dataset's Table 1 is computed from its files as `wheelwright dataset stats` computes
/// it, with the repository it pins, its chains' titles and the paper's Table 1 beside it
/// (the networkx values themselves are pinned in `snapshots/dataset-networkx.txt`).
#[tokio::test]
async fn a_dataset_carries_its_table_1_beside_the_papers() {
    use wheelwright_core::api::DatasetDetail;
    use wheelwright_core::reporeuse::stats::{DatasetStats, PaperStats};

    let app = app().await;
    let files = load_dir(&real_dataset()).unwrap();
    let uri = format!(
        "/api/v1/datasets/{}/{}",
        files.manifest.name, files.manifest.version
    );
    let detail: DatasetDetail = serde_json::from_slice(&get(&app, &uri).await.body).unwrap();
    let stats = detail.stats.expect("a loaded dataset has its statistics");
    assert_eq!(stats, DatasetStats::of(&files));
    assert_eq!(stats.chains, files.chains.len());
    assert_eq!(stats.turns, detail.turns.len());
    // Every served turn's case count is a value of the cases row.
    let cases = stats.row("cases_per_turn").unwrap();
    assert_eq!(cases.count, detail.turns.len());
    let sum: i64 = detail.turns.iter().map(|t| t.tests).sum();
    assert_eq!(cases.mean, Some(sum as f64 / cases.count as f64));
    let pinned: std::collections::BTreeMap<String, _> = files
        .manifest
        .repository_sources()
        .into_iter()
        .map(|(id, source)| (id.to_owned(), source.clone()))
        .collect();
    assert_eq!(detail.repositories, pinned);
    assert_eq!(detail.repositories.len(), 1);
    let chains: Vec<_> = files.chains.iter().map(|c| c.manifest.clone()).collect();
    assert_eq!(detail.chains, chains);

    let published = include_str!("../../data/published/reporeuse.json");
    let paper = PaperStats::from_published(published).unwrap();
    assert_eq!(detail.paper_stats, paper);
    let paper = paper.unwrap();
    for row in &stats.rows {
        assert!(
            paper.mean(&row.key).is_some(),
            "no paper value for {}",
            row.key
        );
    }
}

#[tokio::test]
async fn the_scoring_kit_is_the_dataset_without_its_hidden_tests_gzipped_and_revalidated() {
    let app = app().await;
    let files = load_dir(&real_dataset()).unwrap();
    let uri = format!(
        "/api/v1/datasets/{}/{}/scoring",
        files.manifest.name, files.manifest.version
    );
    let gzipped = common::get_with(&app, &uri, &[("accept-encoding", "br, gzip;q=0.8")]).await;
    assert_eq!(gzipped.status, StatusCode::OK, "{}", gzipped.text());
    assert_eq!(gzipped.headers["content-encoding"], "gzip");
    let etag = format!("\"{}-kit2\"", files.content_hash());
    assert_eq!(gzipped.headers["etag"], etag.as_str());
    let text = common::gunzip(&gzipped.body);
    let kit: wheelwright_core::api::ScoringKit = serde_json::from_slice(&text).unwrap();
    assert_eq!(kit.content_sha256, files.content_hash());
    assert_eq!(kit.dataset, files.without_hidden_tests());
    // Nothing that judges a run reaches the browser: no test, case or expected value.
    for turn in kit.dataset.chains.iter().flat_map(|c| &c.turns) {
        assert!(
            turn.tests.is_empty() && turn.cases_json.is_empty() && turn.expected_json.is_empty()
        );
        assert!(!turn.requirement.is_empty() && !turn.reference.is_empty());
    }
    assert!(kit.dataset.tools.is_empty());
    let hidden = files.chains[0].turns[0].expected_json.clone();
    assert!(!String::from_utf8_lossy(&text).contains(hidden.trim()));
    assert!(kit.repositories["networkx"].contains_key("networkx/__init__.py"));

    // Without gzip the same JSON, plain.
    let plain = common::get_with(&app, &uri, &[]).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert!(plain.headers.get("content-encoding").is_none());
    assert_eq!(plain.body, text);
    // A browser that has it gets a 304 without a body.
    let again = common::get_with(&app, &uri, &[("if-none-match", etag.as_str())]).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert!(again.body.is_empty());
    let stale = common::get_with(&app, &uri, &[("if-none-match", "\"old\"")]).await;
    assert_eq!(stale.status, StatusCode::OK);
    let unknown = get(&app, "/api/v1/datasets/nope/1/scoring").await;
    assert_api_error(&unknown, StatusCode::NOT_FOUND, "no dataset \"nope\"");
}

/// `body` decompressed.

#[tokio::test]
async fn the_saved_index_loads_against_the_kit_and_scores_as_the_index_built_there() {
    use std::collections::BTreeMap;
    use wheelwright_core::budget::Cancel;
    use wheelwright_core::reporeuse::bundle::RepoReuseBundle;
    use wheelwright_core::reporeuse::scoring::{PreparedDataset, score_run};

    let app = app().await;
    let files = load_dir(&real_dataset()).unwrap();
    let kit_uri = format!(
        "/api/v1/datasets/{}/{}/scoring",
        files.manifest.name, files.manifest.version
    );
    let uri = format!("{kit_uri}/index");
    let gzipped = common::get_with(&app, &uri, &[("accept-encoding", "gzip")]).await;
    assert_eq!(gzipped.status, StatusCode::OK, "{}", gzipped.text());
    assert_eq!(gzipped.headers["content-type"], "application/octet-stream");
    assert_eq!(gzipped.headers["content-encoding"], "gzip");
    let saved = common::gunzip(&gzipped.body);
    let etag = format!(
        "\"{}\"",
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&saved))
    );
    assert_eq!(gzipped.headers["etag"], etag.as_str());

    // The browser's way: the kit's dataset, prepared with the saved index, is not refused
    // and scores the dataset's reference run exactly as the index built from the files.
    let kit: wheelwright_core::api::ScoringKit =
        serde_json::from_slice(&get(&app, &kit_uri).await.body).unwrap();
    let dataset = kit.dataset.to_score_dataset(kit.repositories.clone());
    let name = dataset.repositories.keys().next().unwrap().clone();
    let (prepared, refused) = PreparedDataset::with_saved_indexes(
        &dataset,
        &BTreeMap::from([(name, saved.clone())]),
        &Cancel::never(),
    )
    .unwrap();
    assert!(refused.is_empty(), "{refused:?}");
    let run = RepoReuseBundle::reference(&files).to_run(&files);
    let mut by_chain = prepared.chain_by_chain();
    for (id, chain) in &run.chains {
        by_chain.add(id, chain, &Cancel::never()).unwrap();
    }
    assert_eq!(
        by_chain.finish(&Cancel::never()).unwrap(),
        score_run(&dataset, &run, &mut |_| {}).unwrap()
    );

    // Plain for a client without gzip; 304 for one that has it; 404 for no dataset.
    let plain = common::get_with(&app, &uri, &[]).await;
    assert!(plain.headers.get("content-encoding").is_none());
    assert_eq!(plain.body, saved);
    let again = common::get_with(&app, &uri, &[("if-none-match", etag.as_str())]).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert!(again.body.is_empty());
    let unknown = get(&app, "/api/v1/datasets/nope/1/scoring/index").await;
    assert_api_error(&unknown, StatusCode::NOT_FOUND, "no dataset \"nope\"");
}

#[tokio::test]
async fn unknown_datasets_are_404s() {
    let app = app().await;
    let reply = get(&app, "/api/v1/datasets/reporeuse-networkx/99").await;
    assert_api_error(
        &reply,
        StatusCode::NOT_FOUND,
        "GET /api/v1/datasets lists them",
    );
}

#[tokio::test]
async fn a_restart_keeps_one_copy() {
    let first = app().await;
    let again = common::app_with_dist(first.dir, None).await;
    let body = get(&again, "/api/v1/datasets").await.json();
    assert_eq!(body.as_array().unwrap().len(), 1);
}

/// The state over the datasets under `datasets`, with its database in `dir`.
async fn open_datasets(
    dir: &std::path::Path,
    datasets: &std::path::Path,
) -> anyhow::Result<wheelwright_server::AppState> {
    let config = wheelwright_server::ServeConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.join("data"),
        app_dir: dir.join("no-app"),
        datasets_dir: datasets.to_path_buf(),
        cache_dir: wheelwright_server::dataset::default_cache_dir(),
        tests: wheelwright_server::TestConfig::default(),
        http: wheelwright_server::HttpConfig::default(),
    };
    wheelwright_server::AppState::open(&config).await
}

#[tokio::test]
async fn two_folders_of_one_name_and_version_start_only_if_their_files_are_the_same() {
    // (what the second copy changes, the error the start gives: `None` if it starts)
    type Change = Option<(&'static str, &'static str)>;
    let cases: [(Change, Option<&str>); 3] = [
        (None, None),
        (
            Some((
                "chains/road-audit/turn-1/requirement.md",
                "A different requirement.\n",
            )),
            Some("are both \"reporeuse-networkx\" version \"1\" but their files differ"),
        ),
        (
            Some(("chains/build-graph/turn-2/reference.py", "x = 1\n")),
            Some("give one of them a new \"version\""),
        ),
    ];
    for (change, refused) in cases {
        let dir = tempfile::tempdir().unwrap();
        let datasets = dir.path().join("datasets");
        common::copy_dir(&real_dataset(), &datasets.join("a-first"));
        common::copy_dir(&real_dataset(), &datasets.join("b-second"));
        if let Some((file, text)) = change {
            std::fs::write(datasets.join("b-second").join(file), text).unwrap();
        }
        match (open_datasets(dir.path(), &datasets).await, refused) {
            (Ok(state), None) => {
                let app = common::TestApp {
                    router: wheelwright_server::router(state),
                    dir,
                };
                let body = get(&app, "/api/v1/datasets").await.json();
                assert_eq!(body.as_array().unwrap().len(), 1, "{body}");
            }
            (Err(error), Some(words)) => {
                let message = format!("{error:#}");
                for word in [
                    words,
                    &datasets.join("a-first").display().to_string(),
                    &datasets.join("b-second").display().to_string(),
                ] {
                    assert!(message.contains(word), "{change:?}: {message}");
                }
            }
            (Ok(_), Some(words)) => panic!("{change:?} started; expected {words:?}"),
            (Err(error), None) => panic!("{change:?} was refused: {error:#}"),
        }
    }
}

#[tokio::test]
async fn a_broken_dataset_is_skipped_and_the_server_still_starts() {
    let dir = tempfile::tempdir().unwrap();
    let datasets = dir.path().join("datasets");
    common::copy_dir(&real_dataset(), &datasets.join("good"));
    common::copy_dir(&real_dataset(), &datasets.join("broken"));
    std::fs::write(
        datasets.join("broken/chains/road-audit/turn-1/turn.json"),
        "{ not json",
    )
    .unwrap();
    let config = wheelwright_server::ServeConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.path().join("data"),
        app_dir: dir.path().join("no-app"),
        datasets_dir: datasets,
        cache_dir: wheelwright_server::dataset::default_cache_dir(),
        tests: wheelwright_server::TestConfig::default(),
        http: wheelwright_server::HttpConfig::default(),
    };
    let state = wheelwright_server::AppState::open(&config)
        .await
        .expect("a broken dataset does not stop the server");
    let app = common::TestApp {
        router: wheelwright_server::router(state),
        dir,
    };
    let body = get(&app, "/api/v1/datasets").await.json();
    // Both copies carry the same name and version; only the good one was stored.
    let rows = body.as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let good = load_dir(&real_dataset()).unwrap();
    assert_eq!(rows[0]["content_sha256"], good.content_hash().as_str());
}
