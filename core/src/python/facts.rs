//! Facts about a file's definitions that analysis and display share: kinds, qualified names, spans.
//!
//! The outline (what the analysis page shows) and the scope analysis (what the scorer
//! resolves) both start from these, so neither depends on the other. Spans follow spec
//! decision D1: from the `def` line to the last line of the body's last statement.

use serde::{Deserialize, Serialize};

use crate::budget::{Cancel, Cancelled};
use crate::syntax::{Field, Kind, NodeId, SyntaxTree};

/// What a definition is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefinitionKind {
    Class,
    Function,
    /// A function defined directly in a class body.
    Method,
}

/// A named class, function or method: what it is, its names and its lines (D1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NamedDefinition {
    pub(crate) kind: DefinitionKind,
    pub(crate) name: String,
    /// Python's `__qualname__`: `C.m`, `outer.<locals>.inner`.
    pub(crate) qualified_name: String,
    /// First line: the `def`/`class` line.
    pub(crate) start_line: u32,
    /// Last line of the body's last statement.
    pub(crate) end_line: u32,
}

/// Nodes handled between two looks at the cancel flag.
const CANCEL_EVERY: usize = 4096;

/// No definition (an index into [`Definitions::list`] that is none).
pub(crate) const NONE: u32 = u32::MAX;

pub(crate) fn to_id(n: usize) -> NodeId {
    NodeId::try_from(n).unwrap_or(NodeId::MAX)
}

/// The named classes and functions of a tree, with their qualified names (D1), found in
/// one pass over the arena: a definition's qualified name is its enclosing definition's
/// plus its own name, so no definition walks its ancestors.
pub(crate) struct Definitions {
    /// In source (pre-)order.
    pub(crate) list: Vec<NamedDefinition>,
    /// The node of each definition of `list`.
    pub(crate) nodes: Vec<NodeId>,
    /// For each node, the index in `list` of the innermost definition that is the node or
    /// contains it; `NONE` outside every definition.
    innermost: Vec<u32>,
}

impl Definitions {
    pub(crate) fn of(tree: &SyntaxTree<'_>, cancel: &Cancel) -> Result<Self, Cancelled> {
        let mut out = Definitions {
            list: Vec::new(),
            nodes: Vec::new(),
            innermost: vec![NONE; tree.len()],
        };
        for id in 0..to_id(tree.len()) {
            if (id as usize).is_multiple_of(CANCEL_EVERY) {
                cancel.check()?;
            }
            let enclosing = tree.parent(id).map_or(NONE, |p| out.innermost[p as usize]);
            out.innermost[id as usize] = enclosing;
            if !matches!(
                tree.kind(id),
                Kind::FunctionDefinition | Kind::ClassDefinition
            ) {
                continue;
            }
            let Some(name_node) = tree.child(id, Field::Name) else {
                continue;
            };
            let name = tree.text(name_node).to_owned();
            let span = tree.node(id).span;
            let end_line = tree
                .child(id, Field::Body)
                .and_then(|body| {
                    tree.children(body)
                        .filter(|&s| tree.kind(s) != Kind::Comment)
                        .last()
                })
                .map_or(span.end_line, |last| tree.node(last).span.end_line);
            let outer = (enclosing != NONE).then(|| {
                let node = out.nodes[enclosing as usize];
                (
                    tree.kind(node),
                    &out.list[enclosing as usize].qualified_name,
                )
            });
            let qualified_name = match outer {
                None => name.clone(),
                Some((Kind::FunctionDefinition, outer)) => format!("{outer}.<locals>.{name}"),
                Some((_, outer)) => format!("{outer}.{name}"),
            };
            let kind = match (tree.kind(id), outer.map(|(kind, _)| kind)) {
                (Kind::ClassDefinition, _) => DefinitionKind::Class,
                (_, Some(Kind::ClassDefinition)) => DefinitionKind::Method,
                _ => DefinitionKind::Function,
            };
            out.innermost[id as usize] = u32::try_from(out.list.len()).unwrap_or(NONE);
            out.nodes.push(id);
            out.list.push(NamedDefinition {
                kind,
                qualified_name,
                name,
                start_line: span.start_line,
                end_line,
            });
        }
        Ok(out)
    }

    /// The index in `list` of the definition whose node is `id`.
    pub(crate) fn definition_at(&self, id: NodeId) -> Option<u32> {
        let index = *self.innermost.get(id as usize)?;
        (index != NONE && self.nodes[index as usize] == id).then_some(index)
    }

    /// The definition whose node is `id`.
    pub(crate) fn get(&self, id: NodeId) -> Option<&NamedDefinition> {
        self.definition_at(id).map(|i| &self.list[i as usize])
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
