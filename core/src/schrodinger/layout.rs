//! Level 3 of SchrodingerRepo (spec 3): runs of definitions put in a seeded order that keeps what each needs at definition time, and put back.
//!
//! A run is a maximal sequence of top-level function and class definitions (or of the
//! definitions in one class body) with nothing but comments between them; any other
//! statement is an anchor that ends it. Within a run, a definition must stay after the
//! definitions whose names it uses when it is defined: in its decorators, default values,
//! annotations and, for a class, its bases, keywords and body outside its methods'
//! bodies. Definitions of one name keep their order (a property and its setter). The order
//! is a topological order of that graph, each step drawn under the seed.
//!
//! Each definition moves with the comment lines directly above it and what follows it on
//! its last line; blank lines and other comments stay where they were. The record is the
//! names of each run in their original order, so [`restore`] finds the run again in a
//! view (also one an agent has edited) and puts it back; on an unedited view the original
//! comes back byte for byte. Example:
//! ```
//! use wheelwright_core::schrodinger::layout::{reorder, restore};
//! let source = "def a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c(f=a):\n    pass\n";
//! let (view, runs) = reorder(source, 3, "m.py");
//! assert!(view.find("def a").unwrap() < view.find("def c").unwrap());
//! assert_eq!(runs[0].names, ["a", "b", "c"]);
//! assert_eq!(restore(&view, &runs).0, source);
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::words;
use crate::syntax::{self, Field, Kind, NodeId, SyntaxTree};

/// One run of a file: where it is and its definitions' names in the original order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The class whose body holds the run (`Outer.Inner`), empty for the module.
    pub container: String,
    pub names: Vec<String>,
}

/// A run found in a parsed file.
struct Run {
    container: String,
    units: Vec<Unit>,
}

/// A definition of a run: its name, its byte range (with its attached comments and the
/// rest of its last line), and the names it uses at definition time.
struct Unit {
    name: String,
    start: usize,
    end: usize,
    uses: BTreeSet<String>,
    /// Every identifier in it, bodies included: what running it may need.
    all: BTreeSet<String>,
}

/// The runs of `tree`, in source order (a class body's runs after the run holding the class).
fn runs(tree: &SyntaxTree<'_>) -> Vec<Run> {
    let source = tree.source();
    let mut containers = vec![(tree.root(), String::new())];
    let mut out = Vec::new();
    let mut next = 0;
    while next < containers.len() {
        let (container, qualified) = containers[next].clone();
        next += 1;
        let mut run: Vec<Unit> = Vec::new();
        let mut comments: Vec<NodeId> = Vec::new();
        for child in tree.children(container) {
            let kind = tree.kind(child);
            if kind == Kind::Comment {
                comments.push(child);
                continue;
            }
            let definition = definition_of(tree, child);
            match definition {
                Some(def) => {
                    if tree.kind(def) == Kind::ClassDefinition
                        && let (Some(body), Some(name)) =
                            (tree.child(def, Field::Body), tree.child(def, Field::Name))
                    {
                        let name = tree.text(name);
                        let inner = if qualified.is_empty() {
                            name.to_owned()
                        } else {
                            format!("{qualified}.{name}")
                        };
                        containers.push((body, inner));
                    }
                    match unit(tree, source, child, def, &comments) {
                        Some(u) => run.push(u),
                        None => close(&qualified, &mut run, &mut out),
                    }
                }
                None => close(&qualified, &mut run, &mut out),
            }
            comments.clear();
        }
        close(&qualified, &mut run, &mut out);
    }
    out
}

fn close(container: &str, run: &mut Vec<Unit>, out: &mut Vec<Run>) {
    let units = std::mem::take(run);
    if units.len() >= 2 {
        out.push(Run {
            container: container.to_owned(),
            units,
        });
    }
}

/// The function or class a statement defines, under its decorators.
fn definition_of(tree: &SyntaxTree<'_>, statement: NodeId) -> Option<NodeId> {
    match tree.kind(statement) {
        Kind::FunctionDefinition | Kind::ClassDefinition => Some(statement),
        Kind::DecoratedDefinition => tree.child(statement, Field::Definition),
        _ => None,
    }
}

fn line_start(source: &str, at: usize) -> usize {
    source[..at].rfind('\n').map_or(0, |i| i + 1)
}

fn line_end(source: &str, at: usize) -> usize {
    source[at..].find('\n').map_or(source.len(), |i| at + i)
}

