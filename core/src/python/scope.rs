//! One Python file's names: scopes and bindings (spec D3), imports, definitions, calls, uses.
//!
//! The walk uses an explicit stack, so nesting depth never reaches the call stack. Nothing
//! here looks at other files: imports are recorded with their absolute module names and
//! resolved later by [`super::index::RepoIndex`].
//!
//! Nothing walks up the scopes per use: how every name use resolves (D3), what each
//! `nonlocal` refers to, which scopes lie inside which, are computed once for the file by
//! depth-first passes over its scope tree, with one stack per name of the scopes binding it.
//! A file nested thousands of lambdas deep costs what a flat one of the same size does.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::facts::{self, DefinitionKind, Definitions};
use super::fuel::Fuel;
use crate::budget::{Cancel, Cancelled};
use crate::syntax::{self, Field, Kind, NodeId, SyntaxTree};

pub(crate) type ScopeId = usize;

/// Hash maps and sets written in key order, so an analysis serialises to the same bytes
/// every time (a saved index has one content hash: [`super::snapshot`]).
mod in_order {
    use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

    use serde::{Serialize, Serializer};

    pub(super) fn map<K: Ord + Serialize, V: Serialize, S: Serializer>(
        map: &HashMap<K, V>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_map(map.iter().collect::<BTreeMap<_, _>>())
    }

    pub(super) fn set<T: Ord + Serialize, S: Serializer>(
        set: &HashSet<T>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(set.iter().collect::<BTreeSet<_>>())
    }
}

/// The module scope is always scope 0.
pub(crate) const MODULE_SCOPE: ScopeId = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum ScopeKind {
    Module,
    Function,
    Class,
    Lambda,
    Comprehension,
}

/// What one scope binds to one name, after `global`/`nonlocal` are applied.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Binding {
    /// Imports binding the name here, in source order.
    pub(crate) imports: Vec<usize>,
    /// Bound by anything other than an import (parameter, assignment, def, class, ...).
    pub(crate) local: bool,
    /// `name = <chain>(...)` here (`=`, annotated, `:=`): the scope the call is evaluated
    /// in and the callee chain (spec D7).
    pub(crate) constructed: Vec<(ScopeId, Vec<String>)>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Scope {
    pub(crate) kind: ScopeKind,
    pub(crate) parent: Option<ScopeId>,
    /// The definition owning this scope (functions and classes).
    pub(crate) def: Option<usize>,
    /// The scope a `:=` here binds in: this one, or for a comprehension the nearest
    /// enclosing scope that is not one.
    walrus_target: ScopeId,
    /// The class whose method (directly) contains this scope, for `super()`.
    method_of: Option<usize>,
    /// The innermost definition owning this scope or one around it.
    owner_def: Option<usize>,
    #[serde(serialize_with = "in_order::set")]
    pub(crate) globals: HashSet<String>,
    #[serde(serialize_with = "in_order::set")]
    pub(crate) nonlocals: HashSet<String>,
    #[serde(serialize_with = "in_order::map")]
    pub(crate) bindings: HashMap<String, Binding>,
    /// Star imports made in this scope (import indices).
    pub(crate) stars: Vec<usize>,
    /// Its code runs where it is written, as the module is imported: the module's own,
    /// and class bodies and comprehensions inside only such scopes. A function's body
    /// runs later, when it is called.
    pub(crate) immediate: bool,
}

/// What an import statement binds a name to, with relative imports made absolute.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum ImportTarget {
    /// `import a.b` binds `a` to module `a`; `import a.b as m` binds `m` to `a.b`.
    Module(String),
    /// `from module import name`.
    From { module: String, name: String },
    /// `from module import *`.
    Star(String),
    /// A relative import climbing above the top package: kept as written.
    Unresolvable(String),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Import {
    /// The bound name (`*` for star imports).
    pub(crate) name: String,
    pub(crate) target: ImportTarget,
    pub(crate) scope: ScopeId,
    pub(crate) line: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Def {
    pub(crate) kind: DefinitionKind,
    /// `__qualname__`-style name within the file (`C.m`, `f.<locals>.g`).
    pub(crate) qual: String,
    pub(crate) start_line: u32,
    pub(crate) end_line: u32,
    pub(crate) signature: String,
    pub(crate) docstring: Option<String>,
    /// Base class expressions as name chains (`None` when not a chain).
    pub(crate) bases: Vec<Option<Vec<String>>>,
    /// The scope the name, decorators, defaults and bases are evaluated in.
    pub(crate) outer: ScopeId,
    /// The scope of the body.
    pub(crate) inner: ScopeId,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Callee {
    /// `f(...)`, `a.b.f(...)`: a chain of names.
    Chain(Vec<String>),
    /// `<expr>.f(...)` on something that is not a chain of names.
    Attr(String),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct CallSite {
    pub(crate) scope: ScopeId,
    /// The byte the call starts at, to tell which module-level bindings precede it.
    pub(crate) at: u32,
    /// The line it starts on (1-based), for evidence.
    pub(crate) line: u32,
    /// How it passes its arguments, for comparing a call with a signature.
    pub(crate) args: CallArgs,
    /// `None` for calls without a name (`f()()`, `fs[0]()`).
    pub(crate) callee: Option<Callee>,
}

/// The shape of a call's arguments: `f(a, b, *rest, key=1, **more)` passes 2 positional
/// arguments, a `*` splat, the keyword `key` and a `**` splat.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CallArgs {
    pub(crate) positional: u32,
    pub(crate) keywords: Vec<String>,
    /// A `*iterable` argument: any number of positional arguments more.
    pub(crate) star: bool,
    /// A `**mapping` argument: any keywords more.
    pub(crate) double_star: bool,
}

/// A load of a name or of a chain of names (`f`, `pkg.mod.f`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct NameUse {
    pub(crate) scope: ScopeId,
    pub(crate) parts: Vec<String>,
    /// The chain's node (identifier, attribute or dotted name) in the tree the analysis was
    /// made from; only meaningful with that tree ([`analyse_tree`]), for rewriting a use.
    pub(crate) node: NodeId,
    /// The line the use starts on (1-based), for evidence.
    pub(crate) line: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum AttrObject {
    /// `x.m` with `x` a bare name.
    Name(String),
    /// `super().m`.
    Super,
    Other,
}

/// A load of an attribute `<object>.attr`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct AttrUse {
    pub(crate) scope: ScopeId,
    pub(crate) attr: String,
    pub(crate) object: AttrObject,
    /// The line the use starts on (1-based), for evidence.
    pub(crate) line: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum TopKind {
    Def(usize),
    Import(usize),
    /// Assignment, loop target, ...: stops a re-export chain (D4).
    Other,
}

/// A module-level binding, in source order; star imports have the name `*`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct TopEvent {
    pub(crate) name: String,
    pub(crate) kind: TopKind,
}

/// When a module-level binding happens, for a use that asks which bindings it may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum BindWhen {
    /// In straight-line module code: every later use at module level sees it (or a later
    /// binding).
    Always,
    /// Inside an `if`, loop, `match`, or a `try`'s `except`/`else`: a later use may see it
    /// or an earlier binding.
    Maybe,
    /// From inside a function (`global name`): whenever the function is called, so any use
    /// may see it.
    Anytime,
}

