//! The exception classes the host knows, and which derives from which: Python's built-in ones and those of the repository's package, read from its source.
//!
//! A case that expects an exception passes when the call raised the expected class or one
//! derived from it, as `pytest.raises` decides. The sandbox says which class was raised,
//! `module.qualname`; which classes that one derives from is decided here, never taken
//! from the sandbox, where any class can be made to list every exception as its base.
//! Built-in exceptions come from a table of Python's hierarchy; the repository's classes
//! from its index ([`RepoIndex::class_bases`]), bases resolved through its imports. A class
//! the host does not know (one the submission defines) derives from nothing but itself.
//!
//! Example:
//!
//! ```
//! use wheelwright_core::hidden_tests::compare::ExceptionClasses;
//! use wheelwright_core::python::index::{IndexOptions, RepoIndex};
//! use wheelwright_core::workspace::Workspace;
//! let mut repository = Workspace::new();
//! repository.insert("pkg/errors.py", "class PkgError(ValueError):\n    pass\n\nclass Missing(PkgError):\n    pass\n");
//! let index = RepoIndex::build(&repository, &IndexOptions::default());
//! let classes = ExceptionClasses::of_repository(&index, "pkg");
//! assert!(classes.derives("pkg.errors.Missing", "PkgError"));
//! assert!(classes.derives("pkg.errors.Missing", "ValueError"));
//! assert!(!classes.derives("pkg.errors.PkgError", "Missing"));
//! // A class of the submission's own is only itself, whatever bases it claims.
//! assert!(!classes.derives("solutions.mine.Anything", "PkgError"));
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::python::index::RepoIndex;

/// Python's built-in exceptions and their base (3.11 to 3.13), the hierarchy the host
/// knows without asking the sandbox.
const BUILTIN_EXCEPTIONS: &[(&str, &str)] = &[
    ("BaseExceptionGroup", "BaseException"),
    ("GeneratorExit", "BaseException"),
    ("KeyboardInterrupt", "BaseException"),
    ("SystemExit", "BaseException"),
    ("Exception", "BaseException"),
    ("ArithmeticError", "Exception"),
    ("FloatingPointError", "ArithmeticError"),
    ("OverflowError", "ArithmeticError"),
    ("ZeroDivisionError", "ArithmeticError"),
    ("AssertionError", "Exception"),
    ("AttributeError", "Exception"),
    ("BufferError", "Exception"),
    ("EOFError", "Exception"),
    ("ExceptionGroup", "Exception"),
    ("ImportError", "Exception"),
    ("ModuleNotFoundError", "ImportError"),
    ("LookupError", "Exception"),
    ("IndexError", "LookupError"),
    ("KeyError", "LookupError"),
    ("MemoryError", "Exception"),
    ("NameError", "Exception"),
    ("UnboundLocalError", "NameError"),
    ("OSError", "Exception"),
    ("BlockingIOError", "OSError"),
    ("ChildProcessError", "OSError"),
    ("ConnectionError", "OSError"),
    ("BrokenPipeError", "ConnectionError"),
    ("ConnectionAbortedError", "ConnectionError"),
    ("ConnectionRefusedError", "ConnectionError"),
    ("ConnectionResetError", "ConnectionError"),
    ("FileExistsError", "OSError"),
    ("FileNotFoundError", "OSError"),
    ("InterruptedError", "OSError"),
    ("IsADirectoryError", "OSError"),
    ("NotADirectoryError", "OSError"),
    ("PermissionError", "OSError"),
    ("ProcessLookupError", "OSError"),
    ("TimeoutError", "OSError"),
    ("ReferenceError", "Exception"),
    ("RuntimeError", "Exception"),
    ("NotImplementedError", "RuntimeError"),
    ("RecursionError", "RuntimeError"),
    ("StopAsyncIteration", "Exception"),
    ("StopIteration", "Exception"),
    ("SyntaxError", "Exception"),
    ("IndentationError", "SyntaxError"),
    ("TabError", "IndentationError"),
    ("SystemError", "Exception"),
    ("TypeError", "Exception"),
    ("ValueError", "Exception"),
    ("UnicodeError", "ValueError"),
    ("UnicodeDecodeError", "UnicodeError"),
    ("UnicodeEncodeError", "UnicodeError"),
    ("UnicodeTranslateError", "UnicodeError"),
    ("Warning", "Exception"),
];

/// The exception classes the host knows: the built-in ones, and the repository's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExceptionClasses {
    /// The repository's import package: an expected class is looked for in it or in
    /// `builtins`.
    package: String,
    /// The repository's classes (`pkg.mod.Class`) and their bases as resolved; shared, since
    /// every turn's suite of a dataset holds the same.
    repository: Arc<BTreeMap<String, Vec<String>>>,
}

impl ExceptionClasses {
    /// Only the built-in hierarchy: the repository's own classes derive from nothing but
    /// themselves.
    pub fn builtins(package: &str) -> Self {
        Self {
            package: package.to_owned(),
            repository: Arc::default(),
        }
    }

    /// The built-in hierarchy and the classes of the repository `index` holds.
    pub fn of_repository(index: &RepoIndex, package: &str) -> Self {
        Self {
            package: package.to_owned(),
            repository: Arc::new(index.class_bases().into_iter().collect()),
        }
    }

    /// Whether the class `raised` (`module.qualname`) is the expected class named `want`
    /// (defined in `builtins` or the repository's package) or derives from it.
    pub fn derives(&self, raised: &str, want: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut queue = vec![raised.to_owned()];
        while let Some(class) = queue.pop() {
            if !seen.insert(class.clone()) {
                continue;
            }
            // A bare name is no class's `module.qualname`: it names nothing here.
            let (module, name) = class.rsplit_once('.').unwrap_or(("", &class));
            if name == want && self.is_ours(module) {
                return true;
            }
            if module == "builtins" {
                if let Some((_, parent)) = BUILTIN_EXCEPTIONS.iter().find(|(c, _)| *c == name) {
                    queue.push(format!("builtins.{parent}"));
                }
            } else if let Some(bases) = self.repository.get(&class) {
                // A base named as written (`Exception`) is a built-in one.
                queue.extend(bases.iter().map(|b| {
                    if b.contains('.') {
                        b.clone()
                    } else {
                        format!("builtins.{b}")
                    }
                }));
            }
        }
        false
    }

    /// Whether a class of `module` can be the expected one: built in, or the package's.
    fn is_ours(&self, module: &str) -> bool {
        module == "builtins"
            || module == self.package
            || module
                .strip_prefix(self.package.as_str())
                .is_some_and(|rest| rest.starts_with('.'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_exceptions_derive_as_python_says() {
        let classes = ExceptionClasses::builtins("pkg");
        for (raised, want, derives) in [
            ("builtins.KeyError", "LookupError", true),
            ("builtins.KeyError", "KeyError", true),
            ("builtins.UnicodeDecodeError", "ValueError", true),
            ("builtins.TabError", "SyntaxError", true),
            ("builtins.ValueError", "KeyError", false),
            ("builtins.Exception", "ValueError", false),
            ("pkg.errors.Mine", "Mine", true),
            ("other.Mine", "Mine", false),
            ("builtins.NotAnException", "Exception", false),
            ("KeyError", "KeyError", false),
        ] {
            assert_eq!(classes.derives(raised, want), derives, "{raised} {want}");
        }
    }
}