/// The unit of `statement`, or `None` when it shares a line with other code.
fn unit(
    tree: &SyntaxTree<'_>,
    source: &str,
    statement: NodeId,
    def: NodeId,
    comments: &[NodeId],
) -> Option<Unit> {
    let span = tree.node(statement).span;
    let mut start = span.start_byte as usize;
    let mut first_line = span.start_line;
    // Comment lines directly above (no blank line between) move with the definition.
    for &c in comments.iter().rev() {
        let cs = tree.node(c).span;
        let own_line = source[line_start(source, cs.start_byte as usize)..cs.start_byte as usize]
            .trim()
            .is_empty();
        if cs.end_line + 1 != first_line || !own_line {
            break;
        }
        start = cs.start_byte as usize;
        first_line = cs.start_line;
    }
    let begin = line_start(source, start);
    if !source[begin..start].trim().is_empty() {
        return None;
    }
    let end = line_end(source, span.end_byte as usize);
    let rest = source[span.end_byte as usize..end].trim_start();
    if !(rest.is_empty() || rest.starts_with('#')) {
        return None;
    }
    let name = tree
        .child(def, Field::Name)
        .map(|n| tree.text(n).to_owned())?;
    Some(Unit {
        name,
        start: begin,
        end,
        uses: definition_time_names(tree, statement, def),
        all: tree
            .descendants(statement)
            .filter(|&d| tree.kind(d) == Kind::Identifier)
            .map(|d| tree.text(d).to_owned())
            .collect(),
    })
}

/// The identifiers a definition evaluates when it is defined: everything in it but its
/// own name and the bodies of the functions in it.
fn definition_time_names(
    tree: &SyntaxTree<'_>,
    statement: NodeId,
    def: NodeId,
) -> BTreeSet<String> {
    let own_name = tree.child(def, Field::Name);
    let mut names = BTreeSet::new();
    let mut walk = tree.descendants(statement);
    while let Some(id) = walk.next() {
        match tree.kind(id) {
            Kind::Block
                if tree
                    .parent(id)
                    .is_some_and(|p| tree.kind(p) == Kind::FunctionDefinition) =>
            {
                walk.skip_children(id);
            }
            Kind::Identifier if Some(id) != own_name => {
                names.insert(tree.text(id).to_owned());
            }
            _ => {}
        }
    }
    names
}

/// The order of `units` to write: a topological order of their definition-time
/// dependencies, each next unit drawn at random from those ready.
fn order(units: &[Unit], rng: &mut rand_chacha::ChaCha8Rng) -> Vec<usize> {
    let n = units.len();
    let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, u) in units.iter().enumerate() {
        by_name.entry(u.name.as_str()).or_default().push(i);
    }
    // before[j]: the units that must come before j.
    let mut before: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for (a, u) in units.iter().enumerate() {
        let same = by_name[u.name.as_str()].iter().copied();
        // A unit used at definition time may be called then (attrs' `_DeepMapping` calls
        // `optional`, which makes an `_OptionalValidator`), so what its body uses is
        // needed too, transitively.
        let mut needed: BTreeSet<usize> = BTreeSet::new();
        let mut pending: Vec<&String> = u.uses.iter().collect();
        while let Some(name) = pending.pop() {
            for &b in by_name.get(name.as_str()).into_iter().flatten() {
                if b != a && needed.insert(b) {
                    pending.extend(units[b].all.iter());
                }
            }
        }
        for b in same.chain(needed) {
            match b.cmp(&a) {
                std::cmp::Ordering::Less => {
                    before[a].insert(b);
                }
                std::cmp::Ordering::Greater => {
                    before[b].insert(a);
                }
                std::cmp::Ordering::Equal => {}
            }
        }
    }
    let mut placed = vec![false; n];
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let ready: Vec<usize> = (0..n)
            .filter(|&j| !placed[j] && before[j].iter().all(|&b| placed[b]))
            .collect();
        // Edges only go from earlier to later units, so something is always ready.
        let pick = ready[words::below(rng, ready.len())];
        placed[pick] = true;
        out.push(pick);
    }
    out
}

/// Whether `units` hold a definition of each of `names` (counting repeats).
fn contains_all(units: &[Unit], names: &[String]) -> bool {
    let mut have: BTreeMap<&str, usize> = BTreeMap::new();
    for u in units {
        *have.entry(u.name.as_str()).or_default() += 1;
    }
    names.iter().all(|n| {
        have.get_mut(n.as_str()).is_some_and(|c| {
            let enough = *c > 0;
            *c = c.saturating_sub(1);
            enough
        })
    })
}

