//! Run bundles: the directory and JSON Lines spellings agree, bad bundles are refused with clear messages.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use wheelwright_core::bundle::{Budget, BundleError, Limits, RunBundle};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bundle")
}

/// A directory's files as a bundle reader gets them: relative `/` paths and bytes.
fn read_dir(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(root).unwrap().to_string_lossy();
                out.push((relative.replace('\\', "/"), std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn valid_dir() -> RunBundle {
    RunBundle::from_files(read_dir(&fixtures().join("valid"))).expect("the valid fixture reads")
}

#[test]
fn the_directory_reads_with_metadata_files_and_trajectories() {
    let bundle = valid_dir();
    let m = &bundle.metadata;
    assert_eq!(
        (m.model.as_str(), m.harness.as_str(), m.memory.as_str()),
        ("example-model-1", "mini-SWE-agent", "interface")
    );
    assert_eq!(m.cost_usd, Some(0.42));
    assert_eq!(m.scaffold_version.as_deref(), Some("1.1.0"));
    assert_eq!(
        bundle.turns.keys().cloned().collect::<Vec<_>>(),
        vec![("slugs".to_owned(), 1), ("slugs".to_owned(), 2)]
    );
    let first = &bundle.turns[&("slugs".to_owned(), 1)];
    assert_eq!(
        first.files.keys().collect::<Vec<_>>(),
        ["slugs.py", "textkit/extra.py"]
    );
    assert!(first.trajectory.as_deref().unwrap().contains("generic-1"));
    assert_eq!(bundle.turns[&("slugs".to_owned(), 2)].trajectory, None);
}

#[test]
fn every_spelling_is_the_same_bundle_with_the_same_hash() {
    let dir = valid_dir();
    let jsonl =
        RunBundle::from_jsonl(&std::fs::read_to_string(fixtures().join("valid.jsonl")).unwrap())
            .unwrap();
    assert_eq!(dir.metadata, jsonl.metadata);
    for (key, turn) in &dir.turns {
        assert_eq!(turn.files, jsonl.turns[key].files, "{key:?}");
    }
    assert_eq!(dir.content_hash(), jsonl.content_hash());

    // A zip of the folder has every entry under it: read as the folder itself.
    let nested: Vec<(String, Vec<u8>)> = read_dir(&fixtures().join("valid"))
        .into_iter()
        .map(|(path, bytes)| (format!("my-run/{path}"), bytes))
        .collect();
    assert_eq!(
        RunBundle::from_files(nested).unwrap().content_hash(),
        dir.content_hash()
    );

    // Any change to what the agent left changes the hash.
    let mut changed = dir.clone();
    changed
        .turns
        .get_mut(&("slugs".to_owned(), 2))
        .unwrap()
        .files
        .insert("urls.py".to_owned(), "x = 2\n".to_owned());
    assert_ne!(changed.content_hash(), dir.content_hash());
}

#[derive(serde::Deserialize)]
struct Refused {
    cases: Vec<RefusedCase>,
}

#[derive(serde::Deserialize)]
struct RefusedCase {
    name: String,
    #[serde(default)]
    jsonl: Option<Vec<String>>,
    #[serde(default)]
    files: Option<BTreeMap<String, String>>,
    error: String,
}

#[test]
fn bad_bundles_are_refused_with_a_message_that_names_the_problem() {
    let text = std::fs::read_to_string(fixtures().join("refused.json")).unwrap();
    let refused: Refused = serde_json::from_str(&text).unwrap();
    let meta = std::fs::read_to_string(fixtures().join("valid/metadata.json")).unwrap();
    let meta_line = format!(
        "{{\"metadata\": {}}}",
        serde_json::from_str::<serde_json::Value>(&meta).unwrap()
    );
    let mut failures = Vec::new();
    for case in refused.cases {
        let result = match (&case.jsonl, &case.files) {
            (Some(lines), None) => {
                RunBundle::from_jsonl(&lines.join("\n").replace("{META_LINE}", &meta_line))
            }
            (None, Some(files)) => RunBundle::from_files(
                files
                    .iter()
                    .map(|(p, t)| (p.clone(), t.replace("{META}", &meta).into_bytes())),
            ),
            _ => panic!("case {:?} must give jsonl or files", case.name),
        };
        match result {
            Ok(_) => failures.push(format!("{}: accepted", case.name)),
            Err(e) if !e.to_string().contains(&case.error) => failures.push(format!(
                "{}: error {:?} does not contain {:?}",
                case.name,
                e.to_string(),
                case.error
            )),
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_budget_stops_at_each_limit() {
    let limits = Limits {
        entries: 3,
        file_bytes: 100,
        total_bytes: 250,
    };
    let mut budget = Budget::new(limits);
    assert_eq!(budget.take("a", 100), Ok(()));
    assert!(matches!(
        budget.take("big", 101),
        Err(BundleError::FileTooLarge { size: 101, .. })
    ));
    let mut budget = Budget::new(limits);
    budget.take("a", 100).unwrap();
    budget.take("b", 100).unwrap();
    assert_eq!(
        budget.take("c", 51),
        Err(BundleError::TooLarge { limit: 250 })
    );
    let mut budget = Budget::new(limits);
    for name in ["a", "b", "c"] {
        budget.take(name, 0).unwrap();
    }
    assert_eq!(
        budget.take("d", 0),
        Err(BundleError::TooManyEntries { limit: 3 })
    );
}

#[test]
fn real_trajectories_travel_verbatim() {
    // A real mini-SWE-agent trajectory from the shared data, carried by a JSON Lines bundle
    // as text, comes out byte for byte.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../shared/data/real/swebench-bash-only-gemini-3-pro/swebench_results/20251118_gemini-3-pro-74pct/trajs/psf__requests-1921/psf__requests-1921.traj.json",
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let line = serde_json::json!({"instance_id": "slugs/turn-1", "trajectory": text});
    let meta = std::fs::read_to_string(fixtures().join("valid/metadata.json")).unwrap();
    let jsonl = format!(
        "{{\"metadata\": {}}}\n{line}\n",
        serde_json::from_str::<serde_json::Value>(&meta).unwrap()
    );
    let bundle = RunBundle::from_jsonl(&jsonl).unwrap();
    assert_eq!(
        bundle.turns[&("slugs".to_owned(), 1)].trajectory.as_deref(),
        Some(text.as_str())
    );
}
