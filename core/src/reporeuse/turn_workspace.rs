//! The files of the workspace an agent gets for a RepoReuse turn (W_{t-1}): the repository without its tests or history, plus the agent's own files of earlier turns.
//!
//! The agent must find the repository's functions by reading its code, not its tests (a
//! test shows how to call the very function the turn's hidden tests are built around), so
//! every test file is removed, one file at a time: a test directory's other files (data,
//! `__init__.py`, helpers) stay, and so does any test-named file the package itself imports
//! when it is imported (found by importing it: the caller passes that set). Which files are tests is
//! [`why_removed`]'s to say, shared with ReCUBE's instances. Reference
//! solutions never enter: the earlier files are the agent's own.
//!
//! ```
//! use std::collections::{BTreeMap, BTreeSet};
//! use wheelwright_core::reporeuse::turn_workspace::turn_workspace;
//! use wheelwright_core::workspace::why_removed;
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

use crate::workspace::why_removed;

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
