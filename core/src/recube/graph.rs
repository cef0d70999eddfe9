//! ReCUBE's dependency graph (spec 2): directories, files, classes and functions, and who contains, imports, invokes and inherits what.
//!
//! The graph of an instance is built from its repository with the target file withheld:
//! the target is indexed only masked (its names and signatures, which the agent is shown,
//! so that other files' uses of them resolve), and nothing of its module becomes a node or
//! starts an edge. It appears as one file node with no lines and no children, the end of
//! the edges by which other files import, invoke or inherit from what it defines (those
//! edges are the callers' code, and name the entity they use).
//!
//! Everything is resolved by the repository index ([`crate::python::index`]), the same
//! resolution RepoReuse's reuse metrics use (D4, D5): `from pkg import f` through a
//! re-export reaches `pkg.core.f`.
//!
//! ```
//! use wheelwright_core::python::index::IndexOptions;
//! use wheelwright_core::recube::graph::{EdgeKind, Graph};
//! use wheelwright_core::workspace::Workspace;
//! let mut w = Workspace::new();
//! w.insert("pkg/__init__.py", "");
//! w.insert("pkg/target.py", "def hidden():\n    return 42\n");
//! w.insert("pkg/user.py", "from pkg.target import hidden\n\n\ndef show():\n    return hidden()\n");
//! let graph = Graph::build(&w, "pkg/target.py", &IndexOptions::default());
//! let invokes = graph.edges_of(EdgeKind::Invoke);
//! assert_eq!(invokes.len(), 1);
//! assert_eq!(graph.node(invokes[0].from).name, "pkg.user.show");
//! assert_eq!(invokes[0].entity.as_deref(), Some("hidden"));
//! ```

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::budget::Cancelled;
use crate::python::facts::DefinitionKind;
use crate::python::index::{ImportedName, IndexOptions, IndexedDefinition, RepoIndex, module_name};
use crate::recube::mask::mask;
use crate::workspace::Workspace;

/// What a node stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Directory,
    File,
    Class,
    Function,
}

impl NodeKind {
    /// The name used in JSON and in the command line's text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Directory => "directory",
            Self::File => "file",
            Self::Class => "class",
            Self::Function => "function",
        }
    }
}

/// What an edge says about its two nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// A directory holds a directory or file; a file or class defines a class or function;
    /// a function defines a nested one.
    Contain,
    /// A file imports a file or a definition (one edge per importing file and target).
    Import,
    /// A function's body (or a file's module-level code) calls a function or class.
    Invoke,
    /// A class has another as a base.
    Inherit,
}

impl EdgeKind {
    /// The name used in JSON and in the command line's text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Contain => "contain",
            Self::Import => "import",
            Self::Invoke => "invoke",
            Self::Inherit => "inherit",
        }
    }
}

/// A node: a directory or file by path, a class or function by qualified name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    pub kind: NodeKind,
    /// The path of a directory or file; the qualified name of a class or function
    /// (`pkg.mod.C.m`).
    pub name: String,
    /// The file it is in (itself for a file; empty for a directory).
    pub path: String,
    /// First and last line (1-based, inclusive) of a class or function.
    pub lines: Option<(u32, u32)>,
}

/// A directed edge, with how many times the relation occurs (calls, imports).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    pub kind: EdgeKind,
    pub from: u32,
    pub to: u32,
    pub count: u32,
    /// For an edge to the withheld target: what of it is used (`Parser.parse`), or
    /// `<module>` for the module itself.
    pub entity: Option<String>,
}

/// One use of an entity: who imports, calls or inherits from it, and how often.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub kind: EdgeKind,
    /// The file, class or function that uses it.
    pub by: String,
    /// The file that is in.
    pub path: String,
    pub count: u32,
}

/// A repository's dependency graph with one file withheld.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graph {
    /// The withheld file's path and module name.
    pub target: String,
    pub target_module: String,
    /// The node of the withheld file.
    pub target_node: u32,
    pub nodes: Vec<Node>,
    /// Sorted by kind, then source and target node.
    pub edges: Vec<Edge>,
}

/// Edges being counted: (kind, from, to, entity) -> count.
type Counts = BTreeMap<(EdgeKind, u32, u32, Option<String>), u32>;

impl Graph {
    /// The graph of the Python files of `workspace` with `target` withheld: it is indexed
    /// masked ([`crate::recube::mask`]), so that names other files reach through its
    /// re-exports (`from pkg.target import *`, then `pkg.name`) still resolve to it, while
    /// none of its imports, bodies or calls is read.
    pub fn build(workspace: &Workspace, target: &str, options: &IndexOptions) -> Self {
        let mut rest = workspace.clone();
        if let Some(text) = rest.remove(target) {
            rest.insert(target, mask(&text).text);
        }
        let index = RepoIndex::build(&rest, options);
        Self::from_index(&index, target)
    }

