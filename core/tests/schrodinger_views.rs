//! SchrodingerRepo's views (spec 3): which names level 2 maps and leaves out (fixture repositories), the translator's cases, level 3's orders and restores, and property tests over real standard-library packages: views parse, go back exactly, and map one-to-one.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::expect::expect_json;
use common::python::cpython_refuses;
use serde_json::{Value, json};
use wheelwright_core::schrodinger::layout::{reorder, restore};
use wheelwright_core::schrodinger::namespace::{Mode, NamespaceMapping, Reason, word_tokens};
use wheelwright_core::schrodinger::translate::Translator;
use wheelwright_core::schrodinger::view::{ViewError, make_view, recover};
use wheelwright_core::syntax;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schrodinger")
}

/// Every file under `dir` (relative paths with `/`), skipping `__pycache__`.
fn read_repo(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("a readable directory") {
            let path = entry.expect("an entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "__pycache__" && !name.starts_with("test") || name == "tests" {
                    stack.push(path);
                }
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.insert(rel, text);
            }
        }
    }
    files
}

/// The mapping is one-to-one, never onto a name the repository writes, and keeps every
/// kept subword (`test`) so that tools still find what they look for.
fn check_one_to_one(mapping: &NamespaceMapping, files: &BTreeMap<String, String>) {
    let views: BTreeSet<&String> = mapping.names.values().collect();
    assert_eq!(views.len(), mapping.names.len(), "two names map to one");
    let written: BTreeSet<&str> = files
        .values()
        .flat_map(|t| word_tokens(t).map(|(_, w)| w))
        .collect();
    for (original, view) in &mapping.names {
        assert!(
            !written.contains(view.as_str()),
            "{original} maps onto {view}, which the repository writes"
        );
        assert_ne!(original, view);
        if let Some(rest) = original.strip_prefix("test_") {
            assert!(
                view.starts_with("test_"),
                "{original} -> {view} loses its test_ prefix ({rest})"
            );
        }
    }
    let words: BTreeSet<&String> = mapping.words.values().collect();
    assert_eq!(
        words.len(),
        mapping.words.len(),
        "two subwords map to one word"
    );
}

/// The cases of `fixtures/schrodinger/namespace/`, each a repository and what each mode maps.
const NAMESPACE_CASES: [&str; 4] = [
    "owned_and_external",
    "dynamic",
    "methods_and_tools",
    "tool_owned",
];

/// What a mapping renames and what it leaves out, and why, as its expectation files pin it.
fn mapped_and_left_out(mapping: &NamespaceMapping) -> Value {
    let left_out: BTreeMap<&str, Value> = mapping
        .left_out
        .iter()
        .map(|l| (l.name.as_str(), json!(l.reason)))
        .collect();
    json!({
        "mapped": mapping.names.keys().collect::<Vec<_>>(),
        "left_out": left_out,
    })
}

#[test]
fn level_2_maps_the_names_a_repository_owns_and_says_why_it_leaves_the_others_out() {
    for case in NAMESPACE_CASES {
        let dir = fixtures().join("namespace").join(case);
        let files = read_repo(&dir.join("repo"));
        let mapping = NamespaceMapping::build(&files, 1);
        check_one_to_one(&mapping, &files);
        expect_json(&dir.join("expected.json"), &mapped_and_left_out(&mapping));
    }
}

/// The virtual namespace renames what the materialised view cannot (names in strings,
/// `__all__` and config files, methods, the distribution name) and keeps only what tools
/// read by name or code elsewhere calls: `tool_owned` pins each such rule.
#[test]
fn the_virtual_namespace_renames_every_owned_name_but_those_tools_read() {
    for case in NAMESPACE_CASES {
        let dir = fixtures().join("namespace").join(case);
        let files = read_repo(&dir.join("repo"));
        let mapping = NamespaceMapping::build_in(Mode::Virtual, &files, 1, &BTreeSet::new());
        assert_eq!(mapping.mode, Mode::Virtual);
        check_one_to_one(&mapping, &files);
        let collisions: Vec<&str> = mapping
            .left_out
            .iter()
            .filter(|l| l.reason == Reason::Collision)
            .map(|l| l.name.as_str())
            .collect();
        assert!(collisions.is_empty(), "{case}: {collisions:?}");
        expect_json(
            &dir.join("expected-virtual.json"),
            &mapped_and_left_out(&mapping),
        );
    }
}

