//! `recube::validate` on a fixture repository whose `pkg/user.py` imports, calls and
//! inherits from the withheld `pkg/target.py`: each file of `fixtures/recube/validate/candidates/`
//! is checked as the target and its report pinned beside it (`<name>.json`;
//! `UPDATE_EXPECT=1` rewrites them). The reference passes; `broken.py` has one finding of
//! every kind but a syntax error (its comments say which); `syntax.py` one syntax error.

use crate::common;

use std::path::{Path, PathBuf};

use common::expect::check_json;
use common::repo::workspace_of;
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::recube::validate::{FindingKind, validate};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recube/validate")
}

#[test]
fn each_candidate_gets_the_report_pinned_beside_it() {
    let workspace = workspace_of(&fixtures().join("repo"));
    let dir = fixtures().join("candidates");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the candidates")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    names.sort();
    assert!(names.len() >= 3, "{names:?}");
    let mut problems = Vec::new();
    for path in names {
        let candidate = std::fs::read_to_string(&path).expect("a candidate");
        let report = validate(
            &workspace,
            "pkg/target.py",
            &candidate,
            &IndexOptions::default(),
        );
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let kinds: Vec<FindingKind> = report.findings.iter().map(|f| f.kind).collect();
        match stem {
            "reference" => assert!(kinds.is_empty(), "{report:#?}"),
            "syntax" => assert_eq!(kinds, [FindingKind::SyntaxError], "{report:#?}"),
            _ => assert!(kinds.len() >= 5, "{stem}: {report:#?}"),
        }
        let json = serde_json::to_value(&report).expect("a report serialises");
        if let Err(problem) = check_json(&dir.join(format!("{stem}.json")), &json) {
            problems.push(problem);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
