//! ReCUBE masking (spec 2) on fixture files: the masked text and what was masked as expected,
//! and every masked file valid Python under tree-sitter and under CPython.
//!
//! Each `fixtures/recube/mask/<case>.py` is masked; the result must equal
//! `<case>.masked.py` byte for byte and `<case>.json` (bodies, import count, diagnostics).
//! After a deliberate change: `UPDATE_EXPECT=1 cargo test -p wheelwright-core --test
//! recube_mask`, then review the diff.

use crate::common;

use std::path::{Path, PathBuf};

use common::expect::{check_json, check_text};
use common::python::cpython_refuses;
use wheelwright_core::recube::mask::{RAISE, mask};
use wheelwright_core::syntax;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recube/mask")
}

/// Every fixture's input, by case name.
fn cases() -> Vec<(String, String)> {
    let mut cases: Vec<(String, String)> = std::fs::read_dir(fixtures())
        .expect("the fixture directory")
        .map(|e| e.expect("an entry").path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let case = name.strip_suffix(".py")?;
            (!case.ends_with(".masked")).then(|| {
                (
                    case.to_owned(),
                    std::fs::read_to_string(&p).expect("a fixture"),
                )
            })
        })
        .collect();
    cases.sort();
    assert!(cases.len() >= 8, "the fixtures are missing: {cases:?}");
    cases
}

#[test]
fn each_fixture_masks_as_expected_and_parses_under_both_parsers() {
    let mut problems = Vec::new();
    let mut masked_files = Vec::new();
    for (case, source) in cases() {
        let masked = mask(&source);
        let dir = fixtures();
        if let Err(p) = check_text(&dir.join(format!("{case}.masked.py")), &masked.text) {
            problems.push(p);
        }
        let summary = serde_json::json!({
            "bodies": masked.bodies,
            "imports": masked.imports,
            "diagnostics": masked.diagnostics,
        });
        if let Err(p) = check_json(&dir.join(format!("{case}.json")), &summary) {
            problems.push(p);
        }
        // A file that was valid Python must mask to valid Python.
        if !syntax::parse(&source).has_syntax_errors() {
            if syntax::parse(&masked.text).has_syntax_errors() {
                problems.push(format!(
                    "{case}: tree-sitter finds errors in the masked file"
                ));
            }
            masked_files.push((case, masked.text));
        }
    }
    problems.extend(cpython_refuses(&masked_files));
    assert!(masked_files.len() >= 7, "too few valid fixtures");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// The check above must be able to fail: CPython refuses what the reference implementation
/// leaves (a block whose only statements were imports). tree-sitter's grammar accepts an
/// empty block, which is why CPython is asked as well.
#[test]
fn an_emptied_block_is_refused_by_cpython() {
    let emptied = "if TYPE_CHECKING:\n\nx = 1\n".to_owned();
    assert_eq!(
        cpython_refuses(&[("emptied".to_owned(), emptied)]).len(),
        1,
        "CPython accepts a block with no statement"
    );
}

/// Masking is idempotent on bodies: a masked file masks to itself.
#[test]
fn a_masked_file_masks_to_itself() {
    for (case, source) in cases() {
        let once = mask(&source);
        if !once.diagnostics.is_empty() {
            continue;
        }
        let twice = mask(&once.text);
        assert_eq!(twice.text, once.text, "{case}");
        assert!(twice.text.is_empty() || once.bodies.is_empty() || once.text.contains(RAISE));
    }
}
