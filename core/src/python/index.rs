//! Repository index: modules, definitions, imports and re-exports resolved per spec D1, D4, D5.
//!
//! Files are analysed once when inserted; names are resolved lazily, on lookup, so adding
//! a file (the agent's module of the previous turn) costs only that file's parse.
//!
//! Resolution follows imports, star imports and base classes through other files, which a
//! submitter controls too (the files of earlier turns). Each resolution is bounded in depth
//! ([`MAX_DEPTH`]) and every resolution made for one analysis draws on one [`Fuel`]: star
//! imports or bases that fan out (`from a import *` twice in each of 33 modules would be
//! 2^33 lookups) cannot cost more than [`MAX_RESOLUTION_STEPS`].

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use super::builtins::is_builtin;
use super::facts::DefinitionKind;
use super::fuel::Fuel;
pub use super::fuel::MAX_RESOLUTION_STEPS;
use super::scope::{
    self, CallArgs, CallSite, Callee, Candidate, FileAnalysis, ImportTarget, NameRef, TopKind,
};
use crate::budget::{Cancel, Cancelled};
use crate::workspace::Workspace;

/// Re-export chains are followed at most this many import hops (D4).
const MAX_DEPTH: u32 = 32;

/// What a remembered lookup found, and the steps of [`Fuel`] it took.
#[derive(Clone, Debug)]
struct Remembered {
    found: Option<Entity>,
    steps: u64,
}

/// The module lookups already made on one version of the index, by module then name.
///
/// Only outermost lookups are kept (none other under way), whose answer depends on nothing
/// but the index, and only those that did not run out of fuel; a remembered one charges the
/// steps it took, so a turn's answers and its fuel are exactly what they would be without
/// it. The same few names (`nx.Graph`, `nx.utils`) are looked up over and over, and each
/// lookup in a package walks every star import of its `__init__` and theirs: this made name
/// resolution 10% of a paper-scale run.
///
/// Clones of the index share it (every chain's first turn asks W0 the same questions);
/// changing the index gives the changed one a new, empty one. It keeps at most
/// [`LOOKUPS_KEPT`] answers and [`LOOKUP_BYTES_KEPT`] bytes of names, since the names come
/// from submissions: past that, lookups are made step by step, as without it.
#[derive(Clone, Debug, Default)]
struct Lookups(Arc<Mutex<LookupMap>>);

#[derive(Debug, Default)]
struct LookupMap {
    by_module: HashMap<String, HashMap<String, Remembered>>,
    kept: usize,
    bytes: usize,
}

/// The most answers one [`Lookups`] keeps.
const LOOKUPS_KEPT: usize = 1 << 16;
/// The most bytes of module names and names one [`Lookups`] keeps.
const LOOKUP_BYTES_KEPT: usize = 8 << 20;

impl Lookups {
    fn get(&self, module: &str, name: &str) -> Option<Remembered> {
        let map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.by_module.get(module)?.get(name).cloned()
    }

    fn put(&self, module: &str, name: &str, remembered: Remembered) {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let bytes = map.bytes + module.len() + name.len();
        if map.kept >= LOOKUPS_KEPT || bytes > LOOKUP_BYTES_KEPT {
            return;
        }
        map.kept += 1;
        map.bytes = bytes;
        map.by_module
            .entry(module.to_owned())
            .or_default()
            .insert(name.to_owned(), remembered);
    }
}

/// How paths map to module names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexOptions {
    /// Source roots stripped from paths before naming modules (`src` for a `src/` layout).
    /// Paths outside every root keep their full path.
    pub source_roots: Vec<String>,
}

/// A definition of the repository, all occurrences of one qualified name merged (D1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IndexedDefinition {
    /// `pkg.mod.f`, `pkg.mod.C.m`, `pkg.mod.f.<locals>.g`.
    pub qualified_name: String,
    pub kind: DefinitionKind,
    /// Path of the defining file.
    pub path: String,
    /// Every span of the name, from the `def` line to the body's last statement.
    pub spans: Vec<LineSpan>,
    /// The header text of each occurrence (`def f(x, y=1) -> int`).
    pub signatures: Vec<String>,
    /// The first occurrence's docstring, quotes removed.
    pub docstring: Option<String>,
    /// Base classes, resolved (D4) where they come from the repository or imports.
    pub bases: Vec<String>,
    /// Distinct callee identities (D5, D6) of all occurrences, builtins included; empty
    /// for classes.
    pub callees: Vec<String>,
}

/// Inclusive 1-based line range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LineSpan {
    pub start: u32,
    pub end: u32,
}

/// One name bound by an import.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImportedName {
    /// The bound name (`*` for a star import).
    pub name: String,
    /// What was imported, absolute (`pkg.mod`, `pkg.mod.f`).
    pub imported: String,
    /// Where it resolves after following re-exports (D4).
    pub resolved: String,
    /// `<module>` or the qualified name of the function or class whose body holds it.
    pub scope: String,
    pub line: u32,
}

/// What a dotted name refers to after canonicalisation (D4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Resolution {
    /// A class, function or method defined in the indexed files.
    Definition {
        canonical: String,
        kind: DefinitionKind,
        path: String,
    },
    /// A module of the indexed files.
    Module { name: String, path: String },
    /// Names nothing defined in the indexed files.
    Unknown,
}

