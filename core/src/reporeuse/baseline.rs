//! Baseline submissions computed by the tool: `reference`, `empty` and `copy` (issue 4).
//!
//! A baseline is a run whose files the tool writes itself, to show where the metrics sit
//! for known behaviour:
//! - `reference`: each turn's reference solution, as is (`Some(reference)`): every test
//!   passes, every target is reused, nothing is re-implemented.
//! - `empty`: no file at the required path (`None`): reuse 0, every test fails (D8).
//! - `copy`: the reference with each target's definition copied into the module under a
//!   private name, with what it needs imported, and called instead of the target
//!   ([`copy_module`]). Behaviour is kept, so the hidden tests still pass, while reuse
//!   drops to 0 and the copied targets appear re-implemented (spec 1, D6).
//!
//! [`Baseline::module`] gives any of the three; [`copy_module`] also says what it copied
//! and what it could not. Everything is pure: the caller reads files and runs tests.
//!
//! How `copy` is built, for each target (repo targets, then self targets), in W_{t-1}:
//! 1. The target is canonicalised as the scorer does (re-exports followed, D4), and its
//!    last top-level `def` in the defining module is taken (decorators included).
//! 2. The copy is renamed `_copy_<name>` (made unique in the module). Decorators are kept
//!    when they change behaviour (networkx's `@not_implemented_for`, `@py_random_state`:
//!    they raise on unsupported graphs or turn `seed` into a generator) and imported like
//!    any other name; those in [`DROPPED_DECORATORS`] are removed (see there why).
//! 3. Every name the copy uses from its defining module's namespace is bound in the new
//!    module: module-level imports of the defining module are repeated with their absolute
//!    targets (`import networkx as nx`, `from collections import deque`), and the module's
//!    own definitions and constants are imported from it by name, private ones too
//!    (`from networkx.algorithms.shortest_paths.weighted import _weight_function`). A name
//!    the reference already binds to the same thing is reused; a name it uses for something
//!    else gets an alias (`_copy_<name>`), and the copy is rewritten to use the alias.
//!    Uses of a copied target inside a copy (recursion, one target calling another) are
//!    rewritten to that target's private name, so the module never references a target.
//! 4. Every use in the reference that resolves to a copied target (a call or a value
//!    reference, through whatever import form the reference used: `f`, `g` from
//!    `import f as g`, `m.f`, `pkg.mod.f`) is replaced by the private name. Imports of the
//!    targets are left in place: an import without a use references nothing (spec 1).
//! 5. The imports and copies are inserted after the reference's leading docstring and
//!    imports, so they exist before any module-level code runs.
//!
//! All rewriting is done on byte spans of [`crate::syntax`] nodes, applied back to front
//! ([`crate::python::rewrite`]).
//! Nothing fails: a target that cannot be copied (unknown, a method or a class, a nested
//! function, a file missing from the workspace) is left as the reference uses it and
//! reported in [`CopyResult::diagnostics`], as are syntax errors.
//!
//! ```
//! use wheelwright_core::reporeuse::baseline::copy_module;
//! use wheelwright_core::python::index::{IndexOptions, RepoIndex};
//! use wheelwright_core::workspace::Workspace;
//! let mut w = Workspace::new();
//! w.insert("pkg/__init__.py", "");
//! w.insert("pkg/text.py", "def clean(s):\n    return s.strip()\n");
//! let index = RepoIndex::build(&w, &IndexOptions::default());
//! let reference = "from pkg.text import clean\n\n\ndef tidy(xs):\n    return [clean(x) for x in xs]\n";
//! let copy = copy_module(&w, &index, "sol/a.py", reference, &["pkg.text.clean".to_owned()]);
//! assert_eq!(copy.copied[0].private_name, "_copy_clean");
//! assert!(copy.text.contains("def _copy_clean(s):\n    return s.strip()"));
//! assert!(copy.text.contains("return [_copy_clean(x) for x in xs]"));
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use crate::budget::{Cancel, Cancelled};
use crate::python::builtins::is_builtin;
use crate::python::facts::{self, DefinitionKind};
use crate::python::fuel::Fuel;
use crate::python::index::IndexOptions;
use crate::python::index::{Entity, RepoIndex};
use crate::python::rewrite::{Edit, apply, dedent, edit, insertion_range};
use crate::python::scope::{self, FileAnalysis, ImportTarget, MODULE_SCOPE, NameRef, ScopeId};
use crate::reporeuse::bundle::RepoReuseBundle;
use crate::reporeuse::dataset::{RepoReuseDataset, RepositoryFiles};
use crate::syntax::{self, Field, Kind, NodeId, SyntaxTree};
use crate::workspace::Workspace;

