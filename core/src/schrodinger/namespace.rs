//! Level 2 of SchrodingerRepo (spec 3): the names a repository owns, and a seeded one-to-one mapping of them onto names built from other words.
//!
//! A mapping is made for one of two [`Mode`]s. The *virtual* namespace (paper §III-C) is
//! never written out: the agent sees it through the translator ([`super::translate`]), its
//! commands run on the untouched original, so a name the code reaches by text (in a
//! string, `__all__`, a config file) is renamed too. It maps the repository's top-level
//! classes, functions and module-level variables, the methods of its classes, its module
//! and package names and its distribution name. The *materialised* view (how level 3
//! ships, [`super::view`]) rewrites the files, so it cannot rename what the code reaches by
//! text: it maps no method and leaves out every name written in a string or config file.
//!
//! Left out in both modes, each with a [`Reason`] in the mapping: keywords, builtins,
//! dunders and standard-library module names; names the repository imports from or
//! reaches through code it does not own (`os.path.join` leaves `join` alone); names tools
//! read by name ([`Reason::ToolName`]: pytest hooks and fixtures, Sphinx's `conf.py`
//! variables, `setup.py` and config-file keys, entry-point groups); and methods that
//! override code the repository does not own ([`Reason::Override`]: a method of a class
//! whose base is not the repository's, or a method name of a built-in type such as `get`
//! or `read`, which standard-library code calls by name). The materialised view also
//! leaves out method names, keyword-argument names, attributes of values it cannot place,
//! and every name written in a string or a `.toml`, `.cfg` or `.ini` file.
//!
//! Each subword of the kept names ([`super::subwords`]) maps to a word of the shipped list
//! ([`super::words`]), the same subword always to the same word, and each name is rebuilt in
//! its convention. Words that appear anywhere in the repository are never drawn, so no view
//! name can equal an existing name and every view name occurs in a view only where it was
//! put: turning a view back is a whole-word replacement. Example:
//! ```
//! use std::collections::BTreeMap;
//! use wheelwright_core::schrodinger::namespace::NamespaceMapping;
//! let files = BTreeMap::from([
//!     ("pkg/__init__.py".to_owned(), "from pkg.version import parse_version\n".to_owned()),
//!     ("pkg/version.py".to_owned(), "import os\n\ndef parse_version(s):\n    return os.path.join(s)\n".to_owned()),
//! ]);
//! let mapping = NamespaceMapping::build(&files, 1);
//! let view = &mapping.names["parse_version"];
//! assert_eq!(view.matches('_').count(), 1);
//! assert!(!mapping.names.contains_key("join") && !mapping.names.contains_key("os"));
//! assert_eq!(mapping.view_path("pkg/version.py"), format!("{}/{}.py", mapping.names["pkg"], mapping.names["version"]));
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::subwords;
use super::words;
use crate::python::builtins::is_builtin;
use crate::python::rewrite::{self, Edit};
use crate::python::stdlib::{is_keyword, is_stdlib_module};
use crate::syntax::{self, Field, Kind, SyntaxTree};

/// The version of the mapping's serialised form.
pub const MAPPING_FORMAT: u32 = 1;

/// Subwords that keep their meaning for tools: test discovery finds `test_*` files and
/// functions and `conftest.py`; `setup.py` and `__main__` are found by name.
const KEPT_WORDS: &[&str] = &["conftest", "main", "setup", "teardown", "test", "tests"];

/// Names tools look up by name: test runners' (pytest's marks, plugins and hooks,
/// unittest's `load_tests`, nose-style module fixtures; `pytest_` starts every hook), the
/// fixtures pytest itself provides (a test asks for them by parameter name), and the
/// entry-point groups packaging tools read. `pytest_` starts every hook.
const TOOL_NAMES: &[&str] = &[
    "load_tests",
    "pytestmark",
    "setup_function",
    "setup_module",
    "teardown_function",
    "teardown_module",
    // pytest's own fixtures.
    "cache",
    "capfd",
    "capfdbinary",
    "caplog",
    "capsys",
    "capsysbinary",
    "doctest_namespace",
    "monkeypatch",
    "pytestconfig",
    "record_property",
    "record_testsuite_property",
    "record_xml_attribute",
    "recwarn",
    "request",
    "testdir",
    "tmp_path",
    "tmp_path_factory",
    "tmpdir",
    "tmpdir_factory",
    // Entry-point groups.
    "console_scripts",
    "gui_scripts",
    "pytest11",
];

/// Files whose module-level names a tool reads by name: Sphinx reads `conf.py`'s variables
/// (`extensions`, `html_theme`), setuptools runs `setup.py`, nox and tox read `noxfile.py`.
const TOOL_FILES: &[&str] = &["conf.py", "setup.py", "noxfile.py"];

fn is_tool_name(name: &str) -> bool {
    TOOL_NAMES.contains(&name) || name.starts_with("pytest_")
}

fn is_tool_file(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    TOOL_FILES.contains(&base)
}