#[derive(Clone, Debug)]
struct Module {
    pub(crate) path: String,
    pub(crate) analysis: FileAnalysis,
    /// For each top-level name, the index of its last binding in `analysis.top`.
    last: HashMap<String, usize>,
    /// Indices in `analysis.top` of star imports.
    stars: Vec<usize>,
    pub(crate) by_qual: HashMap<String, Vec<usize>>,
    /// `__all__` as a set, when the module has one: `from m import *` asks it once per
    /// name looked up, and a package's `__init__` can star-import a hundred modules.
    exports: Option<HashSet<String>>,
}

/// What a name or chain resolves to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Entity {
    Module(String),
    /// (module, qualified name within the module).
    Def(String, String),
    /// Anything else, as its dotted identity (external modules, variables, unknown names).
    Name(String),
}

impl Entity {
    pub(crate) fn identity(&self) -> String {
        match self {
            Entity::Module(m) | Entity::Name(m) => m.clone(),
            Entity::Def(m, q) => join(m, q),
        }
    }
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_owned()
    } else {
        format!("{a}.{b}")
    }
}

/// The index of a workspace's Python files (W_t in the spec).
///
/// Cloning is cheap: the analysed modules are shared (reference-counted) between clones,
/// and [`RepoIndex::insert`] replaces a module rather than changing it, so a clone of W0
/// can take a chain's files without affecting W0.
#[derive(Clone, Debug, Default)]
pub struct RepoIndex {
    options: IndexOptions,
    // Keys are `Arc<str>`: every chain clones W0's index, and cloning a shared key is a
    // count, not an allocation.
    modules: HashMap<Arc<str>, Arc<Module>>,
    by_path: HashMap<Arc<str>, Arc<str>>,
    /// How many module names have each dotted prefix (`a`, `a.b` for `a.b.c`, and the
    /// name itself): a name that is no prefix can never grow into a module by attribute
    /// access, so a long unknown chain `x.a.a.a...` is built once, not once per part.
    prefixes: HashMap<Arc<str>, u32>,
    lookups: Lookups,
}

/// The module name of a path, and whether it is a package (`__init__.py`); `None` for
/// files that are not Python.
pub fn module_name(path: &str, options: &IndexOptions) -> Option<(String, bool)> {
    let path = crate::workspace::normalise_path(path);
    let stem = path.strip_suffix(".py")?;
    let stem = options
        .source_roots
        .iter()
        .map(|root| root.trim_matches('/'))
        .filter(|root| !root.is_empty())
        .find_map(|root| stem.strip_prefix(root).and_then(|s| s.strip_prefix('/')))
        .unwrap_or(stem);
    let mut parts: Vec<&str> = stem.split('/').collect();
    let package = parts.last() == Some(&"__init__");
    if package {
        parts.pop();
    }
    Some((parts.join("."), package))
}

struct Budget<'f> {
    depth: u32,
    /// The module lookups under way, innermost last: (module, name, the index in the
    /// module's `top` of the binding being followed).
    visiting: Vec<(String, String, usize)>,
    fuel: &'f Fuel,
}

impl<'f> Budget<'f> {
    fn new(fuel: &'f Fuel) -> Self {
        Budget {
            depth: 0,
            visiting: Vec::new(),
            fuel,
        }
    }
}

/// Records that the innermost module lookup now follows the binding at `at` of its `top`.
fn following(budget: &mut Budget<'_>, at: usize) {
    if let Some(entry) = budget.visiting.last_mut() {
        entry.2 = at;
    }
}

/// Every dotted prefix of a module name, the name included.
fn prefixes_of(name: &str) -> impl Iterator<Item = &str> {
    name.match_indices('.')
        .map(|(i, _)| &name[..i])
        .chain(std::iter::once(name))
}

/// One Python file of a workspace analysed: its normalised path, module name and analysis.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct AnalysedFile {
    pub(crate) path: String,
    pub(crate) name: String,
    pub(crate) analysis: FileAnalysis,
}

/// Analyses every Python file of `workspace` (in parallel natively), in path order: what
/// [`RepoIndex::build_with`] inserts, and what [`super::snapshot`] saves.
pub(crate) fn analyse_files(
    workspace: &Workspace,
    options: &IndexOptions,
    cancel: &Cancel,
) -> Result<Vec<AnalysedFile>, Cancelled> {
    let files: Vec<(&str, &str)> = workspace.files().collect();
    let analysed = crate::parallel::try_map(&files, |&(path, text)| {
        let path = crate::workspace::normalise_path(path);
        let Some((name, package)) = module_name(&path, options) else {
            return Ok(None);
        };
        let analysis = scope::analyse_with(text, &name, package, cancel)?;
        Ok(Some(AnalysedFile {
            path,
            name,
            analysis,
        }))
    })?;
    Ok(analysed.into_iter().flatten().collect())
}

impl RepoIndex {
    /// Indexes every `.py` file of a workspace.
    pub fn build(workspace: &Workspace, options: &IndexOptions) -> Self {
        match Self::build_with(workspace, options, &Cancel::never()) {
            Ok(index) => index,
            Err(Cancelled) => unreachable!("a Cancel::never() is never raised"),
        }
    }

    /// [`RepoIndex::build`] that stops with [`Cancelled`] soon after `cancel` is raised
    /// (within each file too: parsing and scope analysis look at it as they go).
    pub fn build_with(
        workspace: &Workspace,
        options: &IndexOptions,
        cancel: &Cancel,
    ) -> Result<Self, Cancelled> {
        let analysed = analyse_files(workspace, options, cancel)?;
        Ok(Self::from_analysed(options, analysed))
    }

    /// The index of files already analysed ([`analyse_files`]), inserted in their order.
    pub(crate) fn from_analysed(
        options: &IndexOptions,
        analysed: impl IntoIterator<Item = AnalysedFile>,
    ) -> Self {
        let mut index = RepoIndex {
            options: options.clone(),
            ..RepoIndex::default()
        };
        for file in analysed {
            index.insert_analysed(&file.path, file.name, file.analysis);
        }
        index
    }

