//! `wheelwright mask`: the real binary on core's masking fixtures, and masking every module
//! of a real library (networkx 3.4.2) to files CPython and tree-sitter accept, with no
//! import and no body left.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::expect::check_text;
use common::python::cpython_refuses;
use wheelwright_core::recube::mask::{RAISE, mask};
use wheelwright_core::syntax::{self, Field, Kind};
use wheelwright_server::dataset::load_dir;

/// Core's masking fixtures: `<case>.py` and the expected `<case>.masked.py`.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/recube/mask")
}

#[test]
fn the_command_prints_each_fixture_masked_and_warns_on_stderr() {
    let mut problems = Vec::new();
    let mut cases = 0;
    for entry in std::fs::read_dir(fixtures()).expect("the fixtures") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let Some(case) = name.strip_suffix(".py").filter(|c| !c.ends_with(".masked")) else {
            continue;
        };
        cases += 1;
        let out = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
            .arg("mask")
            .arg(&path)
            .env("WHEELWRIGHT_LOG", "warn")
            .output()
            .expect("the wheelwright binary runs");
        assert!(out.status.success(), "{case}: {out:?}");
        let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
        // Compared, never rewritten: the expectation belongs to core's test.
        if std::env::var_os(common::expect::UPDATE).is_none()
            && let Err(p) = check_text(&fixtures().join(format!("{case}.masked.py")), &stdout)
        {
            problems.push(p);
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let warned = stderr.contains("warning:");
        if warned != (case == "syntax_errors") {
            problems.push(format!("{case}: unexpected standard error {stderr:?}"));
        }
    }
    assert!(cases >= 8, "the fixtures are missing");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn the_command_refuses_a_missing_file_by_name() {
    let out = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["mask", "no/such/file.py"])
        .output()
        .expect("the wheelwright binary runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/file.py"));
}

/// What survives masking in `text`: import statements, and function bodies that are more
/// than a docstring and [`RAISE`].
fn leftovers(text: &str) -> Vec<String> {
    let tree = syntax::parse(text);
    let mut found = Vec::new();
    for id in tree.descendants(tree.root()) {
        match tree.kind(id) {
            Kind::ImportStatement | Kind::ImportFromStatement | Kind::FutureImportStatement => {
                found.push(format!(
                    "an import on line {}",
                    tree.node(id).span.start_line
                ));
            }
            Kind::FunctionDefinition => {
                let Some(body) = tree.child(id, Field::Body) else {
                    continue;
                };
                let statements: Vec<&str> = tree
                    .children(body)
                    .filter(|&c| tree.kind(c) != Kind::Comment)
                    .map(|c| tree.text(c))
                    .collect();
                let masked = match statements.as_slice() {
                    [only] => *only == RAISE,
                    [doc, last] => {
                        *last == RAISE
                            && (doc.ends_with("\"\"\"")
                                || doc.ends_with('\'')
                                || doc.ends_with('"'))
                    }
                    _ => false,
                };
                if !masked {
                    found.push(format!("a body on line {}", tree.node(id).span.start_line));
                }
            }
            _ => {}
        }
    }
    found
}

/// NEEDS PyPI the first time (the networkx 3.4.2 wheel, then cached).
#[test]
fn every_networkx_module_masks_to_valid_python_with_no_import_or_body_left_needs_pypi() {
    let dataset = load_dir(&common::real_dataset()).expect("the real dataset");
    let files = wheelwright_server::dataset::repository_sources(
        &dataset,
        &wheelwright_server::dataset::default_cache_dir(),
        Path::new("python3"),
    )
    .expect("the networkx 3.4.2 wheel (needs PyPI or the pip cache)")
    .remove("networkx")
    .unwrap();
    let mut masked_files = Vec::new();
    let mut problems = Vec::new();
    let (mut bodies, mut imports) = (0, 0);
    for (path, text) in files.iter().filter(|(p, _)| p.ends_with(".py")) {
        let masked = mask(text);
        bodies += masked.bodies.len();
        imports += masked.imports;
        if !masked.diagnostics.is_empty() {
            problems.push(format!("{path}: {:?}", masked.diagnostics));
        }
        if syntax::parse(&masked.text).has_syntax_errors() {
            problems.push(format!(
                "{path}: tree-sitter finds errors in the masked file"
            ));
        }
        for left in leftovers(&masked.text) {
            problems.push(format!("{path}: {left} survives masking"));
        }
        masked_files.push((path.clone(), masked.text));
    }
    assert!(masked_files.len() > 500, "{} modules", masked_files.len());
    assert!(
        bodies > 5_000 && imports > 2_000,
        "{bodies} bodies, {imports} imports"
    );
    problems.extend(cpython_refuses(&masked_files));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The check above can fail: an import and a kept body are both found.
#[test]
fn the_leftover_check_finds_an_import_and_a_body() {
    let found = leftovers("import os\n\n\ndef f():\n    \"\"\"Doc.\"\"\"\n    return os.sep\n");
    assert_eq!(found, ["an import on line 1", "a body on line 4"]);
    assert!(
        leftovers("def f():\n    \"\"\"Doc.\"\"\"\n    raise NotImplementedError\n").is_empty()
    );
}
