//! `wheelwright dataset stats`: the real binary on the shipped networkx dataset, its table and JSON pinned as recorded (`UPDATE_EXPECT=1` rewrites them).

use std::path::Path;

use crate::common;

use common::expect::{expect_json, expect_text};
use common::{real_dataset, stdout_of};

fn expected(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/dataset_stats")
        .join(name)
}

#[test]
fn the_networkx_dataset_table_is_as_recorded() {
    let dir = real_dataset();
    let text = stdout_of(&["dataset", "stats", dir.to_str().unwrap()]);
    expect_text(&expected("reporeuse-networkx.txt"), &text);
    let json = stdout_of(&["dataset", "stats", dir.to_str().unwrap(), "--json"]);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    expect_json(&expected("reporeuse-networkx.json"), &value);
    // What the recording must say, whatever else changes: 4 chains of 5 turns, and the
    // 224 cases `dataset verify` counts.
    assert_eq!(value["chains"], 4);
    assert_eq!(value["turns"], 20);
    let cases = value["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "cases_per_turn")
        .unwrap();
    assert_eq!(cases["mean"].as_f64().unwrap() * 20.0, 224.0);
}

#[test]
fn a_missing_directory_is_refused_with_what_a_dataset_is() {
    let out = common::wheelwright(&["dataset", "stats", "/nonexistent/dataset"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is not a directory"), "{stderr}");
}
