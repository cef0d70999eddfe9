//! One Python file's names: scopes and bindings (spec D3), imports, definitions, calls, uses.
//!
//! The walk uses an explicit stack, so nesting depth never reaches the call stack. Nothing
//! here looks at other files: imports are recorded with their absolute module names and
//! resolved later by [`super::index::RepoIndex`].

use std::collections::{HashMap, HashSet};

use crate::outline::{self, DefinitionKind};
use crate::syntax::{self, Field, Kind, NodeId, SyntaxTree};

pub(crate) type ScopeId = usize;

/// The module scope is always scope 0.
pub(crate) const MODULE_SCOPE: ScopeId = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScopeKind {
    Module,
    Function,
    Class,
    Lambda,
    Comprehension,
}

/// What one scope binds to one name, after `global`/`nonlocal` are applied.
#[derive(Clone, Debug, Default)]
pub(crate) struct Binding {
    /// Imports binding the name here, in source order.
    pub(crate) imports: Vec<usize>,
    /// Bound by anything other than an import (parameter, assignment, def, class, ...).
    pub(crate) local: bool,
    /// `name = <chain>(...)` here (`=`, annotated, `:=`): the scope the call is evaluated
    /// in and the callee chain (spec D7).
    pub(crate) constructed: Vec<(ScopeId, Vec<String>)>,
}

#[derive(Clone, Debug)]
pub(crate) struct Scope {
    pub(crate) kind: ScopeKind,
    pub(crate) parent: Option<ScopeId>,
    /// The definition owning this scope (functions and classes).
    pub(crate) def: Option<usize>,
    pub(crate) globals: HashSet<String>,
    pub(crate) nonlocals: HashSet<String>,
    pub(crate) bindings: HashMap<String, Binding>,
    /// Star imports made in this scope (import indices).
    pub(crate) stars: Vec<usize>,
}

/// What an import statement binds a name to, with relative imports made absolute.
#[derive(Clone, Debug, PartialEq, Eq)]
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

#[derive(Clone, Debug)]
pub(crate) struct Import {
    /// The bound name (`*` for star imports).
    pub(crate) name: String,
    pub(crate) target: ImportTarget,
    pub(crate) scope: ScopeId,
    pub(crate) line: u32,
}

#[derive(Clone, Debug)]
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

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Callee {
    /// `f(...)`, `a.b.f(...)`: a chain of names.
    Chain(Vec<String>),
    /// `<expr>.f(...)` on something that is not a chain of names.
    Attr(String),
}

#[derive(Clone, Debug)]
pub(crate) struct CallSite {
    pub(crate) scope: ScopeId,
    /// `None` for calls without a name (`f()()`, `fs[0]()`).
    pub(crate) callee: Option<Callee>,
}

