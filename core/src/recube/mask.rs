//! Masking a target file (spec 2): imports removed, every function body replaced, the rest kept.
//!
//! What the agent gets in ReCUBE is the file's skeleton: its module docstring, comments,
//! class structure, class-level assignments, signatures and decorators, with every function
//! and method body replaced by its docstring (when it has one) and `raise
//! NotImplementedError`, and every import statement, at any depth, removed. The agent has to
//! find what the file needs from the rest of the repository.
//!
//! The masked file is valid Python whatever the original held. Where removing imports would
//! leave a block empty (`if TYPE_CHECKING:` or a `try:`/`except ImportError:` that only
//! imported), the block gets `pass`, where the reference implementation leaves a block with no
//! statement, which Python refuses.
//!
//! ```
//! use wheelwright_core::recube::mask::mask;
//! let masked = mask("import os\n\n\ndef cwd():\n    \"\"\"Where we are.\"\"\"\n    return os.getcwd()\n");
//! assert_eq!(masked.text, "\n\ndef cwd():\n    \"\"\"Where we are.\"\"\"\n    raise NotImplementedError\n");
//! assert_eq!(masked.bodies, ["cwd"]);
//! ```
//!
//! Comments inside a body go with the body (they describe the implementation): those between
//! its statements, and those before its first statement and after its last that are indented
//! at least as deep as the body, as Python's own tokenizer would put them in the block (a
//! trailing `# fall back to ...` is the implementation's, not the next definition's). Comments
//! indented less than the body (about what follows) stay, as do all outside functions.
//! Lambdas are expressions, not bodies, and stay.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::budget::Cancel;
use crate::python::facts::Definitions;
use crate::python::rewrite::{self, Edit};
use crate::syntax::{self, Field, Kind, NodeId, SyntaxTree};

/// The statement every masked body raises.
pub const RAISE: &str = "raise NotImplementedError";

/// A masked file, what was masked in it, and anything that went wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Masked {
    /// The masked source.
    pub text: String,
    /// The qualified names (`Class.method`) of the functions whose bodies were replaced, in
    /// source order.
    pub bodies: Vec<String>,
    /// How many import statements were removed.
    pub imports: usize,
    /// Problems with the input (syntax errors, a file over the parse budget); the text is
    /// still the best masking of what parsed.
    pub diagnostics: Vec<String>,
}

/// Masks `source` (spec 2, "Masking a target file"). Never fails: a file with syntax errors
/// is masked around them with a diagnostic; a file over the parse budget is masked to
/// nothing (showing it unmasked would give the answer away).
pub fn mask(source: &str) -> Masked {
    let tree = syntax::parse(source);
    let mut diagnostics: Vec<String> = tree
        .diagnostics()
        .iter()
        .map(|d| format!("line {}: {}", d.line, d.message))
        .collect();
    if tree.over_budget() {
        diagnostics.push("the file is too large to mask; it is masked to an empty file".into());
        return Masked {
            text: String::new(),
            bodies: Vec::new(),
            imports: 0,
            diagnostics,
        };
    }
    if tree.has_syntax_errors() {
        diagnostics
            .push("the file has syntax errors: the masked file may not be valid Python".to_owned());
    }
    let Ok(definitions) = Definitions::of(&tree, &Cancel::never()) else {
        unreachable!("a Cancel::never() is never raised")
    };
    let mut edits = Vec::new();
    let mut bodies = Vec::new();
    // Import statements by the block or module that holds them.
    let mut imports: BTreeMap<NodeId, Vec<NodeId>> = BTreeMap::new();
    let mut walk = tree.descendants(tree.root());
    while let Some(id) = walk.next() {
        match tree.kind(id) {
            Kind::ImportStatement | Kind::ImportFromStatement | Kind::FutureImportStatement => {
                if let Some(parent) = tree.parent(id) {
                    imports.entry(parent).or_default().push(id);
                }
                walk.skip_children(id);
            }
            Kind::FunctionDefinition => {
                if let Some(edit) = body_edit(&tree, id) {
                    edits.push(edit);
                    bodies.extend(definitions.get(id).map(|d| d.qualified_name.clone()));
                }
                // Anything inside the body (nested functions, imports) goes with it.
                walk.skip_children(id);
            }
            _ => {}
        }
    }
    let count = imports.values().map(Vec::len).sum();
    let mut removals = Vec::new();
    for (parent, statements) in imports {
        let keeps_a_statement = tree.kind(parent) == Kind::Module
            || tree.children(parent).any(|c| {
                !matches!(
                    tree.kind(c),
                    Kind::Comment
                        | Kind::ImportStatement
                        | Kind::ImportFromStatement
                        | Kind::FutureImportStatement
                )
            });
        for (i, statement) in statements.into_iter().enumerate() {
            if i == 0 && !keeps_a_statement {
                // A block needs a statement: the first import's place takes `pass`.
                edits.push(rewrite::edit(&tree, statement, "pass".to_owned()));
            } else {
                removals.push(removal(&tree, statement));
            }
        }
    }
    edits.extend(merged(removals));
    let text = rewrite::apply(source, edits, &mut diagnostics);
    Masked {
        text,
        bodies,
        imports: count,
        diagnostics,
    }
}

