//! The four caller-centric views of a target (spec 2), each computed from the graph with the target withheld.
//!
//! They are what ReCUBE's toolkit shows an agent about a file it has to rebuild: who calls
//! it and how ([`caller_patterns`]), the classes around its classes ([`inheritance`]), the
//! files beside it ([`module_context`]) and the files most like it ([`similar_files`]).
//! None reads the target's text; inheritance and similar files read the masked file, which
//! the agent is given anyway. [`Context`] holds all four and renders them as text.

mod caller_patterns;
mod inheritance;
mod module_context;
mod neighbourhood;
mod similar_files;

pub use caller_patterns::{CallerFile, caller_patterns};
pub use inheritance::{Inheritance, TargetClass, inheritance};
pub use module_context::{ModuleContext, module_context};
pub use neighbourhood::{
    ColumnTitle, MAX_NODES, Neighbourhood, PlacedEdge, PlacedNode, Role, neighbourhood,
};
pub use similar_files::{
    FileFeatures, SimilarFile, identifier_scores, name_similarity, similar_files,
    structure_similarity,
};

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::graph::Graph;
use crate::workspace::Workspace;

/// How many similar files a context lists.
pub const SIMILAR_FILES: usize = 5;

/// The least score a similar file needs to be listed: one that shows as 0.000 at the three
/// decimals the views print shares no signal with the target worth the agent's reading.
/// (The spec gives no threshold; this only keeps "similar" from naming dissimilar files.)
pub const MIN_SIMILARITY: f64 = 0.0005;

/// The four views of one target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Context {
    pub target: String,
    pub callers: Vec<CallerFile>,
    pub inheritance: Inheritance,
    pub module: ModuleContext,
    pub similar: Vec<SimilarFile>,
}

impl Context {
    /// The views of `graph`'s target, whose masked text is `masked`; `workspace` is the
    /// repository (its target file, if there, is never read).
    pub fn of(graph: &Graph, workspace: &Workspace, masked: &str) -> Self {
        let mut similar = similar_files(workspace, &graph.target, masked);
        similar.retain(|file| file.score >= MIN_SIMILARITY);
        similar.truncate(SIMILAR_FILES);
        Self {
            target: graph.target.clone(),
            callers: caller_patterns(graph),
            inheritance: inheritance(graph, masked),
            module: module_context(graph),
            similar,
        }
    }

    /// The views as text an agent reads.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# Context of {}\n", self.target);
        let _ = writeln!(out, "## Caller patterns");
        if self.callers.is_empty() {
            let _ = writeln!(out, "No other file imports or calls it.");
        }
        for caller in &self.callers {
            let mut parts = Vec::new();
            if !caller.imports.is_empty() {
                parts.push(format!("imports {}", caller.imports.join(", ")));
            }
            if !caller.calls.is_empty() {
                let calls: Vec<String> = caller
                    .calls
                    .iter()
                    .map(|(entity, n)| format!("{entity} x{n}"))
                    .collect();
                parts.push(format!("calls {}", calls.join(", ")));
            }
            let _ = writeln!(out, "- {}: {}", caller.path, parts.join("; "));
        }
        let _ = writeln!(out, "\n## Inheritance");
        if self.inheritance.classes.is_empty() {
            let _ = writeln!(out, "It defines no class.");
        }
        for class in &self.inheritance.classes {
            let _ = writeln!(
                out,
                "- class {}: parents {}; siblings {}; subclasses {}",
                class.name,
                list(&class.parents),
                list(&class.siblings),
                list(&class.subclasses)
            );
        }
        let _ = writeln!(out, "\n## Module context");
        let _ = writeln!(out, "Sibling files: {}", list(&self.module.siblings));
        let shared: Vec<String> = self
            .module
            .shared_imports
            .iter()
            .map(|(name, n)| format!("{name} ({n} files)"))
            .collect();
        let _ = writeln!(out, "Imports they share: {}", list(&shared));
        let _ = writeln!(out, "\n## Similar files");
        for file in &self.similar {
            let _ = writeln!(
                out,
                "- {} {:.3} (name {:.2}, structure {:.2}, identifiers {:.2})",
                file.path, file.score, file.name, file.structure, file.identifier
            );
        }
        out
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}