    /// Adds or replaces one file (non-Python files are ignored).
    pub fn insert(&mut self, path: &str, text: &str) {
        if let Err(Cancelled) = self.insert_with(path, text, &Cancel::never()) {
            unreachable!("a Cancel::never() is never raised");
        }
    }

    /// [`RepoIndex::insert`] that stops with [`Cancelled`] soon after `cancel` is raised,
    /// leaving the index as it was.
    pub fn insert_with(
        &mut self,
        path: &str,
        text: &str,
        cancel: &Cancel,
    ) -> Result<(), Cancelled> {
        let path = crate::workspace::normalise_path(path);
        let Some((name, package)) = module_name(&path, &self.options) else {
            return Ok(());
        };
        let analysis = scope::analyse_with(text, &name, package, cancel)?;
        self.insert_analysed(&path, name, analysis);
        Ok(())
    }

    /// Whether the file at `path` was over the per-file budget, so that its module is
    /// empty ([`crate::budget::MAX_PARSE_STEPS`]); `None` for a path not indexed.
    pub fn over_budget(&self, path: &str) -> Option<bool> {
        let name = self
            .by_path
            .get(crate::workspace::normalise_path(path).as_str())?;
        self.modules.get(name).map(|m| m.analysis.over_budget)
    }

    /// Adds or replaces the module `name` at the normalised `path` from its analysis, so a
    /// file already analysed (a scored submission) is not parsed a second time.
    pub(crate) fn insert_analysed(&mut self, path: &str, name: String, analysis: FileAnalysis) {
        // Answers of the old version may not hold for the new one.
        self.lookups = Lookups::default();
        let mut last = HashMap::new();
        let mut stars = Vec::new();
        for (i, event) in analysis.top.iter().enumerate() {
            if event.name == "*" {
                stars.push(i);
            } else {
                last.insert(event.name.clone(), i);
            }
        }
        let mut by_qual: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, def) in analysis.defs.iter().enumerate() {
            by_qual.entry(def.qual.clone()).or_default().push(i);
        }
        if let Some(old) = self
            .by_path
            .insert(Arc::from(path), Arc::from(name.as_str()))
            && self.modules.remove(&old).is_some()
        {
            for prefix in prefixes_of(&old) {
                if let Some(count) = self.prefixes.get_mut(prefix) {
                    *count -= 1;
                    if *count == 0 {
                        self.prefixes.remove(prefix);
                    }
                }
            }
        }
        if !self.modules.contains_key(name.as_str()) {
            for prefix in prefixes_of(&name) {
                *self.prefixes.entry(Arc::from(prefix)).or_default() += 1;
            }
        }
        let exports = analysis
            .all
            .as_ref()
            .map(|all| all.iter().cloned().collect());
        self.modules.insert(
            Arc::from(name),
            Arc::new(Module {
                path: path.to_owned(),
                analysis,
                last,
                stars,
                by_qual,
                exports,
            }),
        );
    }

    /// Whether attribute access on the unknown dotted name `name` could still reach a
    /// module (some module name starts with it).
    fn could_reach_module(&self, name: &str) -> bool {
        name.is_empty() || self.prefixes.contains_key(name)
    }

    pub fn options(&self) -> &IndexOptions {
        &self.options
    }

    /// The module name a path gets under this index's options.
    pub fn module_of_path(&self, path: &str) -> Option<(String, bool)> {
        module_name(path, &self.options)
    }

    /// The path of an indexed module.
    pub(crate) fn module_path(&self, module: &str) -> Option<String> {
        self.modules.get(module).map(|m| m.path.clone())
    }

    /// Module names, sorted.
    pub fn modules(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.modules.keys().map(|name| &**name).collect();
        names.sort_unstable();
        names
    }

    /// Whether any indexed file had syntax errors, by module.
    pub fn syntax_errors(&self, module: &str) -> Option<bool> {
        self.modules.get(module).map(|m| m.analysis.syntax_errors)
    }

    /// A module's `__all__`, sorted, when it has one (`None`: no such module, or no
    /// `__all__`): what the module declares public.
    pub fn exports(&self, module: &str) -> Option<Vec<&str>> {
        let exports = self.modules.get(module)?.exports.as_ref()?;
        let mut names: Vec<&str> = exports.iter().map(String::as_str).collect();
        names.sort_unstable();
        Some(names)
    }

    /// The definitions of a module, in source order of first occurrence.
    pub fn definitions(&self, module: &str) -> Vec<IndexedDefinition> {
        let Some(m) = self.modules.get(module) else {
            return Vec::new();
        };
        let mut seen = BTreeSet::new();
        m.analysis
            .defs
            .iter()
            .filter(|d| seen.insert(d.qual.as_str()))
            .filter_map(|d| self.definition(module, &d.qual, &Fuel::default()))
            .collect()
    }

    /// One definition by module and qualified name within it.
    pub(crate) fn definition(
        &self,
        module: &str,
        qual: &str,
        fuel: &Fuel,
    ) -> Option<IndexedDefinition> {
        let m = self.modules.get(module)?;
        let defs = m.by_qual.get(qual)?;
        let first = &m.analysis.defs[*defs.first()?];
        let bases = first
            .bases
            .iter()
            .map(|chain| match chain {
                Some(chain) => self
                    .resolve_chain_in(m, first.outer, chain, fuel)
                    .map_or_else(|| chain.join("."), |e| e.identity()),
                None => "<expression>".to_owned(),
            })
            .collect();
        Some(IndexedDefinition {
            qualified_name: join(module, qual),
            kind: first.kind,
            path: m.path.clone(),
            spans: defs
                .iter()
                .map(|&d| LineSpan {
                    start: m.analysis.defs[d].start_line,
                    end: m.analysis.defs[d].end_line,
                })
                .collect(),
            signatures: defs
                .iter()
                .map(|&d| m.analysis.defs[d].signature.clone())
                .collect(),
            docstring: first.docstring.clone(),
            bases,
            callees: self.callees_of(module, qual, fuel).into_iter().collect(),
        })
    }

    /// Whether `module` binds `name` at its top level (a definition, an assignment, an
    /// import), or may through a star import; `None` when no such module is indexed.
    pub(crate) fn binds(&self, module: &str, name: &str) -> Option<bool> {
        let m = self.modules.get(module)?;
        Some(m.last.contains_key(name) || !m.stars.is_empty())
    }

    /// The imports of a module, in source order.
    pub fn imports(&self, module: &str) -> Vec<ImportedName> {
        let Some(m) = self.modules.get(module) else {
            return Vec::new();
        };
        m.analysis
            .imports
            .iter()
            .map(|import| {
                let imported = match &import.target {
                    ImportTarget::Module(name) | ImportTarget::Unresolvable(name) => name.clone(),
                    ImportTarget::From { module, name } => join(module, name),
                    ImportTarget::Star(module) => join(module, "*"),
                };
                let resolved = match &import.target {
                    ImportTarget::Star(module) => join(module, "*"),
                    _ => self
                        .import_entity(&import.target, &mut Budget::new(&Fuel::default()))
                        .identity(),
                };
                ImportedName {
                    name: import.name.clone(),
                    imported,
                    resolved,
                    scope: m.analysis.scope_name(import.scope),
                    line: import.line,
                }
            })
            .collect()
    }

    /// Canonicalises a dotted name (a target): the longest prefix naming a module, then
    /// attribute lookups with re-exports followed (D4).
    pub fn resolve(&self, dotted: &str) -> Resolution {
        self.resolve_with(dotted, &Fuel::default())
    }

    /// [`RepoIndex::resolve`] drawing on an analysis's fuel.
    pub(crate) fn resolve_with(&self, dotted: &str, fuel: &Fuel) -> Resolution {
        match self.resolve_dotted(dotted, fuel) {
            Entity::Def(module, qual) => {
                let Some(m) = self.modules.get(module.as_str()) else {
                    return Resolution::Unknown;
                };
                let kind = m
                    .by_qual
                    .get(&qual)
                    .and_then(|d| d.first())
                    .map_or(DefinitionKind::Function, |&d| m.analysis.defs[d].kind);
                Resolution::Definition {
                    canonical: join(&module, &qual),
                    kind,
                    path: m.path.clone(),
                }
            }
            Entity::Module(name) => Resolution::Module {
                path: self
                    .modules
                    .get(name.as_str())
                    .map(|m| m.path.clone())
                    .unwrap_or_default(),
                name,
            },
            Entity::Name(_) => Resolution::Unknown,
        }
    }

    /// The definition a canonical or re-exported name refers to, merged over occurrences.
    pub fn lookup(&self, dotted: &str) -> Option<IndexedDefinition> {
        let fuel = Fuel::default();
        match self.resolve_dotted(dotted, &fuel) {
            Entity::Def(module, qual) => self.definition(&module, &qual, &fuel),
            _ => None,
        }
    }

    /// The path and spans of the definition `dotted` names, as [`RepoIndex::lookup`] gives
    /// them, without building the rest of the definition (its callees are resolved calls).
    pub(crate) fn spans(&self, dotted: &str, fuel: &Fuel) -> Option<(&str, Vec<LineSpan>)> {
        let Entity::Def(module, qual) = self.resolve_dotted(dotted, fuel) else {
            return None;
        };
        let m = self.modules.get(module.as_str())?;
        let defs = m.by_qual.get(&qual)?;
        let spans = defs
            .iter()
            .map(|&d| LineSpan {
                start: m.analysis.defs[d].start_line,
                end: m.analysis.defs[d].end_line,
            })
            .collect::<Vec<_>>();
        (!spans.is_empty()).then_some((m.path.as_str(), spans))
    }

    /// The callees of the definition `dotted` names (empty when it names none), as the
    /// `callees` of [`RepoIndex::lookup`], without building the rest of the definition.
    pub(crate) fn callees(&self, dotted: &str, fuel: &Fuel) -> BTreeSet<String> {
        match self.resolve_dotted(dotted, fuel) {
            Entity::Def(module, qual) => self.callees_of(&module, &qual, fuel),
            _ => BTreeSet::new(),
        }
    }

    /// The entity a dotted name denotes: its longest prefix that is a module, then
    /// attribute access for the rest. Only prefixes that could be module names are built,
    /// so a long name costs its length, not its length squared.
    pub(crate) fn resolve_dotted(&self, dotted: &str, fuel: &Fuel) -> Entity {
        let parts: Vec<&str> = dotted.split('.').collect();
        let mut prefix = String::new();
        let mut longest = None;
        for (k, part) in parts.iter().enumerate() {
            if k > 0 {
                prefix.push('.');
            }
            prefix.push_str(part);
            if !self.prefixes.contains_key(prefix.as_str()) {
                break;
            }
            if self.modules.contains_key(prefix.as_str()) {
                longest = Some((k + 1, prefix.len()));
            }
        }
        let Some((k, len)) = longest else {
            return Entity::Name(dotted.to_owned());
        };
        prefix.truncate(len);
        let mut budget = Budget::new(fuel);
        self.attrs(Entity::Module(prefix), &parts[k..], &mut budget)
    }

    fn module_entity(&self, name: &str) -> Entity {
        if self.modules.contains_key(name) {
            Entity::Module(name.to_owned())
        } else {
            Entity::Name(name.to_owned())
        }
    }

    /// What an import binds, re-exports followed.
    pub(crate) fn import_target(&self, target: &ImportTarget, fuel: &Fuel) -> Entity {
        self.import_entity(target, &mut Budget::new(fuel))
    }

    fn import_entity(&self, target: &ImportTarget, budget: &mut Budget<'_>) -> Entity {
        match target {
            ImportTarget::Module(name) => self.module_entity(name),
            ImportTarget::From { module, name } => {
                let full = join(module, name);
                if self.modules.contains_key(full.as_str()) {
                    Entity::Module(full)
                } else if self.modules.contains_key(module.as_str()) {
                    self.lookup_in_module(module, name, budget)
                        .unwrap_or(Entity::Name(full))
                } else {
                    Entity::Name(full)
                }
            }
            ImportTarget::Star(module) => self.module_entity(module),
            ImportTarget::Unresolvable(text) => Entity::Name(text.clone()),
        }
    }

    /// The module's namespace binding of `name` (last top-level binding, D4).
    ///
    /// A lookup that comes back to a binding it is following (`pkg/__init__.py` star-imports
    /// `a`, then `b`, and `b` does `from pkg import f`) sees what Python's import order
    /// gives it: while `pkg` runs its import of `b`, `pkg` holds only the bindings above that
    /// import, so `b`'s `f` is `a`'s. Each return to the same name looks strictly higher in
    /// the module, so it ends. With nothing above, the module does not bind the name yet:
    /// `None`, so a star import that only leads back here provides nothing and the one
    /// before it is asked, while an import of the name stays unresolved.
    fn lookup_in_module(
        &self,
        module: &str,
        name: &str,
        budget: &mut Budget<'_>,
    ) -> Option<Entity> {
        let m = self.modules.get(module)?;
        if budget.depth == 0 && budget.visiting.is_empty() {
            // Outermost: the answer depends on the index alone.
            if let Some(r) = self.lookups.get(module, name)
                && budget.fuel.take_many(r.steps)
            {
                return r.found;
            }
            let before = budget.fuel.left();
            let found = self.lookup_in_module_uncached(m, module, name, budget);
            if !budget.fuel.exhausted() {
                let steps = before - budget.fuel.left();
                let remembered = Remembered {
                    found: found.clone(),
                    steps,
                };
                self.lookups.put(module, name, remembered);
            }
            return found;
        }
        self.lookup_in_module_uncached(m, module, name, budget)
    }

    /// [`RepoIndex::lookup_in_module`] made step by step.
    fn lookup_in_module_uncached(
        &self,
        m: &Module,
        module: &str,
        name: &str,
        budget: &mut Budget<'_>,
    ) -> Option<Entity> {
        // The innermost lookup of this name in this module under way, if any.
        let before = budget
            .visiting
            .iter()
            .rev()
            .find(|(vm, vn, _)| vm == module && vn == name)
            .map(|&(_, _, at)| at);
        if budget.depth >= MAX_DEPTH || !budget.fuel.take() {
            return Some(Entity::Name(join(module, name)));
        }
        budget.depth += 1;
        budget
            .visiting
            .push((module.to_owned(), name.to_owned(), usize::MAX));
        let result = self.lookup_in_module_inner(m, module, name, before, budget);
        budget.visiting.pop();
        budget.depth -= 1;
        result
    }

    /// [`RepoIndex::lookup_in_module`] among the bindings of `top` above `before` (all of
    /// them when `None`).
    fn lookup_in_module_inner(
        &self,
        m: &Module,
        module: &str,
        name: &str,
        before: Option<usize>,
        budget: &mut Budget<'_>,
    ) -> Option<Entity> {
        let explicit = match before {
            None => m.last.get(name).copied(),
            Some(end) => m.analysis.top[..end.min(m.analysis.top.len())]
                .iter()
                .rposition(|event| event.name == name),
        };
        let end = before.unwrap_or(usize::MAX);
        for &star in m.stars.iter().rev().filter(|&&star| star < end) {
            if explicit.is_some_and(|e| e > star) {
                break;
            }
            if let TopKind::Import(i) = m.analysis.top[star].kind {
                following(budget, star);
                if let Some(found) = self.star_provides(&m.analysis.imports[i].target, name, budget)
                {
                    return Some(found);
                }
            }
        }
        let at = explicit?;
        following(budget, at);
        let event = &m.analysis.top[at];
        Some(match event.kind {
            TopKind::Def(d) => Entity::Def(module.to_owned(), m.analysis.defs[d].qual.clone()),
            TopKind::Import(i) => self.import_entity(&m.analysis.imports[i].target, budget),
            TopKind::Other => Entity::Name(join(module, name)),
        })
    }

    /// What `from source import *` binds to `name`, if anything.
    fn star_provides(
        &self,
        target: &ImportTarget,
        name: &str,
        budget: &mut Budget<'_>,
    ) -> Option<Entity> {
        let ImportTarget::Star(source) = target else {
            return None;
        };
        let m = self.modules.get(source.as_str())?;
        let exported = match &m.exports {
            Some(all) => all.contains(name),
            None => !name.starts_with('_'),
        };
        if !exported {
            return None;
        }
        self.lookup_in_module(source, name, budget).or_else(|| {
            let full = join(source, name);
            (m.analysis.all.is_some() && self.modules.contains_key(full.as_str()))
                .then_some(Entity::Module(full))
        })
    }

    /// `entity.a.b.c` for the attributes `rest`: [`RepoIndex::attr`] one after the other,
    /// except that once the entity is an unknown name no module starts with, the rest is
    /// appended to it at once (asking for each part would hash the growing name again).
    fn attrs<S: AsRef<str>>(
        &self,
        mut entity: Entity,
        rest: &[S],
        budget: &mut Budget<'_>,
    ) -> Entity {
        for (i, attr) in rest.iter().enumerate() {
            if let Entity::Name(name) = &mut entity
                && !self.could_reach_module(name)
            {
                for attr in &rest[i..] {
                    name.push('.');
                    name.push_str(attr.as_ref());
                }
                return entity;
            }
            entity = self.attr(entity, attr.as_ref(), budget);
        }
        entity
    }

    /// Attribute semantics (D4): a module's namespace first, then its submodule.
    fn attr(&self, entity: Entity, attr: &str, budget: &mut Budget<'_>) -> Entity {
        match entity {
            Entity::Module(m) => self
                .lookup_in_module(&m, attr, budget)
                .unwrap_or_else(|| self.module_entity(&join(&m, attr))),
            Entity::Def(m, q) => self
                .class_member(&m, &q, attr, budget)
                .unwrap_or_else(|| Entity::Name(join(&join(&m, &q), attr))),
            Entity::Name(s) if self.could_reach_module(&s) => self.module_entity(&join(&s, attr)),
            // No module starts with `s`, so none starts with `s.attr`: the name only grows.
            Entity::Name(mut s) => {
                s.push('.');
                s.push_str(attr);
                Entity::Name(s)
            }
        }
    }

    /// `attr` defined in class `module.qual` or inherited from a repository base.
    fn class_member(
        &self,
        module: &str,
        qual: &str,
        attr: &str,
        budget: &mut Budget<'_>,
    ) -> Option<Entity> {
        let m = self.modules.get(module)?;
        let first = &m.analysis.defs[*m.by_qual.get(qual)?.first()?];
        if first.kind != DefinitionKind::Class {
            return None;
        }
        let member = join(qual, attr);
        if m.by_qual.contains_key(&member) {
            return Some(Entity::Def(module.to_owned(), member));
        }
        if budget.depth >= MAX_DEPTH || !budget.fuel.take() {
            return None;
        }
        budget.depth += 1;
        let mut found = None;
        for base in first.bases.iter().flatten() {
            if let Some(Entity::Def(bm, bq)) =
                self.resolve_chain_in_budget(m, first.outer, base, budget)
                && (bm.as_str(), bq.as_str()) != (module, qual)
            {
                found = self.class_member(&bm, &bq, attr, budget);
                if found.is_some() {
                    break;
                }
            }
        }
        budget.depth -= 1;
        found
    }

    /// The repository classes `module.qual` inherits from, itself first (bounded DFS).
    pub(crate) fn ancestors(&self, class: &Entity, fuel: &Fuel) -> Vec<Entity> {
        let mut out = vec![class.clone()];
        let mut i = 0;
        while i < out.len() && out.len() <= MAX_DEPTH as usize {
            if let Entity::Def(module, qual) = &out[i]
                && let Some(m) = self.modules.get(module.as_str())
                && let Some(&d) = m.by_qual.get(qual).and_then(|d| d.first())
            {
                let def = &m.analysis.defs[d];
                for base in def.bases.iter().flatten() {
                    if let Some(e @ Entity::Def(..)) =
                        self.resolve_chain_in(m, def.outer, base, fuel)
                        && !out.contains(&e)
                    {
                        out.push(e);
                    }
                }
            }
            i += 1;
        }
        out
    }

    /// Every class the repository defines (`pkg.mod.Class`, `pkg.mod.Outer.Inner`) with its
    /// bases, each as what it resolves to: a class of the repository by its qualified name,
    /// anything else by the dotted name it is written as or imported from (`Exception`,
    /// `builtins.ValueError`). A base that is not a dotted name (`make_base()`) is left out.
    pub fn class_bases(&self) -> Vec<(String, Vec<String>)> {
        let fuel = Fuel::default();
        let mut out = Vec::new();
        for (name, m) in &self.modules {
            for (qual, defs) in &m.by_qual {
                let Some(&d) = defs.first() else { continue };
                let def = &m.analysis.defs[d];
                if def.kind != DefinitionKind::Class {
                    continue;
                }
                let bases = def
                    .bases
                    .iter()
                    .flatten()
                    .filter_map(|chain| {
                        match self.resolve_chain_in(m, def.outer, chain, &fuel)? {
                            Entity::Def(module, qual) => Some(format!("{module}.{qual}")),
                            Entity::Name(dotted) => Some(dotted),
                            Entity::Module(_) => None,
                        }
                    })
                    .collect();
                out.push((format!("{name}.{qual}"), bases));
            }
        }
        out.sort();
        out
    }

    /// Whether an entity is a class of the index.
    pub(crate) fn is_class(&self, entity: &Entity) -> bool {
        self.def_kind(entity) == Some(DefinitionKind::Class)
    }

    pub(crate) fn def_kind(&self, entity: &Entity) -> Option<DefinitionKind> {
        let Entity::Def(module, qual) = entity else {
            return None;
        };
        let m = self.modules.get(module.as_str())?;
        m.by_qual
            .get(qual)
            .and_then(|d| d.first())
            .map(|&d| m.analysis.defs[d].kind)
    }

    /// The definitions directly inside the classes `quals` of `module` (class qualified
    /// name -> the caller's index for it): one scan of the module's definitions, as pairs
    /// of that index and the member.
    pub(crate) fn direct_members(
        &self,
        module: &str,
        quals: &HashMap<&str, usize>,
    ) -> Vec<(usize, Entity)> {
        let Some(m) = self.modules.get(module) else {
            return Vec::new();
        };
        let mut out: Vec<(usize, Entity)> = m
            .by_qual
            .keys()
            .filter_map(|qual| {
                let (class, _) = qual.rsplit_once('.')?;
                let &c = quals.get(class)?;
                Some((c, Entity::Def(module.to_owned(), qual.clone())))
            })
            .collect();
        out.sort();
        out
    }

    /// Whether `Entity::Def(module, qual.attr)` exists directly in the class.
    pub(crate) fn has_member(&self, class: &Entity, attr: &str) -> Option<Entity> {
        let Entity::Def(module, qual) = class else {
            return None;
        };
        let member = join(qual, attr);
        self.modules
            .get(module.as_str())?
            .by_qual
            .contains_key(&member)
            .then(|| Entity::Def(module.clone(), member))
    }

    /// The class that provides `attr` to `class` (its own or an inherited one).
    pub(crate) fn member_of(&self, class: &Entity, attr: &str, fuel: &Fuel) -> Option<Entity> {
        let Entity::Def(module, qual) = class else {
            return None;
        };
        self.class_member(module, qual, attr, &mut Budget::new(fuel))
    }

    /// Resolves a chain written in a file (any binding, for bases): module-level names
    /// through the module's namespace, imports followed.
    fn resolve_chain_in(
        &self,
        m: &Module,
        scope: usize,
        chain: &[String],
        fuel: &Fuel,
    ) -> Option<Entity> {
        self.resolve_chain_in_budget(m, scope, chain, &mut Budget::new(fuel))
    }

    /// [`RepoIndex::resolve_chain_in`] with a budget of its own (for a class's bases, looked
    /// up with a fresh depth and visited set, as before), drawing on the caller's fuel.
    fn resolve_chain_in_budget(
        &self,
        m: &Module,
        scope: usize,
        chain: &[String],
        outer: &mut Budget<'_>,
    ) -> Option<Entity> {
        let (head, rest) = chain.split_first()?;
        let mut budget = Budget::new(outer.fuel);
        let start = match m.analysis.lookup(scope, head) {
            NameRef::Imports(binding) => {
                let i = *binding.imports.first()?;
                self.import_entity(&m.analysis.imports[i].target, &mut budget)
            }
            NameRef::Local(s, _) if s == scope::MODULE_SCOPE => {
                let module = self.by_path.get(m.path.as_str())?;
                self.lookup_in_module(module, head, &mut budget)?
            }
            NameRef::Local(..) => return None,
            NameRef::Free => self
                .star_lookup(&m.analysis, head, &mut budget)
                .unwrap_or_else(|| Entity::Name(head.clone())),
        };
        Some(self.attrs(start, rest, &mut budget))
    }

    /// A free name provided by one of the file's module-level star imports (last wins).
    fn star_lookup(
        &self,
        analysis: &FileAnalysis,
        name: &str,
        budget: &mut Budget<'_>,
    ) -> Option<Entity> {
        self.star_lookup_import(analysis, name, budget)
            .map(|(_, entity)| entity)
    }

    /// [`Self::star_lookup`] with the star import (its index) that provides the name.
    fn star_lookup_import(
        &self,
        analysis: &FileAnalysis,
        name: &str,
        budget: &mut Budget<'_>,
    ) -> Option<(usize, Entity)> {
        analysis.scopes[scope::MODULE_SCOPE]
            .stars
            .iter()
            .rev()
            .find_map(|&i| {
                self.star_provides(&analysis.imports[i].target, name, budget)
                    .map(|entity| (i, entity))
            })
    }

    /// The entities an import-bound chain passes through: for `m.f.x` with `m` imported,
    /// the entities of `m`, `m.f`, `m.f.x` for each import binding the head (D3).
    /// Empty when the head is local or unbound and no star import provides it.
    ///
    /// Once the chain is an unknown name that no module name starts with, the rest can
    /// only be unknown names too: the path's last entity then takes the rest of the chain
    /// (so it is the whole chain's entity) instead of one entity per part.
    pub(crate) fn chain_entities(
        &self,
        analysis: &FileAnalysis,
        scope: usize,
        chain: &[String],
        fuel: &Fuel,
    ) -> Vec<Vec<Entity>> {
        self.chain_paths(analysis, scope, chain, fuel)
            .into_iter()
            .map(|(_, path)| path)
            .collect()
    }

    /// [`Self::chain_entities`], each path with the import (its index in the file's
    /// imports) that binds the head: the evidence of a use.
    pub(crate) fn chain_paths(
        &self,
        analysis: &FileAnalysis,
        scope: usize,
        chain: &[String],
        fuel: &Fuel,
    ) -> Vec<(usize, Vec<Entity>)> {
        let Some((head, rest)) = chain.split_first() else {
            return Vec::new();
        };
        let mut budget = Budget::new(fuel);
        let starts: Vec<(usize, Entity)> = match analysis.lookup(scope, head) {
            NameRef::Imports(binding) => binding
                .imports
                .iter()
                .map(|&i| {
                    (
                        i,
                        self.import_entity(&analysis.imports[i].target, &mut budget),
                    )
                })
                .collect(),
            NameRef::Local(..) => Vec::new(),
            NameRef::Free => self
                .star_lookup_import(analysis, head, &mut budget)
                .into_iter()
                .collect(),
        };
        starts
            .into_iter()
            .map(|(import, start)| (import, self.path_from(start, rest, &mut budget)))
            .collect()
    }

    /// The entities of a chain whose head is `start`, `rest` its attributes.
    fn path_from(&self, start: Entity, rest: &[String], budget: &mut Budget<'_>) -> Vec<Entity> {
        let mut path = vec![start];
        for (i, attr) in rest.iter().enumerate() {
            if let Some(Entity::Name(name)) = path.last_mut()
                && !self.could_reach_module(name)
            {
                for attr in &rest[i..] {
                    name.push('.');
                    name.push_str(attr);
                }
                break;
            }
            let last = path.last().cloned().unwrap_or(Entity::Name(String::new()));
            path.push(self.attr(last, attr, budget));
        }
        path
    }

    /// The identities a call may have where it is made, when its head is a name of the
    /// module's namespace: one per value the name may have there
    /// ([`FileAnalysis::module_candidates`]: a call before `helper = None` still calls the
    /// imported `helper`); `None` when the head is a function's own name or the module
    /// never binds it.
    fn module_call_identities(
        &self,
        analysis: &FileAnalysis,
        call: &CallSite,
        fuel: &Fuel,
    ) -> Option<Vec<String>> {
        let Some(Callee::Chain(chain)) = call.callee.as_ref() else {
            return None;
        };
        let (head, rest) = chain.split_first()?;
        let candidates = analysis.module_candidates(call.scope, head, call.at)?;
        let mut budget = Budget::new(fuel);
        let mut out: Vec<String> = Vec::new();
        for candidate in candidates {
            let start = match candidate {
                Candidate::Import(i) => {
                    Some(self.import_entity(&analysis.imports[i].target, &mut budget))
                }
                Candidate::Unbound => self.star_lookup(analysis, head, &mut budget),
                Candidate::Local => None,
            };
            let identity = match start {
                Some(start) => self
                    .path_from(start, rest, &mut budget)
                    .last()
                    .map(Entity::identity),
                // The module's own name keeps its name as its identity (D5).
                None => chain.last().cloned(),
            };
            if let Some(identity) = identity
                && !out.contains(&identity)
            {
                out.push(identity);
            }
        }
        Some(out)
    }

    /// A call's identity (D5): the resolved dotted name when the head is import-bound
    /// (the first such import), else the final attribute or bare name.
    pub(crate) fn callee_identity(
        &self,
        analysis: &FileAnalysis,
        call: &CallSite,
        fuel: &Fuel,
    ) -> Option<String> {
        match call.callee.as_ref()? {
            Callee::Attr(name) => Some(name.clone()),
            Callee::Chain(chain) => {
                let resolved = self.chain_entities(analysis, call.scope, chain, fuel);
                match resolved.first().and_then(|path| path.last()) {
                    Some(entity) => Some(entity.identity()),
                    None => chain.last().cloned(),
                }
            }
        }
    }

    /// Every named call of a module, in source order: the qualified name (within the module)
    /// of the definition whose body holds it (`<module>` at module level) and its callee
    /// identity (D5). What a dependency graph's invoke edges are counted from.
    ///
    /// Unlike D3's rule for references, where any assignment of a name in a scope shadows
    /// its imports there, a call through a module-level name resolves to the values the
    /// name may have where the call is made ([`FileAnalysis::module_candidates`]), so a call
    /// made before the file rebinds the name stays a call of what it imported. A call
    /// with several possible callees (a name bound in two branches) appears once per callee.
    pub(crate) fn calls(&self, module: &str) -> Vec<ModuleCall<'_>> {
        let Some(m) = self.modules.get(module) else {
            return Vec::new();
        };
        let fuel = Fuel::default();
        let mut out = Vec::new();
        for call in &m.analysis.calls {
            let identities = match self.module_call_identities(&m.analysis, call, &fuel) {
                Some(identities) => identities,
                None => self
                    .callee_identity(&m.analysis, call, &fuel)
                    .into_iter()
                    .collect(),
            };
            for identity in identities {
                out.push(ModuleCall {
                    scope: m.analysis.scope_name(call.scope),
                    identity,
                    line: call.line,
                    args: &call.args,
                });
            }
        }
        out
    }

    /// Distinct callee identities (builtins included) of every occurrence of `module.qual` (D6).
    pub(crate) fn callees_of(&self, module: &str, qual: &str, fuel: &Fuel) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let Some(m) = self.modules.get(module) else {
            return out;
        };
        let Some(defs) = m.by_qual.get(qual) else {
            return out;
        };
        for &d in defs {
            let def = &m.analysis.defs[d];
            if def.kind == DefinitionKind::Class {
                continue;
            }
            for call in m.analysis.calls_within(def.inner) {
                if let Some(identity) = self.callee_identity(&m.analysis, call, fuel) {
                    out.insert(identity);
                }
            }
        }
        out
    }
}

/// One named call of a module ([`RepoIndex::calls`]).
pub(crate) struct ModuleCall<'a> {
    /// The qualified name (within the module) of the definition whose body holds it, or
    /// `<module>`.
    pub(crate) scope: String,
    /// Its callee identity (D5).
    pub(crate) identity: String,
    pub(crate) line: u32,
    pub(crate) args: &'a CallArgs,
}

/// Removes builtin identities (D5).
pub(crate) fn non_builtin(identities: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    identities.into_iter().filter(|i| !is_builtin(i)).collect()
}
