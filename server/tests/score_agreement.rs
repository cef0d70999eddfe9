//! Scores equal to the last bit: a generated 750-turn run scored by `wheelwright score` and by the server (stored, then read back) gives the same numbers, digit for digit.
//!
//! The run is made here from the shipped dataset (`common::paper_scale`, as
//! `scripts/bench/paper-scale-gen.py` makes its paper-scale workload, so it needs nothing
//! outside a plain clone and the networkx wheel in the cache). Averages over hundreds of turns are
//! where a float read back without `float_roundtrip` lost its last bit (c_dup
//! 0.9333333333333335 from the browser, ...36 from the server).
//!
//! The numbers are compared as the text each side wrote (whitespace aside), never through a
//! parse: serde_json writes the shortest text that reads back as the same f64, so equal
//! text is equal bits, whichever way this test's own parser rounds.

use crate::common;

use std::collections::BTreeMap;

use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::value::RawValue;

use common::paper_scale::{CHAINS, TRAJECTORY_EVERY, write_bundle, write_dataset};

/// A report's numbers as the text that wrote them.
#[derive(Deserialize)]
struct Written {
    overall: BTreeMap<String, Box<RawValue>>,
    series: BTreeMap<String, Box<RawValue>>,
}

/// A page of the server's turn table, each row's fields as written.
#[derive(Deserialize)]
struct TurnPage {
    total: usize,
    items: Vec<BTreeMap<String, Box<RawValue>>>,
}

/// The text of `raw` without whitespace (the command line writes pretty JSON; no string
/// compared here holds a space).
fn bare(raw: &RawValue) -> String {
    raw.get().chars().filter(|c| !c.is_whitespace()).collect()
}

/// A score (`{"status": ..., "value": ...}`) as each field's text, in key order (the
/// command line and the server write the fields in different orders).
type ScoreText = BTreeMap<String, String>;

fn score_text(raw: &RawValue) -> ScoreText {
    let fields: BTreeMap<String, Box<RawValue>> = serde_json::from_str(raw.get()).unwrap();
    fields.iter().map(|(k, v)| (k.clone(), bare(v))).collect()
}

/// A row of scores by column.
fn row_text(map: &BTreeMap<String, Box<RawValue>>) -> BTreeMap<&str, ScoreText> {
    map.iter()
        .map(|(k, v)| (k.as_str(), score_text(v)))
        .collect()
}

/// Each column's series of scores.
fn series_text(map: &BTreeMap<String, Box<RawValue>>) -> BTreeMap<&str, Vec<ScoreText>> {
    map.iter()
        .map(|(k, v)| {
            let scores: Vec<Box<RawValue>> = serde_json::from_str(v.get()).unwrap();
            (k.as_str(), scores.iter().map(|s| score_text(s)).collect())
        })
        .collect()
}

#[tokio::test]
async fn a_750_turn_run_scores_the_same_to_the_last_bit_on_the_command_line_and_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let datasets = dir.path().join("datasets");
    let dataset_dir = datasets.join("paper-scale-networkx");
    let turns = write_dataset(&dataset_dir, CHAINS);
    assert_eq!(turns.len(), 5 * CHAINS);
    let bundle = write_bundle(&dataset_dir, &turns, TRAJECTORY_EVERY);
    let run = dir.path().join("run.jsonl");
    std::fs::write(&run, &bundle).unwrap();

    // The command line's report.
    let out = common::wheelwright(&[
        "score",
        &run.to_string_lossy(),
        "--dataset",
        &dataset_dir.to_string_lossy(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli: Written = serde_json::from_slice(&out.stdout).unwrap();
    #[derive(Deserialize)]
    struct CliTurns {
        turns: Vec<BTreeMap<String, Box<RawValue>>>,
    }
    let cli_turns = serde_json::from_slice::<CliTurns>(&out.stdout)
        .unwrap()
        .turns;

    // The server's: scored on upload, stored as JSON text, read back by GET.
    let app = common::app_with_datasets(&datasets, wheelwright_server::TestConfig::default()).await;
    let reply = common::post_bytes(&app, "/api/v1/runs", bundle).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    let id = reply.json()["id"].as_i64().unwrap();
    let stored = common::get(&app, &format!("/api/v1/runs/{id}")).await;
    let server: Written = serde_json::from_slice(&stored.body).unwrap();

    assert_eq!(row_text(&server.overall), row_text(&cli.overall));
    assert_eq!(series_text(&server.series), series_text(&cli.series));
    // The run's row holds averages of hundreds of turns: numbers of 16 or 17 digits,
    // the ones a lossy read changed.
    let long = row_text(&cli.overall)
        .values()
        .filter_map(|score| score.get("value"))
        .filter(|v| v.chars().filter(char::is_ascii_digit).count() >= 16)
        .count();
    assert!(long > 0, "{:?}", row_text(&cli.overall));

    // Every turn's row, a page of the table at a time, against the command line's.
    let mut rows = Vec::new();
    while rows.len() < turns.len() {
        let page = common::get(
            &app,
            &format!("/api/v1/runs/{id}/turns?limit=100&offset={}", rows.len()),
        )
        .await;
        let page: TurnPage = serde_json::from_slice(&page.body).unwrap();
        assert_eq!(page.total, turns.len());
        assert!(!page.items.is_empty());
        rows.extend(page.items);
    }
    assert_eq!(rows.len(), cli_turns.len());
    let key = |row: &BTreeMap<String, Box<RawValue>>| (bare(&row["chain"]), bare(&row["turn"]));
    let served: BTreeMap<_, _> = rows.iter().map(|row| (key(row), row)).collect();
    let mut compared = 0;
    for cli_row in &cli_turns {
        let server_row = served[&key(cli_row)];
        for (column, written) in cli_row {
            // The scores (objects with a status); the rest is evidence shaped per host.
            if !written.get().contains("\"status\"") || written.get().starts_with('[') {
                continue;
            }
            let stored = server_row
                .get(column)
                .unwrap_or_else(|| panic!("the server's row has no {column}"));
            assert_eq!(
                score_text(stored),
                score_text(written),
                "{column} of {:?}",
                key(cli_row)
            );
            compared += 1;
        }
    }
    assert!(compared >= turns.len() * 5, "{compared} scores compared");
}
