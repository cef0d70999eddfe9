//! `wheelwright score`: the real binary on a small dataset and run bundle, as JSON and as tables.
//!
//! The expected report is `fixtures/score/expected.json`. To regenerate it after a
//! deliberate change: `UPDATE_EXPECT=1 cargo test -p wheelwright-server --test cli_score`,
//! then review the diff.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::expect::expect_json;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/score")
}

fn wheelwright(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(args)
        .env("WHEELWRIGHT_LOG", "warn")
        .output()
        .expect("the wheelwright binary runs")
}

fn fixture(name: &str) -> String {
    fixtures().join(name).to_string_lossy().into_owned()
}

/// `wheelwright score <run> --dataset <the fixture dataset> --json <flags>`: the report, its
/// scorer version replaced by a placeholder (the version changes with every release; the key
/// must be there), and standard error.
fn score_json(run: &str, flags: &[&str]) -> (serde_json::Value, String) {
    let dataset = fixture("dataset");
    let mut args = vec!["score", run, "--dataset", &dataset, "--json"];
    args.extend(flags);
    let out = wheelwright(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{run}: {stderr}");
    let mut report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("the output is JSON");
    let version = report
        .get_mut("scorer_version")
        .expect("the report names its scorer version");
    assert!(version.is_string(), "{version}");
    *version = serde_json::Value::from("<scorer_version>");
    (report, stderr)
}

#[test]
fn json_output_matches_the_expected_report() {
    let (got, stderr) = score_json(&fixture("run"), &[]);
    expect_json(&fixtures().join("expected.json"), &got);
    // No progress bar or other noise on a small input that is not on a terminal.
    assert!(stderr.trim().is_empty(), "{stderr}");
}

/// The `timings` object of a `--json --timings` report: every phase in seconds, none
/// negative, adding up to at most the total.
fn check_timings(timings: &serde_json::Value) {
    let phases = ["read", "index", "score", "aggregate"];
    let keys: Vec<&str> = timings
        .as_object()
        .expect("timings is an object")
        .keys()
        .map(String::as_str)
        .collect();
    let mut expected: Vec<&str> = phases.iter().copied().chain(["total"]).collect();
    expected.sort_unstable();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, expected, "{timings}");
    let seconds = |k: &str| {
        timings[k]
            .as_f64()
            .unwrap_or_else(|| panic!("{k}: {timings}"))
    };
    let sum: f64 = phases.iter().map(|k| seconds(k)).sum();
    assert!(phases.iter().all(|k| seconds(k) >= 0.0), "{timings}");
    assert!(sum <= seconds("total") + 1e-6, "{timings}");
    assert!(seconds("total") > 0.0, "{timings}");
}

#[test]
fn timings_go_to_standard_error_and_into_the_json_report() {
    let (mut got, stderr) = score_json(&fixture("run"), &["--timings"]);
    let timings = got
        .as_object_mut()
        .and_then(|o| o.remove("timings"))
        .expect("a timings object beside the report");
    check_timings(&timings);
    // Apart from the timings, the report is the one without --timings.
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("expected.json")).expect("expected.json"),
    )
    .unwrap();
    assert_eq!(got, expected);
    let line = stderr.trim();
    assert!(
        line.starts_with("timings: read ")
            && ["index", "score", "aggregate", "total"]
                .iter()
                .all(|phase| line.contains(&format!(", {phase} "))),
        "{stderr}"
    );
    // Tables keep standard output; the timings are only on standard error.
    let out = wheelwright(&[
        "score",
        &fixture("run"),
        "--dataset",
        &fixture("dataset"),
        "--timings",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Per turn") && !text.contains("timings"),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("timings: read "));
}

#[test]
fn tables_show_turns_overall_and_diagnostics() {
    let out = wheelwright(&["score", &fixture("run"), "--dataset", &fixture("dataset")]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for words in [
        "Per turn",
        "reuse_repo",
        "slugs",
        "Overall (3 chains, 4 turns)",
        "Re-implemented targets",
        "textkit.clean.normalise",
        "—",
        "100.0",
        "Diagnostics",
        "absent: the run has no entry for this chain",
        "not valid JSON",
    ] {
        assert!(text.contains(words), "{words:?} missing from:\n{text}");
    }
}

#[test]
fn a_missing_bundle_fails_and_names_the_path() {
    let missing = fixtures().join("no-such-run");
    let missing = missing.to_string_lossy();
    let out = wheelwright(&["score", &missing, "--dataset", &fixture("dataset")]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&*missing), "{stderr}");
    assert!(stderr.contains("cannot read"), "{stderr}");
}

#[test]
fn a_dataset_file_is_refused_a_dataset_is_a_directory() {
    // A file is not a dataset: refused with the path and where the format is documented.
    let file = fixture("expected.json");
    let out = wheelwright(&["score", &fixture("run"), "--dataset", &file]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&file), "{stderr}");
    assert!(
        stderr.contains("is not a directory; a dataset is a directory"),
        "{stderr}"
    );
    assert!(stderr.contains("docs/formats.md"), "{stderr}");
}

