//! `wheelwright dataset verify` and `wheelwright score --dataset <dir>`: the real binary on
//! the real dataset. These NEED PyPI the first time (the networkx 3.4.2 wheel is then
//! cached under `WHEELWRIGHT_CACHE_DIR`, default `~/.cache/wheelwright`). Execution (the
//! venv and pytest) is skipped here; `wheelwright dataset verify datasets/reporeuse-networkx`
//! runs it.

use crate::common;

use common::{copy_dir, real_dataset, wheelwright};

#[test]
fn verify_passes_the_real_dataset_statically_needs_pypi() {
    let dir = real_dataset();
    let out = wheelwright(&[
        "dataset",
        "verify",
        dir.to_str().unwrap(),
        "--skip-execution",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("4 chains, 20 turns, 224 tests"), "{stdout}");
    assert!(stdout.contains("all checks passed"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
    // The copy baseline is built statically too: every target of road-audit turn 2 copied,
    // its tests not run (`-`).
    assert!(stdout.contains("copied copy pass"), "{stdout}");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("road-audit ") && l.split_whitespace().nth(1) == Some("2"))
        .unwrap_or_else(|| panic!("no road-audit turn 2 row in {stdout}"));
    assert!(row.ends_with("7/7         -"), "{row}");
}

#[test]
fn verify_fails_a_reference_that_misses_a_target_needs_pypi() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&real_dataset(), dir.path());
    let path = dir.path().join("chains/build-graph/turn-3/reference.py");
    // Same behaviour, but condensation is no longer imported from networkx.
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "import condensation, strongly_connected_components",
        "import strongly_connected_components\nfrom solutions.build_graph.mine import condensation",
    );
    std::fs::write(&path, text).unwrap();
    let out = wheelwright(&[
        "dataset",
        "verify",
        dir.path().to_str().unwrap(),
        "--skip-execution",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("chains/build-graph/turn-3: reference.py does not reference the declared target(s) networkx.algorithms.components.strongly_connected.condensation"),
        "{stdout}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("failed verification"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn score_reads_a_dataset_directory_needs_pypi() {
    // The reference baseline, written as a JSON Lines bundle.
    let dataset = wheelwright_server::dataset::load_dir(&real_dataset()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("reference.jsonl");
    std::fs::write(
        &run,
        wheelwright_core::reporeuse::bundle::RepoReuseBundle::reference(&dataset).to_jsonl(),
    )
    .unwrap();
    let dir = real_dataset();
    let out = wheelwright(&[
        "score",
        run.to_str().unwrap(),
        "--dataset",
        dir.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["turns"].as_array().unwrap().len(), 20);
    assert_eq!(report["chains"], 4);
    assert_eq!(
        report["overall"]["reuse_repo"],
        serde_json::json!({"status": "defined", "value": 100.0})
    );
    assert_eq!(report["diagnostics"], serde_json::json!([]));
}
