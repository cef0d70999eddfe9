//! The real dataset `datasets/reporeuse-networkx`: it loads and validates, its references
//! reference every declared target of networkx 3.4.2, and corrupted copies are refused with
//! messages naming the file.

use crate::common;

use common::{copy_dir, real_dataset};

use std::path::PathBuf;

use wheelwright_core::reporeuse::dataset::RepositorySource;
use wheelwright_server::dataset::{DatasetError, load_dir, verify};

#[test]
fn the_real_dataset_loads_and_validates() {
    let dataset = load_dir(&real_dataset()).expect("the real dataset is valid");
    assert_eq!(dataset.manifest.name, "reporeuse-networkx");
    let Some(RepositorySource::Pypi(repo)) = &dataset.manifest.repository else {
        panic!("the real dataset's repository is on PyPI");
    };
    assert_eq!(repo.version, "3.4.2");
    assert_eq!(dataset.chains.len(), 4);
    assert_eq!(dataset.turn_count(), 20);
    let tests: usize = dataset
        .chains
        .iter()
        .flat_map(|c| &c.turns)
        .map(|t| verify::expected_count(t).unwrap())
        .sum();
    assert_eq!(tests, 224);
    assert!(
        dataset
            .tools
            .iter()
            .any(|(p, _)| p == "tools/generate_tests.py")
    );
    // Loading twice gives the same hash.
    assert_eq!(
        dataset.content_hash(),
        load_dir(&real_dataset()).unwrap().content_hash()
    );
    // Pinned: stored runs name the dataset by this hash, so a change to how a dataset of one
    // "repository" serialises (such as the multi-repository form) must not move it.
    assert_eq!(
        dataset.content_hash(),
        "0bbbc4ca87d75e4e4363d77dd38a4cbf2a8111c7284699a96a8f2658e7b8bfd1"
    );
    assert!(dataset.manifest.repositories.is_empty());
    assert!(
        dataset
            .chains
            .iter()
            .all(|c| c.manifest.repository.is_none())
    );
}

/// NEEDS PyPI the first time: downloads the networkx 3.4.2 wheel into the cache
/// (`WHEELWRIGHT_CACHE_DIR`, default `~/.cache/wheelwright`) and reuses it afterwards.
#[test]
fn every_declared_target_is_referenced_by_its_reference_needs_pypi() {
    let dataset = load_dir(&real_dataset()).unwrap();
    let files = wheelwright_server::dataset::repository_sources(
        &dataset,
        &wheelwright_server::dataset::default_cache_dir(),
        std::path::Path::new("python3"),
    )
    .expect("the networkx 3.4.2 wheel (needs PyPI or the pip cache)");
    assert!(files["networkx"].contains_key("networkx/__init__.py"));
    assert!(
        files["networkx"]
            .keys()
            .all(|p| p.ends_with(".py") && !p.contains(".."))
    );
    let checks = verify::check_targets(&dataset, &files);
    assert_eq!(checks.len(), 20);
    for check in &checks {
        assert!(check.ok(), "{check:#?}");
    }
    // Converted, the dataset scores: the references as submissions reuse every target.
    let score_dataset = dataset.to_score_dataset(files);
    let run =
        wheelwright_core::reporeuse::bundle::RepoReuseBundle::reference(&dataset).to_run(&dataset);
    // Moving the texts (the command line's way) gives the same run as copying them, also
    // for a bundle that lacks a turn.
    let reference = wheelwright_core::reporeuse::bundle::RepoReuseBundle::reference(&dataset);
    assert_eq!(reference.clone().into_run(&dataset), run);
    let mut partial = reference;
    let first = partial.predictions.keys().next().cloned().unwrap();
    partial.predictions.remove(&first);
    assert_eq!(partial.clone().into_run(&dataset), partial.to_run(&dataset));
    let report =
        wheelwright_core::reporeuse::scoring::score_run(&score_dataset, &run, &mut |_| {}).unwrap();
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    for row in &report.turns {
        assert_eq!(
            wheelwright_core::metric::format_score("reuse_repo", row.scores.reuse_repo),
            "100.0",
            "{} turn {}",
            row.chain,
            row.turn
        );
        assert!(row.unknown_targets.is_empty(), "{:?}", row.unknown_targets);
    }
}

#[test]
fn a_self_target_naming_an_unknown_function_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&real_dataset(), dir.path());
    let path = dir.path().join("chains/road-audit/turn-2/turn.json");
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "\"solutions.road_audit.distances.best_route\"",
        "\"solutions.road_audit.distances.no_such_function\"",
    );
    std::fs::write(&path, text).unwrap();
    let err = load_dir(dir.path()).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, DatasetError::Invalid { .. }), "{message}");
    assert!(
        message.contains("chains/road-audit/turn-2/turn.json: self target \"solutions.road_audit.distances.no_such_function\" is not a function an earlier turn"),
        "{message}"
    );
}

