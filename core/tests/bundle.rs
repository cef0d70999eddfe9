//! Run bundles: the directory and JSON Lines spellings agree, bad bundles are refused with clear messages.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use wheelwright_core::bundle::{Budget, BundleError, BundleLimits};
use wheelwright_core::reporeuse::bundle::{Gathered, RepoReuseBundle, TurnId};

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

fn valid_dir() -> RepoReuseBundle {
    RepoReuseBundle::from_files(read_dir(&fixtures().join("valid")))
        .expect("the valid fixture reads")
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
        bundle.predictions.keys().cloned().collect::<Vec<_>>(),
        vec![TurnId::new("slugs", 1), TurnId::new("slugs", 2)]
    );
    let first = &bundle.predictions[&TurnId::new("slugs", 1)];
    assert_eq!(
        first.files.keys().collect::<Vec<_>>(),
        ["slugs.py", "textkit/extra.py"]
    );
    assert!(first.trajectory.as_deref().unwrap().contains("generic-1"));
    assert_eq!(
        bundle.predictions[&TurnId::new("slugs", 2)].trajectory,
        None
    );
}

#[test]
fn every_spelling_is_the_same_bundle_with_the_same_hash() {
    let dir = valid_dir();
    let jsonl = RepoReuseBundle::from_jsonl(
        &std::fs::read_to_string(fixtures().join("valid.jsonl")).unwrap(),
    )
    .unwrap();
    assert_eq!(dir.metadata, jsonl.metadata);
    for (key, turn) in &dir.predictions {
        assert_eq!(turn.files, jsonl.predictions[key].files, "{key:?}");
    }
    assert_eq!(dir.content_hash(), jsonl.content_hash());

    // A zip of the folder has every entry under it: read as the folder itself.
    let nested: Vec<(String, Vec<u8>)> = read_dir(&fixtures().join("valid"))
        .into_iter()
        .map(|(path, bytes)| (format!("my-run/{path}"), bytes))
        .collect();
    assert_eq!(
        RepoReuseBundle::from_files(nested).unwrap().content_hash(),
        dir.content_hash()
    );

    // Written back in its directory spelling, it reads as itself, trajectories and all.
    assert_eq!(RepoReuseBundle::from_files(dir.to_files()).unwrap(), dir);
    let written: Vec<String> = dir.to_files().into_iter().map(|(path, _)| path).collect();
    let read: Vec<String> = read_dir(&fixtures().join("valid"))
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| !path.ends_with("README.md"))
        .collect();
    assert_eq!(written, read, "the fixture folder's own layout");
    // And from its bytes, whatever the packing: a zip of the folder, JSON Lines, gzipped.
    let limits = wheelwright_core::bundle::LIMITS;
    let gzipped = {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(dir.to_jsonl().as_bytes()).unwrap();
        gz.finish().unwrap()
    };
    for (name, bytes) in [
        ("run.jsonl", dir.to_jsonl().into_bytes()),
        ("run.jsonl.gz", gzipped),
    ] {
        let read = RepoReuseBundle::from_bytes(&bytes, name, limits).unwrap();
        assert_eq!(read.content_hash(), dir.content_hash(), "{name}");
    }
    let refused = RepoReuseBundle::from_bytes(b"\xff\xfe", "run.bin", limits).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("run.bin: is neither a zip archive nor UTF-8 JSON Lines"),
        "{refused}"
    );

    // Any change to what the agent left changes the hash.
    let mut changed = dir.clone();
    changed
        .predictions
        .get_mut(&TurnId::new("slugs", 2))
        .unwrap()
        .files
        .insert("urls.py".to_owned(), "x = 2\n".to_owned());
    assert_ne!(changed.content_hash(), dir.content_hash());
}

/// JSON Lines read as the browser reads them: streamed, and gathered a turn at a time.
fn gathered_jsonl(text: &str) -> Result<RepoReuseBundle, BundleError> {
    let lines = text.lines().enumerate().map(|(i, line)| Ok((i + 1, line)));
    let (metadata, turns) = RepoReuseBundle::stream_jsonl(lines)?;
    let mut gathered = Gathered::new(metadata);
    for turn in turns {
        gathered.add(turn?)?;
    }
    gathered.finish()
}

/// A directory's or zip's entries read as the browser reads them: in
/// [`RepoReuseBundle::read_order`], streamed, and gathered a turn at a time.
fn gathered_files(entries: Vec<(String, Vec<u8>)>) -> Result<RepoReuseBundle, BundleError> {
    let order = RepoReuseBundle::read_order(entries.iter().map(|(name, _)| name.as_str()));
    let mut bytes: Vec<Option<Vec<u8>>> = entries.into_iter().map(|(_, b)| Some(b)).collect();
    let ordered = order
        .into_iter()
        .map(|(at, name)| Ok((name, bytes[at].take().unwrap_or_default())));
    let (metadata, turns) = RepoReuseBundle::stream_files(ordered)?;
    let mut gathered = Gathered::new(metadata);
    for turn in turns {
        gathered.add(turn?)?;
    }
    gathered.finish()
}