/// Prefix of the private names given to copies and to aliases of the names they need.
const PRIVATE_PREFIX: &str = "_copy_";

/// Decorators removed from copies, by canonical name.
///
/// networkx's `@nx._dispatchable` only routes calls to other backends (none are installed
/// for the tests; with plain networkx graphs it calls the function unchanged), and it
/// registers every decorated function by name in a process-wide registry, raising on a
/// second registration: a copy would register under its private name, and importing the
/// module twice would fail. Removing it keeps behaviour and makes the copy plain Python.
pub const DROPPED_DECORATORS: &[&str] = &["networkx.utils.backends._dispatchable"];

/// The baselines the tool computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Baseline {
    Reference,
    Empty,
    Copy,
}

impl Baseline {
    pub const ALL: [Baseline; 3] = [Baseline::Reference, Baseline::Empty, Baseline::Copy];

    pub fn name(self) -> &'static str {
        match self {
            Baseline::Reference => "reference",
            Baseline::Empty => "empty",
            Baseline::Copy => "copy",
        }
    }

    /// The baseline's file at the turn's required path (`None`: no file). The arguments are
    /// those of [`copy_module`], whose diagnostics this drops; `reference` and `empty` only
    /// look at `reference`.
    pub fn module(
        self,
        workspace: &Workspace,
        index: &RepoIndex,
        module_path: &str,
        reference: &str,
        targets: &[String],
    ) -> Option<String> {
        match self {
            Baseline::Reference => Some(reference.to_owned()),
            Baseline::Empty => None,
            Baseline::Copy => {
                Some(copy_module(workspace, index, module_path, reference, targets).text)
            }
        }
    }
}

/// The `copy` baseline of every turn, in dataset order: each reference with its targets
/// copied in ([`copy_module`]), in W_{t-1} = the chain's repository (its files in
/// `repositories`) plus the chain's earlier references, as the scorer and the test runs
/// see it.
pub fn copy_modules(dataset: &RepoReuseDataset, repositories: &RepositoryFiles) -> Vec<CopyResult> {
    // Each repository indexed once, when a chain first needs it.
    let mut bases: BTreeMap<&str, (Workspace, RepoIndex)> = BTreeMap::new();
    let no_files = BTreeMap::new();
    let mut out = Vec::new();
    for chain in &dataset.chains {
        let id = dataset
            .manifest
            .repository_of(&chain.manifest)
            .map_or("", |(id, _)| id);
        let (base, base_index) = bases.entry(id).or_insert_with(|| {
            let mut base = Workspace::new();
            for (path, text) in repositories.get(id).unwrap_or(&no_files) {
                base.insert(path, text.as_str());
            }
            let index = RepoIndex::build(&base, &IndexOptions::default());
            (base, index)
        });
        let mut workspace = base.clone();
        let mut index = base_index.clone();
        for turn in &chain.turns {
            let tm = &turn.manifest;
            let targets: Vec<String> = tm
                .repo_targets
                .iter()
                .chain(&tm.self_targets)
                .cloned()
                .collect();
            out.push(copy_module(
                &workspace,
                &index,
                &tm.module_path,
                &turn.reference,
                &targets,
            ));
            workspace.insert(&tm.module_path, turn.reference.as_str());
            index.insert(&tm.module_path, &turn.reference);
        }
    }
    out
}

