//! `wheelwright recube import`: the original ReCUBE layout (a small tree written exactly as
//! the release's `data/README.md` describes it) into a dataset of ours, read back with every
//! check, and the graph tools working on what it wrote.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::copy_dir;
use common::expect::expect_json;
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::recube::graph::Graph;
use wheelwright_core::recube::views::caller_patterns;
use wheelwright_core::workspace::Workspace;
use wheelwright_server::dataset::recube::load_recube_dir;

fn original() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recube/original")
}

fn import(source: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["recube", "import"])
        .arg(source)
        .arg("--out")
        .arg(out)
        .env("WHEELWRIGHT_LOG", "warn")
        .output()
        .expect("the wheelwright binary runs")
}

/// The imported dataset in words: its instances with their tests and labels, and the
/// repository's files.
fn summary(dir: &Path) -> serde_json::Value {
    let d = load_recube_dir(dir).expect("the import reads back");
    serde_json::json!({
        "repositories": d.manifest.repositories,
        "instances": d.instances.iter().map(|i| serde_json::json!({
            "id": i.manifest.id,
            "target": i.manifest.target,
            "tests": i.manifest.tests,
            "files": i.tests.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "repository_files": d.repository_files.iter().map(|(id, files)| (id.clone(), files.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>())).collect::<std::collections::BTreeMap<_, _>>(),
    })
}

#[test]
fn the_original_layout_imports_with_labels_and_notes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("recube");
    let run = import(&original(), &out);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stdout.contains("1 repositories, 2 instances, 5 tests, sha256 "),
        "{stdout}"
    );
    // The fixture's test file defines a test it does not classify, and its metadata counts it.
    assert!(
        stderr.contains("1 test(s) of app_agent_base_test.py are not classified"),
        "{stderr}"
    );
    assert!(
        stderr.contains("test_metadata.json says 4 tests, 3 are classified"),
        "{stderr}"
    );
    expect_json(&original().with_file_name("imported.json"), &summary(&out));
    // What it wrote is a repository the graph tools read: the caller of the target is found.
    let d = load_recube_dir(&out).unwrap();
    let mut workspace = Workspace::new();
    for (path, text) in &d.repository_files["0"] {
        workspace.insert(path, text.as_str());
    }
    let graph = Graph::build(&workspace, "app/agent/base.py", &IndexOptions::default());
    let callers: Vec<String> = caller_patterns(&graph)
        .into_iter()
        .map(|c| c.path)
        .collect();
    assert!(callers.contains(&"app/main.py".to_owned()), "{callers:?}");
}

#[test]
fn a_list_of_targets_imports_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("original");
    copy_dir(&original(), &source);
    std::fs::write(
        source.join("target.json"),
        r#"[{"repo_id": 0, "file": "app/agent/base.py"}, {"repo_id": "0", "file": "app/tool/bash.py"}]"#,
    )
    .unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    assert!(import(&original(), &a).status.success());
    assert!(import(&source, &b).status.success());
    assert_eq!(summary(&a), summary(&b));
}

#[test]
fn mistakes_are_refused_naming_the_file() {
    type Edit = fn(&Path);
    let cases: [(&str, Edit, &str); 3] = [
        (
            "an unknown label",
            |s| {
                let p = s.join("test_classifications/0.json");
                let text = std::fs::read_to_string(&p)
                    .unwrap()
                    .replace("\"internal\"", "\"integration\"");
                std::fs::write(p, text).unwrap();
            },
            "only \"external\" and \"internal\" are known",
        ),
        (
            "no prompt",
            |s| std::fs::remove_file(s.join("prompts/0.txt")).unwrap(),
            "prompts/0.txt",
        ),
        (
            "a target without classification",
            |s| std::fs::write(s.join("target.json"), r#"{"0": ["app/main.py"]}"#).unwrap(),
            "has no classification of app/main.py",
        ),
    ];
    for (what, edit, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("original");
        copy_dir(&original(), &source);
        edit(&source);
        let run = import(&source, &dir.path().join("out"));
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{what} was accepted");
        assert!(stderr.contains(expected), "{what}: {stderr}");
    }
    // An existing output directory is never written into.
    let dir = tempfile::tempdir().unwrap();
    let run = import(&original(), dir.path());
    assert!(String::from_utf8_lossy(&run.stderr).contains("already exists"));
}
