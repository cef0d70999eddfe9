//! Repository index: modules, definitions, imports and re-exports resolved per spec D1, D4, D5.
//!
//! Files are analysed once when inserted; names are resolved lazily, on lookup, so adding
//! a file (the agent's module of the previous turn) costs only that file's parse.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use serde::Serialize;

use super::builtins::is_builtin;
use super::scope::{self, CallSite, Callee, FileAnalysis, ImportTarget, NameRef, TopKind};
use crate::outline::DefinitionKind;
use crate::workspace::Workspace;

/// Re-export chains are followed at most this many import hops (D4).
const MAX_DEPTH: u32 = 32;

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
    modules: HashMap<String, Arc<Module>>,
    by_path: HashMap<String, String>,
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

struct Budget {
    depth: u32,
    visiting: Vec<(String, String)>,
}

impl Budget {
    fn new() -> Self {
        Budget {
            depth: 0,
            visiting: Vec::new(),
        }
    }
}

impl RepoIndex {
    /// Indexes every `.py` file of a workspace.
    pub fn build(workspace: &Workspace, options: &IndexOptions) -> Self {
        let mut index = RepoIndex {
            options: options.clone(),
            ..RepoIndex::default()
        };
        for (path, text) in workspace.files() {
            index.insert(path, text);
        }
        index
    }

    /// Adds or replaces one file (non-Python files are ignored).
    pub fn insert(&mut self, path: &str, text: &str) {
        let path = crate::workspace::normalise_path(path);
        let Some((name, package)) = module_name(&path, &self.options) else {
            return;
        };
        let analysis = scope::analyse(text, &name, package);
        self.insert_analysed(&path, name, analysis);
    }

