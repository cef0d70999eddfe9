//! `wheelwright cce`: the real binary on core's graph fixture repository (target
//! `pkg/shapes.py`): the context is core's pinned rendering, usages and search as pinned
//! here (`UPDATE_EXPECT=1` rewrites them from the command), and mistakes name what to fix.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::expect::{check_text, expect_text};

fn graph_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/recube/graph")
}

fn cce(args: &[&str]) -> Output {
    let repo = graph_fixtures().join("repo");
    Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .arg("cce")
        .args(args)
        .arg("--repo")
        .arg(&repo)
        .args(["--target", "pkg/shapes.py"])
        .env("WHEELWRIGHT_LOG", "warn")
        .output()
        .expect("the wheelwright binary runs")
}

fn stdout_of(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("UTF-8")
}

#[test]
fn context_prints_the_views_core_renders() {
    let text = stdout_of(&cce(&["context"]));
    // Compared, never rewritten: the rendering is pinned by core's test.
    if std::env::var_os(common::expect::UPDATE).is_none()
        && let Err(problem) = check_text(&graph_fixtures().join("context.txt"), &text)
    {
        panic!("{problem}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&cce(&["context", "--json"]))).expect("JSON");
    assert_eq!(json["target"], "pkg/shapes.py");
    assert_eq!(json["callers"][0]["path"], "pkg/draw.py");
}

#[test]
fn usages_and_search_print_what_the_graph_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cce");
    expect_text(
        &dir.join("usages.txt"),
        &stdout_of(&cce(&["usages", "pkg.shapes.unit"])),
    );
    expect_text(
        &dir.join("search.txt"),
        &stdout_of(&cce(&["search", "base", "shape", "nothing_like_it"])),
    );
}

#[test]
fn a_target_outside_the_repository_is_named() {
    let repo = graph_fixtures().join("repo");
    let out = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["cce", "context", "--repo"])
        .arg(&repo)
        .args(["--target", "pkg/nope.py"])
        .output()
        .expect("the wheelwright binary runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("pkg/nope.py is not a file of"));
}