/// Method names of the built-in types and file objects: code the repository does not own
/// calls them by name on whatever it is given (`dict.get`, a file-like `read`), so a
/// repository method of one of these names implements a protocol and keeps its name.
const BUILTIN_METHODS: &[&str] = &[
    "acquire",
    "add",
    "append",
    "capitalize",
    "casefold",
    "center",
    "clear",
    "close",
    "copy",
    "count",
    "decode",
    "difference",
    "discard",
    "emit",
    "encode",
    "endswith",
    "expandtabs",
    "extend",
    "fileno",
    "filter",
    "find",
    "flush",
    "format",
    "format_map",
    "fromkeys",
    "get",
    "handle",
    "index",
    "insert",
    "intersection",
    "isatty",
    "isdisjoint",
    "issubset",
    "issuperset",
    "items",
    "join",
    "keys",
    "ljust",
    "lower",
    "lstrip",
    "partition",
    "pop",
    "popitem",
    "read",
    "readable",
    "readline",
    "readlines",
    "release",
    "remove",
    "replace",
    "reverse",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "run",
    "seek",
    "seekable",
    "send",
    "setdefault",
    "sort",
    "split",
    "splitlines",
    "start",
    "startswith",
    "strip",
    "swapcase",
    "tell",
    "throw",
    "title",
    "translate",
    "truncate",
    "union",
    "update",
    "upper",
    "values",
    "writable",
    "write",
    "writelines",
    "zfill",
];

/// Bases that bring no methods a subclass could override.
const NEUTRAL_BASES: &[&str] = &["object", "ABC", "Generic", "Protocol"];

/// Commands and subcommands an agent types in a shell (`ls`, `find`, `git diff`, `pip
/// install`). The replacement pool never draws one: a view name equal to one would turn the
/// command itself into a repository name when the command is translated back. And the
/// virtual namespace never renames a repository name equal to one ([`Reason::ToolName`]):
/// the agent types `ls` meaning the shell's, and `ls: cannot access` must read as such.
const SHELL_WORDS: &[&str] = &[
    "apply",
    "awk",
    "bash",
    "blame",
    "branch",
    "break",
    "cat",
    "cd",
    "checkout",
    "chmod",
    "clone",
    "commit",
    "continue",
    "copy",
    "cp",
    "cut",
    "diff",
    "echo",
    "env",
    "eval",
    "exec",
    "exit",
    "export",
    "fetch",
    "file",
    "find",
    "freeze",
    "git",
    "grep",
    "head",
    "help",
    "install",
    "join",
    "kill",
    "less",
    "list",
    "ln",
    "log",
    "ls",
    "make",
    "merge",
    "mkdir",
    "more",
    "move",
    "mv",
    "nl",
    "paste",
    "patch",
    "pip",
    "print",
    "pull",
    "push",
    "pwd",
    "pytest",
    "python",
    "read",
    "rebase",
    "remove",
    "reset",
    "return",
    "rm",
    "sed",
    "sh",
    "shift",
    "show",
    "sleep",
    "sort",
    "source",
    "split",
    "stash",
    "status",
    "tail",
    "tee",
    "test",
    "time",
    "touch",
    "tr",
    "trap",
    "tree",
    "true",
    "type",
    "uninstall",
    "uniq",
    "unset",
    "wait",
    "watch",
    "wc",
    "which",
    "xargs",
];

/// Which names a mapping may rename: what its view is made of decides what it can reach.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The view is written out as files (levels 2 and 3 of `wheelwright view --out`): a
    /// name the code reaches by text or that outside code calls by name must keep it.
    #[default]
    Materialised,
    /// The view exists only through the translator (`wheelwright view shell`): the
    /// original runs untouched, so every name the repository owns may be renamed.
    Virtual,
}

/// Text files whose words may name a module or object to load (entry points, plugins,
/// test paths): a name written in one is left out of the mapping.
const CONFIG_EXTENSIONS: &[&str] = &[".toml", ".cfg", ".ini"];

/// Why a name the repository owns is not mapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Imported from, or reached as an attribute of, a module the repository does not own.
    External,
    /// Also the name of a method: code outside the repository may call it by that name.
    MethodName,
    /// Also read as an attribute of a value that is not one of the repository's modules
    /// (`args.pop()`): the value may be a list or another library's object.
    AttributeOfValue,
    /// Also passed as a keyword argument: the callee may be outside the repository.
    KeywordArgument,
    /// Written as a word in a string: it may be looked up or executed by name.
    NamedInString,
    /// Written in a configuration file, which may load it by name.
    NamedInConfig,
    /// Left out because the caller asked (`wheelwright view --keep`): a name the code
    /// reaches in a way the survey does not see (a pickle that spells a module's name).
    Kept,
    /// A name a tool looks up (`pytestmark`, `pytest_configure`, the `monkeypatch`
    /// fixture, Sphinx's `extensions`, a `setup.py` or `pyproject.toml` key), or a shell
    /// command's name (`ls`), which the agent types meaning the command.
    ToolName,
    /// A method that overrides one the repository does not own: its class has a base from
    /// elsewhere (`logging.Handler.emit`); or any name that is a built-in type's method name
    /// (`get`, `read`, `pop`), which code elsewhere calls on its own objects: renaming it
    /// would rename theirs in everything the agent reads.
    Override,
    /// The rebuilt name would equal another name.
    Collision,
    /// Virtual mode: a name of one or two letters (`c`, `T`, `fd`): translated as a whole
    /// word everywhere, it would also rename the same letters in every output (`python -c`
    /// in a usage message, `fd` in a traceback), where the agent could not tell them apart.
    ShortName,
}

