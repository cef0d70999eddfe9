//! The real trajectories tests and benches read: the vendored few, and the optional full set.
//!
//! `tests/fixtures/real/` holds, in the repository, the twelve gemini-3-pro mini-SWE-agent
//! trajectories the tests check (gzip-compressed) and mini-SWE-agent's own format fixtures
//! (see its README for their public source), so a plain clone passes every test. The full
//! set of 70 is read from `../shared/data/real/` when that folder sits beside the repository;
//! checks over it are skipped, with a printed line, when it does not.
//!
//! Shared by `core`'s tests and benches and `server`'s storage bench (through `#[path]`),
//! so each of them uses only part of it.
#![allow(dead_code, unreachable_pub, clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The vendored trajectories: `<instance id>.traj.json.gz`.
pub const VENDORED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/tests/fixtures/real/gemini-3-pro"
);
/// mini-SWE-agent's own trajectory fixtures (its `tests/test_data/`), vendored as they are.
pub const MINI_SWE_AGENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/tests/fixtures/real/mini-swe-agent"
);
/// The full set of 70, outside the repository: present on developers' machines and in CI.
pub const SHARED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/data/real/swebench-bash-only-gemini-3-pro/swebench_results/20251118_gemini-3-pro-74pct/trajs"
);

/// How many trajectories the full set holds.
pub const SHARED_COUNT: usize = 70;

/// The vendored instance ids, sorted.
pub fn vendored_ids() -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(VENDORED)
        .expect("the vendored trajectories (core/tests/fixtures/real/gemini-3-pro)")
        .map(|e| {
            e.expect("directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter_map(|name| name.strip_suffix(".traj.json.gz").map(str::to_owned))
        .collect();
    ids.sort();
    ids
}

/// The text of the vendored trajectory of `id`, decompressed.
pub fn vendored(id: &str) -> String {
    let path = Path::new(VENDORED).join(format!("{id}.traj.json.gz"));
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text
}

/// Every vendored trajectory: (instance id, text), sorted by id.
pub fn vendored_all() -> Vec<(String, String)> {
    vendored_ids()
        .into_iter()
        .map(|id| {
            let text = vendored(&id);
            (id, text)
        })
        .collect()
}

/// The paths of the full set's `*.traj.json` files, sorted; `None` (after printing why the
/// caller's check is skipped) when `../shared` is not beside the repository.
pub fn shared_paths(check: &str) -> Option<Vec<PathBuf>> {
    let Ok(dirs) = std::fs::read_dir(SHARED) else {
        println!(
            "skipped {check}: ../shared/data/real/ (the full set of {SHARED_COUNT} real trajectories) is not beside the repository ({SHARED})"
        );
        return None;
    };
    let mut out = Vec::new();
    for dir in dirs {
        let dir = dir.expect("dir entry").path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("instance folder") {
            let f = f.expect("entry").path();
            if f.to_string_lossy().ends_with(".traj.json") {
                out.push(f);
            }
        }
    }
    out.sort();
    Some(out)
}

/// The texts for a bench: the full set when present, else the vendored ones (saying so on
/// standard error, since the bench's numbers then describe a different mix).
pub fn bench_texts() -> Vec<String> {
    if let Some(paths) = shared_paths("the full set in this bench") {
        return paths
            .iter()
            .map(|p| std::fs::read_to_string(p).expect("readable trajectory"))
            .collect();
    }
    let texts: Vec<String> = vendored_all().into_iter().map(|(_, t)| t).collect();
    eprintln!(
        "using the {} vendored trajectories of core/tests/fixtures/real/, cycled, instead of the {SHARED_COUNT} of ../shared",
        texts.len()
    );
    texts
}

/// This machine's Python standard library (real library modules of real size, which the
/// benches index and store), as `python3` reports it.
pub fn stdlib() -> PathBuf {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("python3 must be on PATH to find the standard library");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// The Python sources of `packages` of [`stdlib`] (tests left out), by path relative to the
/// standard library's root (`json/decoder.py`).
pub fn stdlib_packages(packages: &[&str]) -> BTreeMap<String, String> {
    let root = stdlib();
    let mut files = BTreeMap::new();
    let mut pending: Vec<PathBuf> = packages.iter().map(|p| root.join(p)).collect();
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("a standard-library package") {
            let path = entry.expect("an entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with("test") && name != "__pycache__" {
                    pending.push(path);
                }
            } else if name.ends_with(".py")
                && !name.starts_with("test")
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                let rel = path.strip_prefix(&root).unwrap().to_string_lossy();
                files.insert(rel.into_owned(), text);
            }
        }
    }
    files
}

/// The files of the real gemini-3-pro run, (path relative to the run's folder, bytes),
/// sorted: the full run of `../shared` (70 trajectories, their reports, its predictions)
/// when present, else the vendored twelve and their reports (saying so on standard error).
pub fn run_files() -> Vec<(String, Vec<u8>)> {
    let shared = Path::new(SHARED).parent().map(Path::to_path_buf);
    let root = match shared.filter(|p| p.is_dir()) {
        Some(root) => root,
        None => {
            eprintln!(
                "using the vendored run of core/tests/fixtures/real/gemini-3-pro, not the full one of ../shared"
            );
            PathBuf::from(VENDORED)
        }
    };
    files_under(&root)
}

/// Every file under `root`, (path relative to `root` with `/`, bytes), sorted: a run
/// folder as the command line reads it.
pub fn files_under(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_owned()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).expect("the run folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let name = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.push((name, std::fs::read(&path).expect("a run file")));
            }
        }
    }
    files.sort();
    files
}