/// `source` with each run's units permuted: `order` gives, for each run, which unit goes in
/// each slot. Blank lines and free comments between units stay in their slots.
///
/// A permutation keeps a run's length, so rewriting the runs innermost first (a class
/// body's run lies inside one unit of an outer run) leaves every other range valid.
fn permute(source: &str, runs: &[Run], mut order: impl FnMut(usize, &Run) -> Vec<usize>) -> String {
    let mut out = source.to_owned();
    for (i, run) in runs.iter().enumerate().rev() {
        let units = &run.units;
        let order = order(i, run);
        let mut text = String::with_capacity(units[units.len() - 1].end - units[0].start);
        for (slot, &u) in order.iter().enumerate() {
            text.push_str(&out[units[u].start..units[u].end]);
            if let Some(next) = units.get(slot + 1) {
                text.push_str(&out[units[slot].end..next.start]);
            }
        }
        out.replace_range(units[0].start..units[units.len() - 1].end, &text);
    }
    out
}

/// `source` with its runs in a seeded order (`salt` tells files apart: give each its path),
/// and the record that [`restore`] needs. A file with syntax errors is left as it is.
pub fn reorder(source: &str, seed: u64, salt: &str) -> (String, Vec<RunRecord>) {
    let tree = syntax::parse(source);
    if tree.has_syntax_errors() || tree.over_budget() {
        return (source.to_owned(), Vec::new());
    }
    let runs = runs(&tree);
    let mut rng = words::rng(seed, &format!("layout:{salt}"));
    let view = permute(source, &runs, |_, run| order(&run.units, &mut rng));
    let records = runs
        .iter()
        .map(|run| RunRecord {
            container: run.container.clone(),
            names: run.units.iter().map(|u| u.name.clone()).collect(),
        })
        .collect();
    (view, records)
}

/// A view (or an edited view) with each recorded run back in its original order. Definitions
/// an agent added keep their places; a run one of whose definitions it renamed or removed
/// is not found and stays as it is, and the diagnostics say which.
pub fn restore(view: &str, records: &[RunRecord]) -> (String, Vec<String>) {
    let mut diagnostics = Vec::new();
    if records.is_empty() {
        return (view.to_owned(), diagnostics);
    }
    let tree = syntax::parse(view);
    let runs = runs(&tree);
    let found = find_runs(&runs, records);
    let mut matched: Vec<Option<&RunRecord>> = vec![None; runs.len()];
    for (record, found) in records.iter().zip(found) {
        match found {
            Some(i) => matched[i] = Some(record),
            None => diagnostics.push(format!(
                "the definitions {} of {} were renamed or removed, so their order is left as it is",
                record.names.join(", "),
                if record.container.is_empty() {
                    "the module".to_owned()
                } else {
                    format!("class {}", record.container)
                }
            )),
        }
    }
    let original = permute(view, &runs, |i, run| {
        let identity: Vec<usize> = (0..run.units.len()).collect();
        let Some(record) = matched[i] else {
            return identity;
        };
        // The recorded units, each the first unused of its name (same-named units kept
        // their relative order), go back into the slots they occupy, in recorded order.
        let mut used = vec![false; run.units.len()];
        let recorded: Vec<usize> = record
            .names
            .iter()
            .filter_map(|name| {
                let u = (0..run.units.len()).find(|&u| !used[u] && run.units[u].name == *name)?;
                used[u] = true;
                Some(u)
            })
            .collect();
        let mut slots: Vec<usize> = recorded.clone();
        slots.sort_unstable();
        let mut order = identity;
        for (slot, unit) in slots.into_iter().zip(recorded) {
            order[slot] = unit;
        }
        order
    });
    (original, diagnostics)
}

/// The names of each recorded run in the order `view` writes them (the order level 3
/// drew), for showing; empty for a run the view does not hold.
pub fn view_orders(view: &str, records: &[RunRecord]) -> Vec<Vec<String>> {
    let tree = syntax::parse(view);
    let runs = runs(&tree);
    find_runs(&runs, records)
        .into_iter()
        .map(|found| {
            found.map_or_else(Vec::new, |i| {
                runs[i].units.iter().map(|u| u.name.clone()).collect()
            })
        })
        .collect()
}

/// For each record, the run of `runs` that holds it: the first not yet taken, in the same
/// class, holding all of the record's definitions (an agent may have added others beside
/// them, which keep their places).
fn find_runs(runs: &[Run], records: &[RunRecord]) -> Vec<Option<usize>> {
    let mut taken = vec![false; runs.len()];
    records
        .iter()
        .map(|record| {
            let found = runs.iter().enumerate().position(|(i, run)| {
                !taken[i]
                    && run.container == record.container
                    && contains_all(&run.units, &record.names)
            })?;
            taken[found] = true;
            Some(found)
        })
        .collect()
}