#[test]
fn a_seed_gives_one_mapping_and_another_seed_another() {
    let files = read_repo(&fixtures().join("namespace/owned_and_external/repo"));
    let a = NamespaceMapping::build(&files, 42);
    assert_eq!(a, NamespaceMapping::build(&files, 42));
    assert_ne!(a.names, NamespaceMapping::build(&files, 43).names);
    let text = serde_json::to_string(&a).unwrap();
    let back: NamespaceMapping = serde_json::from_str(&text).unwrap();
    assert_eq!(back, a, "the mapping bundle round-trips through JSON");
}

#[test]
fn the_translator_replaces_whole_words_and_never_a_command_word_or_a_flag() {
    let cases: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("translate/cases.json")).unwrap(),
    )
    .unwrap();
    let names: BTreeMap<String, String> = serde_json::from_value(cases["names"].clone()).unwrap();
    let t = Translator::new(names);
    let mut failures = Vec::new();
    for case in cases["cases"].as_array().unwrap() {
        let input = case["input"].as_str().unwrap();
        let out = match case["kind"].as_str().unwrap() {
            "observation" => t.observation(input),
            "command" => t.command(input),
            "patch" => t.patch(input),
            other => panic!("unknown kind {other}"),
        };
        if out.text != case["expected"].as_str().unwrap() {
            failures.push(format!("{case}\n  got {:?}", out.text));
        }
        // The record names exactly what changed: replaying it gives the output.
        let mut replayed = input.to_owned();
        for s in out.substitutions.iter().rev() {
            assert_eq!(&input[s.at..s.at + s.from.len()], s.from);
            replayed.replace_range(s.at..s.at + s.from.len(), &s.to);
        }
        assert_eq!(replayed, out.text);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn level_3_keeps_definition_time_needs_and_restores_byte_for_byte() {
    let cases: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("layout/cases.json")).unwrap(),
    )
    .unwrap();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let source = case["source"].as_str().unwrap();
        let mut seen = BTreeSet::new();
        for seed in 0..64 {
            let (view, runs) = reorder(source, seed, "m.py");
            assert_eq!(runs.len() as u64, case["runs"].as_u64().unwrap(), "{name}");
            let (back, diagnostics) = restore(&view, &runs);
            assert_eq!(back, source, "{name}, seed {seed}");
            assert!(diagnostics.is_empty(), "{name}: {diagnostics:?}");
            for pair in case["before"].as_array().unwrap() {
                let (first, then) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
                assert!(
                    view.find(first).unwrap() < view.find(then).unwrap(),
                    "{name}, seed {seed}: {first} after {then}:\n{view}"
                );
            }
            for block in case["together"].as_array().unwrap() {
                assert!(
                    view.contains(block.as_str().unwrap()),
                    "{name}, seed {seed}:\n{view}"
                );
            }
            seen.insert(view);
        }
        assert_eq!(
            seen.len() > 1,
            case["free"].as_bool().unwrap(),
            "{name}: {} orders",
            seen.len()
        );
    }
}

#[test]
fn an_edited_view_still_restores_its_runs_and_says_which_it_could_not() {
    let source = "def a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n\n\nX = 1\n\n\ndef d():\n    pass\n\n\ndef e():\n    pass\n";
    let (view, runs) = reorder(source, 9, "m.py");
    // The agent adds a line to `b`, a definition after `c`, and renames `e`.
    let edited = view
        .replace("def b():\n    pass", "def b():\n    return 2")
        .replace("def e(", "def f(")
        .replace("\n\n\nX = 1", "\n\n\ndef new():\n    pass\n\n\nX = 1");
    let (back, diagnostics) = restore(&edited, &runs);
    assert!(
        back.starts_with(
            "def a():\n    pass\n\n\ndef b():\n    return 2\n\n\ndef c():\n    pass\n\n\ndef new():"
        ),
        "{back}"
    );
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert!(diagnostics[0].contains("d, e"), "{diagnostics:?}");
}

