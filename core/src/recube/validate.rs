//! ReCUBE's code-validation tool: static checks of an agent's rebuilt target file against the repository, without running any of it.
//!
//! What the repository needs of the target is read from the other files (the target's own
//! code is never read): every name they import from it, call in it or inherit from, and
//! how each call passes its arguments. The candidate is then checked:
//! - it parses (each syntax error with its line and column; the checks below still run on
//!   what the parser recovered, so a broken file gets every finding, never a failure);
//! - it defines every name callers import or call, with a signature that accepts how they
//!   call it (how many positional arguments, which keywords, what is required);
//! - what others inherit from is a class;
//! - each of its imports resolves: to a module of the repository and a name it binds, to
//!   the standard library, or to a package the repository itself imports (an installed
//!   package's contents cannot be checked statically, so such names are accepted).
//!
//! Signatures are compared for functions, for classes through the `__init__` they define,
//! and for methods called through their class; a class's inherited `__init__`, and
//! members of classes with bases, are not checked (what a base provides is not known here).
//!
//! ```
//! use wheelwright_core::python::index::IndexOptions;
//! use wheelwright_core::recube::validate::{FindingKind, validate};
//! use wheelwright_core::workspace::Workspace;
//! let mut w = Workspace::new();
//! w.insert("pkg/__init__.py", "");
//! w.insert("pkg/target.py", "def hidden(a):\n    raise NotImplementedError\n");
//! w.insert("pkg/user.py", "from pkg.target import hidden\n\nhidden(1, key=2)\n");
//! let ok = validate(&w, "pkg/target.py", "def hidden(a, key=0):\n    return a\n", &IndexOptions::default());
//! assert!(ok.findings.is_empty());
//! let wrong = validate(&w, "pkg/target.py", "def hidden(a):\n    return a\n", &IndexOptions::default());
//! assert_eq!(wrong.findings[0].kind, FindingKind::Signature);
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::python::facts::{DefinitionKind, Definitions};
use crate::python::index::{IndexOptions, RepoIndex, module_name};
use crate::python::scope::{self, CallArgs, FileAnalysis, ImportTarget, MODULE_SCOPE};
use crate::python::stdlib::is_stdlib_module;
use crate::recube::mask::mask;
use crate::syntax::{self, Field, Kind, NodeId, SyntaxTree};
use crate::workspace::Workspace;

/// How many syntax errors are reported; the rest are counted in a note.
const MAX_SYNTAX_ERRORS: usize = 20;

/// How many places in the repository a finding cites.
const EVIDENCE: usize = 3;

/// What kind of problem a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    SyntaxError,
    /// A name the repository imports, calls or inherits from is not defined.
    MissingName,
    /// A definition does not accept a call the repository makes.
    Signature,
    /// Something others inherit from is not a class.
    NotAClass,
    /// An import that resolves nowhere the checker can see.
    UnresolvedImport,
}

impl FindingKind {
    /// The name used in JSON and in the command line's text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SyntaxError => "syntax_error",
            Self::MissingName => "missing_name",
            Self::Signature => "signature",
            Self::NotAClass => "not_a_class",
            Self::UnresolvedImport => "unresolved_import",
        }
    }
}

/// A place in the candidate (1-based; the column in bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Location {
    pub line: u32,
    pub column: u32,
}

/// One problem of the candidate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FindingKind,
    /// Where in the candidate; `None` when the problem is that something is absent.
    pub at: Option<Location>,
    pub message: String,
    /// Where the repository needs it (`click/core.py:1104`), the first few.
    pub evidence: Vec<String>,
}

/// The result: the findings (none when the candidate passes) and what was checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validation {
    pub target: String,
    pub findings: Vec<Finding>,
    /// Distinct names the repository needs of the target.
    pub names_checked: usize,
    /// Calls whose arguments were compared with a signature.
    pub calls_checked: usize,
    /// The candidate's imports checked.
    pub imports_checked: usize,
    /// What could not be checked statically, said once each.
    pub notes: Vec<String>,
}

/// What the repository needs of one name of the target.
#[derive(Default)]
struct Need {
    /// Where it is imported, called or inherited from.
    uses: Vec<String>,
    /// Each call's arguments, with where it is.
    calls: Vec<(CallArgs, String)>,
    /// Where it is inherited from.
    inherited: Vec<String>,
}

