//! Questions an agent asks of an instance's dependency graph (the target withheld): who calls an entity, what an entity calls, which files are near a module.
//!
//! ReCUBE's caller-centric toolkit lets an agent walk the graph instead of reading every
//! file. Each answer is bounded (`limit` items, with how many were left out), names only
//! what the graph holds (the withheld target's code never starts an edge, so its callees
//! are refused), and a name the graph does not know is an error that suggests close ones.
//!
//! ```
//! use wheelwright_core::python::index::IndexOptions;
//! use wheelwright_core::recube::graph::Graph;
//! use wheelwright_core::workspace::Workspace;
//! let mut w = Workspace::new();
//! w.insert("pkg/__init__.py", "");
//! w.insert("pkg/target.py", "def hidden():\n    return 42\n");
//! w.insert("pkg/user.py", "from pkg.target import hidden\n\n\ndef show():\n    return hidden()\n");
//! let graph = Graph::build(&w, "pkg/target.py", &IndexOptions::default());
//! let callers = graph.callers("pkg.target.hidden", 10).unwrap();
//! assert_eq!(callers.items[0].caller, "pkg.user.show");
//! let unknown = graph.callers("pkg.user.shwo", 10).unwrap_err();
//! assert!(unknown.to_string().contains("pkg.user.show"));
//! ```

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::graph::{EdgeKind, Graph, NodeKind};

/// The deepest `neighbours` walks: three hops already reach most of a small library.
pub const MAX_DEPTH: u32 = 3;
/// How many close names an unknown name's error suggests.
const SUGGESTIONS: usize = 5;

/// Why a question has no answer, worded for the agent (or person) who asked it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// Nothing in the graph has that name.
    #[error(
        "{name} is not a class, function, file or module of the repository{}; give a qualified name (pkg.mod.Class.method), a module (pkg.mod) or a path (pkg/mod.py), or find one with `cce search`",
        did_you_mean(.suggestions)
    )]
    Unknown {
        name: String,
        suggestions: Vec<String>,
    },
    /// The withheld target's code is not in the graph.
    #[error(
        "{name} is in the withheld target {target}: its code is what is being rebuilt, so the graph has none of its calls; ask for its callers instead"
    )]
    Withheld { name: String, target: String },
    /// A depth outside 1..=[`MAX_DEPTH`].
    #[error("depth {depth} is out of range: give 1 to {MAX_DEPTH}")]
    Depth { depth: u32 },
}

fn did_you_mean(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", suggestions.join(", "))
    }
}

/// A bounded answer: at most `limit` items, most relevant first, and how many more there are.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer<T> {
    /// The node the question was about, as the graph names it (a qualified name or a path).
    pub subject: String,
    pub items: Vec<T>,
    /// Items left out by the limit.
    pub omitted: usize,
}

/// One caller and callee pair, with how many calls the caller makes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// The function, class or file (for module-level code) that calls.
    pub caller: String,
    /// What it calls: a qualified name, the target's names prefixed by its module.
    pub callee: String,
    /// The file the other side of the question is in (the caller's for `callers`, the
    /// callee's for `callees`).
    pub path: String,
    pub count: u32,
    /// The callee is in the withheld target.
    pub withheld: bool,
}

/// A file reached from the start of a `neighbours` question.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Neighbour {
    pub path: String,
    /// Hops from the start (1 is a direct neighbour).
    pub depth: u32,
    /// The file it was reached from.
    pub via: String,
    /// How it relates to `via`, from its side: `imports`, `calls`, `inherits from`,
    /// `imported by`, `called by`, `inherited by`.
    pub relations: Vec<String>,
    /// It is the withheld target.
    pub withheld: bool,
}

/// What a name stands for in the graph.
enum Subject {
    /// Nodes of the repository: a definition or file and everything it contains.
    Nodes { name: String, ids: BTreeSet<u32> },
    /// The withheld target's entity (`Parser`, `Parser.parse`), or the whole target (`None`).
    Target(Option<String>),
}

impl Graph {
    /// The functions, classes and files whose code calls `name` (a definition, a file or
    /// module, or one of the withheld target's names), most calls first; calls of what it
    /// contains (a class's methods, a file's definitions) count as calls of it.
    pub fn callers(&self, name: &str, limit: usize) -> Result<Answer<Call>, QueryError> {
        let (subject, calls) = match self.subject(name)? {
            Subject::Nodes { name, ids } => {
                let calls = self
                    .edges_of(EdgeKind::Invoke)
                    .into_iter()
                    .filter(|e| e.entity.is_none() && ids.contains(&e.to))
                    .map(|e| Call {
                        caller: self.node(e.from).name.clone(),
                        callee: self.node(e.to).name.clone(),
                        path: self.file_of(e.from).unwrap_or_default().to_owned(),
                        count: e.count,
                        withheld: false,
                    })
                    .collect();
                (name, calls)
            }
            Subject::Target(entity) => {
                let wanted = entity.as_deref();
                let calls = self
                    .edges_of(EdgeKind::Invoke)
                    .into_iter()
                    .filter(|e| e.to == self.target_node)
                    .filter_map(|e| {
                        let used = e.entity.as_deref()?;
                        let matches = wanted.is_none_or(|w| {
                            used == w || used.strip_prefix(w).is_some_and(|r| r.starts_with('.'))
                        });
                        matches.then(|| Call {
                            caller: self.node(e.from).name.clone(),
                            callee: self.target_entity(used),
                            path: self.file_of(e.from).unwrap_or_default().to_owned(),
                            count: e.count,
                            withheld: true,
                        })
                    })
                    .collect();
                let subject = match wanted {
                    Some(entity) => self.target_entity(entity),
                    None => self.target.clone(),
                };
                (subject, calls)
            }
        };
        Ok(bounded(subject, calls, limit))
    }

