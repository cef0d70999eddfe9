//! The files of the workspace an agent gets for a RepoReuse turn (W_{t-1}): the repository without its tests or history, plus the agent's own files of earlier turns.
//!
//! The agent must find the repository's functions by reading its code, not its tests (a
//! test shows how to call the very function the turn's hidden tests are built around), so
//! every test file is removed, one file at a time: a test directory's other files (data,
//! `__init__.py`, helpers) stay, and so does any test-named file the package itself imports
//! when it is imported (found by importing it: the caller passes that set). Reference
//! solutions never enter: the earlier files are the agent's own.
//!
//! ```
//! use std::collections::{BTreeMap, BTreeSet};
//! use wheelwright_core::reporeuse::turn_workspace::{turn_workspace, why_removed};
//!
//! assert_eq!(why_removed("pkg/tests/test_core.py"), Some("a test file"));
//! assert_eq!(why_removed("pkg/tests/__init__.py"), None);
//! let repository = BTreeMap::from([
//!     ("pkg/__init__.py".to_owned(), "from pkg import core\n".to_owned()),
//!     ("pkg/conftest.py".to_owned(), "import pytest\n".to_owned()),
//! ]);
//! let earlier = [("solutions/one.py".to_owned(), "def f():\n    pass\n".to_owned())];
//! let w = turn_workspace(&repository, &BTreeSet::new(), &earlier);
//! assert_eq!(w.files.keys().collect::<Vec<_>>(), ["pkg/__init__.py", "solutions/one.py"]);
//! assert_eq!(w.removed, ["pkg/conftest.py"]);
//! ```

use std::collections::{BTreeMap, BTreeSet};

/// Directories whose whole content is dropped: version-control history and the caches of
/// test runners (which list the tests that were removed).
const DROPPED_DIRECTORIES: [(&str, &str); 9] = [
    (".git", "version-control history"),
    (".hg", "version-control history"),
    (".svn", "version-control history"),
    (".pytest_cache", "a cached test listing"),
    (".hypothesis", "a cached test listing"),
    (".tox", "a cached test listing"),
    (".nox", "a cached test listing"),
    ("__pycache__", "compiled cache"),
    (".mypy_cache", "compiled cache"),
];

/// Files that record which tests exist or ran.
const DROPPED_FILES: [&str; 3] = [".noseids", ".testmondata", ".coverage"];

/// Why `path` (relative to the repository root) is left out of an agent's workspace, or
/// `None` when it stays: test files (`test_*.py`, `*_test.py`, `conftest.py`), anything
/// under version-control or test-cache directories, and cached test listings.
pub fn why_removed(path: &str) -> Option<&'static str> {
    let mut parts = path.split('/');
    let name = parts.next_back().unwrap_or(path);
    for dir in parts {
        if let Some((_, why)) = DROPPED_DIRECTORIES.iter().find(|(d, _)| *d == dir) {
            return Some(why);
        }
    }
    if DROPPED_FILES.contains(&name) {
        return Some("a cached test listing");
    }
    let is_test = name == "conftest.py"
        || (name.starts_with("test_") && name.ends_with(".py"))
        || name.ends_with("_test.py");
    is_test.then_some("a test file")
}

/// The files of one turn's workspace and what was left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TurnWorkspace {
    /// Every file by path relative to the workspace root.
    pub files: BTreeMap<String, String>,
    /// The repository's files left out ([`why_removed`]), sorted.
    pub removed: Vec<String>,
    /// Test-named files kept because the package imports them when it is imported.
    pub kept_imported: Vec<String>,
}

/// W_{t-1}: `repository`'s files without the ones [`why_removed`] names (except those in
/// `imported`, which the package needs at run time), then `earlier`, the agent's own files
/// of turns 1..t-1 in order (a later turn's file replaces an earlier one at the same path).
pub fn turn_workspace(
    repository: &BTreeMap<String, String>,
    imported: &BTreeSet<String>,
    earlier: &[(String, String)],
) -> TurnWorkspace {
    let mut out = TurnWorkspace::default();
    for (path, text) in repository {
        match why_removed(path) {
            Some(_) if imported.contains(path) => {
                out.kept_imported.push(path.clone());
                out.files.insert(path.clone(), text.clone());
            }
            Some(_) => out.removed.push(path.clone()),
            None => {
                out.files.insert(path.clone(), text.clone());
            }
        }
    }
    for (path, text) in earlier {
        out.files.insert(path.clone(), text.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_are_named_by_their_file_name_only() {
        for (path, expected) in [
            ("networkx/algorithms/tests/test_dag.py", Some("a test file")),
            ("networkx/conftest.py", Some("a test file")),
            ("pkg/io_test.py", Some("a test file")),
            ("pkg/tests/__init__.py", None),
            ("pkg/tests/data/graph.txt", None),
            ("pkg/testing.py", None),
            ("pkg/test_data.json", None),
            ("pkg/contest.py", None),
            ("pkg/attest_py.py", None),
            (".git/HEAD", Some("version-control history")),
            (
                "pkg/.pytest_cache/v/cache/nodeids",
                Some("a cached test listing"),
            ),
            (".noseids", Some("a cached test listing")),
            (
                "pkg/__pycache__/core.cpython-312.pyc",
                Some("compiled cache"),
            ),
        ] {
            assert_eq!(why_removed(path), expected, "{path}");
        }
    }

    #[test]
    fn imported_test_files_stay_and_later_turns_replace_earlier_files() {
        let repository = BTreeMap::from([
            ("pkg/__init__.py".to_owned(), String::new()),
            ("pkg/test_helpers.py".to_owned(), "x = 1\n".to_owned()),
            ("pkg/tests/test_a.py".to_owned(), String::new()),
        ]);
        let imported = BTreeSet::from(["pkg/test_helpers.py".to_owned()]);
        let earlier = [
            ("s/a.py".to_owned(), "one".to_owned()),
            ("s/a.py".to_owned(), "two".to_owned()),
        ];
        let w = turn_workspace(&repository, &imported, &earlier);
        assert_eq!(w.kept_imported, ["pkg/test_helpers.py"]);
        assert_eq!(w.removed, ["pkg/tests/test_a.py"]);
        assert_eq!(w.files["s/a.py"], "two");
        assert_eq!(w.files.len(), 3);
    }
}