impl Baseline {
    /// The baseline as a run bundle over the whole dataset, labelled as a baseline (see
    /// [`RepoReuseBundle::baseline`]). `repositories` is W0 of each repository, which
    /// `copy` needs.
    pub fn bundle(
        self,
        dataset: &RepoReuseDataset,
        repositories: &RepositoryFiles,
    ) -> RepoReuseBundle {
        match self {
            Baseline::Reference => RepoReuseBundle::reference(dataset),
            Baseline::Empty => RepoReuseBundle::empty(dataset),
            Baseline::Copy => {
                // copy_modules yields one module per turn, in dataset order.
                let mut copies = copy_modules(dataset, repositories).into_iter();
                RepoReuseBundle::baseline(dataset, self.name(), |turn| {
                    copies
                        .next()
                        .map(|copy| {
                            BTreeMap::from([(turn.manifest.module_path.clone(), copy.text)])
                        })
                        .unwrap_or_default()
                })
            }
        }
    }
}

/// A target copied into the module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CopiedTarget {
    /// As listed by the dataset.
    pub target: String,
    /// Its definition after following re-exports.
    pub canonical: String,
    /// The name of the copy in the module (`_copy_<name>`).
    pub private_name: String,
}

/// The `copy` baseline's module for one turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CopyResult {
    pub text: String,
    /// The targets copied, in the order given.
    pub copied: Vec<CopiedTarget>,
    /// What could not be copied or rewritten, and syntax errors met.
    pub diagnostics: Vec<String>,
}

/// Builds the `copy` baseline's module (see the module documentation).
///
/// `workspace` is W_{t-1} (the repository plus the earlier turns' reference modules) and
/// `index` its index; `module_path` is the turn's required path (for relative imports in
/// the reference); `targets` are the turn's repo targets then self targets.
pub fn copy_module(
    workspace: &Workspace,
    index: &RepoIndex,
    module_path: &str,
    reference: &str,
    targets: &[String],
) -> CopyResult {
    let tree = syntax::parse(reference);
    let (module, package) = index.module_of_path(module_path).unwrap_or_default();
    let analysis = scope::analyse_tree(&tree, &module, package);
    let mut builder = Builder {
        workspace,
        index,
        reference: &analysis,
        names: Names {
            taken: tree
                .descendants(tree.root())
                .filter(|&id| tree.kind(id) == Kind::Identifier)
                .map(|id| tree.text(id).to_owned())
                .collect(),
        },
        bound: HashMap::new(),
        imports: Vec::new(),
        diagnostics: Vec::new(),
        fuel: Fuel::default(),
    };
    if tree.has_syntax_errors() {
        builder.diagnostics.push(format!(
            "{module_path}: the reference has syntax errors; what parsed is rewritten"
        ));
    }
    let plans = builder.plan(targets);
    let private: HashMap<String, String> = plans
        .iter()
        .map(|p| (p.canonical.clone(), p.private.clone()))
        .collect();
    let copies: Vec<String> = plans
        .iter()
        .filter_map(|plan| builder.copy(plan, &private))
        .collect();
    let mut edits = reference_edits(index, &tree, &analysis, &private);
    if !copies.is_empty() {
        let (start, end) = insertion_range(&tree);
        edits.push(Edit {
            start,
            end,
            text: builder.block(&copies, start == 0),
        });
    }
    let text = apply(reference, edits, &mut builder.diagnostics);
    CopyResult {
        text,
        copied: plans
            .into_iter()
            .map(|p| CopiedTarget {
                target: p.target,
                canonical: p.canonical,
                private_name: p.private,
            })
            .collect(),
        diagnostics: builder.diagnostics,
    }
}

/// One target to copy.
struct Plan {
    target: String,
    canonical: String,
    module: String,
    qual: String,
    path: String,
    private: String,
}

/// What a name the copies need is bound to in the new module.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Import {
    /// `import name` (`import name as local`).
    Module(String),
    /// `from module import name` (`... as local`).
    From(String, String),
}

impl Import {
    fn target(&self) -> ImportTarget {
        match self {
            Import::Module(name) => ImportTarget::Module(name.clone()),
            Import::From(module, name) => ImportTarget::From {
                module: module.clone(),
                name: name.clone(),
            },
        }
    }

    fn render(&self, local: &str) -> String {
        let (statement, name) = match self {
            Import::Module(name) => (format!("import {name}"), name),
            Import::From(module, name) => (format!("from {module} import {name}"), name),
        };
        if local == name {
            statement
        } else {
            format!("{statement} as {local}")
        }
    }
}