/// Checks `candidate` as the content of `target` (a path of `workspace`, the repository
/// as the agent has it) against what the rest of the repository needs of it.
pub fn validate(
    workspace: &Workspace,
    target: &str,
    candidate: &str,
    options: &IndexOptions,
) -> Validation {
    let (target_module, is_package) = module_name(target, options).unwrap_or_default();
    // The repository as the graph sees it: the target masked, so names other files reach
    // through it still resolve, and none of its code is read.
    let mut rest = workspace.clone();
    let masked = mask(rest.remove(target).as_deref().unwrap_or(candidate)).text;
    rest.insert(target, masked);
    let index = RepoIndex::build(&rest, options);
    let needs = needs_of(&index, &target_module);

    let tree = syntax::parse(candidate);
    let analysis = scope::analyse_tree(&tree, &target_module, is_package);
    let shapes = signatures(&tree);
    let mut findings: Vec<Finding> = tree
        .diagnostics_at()
        .filter(|_| tree.has_syntax_errors() || tree.over_budget())
        .map(|(diagnostic, column)| Finding {
            kind: FindingKind::SyntaxError,
            at: Some(Location {
                line: diagnostic.line,
                column,
            }),
            message: diagnostic.message.clone(),
            evidence: Vec::new(),
        })
        .collect();
    let mut notes = BTreeSet::new();
    if findings.len() > MAX_SYNTAX_ERRORS {
        notes.insert(format!(
            "{} more syntax errors after the first {MAX_SYNTAX_ERRORS} (one mistake can confuse the parser for the rest of the file)",
            findings.len() - MAX_SYNTAX_ERRORS
        ));
        findings.truncate(MAX_SYNTAX_ERRORS);
    }
    let mut calls_checked = 0;
    for (name, need) in &needs {
        match defined(&analysis, &shapes, name) {
            Defined::No => findings.push(Finding {
                kind: FindingKind::MissingName,
                at: None,
                message: format!(
                    "`{name}` is not defined, but the repository {} it",
                    need.verbs()
                ),
                evidence: cite(&need.uses),
            }),
            Defined::Unknown(why) => {
                notes.insert(format!("`{name}`: {why}"));
            }
            Defined::Yes(found) => {
                if !need.inherited.is_empty() && found.kind != Some(DefinitionKind::Class) {
                    findings.push(Finding {
                        kind: FindingKind::NotAClass,
                        at: Some(found.at),
                        message: format!(
                            "`{name}` is inherited from, but the candidate does not define it as a class"
                        ),
                        evidence: cite(&need.inherited),
                    });
                }
                let Some(signature) = found.signature else {
                    continue;
                };
                let mut problems: BTreeMap<String, Vec<String>> = BTreeMap::new();
                for (args, place) in &need.calls {
                    calls_checked += 1;
                    for problem in signature.accepts(args) {
                        problems.entry(problem).or_default().push(place.clone());
                    }
                }
                for (problem, places) in problems {
                    findings.push(Finding {
                        kind: FindingKind::Signature,
                        at: Some(found.at),
                        message: format!("`{name}` {problem}"),
                        evidence: cite(&places),
                    });
                }
            }
        }
    }
    let imports_checked = check_imports(&index, &analysis, &target_module, &mut findings);
    if !analysis.scopes[MODULE_SCOPE].stars.is_empty() {
        notes.insert("the candidate's star imports may define more names than shown".to_owned());
    }
    findings.sort_by(|a, b| (a.kind, a.at, &a.message).cmp(&(b.kind, b.at, &b.message)));
    Validation {
        target: target.to_owned(),
        findings,
        names_checked: needs.len(),
        calls_checked,
        imports_checked,
        notes: notes.into_iter().collect(),
    }
}

/// Up to [`EVIDENCE`] places, and how many more there are.
fn cite(places: &[String]) -> Vec<String> {
    let mut out: Vec<String> = places.iter().take(EVIDENCE).cloned().collect();
    if places.len() > EVIDENCE {
        out.push(format!("and {} more", places.len() - EVIDENCE));
    }
    out
}

