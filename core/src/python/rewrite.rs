//! Span edits of Python source: replacements on [`crate::syntax`] byte spans, applied back to front.
//!
//! The copy baseline rewrites references with these today; masking, renaming and reordering
//! are the same operation. Nothing here fails: an edit that overlaps one already applied is
//! skipped with a diagnostic.

use crate::syntax::{Kind, NodeId, SyntaxTree};

/// A replacement of `start..end` (bytes) by `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// Replaces the text of `node`.
pub fn edit(tree: &SyntaxTree<'_>, node: NodeId, text: String) -> Edit {
    let span = tree.node(node).span;
    Edit {
        start: span.start_byte as usize,
        end: span.end_byte as usize,
        text,
    }
}

/// Where new module-level code goes: after the module's docstring, `__future__` imports and leading
/// imports (at 0 when it starts with something else). The range also takes the blank lines
/// that follow, which an inserted block replaces with its own.
pub fn insertion_range(tree: &SyntaxTree<'_>) -> (usize, usize) {
    let mut at = 0;
    for (i, statement) in tree.children(tree.root()).enumerate() {
        let prologue = match tree.kind(statement) {
            Kind::ImportStatement | Kind::ImportFromStatement | Kind::FutureImportStatement => true,
            Kind::Comment => continue,
            Kind::ExpressionStatement => {
                i == 0
                    && tree
                        .children(statement)
                        .next()
                        .is_some_and(|s| tree.kind(s) == Kind::String)
            }
            _ => false,
        };
        if !prologue {
            break;
        }
        at = tree.node(statement).span.end_byte as usize;
    }
    let rest = &tree.source()[at..];
    let blank = rest.len() - rest.trim_start_matches([' ', '\t', '\r', '\n']).len();
    // Up to the last line break of the blank run: the next line keeps its indentation.
    let end = rest[..blank].rfind('\n').map_or(at, |i| at + i + 1);
    (at, end)
}

/// Applies edits back to front; an edit overlapping one already applied is dropped with a
/// diagnostic (never expected: uses do not nest). Linear in the source and the edits: a
/// view renames thousands of identifiers in one file.
pub fn apply(source: &str, mut edits: Vec<Edit>, diagnostics: &mut Vec<String>) -> String {
    edits.sort_by(|a, b| b.start.cmp(&a.start).then(b.end.cmp(&a.end)));
    let mut kept = Vec::with_capacity(edits.len());
    let mut floor = usize::MAX;
    for e in edits {
        if e.end > floor || e.start > e.end || e.end > source.len() {
            diagnostics.push(format!(
                "overlapping rewrite at bytes {}..{} skipped",
                e.start, e.end
            ));
            continue;
        }
        floor = e.start;
        kept.push(e);
    }
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    for e in kept.iter().rev() {
        out.push_str(&source[at..e.start]);
        out.push_str(&e.text);
        at = e.end;
    }
    out.push_str(&source[at..]);
    out
}

/// Removes up to `column` leading spaces from every line but the first (a definition nested
/// in an `if` or `try` at module level, moved to the top level).
pub fn dedent(text: &str, column: usize) -> String {
    if column == 0 {
        return text.to_owned();
    }
    let mut out = String::new();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
            out.push_str(&line[indent.min(column)..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax;

    #[test]
    fn the_block_goes_after_docstring_and_imports_taking_the_blank_lines() {
        for (source, expected) in [
            ("", (0, 0)),
            ("x = 1\n", (0, 0)),
            ("\"\"\"Doc.\"\"\"\nimport a\n\n\nx = 1\n", (19, 22)),
            ("# c\nfrom a import b\n\n    \nx = 1\n", (19, 26)),
            ("import a\nx = 1\nimport b\n", (8, 9)),
        ] {
            let tree = syntax::parse(source);
            assert_eq!(insertion_range(&tree), expected, "{source:?}");
        }
    }
}
