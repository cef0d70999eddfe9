//! `wheelwright view restate` (SchrodingerRepo level 1): a real SWE-bench problem statement restated by a scripted model command, the exchanges recorded in the bundle, replayed with a model that must not run, and a model over its time or interrupted by Ctrl-C killed with its process group.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::expect::expect_json;
use common::{json_report, path_str, wheelwright};
use serde_json::{Value, json};

/// The core fixture of the real statement (psf/requests issue 1921) and its answers.
fn case() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/fixtures/schrodinger/restate/requests-1921")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/restate")
}

fn scripted_model() -> String {
    format!(
        "sh '{}' '{}'",
        fixtures().join("model.sh").display(),
        case().display()
    )
}

fn restate(statement: &Path, bundle: &Path, model: Option<&str>, extra: &[&str]) -> Output {
    let mut args = vec![
        "view",
        "restate",
        "--statement",
        path_str(statement),
        "--bundle",
        path_str(bundle),
        "--json",
    ];
    if let Some(model) = model {
        args.extend(["--model", model]);
    }
    args.extend(extra);
    wheelwright(&args)
}

#[test]
fn a_statement_is_restated_recorded_and_replayed_without_the_model() {
    let tmp = tempfile::tempdir().unwrap();
    let bundle = tmp.path().join("view.json");
    let statement = case().join("statement.md");
    let made = json_report(&restate(&statement, &bundle, Some(&scripted_model()), &[]));
    let written = std::fs::read(&bundle).expect("the bundle is written");
    let recorded: Value = serde_json::from_slice(&written).unwrap();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(case().join("expected.json")).unwrap())
            .unwrap();
    assert_eq!(
        recorded["statement"], expected["record"],
        "the bundle records both stages"
    );
    let mut report = made.clone();
    report["bundle"] = json!("<bundle>");
    expect_json(
        &fixtures().join("expected.json"),
        &json!({"report": report, "levels": recorded["levels"]}),
    );

    // A model that leaves a mark and fails: replaying must not run it.
    let mark = tmp.path().join("the model ran");
    let failing = format!("touch '{}'; exit 1", mark.display());
    let replayed = json_report(&restate(&statement, &bundle, Some(&failing), &[]));
    assert!(!mark.exists(), "the model was called on a recorded bundle");
    assert_eq!(replayed["statement"], made["statement"]);
    assert_eq!(
        (&replayed["asked"], &replayed["replayed"]),
        (&json!(0), &json!(2))
    );
    assert_eq!(
        std::fs::read(&bundle).unwrap(),
        written,
        "a replay rewrote the bundle"
    );

    // Another statement is not answered from the record.
    let other = tmp.path().join("other.md");
    std::fs::write(&other, "Calling `f()` hangs forever.\n").unwrap();
    let refused = restate(&other, &bundle, None, &[]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("give --model CMD"), "{stderr}");
}

#[test]
fn a_model_over_its_time_is_killed_with_everything_it_started() {
    let tmp = tempfile::tempdir().unwrap();
    let pid_file = tmp.path().join("pid");
    // The shell's child holds the answer's pipe open: only killing the group ends it.
    let slow = format!("sleep 60 & echo $! > '{}'; wait", pid_file.display());
    let started = std::time::Instant::now();
    let out = restate(
        &case().join("statement.md"),
        &tmp.path().join("view.json"),
        Some(&slow),
        &["--timeout", "1"],
    );
    assert!(!out.status.success());
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("gave no answer") && stderr.contains("--timeout"),
        "{stderr}"
    );
    assert!(
        dies_soon(&pid_file),
        "the model's child outlived the timeout"
    );
    assert!(
        !tmp.path().join("view.json").exists(),
        "a failed restate wrote a bundle"
    );
}

#[test]
fn an_interrupted_restate_kills_the_model_with_everything_it_started() {
    let tmp = tempfile::tempdir().unwrap();
    let pid_file = tmp.path().join("pid");
    let slow = format!("sleep 60 & echo $! > '{}'; wait", pid_file.display());
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["view", "restate", "--statement"])
        .arg(case().join("statement.md"))
        .arg("--bundle")
        .arg(tmp.path().join("view.json"))
        .args(["--model", &slow])
        .env("WHEELWRIGHT_LOG", "warn")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !pid_file.exists()
        || std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .is_empty()
    {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the model never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // As a terminal's Ctrl-C reaches the command, not the model's own process group.
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    assert!(
        dies_soon(&pid_file),
        "the model's child outlived the interruption"
    );
}

/// Whether the process whose pid `pid_file` holds is gone (or a zombie waiting for its new
/// parent to reap it) within 10 s. A SIGKILL is delivered when the process next runs, so
/// on a loaded machine it may still be listed as sleeping for a moment after the command
/// that sent it has exited; a child left running is still there after 10 s.
fn dies_soon(pid_file: &Path) -> bool {
    let pid = std::fs::read_to_string(pid_file).unwrap();
    let stat = PathBuf::from(format!("/proc/{}/stat", pid.trim()));
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(10) {
        if !std::fs::read_to_string(&stat).is_ok_and(|s| !s.contains(") Z ")) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}