/// A load of a name or of a chain of names (`f`, `pkg.mod.f`).
#[derive(Clone, Debug)]
pub(crate) struct NameUse {
    pub(crate) scope: ScopeId,
    pub(crate) parts: Vec<String>,
    /// The chain's node (identifier, attribute or dotted name) in the tree the analysis was
    /// made from; only meaningful with that tree ([`analyse_tree`]), for rewriting a use.
    pub(crate) node: NodeId,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum AttrObject {
    /// `x.m` with `x` a bare name.
    Name(String),
    /// `super().m`.
    Super,
    Other,
}

/// A load of an attribute `<object>.attr`.
#[derive(Clone, Debug)]
pub(crate) struct AttrUse {
    pub(crate) scope: ScopeId,
    pub(crate) attr: String,
    pub(crate) object: AttrObject,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TopKind {
    Def(usize),
    Import(usize),
    /// Assignment, loop target, ...: stops a re-export chain (D4).
    Other,
}

/// A module-level binding, in source order; star imports have the name `*`.
#[derive(Clone, Debug)]
pub(crate) struct TopEvent {
    pub(crate) name: String,
    pub(crate) kind: TopKind,
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

#[derive(Clone, Debug)]
pub(crate) struct FileAnalysis {
    pub(crate) scopes: Vec<Scope>,
    pub(crate) imports: Vec<Import>,
    pub(crate) defs: Vec<Def>,
    pub(crate) calls: Vec<CallSite>,
    pub(crate) name_uses: Vec<NameUse>,
    pub(crate) attr_uses: Vec<AttrUse>,
    pub(crate) top: Vec<TopEvent>,
    /// A literal `__all__` (the last top-level assignment of one).
    pub(crate) all: Option<Vec<String>>,
    pub(crate) syntax_errors: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Load,
    Store,
    Pattern,
}

#[derive(Clone, Debug)]
enum Bind {
    Import(usize),
    Star(usize),
    Def(usize),
    Other,
    Constructed(ScopeId, Vec<String>),
}

struct Raw {
    scope: ScopeId,
    name: String,
    bind: Bind,
}

struct Walker<'t, 's> {
    tree: &'t SyntaxTree<'s>,
    module: &'t str,
    is_package: bool,
    stack: Vec<(NodeId, ScopeId, Ctx)>,
    buffer: Vec<NodeId>,
    raw: Vec<Raw>,
    out: FileAnalysis,
}

/// Analyses a file whose module is `module` (`is_package` for `__init__.py`).
pub(crate) fn analyse(source: &str, module: &str, is_package: bool) -> FileAnalysis {
    analyse_tree(&syntax::parse(source), module, is_package)
}

/// [`analyse`] of a tree already parsed, so a caller that rewrites the source can map the
/// analysis's uses ([`NameUse::node`]) back to spans.
pub(crate) fn analyse_tree(tree: &SyntaxTree<'_>, module: &str, is_package: bool) -> FileAnalysis {
    let mut walker = Walker {
        tree,
        module,
        is_package,
        stack: Vec::new(),
        buffer: Vec::new(),
        raw: Vec::new(),
        out: FileAnalysis {
            scopes: vec![new_scope(ScopeKind::Module, None, None)],
            imports: Vec::new(),
            defs: Vec::new(),
            calls: Vec::new(),
            name_uses: Vec::new(),
            attr_uses: Vec::new(),
            top: Vec::new(),
            all: None,
            syntax_errors: tree.has_syntax_errors(),
        },
    };
    walker.push_children(tree.root(), MODULE_SCOPE, Ctx::Load);
    while let Some((id, scope, ctx)) = walker.stack.pop() {
        match ctx {
            Ctx::Load => walker.load(id, scope),
            Ctx::Store => walker.store(id, scope),
            Ctx::Pattern => walker.pattern(id, scope),
        }
    }
    walker.finish()
}

fn new_scope(kind: ScopeKind, parent: Option<ScopeId>, def: Option<usize>) -> Scope {
    Scope {
        kind,
        parent,
        def,
        globals: HashSet::new(),
        nonlocals: HashSet::new(),
        bindings: HashMap::new(),
        stars: Vec::new(),
    }
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

    fn bind(&mut self, scope: ScopeId, name: String, bind: Bind) {
        self.raw.push(Raw { scope, name, bind });
    }

    fn new_scope(&mut self, kind: ScopeKind, parent: ScopeId, def: Option<usize>) -> ScopeId {
        self.out.scopes.push(new_scope(kind, Some(parent), def));
        self.out.scopes.len() - 1
    }

    fn chain(&self, id: NodeId) -> Option<Vec<String>> {
        match self.tree.kind(id) {
            Kind::Identifier | Kind::Attribute => outline::dotted_chain(self.tree, id)
                .map(|c| c.split('.').map(str::to_owned).collect()),
            _ => None,
        }
    }

    fn load(&mut self, id: NodeId, scope: ScopeId) {
        let tree = self.tree;
        match tree.kind(id) {
            Kind::Comment => {}
            Kind::Identifier => {
                let parts = vec![self.text(id)];
                self.out.name_uses.push(NameUse {
                    scope,
                    parts,
                    node: id,
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
                self.out.calls.push(CallSite { scope, callee });
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
                let mut target = scope;
                while self.out.scopes[target].kind == ScopeKind::Comprehension {
                    match self.out.scopes[target].parent {
                        Some(parent) => target = parent,
                        None => break,
                    }
                }
                let value = tree.child(id, Field::Value);
                if let Some(name) = tree.child(id, Field::Name) {
                    let name = self.text(name);
                    let bind = self.constructed(value, scope);
                    self.bind(target, name, bind);
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
                        self.bind(scope, name, bind);
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
            Kind::DeleteStatement => self.push_children(id, scope, Ctx::Store),
            Kind::CasePattern => self.push_children(id, scope, Ctx::Pattern),
            _ => self.push_children(id, scope, Ctx::Load),
        }
    }

    fn attribute(&mut self, id: NodeId, scope: ScopeId) {
        let tree = self.tree;
        if let Some(parts) = self.chain(id) {
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
                });
            }
            self.out.name_uses.push(NameUse {
                scope,
                parts,
                node: id,
            });
            return;
        }
        let object = tree.child(id, Field::Object);
        if let Some(attr) = tree.child(id, Field::Attribute) {
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
                object: if is_super {
                    AttrObject::Super
                } else {
                    AttrObject::Other
                },
            });
        }
        self.push(object, scope, Ctx::Load);
    }