/// Names in use in the new module; fresh names avoid every identifier of the reference.
struct Names {
    taken: HashSet<String>,
}

impl Names {
    fn fresh(&mut self, base: &str) -> String {
        let stem = format!("{PRIVATE_PREFIX}{}", base.trim_start_matches('_'));
        let mut name = stem.clone();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{stem}_{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }
}

struct Builder<'a> {
    workspace: &'a Workspace,
    index: &'a RepoIndex,
    reference: &'a FileAnalysis,
    names: Names,
    /// The local name each needed import got.
    bound: HashMap<Import, String>,
    /// Imports to add, in the order first needed, with their local names.
    imports: Vec<(Import, String)>,
    diagnostics: Vec<String>,
    /// Resolution steps for the whole module (its inputs are the dataset's own files).
    fuel: Fuel,
}

impl Builder<'_> {
    /// The targets that can be copied (functions defined at module level), each once.
    fn plan(&mut self, targets: &[String]) -> Vec<Plan> {
        let mut plans: Vec<Plan> = Vec::new();
        for target in targets {
            let entity = self.index.resolve_dotted(target, &self.fuel);
            let Entity::Def(module, qual) = &entity else {
                self.diagnostics.push(format!(
                    "{target}: names no definition of the workspace; not copied"
                ));
                continue;
            };
            let canonical = entity.identity();
            if plans.iter().any(|p| p.canonical == canonical) {
                continue;
            }
            match self.index.def_kind(&entity) {
                Some(DefinitionKind::Function) if !qual.contains('.') => {}
                Some(DefinitionKind::Method) => {
                    self.diagnostics.push(format!(
                        "{target}: a method; methods are not copied, the reference keeps using it"
                    ));
                    continue;
                }
                Some(DefinitionKind::Class) => {
                    self.diagnostics.push(format!(
                        "{target}: a class; classes are not copied, the reference keeps using it"
                    ));
                    continue;
                }
                _ => {
                    self.diagnostics.push(format!(
                        "{target}: not a module-level function ({canonical}); not copied"
                    ));
                    continue;
                }
            }
            let Some(path) = self.index.module_path(module) else {
                continue;
            };
            plans.push(Plan {
                target: target.clone(),
                private: self.names.fresh(qual),
                canonical,
                module: module.clone(),
                qual: qual.clone(),
                path,
            });
        }
        plans
    }

    /// The local name for `import` wanted as `head` in the copies.
    fn bind(&mut self, import: Import, head: &str) -> String {
        if let Some(local) = self.bound.get(&import) {
            return local.clone();
        }
        let wanted = self.index.import_target(&import.target(), &self.fuel);
        // The reference may already bind the name to the same thing (`import networkx as nx`).
        let same = match self.reference.scopes[MODULE_SCOPE].bindings.get(head) {
            Some(binding) if !binding.local && !binding.imports.is_empty() => {
                binding.imports.iter().all(|&i| {
                    self.index
                        .import_target(&self.reference.imports[i].target, &self.fuel)
                        == wanted
                })
            }
            _ => false,
        };
        let local = if same {
            head.to_owned()
        } else {
            let local = if self.names.taken.insert(head.to_owned()) {
                head.to_owned()
            } else {
                self.names.fresh(head)
            };
            self.imports.push((import.clone(), local.clone()));
            local
        };
        self.bound.insert(import, local.clone());
        local
    }

    /// The text of one copy, or `None` (with a diagnostic) when it cannot be made.
    fn copy(&mut self, plan: &Plan, private: &HashMap<String, String>) -> Option<String> {
        let Some(source) = self.workspace.text(&plan.path) else {
            self.diagnostics.push(format!(
                "{}: {} is not in the workspace; not copied",
                plan.target, plan.path
            ));
            return None;
        };
        let tree = syntax::parse(source);
        let package = self
            .index
            .module_of_path(&plan.path)
            .is_some_and(|(_, package)| package);
        let analysis = scope::analyse_tree(&tree, &plan.module, package);
        if tree.has_syntax_errors() {
            self.diagnostics.push(format!(
                "{}: {} has syntax errors; copied as parsed",
                plan.target, plan.path
            ));
        }
        // The last definition of the name wins, as at run time (D4).
        let definitions = match facts::Definitions::of(&tree, &Cancel::never()) {
            Ok(definitions) => definitions,
            Err(Cancelled) => unreachable!("a Cancel::never() is never raised"),
        };
        let Some(def) = definitions
            .nodes
            .iter()
            .zip(&definitions.list)
            .filter(|&(&id, d)| {
                tree.kind(id) == Kind::FunctionDefinition && d.qualified_name == plan.qual
            })
            .map(|(&id, _)| id)
            .next_back()
        else {
            self.diagnostics.push(format!(
                "{}: no `def {}` in {}; not copied",
                plan.target, plan.qual, plan.path
            ));
            return None;
        };
        let def_line = tree.node(def).span.start_line;
        let Some(inner) = analysis
            .defs
            .iter()
            .find(|d| d.qual == plan.qual && d.start_line == def_line)
            .map(|d| d.inner)
        else {
            self.diagnostics.push(format!(
                "{}: the definition at line {def_line} of {} was not analysed; not copied",
                plan.target, plan.path
            ));
            return None;
        };
        let outer = tree
            .parent(def)
            .filter(|&p| tree.kind(p) == Kind::DecoratedDefinition)
            .unwrap_or(def);
        let start = tree.node(outer).span.start_byte as usize;
        let end = tree.node(def).span.end_byte as usize;
        let mut edits = Vec::new();
        if let Some(name) = tree.child(def, Field::Name) {
            edits.push(edit(&tree, name, plan.private.clone()));
        }
        let dropped = self.dropped_decorators(&tree, &analysis, &plan.module, outer);
        for &(s, e) in &dropped {
            edits.push(Edit {
                start: s,
                end: e,
                text: String::new(),
            });
        }
        if analysis
            .scopes
            .iter()
            .enumerate()
            .any(|(s, scope)| analysis.scope_within(s, inner) && !scope.globals.is_empty())
        {
            self.diagnostics.push(format!(
                "{}: declares `global` names; the copy writes the new module's globals instead",
                plan.target
            ));
        }
        for name_use in &analysis.name_uses {
            let span = tree.node(name_use.node).span;
            let (s, e) = (span.start_byte as usize, span.end_byte as usize);
            if s < start || e > end || dropped.iter().any(|&(ds, de)| s >= ds && e <= de) {
                continue;
            }
            let head = name_use.parts[0].as_str();
            let module_level = match analysis.lookup(name_use.scope, head) {
                NameRef::Local(scope, _) if scope != MODULE_SCOPE => continue,
                NameRef::Local(..) => None,
                NameRef::Imports(binding) => {
                    let inside = binding
                        .imports
                        .iter()
                        .all(|&i| analysis.scope_within(analysis.imports[i].scope, inner));
                    if inside {
                        continue;
                    }
                    Some(binding.imports.clone())
                }
                NameRef::Free => {
                    if is_builtin(head) {
                        continue;
                    }
                    if analysis.scopes[MODULE_SCOPE].stars.is_empty() {
                        self.diagnostics.push(format!(
                            "{}: `{head}` is not defined in {}; left as is",
                            plan.target, plan.module
                        ));
                        continue;
                    }
                    // Provided by a star import: the module's namespace has it.
                    None
                }
            };
            let paths = self.use_paths(&analysis, &plan.module, name_use.scope, &name_use.parts);
            if let Some((k, name)) = copied_prefix(&paths, private) {
                if let Some(node) = prefix_node(&tree, name_use.node, name_use.parts.len(), k) {
                    edits.push(edit(&tree, node, name.clone()));
                }
                continue;
            }
            let import = match module_level.as_deref() {
                Some([i]) => match &analysis.imports[*i].target {
                    ImportTarget::Module(name) => Import::Module(name.clone()),
                    ImportTarget::From { module, name } => {
                        Import::From(module.clone(), name.clone())
                    }
                    _ => Import::From(plan.module.clone(), head.to_owned()),
                },
                _ => Import::From(plan.module.clone(), head.to_owned()),
            };
            let local = self.bind(import, head);
            if local != head
                && let Some(node) = prefix_node(&tree, name_use.node, name_use.parts.len(), 0)
            {
                edits.push(edit(&tree, node, local));
            }
        }
        let shifted = edits
            .into_iter()
            .map(|e| Edit {
                start: e.start - start,
                end: e.end - start,
                text: e.text,
            })
            .collect();
        let text = apply(&source[start..end], shifted, &mut self.diagnostics);
        let column = start - source[..start].rfind('\n').map_or(0, |i| i + 1);
        Some(format!(
            "# Copy of {} (copy baseline).\n{}",
            plan.canonical,
            dedent(&text, column)
        ))
    }

    /// For each prefix of a chain used in `scope` of `module`, what it resolves to: one
    /// path per import binding the head; the module's namespace when the head is bound at
    /// module level; nothing when it is local to a function.
    fn use_paths(
        &self,
        analysis: &FileAnalysis,
        module: &str,
        scope: ScopeId,
        parts: &[String],
    ) -> Vec<Vec<Entity>> {
        match analysis.lookup(scope, &parts[0]) {
            NameRef::Local(s, _) if s == MODULE_SCOPE => vec![
                (1..=parts.len())
                    .map(|k| {
                        self.index.resolve_dotted(
                            &format!("{module}.{}", parts[..k].join(".")),
                            &self.fuel,
                        )
                    })
                    .collect(),
            ],
            _ => self
                .index
                .chain_entities(analysis, scope, parts, &self.fuel),
        }
    }

    /// The byte ranges of the decorators of `outer` to remove (each up to the next
    /// decorator or the `def`), per [`DROPPED_DECORATORS`].
    fn dropped_decorators(
        &self,
        tree: &SyntaxTree<'_>,
        analysis: &FileAnalysis,
        module: &str,
        outer: NodeId,
    ) -> Vec<(usize, usize)> {
        let children: Vec<NodeId> = tree
            .children(outer)
            .filter(|&c| tree.kind(c) != Kind::Comment)
            .collect();
        let mut out = Vec::new();
        for pair in children.windows(2) {
            let (decorator, next) = (pair[0], pair[1]);
            if tree.kind(decorator) != Kind::Decorator {
                continue;
            }
            let expression = tree.children(decorator).next();
            let callee = expression
                .map(|e| match tree.kind(e) {
                    Kind::Call => tree.child(e, Field::Function).unwrap_or(e),
                    _ => e,
                })
                .and_then(|e| facts::dotted_chain(tree, e));
            let Some(chain) = callee else { continue };
            let parts: Vec<String> = chain.split('.').map(str::to_owned).collect();
            let resolved = self
                .use_paths(analysis, module, MODULE_SCOPE, &parts)
                .into_iter()
                .filter_map(|path| path.last().map(Entity::identity))
                .any(|identity| DROPPED_DECORATORS.contains(&identity.as_str()));
            if resolved {
                out.push((
                    tree.node(decorator).span.start_byte as usize,
                    tree.node(next).span.start_byte as usize,
                ));
            }
        }
        out
    }

    /// The imports (`import` statements first, each kind sorted), then the copies, as
    /// inserted into the reference: two blank lines around each part, as PEP 8 has them.
    fn block(&self, copies: &[String], at_start: bool) -> String {
        let mut imports: Vec<(&Import, &String)> = self
            .imports
            .iter()
            .map(|(import, local)| (import, local))
            .collect();
        imports.sort_by_key(|(import, local)| match import {
            Import::Module(name) => (0, name.as_str(), "", local.as_str()),
            Import::From(module, name) => (1, module.as_str(), name.as_str(), local.as_str()),
        });
        let mut out = String::new();
        if !at_start {
            out.push('\n');
        }
        for (import, local) in imports {
            out.push_str(&import.render(local));
            out.push('\n');
        }
        if !self.imports.is_empty() || !at_start {
            out.push_str("\n\n");
        }
        out.push_str(&copies.join("\n\n\n"));
        out.push_str("\n\n\n");
        out
    }
}