/// What a module-level binding gives a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum BindValue {
    /// The import with this index.
    Import(usize),
    /// Anything else: a def, class, assignment, loop target, parameter of nothing.
    Local,
    /// `del name`: takes the name away without a value.
    Delete,
}

/// One binding of a name in the module's namespace, in source order.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct ModuleBind {
    /// The byte after which the name has this value (the end of the statement binding it,
    /// so `f = f(x)` calls the earlier `f`).
    pub(crate) at: u32,
    pub(crate) value: BindValue,
    pub(crate) when: BindWhen,
}

/// One value a module-level name may have where it is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Candidate {
    /// The import with this index.
    Import(usize),
    /// The module's own definition or assignment of the name.
    Local,
    /// Nothing of the module binds it there (a builtin, a star import, or undefined).
    Unbound,
}

/// How a name used in a scope resolves (D3).
#[derive(Clone, Copy, Debug)]
pub(crate) enum NameRef<'a> {
    /// Bound in `scope` by something other than only imports: the use is local.
    Local(ScopeId, &'a Binding),
    /// Bound in `scope` only by these imports.
    Imports(&'a Binding),
    /// Not bound in any visible scope (a builtin, a star import, or undefined).
    Free,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct FileAnalysis {
    pub(crate) scopes: Vec<Scope>,
    /// Each scope's position in a pre-order of the scope tree and the last position of
    /// its subtree, so "is inside" is two comparisons.
    order: Vec<(u32, u32)>,
    /// Indices into `calls`, sorted by the pre-order position of the call's scope: the
    /// calls inside a scope's subtree are one slice.
    calls_by_order: Vec<usize>,
    /// How each name used in the file resolves where it is used (D3).
    #[serde(serialize_with = "in_order::map")]
    resolved: Resolutions,
    pub(crate) imports: Vec<Import>,
    pub(crate) defs: Vec<Def>,
    pub(crate) calls: Vec<CallSite>,
    pub(crate) name_uses: Vec<NameUse>,
    pub(crate) attr_uses: Vec<AttrUse>,
    pub(crate) top: Vec<TopEvent>,
    /// Every binding of each name in the module's namespace, those made through `global`
    /// first, then the others in the order they take effect, for the uses that ask which
    /// of them they see ([`FileAnalysis::module_candidates`]).
    #[serde(serialize_with = "in_order::map")]
    pub(crate) module_binds: HashMap<String, Vec<ModuleBind>>,
    /// A literal `__all__` (the last top-level assignment of one).
    pub(crate) all: Option<Vec<String>>,
    pub(crate) syntax_errors: bool,
    /// The file was over the per-file budget and not analysed (it is an empty module).
    pub(crate) over_budget: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Load,
    Store,
    /// A `del` target.
    Delete,
    Pattern,
}

#[derive(Clone, Debug)]
enum Bind {
    Import(usize),
    Star(usize),
    Def(usize),
    Other,
    /// `del name`: the name is this scope's (D3) but gets no value.
    Delete,
    Constructed(ScopeId, Vec<String>),
}

struct Raw {
    scope: ScopeId,
    name: String,
    bind: Bind,
    /// The byte after which the binding holds.
    at: u32,
}

struct Walker<'t, 's> {
    tree: &'t SyntaxTree<'s>,
    /// The file's named definitions and qualified names, computed once.
    definitions: Definitions,
    module: &'t str,
    is_package: bool,
    stack: Vec<(NodeId, ScopeId, Ctx)>,
    buffer: Vec<NodeId>,
    raw: Vec<Raw>,
    /// The byte ranges of module-level code that may not run (an `if`, a loop, a `match`, a
    /// `try`'s `except` and `else`), outermost only, in source order.
    conditional: Vec<(u32, u32)>,
    out: FileAnalysis,
}

/// The most module-level bindings of one name a use looks at ([`FileAnalysis::module_candidates`]).
const CANDIDATE_SCAN: usize = 64;

/// Items (syntax nodes, bindings, uses) handled between two looks at the cancel flag.
const CANCEL_EVERY: usize = 4096;

/// Analyses a file whose module is `module` (`is_package` for `__init__.py`); stops with
/// [`Cancelled`] soon after `cancel` is raised.
pub(crate) fn analyse_with(
    source: &str,
    module: &str,
    is_package: bool,
    cancel: &Cancel,
) -> Result<FileAnalysis, Cancelled> {
    analyse_tree_with(
        &syntax::parse_with(source, cancel)?,
        module,
        is_package,
        cancel,
    )
}

/// [`analyse_with`] of a tree already parsed, so a caller that rewrites the source can map the
/// analysis's uses ([`NameUse::node`]) back to spans.
pub(crate) fn analyse_tree(tree: &SyntaxTree<'_>, module: &str, is_package: bool) -> FileAnalysis {
    match analyse_tree_with(tree, module, is_package, &Cancel::never()) {
        Ok(analysis) => analysis,
        Err(Cancelled) => unreachable!("a Cancel::never() is never raised"),
    }
}

/// [`analyse_tree`] that stops with [`Cancelled`] soon after `cancel` is raised.
pub(crate) fn analyse_tree_with(
    tree: &SyntaxTree<'_>,
    module: &str,
    is_package: bool,
    cancel: &Cancel,
) -> Result<FileAnalysis, Cancelled> {
    let mut walker = Walker {
        tree,
        definitions: Definitions::of(tree, cancel)?,
        module,
        is_package,
        stack: Vec::new(),
        buffer: Vec::new(),
        raw: Vec::new(),
        conditional: Vec::new(),
        out: FileAnalysis {
            scopes: vec![Scope {
                kind: ScopeKind::Module,
                parent: None,
                def: None,
                walrus_target: MODULE_SCOPE,
                method_of: None,
                owner_def: None,
                globals: HashSet::new(),
                nonlocals: HashSet::new(),
                bindings: HashMap::new(),
                stars: Vec::new(),
                immediate: true,
            }],
            order: Vec::new(),
            calls_by_order: Vec::new(),
            resolved: HashMap::new(),
            imports: Vec::new(),
            defs: Vec::new(),
            calls: Vec::new(),
            name_uses: Vec::new(),
            attr_uses: Vec::new(),
            top: Vec::new(),
            module_binds: HashMap::new(),
            all: None,
            syntax_errors: tree.has_syntax_errors(),
            over_budget: tree.over_budget(),
        },
    };
    walker.push_children(tree.root(), MODULE_SCOPE, Ctx::Load);
    let mut steps = 0usize;
    while let Some((id, scope, ctx)) = walker.stack.pop() {
        steps += 1;
        if steps.is_multiple_of(CANCEL_EVERY) {
            cancel.check()?;
        }
        match ctx {
            Ctx::Load => walker.load(id, scope),
            Ctx::Store => walker.store(id, scope),
            Ctx::Delete => walker.delete(id, scope),
            Ctx::Pattern => walker.pattern(id, scope),
        }
    }
    walker.finish(cancel)
}

impl Walker<'_, '_> {
    fn text(&self, id: NodeId) -> String {
        self.tree.text(id).to_owned()
    }

    /// Pushes the named children of `id` so that they are visited in source order.
    fn push_children(&mut self, id: NodeId, scope: ScopeId, ctx: Ctx) {
        let start = self.buffer.len();
        self.buffer.extend(self.tree.children(id));
        while self.buffer.len() > start {
            if let Some(child) = self.buffer.pop() {
                self.stack.push((child, scope, ctx));
            }
        }
    }

    fn push(&mut self, id: Option<NodeId>, scope: ScopeId, ctx: Ctx) {
        if let Some(id) = id {
            self.stack.push((id, scope, ctx));
        }
    }

    fn bind(&mut self, scope: ScopeId, name: String, bind: Bind, at: u32) {
        self.raw.push(Raw {
            scope,
            name,
            bind,
            at,
        });
    }

    fn end(&self, id: NodeId) -> u32 {
        self.tree.node(id).span.end_byte
    }

    /// Where a name stored at `id` gets its value: after the whole assignment it is a
    /// target of (`a, f = f(x), 1` calls the earlier `f`), else after the name. Looks a few
    /// levels up only, so a deeply nested target costs no more than a flat one.
    fn stored_at(&self, id: NodeId) -> u32 {
        let tree = self.tree;
        let mut node = id;
        for _ in 0..8 {
            let Some(parent) = tree.parent(node) else {
                break;
            };
            match tree.kind(parent) {
                Kind::Assignment | Kind::AugmentedAssignment => return self.end(parent),
                Kind::Block | Kind::Module => break,
                _ => node = parent,
            }
        }
        self.end(id)
    }

    /// Notes module-level code that may not run, so bindings in it are only possible.
    fn note_conditional(&mut self, id: NodeId, scope: ScopeId) {
        if scope != MODULE_SCOPE
            || !matches!(
                self.tree.kind(id),
                Kind::IfStatement
                    | Kind::ForStatement
                    | Kind::WhileStatement
                    | Kind::MatchStatement
                    | Kind::ExceptClause
                    | Kind::ElseClause
            )
        {
            return;
        }
        let span = self.tree.node(id).span;
        // Statements are visited in source order, a statement before what it holds: one
        // inside the last range noted is already covered.
        if self
            .conditional
            .last()
            .is_some_and(|&(_, end)| span.start_byte < end)
        {
            return;
        }
        self.conditional.push((span.start_byte, span.end_byte));
    }

    /// A new scope inside `parent`, with what is known of it from its parent (so no later
    /// question about it walks up the scopes).
    fn new_scope(&mut self, kind: ScopeKind, parent: ScopeId, def: Option<usize>) -> ScopeId {
        let id = self.out.scopes.len();
        let outer = &self.out.scopes[parent];
        let walrus_target = if kind == ScopeKind::Comprehension {
            outer.walrus_target
        } else {
            id
        };
        let method_of = if kind == ScopeKind::Function && outer.kind == ScopeKind::Class {
            outer.def
        } else {
            outer.method_of
        };
        let owner_def = def.or(outer.owner_def);
        self.out.scopes.push(Scope {
            kind,
            parent: Some(parent),
            def,
            walrus_target,
            method_of,
            owner_def,
            globals: HashSet::new(),
            nonlocals: HashSet::new(),
            bindings: HashMap::new(),
            stars: Vec::new(),
            immediate: outer.immediate
                && matches!(kind, ScopeKind::Class | ScopeKind::Comprehension),
        });
        id
    }

    fn chain(&self, id: NodeId) -> Option<Vec<String>> {
        match self.tree.kind(id) {
            Kind::Identifier | Kind::Attribute => facts::dotted_chain(self.tree, id)
                .map(|c| c.split('.').map(str::to_owned).collect()),
            _ => None,
        }
    }

    fn load(&mut self, id: NodeId, scope: ScopeId) {
        let tree = self.tree;
        self.note_conditional(id, scope);
        match tree.kind(id) {
            Kind::Comment => {}
            Kind::Identifier => {
                let parts = vec![self.text(id)];
                self.out.name_uses.push(NameUse {
                    scope,
                    parts,
                    node: id,
                    line: tree.node(id).span.start_line,
                });
            }
            Kind::Attribute => self.attribute(id, scope),
            Kind::Call => {
                let function = tree.child(id, Field::Function);
                let callee = function.and_then(|f| match tree.kind(f) {
                    Kind::Identifier | Kind::Attribute => {
                        self.chain(f).map(Callee::Chain).or_else(|| {
                            tree.child(f, Field::Attribute)
                                .map(|a| Callee::Attr(self.text(a)))
                        })
                    }
                    _ => None,
                });
                let span = tree.node(id).span;
                let args = self.call_args(tree.child(id, Field::Arguments));
                self.out.calls.push(CallSite {
                    scope,
                    at: span.start_byte,
                    line: span.start_line,
                    args,
                    callee,
                });
                self.push_children(id, scope, Ctx::Load);
            }
            Kind::KeywordArgument => self.push(tree.child(id, Field::Value), scope, Ctx::Load),
            Kind::Lambda => {
                let inner = self.new_scope(ScopeKind::Lambda, scope, None);
                self.push(tree.child(id, Field::Body), inner, Ctx::Load);
                if let Some(params) = tree.child(id, Field::Parameters) {
                    self.parameters(params, scope, inner);
                }
            }
            Kind::ListComprehension
            | Kind::SetComprehension
            | Kind::DictionaryComprehension
            | Kind::GeneratorExpression => {
                let inner = self.new_scope(ScopeKind::Comprehension, scope, None);
                let children: Vec<NodeId> = tree.children(id).collect();
                let first_for = children
                    .iter()
                    .position(|&c| tree.kind(c) == Kind::ForInClause);
                // The first iterable is evaluated in the enclosing scope; targets bind inside.
                for (i, &child) in children.iter().enumerate().rev() {
                    if tree.kind(child) != Kind::ForInClause {
                        self.stack.push((child, inner, Ctx::Load));
                        continue;
                    }
                    let right_scope = if Some(i) == first_for { scope } else { inner };
                    let parts: Vec<NodeId> = tree.children(child).collect();
                    for &part in parts.iter().rev() {
                        if tree.node(part).field == Some(Field::Left) {
                            self.stack.push((part, inner, Ctx::Store));
                        } else {
                            self.stack.push((part, right_scope, Ctx::Load));
                        }
                    }
                }
            }
            Kind::NamedExpression => {
                let target = self.out.scopes[scope].walrus_target;
                let value = tree.child(id, Field::Value);
                if let Some(name) = tree.child(id, Field::Name) {
                    let name = self.text(name);
                    let bind = self.constructed(value, scope);
                    let at = self.end(id);
                    self.bind(target, name, bind, at);
                }
                self.push(value, scope, Ctx::Load);
            }
            Kind::FunctionDefinition => self.function(id, scope),
            Kind::ClassDefinition => self.class(id, scope),
            Kind::ImportStatement | Kind::ImportFromStatement => self.import(id, scope),
            Kind::FutureImportStatement => {}
            Kind::GlobalStatement | Kind::NonlocalStatement => {
                let global = tree.kind(id) == Kind::GlobalStatement;
                let names: Vec<String> = tree
                    .children(id)
                    .filter(|&c| tree.kind(c) == Kind::Identifier)
                    .map(|c| self.text(c))
                    .collect();
                let target = &mut self.out.scopes[scope];
                if global {
                    target.globals.extend(names);
                } else {
                    target.nonlocals.extend(names);
                }
            }
            Kind::Assignment => {
                let left = tree.child(id, Field::Left);
                let right = tree.child(id, Field::Right);
                if let Some(left) = left {
                    if tree.kind(left) == Kind::Identifier {
                        let name = self.text(left);
                        if scope == MODULE_SCOPE && name == "__all__" {
                            self.out.all = right.and_then(|r| self.literal_strings(r));
                        }
                        let bind = self.constructed(right, scope);
                        let at = self.end(id);
                        self.bind(scope, name, bind, at);
                    } else {
                        self.stack.push((left, scope, Ctx::Store));
                    }
                }
                self.push(right, scope, Ctx::Load);
                self.push(tree.child(id, Field::Type), scope, Ctx::Load);
            }
            Kind::AugmentedAssignment => {
                self.push(tree.child(id, Field::Right), scope, Ctx::Load);
                self.push(tree.child(id, Field::Left), scope, Ctx::Store);
            }
            Kind::ForStatement => {
                for child in tree.children(id).collect::<Vec<_>>().into_iter().rev() {
                    let ctx = if tree.node(child).field == Some(Field::Left) {
                        Ctx::Store
                    } else {
                        Ctx::Load
                    };
                    self.stack.push((child, scope, ctx));
                }
            }
            Kind::AsPattern => {
                // `with e as x`, `except E as x`: the alias is a store.
                for child in tree.children(id).collect::<Vec<_>>().into_iter().rev() {
                    if tree.kind(child) == Kind::AsPatternTarget {
                        self.push_children(child, scope, Ctx::Store);
                    } else {
                        self.stack.push((child, scope, Ctx::Load));
                    }
                }
            }
            Kind::DeleteStatement => self.push_children(id, scope, Ctx::Delete),
            Kind::CasePattern => self.push_children(id, scope, Ctx::Pattern),
            _ => self.push_children(id, scope, Ctx::Load),
        }
    }

    fn attribute(&mut self, id: NodeId, scope: ScopeId) {
        if let Some(parts) = self.chain(id) {
            self.chain_use(id, scope, parts);
            return;
        }
        // Not a chain of names (`f().a.b.c`): each level is an attribute use, down to the
        // first level that is a chain or the object that is not an attribute. The levels
        // are found in one walk down: asking each in turn whether it is a chain would
        // walk the rest of the chain again, quadratic in its length.
        let tree = self.tree;
        let mut levels = vec![id];
        let mut base = tree.child(id, Field::Object);
        while let Some(object) = base.filter(|&o| tree.kind(o) == Kind::Attribute) {
            levels.push(object);
            base = tree.child(object, Field::Object);
        }
        // A level is a chain when every level from it down names its attribute and the
        // base is a name.
        let mut is_chain = vec![false; levels.len()];
        let mut chain = base.is_some_and(|b| tree.kind(b) == Kind::Identifier);
        for (i, &level) in levels.iter().enumerate().rev() {
            chain &= tree.child(level, Field::Attribute).is_some();
            is_chain[i] = chain;
        }
        for (i, &level) in levels.iter().enumerate() {
            if is_chain[i] {
                if let Some(parts) = self.chain(level) {
                    self.chain_use(level, scope, parts);
                }
                return;
            }
            let object = tree.child(level, Field::Object);
            if let Some(attr) = tree.child(level, Field::Attribute) {
                let is_super = object.is_some_and(|o| {
                    tree.kind(o) == Kind::Call
                        && tree.child(o, Field::Function).is_some_and(|f| {
                            tree.kind(f) == Kind::Identifier && tree.text(f) == "super"
                        })
                });
                let attr = self.text(attr);
                self.out.attr_uses.push(AttrUse {
                    scope,
                    attr,
                    line: tree.node(level).span.start_line,
                    object: if is_super {
                        AttrObject::Super
                    } else {
                        AttrObject::Other
                    },
                });
            }
        }
        self.push(base, scope, Ctx::Load);
    }

    /// A load of the chain of names `parts` (`pkg.mod.f`) at `id`: one name use, and an
    /// attribute use per attribute.
    fn chain_use(&mut self, id: NodeId, scope: ScopeId, parts: Vec<String>) {
        for (i, attr) in parts.iter().enumerate().skip(1) {
            let object = if i == 1 {
                AttrObject::Name(parts[0].clone())
            } else {
                AttrObject::Other
            };
            self.out.attr_uses.push(AttrUse {
                scope,
                attr: attr.clone(),
                object,
                line: self.tree.node(id).span.start_line,
            });
        }
        self.out.name_uses.push(NameUse {
            scope,
            parts,
            node: id,
            line: self.tree.node(id).span.start_line,
        });
    }

    fn store(&mut self, id: NodeId, scope: ScopeId) {
        let tree = self.tree;
        match tree.kind(id) {
            Kind::Identifier => {
                let name = self.text(id);
                let at = self.stored_at(id);
                self.bind(scope, name, Bind::Other, at);
            }
            Kind::Attribute => self.push(tree.child(id, Field::Object), scope, Ctx::Load),
            Kind::Subscript => self.push_children(id, scope, Ctx::Load),
            Kind::Comment => {}
            _ => self.push_children(id, scope, Ctx::Store),
        }
    }

    /// A `del` target. A name it deletes belongs to the scope (D3: `del x` in a function
    /// makes `x` local there) but is given no value, so it does not shadow the imports
    /// that bind it: `f = ...; del f` after `from m import f` still leaves `f()` a call of
    /// `m.f` (toolz's `curried/__init__.py` calls `toolz.curry` 43 times, then `del`s
    /// `toolz`). What else a statement does with the name later does not matter to a `del`.
    fn delete(&mut self, id: NodeId, scope: ScopeId) {
        let tree = self.tree;
        match tree.kind(id) {
            Kind::Identifier => {
                let name = self.text(id);
                let at = self.end(id);
                self.bind(scope, name, Bind::Delete, at);
            }
            Kind::Attribute => self.push(tree.child(id, Field::Object), scope, Ctx::Load),
            Kind::Subscript => self.push_children(id, scope, Ctx::Load),
            Kind::Comment => {}
            _ => self.push_children(id, scope, Ctx::Delete),
        }
    }

    fn pattern(&mut self, id: NodeId, scope: ScopeId) {
        let tree = self.tree;
        match tree.kind(id) {
            Kind::DottedName | Kind::Identifier => {
                let parts: Vec<String> = if tree.kind(id) == Kind::Identifier {
                    vec![self.text(id)]
                } else {
                    tree.children(id).map(|c| self.text(c)).collect()
                };
                if parts.len() == 1 {
                    if parts[0] != "_" {
                        let name = parts[0].clone();
                        let at = self.end(id);
                        self.bind(scope, name, Bind::Other, at);
                    }
                } else {
                    self.out.name_uses.push(NameUse {
                        scope,
                        parts,
                        node: id,
                        line: tree.node(id).span.start_line,
                    });
                }
            }
            Kind::ClassPattern => {
                let mut children = tree.children(id);
                if let Some(class) = children.next() {
                    let parts: Vec<String> = tree.children(class).map(|c| self.text(c)).collect();
                    self.out.name_uses.push(NameUse {
                        scope,
                        parts,
                        node: class,
                        line: tree.node(class).span.start_line,
                    });
                }
                let rest: Vec<NodeId> = children.collect();
                for child in rest.into_iter().rev() {
                    self.stack.push((child, scope, Ctx::Pattern));
                }
            }
            Kind::KeywordPattern => {
                let rest: Vec<NodeId> = tree.children(id).skip(1).collect();
                for child in rest.into_iter().rev() {
                    self.stack.push((child, scope, Ctx::Pattern));
                }
            }
            Kind::String | Kind::Comment => {}
            _ => self.push_children(id, scope, Ctx::Pattern),
        }
    }

    /// How a call's argument list passes its arguments.
    fn call_args(&self, list: Option<NodeId>) -> CallArgs {
        let tree = self.tree;
        let mut args = CallArgs::default();
        let Some(list) = list else {
            return args;
        };
        // `f(x for x in xs)`: the generator is the one argument.
        if tree.kind(list) == Kind::GeneratorExpression {
            args.positional = 1;
            return args;
        }
        for arg in tree.children(list) {
            match tree.kind(arg) {
                Kind::Comment => {}
                Kind::ListSplat => args.star = true,
                Kind::DictionarySplat => args.double_star = true,
                Kind::KeywordArgument => {
                    if let Some(name) = tree.child(arg, Field::Name) {
                        args.keywords.push(self.text(name));
                    }
                }
                _ => args.positional += 1,
            }
        }
        args
    }

    /// The binding for `name = value`: constructed when `value` is a call of a name chain.
    fn constructed(&self, value: Option<NodeId>, scope: ScopeId) -> Bind {
        value
            .filter(|&v| self.tree.kind(v) == Kind::Call)
            .and_then(|v| self.tree.child(v, Field::Function))
            .and_then(|f| self.chain(f))
            .map_or(Bind::Other, |chain| Bind::Constructed(scope, chain))
    }

    fn literal_strings(&self, id: NodeId) -> Option<Vec<String>> {
        let tree = self.tree;
        if !matches!(tree.kind(id), Kind::List | Kind::Tuple) {
            return None;
        }
        tree.children(id)
            .filter(|&c| tree.kind(c) != Kind::Comment)
            .map(|c| (tree.kind(c) == Kind::String).then(|| string_value(tree.text(c))))
            .collect()
    }

    fn parameters(&mut self, params: NodeId, outer: ScopeId, inner: ScopeId) {
        let tree = self.tree;
        for param in tree.children(params) {
            match tree.kind(param) {
                Kind::Identifier => {
                    let name = self.text(param);
                    let at = self.end(param);
                    self.bind(inner, name, Bind::Other, at);
                }
                Kind::ListSplatPattern | Kind::DictionarySplatPattern => {
                    self.push_children(param, inner, Ctx::Store);
                }
                Kind::DefaultParameter | Kind::TypedParameter | Kind::TypedDefaultParameter => {
                    for part in tree.children(param) {
                        match tree.node(part).field {
                            Some(Field::Type | Field::Value) => {
                                self.stack.push((part, outer, Ctx::Load));
                            }
                            _ => self.stack.push((part, inner, Ctx::Store)),
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn definition(&mut self, id: NodeId, scope: ScopeId, kind: ScopeKind) -> Option<usize> {
        let tree = self.tree;
        let outline = self.definitions.get(id)?.clone();
        let body = tree.child(id, Field::Body);
        let span = tree.node(id).span;
        let header_end = body.map_or(span.end_byte, |b| tree.node(b).span.start_byte);
        let signature = tree
            .source()
            .get(span.start_byte as usize..header_end as usize)
            .unwrap_or("")
            .trim_end()
            .trim_end_matches(':')
            .trim_end()
            .to_owned();
        let docstring = body
            .and_then(|b| tree.children(b).find(|&s| tree.kind(s) != Kind::Comment))
            .filter(|&s| tree.kind(s) == Kind::ExpressionStatement)
            .and_then(|s| {
                let mut children = tree.children(s);
                let first = children.next()?;
                (children.next().is_none() && tree.kind(first) == Kind::String)
                    .then(|| string_value(tree.text(first)))
            });
        let bases = if kind == ScopeKind::Class {
            tree.child(id, Field::Superclasses)
                .map(|args| {
                    tree.children(args)
                        .filter(|&a| !matches!(tree.kind(a), Kind::KeywordArgument | Kind::Comment))
                        .map(|a| self.chain(a))
                        .collect()
                })
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let index = self.out.defs.len();
        let inner = self.new_scope(kind, scope, Some(index));
        self.out.defs.push(Def {
            kind: outline.kind,
            qual: outline.qualified_name,
            start_line: outline.start_line,
            end_line: outline.end_line,
            signature,
            docstring,
            bases,
            outer: scope,
            inner,
        });
        let at = span.end_byte;
        self.bind(scope, outline.name, Bind::Def(index), at);
        Some(inner)
    }

    fn function(&mut self, id: NodeId, scope: ScopeId) {
        let tree = self.tree;
        let Some(inner) = self.definition(id, scope, ScopeKind::Function) else {
            return self.push_children(id, scope, Ctx::Load);
        };
        self.push(tree.child(id, Field::Body), inner, Ctx::Load);
        self.push(tree.child(id, Field::ReturnType), scope, Ctx::Load);
        if let Some(params) = tree.child(id, Field::Parameters) {
            self.parameters(params, scope, inner);
        }
    }

    fn class(&mut self, id: NodeId, scope: ScopeId) {
        let tree = self.tree;
        let Some(inner) = self.definition(id, scope, ScopeKind::Class) else {
            return self.push_children(id, scope, Ctx::Load);
        };
        self.push(tree.child(id, Field::Body), inner, Ctx::Load);
        self.push(tree.child(id, Field::Superclasses), scope, Ctx::Load);
    }

    /// The absolute module of a `from` import's module part.
    fn absolute_module(&self, id: NodeId) -> Result<String, String> {
        let tree = self.tree;
        if tree.kind(id) != Kind::RelativeImport {
            return Ok(dotted_text(tree, id));
        }
        let mut dots = 0;
        let mut rest = String::new();
        for child in tree.children(id) {
            match tree.kind(child) {
                Kind::ImportPrefix => dots = tree.text(child).matches('.').count(),
                Kind::DottedName => rest = dotted_text(tree, child),
                _ => {}
            }
        }
        let mut base: Vec<&str> = if self.module.is_empty() {
            Vec::new()
        } else {
            self.module.split('.').collect()
        };
        if !self.is_package {
            base.pop();
        }
        for _ in 1..dots {
            if base.pop().is_none() {
                return Err(tree.text(id).to_owned());
            }
        }
        if base.is_empty() && rest.is_empty() {
            return Err(tree.text(id).to_owned());
        }
        if !rest.is_empty() {
            base.push(&rest);
        }
        Ok(base.join("."))
    }

    fn import(&mut self, id: NodeId, scope: ScopeId) {
        let tree = self.tree;
        let line = tree.node(id).span.start_line;
        let from = tree.kind(id) == Kind::ImportFromStatement;
        let module = if from {
            tree.child(id, Field::ModuleName)
                .map(|m| self.absolute_module(m))
        } else {
            None
        };
        for child in tree.children(id) {
            let field = tree.node(child).field;
            let (name, alias) = match (tree.kind(child), field) {
                (Kind::DottedName, Some(Field::Name)) => (dotted_text(tree, child), None),
                (Kind::AliasedImport, _) => {
                    let name = tree
                        .child(child, Field::Name)
                        .map(|n| dotted_text(tree, n))
                        .unwrap_or_default();
                    let alias = tree.child(child, Field::Alias).map(|a| self.text(a));
                    (name, alias)
                }
                (Kind::WildcardImport, _) => {
                    if let Some(Ok(module)) = &module {
                        let index = self.out.imports.len();
                        self.out.imports.push(Import {
                            name: "*".to_owned(),
                            target: ImportTarget::Star(module.clone()),
                            scope,
                            line,
                        });
                        self.bind(scope, "*".to_owned(), Bind::Star(index), self.end(id));
                    }
                    continue;
                }
                _ => continue,
            };
            if name.is_empty() {
                continue;
            }
            let (bound, target) = match (&module, alias) {
                (None, Some(alias)) => (alias, ImportTarget::Module(name)),
                (None, None) => {
                    let head = name.split('.').next().unwrap_or_default().to_owned();
                    (head.clone(), ImportTarget::Module(head))
                }
                (Some(module), alias) => {
                    let target = match module {
                        Ok(module) => ImportTarget::From {
                            module: module.clone(),
                            name: name.clone(),
                        },
                        Err(written) => ImportTarget::Unresolvable(format!("{written}.{name}")),
                    };
                    (alias.unwrap_or(name), target)
                }
            };
            let index = self.out.imports.len();
            self.out.imports.push(Import {
                name: bound.clone(),
                target,
                scope,
                line,
            });
            self.bind(scope, bound, Bind::Import(index), self.end(id));
        }
    }

    /// Applies `global`/`nonlocal`, fills the scopes' binding tables, and resolves every
    /// name use (D3), each in one pass over the scope tree.
    fn finish(mut self, cancel: &Cancel) -> Result<FileAnalysis, Cancelled> {
        let tree = ScopeTree::of(&self.out.scopes);
        let effective = self.effective_scopes(&tree, cancel)?;
        for (i, (raw, effective)) in self.raw.into_iter().zip(effective).enumerate() {
            if i.is_multiple_of(CANCEL_EVERY) {
                cancel.check()?;
            }
            let Some(effective) = effective else { continue };
            if effective == MODULE_SCOPE {
                let value = match raw.bind {
                    Bind::Import(index) => Some(BindValue::Import(index)),
                    Bind::Delete => Some(BindValue::Delete),
                    Bind::Star(_) => None,
                    Bind::Def(_) | Bind::Other | Bind::Constructed(..) => Some(BindValue::Local),
                };
                let when = if raw.scope != MODULE_SCOPE {
                    BindWhen::Anytime
                } else if within(&self.conditional, raw.at) {
                    BindWhen::Maybe
                } else {
                    BindWhen::Always
                };
                if let Some(value) = value {
                    self.out
                        .module_binds
                        .entry(raw.name.clone())
                        .or_default()
                        .push(ModuleBind {
                            at: raw.at,
                            value,
                            when,
                        });
                }
            }
            if let Bind::Star(index) = raw.bind {
                self.out.scopes[effective].stars.push(index);
                if effective == MODULE_SCOPE {
                    self.out.top.push(TopEvent {
                        name: raw.name,
                        kind: TopKind::Import(index),
                    });
                }
                continue;
            }
            let binding = self.out.scopes[effective]
                .bindings
                .entry(raw.name.clone())
                .or_default();
            let top = match raw.bind {
                Bind::Import(index) => {
                    binding.imports.push(index);
                    TopKind::Import(index)
                }
                Bind::Def(index) => {
                    binding.local = true;
                    TopKind::Def(index)
                }
                Bind::Other => {
                    binding.local = true;
                    TopKind::Other
                }
                // The module no longer has the name: a lookup of it there finds no
                // definition, as after an assignment (D4 stops).
                Bind::Delete => TopKind::Other,
                Bind::Constructed(scope, chain) => {
                    binding.local = true;
                    binding.constructed.push((scope, chain));
                    TopKind::Other
                }
                Bind::Star(_) => TopKind::Other,
            };
            if effective == MODULE_SCOPE {
                self.out.top.push(TopEvent {
                    name: raw.name,
                    kind: top,
                });
            }
        }
        // Bindings made through `global` first (any use may see them), then the rest by
        // where they take effect, so a use finds those before it by a binary search.
        for binds in self.out.module_binds.values_mut() {
            binds.sort_by_key(|b| (b.when != BindWhen::Anytime, b.at));
        }
        self.out.resolved = resolve_uses(&self.out, &tree, cancel)?;
        let mut calls_by_order: Vec<usize> = (0..self.out.calls.len()).collect();
        calls_by_order.sort_by_key(|&c| tree.order[self.out.calls[c].scope].0);
        self.out.calls_by_order = calls_by_order;
        self.out.order = tree.order;
        Ok(self.out)
    }

    /// The scope each raw binding lands in after `global` and `nonlocal` (`None`: a
    /// `nonlocal` naming no enclosing function's binding, which Python rejects).
    ///
    /// `nonlocal x` binds in the nearest enclosing function scope that binds `x` itself;
    /// walking up for each such binding would cost the nesting depth each time, so the
    /// scopes are visited once in pre-order with, per name, the stack of open function
    /// scopes that bind it.
    fn effective_scopes(
        &self,
        tree: &ScopeTree,
        cancel: &Cancel,
    ) -> Result<Vec<Option<ScopeId>>, Cancelled> {
        let scopes = &self.out.scopes;
        // The names some scope declares `nonlocal`: only they need stacks (most files
        // have none, and then every binding lands where `global` or its scope says).
        let nonlocal: HashSet<&str> = scopes
            .iter()
            .flat_map(|scope| scope.nonlocals.iter().map(String::as_str))
            .collect();
        if nonlocal.is_empty() {
            return Ok(self
                .raw
                .iter()
                .map(|raw| {
                    let scope = &scopes[raw.scope];
                    Some(
                        if scope.kind == ScopeKind::Module || scope.globals.contains(&raw.name) {
                            MODULE_SCOPE
                        } else {
                            raw.scope
                        },
                    )
                })
                .collect());
        }
        let by_scope = group_by(self.raw.len(), scopes.len(), |r| self.raw[r].scope);
        let mut effective = vec![None; self.raw.len()];
        let mut stacks: HashMap<&str, Vec<ScopeId>> = HashMap::new();
        let mut pushed: Vec<&str> = Vec::new();
        let mut open: Vec<(ScopeId, usize)> = Vec::new();
        for (step, &s) in tree.preorder.iter().enumerate() {
            if step.is_multiple_of(CANCEL_EVERY) {
                cancel.check()?;
            }
            tree.close(&mut open, s, |_, mark| {
                for name in pushed.drain(mark..) {
                    stacks.get_mut(name).and_then(Vec::pop);
                }
            });
            let scope = &scopes[s];
            let raws = by_scope.of(s);
            for &r in raws {
                let name = self.raw[r].name.as_str();
                effective[r] = if scope.kind == ScopeKind::Module || scope.globals.contains(name) {
                    Some(MODULE_SCOPE)
                } else if scope.nonlocals.contains(name) {
                    stacks.get(name).and_then(|stack| stack.last().copied())
                } else {
                    Some(s)
                };
            }
            open.push((s, pushed.len()));
            if !matches!(scope.kind, ScopeKind::Class | ScopeKind::Module) {
                for &r in raws {
                    let name = self.raw[r].name.as_str();
                    if nonlocal.contains(name) && !scope.nonlocals.contains(name) {
                        stacks.entry(name).or_default().push(s);
                        pushed.push(name);
                    }
                }
            }
        }
        Ok(effective)
    }
}

/// Whether byte `at` lies in one of `ranges` (sorted, disjoint; a range holds its end, where
/// the last statement in it ends).
fn within(ranges: &[(u32, u32)], at: u32) -> bool {
    let after = ranges.partition_point(|&(start, _)| start < at);
    after > 0 && at <= ranges[after - 1].1
}

/// The scope tree in pre-order, so passes over it need no recursion and no child lists.
struct ScopeTree {
    /// Scopes in pre-order (parents before children, siblings in creation order).
    preorder: Vec<ScopeId>,
    /// For each scope, its position in `preorder` and the last position of its subtree.
    order: Vec<(u32, u32)>,
}

impl ScopeTree {
    /// Scopes are created after their parent, so subtree sizes come from one backward
    /// pass and positions from one forward pass.
    fn of(scopes: &[Scope]) -> Self {
        let n = scopes.len();
        let mut size = vec![1u32; n];
        for s in (1..n).rev() {
            if let Some(p) = scopes[s].parent {
                size[p] += size[s];
            }
        }
        let mut order = vec![(0u32, 0u32); n];
        // The position the next child of each scope gets.
        let mut next = vec![1u32; n];
        let mut preorder = vec![MODULE_SCOPE; n];
        if n > 0 {
            order[MODULE_SCOPE] = (0, size[MODULE_SCOPE] - 1);
        }
        for s in 1..n {
            let p = scopes[s].parent.unwrap_or(MODULE_SCOPE);
            let tin = next[p];
            next[p] += size[s];
            next[s] = tin + 1;
            order[s] = (tin, tin + size[s] - 1);
            preorder[tin as usize] = s;
        }
        ScopeTree { preorder, order }
    }

    /// Before visiting `next` in pre-order: leaves (pops, calling `leave` for) every open
    /// scope whose subtree `next` is not in. Each entry carries what the caller pushed.
    fn close<T: Copy>(
        &self,
        open: &mut Vec<(ScopeId, T)>,
        next: ScopeId,
        mut leave: impl FnMut(ScopeId, T),
    ) {
        let position = self.order[next].0;
        while let Some(&(s, mark)) = open.last() {
            if self.order[s].1 >= position {
                break;
            }
            open.pop();
            leave(s, mark);
        }
    }
}

/// Items `0..count` grouped by a key below `keys` (a counting sort), in their order.
struct Groups {
    starts: Vec<usize>,
    items: Vec<usize>,
}

impl Groups {
    fn of(&self, key: usize) -> &[usize] {
        &self.items[self.starts[key]..self.starts[key + 1]]
    }
}

fn group_by(count: usize, keys: usize, key: impl Fn(usize) -> usize) -> Groups {
    let mut starts = vec![0usize; keys + 1];
    for i in 0..count {
        starts[key(i) + 1] += 1;
    }
    for k in 0..keys {
        starts[k + 1] += starts[k];
    }
    let mut fill = starts.clone();
    let mut items = vec![0usize; count];
    for i in 0..count {
        let k = key(i);
        items[fill[k]] = i;
        fill[k] += 1;
    }
    Groups { starts, items }
}

/// For each name the file uses, the (scope of a use, scope whose binding it finds or `None`
/// when free) pairs, sorted by the scope of the use.
type Resolutions = HashMap<String, Vec<(ScopeId, Option<ScopeId>)>>;

/// Where each name use resolves (D3), as [`FileAnalysis::lookup`] would walk it, found in
/// one pre-order pass: per name, the stack of open non-class scopes that bind it (or
/// declare it `global`). A class scope's own names count only for its own uses.
fn resolve_uses(
    analysis: &FileAnalysis,
    tree: &ScopeTree,
    cancel: &Cancel,
) -> Result<Resolutions, Cancelled> {
    let scopes = &analysis.scopes;
    let uses = group_by(analysis.name_uses.len(), scopes.len(), |u| {
        analysis.name_uses[u].scope
    });
    let mut resolved: Resolutions = HashMap::new();
    // Only names the file uses need stacks.
    let used: HashSet<&str> = analysis
        .name_uses
        .iter()
        .filter_map(|u| u.parts.first().map(String::as_str))
        .collect();
    let mut stacks: HashMap<&str, Vec<ScopeId>> = HashMap::new();
    let mut pushed: Vec<&str> = Vec::new();
    let mut open: Vec<(ScopeId, usize)> = Vec::new();
    // Where a scope marking `name` sends its lookups: `global` names to the module.
    let target = |t: ScopeId, name: &str| {
        let scope = &scopes[t];
        if scope.kind != ScopeKind::Module && scope.globals.contains(name) {
            MODULE_SCOPE
        } else {
            t
        }
    };
    for (step, &s) in tree.preorder.iter().enumerate() {
        if step.is_multiple_of(CANCEL_EVERY) {
            cancel.check()?;
        }
        tree.close(&mut open, s, |_, mark| {
            for name in pushed.drain(mark..) {
                stacks.get_mut(name).and_then(Vec::pop);
            }
        });
        let scope = &scopes[s];
        open.push((s, pushed.len()));
        let class = scope.kind == ScopeKind::Class;
        if !class {
            let globals = scope
                .globals
                .iter()
                .filter(|_| scope.kind != ScopeKind::Module);
            for name in scope.bindings.keys().chain(globals) {
                if !used.contains(name.as_str()) {
                    continue;
                }
                stacks.entry(name.as_str()).or_default().push(s);
                pushed.push(name.as_str());
            }
        }
        for &u in uses.of(s) {
            let Some(name) = analysis.name_uses[u].parts.first() else {
                continue;
            };
            let own = (class
                && (scope.globals.contains(name) || scope.bindings.contains_key(name)))
            .then_some(s);
            let found = own
                .or_else(|| {
                    stacks
                        .get(name.as_str())
                        .and_then(|stack| stack.last().copied())
                })
                .map(|t| target(t, name));
            match resolved.get_mut(name.as_str()) {
                Some(entries) => entries.push((s, found)),
                None => {
                    resolved.insert(name.clone(), vec![(s, found)]);
                }
            }
        }
    }
    for entries in resolved.values_mut() {
        entries.sort_unstable_by_key(|&(s, _)| s);
        entries.dedup_by_key(|&mut (s, _)| s);
    }
    Ok(resolved)
}

fn dotted_text(tree: &SyntaxTree<'_>, id: NodeId) -> String {
    if tree.kind(id) == Kind::DottedName {
        let parts: Vec<&str> = tree.children(id).map(|c| tree.text(c)).collect();
        parts.join(".")
    } else {
        tree.text(id).to_owned()
    }
}

/// The value of a simple string literal (prefix and quotes removed, escapes kept).
fn string_value(text: &str) -> String {
    let body = text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    for quote in ["\"\"\"", "'''", "\"", "'"] {
        if let Some(inner) = body.strip_prefix(quote).and_then(|b| b.strip_suffix(quote)) {
            return inner.to_owned();
        }
    }
    body.to_owned()
}

impl FileAnalysis {
    /// Resolves a name used in `scope` per D3. The names the file itself uses were
    /// resolved once for the whole file ([`resolve_uses`]); any other question walks up
    /// the scopes.
    pub(crate) fn lookup(&self, scope: ScopeId, name: &str) -> NameRef<'_> {
        if let Some(entries) = self.resolved.get(name)
            && let Ok(i) = entries.binary_search_by_key(&scope, |&(s, _)| s)
        {
            return match entries[i].1 {
                Some(found) => self.binding_ref(found, name),
                None => NameRef::Free,
            };
        }
        self.walk_lookup(scope, name)
    }

    /// [`FileAnalysis::lookup`] of any name, drawing on `fuel` for each scope it walks up
    /// (free once the fuel is out), for questions the file's own uses did not ask.
    pub(crate) fn lookup_within(&self, scope: ScopeId, name: &str, fuel: &Fuel) -> NameRef<'_> {
        if let Some(entries) = self.resolved.get(name)
            && let Ok(i) = entries.binary_search_by_key(&scope, |&(s, _)| s)
        {
            return match entries[i].1 {
                Some(found) => self.binding_ref(found, name),
                None => NameRef::Free,
            };
        }
        self.walk(scope, name, || fuel.take())
    }

    /// [`FileAnalysis::lookup`] by walking up from `scope`: the definition of D3's rules.
    fn walk_lookup(&self, scope: ScopeId, name: &str) -> NameRef<'_> {
        self.walk(scope, name, || true)
    }

    /// The walk of D3 from `scope`, asking `step` before each scope (free when it says no).
    fn walk(&self, scope: ScopeId, name: &str, step: impl FnMut() -> bool) -> NameRef<'_> {
        match self.walk_scope(scope, name, step) {
            Some(found) => self.binding_ref(found, name),
            None => NameRef::Free,
        }
    }

    /// The scope whose binding a use of `name` in `scope` finds (D3), `None` when free or
    /// when `step` says no.
    fn walk_scope(
        &self,
        scope: ScopeId,
        name: &str,
        mut step: impl FnMut() -> bool,
    ) -> Option<ScopeId> {
        let mut cursor = Some(scope);
        let mut first = true;
        while let Some(s) = cursor {
            if !step() {
                return None;
            }
            let current = &self.scopes[s];
            // Class bodies are visible only to their own statements.
            if first || current.kind != ScopeKind::Class {
                if current.kind != ScopeKind::Module && current.globals.contains(name) {
                    return Some(MODULE_SCOPE);
                }
                if current.bindings.contains_key(name) {
                    return Some(s);
                }
            }
            first = false;
            cursor = current.parent;
        }
        None
    }

    /// The values a name used in `scope` at byte `at` may have when it resolves to the
    /// module's namespace; `None` when it resolves elsewhere (a function's own name) or
    /// the module never binds it.
    ///
    /// The rule, where D3 alone would let any assignment in the module shadow every import
    /// of the name:
    /// - code that runs as the module is imported (module level, class bodies and
    ///   comprehensions there: [`Scope::immediate`]) sees the last binding before it in
    ///   straight-line code, and every binding between that one and the use made in code
    ///   that may not run (an `if` branch, a loop, a `match`, an `except` or `else`);
    ///   with no straight-line binding before it, the name may also be unbound there;
    /// - a function's body runs later: it sees the module's last straight-line binding and
    ///   every possible one after it, as if used at the end of the module;
    /// - a binding made through `global` inside a function may have happened before any
    ///   use, so it is always one of the candidates;
    /// - `del` gives no value: it is passed over (a call made through a name the module
    ///   later deletes stays a call of what it was).
    ///
    /// Uses inside a loop do not see bindings later in the same loop (an approximation), and
    /// at most [`CANDIDATE_SCAN`] bindings are looked at per use, so a file rebinding one
    /// name thousands of times costs linear time; a use whose scan ends before a
    /// straight-line binding may also see the name unbound.
    ///
    /// ```text
    /// from pkg import helper
    /// x = helper(1)      # Import: pkg.helper
    /// helper = None      # a use after this sees Local
    /// def g(): helper()  # Local: the function runs after the whole module
    /// ```
    pub(crate) fn module_candidates(
        &self,
        scope: ScopeId,
        name: &str,
        at: u32,
    ) -> Option<Vec<Candidate>> {
        let found = match self.resolved.get(name).and_then(|entries| {
            entries
                .binary_search_by_key(&scope, |&(s, _)| s)
                .ok()
                .map(|i| entries[i].1)
        }) {
            Some(found) => found,
            None => self.walk_scope(scope, name, || true),
        };
        if found != Some(MODULE_SCOPE) {
            return None;
        }
        let binds = self.module_binds.get(name)?;
        let at = if self.scopes[scope].immediate {
            at
        } else {
            u32::MAX
        };
        let mut out = Vec::new();
        let mut push = |candidate: Candidate| {
            if !out.contains(&candidate) {
                out.push(candidate);
            }
        };
        let value = |bind: &ModuleBind| match bind.value {
            BindValue::Import(index) => Some(Candidate::Import(index)),
            BindValue::Local => Some(Candidate::Local),
            BindValue::Delete => None,
        };
        let (anytime, ordered) =
            binds.split_at(binds.partition_point(|b| b.when == BindWhen::Anytime));
        let seen = ordered.partition_point(|b| b.at <= at);
        let mut settled = false;
        for bind in ordered[..seen].iter().rev().take(CANDIDATE_SCAN) {
            if let Some(candidate) = value(bind) {
                push(candidate);
                if bind.when == BindWhen::Always {
                    settled = true;
                    break;
                }
            }
        }
        for bind in anytime.iter().take(CANDIDATE_SCAN) {
            if let Some(candidate) = value(bind) {
                push(candidate);
            }
        }
        if !settled {
            push(Candidate::Unbound);
        }
        Some(out)
    }

    fn binding_ref(&self, scope: ScopeId, name: &str) -> NameRef<'_> {
        match self.scopes[scope].bindings.get(name) {
            Some(binding) if binding.local => NameRef::Local(scope, binding),
            Some(binding) => NameRef::Imports(binding),
            None => NameRef::Free,
        }
    }

    /// Whether `ancestor` is `scope` or encloses it.
    pub(crate) fn scope_within(&self, scope: ScopeId, ancestor: ScopeId) -> bool {
        let (start, end) = self.order[ancestor];
        (start..=end).contains(&self.order[scope].0)
    }

    /// The calls made in `scope` or any scope inside it, in no particular order.
    pub(crate) fn calls_within(&self, scope: ScopeId) -> impl Iterator<Item = &CallSite> {
        let (start, end) = self.order[scope];
        let position = |c: &usize| self.order[self.calls[*c].scope].0;
        let from = self.calls_by_order.partition_point(|c| position(c) < start);
        let to = self.calls_by_order.partition_point(|c| position(c) <= end);
        self.calls_by_order[from..to]
            .iter()
            .map(|&c| &self.calls[c])
    }

    /// The class whose method (directly) contains `scope`, for `super()`.
    pub(crate) fn enclosing_class(&self, scope: ScopeId) -> Option<usize> {
        self.scopes[scope].method_of
    }

    /// Scope of the module-level qualified name of a scope's function (`<module>` at top).
    pub(crate) fn scope_name(&self, scope: ScopeId) -> String {
        match self.scopes[scope].owner_def {
            Some(def) => self.defs[def].qual.clone(),
            None => "<module>".to_owned(),
        }
    }
}
