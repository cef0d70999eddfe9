//! Module context: the files beside the target and the repository modules they all lean on.
//!
//! A file's neighbours in its package usually share its conventions and dependencies;
//! what two or more of them import is what the target is likely to need. Example: beside
//! `pkg/io/json.py` are `pkg/io/csv.py` and `pkg/io/xml.py`, which both import
//! `pkg.io.base.Reader`.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::recube::graph::{EdgeKind, Graph, NodeKind};

/// The target's sibling files and their shared imports.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleContext {
    /// The other files of the target's directory.
    pub siblings: Vec<String>,
    /// Repository modules and definitions imported by at least two siblings, with how
    /// many import each, most shared first.
    pub shared_imports: Vec<(String, u32)>,
}

/// The module context of `graph`'s target.
pub fn module_context(graph: &Graph) -> ModuleContext {
    let dir = graph.target.rfind('/').map_or("", |i| &graph.target[..i]);
    let in_dir = |path: &str| path.rfind('/').map_or("", |i| &path[..i]) == dir;
    let siblings: BTreeSet<u32> = graph
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| {
            n.kind == NodeKind::File && *i as u32 != graph.target_node && in_dir(&n.path)
        })
        .map(|(i, _)| i as u32)
        .collect();
    let mut importers: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for edge in graph.edges_of(EdgeKind::Import) {
        if !siblings.contains(&edge.from) {
            continue;
        }
        let name = match &edge.entity {
            Some(entity) => format!("{}.{entity}", graph.target_module),
            None => graph.node(edge.to).name.clone(),
        };
        importers.entry(name).or_default().insert(edge.from);
    }
    let mut shared_imports: Vec<(String, u32)> = importers
        .into_iter()
        .filter(|(_, files)| files.len() >= 2)
        .map(|(name, files)| (name, files.len() as u32))
        .collect();
    shared_imports.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ModuleContext {
        siblings: siblings
            .into_iter()
            .map(|i| graph.node(i).path.clone())
            .collect(),
        shared_imports,
    }
}
