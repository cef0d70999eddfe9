//! `wheelwright prepare`: real workspaces from the shipped dataset hold the repository without tests or history, the agent's earlier files and nothing of the judge's, and the package imports from them.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{copy_dir, files_under, real_dataset, stdout_of, wheelwright};
use wheelwright_core::workspace::why_removed;

/// A run bundle directory whose chain `chain` holds, for turns 1..=`turns`, an agent file
/// at each turn's module path saying which turn it is.
fn earlier_run(dir: &Path, dataset: &Path, chain: &str, turns: usize) -> BTreeMap<String, String> {
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dataset.join("dataset.json")).unwrap()).unwrap();
    let metadata = serde_json::json!({
        "model": "prepare-test", "harness": "by hand", "memory": "none", "date": "2026-12-04",
        "dataset": {"name": manifest["name"], "version": manifest["version"]},
    });
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("metadata.json"), metadata.to_string()).unwrap();
    let mut files = BTreeMap::new();
    for t in 1..=turns {
        let turn: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dataset.join(format!("chains/{chain}/turn-{t}/turn.json"))).unwrap(),
        )
        .unwrap();
        let path = turn["module_path"].as_str().unwrap().to_owned();
        let text = format!(
            "# the agent's own file of {chain} turn {t}\n\n\ndef helper_{t}():\n    return {t}\n"
        );
        let target = dir.join(format!("chains/{chain}/turn-{t}/files/{path}"));
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, &text).unwrap();
        files.insert(path, text);
    }
    files
}

/// The interpreter `prepare` says the package imports with.
fn python_of(stdout: &str) -> PathBuf {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("the package imports from it with "))
        .unwrap_or_else(|| panic!("no interpreter named in {stdout}"));
    let rest = line.trim_start_matches("the package imports from it with ");
    PathBuf::from(rest.split(" (PYTHONPATH=").next().unwrap())
}

/// Checks the workspace `dir` of `turn` of `chain`: the agent's files `earlier` as given,
/// no reference solution, hidden test, test file or history, and `import` importing from it.
fn check_workspace(
    dir: &Path,
    dataset: &Path,
    chain: &str,
    turn: usize,
    earlier: &BTreeMap<String, String>,
    python: &Path,
    import: &str,
) {
    let files = files_under(dir);
    for (path, text) in earlier {
        assert_eq!(
            files.get(path).map(Vec::as_slice),
            Some(text.as_bytes()),
            "{chain} turn {turn}: the agent's {path}"
        );
    }
    for path in files.keys() {
        assert_eq!(
            why_removed(path),
            None,
            "{chain} turn {turn}: {path} is left in"
        );
        assert!(!path.split('/').any(|p| p == ".git"), "{path}");
    }
    // Nothing of the judge's: no reference solution (of any turn), no hidden test file, no
    // cases or expected values, and no file at the module path the agent must write.
    let judge_dir = dataset.join(format!("chains/{chain}"));
    for (path, bytes) in files_under(&judge_dir) {
        let from_judge = path.ends_with("reference.py")
            || path.contains("/tests/")
            || path.ends_with("cases.json")
            || path.ends_with("expected.json");
        if from_judge && bytes.len() > 40 {
            assert!(
                !files.values().any(|b| *b == bytes),
                "{chain} turn {turn}: the judge's {path} is in the workspace"
            );
        }
    }
    let turn_json: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dataset.join(format!("chains/{chain}/turn-{turn}/turn.json"))).unwrap(),
    )
    .unwrap();
    assert!(!files.contains_key(turn_json["module_path"].as_str().unwrap()));
    let imported = std::process::Command::new(python)
        .args([
            "-c",
            &format!("import {import}, os; print(os.path.realpath({import}.__file__))"),
        ])
        .current_dir(dir)
        .env("PYTHONPATH", dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    let from = PathBuf::from(String::from_utf8(imported.stdout).unwrap().trim());
    assert!(
        from.starts_with(dir.canonicalize().unwrap()),
        "{import} came from {}",
        from.display()
    );
}

