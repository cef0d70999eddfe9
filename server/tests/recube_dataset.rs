//! Reading ReCUBE datasets (`docs/formats.md`, "Dataset (ReCUBE)"): the format fixture
//! reads, hashes the same however its JSON is laid out, and each kind of mistake is
//! refused with the file and what to fix.

use crate::common;

use std::path::{Path, PathBuf};

use common::copy_dir;
use wheelwright_server::dataset::recube::load_recube_dir;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recube/dataset")
}

/// A copy of the fixture with `edit` applied, in a temporary directory.
fn edited(edit: impl FnOnce(&Path)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy_dir(&fixture(), dir.path());
    edit(dir.path());
    dir
}

fn rewrite_json(path: &Path, change: impl FnOnce(&mut serde_json::Value)) {
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the file")).expect("JSON");
    change(&mut value);
    std::fs::write(path, serde_json::to_string_pretty(&value).expect("JSON")).expect("written");
}

#[test]
fn the_fixture_reads_with_its_labelled_tests() {
    let dataset = load_recube_dir(&fixture()).expect("the fixture is valid");
    assert_eq!(dataset.instances.len(), 2);
    let version = &dataset.instances[0];
    assert_eq!(version.manifest.target, "packaging/version.py");
    assert_eq!(version.manifest.tests.len(), 2);
    assert_eq!(version.tests[0].0, "test_version.py");
    assert_eq!(dataset.content_hash().len(), 64);
}

#[test]
fn the_hash_ignores_json_layout_and_follows_every_test_file() {
    let base = load_recube_dir(&fixture()).unwrap().content_hash();
    let relaid = edited(|d| rewrite_json(&d.join("dataset.json"), |_| {}));
    assert_eq!(load_recube_dir(relaid.path()).unwrap().content_hash(), base);
    let changed = edited(|d| {
        let test = d.join("instances/utils/tests/test_utils.py");
        let text = std::fs::read_to_string(&test).unwrap();
        std::fs::write(&test, text + "\n# changed\n").unwrap();
    });
    assert_ne!(
        load_recube_dir(changed.path()).unwrap().content_hash(),
        base
    );
}

type Edit = fn(&Path);

#[test]
fn each_mistake_is_refused_naming_the_file_and_the_fix() {
    let cases: [(&str, Edit, &str); 10] = [
        (
            "another benchmark",
            |d| {
                rewrite_json(&d.join("dataset.json"), |v| {
                    v["benchmark"] = "reporeuse".into()
                })
            },
            "benchmark \"reporeuse\" is not the one this reader reads",
        ),
        (
            "an unknown field",
            |d| rewrite_json(&d.join("dataset.json"), |v| v["extra"] = 1.into()),
            "dataset.json is not a valid dataset.json",
        ),
        (
            "an unknown repository",
            |d| {
                rewrite_json(&d.join("instances/utils/instance.json"), |v| {
                    v["repository"] = "attrs".into()
                })
            },
            "instances/utils/instance.json: \"repository\" \"attrs\" is not a key",
        ),
        (
            "a target outside the package",
            |d| {
                rewrite_json(&d.join("instances/utils/instance.json"), |v| {
                    v["target"] = "../setup.py".into()
                })
            },
            "must be a relative .py path inside the package packaging/",
        ),
        (
            "two instances, one target",
            |d| {
                rewrite_json(&d.join("instances/utils/instance.json"), |v| {
                    v["target"] = "packaging/version.py".into()
                })
            },
            "another instance already has the target",
        ),
        (
            "a test listed twice",
            |d| {
                rewrite_json(&d.join("instances/version/instance.json"), |v| {
                    let t = v["tests"][0].clone();
                    v["tests"].as_array_mut().unwrap().push(t)
                })
            },
            "test_version.py::test_specifier_uses_version_order is listed twice",
        ),
        (
            "a test file that is not there",
            |d| std::fs::remove_file(d.join("instances/utils/tests/test_utils.py")).unwrap(),
            "names a file that is not under tests/",
        ),
        (
            "an instance listed twice",
            |d| {
                rewrite_json(&d.join("dataset.json"), |v| {
                    v["instances"] = serde_json::json!(["version", "utils", "utils"])
                })
            },
            "\"instances\" lists an id twice",
        ),
        (
            "a test of no kind",
            |d| {
                rewrite_json(&d.join("instances/utils/instance.json"), |v| {
                    v["tests"][0]["kind"] = "unit".into()
                })
            },
            "instance.json is not a valid instance.json",
        ),
        (
            "no tests",
            |d| {
                rewrite_json(&d.join("instances/utils/instance.json"), |v| {
                    v["tests"] = serde_json::json!([])
                })
            },
            "\"tests\" is empty",
        ),
    ];
    for (what, edit, expected) in cases {
        let dir = edited(edit);
        let err = load_recube_dir(dir.path()).expect_err(what).to_string();
        assert!(err.contains(expected), "{what}: {err}");
    }
}