/// An owned name left out of the mapping, with the first place that decided it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    pub name: String,
    pub reason: Reason,
    pub path: String,
    /// 1-based line, 0 when the reason is not at one place.
    pub line: u32,
}

/// A repository's level-2 mapping: what the view of a seed renames, and how to turn it back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamespaceMapping {
    pub format: u32,
    pub seed: u64,
    /// What the mapping was made for (absent in bundles written before modes: materialised).
    #[serde(default)]
    pub mode: Mode,
    /// Each mapped subword and its word.
    pub words: BTreeMap<String, String>,
    /// Each mapped name (original to view).
    pub names: BTreeMap<String, String>,
    /// Module and package names among [`Self::names`]: the path components renamed.
    pub modules: BTreeSet<String>,
    /// Names the repository owns that are not mapped, and why.
    pub left_out: Vec<LeftOut>,
}

/// What one pass over the repository found.
#[derive(Default)]
struct Survey {
    /// Owned names, each with where it was first defined.
    owned: BTreeMap<String, (String, u32)>,
    /// Owned names to leave out, with the first place that decided it.
    excluded: BTreeMap<String, (Reason, String, u32)>,
    /// Names of two or more subwords written in strings, with where: a name that contains
    /// one may be cut or matched by text (click's `type(self).__name__.partition("ParamType")`).
    fragments: BTreeMap<Vec<String>, (String, u32)>,
    /// Every identifier written anywhere (the view's names must avoid them).
    identifiers: BTreeSet<String>,
    /// Every lowercase word and subword written anywhere in any file.
    words: BTreeSet<String>,
    /// Each class the repository defines and the names of its bases (virtual mode).
    classes: BTreeMap<String, BTreeSet<String>>,
    /// Each method name the repository defines, with its classes and where (virtual mode).
    methods: BTreeMap<String, (BTreeSet<String>, String, u32)>,
}

impl Survey {
    fn exclude(&mut self, name: &str, reason: Reason, path: &str, line: u32) {
        self.excluded
            .entry(name.to_owned())
            .or_insert_with(|| (reason, path.to_owned(), line));
    }
}

fn line_of(tree: &SyntaxTree<'_>, id: syntax::NodeId) -> u32 {
    tree.node(id).span.start_line
}

fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

/// `a/b/c.py` -> `["a", "b", "c"]`; `None` for a file that is not Python.
fn module_parts(path: &str) -> Option<Vec<&str>> {
    let stem = path.strip_suffix(".py")?;
    Some(stem.split('/').collect())
}

/// The maximal runs of word characters (letters, digits, `_`) of `text`, with their byte offsets.
pub fn word_tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = text.char_indices().peekable();
    std::iter::from_fn(move || {
        while let Some(&(_, c)) = rest.peek() {
            if is_word_char(c) {
                break;
            }
            rest.next();
        }
        let (start, _) = *rest.peek()?;
        let mut end = start;
        while let Some(&(i, c)) = rest.peek() {
            if !is_word_char(c) {
                break;
            }
            end = i + c.len_utf8();
            rest.next();
        }
        Some((start, &text[start..end]))
    })
}

pub(crate) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The module and package names of the repository's Python files: every directory holding
/// an `__init__.py` and every file in one, and test files anywhere (`test_*.py`,
/// `*_test.py`). Files at the root (`setup.py`, `noxfile.py`) and scripts outside packages
/// keep their names.
fn module_names(files: &BTreeMap<String, String>) -> BTreeSet<String> {
    let packages: BTreeSet<&str> = files
        .keys()
        .filter_map(|p| p.strip_suffix("/__init__.py"))
        .collect();
    let mut names = BTreeSet::new();
    for path in files.keys() {
        let Some(parts) = module_parts(path) else {
            continue;
        };
        let Some((stem, dirs)) = parts.split_last() else {
            continue;
        };
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        let is_test = stem.starts_with("test_") || stem.ends_with("_test");
        if packages.contains(dir) || (is_test && !dir.is_empty()) {
            names.insert((*stem).to_owned());
        }
        // Each enclosing directory that is a package.
        let mut prefix = String::new();
        for d in dirs {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(d);
            if packages.contains(prefix.as_str()) {
                names.insert((*d).to_owned());
            }
        }
    }
    names.retain(|n| !is_dunder(n));
    names
}