    /// The graph of `index`, which holds `target` masked or not at all; nothing of the
    /// target's module becomes a node or the start of an edge.
    pub fn from_index(index: &RepoIndex, target: &str) -> Self {
        let target_module = module_name(target, index.options())
            .map(|(m, _)| m)
            .unwrap_or_default();
        let mut builder = Builder::default();
        let target_node = builder.file(target, None);
        let modules: Vec<&str> = index
            .modules()
            .into_iter()
            .filter(|m| *m != target_module)
            .collect();
        // What each module defines, imports and calls, read from the index on every core.
        let facts = crate::parallel::try_map(&modules, |&module| {
            Ok(ModuleFacts {
                path: index.module_path(module).unwrap_or_default(),
                definitions: index.definitions(module),
                imports: index.imports(module),
                calls: index
                    .calls(module)
                    .into_iter()
                    .map(|call| (call.scope, call.identity))
                    .collect(),
            })
        })
        .unwrap_or_else(|Cancelled| unreachable!("nothing here raises a cancel"));
        for (module, facts) in modules.iter().zip(&facts) {
            builder.file(&facts.path, Some(module));
        }
        // Definitions first, so that edges can point at any of them.
        let mut definitions = Vec::new();
        for (module, facts) in modules.iter().zip(&facts) {
            for definition in &facts.definitions {
                let kind = match definition.kind {
                    DefinitionKind::Class => NodeKind::Class,
                    DefinitionKind::Function | DefinitionKind::Method => NodeKind::Function,
                };
                let span = definition.spans.first().map(|s| (s.start, s.end));
                let id = builder.add(Node {
                    kind,
                    name: definition.qualified_name.clone(),
                    path: definition.path.clone(),
                    lines: span,
                });
                builder
                    .definitions
                    .insert(definition.qualified_name.clone(), id);
                definitions.push((*module, id, definition));
            }
        }
        let target_prefix = format!("{target_module}.");
        let resolve = |b: &Builder, identity: &str| -> Option<(u32, Option<String>)> {
            if let Some(&id) = b.definitions.get(identity) {
                return Some((id, None));
            }
            if let Some(&id) = b.modules.get(identity) {
                return Some((id, None));
            }
            if target_module.is_empty() {
                return None;
            }
            if identity == target_module {
                return Some((target_node, Some("<module>".to_owned())));
            }
            identity
                .strip_prefix(&target_prefix)
                .map(|entity| (target_node, Some(entity.to_owned())))
        };
        let mut counts = Counts::new();
        for (module, id, definition) in &definitions {
            // Contained by the enclosing definition, or by the file.
            let local = definition
                .qualified_name
                .strip_prefix(*module)
                .and_then(|q| q.strip_prefix('.'))
                .unwrap_or(&definition.qualified_name);
            let parent = match local.rfind('.') {
                Some(dot) => {
                    let outer = local[..dot].trim_end_matches(".<locals>");
                    builder
                        .definitions
                        .get(&format!("{module}.{outer}"))
                        .copied()
                }
                None => None,
            }
            .or_else(|| builder.modules.get(*module).copied());
            if let Some(parent) = parent {
                *counts
                    .entry((EdgeKind::Contain, parent, *id, None))
                    .or_default() += 1;
            }
            for base in &definition.bases {
                if let Some((to, entity)) = resolve(&builder, base) {
                    *counts
                        .entry((EdgeKind::Inherit, *id, to, entity))
                        .or_default() += 1;
                }
            }
        }
        for (module, facts) in modules.iter().zip(&facts) {
            let Some(&file) = builder.modules.get(*module) else {
                continue;
            };
            for import in &facts.imports {
                // A star import of the target names the module itself.
                let resolved = import.resolved.trim_end_matches(".*");
                if let Some((to, entity)) = resolve(&builder, resolved) {
                    *counts
                        .entry((EdgeKind::Import, file, to, entity))
                        .or_default() += 1;
                }
            }
            for (scope, identity) in &facts.calls {
                // A bare name that is not import-bound keeps its name as its identity (D5):
                // here it is the module's own definition when it has one of that name.
                let own = || {
                    (!identity.contains('.'))
                        .then(|| resolve(&builder, &format!("{module}.{identity}")))
                        .flatten()
                };
                let Some((to, entity)) = resolve(&builder, identity).or_else(own) else {
                    continue;
                };
                // Only classes and functions are invoked; a call through a module's name
                // resolves to its module only when the rest did not resolve.
                if entity.is_none() && builder.nodes[to as usize].kind == NodeKind::File {
                    continue;
                }
                let from = if scope == "<module>" {
                    file
                } else {
                    builder
                        .definitions
                        .get(&format!("{module}.{scope}"))
                        .copied()
                        .unwrap_or(file)
                };
                *counts
                    .entry((EdgeKind::Invoke, from, to, entity))
                    .or_default() += 1;
            }
        }
        let Builder {
            nodes, contains, ..
        } = builder;
        for (from, to) in contains {
            *counts
                .entry((EdgeKind::Contain, from, to, None))
                .or_default() += 1;
        }
        let edges = counts
            .into_iter()
            .map(|((kind, from, to, entity), count)| Edge {
                kind,
                from,
                to,
                count,
                entity,
            })
            .collect();
        Self {
            target: target.to_owned(),
            target_module,
            target_node,
            nodes,
            edges,
        }
    }

