//! `wheelwright recube test`: a ReCUBE run bundle's rebuilt targets run in the real bwrap sandbox and scored (needs root, bubblewrap and PyPI once).
//!
//! The bundle is built from the shipped dataset's own files: every instance but two gets
//! its original target back (every test passes), `packaging-version` its masked target
//! (every test fails), and `click-parser` nothing but a trajectory (every test fails; it
//! still has a caller coverage). Hand-worked: SPR = APR = (n - 2)/n over n instances
//! (39/41 = 95.1 %), over all tests and over each kind (every instance has both). Caller coverage: `click/formatting.py` is invoked from `click/core.py`
//! only, which the first trajectory reads (100 %); `click/parser.py` from `click/core.py`,
//! `click/formatting.py` and `click/shell_completion.py`, of which the second reads two
//! (66.7 %), as `wheelwright cce context` lists them.

use crate::common;
use crate::common::recube::all_but_two;

use std::collections::BTreeMap;
use std::process::Command;

use common::recube::{bundle, dataset_dir};
use serde_json::{Value, json};
use wheelwright_server::dataset::recube::load_recube_dir;

#[test]
fn a_run_is_tested_in_the_sandbox_and_scored_needs_bwrap() {
    let d = load_recube_dir(&dataset_dir()).expect("the shipped dataset");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    std::fs::write(&path, bundle(&d).to_jsonl()).unwrap();
    let report = recube_test(&path);

    for rate in [
        "spr",
        "apr",
        "spr_external",
        "apr_external",
        "spr_internal",
        "apr_internal",
    ] {
        let value = report["rates"][rate]["value"].as_f64().unwrap();
        assert!((value - all_but_two(&d)).abs() < 1e-9, "{rate}: {value}");
    }
    let instances = report["instances"].as_array().expect("instances");
    assert_eq!(instances.len(), d.instances.len());
    let by_id: BTreeMap<&str, &Value> = instances
        .iter()
        .map(|i| (i["instance"].as_str().unwrap(), i))
        .collect();
    for (id, instance) in &by_id {
        let (passed, total) = (&instance["all"]["passed"], &instance["all"]["total"]);
        let all_pass = !matches!(*id, "packaging-version" | "click-parser");
        assert_eq!(all_pass, passed == total, "{id}: {passed}/{total}");
        if !all_pass {
            assert_eq!(passed, &json!(0), "{id}");
        }
    }
    let formatting = by_id["click-formatting"];
    assert_eq!(formatting["callers"], json!(1));
    assert_eq!(formatting["caller_coverage"]["value"], json!(100.0));
    assert_eq!(
        (&formatting["cost_usd"], &formatting["model_calls"]),
        (&json!(0.5), &json!(7))
    );
    let parser = by_id["click-parser"];
    assert_eq!(parser["submitted"], json!(false));
    assert_eq!(parser["callers"], json!(3));
    let coverage = parser["caller_coverage"]["value"].as_f64().unwrap();
    assert!((coverage - 200.0 / 3.0).abs() < 1e-9, "{coverage}");
    // Every test of the missing target is reported as failing, with its label.
    assert!(
        parser["tests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["passed"] == json!(false))
    );
    // No trajectory: caller coverage is undefined, not zero.
    assert_eq!(
        by_id["packaging-utils"]["caller_coverage"]["status"],
        json!("undefined")
    );
    assert_eq!(
        report["caller_coverage"]["value"]
            .as_f64()
            .map(|v| (v * 1e6).round()),
        Some(((100.0 + 200.0 / 3.0) / 2.0 * 1e6_f64).round())
    );
}

#[test]
fn a_bundle_for_another_dataset_or_instance_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let meta = r#"{"metadata": {"model": "m", "harness": "h", "memory": "none", "date": "2026-12-03", "dataset": {"name": "recube-pypi", "version": "1"}}}"#;
    for (line, expected) in [
        (
            r#"{"instance_id": "no-such-instance", "files": {"a.py": "x = 1\n"}}"#,
            "has no instance \"no-such-instance\"",
        ),
        (
            r#"{"instance_id": "click-parser", "files": {"../x.py": "x = 1\n"}}"#,
            "is not a file path relative to the repository root",
        ),
    ] {
        std::fs::write(&path, format!("{meta}\n{line}\n")).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
            .args(["recube", "test", path.to_str().unwrap(), "--dataset"])
            .arg(dataset_dir())
            .args(["--backend", "none"])
            .output()
            .expect("the wheelwright binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(stderr.contains(expected), "{stderr}");
    }
}

/// The second review's two generic forgers, as core's verdict fixtures hold them
/// (`core/tests/fixtures/hidden_tests/pytest/<name>/submission.py`): they implement nothing
/// and know nothing of the dataset. `spares-last-def` reads the judge's list of test files
/// at import, writes "passed" for every test but the last `def` of each file and leaves;
/// `plugin-spares-last` registers a plugin that turns every outcome to "passed" but the last
/// collected test's of each file (it is appended to the original target, so the file
/// imports and every real test passes on its own).
const FORGERS: [&str; 2] = ["spares-last-def", "plugin-spares-last"];

/// `wheelwright recube test` of the bundle at `path` against the shipped dataset: its JSON
/// report.
fn recube_test(path: &std::path::Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["recube", "test", path.to_str().unwrap(), "--dataset"])
        .arg(dataset_dir())
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

#[test]
fn generic_forgers_at_every_target_pass_nothing_needs_bwrap() {
    let d = load_recube_dir(&dataset_dir()).expect("the shipped dataset");
    let repos = common::recube::repositories(&d);
    for name in FORGERS {
        let forger =
            std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
                format!("../core/tests/fixtures/hidden_tests/pytest/{name}/submission.py"),
            ))
            .unwrap();
        let mut run = bundle(&d);
        for instance in &d.instances {
            let original = &repos[&instance.manifest.repository][&instance.manifest.target];
            let file = if name == "plugin-spares-last" {
                format!("{original}\n{forger}")
            } else {
                forger.clone()
            };
            run.predictions.insert(
                wheelwright_core::recube::bundle::InstanceKey::new(&instance.manifest.id),
                wheelwright_core::bundle::Prediction {
                    files: BTreeMap::from([(instance.manifest.target.clone(), file)]),
                    trajectory: None,
                },
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        std::fs::write(&path, run.to_jsonl()).unwrap();
        let report = recube_test(&path);
        assert_eq!(report["rates"]["spr"]["value"], json!(0.0), "{name}");
        assert_eq!(report["rates"]["apr"]["value"], json!(0.0), "{name}");
        for instance in report["instances"].as_array().expect("instances") {
            let id = &instance["instance"];
            assert_eq!(instance["all"]["passed"], json!(0), "{name} {id}");
            let tampered = instance["tampered"].as_str().unwrap_or_default();
            assert!(
                tampered.contains("twin") || tampered.contains("canary"),
                "{name} {id}: {instance}"
            );
        }
    }
}