/// The names an import statement's module path starts with: `import a.b` -> `a`,
/// `from a.b import c` -> `a`, a relative import -> `None` (always the repository's own).
fn import_root<'s>(tree: &SyntaxTree<'s>, statement: syntax::NodeId) -> Option<&'s str> {
    let module = match tree.kind(statement) {
        Kind::ImportFromStatement => tree.child(statement, Field::ModuleName)?,
        _ => {
            let first = tree.children(statement).next()?;
            if tree.kind(first) == Kind::AliasedImport {
                tree.child(first, Field::Name)?
            } else {
                first
            }
        }
    };
    if tree.kind(module) == Kind::RelativeImport {
        return None;
    }
    let first = tree.children(module).next().unwrap_or(module);
    Some(tree.text(first))
}

/// The names an import binds in its file: `import a.b as c` -> `c`, `import a.b` -> `a`,
/// `from m import x as y` -> `y`.
fn import_bindings<'s>(tree: &SyntaxTree<'s>, statement: syntax::NodeId) -> Vec<&'s str> {
    let mut out = Vec::new();
    for child in tree.children(statement) {
        if tree.node(child).field == Some(Field::ModuleName) {
            continue;
        }
        match tree.kind(child) {
            Kind::AliasedImport => {
                if let Some(alias) = tree.child(child, Field::Alias) {
                    out.push(tree.text(alias));
                }
            }
            Kind::DottedName => {
                let is_from = tree.kind(statement) == Kind::ImportFromStatement;
                let parts: Vec<syntax::NodeId> = tree.children(child).collect();
                let bound = if is_from { parts.last() } else { parts.first() };
                if let Some(&b) = bound {
                    out.push(tree.text(b));
                }
            }
            _ => {}
        }
    }
    out
}

