//! Tests of the repository index: module names, definitions (D1), imports, resolution (D4).

use std::path::Path;

use serde_json::{Value, json};
use wheelwright_core::python::index::{IndexOptions, RepoIndex, Resolution, module_name};
use wheelwright_core::workspace::Workspace;

fn index_fixture() -> (RepoIndex, Value) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/python/index");
    let mut workspace = Workspace::new();
    for file in ["pkg/__init__.py", "pkg/models.py"] {
        workspace.insert(
            file,
            std::fs::read_to_string(dir.join("repo").join(file)).unwrap(),
        );
    }
    let expected =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    (
        RepoIndex::build(&workspace, &IndexOptions::default()),
        expected,
    )
}

/// Compares the listed fields of each expected definition with the index's.
fn check_definitions(index: &RepoIndex, expected: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    for (name, want) in expected.as_object().unwrap() {
        let Some(got) = index.lookup(name) else {
            errors.push(format!("{name}: not indexed"));
            continue;
        };
        let got = serde_json::to_value(&got).unwrap();
        for (field, want_value) in want.as_object().unwrap() {
            let got_value = if field == "spans" {
                json!(
                    got["spans"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|s| json!([s["start"], s["end"]]))
                        .collect::<Vec<_>>()
                )
            } else {
                got[field].clone()
            };
            if &got_value != want_value {
                errors.push(format!("{name}.{field}: {got_value}, want {want_value}"));
            }
        }
    }
    errors
}

fn check_imports(index: &RepoIndex, expected: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    for (module, want) in expected.as_object().unwrap() {
        let got = serde_json::to_value(index.imports(module)).unwrap();
        if &got != want {
            errors.push(format!("imports of {module}: {got}, want {want}"));
        }
    }
    errors
}

fn check_resolve(index: &RepoIndex, expected: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    for (name, want) in expected.as_object().unwrap() {
        let got = match index.resolve(name) {
            Resolution::Definition { canonical, .. } => Some(canonical),
            _ => None,
        };
        if got.as_deref() != want.as_str() {
            errors.push(format!("resolve {name}: {got:?}, want {want}"));
        }
    }
    errors
}

#[test]
fn index_fixture_matches_expectations() {
    let (index, expected) = index_fixture();
    let mut errors = Vec::new();
    let modules: Vec<&str> = index.modules();
    if json!(modules) != expected["modules"] {
        errors.push(format!("modules: {modules:?}"));
    }
    errors.extend(check_definitions(&index, &expected["definitions"]));
    errors.extend(check_imports(&index, &expected["imports"]));
    errors.extend(check_resolve(&index, &expected["resolve"]));
    assert!(errors.is_empty(), "\n{}", errors.join("\n"));
}

#[test]
fn module_names_follow_paths_and_source_roots() {
    let src = IndexOptions {
        source_roots: vec!["src".to_owned()],
    };
    for (path, options, want) in [
        (
            "pkg/__init__.py",
            &IndexOptions::default(),
            Some(("pkg", true)),
        ),
        (
            "pkg/mod.py",
            &IndexOptions::default(),
            Some(("pkg.mod", false)),
        ),
        (
            "./pkg/sub/mod.py",
            &IndexOptions::default(),
            Some(("pkg.sub.mod", false)),
        ),
        ("src/pkg/mod.py", &src, Some(("pkg.mod", false))),
        ("tests/test_x.py", &src, Some(("tests.test_x", false))),
        ("README.md", &src, None),
    ] {
        let got = module_name(path, options);
        assert_eq!(got.as_ref().map(|(m, p)| (m.as_str(), *p)), want, "{path}");
    }
}

#[test]
fn reexport_chains_stop_after_32_hops() {
    for (hops, resolves) in [(31, true), (40, false)] {
        let mut workspace = Workspace::new();
        workspace.insert("pkg/__init__.py", "");
        workspace.insert("pkg/m0.py", "def f():\n    pass\n");
        for i in 1..=hops {
            workspace.insert(
                &format!("pkg/m{i}.py"),
                format!("from .m{} import f\n", i - 1),
            );
        }
        let index = RepoIndex::build(&workspace, &IndexOptions::default());
        let got = index.resolve(&format!("pkg.m{hops}.f"));
        assert_eq!(
            matches!(got, Resolution::Definition { .. }),
            resolves,
            "{hops} hops: {got:?}"
        );
    }
}

#[test]
fn inserting_a_file_replaces_its_module() {
    let mut index = RepoIndex::default();
    index.insert("pkg/a.py", "def f():\n    pass\n");
    assert!(index.lookup("pkg.a.f").is_some());
    index.insert("pkg/a.py", "def g():\n    pass\n");
    assert!(index.lookup("pkg.a.f").is_none());
    assert!(index.lookup("pkg.a.g").is_some());
}

#[test]
fn an_answer_found_before_a_file_is_added_is_asked_again_after() {
    // `pkg.f` comes through a star import of a module that does not exist yet: asked
    // before it is added, after, and of a clone taken before it was added.
    let mut w0 = RepoIndex::default();
    w0.insert("pkg/__init__.py", "from pkg.a import *\n");
    let is_f = |index: &RepoIndex| {
        matches!(index.resolve("pkg.f"),
            Resolution::Definition { canonical, .. } if canonical == "pkg.a.f")
    };
    assert!(!is_f(&w0), "pkg.a does not exist yet");
    let mut chain = w0.clone();
    chain.insert("pkg/a.py", "def f():\n    pass\n");
    assert!(is_f(&chain), "the clone has pkg.a now");
    assert!(!is_f(&w0), "W0 is unchanged by its clone");
    chain.insert("pkg/a.py", "def g():\n    pass\n");
    assert!(!is_f(&chain), "pkg.a no longer defines f");
}
