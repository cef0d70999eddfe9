//! The parse floor of a set of Python files: tree-sitter parse plus one cursor walk of each, timed (`scripts/bench/paper-scale` compares scoring with it).
//!
//! ```text
//! cargo run --release -p wheelwright-core --example parse_floor -- <file or directory>...
//! ```
//! Directories are searched for `*.py` files. Every file is read first; only the parses
//! are timed, on one thread, as `wheelwright_core::syntax::parse_floor` does them. Prints
//! one line of JSON: files, bytes, nodes, seconds.

#![allow(clippy::print_stdout)] // The example reports on standard output.

use std::path::{Path, PathBuf};
use std::time::Instant;

use wheelwright_core::syntax::parse_floor;

/// Every `*.py` file under `path` (or `path` itself), in path order, without recursion.
fn python_files(path: &Path, out: &mut Vec<PathBuf>) {
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
            out.push(path);
        }
    }
}

fn main() {
    let mut paths = Vec::new();
    for arg in std::env::args().skip(1) {
        python_files(Path::new(&arg), &mut paths);
    }
    assert!(
        !paths.is_empty(),
        "no Python files: pass files or directories holding *.py files"
    );
    let texts: Vec<String> = paths
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let start = Instant::now();
    let nodes: usize = texts.iter().map(|t| parse_floor(t)).sum();
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{{\"files\": {}, \"bytes\": {bytes}, \"nodes\": {nodes}, \"seconds\": {seconds:.4}}}",
        texts.len()
    );
}
