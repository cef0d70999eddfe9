//! Inheritance: for each class of the target, its parents, its siblings outside the file, and its subclasses.
//!
//! A class is rebuilt from the contract its parents set and its siblings follow: the
//! methods a sibling overrides are the ones the target's class must provide. Example: the
//! target's `JsonReader(Reader)` has the parent `pkg.io.base.Reader`, the siblings
//! `pkg.io.csv.CsvReader` and `pkg.io.xml.XmlReader`, and no subclass.
//!
//! The classes and their bases are read from the masked file (which keeps class headers
//! but not imports), so a base is matched to the repository's classes by name: every
//! class of that name is listed, and a base the repository does not define is kept as written.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::budget::Cancel;
use crate::python::facts::{DefinitionKind, Definitions, dotted_chain};
use crate::recube::graph::{EdgeKind, Graph, NodeKind};
use crate::syntax::{self, Field, Kind};

/// One class of the target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetClass {
    /// Its qualified name within the target (`Outer.Inner`).
    pub name: String,
    /// Its bases: the repository classes they name, or as written.
    pub parents: Vec<String>,
    /// Classes outside the target with one of the same parents.
    pub siblings: Vec<String>,
    /// Classes outside the target that inherit from it.
    pub subclasses: Vec<String>,
}

/// The inheritance view of a target.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inheritance {
    pub classes: Vec<TargetClass>,
}

/// The inheritance of the classes of the masked target `masked` in `graph`.
pub fn inheritance(graph: &Graph, masked: &str) -> Inheritance {
    let tree = syntax::parse(masked);
    let Ok(definitions) = Definitions::of(&tree, &Cancel::never()) else {
        return Inheritance::default();
    };
    let classes_named = |last: &str| -> Vec<u32> {
        let suffix = format!(".{last}");
        graph
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.kind == NodeKind::Class && n.name.ends_with(&suffix))
            .map(|(i, _)| i as u32)
            .collect()
    };
    let inherit = graph.edges_of(EdgeKind::Inherit);
    let mut classes = Vec::new();
    for (definition, &node) in definitions.list.iter().zip(&definitions.nodes) {
        if definition.kind != DefinitionKind::Class {
            continue;
        }
        let bases: Vec<String> = tree
            .child(node, Field::Superclasses)
            .into_iter()
            .flat_map(|list| tree.children(list))
            .filter(|&b| tree.kind(b) != Kind::KeywordArgument)
            .filter_map(|b| dotted_chain(&tree, b))
            .collect();
        let mut parents = BTreeSet::new();
        let mut parent_nodes = BTreeSet::new();
        for base in &bases {
            let last = base.rsplit('.').next().unwrap_or(base);
            let found = classes_named(last);
            if found.is_empty() {
                parents.insert(base.clone());
            }
            for id in found {
                parents.insert(graph.node(id).name.clone());
                parent_nodes.insert(id);
            }
        }
        let siblings: BTreeSet<String> = inherit
            .iter()
            .filter(|e| parent_nodes.contains(&e.to))
            .map(|e| graph.node(e.from).name.clone())
            .collect();
        let subclasses: BTreeSet<String> = inherit
            .iter()
            .filter(|e| {
                e.to == graph.target_node
                    && e.entity.as_deref() == Some(definition.qualified_name.as_str())
            })
            .map(|e| graph.node(e.from).name.clone())
            .collect();
        classes.push(TargetClass {
            name: definition.qualified_name.clone(),
            parents: parents.into_iter().collect(),
            siblings: siblings.into_iter().collect(),
            subclasses: subclasses.into_iter().collect(),
        });
    }
    Inheritance { classes }
}
