//! `wheelwright dataset walk`: the real binary over packaging 24.2 (NEEDS PyPI the first time; the wheel is then cached) driven by a scripted model command, the record pinned and replayed without a model, turn 2's injected symbol, and a model that keeps answering off the menu.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::common;

use common::expect::expect_json;
use common::{json_report, path_str, stdout_of, wheelwright};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/walk")
}

/// The scripted model command (`model.py`), with its arguments.
fn scripted_model(args: &str) -> String {
    format!("python3 '{}' {args}", fixtures().join("model.py").display())
}

const PACKAGING: &str = "packaging==24.2";

/// A directory with packaging's map (`map.json`) and a chain (`chain.json`).
fn workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let map = tmp.path().join("map.json");
    stdout_of(&[
        "dataset",
        "map",
        "--repo",
        PACKAGING,
        "--out",
        path_str(&map),
        "--json",
    ]);
    let chain = json!({
        "id": "version-audit",
        "title": "Version audit",
        "description": "A release manager checks which published versions of a project satisfy its requirement specifiers.",
        "package": "solutions/version_audit",
    });
    std::fs::write(tmp.path().join("chain.json"), chain.to_string()).unwrap();
    tmp
}

/// `dataset walk --json` over packaging in `dir` for `turn`, with `extra` arguments.
fn walk(dir: &Path, turn: usize, out: &Path, extra: &[&str]) -> Output {
    let turn = turn.to_string();
    let mut args = vec![
        "dataset",
        "walk",
        "--map",
        path_str(&dir.join("map.json")).to_owned().leak(),
        "--repo",
        PACKAGING,
        "--chain",
        path_str(&dir.join("chain.json")).to_owned().leak(),
        "--turn",
        &turn,
        "--seed",
        "3",
        "--out",
        path_str(out),
        "--json",
    ];
    args.extend(extra);
    wheelwright(&args)
}

/// Turn 1's manifest with the walk's evidence as its repository targets (what `synthesize`
/// would have written), under `dir/turn-1.json`.
fn write_turn1(dir: &Path, evidence: &Value) {
    let turn = json!({
        "turn": 1,
        "title": "Supported versions",
        "module_path": "solutions/version_audit/supported.py",
        "context": "Which versions a specifier admits.",
        "functions": [
            {"name": "admitted", "signature": "admitted(spec, versions)", "returns": "list", "behaviour": "The versions the specifier admits."},
            {"name": "newest", "signature": "newest(spec, versions)", "returns": "str", "behaviour": "The newest admitted version."},
            {"name": "count_admitted", "signature": "count_admitted(spec, versions)", "returns": "int", "behaviour": "How many are admitted."}
        ],
        "repo_targets": evidence,
        "self_targets": [],
        "read_targets": evidence,
    });
    std::fs::write(dir.join("turn-1.json"), turn.to_string()).unwrap();
}