    /// What `name` (a definition, or a file or module: its code and every definition in
    /// it) calls, most calls first. The withheld target's code is not in the graph, so
    /// asking for its callees is [`QueryError::Withheld`].
    pub fn callees(&self, name: &str, limit: usize) -> Result<Answer<Call>, QueryError> {
        let Subject::Nodes { name: subject, ids } = self.subject(name)? else {
            return Err(QueryError::Withheld {
                name: name.to_owned(),
                target: self.target.clone(),
            });
        };
        let calls = self
            .edges_of(EdgeKind::Invoke)
            .into_iter()
            .filter(|e| ids.contains(&e.from))
            .map(|e| {
                let withheld = e.to == self.target_node;
                Call {
                    caller: self.node(e.from).name.clone(),
                    callee: match (&e.entity, withheld) {
                        (Some(entity), true) => self.target_entity(entity),
                        _ => self.node(e.to).name.clone(),
                    },
                    path: self.file_of(e.to).unwrap_or_default().to_owned(),
                    count: e.count,
                    withheld,
                }
            })
            .collect();
        Ok(bounded(subject, calls, limit))
    }

    /// The files within `depth` hops of the file of `name` (a module, a path, or a
    /// definition in it) over import, call and inheritance edges in either direction,
    /// nearest first. The withheld target is reached (others use it) but never passed
    /// through: its own imports and calls are not in the graph.
    pub fn neighbours(
        &self,
        name: &str,
        depth: u32,
        limit: usize,
    ) -> Result<Answer<Neighbour>, QueryError> {
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(QueryError::Depth { depth });
        }
        let start = match self.subject(name)? {
            Subject::Nodes { ids, .. } => ids
                .first()
                .and_then(|&id| self.file_of(id))
                .unwrap_or_default()
                .to_owned(),
            Subject::Target(_) => self.target.clone(),
        };
        // Each pair of files with the relations of the first to the second, from its side.
        let mut relations: BTreeMap<&str, BTreeMap<&str, BTreeSet<&'static str>>> = BTreeMap::new();
        for edge in &self.edges {
            let (active, passive) = match edge.kind {
                EdgeKind::Contain => continue,
                EdgeKind::Import => ("imports", "imported by"),
                EdgeKind::Invoke => ("calls", "called by"),
                EdgeKind::Inherit => ("inherits from", "inherited by"),
            };
            let (Some(from), Some(to)) = (self.file_of(edge.from), self.file_of(edge.to)) else {
                continue;
            };
            if from == to {
                continue;
            }
            relations
                .entry(from)
                .or_default()
                .entry(to)
                .or_default()
                .insert(active);
            relations
                .entry(to)
                .or_default()
                .entry(from)
                .or_default()
                .insert(passive);
        }
        let mut seen = BTreeSet::from([start.as_str()]);
        let mut queue = VecDeque::from([(start.as_str(), 0u32)]);
        let mut found = Vec::new();
        while let Some((file, hops)) = queue.pop_front() {
            if hops == depth || (file == self.target && hops > 0) {
                continue;
            }
            for other in relations.get(file).into_iter().flat_map(BTreeMap::keys) {
                if !seen.insert(other) {
                    continue;
                }
                let withheld = *other == self.target;
                found.push(Neighbour {
                    path: (*other).to_owned(),
                    depth: hops + 1,
                    via: file.to_owned(),
                    // From the neighbour's side: the relations of `other` to `file`.
                    relations: relations[other][file]
                        .iter()
                        .map(|r| (*r).to_owned())
                        .collect(),
                    withheld,
                });
                queue.push_back((other, hops + 1));
            }
        }
        Ok(bounded(start, found, limit))
    }

    /// A name of the withheld target, prefixed by its module.
    fn target_entity(&self, entity: &str) -> String {
        format!("{}.{entity}", self.target_module)
    }

    /// What `name` stands for: a definition's qualified name, a file's path, a module's
    /// dotted name (its path's, or a tail of it for a src/ layout), or the target's.
    fn subject(&self, name: &str) -> Result<Subject, QueryError> {
        let name = name.trim();
        if name == self.target || (!self.target_module.is_empty() && name == self.target_module) {
            return Ok(Subject::Target(None));
        }
        if let Some(entity) = name
            .strip_prefix(self.target_module.as_str())
            .and_then(|rest| rest.strip_prefix('.'))
            .filter(|_| !self.target_module.is_empty())
        {
            return Ok(Subject::Target(Some(entity.to_owned())));
        }
        let found = self.nodes.iter().position(|n| match n.kind {
            NodeKind::Class | NodeKind::Function => n.name == name,
            NodeKind::File => n.name == name || module_of_path(&n.name).as_deref() == Some(name),
            NodeKind::Directory => false,
        });
        let found = found.or_else(|| {
            // A module named without its source root (`pkg.mod` for `src/pkg/mod.py`),
            // when only one file ends so.
            let tail = format!(".{name}");
            let mut files = self.nodes.iter().enumerate().filter(|(_, n)| {
                n.kind == NodeKind::File
                    && module_of_path(&n.name).is_some_and(|m| m.ends_with(&tail))
            });
            match (files.next(), files.next()) {
                (Some((i, _)), None) => Some(i),
                _ => None,
            }
        });
        let Some(id) = found.and_then(|i| u32::try_from(i).ok()) else {
            return Err(QueryError::Unknown {
                name: name.to_owned(),
                suggestions: self.suggest(name),
            });
        };
        if id == self.target_node {
            return Ok(Subject::Target(None));
        }
        Ok(Subject::Nodes {
            name: self.node(id).name.clone(),
            ids: self.contained(id),
        })
    }

    /// `id` and every node it contains, however deep.
    fn contained(&self, id: u32) -> BTreeSet<u32> {
        let mut children: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for edge in self.edges_of(EdgeKind::Contain) {
            children.entry(edge.from).or_default().push(edge.to);
        }
        let mut out = BTreeSet::from([id]);
        let mut pending = vec![id];
        while let Some(parent) = pending.pop() {
            for &child in children.get(&parent).into_iter().flatten() {
                if out.insert(child) {
                    pending.push(child);
                }
            }
        }
        out
    }

    /// The names closest to `name`: those whose last part is within a few edits of its
    /// last part, or contains it, nearest first.
    fn suggest(&self, name: &str) -> Vec<String> {
        let wanted = last_part(name).to_lowercase();
        let allowed = (wanted.chars().count() / 3).max(2);
        let mut names: Vec<String> = self
            .nodes
            .iter()
            .filter(|n| n.kind != NodeKind::Directory)
            .map(|n| n.name.clone())
            .collect();
        names.extend(
            self.edges
                .iter()
                .filter(|e| e.to == self.target_node)
                .filter_map(|e| e.entity.as_deref())
                .filter(|e| *e != "<module>")
                .map(|e| self.target_entity(e)),
        );
        names.sort_unstable();
        names.dedup();
        let mut scored: Vec<(usize, usize, String)> = names
            .into_iter()
            .filter_map(|candidate| {
                let own = last_part(&candidate).to_lowercase();
                let distance = edit_distance(&own, &wanted);
                let close = distance <= allowed || (!wanted.is_empty() && own.contains(&wanted));
                close.then(|| {
                    let whole = edit_distance(&candidate.to_lowercase(), &name.to_lowercase());
                    (distance, whole, candidate)
                })
            })
            .collect();
        scored.sort();
        scored
            .into_iter()
            .take(SUGGESTIONS)
            .map(|(_, _, name)| name)
            .collect()
    }
}

