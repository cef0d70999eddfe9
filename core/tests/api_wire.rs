//! The wire types read every reply the server's snapshots pin, and write it back unchanged.
//!
//! `server/tests/api_snapshots.rs` pins each route's JSON; the app reads those replies
//! through [`wheelwright_core::api`]. This test parses every pinned JSON body as the type
//! the app reads it with and serialises it again: the two must be the same JSON, so a
//! field the type lacks (it would be dropped), misnames or types differently fails here,
//! not in a browser. A new JSON snapshot without an entry in [`wire_type`] fails too.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wheelwright_core::api::{
    BenchmarkSummary, DatasetDetail, DatasetSummary, ErrorBody, FileEntry, Health, Leaderboard,
    Page, Published, RecubeDatasetDetail, RecubeDatasetSummary, RecubeInstanceDetail,
    RecubeRunDetail, RunDetail, RunSummary, RunTests, ScoringKit, SourceFiles, SourceLines,
    TurnDetail, TurnObservations, TurnTableRow, ViewFile,
};
use wheelwright_core::outline::Outline;

/// One kind of check: `body` read as `T` and written back is `body`.
fn round_trips<T: DeserializeOwned + Serialize>(body: &Value) -> Result<(), String> {
    let typed: T = serde_json::from_value(body.clone()).map_err(|e| format!("not read: {e}"))?;
    let back = serde_json::to_value(&typed).map_err(|e| format!("not written: {e}"))?;
    if &back == body {
        Ok(())
    } else {
        Err(format!(
            "written back differently:\n{}",
            serde_json::to_string_pretty(&back).unwrap_or_default()
        ))
    }
}

type Check = fn(&Value) -> Result<(), String>;

/// The type a successful reply pinned as snapshot `name` is read with.
fn wire_type(name: &str) -> Option<Check> {
    let check: Check = match name {
        "analyze" => round_trips::<Outline>,
        "benchmarks" => round_trips::<Vec<BenchmarkSummary>>,
        "datasets" => round_trips::<Vec<DatasetSummary>>,
        "health" => round_trips::<Health>,
        "recube-datasets" => round_trips::<Vec<RecubeDatasetSummary>>,
        "recube-dataset" => round_trips::<RecubeDatasetDetail>,
        n if n.starts_with("recube-instance-") => round_trips::<RecubeInstanceDetail>,
        "schrodinger-view-packaging-utils" => round_trips::<ViewFile>,
        n if n.starts_with("recube-run-") => round_trips::<RecubeRunDetail>,
        n if n.ends_with("-source-range") => round_trips::<SourceLines>,
        n if n.starts_with("dataset-") && n.ends_with("-source") => round_trips::<SourceFiles>,
        n if n.starts_with("dataset-") && n.ends_with("-scoring") => round_trips::<ScoringKit>,
        n if n.starts_with("dataset-") => round_trips::<DatasetDetail>,
        n if n.starts_with("files-") => round_trips::<Page<FileEntry>>,
        n if n.starts_with("leaderboard-") => round_trips::<Leaderboard>,
        n if n.starts_with("observations-") => round_trips::<TurnObservations>,
        n if n.starts_with("published-") => round_trips::<Published>,
        n if n.starts_with("run-") && n.contains("-turns") => round_trips::<Page<TurnTableRow>>,
        n if n.starts_with("run-") => round_trips::<RunDetail>,
        n if n.starts_with("runs") => round_trips::<Page<RunSummary>>,
        n if n.starts_with("turn-") => round_trips::<TurnDetail>,
        _ => return None,
    };
    Some(check)
}

fn snapshots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/tests/snapshots")
}

/// A snapshot's status line and, for a JSON reply, its body.
fn read_snapshot(path: &Path) -> (String, Option<Value>) {
    let text = std::fs::read_to_string(path).expect("snapshot readable");
    let mut parts = text.splitn(2, "\n\n");
    let head = parts.next().unwrap_or_default();
    let body = parts.next().unwrap_or_default();
    let status = head.lines().nth(1).unwrap_or_default().to_owned();
    let json = status
        .ends_with("application/json")
        .then(|| serde_json::from_str(body).expect("a JSON snapshot's body is JSON"));
    (status, json)
}

#[test]
fn every_pinned_reply_reads_as_its_wire_type_and_writes_back_unchanged() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(snapshots())
        .expect("server/tests/snapshots exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in &paths {
        let name = path.file_stem().unwrap_or_default().to_string_lossy();
        let (status, Some(body)) = read_snapshot(path) else {
            continue;
        };
        let check = if status.starts_with('2') {
            match wire_type(&name) {
                Some(check) => check,
                None => {
                    failures.push(format!("{name}: no wire type; add it to wire_type()"));
                    continue;
                }
            }
        } else {
            round_trips::<ErrorBody>
        };
        if let Err(why) = check(&body) {
            failures.push(format!("{name}: {why}"));
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} JSON snapshots found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_reply_with_a_field_the_type_lacks_is_caught() {
    let mut body: Value = serde_json::from_str(r#"{"error": "no run 9"}"#).expect("JSON");
    assert!(round_trips::<ErrorBody>(&body).is_ok());
    body["hint"] = Value::from("GET /api/v1/runs");
    assert!(round_trips::<ErrorBody>(&body).is_err());
}

/// A run's test results, which no snapshot pins (they need a sandbox): the shape the server
/// writes, a job's progress flattened beside its turns and tests.
#[test]
fn a_run_s_test_results_read_and_write_back_unchanged() {
    let body: Value = serde_json::from_str(
        r#"{
            "job": 3, "run": 7, "state": "done", "turns_done": 1, "turns_total": 1,
            "tests_passed": 1, "tests_total": 2, "message": null,
            "turns": [{"chain": "slugs", "turn": 1, "passed": 1, "total": 2,
                       "tampered": null, "duration_s": 0.5}],
            "tests": [{"chain": "slugs", "turn": 1, "module": "test_slug", "name": "test_a",
                       "outcome": "passed", "duration_s": 0.25}]
        }"#,
    )
    .expect("JSON");
    assert_eq!(round_trips::<RunTests>(&body), Ok(()));
}