#[test]
fn a_walk_is_recorded_and_replayed_without_the_model_needs_pypi() {
    let tmp = workspace();
    let out = tmp.path().join("walk-1.json");
    let record = json_report(&walk(
        tmp.path(),
        1,
        &out,
        &["--model", &scripted_model("")],
    ));
    let written: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(record, written, "the record printed is the one written");
    expect_json(&fixtures().join("turn-1.expected.json"), &record);
    // Said outright: the model is named by its program, the walk started at a candidate
    // of the map and kept two symbols.
    assert_eq!(record["model"], "python3");
    assert_eq!(record["template"], "reporeuse-walk-1");
    let map: Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("map.json")).unwrap()).unwrap();
    let start = map["callables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["qualified_name"] == record["start"])
        .expect("the start is in the map");
    assert_eq!(start["candidate"], true);
    assert_eq!(record["evidence"].as_array().unwrap().len(), 2);

    // No --model: replayed from the record, the same record, the file untouched.
    let bytes = std::fs::read(&out).unwrap();
    let replay = walk(tmp.path(), 1, &out, &[]);
    assert_eq!(json_report(&replay), record);
    let stderr = String::from_utf8_lossy(&replay.stderr);
    assert!(
        stderr.contains("replaying the walk recorded in"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), bytes);
    // With a model that leaves a mark: it is not run, and the replay is said on stderr.
    let mark = tmp.path().join("the model ran");
    let failing = format!("touch '{}'; exit 1", mark.display());
    let text = wheelwright(&[
        "dataset",
        "walk",
        "--map",
        path_str(&tmp.path().join("map.json")),
        "--repo",
        PACKAGING,
        "--chain",
        path_str(&tmp.path().join("chain.json")),
        "--turn",
        "1",
        "--seed",
        "3",
        "--out",
        path_str(&out),
        "--model",
        &failing,
    ]);
    let stderr = String::from_utf8_lossy(&text.stderr);
    assert!(text.status.success(), "{stderr}");
    assert!(
        stderr.contains("replaying the walk recorded in"),
        "{stderr}"
    );
    assert!(!mark.exists(), "the model was called on a recorded walk");
    let summary = String::from_utf8(text.stdout).unwrap();
    assert!(
        summary.starts_with("chain version-audit turn 1: 4 hops from "),
        "{summary}"
    );

    // Turn 2 starts at turn 1's evidence and must keep one unused symbol near it.
    write_turn1(tmp.path(), &record["evidence"]);
    let out2 = tmp.path().join("walk-2.json");
    let earlier = path_str(tmp.path()).to_owned();
    let turn2 = json_report(&walk(
        tmp.path(),
        2,
        &out2,
        &["--earlier", &earlier, "--model", &scripted_model("")],
    ));
    expect_json(&fixtures().join("turn-2.expected.json"), &turn2);
    let injected = turn2["injected"].as_str().expect("turn 2 injects a symbol");
    let turn1: Vec<&str> = record["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert!(!turn1.contains(&injected), "{injected} was used by turn 1");
    assert!(
        turn2["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e == injected)
    );
    assert_eq!(turn2["start"], record["evidence"][0]);
    // The wrong turn for a record is refused, not overwritten.
    let wrong = walk(tmp.path(), 1, &out2, &[]);
    assert!(!wrong.status.success());
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        stderr.contains(
            "holds the walk of chain version-audit turn 2, not of chain version-audit turn 1"
        ),
        "{stderr}"
    );
}

#[test]
fn a_symbol_off_the_menu_twice_fails_naming_it_needs_pypi() {
    let tmp = workspace();
    let out = tmp.path().join("walk.json");
    let failed = walk(
        tmp.path(),
        1,
        &out,
        &["--model", &scripted_model("off-menu")],
    );
    assert!(!failed.status.success());
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(
        stderr.contains("refused twice")
            && stderr.contains("`packaging.nowhere.not_a_symbol` is not on the menu"),
        "{stderr}"
    );
    assert!(!out.exists(), "a failed walk wrote a record");
}

/// The standard error of a failed walk of `turn` over core's fixture repository (no PyPI).
fn fixture_walk_fails(turn: &str) -> String {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/fixtures/reporeuse/callable_map/repo");
    let tmp = tempfile::tempdir().unwrap();
    let map = tmp.path().join("map.json");
    stdout_of(&[
        "dataset",
        "map",
        "--dir",
        path_str(&repo),
        "--out",
        path_str(&map),
    ]);
    let chain = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/fixtures/reporeuse/walk/chain.json");
    let out = wheelwright(&[
        "dataset",
        "walk",
        "--map",
        path_str(&map),
        "--dir",
        path_str(&repo),
        "--chain",
        path_str(&chain),
        "--turn",
        turn,
        "--out",
        path_str(&tmp.path().join("walk.json")),
    ]);
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn turn_two_without_the_earlier_turns_is_refused() {
    let stderr = fixture_walk_fails("2");
    assert!(stderr.contains("give --earlier DIR"), "{stderr}");
}

#[test]
fn without_a_model_or_a_record_the_walk_asks_for_a_model() {
    let stderr = fixture_walk_fails("1");
    assert!(
        stderr.contains(
            "records no answer to the reporeuse-walk-1 prompt for turn 1 of chain floor-plan (prompt 1); give --model CMD"
        ),
        "{stderr}"
    );
}
