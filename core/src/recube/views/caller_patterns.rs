//! Caller patterns: the files that import or call what the target defines, with counts.
//!
//! The first thing to know about a file one has to rebuild is how the rest of the
//! repository uses it: which names it must define, with which call shapes. Example:
//! `pkg/cli.py` imports `Parser` and calls `Parser` twice and `Parser.parse` once.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::recube::graph::{EdgeKind, Graph};

/// One file that uses the target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallerFile {
    pub path: String,
    /// What it imports from the target (`<module>`: the module itself).
    pub imports: Vec<String>,
    /// How many calls it makes to each entity of the target.
    pub calls: BTreeMap<String, u32>,
}

impl CallerFile {
    fn call_count(&self) -> u32 {
        self.calls.values().sum()
    }
}

/// The files with import or invoke edges to the target, most calls first.
pub fn caller_patterns(graph: &Graph) -> Vec<CallerFile> {
    let mut files: BTreeMap<&str, CallerFile> = BTreeMap::new();
    for edge in &graph.edges {
        if edge.to != graph.target_node || !matches!(edge.kind, EdgeKind::Import | EdgeKind::Invoke)
        {
            continue;
        }
        let (Some(path), Some(entity)) = (graph.file_of(edge.from), edge.entity.as_ref()) else {
            continue;
        };
        let file = files.entry(path).or_insert_with(|| CallerFile {
            path: path.to_owned(),
            imports: Vec::new(),
            calls: BTreeMap::new(),
        });
        if edge.kind == EdgeKind::Import {
            if !file.imports.contains(entity) {
                file.imports.push(entity.clone());
            }
        } else {
            *file.calls.entry(entity.clone()).or_default() += edge.count;
        }
    }
    let mut out: Vec<CallerFile> = files.into_values().collect();
    for file in &mut out {
        file.imports.sort();
    }
    out.sort_by(|a, b| {
        b.call_count()
            .cmp(&a.call_count())
            .then(b.imports.len().cmp(&a.imports.len()))
            .then(a.path.cmp(&b.path))
    });
    out
}
