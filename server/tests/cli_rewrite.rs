//! `wheelwright view rewrite` (SchrodingerRepo level 4): functions rewritten by a scripted model (a real AST rewrite, `fixtures/rewrite/model.py`), kept or refused by the repository's own tests in the sandbox, recorded, replayed without the model or the tests, chosen by a golden patch, and on a real library (packaging 24.2).
//!
//! Needs root and bubblewrap (the tests run in the sandbox), and PyPI the first time for
//! packaging's source release and test environment.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::expect::expect_json;
use common::{files_under, json_report, path_str, sdist, wheelwright};
use serde_json::{Value, json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rewrite")
}

/// Core's level-4 fixture repository: three small functions and a property, with tests.
fn fixture_repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/schrodinger/rewrites/repo")
}

/// The scripted model, breaking the functions named in `broken` (its `BREAK`).
fn model(broken: &str) -> String {
    format!(
        "BREAK='{broken}' python3 '{}'",
        fixtures().join("model.py").display()
    )
}

/// `view rewrite` of `repo` into `out` with `bundle`, and `extra` arguments.
fn rewrite(repo: &Path, out: &Path, bundle: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "view",
        "rewrite",
        "--repo",
        path_str(repo),
        "--out",
        path_str(out),
        "--bundle",
        path_str(bundle),
        "--json",
        "--test-workers",
        "1",
    ];
    args.extend(extra);
    wheelwright(&args)
}

/// A report without its temporary paths.
fn portable(mut report: Value) -> Value {
    report["out"] = json!("<out>");
    report["bundle"] = json!("<bundle>");
    report
}

/// The text of every file that differs between two directories.
fn changed(before: &Path, after: &Path) -> Value {
    let (a, b) = (files_under(before), files_under(after));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "the same files"
    );
    b.iter()
        .filter(|(p, bytes)| a[*p] != **bytes)
        .map(|(p, bytes)| {
            let text = String::from_utf8_lossy(bytes);
            (p.clone(), json!(text.lines().collect::<Vec<_>>()))
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

#[test]
fn rewrites_are_kept_only_when_the_tests_pass_and_replay_without_the_model_or_the_tests() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = fixture_repo();
    let bundle = tmp.path().join("view.json");
    let out = tmp.path().join("rewritten");
    // `area` names both the function and the property: both are broken and refused.
    let made = json_report(&rewrite(
        &repo,
        &out,
        &bundle,
        &[
            "--model",
            &model("area"),
            "--count",
            "4",
            "--pythonpath",
            ".",
        ],
    ));
    let recorded: Value = serde_json::from_slice(&std::fs::read(&bundle).unwrap()).unwrap();
    expect_json(
        &fixtures().join("expected.json"),
        &json!({
            "report": portable(made.clone()),
            "levels": recorded["levels"],
            "changed": changed(&repo, &out),
        }),
    );

    // Replayed: a model that leaves a mark must not run, nor must the tests.
    let mark = tmp.path().join("the model ran");
    let failing = format!("touch '{}'; exit 1", mark.display());
    let again = tmp.path().join("again");
    let replayed = json_report(&rewrite(
        &repo,
        &again,
        &bundle,
        &["--model", &failing, "--count", "4", "--pythonpath", "."],
    ));
    assert!(!mark.exists(), "the model was called on a recorded bundle");
    assert_eq!(replayed["functions"], made["functions"]);
    assert_eq!(
        (&replayed["asked"], &replayed["suite_runs"]),
        (&json!(0), &json!(0))
    );
    assert_eq!(files_under(&again), files_under(&out));

    // A changed function is not answered from the record.
    let edited = tmp.path().join("edited");
    common::copy_dir(&repo, &edited);
    let shapes = edited.join("pkg/shapes.py");
    let text = std::fs::read_to_string(&shapes).unwrap();
    std::fs::write(
        &shapes,
        text.replace("2 * (width + height)", "2 * (height + width)"),
    )
    .unwrap();
    let refused = rewrite(
        &edited,
        &tmp.path().join("other"),
        &bundle,
        &["--count", "4", "--pythonpath", "."],
    );
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("give --model CMD"), "{stderr}");
}

#[test]
fn a_golden_patch_chooses_the_functions_it_touches() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = fixture_repo();
    let patch = tmp.path().join("golden.patch");
    std::fs::write(
        &patch,
        "--- a/pkg/shapes.py\n+++ b/pkg/shapes.py\n@@ -21,1 +21,1 @@\n-    return 2 * (width + height)\n+    return (width + height) * 2\n",
    )
    .unwrap();
    let made = json_report(&rewrite(
        &repo,
        &tmp.path().join("out"),
        &tmp.path().join("view.json"),
        &[
            "--model",
            &model(""),
            "--patch",
            path_str(&patch),
            "--pythonpath",
            ".",
        ],
    ));
    let names: Vec<&Value> = made["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["name"])
        .collect();
    assert_eq!(names, [&json!("perimeter")], "{made}");
    assert_eq!(made["accepted"], 1, "{made}");

    // A patch of another repository chooses nothing and says so.
    std::fs::write(
        &patch,
        "--- a/other.py\n+++ b/other.py\n@@ -1,1 +1,1 @@\n-a\n+b\n",
    )
    .unwrap();
    let refused = rewrite(
        &repo,
        &tmp.path().join("out2"),
        &tmp.path().join("view2.json"),
        &["--model", &model(""), "--patch", path_str(&patch)],
    );
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("changes no function"), "{stderr}");
}

#[test]
fn functions_of_packaging_are_rewritten_and_its_own_tests_pass_on_them_needs_bwrap() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = sdist("packaging", "24.2");
    let out = tmp.path().join("rewritten");
    let made = json_report(&rewrite(
        &repo,
        &out,
        &tmp.path().join("view.json"),
        &[
            "--model",
            &model(""),
            "--count",
            "4",
            "--seed",
            "1",
            "--requirement",
            "pytest==8.3.5",
            "--requirement",
            "pretend==1.0.9",
        ],
    ));
    assert!(made["tests"].as_u64().unwrap() > 500, "{made}");
    // Three real rewrites pass packaging's tests together (one run); the fourth function
    // has nothing the model rewrites and is refused as unchanged.
    let fates: Vec<(&str, &str)> = made["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap(), f["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        fates,
        [
            ("_parse_specifier", "accepted"),
            ("_parse_keywords", "accepted"),
            ("_Validator.__init__", "rejected"),
            ("_mac_arch", "accepted"),
        ],
        "{made}"
    );
    assert_eq!(made["suite_runs"], 2, "{made}");
    let changed = changed(&repo, &out);
    let files: Vec<&String> = changed.as_object().unwrap().keys().collect();
    assert_eq!(
        files,
        [
            "src/packaging/_parser.py",
            "src/packaging/metadata.py",
            "src/packaging/tags.py"
        ]
    );
}
