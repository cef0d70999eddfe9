//! A file's outline: its classes, functions and methods, their spans and the calls in each.
//!
//! This is what the analysis page shows for pasted Python, and what the server's
//! `/api/v1/analyze` answers, so the two can be compared. Spans follow spec decision D1
//! (from the `def` line to the last line of the body's last statement, decorators apart);
//! a function's calls follow D6 (every call lexically inside its body, nested functions,
//! lambdas and comprehensions included).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::budget::{Cancel, Cancelled};
use crate::syntax::{self, Diagnostic, Field, Kind, NodeId, SyntaxTree};

/// What a definition is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefinitionKind {
    Class,
    Function,
    /// A function defined directly in a class body.
    Method,
}

/// A call inside a definition, named as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// The callee as a dotted name when it is a chain of names (`os.path.join`), else its
    /// final attribute (`x[0].strip()` is `strip`); `None` for calls without a name
    /// (`f()()`, `fs[0]()`).
    pub callee: Option<String>,
    pub line: u32,
}

/// A class, function or method and the calls in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    pub kind: DefinitionKind,
    pub name: String,
    /// Python's `__qualname__`: `C.m`, `outer.<locals>.inner`.
    pub qualified_name: String,
    /// First line: the `def`/`class` line.
    pub start_line: u32,
    /// Last line of the body's last statement.
    pub end_line: u32,
    /// Calls lexically in the body, in source order; empty for classes (spec D6).
    pub calls: Vec<Call>,
}

/// The outline of one Python file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outline {
    /// Definitions in source order.
    pub definitions: Vec<Definition>,
    pub syntax_errors: bool,
    pub diagnostics: Vec<Diagnostic>,
    /// Scorer and grammar that produced this, so results from different versions are told apart.
    pub scorer: String,
    pub grammar: String,
}

/// Outlines Python source. Never fails: broken code yields what the parser recovered.
///
/// ```
/// let outline = wheelwright_core::outline::outline("class C:\n    def m(self):\n        return len(self.x)\n");
/// assert_eq!(outline.definitions[1].qualified_name, "C.m");
/// assert_eq!(outline.definitions[1].calls[0].callee.as_deref(), Some("len"));
/// ```
pub fn outline(source: &str) -> Outline {
    match outline_with(source, &Cancel::never()) {
        Ok(outline) => outline,
        Err(Cancelled) => unreachable!("a Cancel::never() is never raised"),
    }
}

/// [`outline`] that stops with [`Cancelled`] soon after `cancel` is raised.
pub fn outline_with(source: &str, cancel: &Cancel) -> Result<Outline, Cancelled> {
    cancel.check()?;
    let tree = syntax::parse(source);
    let mut definitions = Vec::new();
    // Definitions are found in pre-order, so an enclosing definition is always pushed before
    // the ones inside it; `open` maps the arena id of each definition node to its index.
    let mut open: HashMap<NodeId, usize> = HashMap::new();
    for (i, id) in tree.descendants(tree.root()).enumerate() {
        if i % 4096 == 0 {
            cancel.check()?;
        }
        match tree.kind(id) {
            Kind::FunctionDefinition | Kind::ClassDefinition => {
                if let Some(definition) = definition(&tree, id) {
                    open.insert(id, definitions.len());
                    definitions.push(definition);
                }
            }
            Kind::Call => {
                let call = Call {
                    callee: callee_name(&tree, id),
                    line: tree.node(id).span.start_line,
                };
                for index in enclosing_function_bodies(&tree, id, &open) {
                    definitions[index].calls.push(call.clone());
                }
            }
            _ => {}
        }
    }
    Ok(Outline {
        definitions,
        syntax_errors: tree.has_syntax_errors(),
        diagnostics: tree.diagnostics().to_vec(),
        scorer: crate::SCORER_VERSION.to_owned(),
        grammar: syntax::GRAMMAR_VERSION.to_owned(),
    })
}

pub(crate) fn definition(tree: &SyntaxTree<'_>, id: NodeId) -> Option<Definition> {
    let name = tree.text(tree.child(id, Field::Name)?).to_owned();
    let span = tree.node(id).span;
    let end_line = tree
        .child(id, Field::Body)
        .and_then(|body| {
            tree.children(body)
                .filter(|&s| tree.kind(s) != Kind::Comment)
                .last()
        })
        .map_or(span.end_line, |last| tree.node(last).span.end_line);
    let class = tree.kind(id) == Kind::ClassDefinition;
    let mut scopes = Vec::new();
    let mut directly_in_class = None;
    let mut cursor = tree.parent(id);
    while let Some(ancestor) = cursor {
        let kind = tree.kind(ancestor);
        if matches!(kind, Kind::FunctionDefinition | Kind::ClassDefinition)
            && let Some(name) = tree.child(ancestor, Field::Name)
        {
            directly_in_class.get_or_insert(kind == Kind::ClassDefinition);
            if kind == Kind::FunctionDefinition {
                scopes.push("<locals>");
            }
            scopes.push(tree.text(name));
        }
        cursor = tree.parent(ancestor);
    }
    scopes.reverse();
    scopes.push(&name);
    let kind = match (class, directly_in_class) {
        (true, _) => DefinitionKind::Class,
        (false, Some(true)) => DefinitionKind::Method,
        (false, _) => DefinitionKind::Function,
    };
    Some(Definition {
        kind,
        qualified_name: scopes.join("."),
        name,
        start_line: span.start_line,
        end_line,
        calls: Vec::new(),
    })
}

/// Indices of the functions whose body lexically contains `call` (D6: decorators, defaults
/// and annotations of a function belong to its enclosing scope, not to it).
fn enclosing_function_bodies(
    tree: &SyntaxTree<'_>,
    call: NodeId,
    open: &HashMap<NodeId, usize>,
) -> Vec<usize> {
    let mut found = Vec::new();
    let mut child = call;
    let mut cursor = tree.parent(call);
    while let Some(ancestor) = cursor {
        if tree.kind(ancestor) == Kind::FunctionDefinition
            && tree.node(child).field == Some(Field::Body)
            && let Some(&index) = open.get(&ancestor)
        {
            found.push(index);
        }
        child = ancestor;
        cursor = tree.parent(ancestor);
    }
    found
}

/// The callee's name as written (see [`Call::callee`]).
fn callee_name(tree: &SyntaxTree<'_>, call: NodeId) -> Option<String> {
    let function = tree.child(call, Field::Function)?;
    match tree.kind(function) {
        Kind::Identifier => Some(tree.text(function).to_owned()),
        Kind::Attribute => dotted_chain(tree, function).or_else(|| {
            tree.child(function, Field::Attribute)
                .map(|attribute| tree.text(attribute).to_owned())
        }),
        _ => None,
    }
}

/// `a.b.c` when the expression is a chain of plain names, else `None`.
pub(crate) fn dotted_chain(tree: &SyntaxTree<'_>, mut id: NodeId) -> Option<String> {
    let mut parts = Vec::new();
    loop {
        match tree.kind(id) {
            Kind::Identifier => {
                parts.push(tree.text(id));
                break;
            }
            Kind::Attribute => {
                parts.push(tree.text(tree.child(id, Field::Attribute)?));
                id = tree.child(id, Field::Object)?;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.join("."))
}
