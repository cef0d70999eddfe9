//! SchrodingerRepo level 4 (spec 3): the functions a golden patch touches (or a seeded choice), a scripted model's rewrites of each read as the fixture's `expected.json` says (kept for the tests to judge, corrected by the self-check, or rejected with the reason), and the kept ones put in place, indented as the originals were.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use wheelwright_core::schrodinger::rewrites::{
    REWRITE_TEMPLATE, apply, read_rewrite, regions, rewrite,
};

use crate::common::expect::expect_json;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schrodinger/rewrites")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn regions_and_rewrites_are_as_expected() {
    let dir = fixture();
    let files = BTreeMap::from([(
        "pkg/shapes.py".to_owned(),
        read(&dir.join("repo/pkg/shapes.py")),
    )]);
    let names = |rs: &[wheelwright_core::schrodinger::rewrites::Region]| -> Vec<String> {
        rs.iter().map(|r| r.name.clone()).collect()
    };
    let patched = regions(&files, Some(&read(&dir.join("golden.patch"))), 0, 0);
    let every = regions(&files, None, 0, 100);
    let seeded = regions(&files, None, 7, 2);
    assert_eq!(
        seeded,
        regions(&files, None, 7, 2),
        "a seed draws the same functions"
    );
    let mut rewrites = serde_json::Map::new();
    let mut records = Vec::new();
    for region in &every {
        let record = rewrite(region, |p| {
            let stage = if p.template == REWRITE_TEMPLATE { 1 } else { 2 };
            Ok::<_, String>(read(
                &dir.join(format!("answers/{}.{stage}.md", region.name)),
            ))
        })
        .expect("the scripted model answers");
        let stages: Vec<&str> = record.stages.iter().map(|s| s.template.as_str()).collect();
        let outcome = serde_json::to_value(&record.outcome).unwrap();
        rewrites.insert(
            region.name.clone(),
            json!({"stages": stages, "outcome": outcome}),
        );
        records.push(record);
    }
    let applied = apply(&files, &records).expect("the records fit the files");
    // A record of a function the file no longer holds where it says is refused.
    let mut changed = files.clone();
    changed.insert(
        "pkg/shapes.py".to_owned(),
        format!("\n{}", files["pkg/shapes.py"]),
    );
    let stale = apply(&changed, &records).expect_err("a stale record is refused");
    let actual = json!({
        "patch_regions": patched,
        "every_function": names(&every),
        "seed_7_two": names(&seeded),
        "rewrites": Value::Object(rewrites),
        "applied": applied["pkg/shapes.py"].lines().collect::<Vec<_>>(),
        "stale": stale,
        // The original given back, re-indented, is no rewrite.
        "unchanged": read_rewrite(&every[0], &format!("```python\n{}\n\n```", every[0].text)),
    });
    expect_json(&dir.join("expected.json"), &actual);
}