#[test]
fn levels_1_and_4_need_a_model_and_other_levels_do_not_exist() {
    let files = BTreeMap::new();
    assert_eq!(
        make_view(&files, &[1], 0).unwrap_err(),
        ViewError::NeedsModel(1)
    );
    assert_eq!(
        make_view(&files, &[2, 4], 0).unwrap_err(),
        ViewError::NeedsModel(4)
    );
    assert_eq!(
        make_view(&files, &[5], 0).unwrap_err(),
        ViewError::NoSuchLevel(5)
    );
    assert_eq!(make_view(&files, &[], 0).unwrap_err(), ViewError::NoLevel);
}

#[test]
fn a_patch_made_in_the_view_is_recovered_in_original_names_and_paths() {
    let files = read_repo(&fixtures().join("namespace/owned_and_external/repo"));
    let view = make_view(&files, &[2, 3], 4).unwrap();
    let m = view.bundle.namespace.as_ref().unwrap();
    let core = m.view_path("pkg/core.py");
    let mut state = view.files.clone();
    let text = state.get_mut(&core).unwrap();
    text.push_str(&format!(
        "\n\ndef restart():\n    return {}()\n",
        m.names["Engine"]
    ));
    state.insert(
        format!("{}/extra.py", m.names["pkg"]),
        format!("from {} import {}\n", m.names["pkg"], m.names["run_engine"]),
    );
    let recovery = recover(&files, &state, &view.bundle);
    assert_eq!(recovery.changed, ["pkg/core.py", "pkg/extra.py"]);
    assert!(
        recovery
            .patch
            .contains("+def restart():\n+    return Engine()\n"),
        "{}",
        recovery.patch
    );
    assert!(
        recovery
            .patch
            .contains("+++ b/pkg/extra.py\n@@ -0,0 +1 @@\n+from pkg import run_engine\n"),
        "{}",
        recovery.patch
    );
    assert!(
        recovery.diagnostics.is_empty(),
        "{:?}",
        recovery.diagnostics
    );
}

/// Real library code: packages of this machine's Python standard library.
fn stdlib_repo() -> BTreeMap<String, String> {
    let files = common::real::stdlib_packages(&["json", "email", "logging", "http", "urllib"]);
    assert!(
        files.len() > 40,
        "{} files: is python3's standard library there?",
        files.len()
    );
    files
}

#[test]
fn property_views_of_real_packages_parse_go_back_exactly_and_map_one_to_one() {
    let files = stdlib_repo();
    let broken_before: BTreeSet<&String> = files
        .iter()
        .filter(|(p, t)| p.ends_with(".py") && syntax::parse(t).has_syntax_errors())
        .map(|(p, _)| p)
        .collect();
    // Seeds drawn once from the clock and then fixed, and a few edge values.
    for seed in [0, 1, 7, 0x5eed, 981_273_645, u64::MAX] {
        for levels in [&[2u8][..], &[3], &[2, 3]] {
            let view = make_view(&files, levels, seed).unwrap();
            let paths: BTreeSet<&String> = view.files.keys().collect();
            assert_eq!(
                paths.len(),
                files.len(),
                "seed {seed}, {levels:?}: two paths map to one"
            );
            if let Some(m) = &view.bundle.namespace {
                check_one_to_one(m, &files);
                assert!(
                    m.names.len() > 100,
                    "seed {seed}: only {} names mapped",
                    m.names.len()
                );
            }
            let mut python = Vec::new();
            for (path, text) in &view.files {
                if path.ends_with(".py") {
                    let original = view.bundle.original_path(path);
                    let tree = syntax::parse(text);
                    assert!(
                        !tree.has_syntax_errors() || broken_before.contains(&original),
                        "seed {seed}, {levels:?}: {path} does not parse"
                    );
                    python.push((path.clone(), text.clone()));
                }
            }
            if seed == 7 {
                assert_eq!(
                    cpython_refuses(&python),
                    Vec::<String>::new(),
                    "CPython refuses a view file"
                );
            }
            let recovery = recover(&files, &view.files, &view.bundle);
            assert_eq!(
                recovery.patch, "",
                "seed {seed}, {levels:?}: the view does not go back exactly"
            );
            assert!(
                recovery.diagnostics.is_empty(),
                "{:?}",
                recovery.diagnostics
            );
            if levels.contains(&3) {
                assert!(
                    view.bundle.layout.len() > 20,
                    "seed {seed}: {} files reordered",
                    view.bundle.layout.len()
                );
            }
        }
    }
}
