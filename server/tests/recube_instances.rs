//! The ReCUBE instances the tool ships (`datasets/recube-pypi/`): a valid dataset of at
//! least 40 targets from 6 PyPI libraries, each with at least 10 tests of both kinds; and,
//! run by `wheelwright recube verify` in the bwrap sandbox (the repository's pinned files
//! in the workspace, the tests hardened under `/judge`, as a submission's are run), the
//! original target passes every listed test and the masked one fails every one.
//!
//! Needs root, bubblewrap and PyPI the first time (the six wheels and pytest, then cached).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use wheelwright_core::recube::dataset::RecubeDataset;
use wheelwright_core::recube::metrics::TestKind;
use wheelwright_server::dataset::recube::load_recube_dir;

fn dataset() -> RecubeDataset {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/recube-pypi");
    load_recube_dir(&dir).expect("the shipped ReCUBE dataset is valid")
}

#[test]
fn the_shipped_dataset_has_forty_targets_from_six_libraries_with_both_kinds_of_test() {
    let d = dataset();
    assert!(d.instances.len() >= 40, "{} instances", d.instances.len());
    let libraries: BTreeSet<&str> = d
        .instances
        .iter()
        .map(|i| i.manifest.repository.as_str())
        .collect();
    assert!(libraries.len() >= 6, "{libraries:?}");
    for instance in &d.instances {
        let tests = &instance.manifest.tests;
        let kinds: BTreeSet<TestKind> = tests.iter().map(|t| t.kind).collect();
        assert!(
            tests.len() >= 10,
            "{}: {} tests",
            instance.manifest.id,
            tests.len()
        );
        assert_eq!(
            kinds.len(),
            2,
            "{}: one kind of test only",
            instance.manifest.id
        );
    }
}

#[test]
fn in_the_sandbox_each_original_passes_every_test_and_each_masked_target_fails_every_test_needs_bwrap()
 {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/recube-pypi");
    let out = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["recube", "verify"])
        .arg(&dir)
        .args(["--json", "--test-workers", "2"])
        .env("WHEELWRIGHT_LOG", "warn")
        .output()
        .expect("the wheelwright binary runs");
    let checks: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let d = dataset();
    assert_eq!(checks.len(), d.instances.len());
    for (check, instance) in checks.iter().zip(&d.instances) {
        let tests = instance.manifest.tests.len() as u64;
        assert_eq!(check["instance"], instance.manifest.id.as_str());
        assert_eq!(
            (
                check["original_passed"].as_u64(),
                check["masked_passed"].as_u64()
            ),
            (Some(tests), Some(0)),
            "{check}"
        );
        assert_eq!(check["problems"], serde_json::json!([]), "{check}");
    }
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