    /// Adds or replaces the module `name` at the normalised `path` from its analysis, so a
    /// file already analysed (a scored submission) is not parsed a second time.
    pub(crate) fn insert_analysed(&mut self, path: &str, name: String, analysis: FileAnalysis) {
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
        if let Some(old) = self.by_path.insert(path.to_owned(), name.clone()) {
            self.modules.remove(&old);
        }
        self.modules.insert(
            name,
            Arc::new(Module {
                path: path.to_owned(),
                analysis,
                last,
                stars,
                by_qual,
            }),
        );
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
        let mut names: Vec<&str> = self.modules.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// Whether any indexed file had syntax errors, by module.
    pub fn syntax_errors(&self, module: &str) -> Option<bool> {
        self.modules.get(module).map(|m| m.analysis.syntax_errors)
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
            .filter_map(|d| self.definition(module, &d.qual))
            .collect()
    }

    /// One definition by module and qualified name within it.
    pub(crate) fn definition(&self, module: &str, qual: &str) -> Option<IndexedDefinition> {
        let m = self.modules.get(module)?;
        let defs = m.by_qual.get(qual)?;
        let first = &m.analysis.defs[*defs.first()?];
        let bases = first
            .bases
            .iter()
            .map(|chain| match chain {
                Some(chain) => self
                    .resolve_chain_in(m, first.outer, chain)
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
            callees: self.callees_of(module, qual).into_iter().collect(),
        })
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
                        .import_entity(&import.target, &mut Budget::new())
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
        match self.resolve_dotted(dotted) {
            Entity::Def(module, qual) => {
                let Some(m) = self.modules.get(&module) else {
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
                    .get(&name)
                    .map(|m| m.path.clone())
                    .unwrap_or_default(),
                name,
            },
            Entity::Name(_) => Resolution::Unknown,
        }
    }

    /// The definition a canonical or re-exported name refers to, merged over occurrences.
    pub fn lookup(&self, dotted: &str) -> Option<IndexedDefinition> {
        match self.resolve_dotted(dotted) {
            Entity::Def(module, qual) => self.definition(&module, &qual),
            _ => None,
        }
    }

    /// The path and spans of the definition `dotted` names, as [`RepoIndex::lookup`] gives
    /// them, without building the rest of the definition (its callees are resolved calls).
    pub(crate) fn spans(&self, dotted: &str) -> Option<(&str, Vec<LineSpan>)> {
        let Entity::Def(module, qual) = self.resolve_dotted(dotted) else {
            return None;
        };
        let m = self.modules.get(&module)?;
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
    pub(crate) fn callees(&self, dotted: &str) -> BTreeSet<String> {
        match self.resolve_dotted(dotted) {
            Entity::Def(module, qual) => self.callees_of(&module, &qual),
            _ => BTreeSet::new(),
        }
    }

    pub(crate) fn resolve_dotted(&self, dotted: &str) -> Entity {
        let parts: Vec<&str> = dotted.split('.').collect();
        for k in (1..=parts.len()).rev() {
            let prefix = parts[..k].join(".");
            if self.modules.contains_key(&prefix) {
                let mut budget = Budget::new();
                return parts[k..]
                    .iter()
                    .fold(Entity::Module(prefix), |e, a| self.attr(e, a, &mut budget));
            }
        }
        Entity::Name(dotted.to_owned())
    }

    fn module_entity(&self, name: &str) -> Entity {
        if self.modules.contains_key(name) {
            Entity::Module(name.to_owned())
        } else {
            Entity::Name(name.to_owned())
        }
    }

    /// What an import binds, re-exports followed.
    pub(crate) fn import_target(&self, target: &ImportTarget) -> Entity {
        self.import_entity(target, &mut Budget::new())
    }

    fn import_entity(&self, target: &ImportTarget, budget: &mut Budget) -> Entity {
        match target {
            ImportTarget::Module(name) => self.module_entity(name),
            ImportTarget::From { module, name } => {
                let full = join(module, name);
                if self.modules.contains_key(&full) {
                    Entity::Module(full)
                } else if self.modules.contains_key(module) {
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
    fn lookup_in_module(&self, module: &str, name: &str, budget: &mut Budget) -> Option<Entity> {
        let m = self.modules.get(module)?;
        let key = (module.to_owned(), name.to_owned());
        if budget.depth >= MAX_DEPTH || budget.visiting.contains(&key) {
            return Some(Entity::Name(join(module, name)));
        }
        budget.depth += 1;
        budget.visiting.push(key);
        let result = self.lookup_in_module_inner(m, module, name, budget);
        budget.visiting.pop();
        budget.depth -= 1;
        result
    }

    fn lookup_in_module_inner(
        &self,
        m: &Module,
        module: &str,
        name: &str,
        budget: &mut Budget,
    ) -> Option<Entity> {
        let explicit = m.last.get(name).copied();
        for &star in m.stars.iter().rev() {
            if explicit.is_some_and(|e| e > star) {
                break;
            }
            if let TopKind::Import(i) = m.analysis.top[star].kind
                && let Some(found) = self.star_provides(&m.analysis.imports[i].target, name, budget)
            {
                return Some(found);
            }
        }
        let event = &m.analysis.top[explicit?];
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
        budget: &mut Budget,
    ) -> Option<Entity> {
        let ImportTarget::Star(source) = target else {
            return None;
        };
        let m = self.modules.get(source)?;
        let exported = match &m.analysis.all {
            Some(all) => all.iter().any(|n| n == name),
            None => !name.starts_with('_'),
        };
        if !exported {
            return None;
        }
        self.lookup_in_module(source, name, budget).or_else(|| {
            let full = join(source, name);
            (m.analysis.all.is_some() && self.modules.contains_key(&full))
                .then_some(Entity::Module(full))
        })
    }

    /// Attribute semantics (D4): a module's namespace first, then its submodule.
    fn attr(&self, entity: Entity, attr: &str, budget: &mut Budget) -> Entity {
        match entity {
            Entity::Module(m) => self
                .lookup_in_module(&m, attr, budget)
                .unwrap_or_else(|| self.module_entity(&join(&m, attr))),
            Entity::Def(m, q) => self
                .class_member(&m, &q, attr, budget)
                .unwrap_or_else(|| Entity::Name(join(&join(&m, &q), attr))),
            Entity::Name(s) => self.module_entity(&join(&s, attr)),
        }
    }

    /// `attr` defined in class `module.qual` or inherited from a repository base.
    fn class_member(
        &self,
        module: &str,
        qual: &str,
        attr: &str,
        budget: &mut Budget,
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
        if budget.depth >= MAX_DEPTH {
            return None;
        }
        budget.depth += 1;
        let mut found = None;
        for base in first.bases.iter().flatten() {
            if let Some(Entity::Def(bm, bq)) = self.resolve_chain_in(m, first.outer, base)
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
    pub(crate) fn ancestors(&self, class: &Entity) -> Vec<Entity> {
        let mut out = vec![class.clone()];
        let mut i = 0;
        while i < out.len() && out.len() <= MAX_DEPTH as usize {
            if let Entity::Def(module, qual) = &out[i]
                && let Some(m) = self.modules.get(module)
                && let Some(&d) = m.by_qual.get(qual).and_then(|d| d.first())
            {
                let def = &m.analysis.defs[d];
                for base in def.bases.iter().flatten() {
                    if let Some(e @ Entity::Def(..)) = self.resolve_chain_in(m, def.outer, base)
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

    /// Whether an entity is a class of the index.
    pub(crate) fn is_class(&self, entity: &Entity) -> bool {
        self.def_kind(entity) == Some(DefinitionKind::Class)
    }

    pub(crate) fn def_kind(&self, entity: &Entity) -> Option<DefinitionKind> {
        let Entity::Def(module, qual) = entity else {
            return None;
        };
        let m = self.modules.get(module)?;
        m.by_qual
            .get(qual)
            .and_then(|d| d.first())
            .map(|&d| m.analysis.defs[d].kind)
    }

    /// Whether `Entity::Def(module, qual.attr)` exists directly in the class.
    pub(crate) fn has_member(&self, class: &Entity, attr: &str) -> Option<Entity> {
        let Entity::Def(module, qual) = class else {
            return None;
        };
        let member = join(qual, attr);
        self.modules
            .get(module)?
            .by_qual
            .contains_key(&member)
            .then(|| Entity::Def(module.clone(), member))
    }

    /// The class that provides `attr` to `class` (its own or an inherited one).
    pub(crate) fn member_of(&self, class: &Entity, attr: &str) -> Option<Entity> {
        let Entity::Def(module, qual) = class else {
            return None;
        };
        self.class_member(module, qual, attr, &mut Budget::new())
    }

    /// Resolves a chain written in a file (any binding, for bases): module-level names
    /// through the module's namespace, imports followed.
    fn resolve_chain_in(&self, m: &Module, scope: usize, chain: &[String]) -> Option<Entity> {
        let (head, rest) = chain.split_first()?;
        let mut budget = Budget::new();
        let start = match m.analysis.lookup(scope, head) {
            NameRef::Imports(binding) => {
                let i = *binding.imports.first()?;
                self.import_entity(&m.analysis.imports[i].target, &mut budget)
            }
            NameRef::Local(s, _) if s == scope::MODULE_SCOPE => {
                let module = self.by_path.get(&m.path)?;
                self.lookup_in_module(module, head, &mut budget)?
            }
            NameRef::Local(..) => return None,
            NameRef::Free => self
                .star_lookup(&m.analysis, head, &mut budget)
                .unwrap_or_else(|| Entity::Name(head.clone())),
        };
        Some(rest.iter().fold(start, |e, a| self.attr(e, a, &mut budget)))
    }

    /// A free name provided by one of the file's module-level star imports (last wins).
    fn star_lookup(
        &self,
        analysis: &FileAnalysis,
        name: &str,
        budget: &mut Budget,
    ) -> Option<Entity> {
        analysis.scopes[scope::MODULE_SCOPE]
            .stars
            .iter()
            .rev()
            .find_map(|&i| self.star_provides(&analysis.imports[i].target, name, budget))
    }

    /// The entities an import-bound chain passes through: for `m.f.x` with `m` imported,
    /// the entities of `m`, `m.f`, `m.f.x` for each import binding the head (D3).
    /// Empty when the head is local or unbound and no star import provides it.
    pub(crate) fn chain_entities(
        &self,
        analysis: &FileAnalysis,
        scope: usize,
        chain: &[String],
    ) -> Vec<Vec<Entity>> {
        let Some((head, rest)) = chain.split_first() else {
            return Vec::new();
        };
        let mut budget = Budget::new();
        let starts: Vec<Entity> = match analysis.lookup(scope, head) {
            NameRef::Imports(binding) => binding
                .imports
                .iter()
                .map(|&i| self.import_entity(&analysis.imports[i].target, &mut budget))
                .collect(),
            NameRef::Local(..) => Vec::new(),
            NameRef::Free => self
                .star_lookup(analysis, head, &mut budget)
                .into_iter()
                .collect(),
        };
        starts
            .into_iter()
            .map(|start| {
                let mut path = vec![start];
                for attr in rest {
                    let last = path.last().cloned().unwrap_or(Entity::Name(String::new()));
                    path.push(self.attr(last, attr, &mut budget));
                }
                path
            })
            .collect()
    }

    /// A call's identity (D5): the resolved dotted name when the head is import-bound
    /// (the first such import), else the final attribute or bare name.
    pub(crate) fn callee_identity(
        &self,
        analysis: &FileAnalysis,
        call: &CallSite,
    ) -> Option<String> {
        match call.callee.as_ref()? {
            Callee::Attr(name) => Some(name.clone()),
            Callee::Chain(chain) => {
                let resolved = self.chain_entities(analysis, call.scope, chain);
                match resolved.first().and_then(|path| path.last()) {
                    Some(entity) => Some(entity.identity()),
                    None => chain.last().cloned(),
                }
            }
        }
    }

    /// Distinct callee identities (builtins included) of every occurrence of `module.qual` (D6).
    pub(crate) fn callees_of(&self, module: &str, qual: &str) -> BTreeSet<String> {
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
            for call in &m.analysis.calls {
                if m.analysis.scope_within(call.scope, def.inner)
                    && let Some(identity) = self.callee_identity(&m.analysis, call)
                {
                    out.insert(identity);
                }
            }
        }
        out
    }
}

/// Removes builtin identities (D5).
pub(crate) fn non_builtin(identities: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    identities.into_iter().filter(|i| !is_builtin(i)).collect()
}