#[test]
fn a_bundle_gathered_a_turn_at_a_time_is_the_bundle_read_whole() {
    let dir = valid_dir();
    assert_eq!(gathered_files(dir.to_files()).unwrap(), dir);
    let nested: Vec<(String, Vec<u8>)> = read_dir(&fixtures().join("valid"))
        .into_iter()
        .map(|(path, bytes)| (format!("my-run/{path}"), bytes))
        .collect();
    assert_eq!(gathered_files(nested).unwrap(), dir);
    let jsonl = dir.to_jsonl();
    assert_eq!(
        gathered_jsonl(&jsonl).unwrap(),
        RepoReuseBundle::from_jsonl(&jsonl).unwrap()
    );
    assert_eq!(dir.jsonl_lines().collect::<String>(), jsonl);
    // Every bundle refused whole is refused gathered, for the same reason.
    let failures = refusal_failures(gathered_jsonl, gathered_files);
    assert!(failures.is_empty(), "{failures:#?}");
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
    #[serde(default)]
    entries: Option<Vec<(String, String)>>,
    error: String,
}

/// Each case of `refused.json` read as JSON Lines by `jsonl` or as entries by `files`:
/// what is wrong with each reader's answer (accepted, or refused for another reason).
fn refusal_failures(
    jsonl: impl Fn(&str) -> Result<RepoReuseBundle, BundleError>,
    files: impl Fn(Vec<(String, Vec<u8>)>) -> Result<RepoReuseBundle, BundleError>,
) -> Vec<String> {
    let text = std::fs::read_to_string(fixtures().join("refused.json")).unwrap();
    let refused: Refused = serde_json::from_str(&text).unwrap();
    let meta = std::fs::read_to_string(fixtures().join("valid/metadata.json")).unwrap();
    let meta_line = format!(
        "{{\"metadata\": {}}}",
        serde_json::from_str::<serde_json::Value>(&meta).unwrap()
    );
    let mut failures = Vec::new();
    for case in refused.cases {
        let entries = case.entries.clone().or_else(|| {
            case.files
                .as_ref()
                .map(|files| files.clone().into_iter().collect())
        });
        let result = match (&case.jsonl, entries) {
            (Some(lines), None) => jsonl(&lines.join("\n").replace("{META_LINE}", &meta_line)),
            (None, Some(entries)) => files(
                entries
                    .into_iter()
                    .map(|(p, t)| (p, t.replace("{META}", &meta).into_bytes()))
                    .collect(),
            ),
            _ => panic!(
                "case {:?} must give one of jsonl, files or entries",
                case.name
            ),
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
    failures
}

#[test]
fn bad_bundles_are_refused_with_a_message_that_names_the_problem() {
    let failures = refusal_failures(RepoReuseBundle::from_jsonl, RepoReuseBundle::from_files);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_budget_stops_at_each_limit() {
    let limits = BundleLimits {
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
    // A real mini-SWE-agent trajectory (vendored in tests/fixtures/real/), carried by a JSON
    // Lines bundle as text, comes out byte for byte.
    let text = common::real::vendored("psf__requests-1921");
    let line = serde_json::json!({"instance_id": "slugs/turn-1", "trajectory": text});
    let meta = std::fs::read_to_string(fixtures().join("valid/metadata.json")).unwrap();
    let jsonl = format!(
        "{{\"metadata\": {}}}\n{line}\n",
        serde_json::from_str::<serde_json::Value>(&meta).unwrap()
    );
    let bundle = RepoReuseBundle::from_jsonl(&jsonl).unwrap();
    assert_eq!(
        bundle.predictions[&TurnId::new("slugs", 1)]
            .trajectory
            .as_deref(),
        Some(text.as_str())
    );
}

/// The valid fixture's metadata line with `field` (a JSON pointer into the metadata, e.g.
/// `/dataset/name`) set to `value`, and one turn.
fn jsonl_with(field: &str, value: serde_json::Value) -> String {
    let meta = std::fs::read_to_string(fixtures().join("valid/metadata.json")).unwrap();
    let mut meta: serde_json::Value = serde_json::from_str(&meta).unwrap();
    *meta
        .pointer_mut(field)
        .unwrap_or_else(|| panic!("no {field}")) = value;
    format!(
        "{}\n{{\"instance_id\": \"slugs/turn-1\"}}\n",
        serde_json::json!({ "metadata": meta })
    )
}

#[test]
fn every_metadata_string_has_a_length_limit() {
    use wheelwright_core::bundle::{FIELD_CHARS, NOTES_CHARS};
    let cases = [
        ("/model", "model", FIELD_CHARS),
        ("/harness", "harness", FIELD_CHARS),
        ("/memory", "memory", FIELD_CHARS),
        ("/scaffold_version", "scaffold_version", FIELD_CHARS),
        ("/dataset/name", "dataset.name", FIELD_CHARS),
        ("/dataset/version", "dataset.version", FIELD_CHARS),
        ("/notes", "notes", NOTES_CHARS),
    ];
    let mut failures = Vec::new();
    for (pointer, field, limit) in cases {
        // Characters, not bytes: a limit of multi-byte characters is still accepted.
        let at_limit = "é".repeat(limit);
        if let Err(e) = RepoReuseBundle::from_jsonl(&jsonl_with(pointer, at_limit.into())) {
            failures.push(format!("{field} at {limit} characters refused: {e}"));
        }
        match RepoReuseBundle::from_jsonl(&jsonl_with(pointer, "x".repeat(limit + 1).into())) {
            Ok(_) => failures.push(format!("{field} over {limit} characters accepted")),
            Err(e) if !e.to_string().contains(&format!("\"{field}\" must be")) => {
                failures.push(format!("{field}: {e}"));
            }
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn what_the_rules_allow_is_still_read() {
    let meta = std::fs::read_to_string(fixtures().join("valid/metadata.json")).unwrap();
    // Paths differing only in case are two files (tests run on Linux, where they are);
    // a directory of one turn may gain files in later turns.
    let bundle = RepoReuseBundle::from_files([
        ("metadata.json".to_owned(), meta.clone().into_bytes()),
        (
            "chains/slugs/turn-1/files/A.py".to_owned(),
            b"a = 1\n".to_vec(),
        ),
        (
            "chains/slugs/turn-1/files/a.py".to_owned(),
            b"a = 2\n".to_vec(),
        ),
        ("chains/slugs/turn-1/files/pkg/x.py".to_owned(), Vec::new()),
        ("chains/slugs/turn-2/files/pkg/y.py".to_owned(), Vec::new()),
        ("chains/other/turn-1/files/pkg".to_owned(), Vec::new()),
    ])
    .expect("case-distinct files, a growing directory and another chain's file are fine");
    assert_eq!(
        bundle.predictions[&TurnId::new("slugs", 1)]
            .files
            .keys()
            .collect::<Vec<_>>(),
        ["A.py", "a.py", "pkg/x.py"]
    );
    // Notes keep their line breaks and tabs; names may be any printable Unicode.
    let notes = "line one\r\n\tline two\n";
    let bundle = RepoReuseBundle::from_jsonl(&jsonl_with("/notes", notes.into())).unwrap();
    assert_eq!(bundle.metadata.notes.as_deref(), Some(notes));
    let bundle = RepoReuseBundle::from_jsonl(&jsonl_with("/model", "模型-β 2".into())).unwrap();
    assert_eq!(bundle.metadata.model, "模型-β 2");
}

#[test]
fn a_stored_run_holds_its_files_and_trajectories_up_to_the_stored_limit() {
    use wheelwright_core::bundle::{SPLIT_HINT, STORED_TEXT_BYTES};
    let metadata = r#"{"metadata": {"model": "m", "harness": "h", "memory": "none", "date": "2026-12-01", "dataset": {"name": "d", "version": "1"}}}"#;
    // (bytes of one file, of another, whether the run is storable)
    let half = usize::try_from(STORED_TEXT_BYTES / 2).unwrap();
    let cases = [(10, 20, true), (half, half, true), (half, half + 1, false)];
    for (a, b, storable) in cases {
        let line = format!(
            r#"{{"instance_id": "c/turn-1", "files": {{"pkg/a.py": "{}", "pkg/b.py": "{}"}}}}"#,
            "x".repeat(a),
            "y".repeat(b)
        );
        let bundle = RepoReuseBundle::from_jsonl(&format!("{metadata}\n{line}")).unwrap();
        let size = (a + b) as u64;
        assert_eq!(bundle.text_bytes(), size);
        match bundle.check_storable() {
            Ok(()) => assert!(storable, "{size} bytes were taken"),
            Err(e) => {
                assert!(!storable, "{size} bytes were refused: {e}");
                let message = e.to_string();
                assert_eq!(
                    e,
                    BundleError::StoredTooLarge {
                        size,
                        limit: STORED_TEXT_BYTES
                    }
                );
                assert!(message.contains(SPLIT_HINT), "{message}");
            }
        }
    }
}
