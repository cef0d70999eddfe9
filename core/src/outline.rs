//! A file's outline: its classes, functions and methods, their spans and the calls in each.
//!
//! This is what the analysis page shows for pasted Python, and what the server's
//! `/api/v1/analyze` answers, so the two can be compared. Spans follow spec decision D1
//! (from the `def` line to the last line of the body's last statement, decorators apart);
//! a function's calls follow D6 (every call lexically inside its body, nested functions,
//! lambdas and comprehensions included).

use serde::{Deserialize, Serialize};

use crate::budget::{Cancel, Cancelled};
use crate::python::facts::{DefinitionKind, Definitions, NONE, dotted_chain, to_id};
use crate::syntax::{self, Diagnostic, Field, Kind, NodeId, SyntaxTree};

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
///
/// Linear in the file: one pass finds the definitions and, for every node, the innermost
/// function whose body holds it; each call is then listed in that function and in the
/// functions around it (D6). At most [`MAX_OUTLINE_CALLS`] calls are listed in all: the
/// same call is listed once per enclosing function, and deeply nested functions could
/// otherwise make the outline much larger than the file.
pub fn outline_with(source: &str, cancel: &Cancel) -> Result<Outline, Cancelled> {
    cancel.check()?;
    let tree = syntax::parse_with(source, cancel)?;
    let mut names = Definitions::of(&tree, cancel)?;
    // For each node, the index (in `names.list`) of the innermost function whose body
    // contains it, D6 (decorators, defaults and annotations belong to the enclosing scope).
    let mut body_owner: Vec<u32> = vec![NONE; tree.len()];
    let mut listed = 0usize;
    let mut truncated_at = None;
    let mut definitions: Vec<Definition> = std::mem::take(&mut names.list)
        .into_iter()
        .map(|d| Definition {
            kind: d.kind,
            name: d.name,
            qualified_name: d.qualified_name,
            start_line: d.start_line,
            end_line: d.end_line,
            calls: Vec::new(),
        })
        .collect();
    for id in 0..to_id(tree.len()) {
        if (id as usize).is_multiple_of(CANCEL_EVERY) {
            cancel.check()?;
        }
        let Some(parent) = tree.parent(id) else {
            continue;
        };
        let parent_def = names.definition_at(parent);
        body_owner[id as usize] = match parent_def {
            Some(index)
                if tree.kind(parent) == Kind::FunctionDefinition
                    && tree.node(id).field == Some(Field::Body) =>
            {
                index
            }
            _ => body_owner[parent as usize],
        };
        if tree.kind(id) != Kind::Call || truncated_at.is_some() {
            continue;
        }
        let call = Call {
            callee: callee_name(&tree, id),
            line: tree.node(id).span.start_line,
        };
        let mut owner = body_owner[id as usize];
        while owner != NONE {
            if listed == MAX_OUTLINE_CALLS {
                truncated_at = Some(call.line);
                break;
            }
            listed += 1;
            let def = &mut definitions[owner as usize];
            def.calls.push(call.clone());
            owner = body_owner[names.nodes[owner as usize] as usize];
        }
    }
    let mut diagnostics = tree.diagnostics().to_vec();
    if let Some(line) = truncated_at {
        diagnostics.push(Diagnostic {
            line,
            message: format!(
                "the outline lists only the first {MAX_OUTLINE_CALLS} calls (counting a call once per function around it); the calls from here on are not listed"
            ),
        });
    }
    Ok(Outline {
        definitions,
        syntax_errors: tree.has_syntax_errors(),
        diagnostics,
        scorer: crate::SCORER_VERSION.to_owned(),
        grammar: syntax::GRAMMAR_VERSION.to_owned(),
    })
}

/// Calls listed in one outline, over all its definitions (each call counts once per
/// function around it). Real files list far fewer (the largest measured, a 446 KB sympy
/// module, lists 20,000); a file within [`crate::budget::MAX_FILE_NODES`] with calls nested
/// in thousands of functions could list billions.
pub const MAX_OUTLINE_CALLS: usize = crate::budget::MAX_FILE_NODES;

/// Nodes handled between two looks at the cancel flag.
const CANCEL_EVERY: usize = 4096;

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