/// The first prefix (index `k` into the chain) of any path naming a copied target, and
/// that target's private name.
fn copied_prefix<'p>(
    paths: &[Vec<Entity>],
    private: &'p HashMap<String, String>,
) -> Option<(usize, &'p String)> {
    paths.iter().find_map(|path| {
        path.iter()
            .enumerate()
            .find_map(|(k, entity)| match entity {
                Entity::Def(..) => private.get(&entity.identity()).map(|name| (k, name)),
                _ => None,
            })
    })
}

/// The node of the first `k + 1` parts of a chain whose node is `node` (`len` parts): for
/// an attribute chain, its object `len - 1 - k` times; for a dotted name (a pattern), the
/// dotted name itself when `k` is its last part, else its part `k` (only the head, `k = 0`,
/// is ever asked for then).
fn prefix_node(tree: &SyntaxTree<'_>, node: NodeId, len: usize, k: usize) -> Option<NodeId> {
    if tree.kind(node) == Kind::DottedName {
        return if k + 1 == len {
            Some(node)
        } else if k == 0 {
            tree.children(node).next()
        } else {
            None
        };
    }
    let mut id = node;
    for _ in k + 1..len {
        id = tree.child(id, Field::Object)?;
    }
    Some(id)
}

/// The uses of the reference that resolve to a copied target, replaced by its private name.
fn reference_edits(
    index: &RepoIndex,
    tree: &SyntaxTree<'_>,
    analysis: &FileAnalysis,
    private: &HashMap<String, String>,
) -> Vec<Edit> {
    let mut edits = Vec::new();
    let fuel = Fuel::default();
    for name_use in &analysis.name_uses {
        let paths = index.chain_entities(analysis, name_use.scope, &name_use.parts, &fuel);
        if let Some((k, name)) = copied_prefix(&paths, private)
            && let Some(node) = prefix_node(tree, name_use.node, name_use.parts.len(), k)
        {
            edits.push(edit(tree, node, name.clone()));
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::index::IndexOptions;

    fn workspace() -> (Workspace, RepoIndex) {
        let mut w = Workspace::new();
        w.insert("pkg/__init__.py", "from pkg.impl import f\n");
        w.insert(
            "pkg/impl.py",
            "import os\n\nif os.name:\n    def f(x):\n        \"\"\"Doc.\n\n        More.\"\"\"\n        return os.fspath(x)\n",
        );
        let index = RepoIndex::build(&w, &IndexOptions::default());
        (w, index)
    }

    #[test]
    fn bad_input_never_panics_and_is_reported() {
        let (w, index) = workspace();
        let targets = vec!["pkg.f".to_owned(), "pkg.nothing".to_owned()];
        for reference in [
            "",
            "def (",
            "from pkg import f\ndef g(:\n    return f(1\n",
            "from pkg import f\nπ = f('é')\n",
            "from pkg import f\nmatch x:\n    case f.y: pass\n",
            "\u{feff}from pkg import f\r\nf(1)\r\n",
        ] {
            let result = copy_module(&w, &index, "sol/a.py", reference, &targets);
            assert!(
                result
                    .diagnostics
                    .iter()
                    .any(|d| d.starts_with("pkg.nothing")),
                "{result:?}"
            );
            assert_eq!(result.copied.len(), 1, "{reference:?}");
        }
    }

    #[test]
    fn a_definition_nested_in_an_if_is_dedented_with_its_docstring() {
        let (w, index) = workspace();
        let result = copy_module(
            &w,
            &index,
            "sol/a.py",
            "from pkg import f\nf(1)\n",
            &["pkg.f".to_owned()],
        );
        assert_eq!(
            result.text,
            "from pkg import f\nimport os\n\n\n# Copy of pkg.impl.f (copy baseline).\ndef _copy_f(x):\n    \"\"\"Doc.\n\n    More.\"\"\"\n    return os.fspath(x)\n\n\n_copy_f(1)\n"
        );
    }

    #[test]
    fn fresh_names_avoid_every_identifier_of_the_module() {
        let mut names = Names {
            taken: ["_copy_f".to_owned(), "_copy_f_2".to_owned()].into(),
        };
        assert_eq!(names.fresh("_f"), "_copy_f_3");
        assert_eq!(names.fresh("g"), "_copy_g");
        assert_eq!(names.fresh("g"), "_copy_g_2");
    }
}