/// The edit that replaces the body of function `id` by its docstring and [`RAISE`]: from its
/// first statement to its last with the body's own comments around them ([`leading_comment`],
/// [`trailing_comments_end`]), on the `def` line for a body written there.
fn body_edit(tree: &SyntaxTree<'_>, id: NodeId) -> Option<Edit> {
    let body = tree.child(id, Field::Body)?;
    let mut statements = tree
        .children(body)
        .filter(|&c| tree.kind(c) != Kind::Comment);
    let first = statements.next()?;
    let last = statements.last().unwrap_or(first);
    let source = tree.source();
    let start = tree.node(first).span.start_byte as usize;
    let end = tree.node(last).span.end_byte as usize;
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let before = &source[line_start..start];
    // A body on the `def` line (`def f(): return 1`) stays on it, as `;`-separated statements.
    let separator = if before.trim_start_matches([' ', '\t']).is_empty() {
        format!("\n{before}")
    } else {
        "; ".to_owned()
    };
    let (start, end) = if separator == "; " {
        (start, end)
    } else {
        (
            leading_comment(source, line_start, before).unwrap_or(start),
            trailing_comments_end(source, end, before),
        )
    };
    let text = match docstring(tree, first) {
        Some(doc) => format!("{doc}{separator}{RAISE}"),
        None => RAISE.to_owned(),
    };
    Some(Edit { start, end, text })
}

/// Where the first of the comment lines just above a body's first statement (the line at
/// `line_start`) begins, when they are indented at least as deep as the body (`indent`):
/// they describe the implementation. Blank lines between them are crossed; the `def` line
/// (or a signature's last line) ends the search.
fn leading_comment(source: &str, line_start: usize, indent: &str) -> Option<usize> {
    let mut found = None;
    let mut end = line_start;
    while end > 0 {
        let start = source[..end - 1].rfind('\n').map_or(0, |i| i + 1);
        let line = &source[start..end - 1];
        let code = line.trim_start_matches([' ', '\t']);
        if code.trim_end().is_empty() {
            end = start;
            continue;
        }
        if !(code.starts_with('#') && line.starts_with(indent)) {
            break;
        }
        found = Some(start + (line.len() - code.len()));
        end = start;
    }
    found
}

