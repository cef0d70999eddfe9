//! SchrodingerRepo level 1 (spec 3): a real problem statement restated by a scripted model, each case's prompts, parsed facts, new statement and diagnostics compared with its `expected.json`, and a record replayed without the model.

use std::path::{Path, PathBuf};

use serde_json::json;
use wheelwright_core::schrodinger::restate::{FACTS_TEMPLATE, Prompt, facts_prompt, restate};

use crate::common::expect::expect_json;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schrodinger/restate");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("the restate fixtures")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name))
        .unwrap_or_else(|e| panic!("{}/{name}: {e}", dir.display()))
}

/// The scripted model of a case: `facts.txt` answers stage 1, `restatement.md` stage 2.
fn scripted(dir: &Path) -> impl FnMut(&Prompt) -> Result<String, String> + '_ {
    move |prompt| {
        Ok(read(
            dir,
            if prompt.template == FACTS_TEMPLATE {
                "facts.txt"
            } else {
                "restatement.md"
            },
        ))
    }
}

#[test]
fn each_case_restates_as_expected() {
    let dirs = cases();
    assert!(dirs.len() >= 3, "the fixtures went missing");
    for dir in dirs {
        let original = read(&dir, "statement.md");
        let (record, restated) =
            restate(&original, scripted(&dir)).expect("the scripted model answers");
        let actual = json!({
            "record": record,
            "facts": restated.facts,
            "statement": restated.statement,
            "diagnostics": restated.diagnostics,
        });
        expect_json(&dir.join("expected.json"), &actual);
    }
}

/// The recorded answers make the same statement with no model, and a changed statement is
/// not answered from the record.
#[test]
fn a_record_replays_without_the_model() {
    let dir = cases()
        .into_iter()
        .find(|d| d.ends_with("requests-1921"))
        .expect("the real case");
    let original = read(&dir, "statement.md");
    let (record, made) = restate(&original, scripted(&dir)).expect("the scripted model answers");
    let (again, replayed) = restate(&original, |p| {
        record
            .answer(p)
            .map(str::to_owned)
            .ok_or_else(|| format!("not recorded: {}", p.template))
    })
    .expect("every prompt is recorded");
    assert_eq!(replayed, made);
    assert_eq!(again, record);
    let changed = original.replace("Accept-Encoding", "User-Agent");
    assert_eq!(record.answer(&facts_prompt(&changed)), None);
}