/// Surveys one Python file.
fn survey_python(
    path: &str,
    source: &str,
    roots: &BTreeSet<String>,
    mode: Mode,
    survey: &mut Survey,
) {
    let tree = syntax::parse(source);
    let virtual_mode = mode == Mode::Virtual;
    let tool_file = is_tool_file(path);
    // Names bound in this file by an import of a module the repository does not own.
    let mut external: BTreeSet<&str> = BTreeSet::new();
    // Names bound by an import of the repository's own modules.
    let mut internal: BTreeSet<&str> = BTreeSet::new();
    let mut in_class: Vec<syntax::NodeId> = Vec::new();
    let walk = tree.descendants(tree.root());
    for id in walk {
        let node = tree.node(id);
        while let Some(&class) = in_class.last() {
            if tree.node(class).span.end_byte <= node.span.start_byte {
                in_class.pop();
            } else {
                break;
            }
        }
        match node.kind {
            Kind::Identifier => {
                survey.identifiers.insert(tree.text(id).to_owned());
            }
            Kind::ImportStatement | Kind::ImportFromStatement => {
                let root = import_root(&tree, id);
                if root.is_some_and(|r| !roots.contains(r) || is_stdlib_module(r)) {
                    for d in tree.descendants(id) {
                        if tree.kind(d) == Kind::Identifier {
                            let is_alias = tree.node(d).field == Some(Field::Alias);
                            if !is_alias {
                                survey.exclude(
                                    tree.text(d),
                                    Reason::External,
                                    path,
                                    line_of(&tree, d),
                                );
                            }
                        }
                    }
                    external.extend(import_bindings(&tree, id));
                } else {
                    internal.extend(import_bindings(&tree, id));
                }
            }
            Kind::Attribute => {
                // `os.path.join`: every attribute of a chain rooted at an external module.
                let mut root = id;
                while let Some(object) = tree.child(root, Field::Object) {
                    root = object;
                }
                let root_name = (tree.kind(root) == Kind::Identifier).then(|| tree.text(root));
                let reason = match root_name {
                    Some(r) if external.contains(r) => Some(Reason::External),
                    Some(r) if internal.contains(r) || roots.contains(r) => None,
                    // Virtual: `args.pop()` shows the view's name only where the text has it.
                    _ if virtual_mode => None,
                    _ => Some(Reason::AttributeOfValue),
                };
                if let (Some(reason), Some(attr)) = (reason, tree.child(id, Field::Attribute)) {
                    survey.exclude(tree.text(attr), reason, path, line_of(&tree, attr));
                }
            }
            Kind::KeywordArgument => {
                // `setup(name=..., install_requires=...)`: setuptools reads the keys.
                let reason = if tool_file {
                    Some(Reason::ToolName)
                } else {
                    (!virtual_mode).then_some(Reason::KeywordArgument)
                };
                if let (Some(reason), Some(name)) = (reason, tree.child(id, Field::Name)) {
                    survey.exclude(tree.text(name), reason, path, line_of(&tree, name));
                }
                if path.rsplit('/').next() == Some("setup.py")
                    && let Some(name) = tree.child(id, Field::Name)
                    && tree.text(name) == "name"
                    && let Some(value) = tree.child(id, Field::Value)
                    && tree.kind(value) == Kind::String
                {
                    own_distribution(survey, tree.text(value), path, line_of(&tree, value));
                }
            }
            Kind::String if virtual_mode => {}
            Kind::String => {
                // Any name written as a word in a string: `__all__`, `getattr(x, "name")`,
                // `importlib` paths, and code generated from text (attrs writes
                // "if _config._run_validators is True:" and `exec`s it). An f-string's
                // interpolations are code and are walked as such.
                let mut parts = tree
                    .children(id)
                    .filter(|&c| tree.kind(c) == Kind::Interpolation)
                    .peekable();
                let span = tree.node(id).span;
                let mut at = span.start_byte as usize;
                loop {
                    let end = parts.peek().map_or(span.end_byte as usize, |&p| {
                        tree.node(p).span.start_byte as usize
                    });
                    for (_, word) in word_tokens(&source[at..end]) {
                        survey.exclude(word, Reason::NamedInString, path, line_of(&tree, id));
                        let words = subwords_of(word);
                        if words.len() >= 2 {
                            survey
                                .fragments
                                .entry(words)
                                .or_insert_with(|| (path.to_owned(), line_of(&tree, id)));
                        }
                    }
                    match parts.next() {
                        Some(p) => at = tree.node(p).span.end_byte as usize,
                        None => break,
                    }
                }
            }
            Kind::FunctionDefinition | Kind::ClassDefinition => {
                if let Some(name) = tree.child(id, Field::Name) {
                    let text = tree.text(name);
                    let parent_is_class_body =
                        in_class.last().is_some_and(|&c| is_body_of(&tree, id, c));
                    if parent_is_class_body && node.kind == Kind::FunctionDefinition {
                        if virtual_mode {
                            let class = in_class.last().and_then(|&c| tree.child(c, Field::Name));
                            let entry =
                                survey.methods.entry(text.to_owned()).or_insert_with(|| {
                                    (BTreeSet::new(), path.to_owned(), line_of(&tree, name))
                                });
                            entry.0.extend(class.map(|c| tree.text(c).to_owned()));
                        } else {
                            survey.exclude(text, Reason::MethodName, path, line_of(&tree, name));
                        }
                    } else if is_module_level(&tree, id) {
                        if tool_file {
                            survey.exclude(text, Reason::ToolName, path, line_of(&tree, name));
                        }
                        own(survey, text, path, line_of(&tree, name));
                    }
                }
                if node.kind == Kind::ClassDefinition {
                    in_class.push(id);
                    if let Some(name) = tree.child(id, Field::Name) {
                        let bases = survey
                            .classes
                            .entry(tree.text(name).to_owned())
                            .or_default();
                        if let Some(list) = tree.child(id, Field::Superclasses) {
                            bases.extend(base_names(&tree, list));
                        }
                    }
                }
            }
            Kind::Assignment => {
                if is_module_level(&tree, id)
                    && let Some(left) = tree.child(id, Field::Left)
                {
                    for d in tree.descendants(left) {
                        let k = tree.kind(d);
                        if k == Kind::Identifier
                            && tree.parent(d).is_some_and(|p| {
                                matches!(
                                    tree.kind(p),
                                    Kind::Assignment
                                        | Kind::PatternList
                                        | Kind::TuplePattern
                                        | Kind::ListPattern
                                )
                            })
                        {
                            if tool_file {
                                survey.exclude(
                                    tree.text(d),
                                    Reason::ToolName,
                                    path,
                                    line_of(&tree, d),
                                );
                            }
                            own(survey, tree.text(d), path, line_of(&tree, d));
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// The names of a class's bases as written: `(Base, mod.Other, Generic[T], metaclass=M)`
/// -> `Base`, `Other`, `Generic`; keyword arguments (`metaclass=`) are not bases.
fn base_names(tree: &SyntaxTree<'_>, list: syntax::NodeId) -> Vec<String> {
    let mut out = Vec::new();
    for base in tree.children(list) {
        let mut at = base;
        if tree.kind(at) == Kind::Subscript
            && let Some(value) = tree.child(at, Field::Value)
        {
            at = value;
        }
        let name = match tree.kind(at) {
            Kind::Identifier => Some(at),
            Kind::Attribute => tree.child(at, Field::Attribute),
            _ => None,
        };
        out.extend(name.map(|n| tree.text(n).to_owned()));
    }
    out
}

/// The distribution name written in a string (`"my_lib"`), owned when it is one identifier.
fn own_distribution(survey: &mut Survey, quoted: &str, path: &str, line: u32) {
    let name = quoted.trim_matches(|c| c == '"' || c == '\'');
    let identifier = !name.is_empty()
        && name.chars().all(is_word_char)
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if identifier {
        own(survey, name, path, line);
    }
}

/// A config file in virtual mode: its keys and section names are read by tools and stay
/// (`[tool.pytest.ini_options]`, `testpaths = ...`); the distribution name (`name = "x"` in
/// `[project]` or `[metadata]`) is the repository's own.
fn survey_config(path: &str, text: &str, survey: &mut Survey) {
    let mut section = String::new();
    // Inside a TOML multi-line string (a readme fragment): text, not keys.
    let mut in_text = false;
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u32 + 1;
        let trimmed = line.trim();
        let quotes = trimmed.matches("\"\"\"").count() + trimmed.matches("'''").count();
        if in_text {
            in_text = quotes % 2 == 0;
            continue;
        }
        in_text = quotes % 2 == 1;
        let is_header = trimmed.starts_with('[')
            && trimmed.ends_with(']')
            && trimmed
                .chars()
                .all(|c| is_word_char(c) || "[].-\" ".contains(c));
        if is_header {
            section = trimmed.trim_matches(['[', ']']).to_owned();
            for (_, w) in word_tokens(&section) {
                survey.exclude(w, Reason::ToolName, path, line_no);
            }
            continue;
        }
        // A key starts its line; a quoted key (`"tests/x.py" = ...`) names a file, not a
        // setting, and an indented line continues a value.
        let Some((key, value)) = trimmed.split_once(['=', ':']) else {
            continue;
        };
        let is_key = key
            .trim()
            .chars()
            .all(|c| is_word_char(c) || c == '-' || c == '.');
        if !is_key || line.starts_with([' ', '\t']) {
            continue;
        }
        for (_, w) in word_tokens(key) {
            survey.exclude(w, Reason::ToolName, path, line_no);
        }
        if key.trim() == "name" && matches!(section.as_str(), "project" | "metadata") {
            own_distribution(survey, value.trim(), path, line_no);
        }
    }
}

fn own(survey: &mut Survey, name: &str, path: &str, line: u32) {
    survey
        .owned
        .entry(name.to_owned())
        .or_insert_with(|| (path.to_owned(), line));
}

/// Whether `id` is a statement of `class`'s body (possibly under a decorator).
fn is_body_of(tree: &SyntaxTree<'_>, id: syntax::NodeId, class: syntax::NodeId) -> bool {
    let mut up = tree.parent(id);
    if up.is_some_and(|p| tree.kind(p) == Kind::DecoratedDefinition) {
        up = up.and_then(|p| tree.parent(p));
    }
    up.is_some_and(|block| tree.kind(block) == Kind::Block && tree.parent(block) == Some(class))
}

/// Whether `id` runs at module level: no function or class encloses it (`if`, `try` and
/// `with` blocks at module level do not count).
fn is_module_level(tree: &SyntaxTree<'_>, id: syntax::NodeId) -> bool {
    let mut up = tree.parent(id);
    while let Some(p) = up {
        if matches!(
            tree.kind(p),
            Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda
        ) {
            return false;
        }
        up = tree.parent(p);
    }
    true
}

impl NamespaceMapping {
    /// The mapping of the repository's text files (`path -> content`, paths relative with
    /// `/`) under `seed`. Never fails: a file with syntax errors contributes what parsed.
    pub fn build(files: &BTreeMap<String, String>, seed: u64) -> Self {
        Self::build_keeping(files, seed, &BTreeSet::new())
    }

    /// [`Self::build`] with the names in `keep` left out as well.
    pub fn build_keeping(
        files: &BTreeMap<String, String>,
        seed: u64,
        keep: &BTreeSet<String>,
    ) -> Self {
        Self::build_in(Mode::Materialised, files, seed, keep)
    }

    /// The mapping for `mode`: [`Mode::Virtual`] renames every name the repository owns
    /// that no tool reads by name, strings and config files included. Example:
    /// ```
    /// use std::collections::{BTreeMap, BTreeSet};
    /// use wheelwright_core::schrodinger::namespace::{Mode, NamespaceMapping};
    /// let files = BTreeMap::from([
    ///     ("pkg/__init__.py".to_owned(), "__all__ = [\"Query\"]\nfrom pkg.query import Query\n".to_owned()),
    ///     ("pkg/query.py".to_owned(), "class Query:\n    def run_query(self):\n        return 1\n".to_owned()),
    /// ]);
    /// let virtual_names = NamespaceMapping::build_in(Mode::Virtual, &files, 1, &BTreeSet::new());
    /// assert!(virtual_names.names.contains_key("Query") && virtual_names.names.contains_key("pkg"));
    /// assert!(virtual_names.names.contains_key("run_query"));
    /// let materialised = NamespaceMapping::build(&files, 1);
    /// assert!(!materialised.names.contains_key("Query"), "written in `__all__`");
    /// ```
    pub fn build_in(
        mode: Mode,
        files: &BTreeMap<String, String>,
        seed: u64,
        keep: &BTreeSet<String>,
    ) -> Self {
        let modules = module_names(files);
        // A module path whose first part is one of these is the repository's own.
        let mut roots: BTreeSet<String> = modules.clone();
        for path in files.keys() {
            if let Some(parts) = module_parts(path)
                && let Some(stem) = parts.last()
            {
                roots.insert((*stem).to_owned());
            }
        }
        let mut survey = Survey::default();
        for name in &modules {
            own(&mut survey, name, "", 0);
        }
        // Each distinct token split once: a repository repeats its words many times.
        let tokens: BTreeSet<&str> = files
            .values()
            .flat_map(|t| word_tokens(t).map(|(_, w)| w))
            .collect();
        for token in tokens {
            survey.words.insert(token.to_lowercase());
            for w in subwords::split(token).words() {
                survey.words.insert(w.to_owned());
            }
        }
        for (path, text) in files {
            if path.ends_with(".py") {
                survey_python(path, text, &roots, mode, &mut survey);
            } else if !CONFIG_EXTENSIONS.iter().any(|e| path.ends_with(e)) {
                continue;
            } else if mode == Mode::Virtual {
                survey_config(path, text, &mut survey);
            } else {
                let line_starts: Vec<usize> = std::iter::once(0)
                    .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                    .collect();
                for (at, token) in word_tokens(text) {
                    let line = line_starts.partition_point(|&s| s <= at) as u32;
                    survey.exclude(token, Reason::NamedInConfig, path, line);
                }
            }
        }
        for name in keep {
            survey
                .excluded
                .insert(name.clone(), (Reason::Kept, String::new(), 0));
        }
        if mode == Mode::Virtual {
            own_methods(&mut survey);
        }
        Self::from_survey(survey, modules, seed, mode)
    }

    fn from_survey(survey: Survey, modules: BTreeSet<String>, seed: u64, mode: Mode) -> Self {
        let mut left_out = Vec::new();
        let mut kept = Vec::new();
        for (name, (path, line)) in &survey.owned {
            let skip = is_dunder(name)
                || is_keyword(name)
                || is_builtin(name)
                || is_stdlib_module(name)
                || subwords::split(name).words().is_empty();
            if skip {
                continue;
            }
            if is_tool_name(name) {
                left_out.push(LeftOut {
                    name: name.clone(),
                    reason: Reason::ToolName,
                    path: path.clone(),
                    line: *line,
                });
                continue;
            }
            let letters = name.chars().filter(|c| c.is_alphabetic()).count();
            if mode == Mode::Virtual && letters < 3 {
                left_out.push(LeftOut {
                    name: name.clone(),
                    reason: Reason::ShortName,
                    path: path.clone(),
                    line: *line,
                });
                continue;
            }
            let words = subwords_of(name);
            // Each run of two or more of the name's subwords, looked up (a name has few); none
            // in virtual mode, whose survey records no strings.
            let fragment = (0..words.len())
                .flat_map(|i| (i + 2..=words.len()).map(move |j| (i, j)))
                .find_map(|(i, j)| survey.fragments.get(&words[i..j]))
                .map(|(path, line)| (Reason::NamedInString, path.clone(), *line));
            let excluded = survey.excluded.get(name).cloned().filter(|(reason, _, _)| {
                // A module's name is the repository's own path: a tool's setting spelled the
                // same (`version` in Sphinx's `conf.py`) is renamed with it in the virtual
                // namespace, which shows it renamed but never changes what the tool reads.
                !(mode == Mode::Virtual && *reason == Reason::ToolName && modules.contains(name))
            });
            if let Some((reason, path, line)) = excluded.or(fragment) {
                left_out.push(LeftOut {
                    name: name.clone(),
                    reason,
                    path,
                    line,
                });
                continue;
            }
            kept.push((name.clone(), path.clone(), *line));
        }
        // The subwords to map, in a fixed order, and the words they map to.
        let tokens: BTreeSet<String> = kept
            .iter()
            .flat_map(|(n, _, _)| subwords_of(n))
            .filter(|w| !KEPT_WORDS.contains(&w.as_str()))
            .collect();
        let mut pool: Vec<&str> = words::shipped()
            .filter(|w| {
                !survey.words.contains(*w)
                    && !is_keyword(w)
                    && !is_builtin(w)
                    && !is_stdlib_module(w)
                    && !SHELL_WORDS.contains(w)
            })
            .collect();
        words::shuffle(&mut words::rng(seed, "namespace"), &mut pool);
        let mut words = BTreeMap::new();
        for (i, token) in tokens.iter().enumerate() {
            // Beyond the list's length, pairs of words (never needed by a library this size).
            let word = match pool.get(i) {
                Some(w) => (*w).to_owned(),
                None => format!(
                    "{}{}",
                    pool[i % pool.len()],
                    pool[(i / pool.len()) % pool.len()]
                ),
            };
            words.insert(token.clone(), word);
        }
        let mut names = BTreeMap::new();
        let mut taken: BTreeSet<String> = BTreeSet::new();
        for (name, path, line) in kept {
            let view = subwords::split(&name)
                .rebuild(|w| words.get(w).cloned().unwrap_or_else(|| w.to_owned()));
            if view == name {
                continue;
            }
            let clashes = survey.identifiers.contains(&view)
                || survey.owned.contains_key(&view)
                || taken.contains(&view)
                || is_keyword(&view)
                || is_builtin(&view)
                || is_stdlib_module(&view);
            if clashes {
                left_out.push(LeftOut {
                    name,
                    reason: Reason::Collision,
                    path,
                    line,
                });
                continue;
            }
            taken.insert(view.clone());
            names.insert(name, view);
        }
        // Only subwords some mapped name uses.
        let used: BTreeSet<String> = names.keys().flat_map(|n| subwords_of(n)).collect();
        words.retain(|w, _| used.contains(w));
        left_out.sort_by(|a, b| a.name.cmp(&b.name));
        let modules = modules
            .into_iter()
            .filter(|m| names.contains_key(m))
            .collect();
        Self {
            format: MAPPING_FORMAT,
            seed,
            mode,
            words,
            names,
            modules,
            left_out,
        }
    }

    /// A path in the view: each module or package component renamed.
    pub fn view_path(&self, path: &str) -> String {
        map_path(path, |c| {
            self.modules.contains(c).then(|| self.names[c].clone())
        })
    }

    /// A view path back in the original.
    pub fn original_path(&self, path: &str) -> String {
        let back: BTreeMap<&str, &str> = self
            .modules
            .iter()
            .map(|m| (self.names[m].as_str(), m.as_str()))
            .collect();
        map_path(path, |c| back.get(c).map(|&m| m.to_owned()))
    }

    /// Python source in the view: each mapped identifier renamed, and each mapped name
    /// written as a word in a comment. Strings keep their text, so the program prints and
    /// compares what it did before.
    pub fn view_source(&self, source: &str) -> String {
        let tree = syntax::parse(source);
        let mut edits = Vec::new();
        for id in tree.descendants(tree.root()) {
            match tree.kind(id) {
                Kind::Identifier => {
                    if let Some(view) = self.names.get(tree.text(id)) {
                        edits.push(rewrite::edit(&tree, id, view.clone()));
                    }
                }
                Kind::Comment => {
                    let start = tree.node(id).span.start_byte as usize;
                    for (at, token) in word_tokens(tree.text(id)) {
                        if let Some(view) = self.names.get(token) {
                            edits.push(Edit {
                                start: start + at,
                                end: start + at + token.len(),
                                text: view.clone(),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        let mut diagnostics = Vec::new();
        rewrite::apply(source, edits, &mut diagnostics)
    }
}

/// Virtual mode: each method name the repository defines becomes owned, unless it
/// overrides code from elsewhere ([`Reason::Override`]): a method of a class with a base
/// the repository does not define (followed through the repository's own classes: a
/// subclass of a subclass of `Exception` counts), or any owned name that is a built-in
/// type's method name.
fn own_methods(survey: &mut Survey) {
    // A class is foreign when a base is not one of the repository's classes, or is foreign.
    let mut foreign: BTreeSet<String> = BTreeSet::new();
    loop {
        let before = foreign.len();
        for (class, bases) in &survey.classes {
            let reaches_out = bases.iter().any(|b| {
                !NEUTRAL_BASES.contains(&b.as_str())
                    && (!survey.classes.contains_key(b) || foreign.contains(b))
            });
            if reaches_out {
                foreign.insert(class.clone());
            }
        }
        if foreign.len() == before {
            break;
        }
    }
    for (name, (classes, path, line)) in std::mem::take(&mut survey.methods) {
        if classes.iter().any(|c| foreign.contains(c)) && !is_dunder(&name) {
            survey.exclude(&name, Reason::Override, &path, line);
        }
        own(survey, &name, &path, line);
    }
    // A method name of the built-in types, method or not: renaming `pop` would rename
    // `list.pop` in every output the agent reads. A shell command's name: the agent types
    // `ls` meaning the command.
    let reads_elsewhere: Vec<(String, Reason, String, u32)> = survey
        .owned
        .iter()
        .filter_map(|(n, (p, l))| {
            let reason = if BUILTIN_METHODS.contains(&n.as_str()) {
                Reason::Override
            } else if SHELL_WORDS.contains(&n.as_str()) {
                Reason::ToolName
            } else {
                return None;
            };
            Some((n.clone(), reason, p.clone(), *l))
        })
        .collect();
    for (name, reason, path, line) in reads_elsewhere {
        survey.exclude(&name, reason, &path, line);
    }
}

/// The lowercase subwords of `name`.
fn subwords_of(name: &str) -> Vec<String> {
    subwords::split(name)
        .words()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

fn map_path(path: &str, component: impl Fn(&str) -> Option<String>) -> String {
    path.split('/')
        .map(|part| {
            let (stem, ext) = part.strip_suffix(".py").map_or((part, ""), |s| (s, ".py"));
            component(stem).map_or_else(|| part.to_owned(), |m| format!("{m}{ext}"))
        })
        .collect::<Vec<_>>()
        .join("/")
}