#[test]
fn a_file_that_is_no_bundle_fails_and_says_what_a_bundle_is() {
    let dataset = fixture("dataset");
    let out = wheelwright(&["score", &fixture("expected.json"), "--dataset", &dataset]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("expected.json"), "{stderr}");
    assert!(
        stderr.contains("give a directory, a .zip, a .jsonl or a .jsonl.gz file"),
        "{stderr}"
    );
}

#[test]
fn a_bundle_for_another_chain_is_refused_with_the_chains_the_dataset_has() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("run.jsonl");
    std::fs::write(
        &jsonl,
        concat!(
            r#"{"metadata": {"model": "m", "harness": "h", "memory": "interface", "date": "2026-11-29", "dataset": {"name": "score-fixture", "version": "1"}}}"#,
            "\n",
            r#"{"instance_id": "unknown/turn-1", "files": {"textkit/x.py": "x = 1\n"}}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = wheelwright(&[
        "score",
        &jsonl.to_string_lossy(),
        "--dataset",
        &fixture("dataset"),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown/turn-1: the dataset has no chain \"unknown\"; its chains are slugs, tokens, absent"),
        "{stderr}"
    );
}

/// The fixture run as JSON Lines, each turn's line with `extra` more files.
fn run_as_jsonl(extra: &[(&str, &str)]) -> String {
    let mut bundle = wheelwright_server::bundle::read_path(
        &fixtures().join("run"),
        wheelwright_core::bundle::LIMITS,
    )
    .expect("the fixture run reads");
    for prediction in bundle.predictions.values_mut() {
        for (path, text) in extra {
            prediction
                .files
                .insert((*path).to_owned(), (*text).to_owned());
        }
    }
    bundle.to_jsonl()
}

fn gzip(text: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(text).unwrap();
    encoder.finish().unwrap()
}

/// The report of the bundle at `run`.
fn report_of(run: &Path) -> serde_json::Value {
    score_json(&run.to_string_lossy(), &[]).0
}

#[test]
fn json_lines_and_gzip_json_lines_score_as_the_directory_does() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = run_as_jsonl(&[]);
    std::fs::write(dir.path().join("run.jsonl"), &jsonl).unwrap();
    std::fs::write(dir.path().join("run.jsonl.gz"), gzip(jsonl.as_bytes())).unwrap();
    let expected = report_of(&fixtures().join("run"));
    for name in ["run.jsonl", "run.jsonl.gz"] {
        assert_eq!(report_of(&dir.path().join(name)), expected, "{name}");
    }
}

#[test]
fn the_command_line_reads_bundles_past_the_upload_limits_and_stops_a_gzip_bomb() {
    let dir = tempfile::tempdir().unwrap();
    // Each turn also leaves a 12 MiB log: the .jsonl is over the 16 MiB a whole JSON Lines
    // file could hold before lines were read one at a time.
    let log = "x".repeat(12 * 1024 * 1024);
    let large = run_as_jsonl(&[("logs/agent.log", &log)]);
    assert!(large.len() > 24 * 1024 * 1024, "{} bytes", large.len());
    let path = dir.path().join("large.jsonl.gz");
    std::fs::write(&path, gzip(large.as_bytes())).unwrap();
    // The extra files are not Python: the scores are the fixture's.
    assert_eq!(report_of(&path), report_of(&fixtures().join("run")));

    // A line without end inflating past the command line's 64 MiB per line.
    let meta_line = large.lines().next().unwrap();
    let mut endless = format!("{meta_line}\n").into_bytes();
    endless.extend(std::iter::repeat_n(b' ', 65 * 1024 * 1024));
    let bomb = dir.path().join("bomb.jsonl.gz");
    std::fs::write(&bomb, gzip(&endless)).unwrap();
    let out = wheelwright(&[
        "score",
        &bomb.to_string_lossy(),
        "--dataset",
        &fixture("dataset"),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 2 is longer than 67108864 bytes once decompressed"),
        "{stderr}"
    );
}
