//! The drawing of a ReCUBE target's neighbourhood (`recube::views::neighbourhood`): at most 30 nodes, callers first, then classes, then files beside it; nothing overlaps and every edge meets the target.

use std::collections::{BTreeMap, BTreeSet};

use wheelwright_core::recube::views::{
    CallerFile, Context, Inheritance, MAX_NODES, ModuleContext, Role, TargetClass, neighbourhood,
};

/// A context with `callers` caller files, one class with `parents` parents, and `siblings`
/// files beside the target.
fn context(callers: usize, parents: usize, siblings: usize) -> Context {
    Context {
        target: "pkg/target.py".into(),
        callers: (0..callers)
            .map(|i| CallerFile {
                path: format!("pkg/caller_{i}.py"),
                imports: vec!["f".into()],
                calls: BTreeMap::from([("f".to_owned(), i as u32)]),
            })
            .collect(),
        inheritance: Inheritance {
            classes: vec![TargetClass {
                name: "Target".into(),
                parents: (0..parents).map(|i| format!("pkg.base_{i}.Base")).collect(),
                siblings: Vec::new(),
                subclasses: Vec::new(),
            }],
        },
        module: ModuleContext {
            siblings: (0..siblings)
                .map(|i| format!("pkg/sibling_{i}.py"))
                .collect(),
            shared_imports: Vec::new(),
        },
        similar: Vec::new(),
    }
}

/// How many callers, parent classes and files beside the target a context has.
type Given = (usize, usize, usize);
/// How many callers, classes and files beside it are drawn, and how many are left out.
type Drawn = (usize, usize, usize, usize);

const CASES: &[(Given, Drawn)] = &[
    ((0, 0, 0), (0, 0, 0, 0)),
    ((4, 1, 15), (4, 1, 15, 0)),
    // 29 places besides the target: callers first, then classes, then files beside it.
    ((20, 5, 10), (20, 5, 4, 6)),
    ((35, 2, 3), (29, 0, 0, 11)),
];

#[test]
fn each_case_draws_what_fits_and_counts_the_rest() {
    let mut problems = Vec::new();
    for &((callers, parents, siblings), expected) in CASES {
        let drawn = neighbourhood(&context(callers, parents, siblings));
        let count = |role: Role| drawn.nodes.iter().filter(|n| n.role == role).count();
        let actual = (
            count(Role::Caller),
            count(Role::Parent),
            count(Role::Neighbour),
            drawn.left_out,
        );
        if actual != expected {
            problems.push(format!(
                "({callers}, {parents}, {siblings}): drew {actual:?}, expected {expected:?}"
            ));
        }
        if drawn.nodes.len() > MAX_NODES || count(Role::Target) != 1 {
            problems.push(format!(
                "({callers}, {parents}, {siblings}): {} nodes",
                drawn.nodes.len()
            ));
        }
        // One edge per node besides the target, each with the target at one end.
        let meets_target = drawn.edges.iter().all(|e| e.from == 0 || e.to == 0);
        if drawn.edges.len() != drawn.nodes.len() - 1 || !meets_target {
            problems.push(format!(
                "({callers}, {parents}, {siblings}): edges {:?}",
                drawn.edges
            ));
        }
        // No two labels of a column on one row, and every label inside the drawing.
        let mut rows = BTreeSet::new();
        for n in &drawn.nodes {
            if !rows.insert((n.x as i64, (n.y * 10.0) as i64)) || n.y <= 0.0 || n.y >= drawn.height
            {
                problems.push(format!(
                    "({callers}, {parents}, {siblings}): {n:?} overlaps or is outside"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_parent_class_links_to_its_file_when_the_file_is_drawn() {
    let mut c = context(1, 1, 1);
    c.module.siblings = vec!["pkg/base_0.py".into()];
    let drawn = neighbourhood(&c);
    let parent = drawn
        .nodes
        .iter()
        .find(|n| n.role == Role::Parent)
        .expect("the parent is drawn");
    assert_eq!(parent.label, "pkg.base_0.Base");
    assert_eq!(parent.path.as_deref(), Some("pkg/base_0.py"));
}