    fn store(&mut self, id: NodeId, scope: ScopeId) {
        let tree = self.tree;
        match tree.kind(id) {
            Kind::Identifier => {
                let name = self.text(id);
                self.bind(scope, name, Bind::Other);
            }
            Kind::Attribute => self.push(tree.child(id, Field::Object), scope, Ctx::Load),
            Kind::Subscript => self.push_children(id, scope, Ctx::Load),
            Kind::Comment => {}
            _ => self.push_children(id, scope, Ctx::Store),
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
                        self.bind(scope, name, Bind::Other);
                    }
                } else {
                    self.out.name_uses.push(NameUse {
                        scope,
                        parts,
                        node: id,
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
                    self.bind(inner, name, Bind::Other);
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
        let outline = outline::definition(tree, id)?;
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
        self.bind(scope, outline.name, Bind::Def(index));
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
                        self.bind(scope, "*".to_owned(), Bind::Star(index));
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
            self.bind(scope, bound, Bind::Import(index));
        }
    }

    /// Applies `global`/`nonlocal` and fills the scopes' binding tables.
    fn finish(mut self) -> FileAnalysis {
        let mut declared: HashSet<(ScopeId, &str)> = HashSet::new();
        for raw in &self.raw {
            declared.insert((raw.scope, raw.name.as_str()));
        }
        let mut resolved = Vec::with_capacity(self.raw.len());
        for raw in &self.raw {
            let scopes = &self.out.scopes;
            let scope = &scopes[raw.scope];
            let effective = if scope.kind == ScopeKind::Module || scope.globals.contains(&raw.name)
            {
                Some(MODULE_SCOPE)
            } else if scope.nonlocals.contains(&raw.name) {
                let mut cursor = scope.parent;
                let mut found = None;
                while let Some(s) = cursor {
                    let candidate = &scopes[s];
                    if candidate.kind != ScopeKind::Class
                        && candidate.kind != ScopeKind::Module
                        && declared.contains(&(s, raw.name.as_str()))
                        && !candidate.nonlocals.contains(&raw.name)
                    {
                        found = Some(s);
                        break;
                    }
                    cursor = candidate.parent;
                }
                found
            } else {
                Some(raw.scope)
            };
            resolved.push(effective);
        }
        for (raw, effective) in self.raw.into_iter().zip(resolved) {
            let Some(effective) = effective else { continue };
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
        self.out
    }
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
    /// Resolves a name used in `scope` per D3.
    pub(crate) fn lookup(&self, scope: ScopeId, name: &str) -> NameRef<'_> {
        let mut cursor = Some(scope);
        let mut first = true;
        while let Some(s) = cursor {
            let current = &self.scopes[s];
            // Class bodies are visible only to their own statements.
            if first || current.kind != ScopeKind::Class {
                if current.kind != ScopeKind::Module && current.globals.contains(name) {
                    return self.binding_ref(MODULE_SCOPE, name);
                }
                if current.bindings.contains_key(name) {
                    return self.binding_ref(s, name);
                }
            }
            first = false;
            cursor = current.parent;
        }
        NameRef::Free
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
        let mut cursor = Some(scope);
        while let Some(s) = cursor {
            if s == ancestor {
                return true;
            }
            cursor = self.scopes[s].parent;
        }
        false
    }

    /// The class whose method (directly) contains `scope`, for `super()`.
    pub(crate) fn enclosing_class(&self, scope: ScopeId) -> Option<usize> {
        let mut cursor = Some(scope);
        while let Some(s) = cursor {
            let current = &self.scopes[s];
            if current.kind == ScopeKind::Function {
                let parent = current.parent?;
                let parent_scope = &self.scopes[parent];
                if parent_scope.kind == ScopeKind::Class {
                    return parent_scope.def;
                }
            }
            cursor = current.parent;
        }
        None
    }

    /// Scope of the module-level qualified name of a scope's function (`<module>` at top).
    pub(crate) fn scope_name(&self, scope: ScopeId) -> String {
        let mut cursor = Some(scope);
        while let Some(s) = cursor {
            if let Some(def) = self.scopes[s].def {
                return self.defs[def].qual.clone();
            }
            cursor = self.scopes[s].parent;
        }
        "<module>".to_owned()
    }
}