#[test]
fn a_missing_reference_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&real_dataset(), dir.path());
    let path = dir.path().join("chains/build-graph/turn-3/reference.py");
    std::fs::remove_file(&path).unwrap();
    let err = load_dir(dir.path()).unwrap_err();
    assert!(matches!(err, DatasetError::Missing { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("chains/build-graph/turn-3/reference.py is missing"),
        "{err}"
    );
}

#[test]
fn a_gap_in_the_turns_and_bad_json_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&real_dataset(), dir.path());
    std::fs::rename(
        dir.path().join("chains/social-circles/turn-4"),
        dir.path().join("chains/social-circles/turn-7"),
    )
    .unwrap();
    let err = load_dir(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("chains/social-circles/turn-5: turns must be numbered 1..T without gaps, but turn-4 is missing"),
        "{err}"
    );
    std::fs::write(dir.path().join("dataset.json"), "{\"name\": 1}").unwrap();
    let err = load_dir(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("dataset.json is not a valid dataset.json"),
        "{err}"
    );
}

fn score_fixture() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/score/dataset"
    ))
}

#[test]
fn a_local_repository_is_read_with_the_dataset() {
    let dataset = load_dir(&score_fixture()).expect("the score fixture is valid");
    let Some(RepositorySource::Local(repo)) = &dataset.manifest.repository else {
        panic!("the score fixture's repository is local");
    };
    assert_eq!(repo.path, "repository");
    let paths: Vec<&str> = dataset.repository_files["textkit"]
        .iter()
        .map(|(p, _)| p.as_str())
        .collect();
    assert_eq!(paths, ["textkit/__init__.py", "textkit/clean.py"]);
    let files = wheelwright_server::dataset::local_repository_source(&dataset, "textkit").unwrap();
    assert!(files["textkit/clean.py"].contains("def normalise"));
    assert!(dataset.files().contains_key("repository/textkit/clean.py"));
}

/// Reads of a README or `setup.cfg` are counted from the file: W0 keeps the repository's
/// text files beside its Python files, and leaves out binary and oversized ones.
#[test]
fn a_local_repository_keeps_its_text_files_for_line_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dataset");
    copy_dir(&score_fixture(), &dir);
    let repo = dir.join("repository");
    std::fs::write(repo.join("README.rst"), "textkit\n=======\n\nText tools.\n").unwrap();
    std::fs::write(repo.join("setup.cfg"), "[metadata]\nname = textkit\n").unwrap();
    std::fs::write(repo.join("logo.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    std::fs::write(repo.join("latin1.txt"), b"caf\xe9\n").unwrap();
    let big = "x".repeat(wheelwright_core::workspace::MAX_TEXT_FILE_BYTES + 1);
    std::fs::write(repo.join("data.csv"), big).unwrap();
    let dataset = load_dir(&dir).expect("a repository with data files is valid");
    let paths: Vec<&str> = dataset.repository_files["textkit"]
        .iter()
        .map(|(p, _)| p.as_str())
        .collect();
    assert_eq!(
        paths,
        [
            "README.rst",
            "setup.cfg",
            "textkit/__init__.py",
            "textkit/clean.py"
        ]
    );
    // The content hash covers them: they change what reads count.
    assert_ne!(
        dataset.content_hash(),
        load_dir(&score_fixture()).unwrap().content_hash()
    );
}

#[test]
fn a_dataset_names_the_agents_working_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dataset");
    copy_dir(&score_fixture(), &dir);
    assert_eq!(load_dir(&dir).unwrap().manifest.workdir, "/testbed");
    let manifest = dir.join("dataset.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    for (workdir, accepted) in [("/work/repo", true), ("repo", false), ("/a/../b", false)] {
        let with = text.replacen('{', &format!("{{\n  \"workdir\": {workdir:?},"), 1);
        std::fs::write(&manifest, with).unwrap();
        match load_dir(&dir) {
            Ok(dataset) => {
                assert!(accepted, "{workdir}");
                assert_eq!(dataset.manifest.workdir, workdir);
                assert_eq!(
                    dataset.to_score_dataset(Default::default()).workdir,
                    workdir
                );
            }
            Err(e) => {
                assert!(!accepted, "{workdir}: {e}");
                assert!(e.to_string().contains("\"workdir\""), "{e}");
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn a_local_repository_may_not_leave_the_dataset_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dataset");
    copy_dir(&score_fixture(), &dir);
    let outside = tmp.path().join("secret.py");
    std::fs::write(&outside, "SECRET = 1\n").unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("repository/textkit/secret.py")).unwrap();
    let err = load_dir(&dir).unwrap_err().to_string();
    assert!(
        err.contains(
            "repository/textkit/secret.py: is a symbolic link to outside the dataset directory"
        ),
        "{err}"
    );
    std::fs::remove_file(dir.join("repository/textkit/secret.py")).unwrap();
    let manifest = dir.join("dataset.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("\"repository\",", "\"../outside\","),
    )
    .unwrap();
    let err = load_dir(&dir).unwrap_err().to_string();
    assert!(
        err.contains("not a directory inside the dataset directory"),
        "{err}"
    );
}
