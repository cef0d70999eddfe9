//! A repository's callable map (RepoReuse's pipeline, step 1 "map"): every function and method with its lines, signature, docstring, resolved call edges and the internal ones marked as starting points.
//!
//! RepoReuse builds its chains from a map of the pinned repository (paper section 3.1,
//! Appendix B.1): what can be called, what each calls, and which internal symbols sit
//! beneath the public API, since a chain starts from those (a task that reuses them is
//! one an agent could not solve by reading the public documentation alone). The map is
//! pure: the repository's files go in, the map comes out; the `wheelwright dataset map`
//! command reads a wheel or a directory and writes it (docs/formats.md, "Callable map").
//!
//! Calls are resolved by the repository index ([`RepoIndex`], spec D4 to D6): imports,
//! re-exports, `self.m()` and base classes followed. An edge is kept only when the callee
//! is one of the repository's own functions or methods; a call of a class is an edge to
//! its `__init__` when the class defines one.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::budget::{Cancel, Cancelled};
use crate::python::facts::DefinitionKind;
use crate::python::index::{IndexOptions, RepoIndex, Resolution};
use crate::workspace::{Workspace, why_removed};

/// The version of the map's JSON format (docs/formats.md, "Callable map").
pub const CALLABLE_MAP_FORMAT: u32 = 1;

/// A repository's callables and their call edges.
///
/// ```
/// use wheelwright_core::python::index::IndexOptions;
/// use wheelwright_core::reporeuse::callable_map::CallableMap;
///
/// let files = [(
///     "pkg/__init__.py",
///     "def _norm(x):\n    \"\"\"Scale x.\"\"\"\n    return x / 2\n\ndef area(x):\n    return _norm(x) ** 2\n",
/// )];
/// let map = CallableMap::build(files, &IndexOptions::default());
/// let area = map.get("pkg.area").unwrap();
/// assert_eq!(area.callees, ["pkg._norm"]);
/// let norm = map.get("pkg._norm").unwrap();
/// assert!(norm.candidate && !norm.public);
/// assert_eq!(norm.doc.as_deref(), Some("Scale x."));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallableMap {
    /// [`CALLABLE_MAP_FORMAT`].
    pub format: u32,
    pub counts: MapCounts,
    /// Sorted by qualified name.
    pub callables: Vec<Callable>,
}

/// How many of each the map holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapCounts {
    /// Python modules indexed.
    pub modules: usize,
    pub callables: usize,
    pub functions: usize,
    pub methods: usize,
    pub public: usize,
    pub candidates: usize,
    /// Call edges between the repository's callables.
    pub edges: usize,
}

/// One function or method of the repository.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Callable {
    /// `pkg.mod.f`, `pkg.mod.C.m`, `pkg.mod.f.<locals>.g`.
    pub qualified_name: String,
    /// `function` or `method`.
    pub kind: DefinitionKind,
    /// The defining file.
    pub path: String,
    /// The first definition's lines, from the `def` line to its body's last statement.
    pub start_line: u32,
    pub end_line: u32,
    /// The first definition's header (`def f(x, y=1) -> int`).
    pub signature: String,
    /// The docstring's first non-blank line.
    pub doc: Option<String>,
    /// Part of the public API: no private part (`_x`, not `__x__`) in its module path or
    /// name, not local to a function, and listed in its module's `__all__` when it has one;
    /// or (it or its class) listed in a public module's `__all__` (a re-export).
    pub public: bool,
    /// Internal (not public, not local to a function) and called by a public callable: a
    /// starting point for a chain.
    pub candidate: bool,
    /// The repository's callables it calls, sorted.
    pub callees: Vec<String>,
    /// How many of the repository's callables call it.
    pub callers: usize,
}

