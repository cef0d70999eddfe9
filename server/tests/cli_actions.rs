//! `wheelwright actions`: the real binary on the vendored real run (twelve gemini-3-pro trajectories and their SWE-bench reports), alone and against a baseline run, as JSON and as a table; bad arguments refused with what to do.
//!
//! The expected outputs are under `fixtures/actions/`. To regenerate them after a
//! deliberate change: `UPDATE_EXPECT=1 cargo test -p wheelwright-server --test it cli_actions::`,
//! then review the diff.

use crate::common;

use std::path::{Path, PathBuf};

use common::expect::{expect_json, expect_text};
use common::{stdout_of, wheelwright};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/actions")
}

/// The vendored real run: trajectories (`<id>.traj.json.gz`) and `logs/<id>/report.json.gz`.
fn real_run() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/fixtures/real/gemini-3-pro"
    )
    .to_owned()
}

/// A small hand-made run of core's run cases, as a baseline.
fn small_run() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/fixtures/schrodinger/runs/summary"
    )
    .to_owned()
}

#[test]
fn a_real_run_is_summarised() {
    let run = real_run();
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&["actions", "--run", &run, "--json"])).unwrap();
    assert_eq!(json["run"]["instances"].as_array().unwrap().len(), 12);
    assert_eq!(json["run"]["resolved"], 4);
    assert!(json.get("shift").is_none(), "no baseline, no shift");
    expect_json(&fixtures().join("real-gemini-3-pro.json"), &json);
    let table = stdout_of(&["actions", "--run", &run]);
    expect_text(&fixtures().join("real-gemini-3-pro.txt"), &table);
}

#[test]
fn a_run_is_compared_with_its_baseline() {
    let (run, baseline) = (real_run(), small_run());
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "actions",
        "--run",
        &run,
        "--baseline",
        &baseline,
        "--json",
    ]))
    .unwrap();
    let shift = &json["shift"];
    // Real 33.3 % against the small run's 50 %.
    let change = shift["pass_at_1_change"]["value"].as_f64().unwrap();
    assert!((change - (100.0 / 3.0 - 50.0)).abs() < 1e-9, "{change}");
    expect_json(&fixtures().join("real-vs-small.json"), &json);
    let table = stdout_of(&["actions", "--run", &run, "--baseline", &baseline]);
    expect_text(&fixtures().join("real-vs-small.txt"), &table);
}

/// Bad input: a clear message naming what is wrong, and a failing exit.
#[test]
fn bad_arguments_are_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "no run here").unwrap();
    let empty = empty.to_string_lossy().into_owned();
    let file = dir.path().join("a.traj.json");
    std::fs::write(&file, "{}").unwrap();
    let file = file.to_string_lossy().into_owned();
    let missing = dir.path().join("nowhere").to_string_lossy().into_owned();
    let run = real_run();
    for (args, words) in [
        (vec!["actions", "--run", &missing], "--run"),
        (vec!["actions", "--run", &file], "is not a directory"),
        (vec!["actions", "--run", &empty], "holds no .json"),
        (
            vec!["actions", "--run", &run, "--baseline", &missing],
            "--baseline",
        ),
        (vec!["actions"], "--run"),
    ] {
        let out = wheelwright(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
