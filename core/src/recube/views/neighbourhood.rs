//! The target's neighbourhood as a drawing: the files that use it, the classes it inherits from and the classes beside its own, and the files beside it, placed in columns with SVG coordinates.
//!
//! The instance page draws it (the app only turns the geometry into SVG, as it does
//! charts). Columns rather than a force layout: at 30 nodes every label stays on one line
//! and nothing overlaps, and the same context always gives the same picture. Callers are
//! on the left (most calls first), the target in the middle, its classes' parents,
//! siblings and subclasses on the right, then the files beside it. At most
//! [`MAX_NODES`] nodes are drawn; how many were left out is given. Example: `click/parser.py`
//! has the callers `click/core.py`, `click/shell_completion.py`, `click/formatting.py`
//! and `click/__init__.py` on the left, with edges labelled by their call counts.

use serde::{Deserialize, Serialize};

use super::Context;

/// The most nodes a drawing holds, the target included.
pub const MAX_NODES: usize = 30;
/// Width of the drawing, in SVG units.
const WIDTH: f64 = 960.0;
/// Height of one row.
const ROW: f64 = 28.0;
/// Space above the first row (the column titles).
const TOP: f64 = 48.0;
/// Horizontal positions of the three columns' anchors.
const LEFT: f64 = 300.0;
const MIDDLE: f64 = 480.0;
const RIGHT: f64 = 660.0;

/// What a node is to the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Target,
    /// A file that imports or calls the target.
    Caller,
    /// A class one of the target's classes inherits from.
    Parent,
    /// A class outside the target with a parent in common with one of its classes.
    Sibling,
    /// A class outside the target that inherits from one of its classes.
    Subclass,
    /// A file in the target's directory.
    Neighbour,
}

/// One node, placed: its text is anchored at `(x, y)` (`anchor`: `end` on the left
/// column, `middle` for the target, `start` on the right).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacedNode {
    /// What is written (a file's path, a class's qualified name).
    pub label: String,
    /// The repository file it is in, when known (for a link to its source).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub role: Role,
    pub x: f64,
    pub y: f64,
    pub anchor: String,
}

/// One edge between two placed nodes, from the end of one label to the start of the other.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacedEdge {
    pub from: usize,
    pub to: usize,
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
    /// What is written on it (`3 calls`), if anything.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
}

/// A column's title and where it is written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColumnTitle {
    pub text: String,
    pub x: f64,
    pub anchor: String,
}

/// The whole drawing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Neighbourhood {
    pub width: f64,
    pub height: f64,
    pub titles: Vec<ColumnTitle>,
    pub nodes: Vec<PlacedNode>,
    pub edges: Vec<PlacedEdge>,
    /// Nodes not drawn for want of room.
    pub left_out: usize,
}

/// The repository file a qualified class name (`click.core.Command`) is in, if it names a
/// module of the caller list or the neighbours; else `None`.
fn file_of_class(name: &str, files: &[&str]) -> Option<String> {
    let (module, _) = name.rsplit_once('.')?;
    let stem = module.replace('.', "/");
    files
        .iter()
        .find(|f| {
            f.strip_suffix(".py")
                .is_some_and(|p| p == stem || p.strip_suffix("/__init__") == Some(stem.as_str()))
        })
        .map(|f| (*f).to_owned())
}

/// Lays out `context`'s neighbourhood.
pub fn neighbourhood(context: &Context) -> Neighbourhood {
    let mut budget = MAX_NODES - 1;
    let mut left_out = 0;
    let mut take = |wanted: usize, budget: &mut usize| {
        let n = wanted.min(*budget);
        *budget -= n;
        left_out += wanted - n;
        n
    };

    let callers = &context.callers[..take(context.callers.len(), &mut budget)];
    let mut classes: Vec<(String, Role)> = Vec::new();
    for class in &context.inheritance.classes {
        for (names, role) in [
            (&class.parents, Role::Parent),
            (&class.siblings, Role::Sibling),
            (&class.subclasses, Role::Subclass),
        ] {
            for name in names {
                if !classes.iter().any(|(n, _)| n == name) {
                    classes.push((name.clone(), role));
                }
            }
        }
    }
    let classes_drawn = take(classes.len(), &mut budget);
    classes.truncate(classes_drawn);
    let neighbours = &context.module.siblings[..take(context.module.siblings.len(), &mut budget)];

    let mut all_files: Vec<&str> = context.callers.iter().map(|c| c.path.as_str()).collect();
    all_files.extend(context.module.siblings.iter().map(String::as_str));

    let right_rows = classes.len() + neighbours.len();
    let rows = callers.len().max(right_rows).max(1);
    let height = TOP + rows as f64 * ROW + ROW / 2.0;
    // Each column is centred on the target's row, so a short column sits beside it.
    let column_y = |len: usize| {
        let first = TOP + (rows - len) as f64 * ROW / 2.0 + ROW / 2.0;
        move |i: usize| first + i as f64 * ROW
    };
    let centre = TOP + (rows as f64 * ROW) / 2.0;
    let (left_y, right_y) = (column_y(callers.len()), column_y(right_rows));

    let mut nodes = vec![PlacedNode {
        label: context.target.clone(),
        path: Some(context.target.clone()),
        role: Role::Target,
        x: MIDDLE,
        y: centre,
        anchor: "middle".into(),
    }];
    let mut edges = Vec::new();
    // The target's label is centred: edges meet it a half-label away on either side.
    let half = (context.target.chars().count() as f64 * 3.6).clamp(24.0, 150.0);
    for (i, caller) in callers.iter().enumerate() {
        let y = left_y(i);
        nodes.push(PlacedNode {
            label: caller.path.clone(),
            path: Some(caller.path.clone()),
            role: Role::Caller,
            x: LEFT,
            y,
            anchor: "end".into(),
        });
        let calls: u32 = caller.calls.values().sum();
        edges.push(PlacedEdge {
            from: nodes.len() - 1,
            to: 0,
            x1: LEFT + 6.0,
            y1: y - 4.0,
            x2: MIDDLE - half,
            y2: centre - 4.0,
            label: match calls {
                0 => "imports".to_owned(),
                1 => "1 call".to_owned(),
                n => format!("{n} calls"),
            },
        });
    }
    let right = classes
        .iter()
        .map(|(name, role)| (name.clone(), file_of_class(name, &all_files), *role))
        .chain(
            neighbours
                .iter()
                .map(|path| (path.clone(), Some(path.clone()), Role::Neighbour)),
        );
    for (i, (label, path, role)) in right.enumerate() {
        let y = right_y(i);
        nodes.push(PlacedNode {
            label,
            path,
            role,
            x: RIGHT,
            y,
            anchor: "start".into(),
        });
        edges.push(PlacedEdge {
            from: 0,
            to: nodes.len() - 1,
            x1: MIDDLE + half,
            y1: centre - 4.0,
            x2: RIGHT - 6.0,
            y2: y - 4.0,
            label: String::new(),
        });
    }
    let titles = vec![
        ColumnTitle {
            text: "Uses it".into(),
            x: LEFT,
            anchor: "end".into(),
        },
        ColumnTitle {
            text: "Target (withheld)".into(),
            x: MIDDLE,
            anchor: "middle".into(),
        },
        ColumnTitle {
            text: "Classes around it, files beside it".into(),
            x: RIGHT,
            anchor: "start".into(),
        },
    ];
    Neighbourhood {
        width: WIDTH,
        height,
        titles,
        nodes,
        edges,
        left_out,
    }
}