impl CallableMap {
    /// The map of `files` (path, text; non-Python files and test files are ignored).
    pub fn build<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
        options: &IndexOptions,
    ) -> Self {
        match Self::build_with(files, options, &Cancel::never()) {
            Ok(map) => map,
            Err(Cancelled) => unreachable!("a Cancel::never() is never raised"),
        }
    }

    /// [`CallableMap::build`] that stops soon after `cancel` is raised.
    pub fn build_with<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
        options: &IndexOptions,
        cancel: &Cancel,
    ) -> Result<Self, Cancelled> {
        // The map is of what an agent's workspace holds: test files are left out as they
        // are there (`why_removed`), so no test helper becomes a candidate.
        let mut workspace = Workspace::new();
        for (path, text) in files {
            if why_removed(path).is_none() {
                workspace.insert(path, text);
            }
        }
        let index = RepoIndex::build_with(&workspace, options, cancel)?;
        Self::of_index(&index, cancel)
    }

    /// The map of an index already built.
    pub fn of_index(index: &RepoIndex, cancel: &Cancel) -> Result<Self, Cancelled> {
        let modules = index.modules();
        // Raw callee identities first: an edge is kept only once every callable is known.
        let mut raw: BTreeMap<String, (Callable, Vec<String>)> = BTreeMap::new();
        let mut classes = HashSet::new();
        let reexported = reexported(index, &modules);
        for module in &modules {
            cancel.check()?;
            let exports: Option<HashSet<&str>> =
                index.exports(module).map(|e| e.into_iter().collect());
            let module_public = module.split('.').all(|part| !is_private(part));
            for def in index.definitions(module) {
                if def.kind == DefinitionKind::Class {
                    classes.insert(def.qualified_name);
                    continue;
                }
                let local = def
                    .qualified_name
                    .strip_prefix(*module)
                    .map_or(def.qualified_name.as_str(), |q| q.trim_start_matches('.'));
                let top = local.split('.').next().unwrap_or(local);
                let declared = module_public
                    && !local.contains("<locals>")
                    && local.split('.').all(|part| !is_private(part))
                    && exports.as_ref().is_none_or(|e| e.contains(top));
                let public = declared
                    || (!local.contains("<locals>")
                        && local.split('.').skip(1).all(|part| !is_private(part))
                        && reexported.contains(format!("{module}.{top}").trim_start_matches('.')));
                let span = def.spans.first().copied();
                let callable = Callable {
                    kind: def.kind,
                    path: def.path,
                    start_line: span.map_or(0, |s| s.start),
                    end_line: span.map_or(0, |s| s.end),
                    signature: def.signatures.into_iter().next().unwrap_or_default(),
                    doc: def.docstring.as_deref().and_then(first_line),
                    public,
                    candidate: false,
                    callees: Vec::new(),
                    callers: 0,
                    qualified_name: def.qualified_name.clone(),
                };
                raw.insert(def.qualified_name, (callable, Vec::new()));
            }
            // The module's calls by the definition whose body holds them: unlike a
            // definition's own callees, these resolve a module-level name to what it is
            // where the call is made (a helper defined further down the file).
            for call in index.calls(module) {
                let caller = if module.is_empty() {
                    call.scope
                } else {
                    format!("{module}.{}", call.scope)
                };
                if let Some((_, callees)) = raw.get_mut(&caller) {
                    // A name bound in the module itself comes back bare (`_square`): it
                    // is the caller's local function, or else the module's own.
                    if !call.identity.contains('.') {
                        callees.push(format!("{caller}.<locals>.{}", call.identity));
                        if !module.is_empty() {
                            callees.push(format!("{module}.{}", call.identity));
                        }
                    }
                    callees.push(call.identity);
                }
            }
        }
        let resolve = |identity: &str| -> Option<String> {
            if raw.contains_key(identity) {
                return Some(identity.to_owned());
            }
            let init = format!("{identity}.__init__");
            (classes.contains(identity) && raw.contains_key(&init)).then_some(init)
        };
        let edges: Vec<(String, Vec<String>)> = raw
            .iter()
            .map(|(name, (_, callees))| {
                let mut out: Vec<String> = callees
                    .iter()
                    .filter_map(|c| resolve(c))
                    .filter(|c| c != name)
                    .collect();
                out.sort_unstable();
                out.dedup();
                (name.clone(), out)
            })
            .collect();
        let mut callers: HashMap<String, usize> = HashMap::new();
        let mut called_by_public: HashSet<String> = HashSet::new();
        for (name, callees) in &edges {
            let public = raw[name].0.public;
            for callee in callees {
                *callers.entry(callee.clone()).or_default() += 1;
                if public {
                    called_by_public.insert(callee.clone());
                }
            }
        }
        let mut counts = MapCounts {
            modules: modules.len(),
            ..MapCounts::default()
        };
        let mut callables = Vec::with_capacity(raw.len());
        for ((name, (mut callable, _)), (_, callees)) in raw.into_iter().zip(edges) {
            callable.candidate =
                !callable.public && !name.contains("<locals>") && called_by_public.contains(&name);
            callable.callers = callers.get(&name).copied().unwrap_or(0);
            callable.callees = callees;
            counts.callables += 1;
            match callable.kind {
                DefinitionKind::Method => counts.methods += 1,
                _ => counts.functions += 1,
            }
            counts.public += usize::from(callable.public);
            counts.candidates += usize::from(callable.candidate);
            counts.edges += callable.callees.len();
            callables.push(callable);
        }
        Ok(CallableMap {
            format: CALLABLE_MAP_FORMAT,
            counts,
            callables,
        })
    }

    /// The callable of a qualified name.
    pub fn get(&self, qualified_name: &str) -> Option<&Callable> {
        self.callables
            .binary_search_by(|c| c.qualified_name.as_str().cmp(qualified_name))
            .ok()
            .map(|i| &self.callables[i])
    }
}

/// The canonical names of definitions a public module lists in its `__all__` (a private
/// module's helper that the package re-exports is public: `geo.clamp` from `geo._impl`).
fn reexported(index: &RepoIndex, modules: &[&str]) -> HashSet<String> {
    let mut out = HashSet::new();
    for module in modules {
        if module.split('.').any(is_private) {
            continue;
        }
        for name in index.exports(module).unwrap_or_default() {
            let dotted = if module.is_empty() {
                name.to_owned()
            } else {
                format!("{module}.{name}")
            };
            if let Resolution::Definition { canonical, .. } = index.resolve(&dotted) {
                out.insert(canonical);
            }
        }
    }
    out
}

/// `_x` and `__x` are private by convention; `__x__` (a protocol method) is not.
fn is_private(part: &str) -> bool {
    part.starts_with('_') && !(part.len() > 4 && part.starts_with("__") && part.ends_with("__"))
}

/// The first non-blank line of a docstring, trimmed.
fn first_line(doc: &str) -> Option<String> {
    doc.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
}