impl Need {
    /// What the repository does with the name, for a message.
    fn verbs(&self) -> &'static str {
        match (self.calls.is_empty(), self.inherited.is_empty()) {
            (false, _) => "calls",
            (true, false) => "inherits from",
            (true, true) => "imports",
        }
    }
}

/// What every other module needs of `target_module`, by name within it (`Parser`,
/// `Parser.parse`), in name order.
fn needs_of(index: &RepoIndex, target_module: &str) -> BTreeMap<String, Need> {
    let mut needs: BTreeMap<String, Need> = BTreeMap::new();
    if target_module.is_empty() {
        return needs;
    }
    let prefix = format!("{target_module}.");
    let within = |dotted: &str| -> Option<String> {
        dotted
            .strip_prefix(&prefix)
            .filter(|rest| !rest.is_empty() && !rest.ends_with('*'))
            .map(str::to_owned)
    };
    for module in index.modules() {
        if module == target_module {
            continue;
        }
        let path = index.module_path(module).unwrap_or_default();
        for import in index.imports(module) {
            if let Some(name) = within(&import.resolved) {
                let need = needs.entry(name).or_default();
                need.uses.push(format!("{path}:{}", import.line));
            }
        }
        for call in index.calls(module) {
            if let Some(name) = within(&call.identity) {
                let place = format!("{path}:{}", call.line);
                let need = needs.entry(name).or_default();
                need.uses.push(place.clone());
                need.calls.push((call.args.clone(), place));
            }
        }
        for definition in index.definitions(module) {
            for base in &definition.bases {
                if let Some(name) = within(base) {
                    let line = definition.spans.first().map_or(0, |s| s.start);
                    let place = format!("{path}:{line}");
                    let need = needs.entry(name).or_default();
                    need.uses.push(place.clone());
                    need.inherited.push(place);
                }
            }
        }
    }
    needs
}

/// Whether the candidate defines a name.
enum Defined {
    No,
    Yes(Found),
    /// It cannot be told statically, and why.
    Unknown(&'static str),
}

/// A name the candidate defines.
struct Found {
    at: Location,
    kind: Option<DefinitionKind>,
    /// The signature calls are compared with, when one applies.
    signature: Option<Signature>,
}

/// Whether the candidate defines `name` (`f`, `C`, `C.m`).
fn defined(analysis: &FileAnalysis, shapes: &BTreeMap<String, Shape>, name: &str) -> Defined {
    let (head, member) = match name.split_once('.') {
        Some((head, member)) => (head, Some(member)),
        None => (name, None),
    };
    let top = &analysis.scopes[MODULE_SCOPE];
    if !top.bindings.contains_key(head) {
        return if top.stars.is_empty() {
            Defined::No
        } else {
            Defined::Unknown("it may come from a star import")
        };
    }
    let Some(member) = member else {
        return Defined::Yes(found(analysis, shapes, head));
    };
    // A member: only a class the candidate defines (directly) can be looked into.
    let class = analysis
        .defs
        .iter()
        .find(|d| d.qual == head && d.kind == DefinitionKind::Class);
    let Some(class) = class else {
        return Defined::Unknown("its owner is not a class defined in the candidate");
    };
    if member.contains('.') {
        return Defined::Unknown("nested members are not checked");
    }
    if analysis.scopes[class.inner].bindings.contains_key(member) {
        return Defined::Yes(found(analysis, shapes, name));
    }
    if class.bases.is_empty() {
        Defined::No
    } else {
        Defined::Unknown("its class has bases, which may provide it")
    }
}

/// Where `qual` is defined and the signature its calls are compared with.
fn found(analysis: &FileAnalysis, shapes: &BTreeMap<String, Shape>, qual: &str) -> Found {
    let def = analysis.defs.iter().rev().find(|d| d.qual == qual);
    let Some(def) = def else {
        // An assignment or import: nothing to compare with.
        return Found {
            at: Location { line: 1, column: 1 },
            kind: None,
            signature: None,
        };
    };
    let shape = shapes.get(qual);
    let signature = match def.kind {
        DefinitionKind::Class => shapes
            .get(&format!("{qual}.__init__"))
            .map(|init| init.signature.without_first()),
        DefinitionKind::Function => shape.map(|s| s.signature.clone()),
        DefinitionKind::Method => shape.map(|s| match s.binding {
            Binding::Static | Binding::Plain => s.signature.clone(),
            Binding::Class => s.signature.without_first(),
        }),
    };
    Found {
        at: shape.map_or(
            Location {
                line: def.start_line,
                column: 1,
            },
            |s| s.at,
        ),
        kind: Some(def.kind),
        signature,
    }
}

/// How a method is bound when called through its class.
#[derive(Clone, Copy)]
enum Binding {
    Plain,
    Static,
    Class,
}

/// A function's parameters, its place and how it binds.
struct Shape {
    signature: Signature,
    at: Location,
    binding: Binding,
}

/// The parameters of a function, as a call must satisfy them.
#[derive(Clone, Debug, Default)]
struct Signature {
    /// Positional parameters in order: name, has a default, positional only.
    positional: Vec<(String, bool, bool)>,
    /// `*args`.
    star: bool,
    /// Keyword-only parameters: name, has a default.
    keyword_only: Vec<(String, bool)>,
    /// `**kwargs`.
    double_star: bool,
}

impl Signature {
    /// The signature with the first positional parameter bound (`self`, `cls`).
    fn without_first(&self) -> Self {
        let mut out = self.clone();
        if !out.positional.is_empty() {
            out.positional.remove(0);
        }
        out
    }

