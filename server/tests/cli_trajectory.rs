//! `wheelwright trajectory`: the real binary on a real mini-SWE-agent trajectory (no
//! repository) and on a run fixture's trajectory with its repository, as JSON and as a table.
//!
//! The expected outputs are under `fixtures/trajectory/`. To regenerate them after a
//! deliberate change: `UPDATE_EXPECT=1 cargo test -p wheelwright-server --test it cli_trajectory::`,
//! then review the diff.

use crate::common;

use std::io::Read;
use std::path::{Path, PathBuf};

use common::expect::{expect_json, expect_text};
use common::{stdout_of, wheelwright};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A real trajectory of the vendored SWE-bench run, unpacked into `dir`.
fn real_trajectory(dir: &Path, name: &str) -> String {
    let packed = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/fixtures/real/gemini-3-pro")
        .join(format!("{name}.traj.json.gz"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&packed).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let path = dir.join(format!("{name}.traj.json"));
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Each action's interpretation, in both forms, for a real trajectory read from its
/// observations alone: reads by `nl`/`sed` ranges, grep hits, edits that show nothing,
/// rejected responses where they were.
#[test]
fn a_real_trajectory_is_printed_action_by_action() {
    let dir = tempfile::tempdir().unwrap();
    let file = real_trajectory(dir.path(), "psf__requests-1921");
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&["trajectory", &file, "--json"])).unwrap();
    expect_json(&fixtures().join("trajectory/requests-1921.json"), &json);
    assert_eq!(json["workspace"], false);
    let actions = json["actions"].as_array().unwrap();
    assert_eq!(
        actions.len() as u64,
        json["summary"]["actions"].as_u64().unwrap()
    );
    assert_eq!(
        json["rejected"].as_array().unwrap().len() as u64,
        json["summary"]["rejected_responses"].as_u64().unwrap()
    );
    let table = stdout_of(&["trajectory", &file]);
    expect_text(&fixtures().join("trajectory/requests-1921.txt"), &table);
}

/// With `--repo`, a range read whose observation is empty still counts the file's lines
/// (clamped to its length), and the unknown command is reported with its reason.
#[test]
fn a_trajectory_is_read_against_its_repository() {
    let score = fixtures().join("score");
    let file = score.join("run/chains/slugs/turn-1/trajectory.json");
    let repo = score.join("dataset/repository");
    let (file, repo) = (file.to_string_lossy(), repo.to_string_lossy());
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "trajectory",
        &file,
        "--repo",
        &repo,
        "--workdir",
        "/testbed",
        "--json",
    ]))
    .unwrap();
    expect_json(&fixtures().join("trajectory/slugs-1-with-repo.json"), &json);
    assert_eq!(json["workspace"], true);
    assert_eq!(json["unparsed"]["reasons"][0]["program"], "frobnicate");
    let without: serde_json::Value =
        serde_json::from_str(&stdout_of(&["trajectory", &file, "--json"])).unwrap();
    assert_ne!(
        json["actions"][1]["shown"], without["actions"][1]["shown"],
        "the repository changes what the empty range read counts"
    );
    let table = stdout_of(&["trajectory", &file, "--repo", &repo]);
    expect_text(&fixtures().join("trajectory/slugs-1-with-repo.txt"), &table);
}

/// Bad input: a clear message naming what is wrong, and a failing exit.
#[test]
fn bad_arguments_are_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let file = real_trajectory(dir.path(), "psf__requests-1921");
    let not_json = dir.path().join("notes.txt");
    std::fs::write(&not_json, "not a trajectory").unwrap();
    let not_json = not_json.to_string_lossy().into_owned();
    let missing = dir.path().join("nowhere").to_string_lossy().into_owned();
    for (args, words) in [
        (
            vec!["trajectory", &file, "--workdir", "testbed"],
            "--workdir",
        ),
        (
            vec!["trajectory", &file, "--workdir", "/a/../b"],
            "--workdir",
        ),
        (vec!["trajectory", &file, "--repo", &missing], "--repo"),
        (
            vec!["trajectory", &not_json],
            "not a trajectory the scorer reads",
        ),
        (vec!["trajectory", &missing], "nowhere"),
    ] {
        let out = wheelwright(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
