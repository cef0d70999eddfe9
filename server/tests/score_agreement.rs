//! Scores equal to the last bit: a generated 750-turn run scored by `wheelwright score` and by the server (stored, then read back) gives the same numbers, digit for digit.
//!
//! The run is made here from the shipped dataset, as `scripts/bench/paper-scale-gen.py`
//! makes its paper-scale workload (so it needs nothing outside a plain clone and the
//! networkx wheel in the cache): each of 150 chains is a copy of one of the shipped four
//! under its own package, and each turn submits its reference or a module of networkx,
//! a share of them with a vendored real trajectory. Averages over hundreds of turns are
//! where a float read back without `float_roundtrip` lost its last bit (c_dup
//! 0.9333333333333335 from the browser, ...36 from the server).
//!
//! The numbers are compared as the text each side wrote (whitespace aside), never through a
//! parse: serde_json writes the shortest text that reads back as the same f64, so equal
//! text is equal bits, whichever way this test's own parser rounds.

use crate::common;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::value::RawValue;

/// Chains of five turns: 750 turns, twice a paper run.
const CHAINS: usize = 150;
/// One turn in this many carries a real trajectory.
const TRAJECTORY_EVERY: usize = 25;

/// `text` with the base chain's package renamed to its copy's, as paths and dotted names.
fn rename(text: &str, old: &str, new: &str) -> String {
    text.replace(old, new)
        .replace(&old.replace('/', "."), &new.replace('/', "."))
}

/// Copies the tree `from` to `to`, renaming the package in every file.
fn copy_renamed(from: &Path, to: &Path, old: &str, new: &str) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_renamed(&entry.path(), &target, old, new);
        } else if entry.path().extension().is_none_or(|e| e != "pyc") {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            std::fs::write(&target, rename(&text, old, new)).unwrap();
        }
    }
}

/// Writes the dataset of `CHAINS` chains under `out` and returns its (chain, turn)s in order.
fn write_dataset(out: &Path) -> Vec<(String, usize)> {
    let source = common::real_dataset();
    let read = |path: PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let mut manifest = read(source.join("dataset.json"));
    let bases: Vec<String> = manifest["chains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    let mut ids = Vec::new();
    let mut turns = Vec::new();
    for k in 0..CHAINS {
        let base = &bases[k % bases.len()];
        let id = format!("{base}-{k:04}");
        let mut chain = read(source.join("chains").join(base).join("chain.json"));
        let old = chain["package"].as_str().unwrap().to_owned();
        let new = format!("{old}_{k:04}");
        chain["id"] = id.clone().into();
        chain["package"] = new.clone().into();
        let dir = out.join("chains").join(&id);
        copy_renamed(&source.join("chains").join(base), &dir, &old, &new);
        std::fs::write(dir.join("chain.json"), chain.to_string()).unwrap();
        let mut t = 1;
        while dir.join(format!("turn-{t}")).is_dir() {
            turns.push((id.clone(), t));
            t += 1;
        }
        ids.push(id);
    }
    common::copy_dir(&source.join("tools"), &out.join("tools"));
    manifest["name"] = "paper-scale-networkx".into();
    manifest["chains"] = ids.into();
    std::fs::write(out.join("dataset.json"), manifest.to_string()).unwrap();
    turns
}

/// The vendored real trajectories' texts, sorted by name.
fn trajectories() -> Vec<String> {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/real/gemini-3-pro");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".traj.json.gz"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let mut text = String::new();
            flate2::read::GzDecoder::new(std::fs::File::open(p).unwrap())
                .read_to_string(&mut text)
                .unwrap();
            text
        })
        .collect()
}

/// The run bundle as JSON Lines: each turn submits its reference, or every third turn a
/// module of networkx (cycled with a stride, so sizes mix), and every
/// `TRAJECTORY_EVERY`th turn carries a real trajectory.
fn write_bundle(dataset_dir: &Path, turns: &[(String, usize)]) -> String {
    let dataset = wheelwright_server::dataset::load_dir(dataset_dir).unwrap();
    let repository = wheelwright_server::dataset::repository_source(
        &dataset,
        &wheelwright_server::dataset::default_cache_dir(),
        Path::new("python3"),
    )
    .expect("the networkx wheel (`wheelwright dataset fetch`)");
    // Modules of 1 to 8 KB: real code, small enough to keep the test quick.
    let modules: Vec<&String> = repository
        .iter()
        .filter(|(path, text)| !path.contains("/tests/") && (1024..8192).contains(&text.len()))
        .map(|(_, text)| text)
        .collect();
    assert!(modules.len() > 50, "{} modules", modules.len());
    let trajectories = trajectories();
    let mut lines = vec![
        serde_json::json!({"metadata": {
            "model": "paper-scale", "harness": "mini-SWE-agent", "memory": "none",
            "date": "2026-12-01",
            "dataset": {"name": "paper-scale-networkx", "version": "1"}}})
        .to_string(),
    ];
    for (n, (chain, t)) in turns.iter().enumerate() {
        let spec = &dataset
            .chains
            .iter()
            .find(|c| &c.manifest.id == chain)
            .unwrap()
            .turns[t - 1];
        let submission = if n % 3 == 2 {
            modules[(n * 37) % modules.len()].as_str()
        } else {
            spec.reference.as_str()
        };
        let mut line = serde_json::json!({
            "instance_id": format!("{chain}/turn-{t}"),
            "files": {spec.manifest.module_path.clone(): submission},
        });
        if n % TRAJECTORY_EVERY == 0 {
            let text = &trajectories[(n / TRAJECTORY_EVERY) % trajectories.len()];
            line["trajectory"] = serde_json::from_str(text).unwrap();
        }
        lines.push(line.to_string());
    }
    lines.join("\n") + "\n"
}

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
    let turns = write_dataset(&dataset_dir);
    assert_eq!(turns.len(), 5 * CHAINS);
    let bundle = write_bundle(&dataset_dir, &turns);
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