    /// What is wrong with calling it with `args`, each said as a phrase after the name.
    fn accepts(&self, args: &CallArgs) -> Vec<String> {
        let mut problems = Vec::new();
        let positional = usize::try_from(args.positional).unwrap_or(usize::MAX);
        if !self.star && positional > self.positional.len() {
            problems.push(format!(
                "takes at most {} positional argument{} but is called with {positional}",
                self.positional.len(),
                plural(self.positional.len())
            ));
        }
        for keyword in &args.keywords {
            let named = self
                .positional
                .iter()
                .any(|(name, _, only)| name == keyword && !only)
                || self.keyword_only.iter().any(|(name, _)| name == keyword);
            if !named && !self.double_star {
                problems.push(format!(
                    "has no parameter `{keyword}` but is called with it"
                ));
            }
        }
        // With a splat, any parameter may be filled by it.
        if !args.star && !args.double_star {
            for (name, _, _) in self
                .positional
                .iter()
                .skip(positional)
                .filter(|(name, default, _)| !default && !args.keywords.contains(name))
            {
                problems.push(format!("requires `{name}` but is called without it"));
            }
            for (name, _) in self
                .keyword_only
                .iter()
                .filter(|(name, default)| !default && !args.keywords.contains(name))
            {
                problems.push(format!(
                    "requires the keyword `{name}` but is called without it"
                ));
            }
        }
        problems
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Every named function's parameters in `tree`, by qualified name (the last occurrence).
fn signatures(tree: &SyntaxTree<'_>) -> BTreeMap<String, Shape> {
    let definitions = match Definitions::of(tree, &crate::budget::Cancel::never()) {
        Ok(definitions) => definitions,
        Err(crate::budget::Cancelled) => unreachable!("a Cancel::never() is never raised"),
    };
    let mut out = BTreeMap::new();
    for (definition, &node) in definitions.list.iter().zip(&definitions.nodes) {
        if tree.kind(node) != Kind::FunctionDefinition {
            continue;
        }
        let span = tree.node(node).span;
        let line_start = tree.source()[..span.start_byte as usize]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let column = span
            .start_byte
            .saturating_sub(u32::try_from(line_start).unwrap_or(0))
            + 1;
        out.insert(
            definition.qualified_name.clone(),
            Shape {
                signature: parameters(tree, tree.child(node, Field::Parameters)),
                at: Location {
                    line: span.start_line,
                    column,
                },
                binding: binding(tree, node),
            },
        );
    }
    out
}

/// How the decorators of a function bind it.
fn binding(tree: &SyntaxTree<'_>, function: NodeId) -> Binding {
    let Some(parent) = tree
        .parent(function)
        .filter(|&p| tree.kind(p) == Kind::DecoratedDefinition)
    else {
        return Binding::Plain;
    };
    for decorator in tree.children(parent) {
        if tree.kind(decorator) != Kind::Decorator {
            continue;
        }
        match tree.text(decorator).trim_start_matches('@').trim() {
            "staticmethod" => return Binding::Static,
            "classmethod" => return Binding::Class,
            _ => {}
        }
    }
    Binding::Plain
}

/// The parameters of a `parameters` node.
fn parameters(tree: &SyntaxTree<'_>, params: Option<NodeId>) -> Signature {
    let mut out = Signature::default();
    let Some(params) = params else {
        return out;
    };
    let mut keyword_only = false;
    let name_of = |node: NodeId| -> String {
        tree.child(node, Field::Name)
            .or_else(|| {
                tree.children(node)
                    .find(|&c| tree.kind(c) == Kind::Identifier)
            })
            .map(|n| tree.text(n).to_owned())
            .unwrap_or_default()
    };
    for param in tree.children(params) {
        let (name, default) = match tree.kind(param) {
            Kind::Identifier => (tree.text(param).to_owned(), false),
            Kind::DefaultParameter | Kind::TypedDefaultParameter => (name_of(param), true),
            Kind::TypedParameter => {
                let first = tree.children(param).next().map(|c| tree.kind(c));
                match first {
                    Some(Kind::ListSplatPattern) => {
                        out.star = true;
                        keyword_only = true;
                        continue;
                    }
                    Some(Kind::DictionarySplatPattern) => {
                        out.double_star = true;
                        continue;
                    }
                    _ => (name_of(param), false),
                }
            }
            Kind::ListSplatPattern => {
                out.star = true;
                keyword_only = true;
                continue;
            }
            Kind::KeywordSeparator => {
                keyword_only = true;
                continue;
            }
            Kind::DictionarySplatPattern => {
                out.double_star = true;
                continue;
            }
            Kind::PositionalSeparator => {
                for p in &mut out.positional {
                    p.2 = true;
                }
                continue;
            }
            _ => continue,
        };
        if keyword_only {
            out.keyword_only.push((name, default));
        } else {
            out.positional.push((name, default, false));
        }
    }
    out
}

/// Checks each of the candidate's imports; returns how many it checked.
fn check_imports(
    index: &RepoIndex,
    analysis: &FileAnalysis,
    target_module: &str,
    findings: &mut Vec<Finding>,
) -> usize {
    let modules: BTreeSet<&str> = index.modules().into_iter().collect();
    // Top-level packages the rest of the repository imports: its dependencies, installed
    // with it.
    let mut dependencies: BTreeSet<String> = BTreeSet::new();
    for module in &modules {
        if *module == target_module {
            continue;
        }
        for import in index.imports(module) {
            if let Some(head) = import.imported.split('.').next() {
                dependencies.insert(head.to_owned());
            }
        }
    }
    let in_repository = |module: &str| {
        modules.contains(module) || {
            let prefix = format!("{module}.");
            modules.iter().any(|m| m.starts_with(&prefix))
        }
    };
    let elsewhere = |module: &str| {
        let head = module.split('.').next().unwrap_or(module);
        is_stdlib_module(head) || dependencies.contains(head)
    };
    for import in &analysis.imports {
        let at = Some(Location {
            line: import.line,
            column: 1,
        });
        let problem = match &import.target {
            ImportTarget::Unresolvable(written) => Some(format!(
                "`{written}` climbs above the top package: it cannot be imported"
            )),
            ImportTarget::Module(module) | ImportTarget::Star(module) => {
                (!in_repository(module) && !elsewhere(module)).then(|| unresolved(module))
            }
            ImportTarget::From { module, name } => {
                if module == target_module {
                    None
                } else if in_repository(module) {
                    let submodule = format!("{module}.{name}");
                    let bound = index.binds(module, name).unwrap_or(false);
                    (!bound && !in_repository(&submodule)).then(|| {
                        format!("`{module}` has no name `{name}`: nothing there defines, assigns or imports it")
                    })
                } else {
                    (!elsewhere(module)).then(|| unresolved(module))
                }
            }
        };
        if let Some(message) = problem {
            findings.push(Finding {
                kind: FindingKind::UnresolvedImport,
                at,
                message,
                evidence: Vec::new(),
            });
        }
    }
    analysis.imports.len()
}

fn unresolved(module: &str) -> String {
    format!(
        "`{module}` is neither a module of the repository, nor of the standard library, nor a package the repository imports elsewhere"
    )
}