/// Where a body that ends at `end` really ends: after a comment on its last statement's line,
/// and after the comment lines below it indented at least as deep as the body (`indent`),
/// blank lines between them crossed; the first line of code, or a comment indented less (about
/// what follows), ends it.
fn trailing_comments_end(source: &str, end: usize, indent: &str) -> usize {
    let line_end = source[end..].find('\n').map_or(source.len(), |i| end + i);
    let rest = source[end..line_end].trim_start_matches([' ', '\t']);
    let mut body_end = if rest.starts_with('#') {
        line_end - (rest.len() - rest.trim_end().len())
    } else {
        end
    };
    let mut next = line_end + 1;
    while next < source.len() {
        let next_end = source[next..].find('\n').map_or(source.len(), |i| next + i);
        let line = &source[next..next_end];
        let code = line.trim_start_matches([' ', '\t']);
        if code.trim_end().is_empty() {
            next = next_end + 1;
            continue;
        }
        if !(code.starts_with('#') && line.starts_with(indent)) {
            break;
        }
        body_end = next + line.trim_end().len();
        next = next_end + 1;
    }
    body_end
}

/// The text of `statement` when it is a docstring: an expression statement that is one
/// string literal, not an f-string (Python does not take those as docstrings).
fn docstring<'s>(tree: &SyntaxTree<'s>, statement: NodeId) -> Option<&'s str> {
    if tree.kind(statement) != Kind::ExpressionStatement {
        return None;
    }
    let mut children = tree.children(statement);
    let string = children.next()?;
    let literal = matches!(tree.kind(string), Kind::String | Kind::ConcatenatedString)
        && children.next().is_none()
        && tree
            .descendants(string)
            .filter(|&d| tree.kind(d) == Kind::String)
            .all(|part| is_text_literal(tree.text(part)));
    literal.then(|| tree.text(statement))
}

/// Whether a string literal's prefix (`r`, `u`, none) makes it text, not bytes (`b`) or an
/// f-string (`f`, `t`).
fn is_text_literal(literal: &str) -> bool {
    literal
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .all(|c| matches!(c, 'r' | 'R' | 'u' | 'U'))
}

/// Removes an import statement: its whole line when the line holds nothing else (a trailing
/// comment about the import goes with it), else the statement and a `;` that follows it.
fn removal(tree: &SyntaxTree<'_>, statement: NodeId) -> Edit {
    let source = tree.source();
    let span = tree.node(statement).span;
    let (start, end) = (span.start_byte as usize, span.end_byte as usize);
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[end..]
        .find('\n')
        .map_or(source.len(), |i| end + i + 1);
    let after = source[end..line_end].trim_start_matches([' ', '\t']);
    let alone_before = source[line_start..start]
        .trim_start_matches([' ', '\t'])
        .is_empty();
    if let Some(rest) = after.strip_prefix(';') {
        // `import a; x = 1`: the statement, its `;` and the spaces up to the next statement.
        let next = rest.trim_start_matches([' ', '\t']);
        if alone_before && next.trim_end().is_empty() {
            return Edit {
                start: line_start,
                end: line_end,
                text: String::new(),
            };
        }
        return Edit {
            start,
            end: line_end - next.len(),
            text: String::new(),
        };
    }
    let rest_is_comment = after.trim_end().is_empty() || after.starts_with('#');
    if alone_before && rest_is_comment {
        return Edit {
            start: line_start,
            end: line_end,
            text: String::new(),
        };
    }
    // `x = 1; import a`: the `;` before the statement goes too.
    let before = source[line_start..start].trim_end_matches([' ', '\t']);
    let start = match before.strip_suffix(';') {
        Some(kept) if rest_is_comment => line_start + kept.len(),
        _ => start,
    };
    Edit {
        start,
        end,
        text: String::new(),
    }
}

/// Removals with overlapping ranges (`import a; import b` each taking the `;` between them)
/// joined into one, so [`rewrite::apply`] applies them all.
fn merged(mut removals: Vec<Edit>) -> Vec<Edit> {
    removals.sort_by_key(|e| (e.start, e.end));
    let mut out: Vec<Edit> = Vec::with_capacity(removals.len());
    for edit in removals {
        match out.last_mut() {
            Some(last) if edit.start < last.end => last.end = last.end.max(edit.end),
            _ => out.push(edit),
        }
    }
    out
}
