//! The parse floor of a set of Python files (tree-sitter parse plus one cursor walk of each) and of its trajectories (reading their JSON), timed (`scripts/bench/paper-scale` compares scoring with it).
//!
//! ```text
//! cargo run --release -p wheelwright-core --example parse_floor -- <file or directory>...
//! ```
//! Directories are searched for `*.py` files and for trajectories (`trajectory.json`,
//! `*.traj.json`). Every file is read first; only the parses are timed, on one thread: the
//! Python files as `wheelwright_core::syntax::parse_floor` does them, the trajectories as
//! `serde_json` reads JSON it throws away (`IgnoredAny`: every byte lexed, every string
//! checked, nothing kept), the least any scorer that reads them pays. Prints one line of
//! JSON: files, bytes, nodes, seconds, and json_files, json_bytes, json_seconds.

#![allow(clippy::print_stdout)] // The example reports on standard output.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::de::IgnoredAny;

use wheelwright_core::syntax::parse_floor;

fn is_trajectory(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == "trajectory.json" || n.ends_with(".traj.json"))
}

/// Every `*.py` file and trajectory under `path` (or `path` itself), in path order,
/// without recursion.
fn input_files(path: &Path, python: &mut Vec<PathBuf>, json: &mut Vec<PathBuf>) {
    let mut pending = vec![path.to_owned()];
    while let Some(path) = pending.pop() {
        if path.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .map(|e| e.expect("a directory entry").path())
                .collect();
            entries.sort();
            pending.extend(entries.into_iter().rev());
        } else if path.extension().is_some_and(|e| e == "py") {
            python.push(path);
        } else if is_trajectory(&path) {
            json.push(path);
        }
    }
}

fn main() {
    let mut paths = Vec::new();
    let mut json_paths = Vec::new();
    for arg in std::env::args().skip(1) {
        input_files(Path::new(&arg), &mut paths, &mut json_paths);
    }
    assert!(
        !paths.is_empty(),
        "no Python files: pass files or directories holding *.py files"
    );
    let read = |paths: &[PathBuf]| -> Vec<String> {
        paths
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
            .collect()
    };
    let texts = read(&paths);
    let bytes: usize = texts.iter().map(String::len).sum();
    let start = Instant::now();
    let nodes: usize = texts.iter().map(|t| parse_floor(t)).sum();
    let seconds = start.elapsed().as_secs_f64();
    drop(texts);
    let json = read(&json_paths);
    let json_bytes: usize = json.iter().map(String::len).sum();
    let start = Instant::now();
    for text in &json {
        serde_json::from_str::<IgnoredAny>(text)
            .unwrap_or_else(|e| panic!("a trajectory is not JSON: {e}"));
    }
    let json_seconds = start.elapsed().as_secs_f64();
    println!(
        "{{\"files\": {}, \"bytes\": {bytes}, \"nodes\": {nodes}, \"seconds\": {seconds:.4}, \"json_files\": {}, \"json_bytes\": {json_bytes}, \"json_seconds\": {json_seconds:.4}}}",
        paths.len(),
        json_paths.len()
    );
}
