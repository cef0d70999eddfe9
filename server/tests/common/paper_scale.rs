//! A paper-scale RepoReuse run made from the shipped dataset, as `scripts/bench/paper-scale-gen.py` makes one, without Python or anything outside a plain clone.
//!
//! Each of `chains` chains is a copy of one of the shipped four under its own package
//! (`solutions/road_audit_0007`), and each turn submits its reference or, every third turn,
//! a module of networkx (1 to 8 KB, cycled with a stride so sizes mix); every
//! `TRAJECTORY_EVERY`th turn carries one of the vendored real trajectories
//! (`core/tests/fixtures/real/gemini-3-pro`). Needs the networkx wheel in the cache, as
//! every test over the shipped dataset does. Shared by the server's tests and the
//! end-to-end tests (`#[path]`), so it names nothing of either's helpers.
#![allow(dead_code, unreachable_pub)] // Each test binary uses a different part of this module.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The workspace's root (both crates that include this file are one level below it).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Copies a directory tree.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Chains of five turns: 750 turns, twice a paper run.
pub const CHAINS: usize = 150;
/// One turn in this many carries a real trajectory.
pub const TRAJECTORY_EVERY: usize = 25;

/// `text` with the base chain's package renamed to its copy's, as paths and dotted names.
fn rename(text: &str, old: &str, new: &str) -> String {
    text.replace(old, new)
        .replace(&old.replace('/', "."), &new.replace('/', "."))
}

/// Copies the tree `from` to `to`, renaming the package in every file.
fn copy_renamed(from: &Path, to: &Path, old: &str, new: &str) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_renamed(&entry.path(), &target, old, new);
        } else if entry.path().extension().is_none_or(|e| e != "pyc") {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            std::fs::write(&target, rename(&text, old, new)).unwrap();
        }
    }
}

/// Writes the dataset `paper-scale-networkx` of `chains` chains under `out` and returns its
/// (chain, turn)s in order.
pub fn write_dataset(out: &Path, chains: usize) -> Vec<(String, usize)> {
    let source = root().join("datasets/reporeuse-networkx");
    let read = |path: PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let mut manifest = read(source.join("dataset.json"));
    let bases: Vec<String> = manifest["chains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    let mut ids = Vec::new();
    let mut turns = Vec::new();
    for k in 0..chains {
        let base = &bases[k % bases.len()];
        let id = format!("{base}-{k:04}");
        let mut chain = read(source.join("chains").join(base).join("chain.json"));
        let old = chain["package"].as_str().unwrap().to_owned();
        let new = format!("{old}_{k:04}");
        chain["id"] = id.clone().into();
        chain["package"] = new.clone().into();
        let dir = out.join("chains").join(&id);
        copy_renamed(&source.join("chains").join(base), &dir, &old, &new);
        std::fs::write(dir.join("chain.json"), chain.to_string()).unwrap();
        let mut t = 1;
        while dir.join(format!("turn-{t}")).is_dir() {
            turns.push((id.clone(), t));
            t += 1;
        }
        ids.push(id);
    }
    copy_dir(&source.join("tools"), &out.join("tools"));
    manifest["name"] = "paper-scale-networkx".into();
    manifest["chains"] = ids.into();
    std::fs::write(out.join("dataset.json"), manifest.to_string()).unwrap();
    turns
}

/// The vendored real trajectories' texts, sorted by name.
fn trajectories() -> Vec<String> {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/real/gemini-3-pro");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".traj.json.gz"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let mut text = String::new();
            flate2::read::GzDecoder::new(std::fs::File::open(p).unwrap())
                .read_to_string(&mut text)
                .unwrap();
            text
        })
        .collect()
}

/// The run bundle as JSON Lines: each turn submits its reference, or every third turn a
/// module of networkx (cycled with a stride, so sizes mix), and every
/// `trajectory_every`th turn carries a real trajectory ([`TRAJECTORY_EVERY`] keeps it
/// quick; 2 gives a paper run's worth, 375 turns with trajectories, in 750).
pub fn write_bundle(
    dataset_dir: &Path,
    turns: &[(String, usize)],
    trajectory_every: usize,
) -> String {
    let dataset = wheelwright_server::dataset::load_dir(dataset_dir).unwrap();
    let repository = wheelwright_server::dataset::repository_sources(
        &dataset,
        &wheelwright_server::dataset::default_cache_dir(),
        Path::new("python3"),
    )
    .expect("the networkx wheel (`wheelwright dataset fetch`)")
    .remove("networkx")
    .unwrap();
    // Modules of 1 to 8 KB: real code, small enough to keep the test quick.
    let modules: Vec<&String> = repository
        .iter()
        .filter(|(path, text)| !path.contains("/tests/") && (1024..8192).contains(&text.len()))
        .map(|(_, text)| text)
        .collect();
    assert!(modules.len() > 50, "{} modules", modules.len());
    let trajectories = trajectories();
    let mut lines = vec![
        serde_json::json!({"metadata": {
            "model": "paper-scale", "harness": "mini-SWE-agent", "memory": "none",
            "date": "2026-12-01",
            "dataset": {"name": "paper-scale-networkx", "version": "1"}}})
        .to_string(),
    ];
    for (n, (chain, t)) in turns.iter().enumerate() {
        let spec = &dataset
            .chains
            .iter()
            .find(|c| &c.manifest.id == chain)
            .unwrap()
            .turns[t - 1];
        let submission = if n % 3 == 2 {
            modules[(n * 37) % modules.len()].as_str()
        } else {
            spec.reference.as_str()
        };
        let mut line = serde_json::json!({
            "instance_id": format!("{chain}/turn-{t}"),
            "files": {spec.manifest.module_path.clone(): submission},
        });
        if n % trajectory_every == 0 {
            let text = &trajectories[(n / trajectory_every) % trajectories.len()];
            line["trajectory"] = serde_json::from_str(text).unwrap();
        }
        lines.push(line.to_string());
    }
    lines.join("\n") + "\n"
}