/// The first `limit` items (sorted most calls first by the caller) and how many are left.
fn bounded<T: Ranked>(subject: String, mut items: Vec<T>, limit: usize) -> Answer<T> {
    items.sort_by(T::rank);
    let omitted = items.len().saturating_sub(limit);
    items.truncate(limit);
    Answer {
        subject,
        items,
        omitted,
    }
}

/// The order answers are listed in.
trait Ranked {
    fn rank(a: &Self, b: &Self) -> std::cmp::Ordering;
}

impl Ranked for Call {
    /// Most calls first, then by name.
    fn rank(a: &Self, b: &Self) -> std::cmp::Ordering {
        b.count
            .cmp(&a.count)
            .then_with(|| a.caller.cmp(&b.caller))
            .then_with(|| a.callee.cmp(&b.callee))
    }
}

impl Ranked for Neighbour {
    /// Nearest first, then by path.
    fn rank(a: &Self, b: &Self) -> std::cmp::Ordering {
        a.depth.cmp(&b.depth).then_with(|| a.path.cmp(&b.path))
    }
}

/// A file's module name as its path spells it (`pkg/mod.py` -> `pkg.mod`, `pkg/__init__.py`
/// -> `pkg`).
fn module_of_path(path: &str) -> Option<String> {
    let stem = path.strip_suffix(".py")?;
    let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
    Some(stem.replace('/', "."))
}

/// The last part of a dotted name or path.
fn last_part(name: &str) -> &str {
    let name = name.strip_suffix(".py").unwrap_or(name);
    name.rsplit(['.', '/']).next().unwrap_or(name)
}

/// Levenshtein distance between two short names, in characters (names longer than 64
/// characters are cut there, so a hostile name costs little).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(64).collect();
    let b: Vec<char> = b.chars().take(64).collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}