    /// Where `entity` (a qualified name: `pkg.mod.f`, or one of the withheld target's) is
    /// imported, called or inherited from, most uses first.
    pub fn usages(&self, entity: &str) -> Vec<Usage> {
        let of_target = entity
            .strip_prefix(self.target_module.as_str())
            .and_then(|rest| rest.strip_prefix('.'));
        let mut out: Vec<Usage> = self
            .edges
            .iter()
            .filter(|e| {
                e.kind != EdgeKind::Contain
                    && match (&e.entity, of_target) {
                        (Some(used), Some(wanted)) => e.to == self.target_node && used == wanted,
                        (None, _) => self.node(e.to).name == entity,
                        _ => false,
                    }
            })
            .map(|e| Usage {
                kind: e.kind,
                by: self.node(e.from).name.clone(),
                path: self.file_of(e.from).unwrap_or_default().to_owned(),
                count: e.count,
            })
            .collect();
        out.sort_by(|a, b| b.count.cmp(&a.count).then(a.by.cmp(&b.by)));
        out
    }

    /// The classes, functions and files whose own name (the last part of a qualified name,
    /// a file's name without `.py`) contains `name`, ignoring case; exact matches first.
    pub fn search(&self, name: &str) -> Vec<&Node> {
        let wanted = name.to_lowercase();
        let own = |node: &Node| -> String {
            let last = match node.kind {
                NodeKind::Class | NodeKind::Function => node.name.rsplit('.').next(),
                NodeKind::File | NodeKind::Directory => node.name.rsplit('/').next(),
            };
            let last = last.unwrap_or_default();
            last.strip_suffix(".py").unwrap_or(last).to_lowercase()
        };
        let mut found: Vec<(bool, &Node)> = self
            .nodes
            .iter()
            .filter(|n| n.kind != NodeKind::Directory)
            .filter_map(|n| {
                let own = own(n);
                own.contains(&wanted).then_some((own != wanted, n))
            })
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.name.cmp(&b.1.name)));
        found.into_iter().map(|(_, n)| n).collect()
    }

    pub fn node(&self, id: u32) -> &Node {
        &self.nodes[id as usize]
    }

    /// The edges of one kind.
    pub fn edges_of(&self, kind: EdgeKind) -> Vec<&Edge> {
        self.edges.iter().filter(|e| e.kind == kind).collect()
    }

    /// The files with calls into the target, sorted, each once.
    pub fn caller_files(&self) -> Vec<&str> {
        let mut callers: Vec<&str> = self
            .edges_of(EdgeKind::Invoke)
            .into_iter()
            .filter(|e| e.to == self.target_node)
            .filter_map(|e| self.file_of(e.from))
            .collect();
        callers.sort_unstable();
        callers.dedup();
        callers
    }

    /// The file a node is in (a file is in itself); `None` for a directory.
    pub fn file_of(&self, id: u32) -> Option<&str> {
        let node = self.node(id);
        (node.kind != NodeKind::Directory).then_some(node.path.as_str())
    }
}

/// What the graph takes of one module from the index.
struct ModuleFacts {
    path: String,
    definitions: Vec<IndexedDefinition>,
    imports: Vec<ImportedName>,
    calls: Vec<(String, String)>,
}

/// Nodes as they are added, with lookups by module name, qualified name and path.
#[derive(Default)]
struct Builder {
    nodes: Vec<Node>,
    modules: HashMap<String, u32>,
    definitions: HashMap<String, u32>,
    directories: HashMap<String, u32>,
    /// Contain edges between directories and files, added as paths are seen.
    contains: Vec<(u32, u32)>,
}

impl Builder {
    fn add(&mut self, node: Node) -> u32 {
        let id = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        self.nodes.push(node);
        id
    }

    /// The node of file `path` (module `module`, when indexed), with its directories.
    fn file(&mut self, path: &str, module: Option<&str>) -> u32 {
        let id = self.add(Node {
            kind: NodeKind::File,
            name: path.to_owned(),
            path: path.to_owned(),
            lines: None,
        });
        if let Some(module) = module {
            self.modules.insert(module.to_owned(), id);
        }
        let mut child = id;
        let mut dir = path;
        while let Some(slash) = dir.rfind('/') {
            dir = &dir[..slash];
            let (parent, new) = match self.directories.get(dir) {
                Some(&d) => (d, false),
                None => {
                    let d = self.add(Node {
                        kind: NodeKind::Directory,
                        name: dir.to_owned(),
                        path: String::new(),
                        lines: None,
                    });
                    self.directories.insert(dir.to_owned(), d);
                    (d, true)
                }
            };
            self.contains.push((parent, child));
            if !new {
                break;
            }
            child = parent;
        }
        id
    }
}
