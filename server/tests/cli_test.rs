//! `wheelwright test`: the baselines' hidden tests in the real bwrap sandbox (needs root, bubblewrap and PyPI once).
//!
//! The reference resolves every turn, the empty baseline fails every test, and the copy
//! baseline (the reference calling private copies of its targets) passes every test too.

use crate::common;

use std::process::Command;

use common::real_dataset;
use wheelwright_core::reporeuse::baseline::Baseline;
use wheelwright_core::reporeuse::bundle::RepoReuseBundle;

/// Runs `wheelwright test --json` on `bundle`; the parsed output.
fn test_bundle(bundle: &RepoReuseBundle) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    std::fs::write(&path, bundle.to_jsonl()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["test", path.to_str().unwrap(), "--dataset"])
        .arg(real_dataset())
        .args(["--json", "--test-workers", "2"])
        .env("WHEELWRIGHT_LOG", "warn")
        .output()
        .expect("the wheelwright binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn baseline(kind: Baseline) -> RepoReuseBundle {
    let dataset = wheelwright_server::dataset::load_dir(&real_dataset()).unwrap();
    let files = wheelwright_server::dataset::repository_sources(
        &dataset,
        &wheelwright_server::dataset::default_cache_dir(),
        std::path::Path::new("python3"),
    )
    .unwrap();
    kind.bundle(&dataset, &files)
}

fn value(score: &serde_json::Value) -> Option<f64> {
    score["value"].as_f64()
}

#[test]
fn the_reference_resolves_every_turn_needs_bwrap() {
    let out = test_bundle(&baseline(Baseline::Reference));
    let tests = out["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 20);
    for turn in tests {
        assert!(turn["tampered"].is_null(), "{turn:#}");
        assert!(turn["total"].as_u64().unwrap() >= 8, "{turn:#}");
        assert_eq!(turn["passed"], turn["total"], "{turn:#}");
    }
    assert_eq!(value(&out["report"]["overall"]["resolve"]), Some(100.0));
    assert_eq!(value(&out["report"]["overall"]["pass"]), Some(100.0));
}

#[test]
fn the_empty_baseline_fails_every_test_needs_bwrap() {
    let out = test_bundle(&baseline(Baseline::Empty));
    let tests = out["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 20);
    let total: u64 = tests.iter().map(|t| t["total"].as_u64().unwrap()).sum();
    assert_eq!(total, 224, "every hidden test of the dataset is counted");
    for turn in tests {
        assert_eq!(turn["passed"], 0, "{turn:#}");
        assert!(
            turn["tests"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["outcome"] == "failed"),
            "{turn:#}"
        );
    }
    assert_eq!(value(&out["report"]["overall"]["pass"]), Some(0.0));
    assert_eq!(value(&out["report"]["overall"]["resolve"]), Some(0.0));
}

#[test]
fn the_copy_baseline_passes_every_test_while_reuse_drops_needs_bwrap() {
    let out = test_bundle(&baseline(Baseline::Copy));
    for turn in out["tests"].as_array().unwrap() {
        assert_eq!(turn["passed"], turn["total"], "{turn:#}");
    }
    let overall = &out["report"]["overall"];
    assert_eq!(value(&overall["resolve"]), Some(100.0));
    assert_eq!(value(&overall["reuse_repo"]), Some(0.0));
    assert!(value(&overall["c_dup"]).unwrap() > 0.0);
}