#[test]
fn every_chain_of_the_shipped_dataset_gets_a_clean_workspace_with_the_agents_files() {
    let dataset = real_dataset();
    let tmp = tempfile::tempdir().unwrap();
    for chain in [
        "road-audit",
        "social-circles",
        "build-graph",
        "pipeline-capacity",
    ] {
        let run = tmp.path().join(format!("{chain}-run"));
        let earlier = earlier_run(&run, &dataset, chain, 4);
        for (turn, with_run) in [(1, false), (5, true)] {
            let out = tmp.path().join(format!("{chain}-{turn}"));
            let mut args = vec![
                "prepare",
                "--dataset",
                dataset.to_str().unwrap(),
                "--chain",
                chain,
                "--turn",
                if turn == 1 { "1" } else { "5" },
                "--out",
                out.to_str().unwrap(),
            ];
            if with_run {
                args.extend(["--run", run.to_str().unwrap()]);
            }
            let stdout = stdout_of(&args);
            assert!(stdout.contains("test files removed"), "{stdout}");
            let removed: usize = stdout
                .lines()
                .next()
                .unwrap_or_default()
                .split(", ")
                .find_map(|p| p.strip_suffix(" test files removed"))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or_else(|| panic!("{stdout}"));
            // networkx 3.4.2 ships its tests in the wheel: 259 files, all removed.
            assert_eq!(removed, 259, "{stdout}");
            let given = if with_run {
                earlier.clone()
            } else {
                BTreeMap::new()
            };
            check_workspace(
                &out,
                &dataset,
                chain,
                turn,
                &given,
                &python_of(&stdout),
                "networkx",
            );
        }
    }
}

#[test]
fn test_files_the_package_imports_stay_and_the_others_go() {
    let tmp = tempfile::tempdir().unwrap();
    let dataset = tmp.path().join("dataset");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/score");
    copy_dir(&fixture.join("dataset"), &dataset);
    let package = dataset.join("repository/textkit");
    std::fs::write(package.join("test_support.py"), "SAMPLE = 'a b'\n").unwrap();
    let init = std::fs::read_to_string(package.join("__init__.py")).unwrap();
    std::fs::write(
        package.join("__init__.py"),
        format!("{init}from . import test_support\n"),
    )
    .unwrap();
    std::fs::write(package.join("conftest.py"), "import pytest\n").unwrap();
    std::fs::create_dir_all(package.join("tests")).unwrap();
    std::fs::write(package.join("tests/__init__.py"), "").unwrap();
    std::fs::write(
        package.join("tests/test_clean.py"),
        "def test_x():\n    pass\n",
    )
    .unwrap();
    // History and a cached test listing, as a checkout holds them.
    std::fs::create_dir_all(dataset.join("repository/.git")).unwrap();
    std::fs::write(
        dataset.join("repository/.git/HEAD"),
        "ref: refs/heads/main\n",
    )
    .unwrap();
    std::fs::create_dir_all(package.join(".pytest_cache/v/cache")).unwrap();
    std::fs::write(
        package.join(".pytest_cache/v/cache/nodeids"),
        "[\"tests/test_clean.py::test_x\"]\n",
    )
    .unwrap();
    let out = tmp.path().join("workspace");
    let stdout = stdout_of(&[
        "prepare",
        "--dataset",
        dataset.to_str().unwrap(),
        "--chain",
        "slugs",
        "--turn",
        "2",
        "--run",
        fixture.join("run").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        stdout.contains("2 test files removed, 1 kept because the package imports them (textkit/test_support.py)"),
        "{stdout}"
    );
    let files: Vec<String> = files_under(&out).into_keys().collect();
    assert_eq!(
        files,
        [
            "textkit/__init__.py",
            "textkit/clean.py",
            "textkit/slug.py",
            "textkit/test_support.py",
            "textkit/tests/__init__.py",
        ]
    );
}

#[test]
fn a_turn_or_chain_the_dataset_lacks_and_a_used_directory_are_refused() {
    let dataset = real_dataset();
    let tmp = tempfile::tempdir().unwrap();
    let used = tmp.path().join("used");
    std::fs::create_dir_all(&used).unwrap();
    std::fs::write(used.join("x"), "").unwrap();
    let fresh = tmp.path().join("fresh");
    for (args, words) in [
        (
            vec![
                "--chain",
                "nope",
                "--turn",
                "1",
                "--out",
                fresh.to_str().unwrap(),
            ],
            "has no chain \"nope\"; its chains are road-audit",
        ),
        (
            vec![
                "--chain",
                "build-graph",
                "--turn",
                "6",
                "--out",
                fresh.to_str().unwrap(),
            ],
            "chain build-graph has turns 1 to 5; --turn 6",
        ),
        (
            vec![
                "--chain",
                "build-graph",
                "--turn",
                "1",
                "--out",
                used.to_str().unwrap(),
            ],
            "is not empty; give a new or empty directory",
        ),
    ] {
        let mut all = vec!["prepare", "--dataset", dataset.to_str().unwrap()];
        all.extend(args);
        let out = wheelwright(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(stderr.contains(words), "{all:?}: {stderr}");
    }
    assert!(!fresh.exists());
}
