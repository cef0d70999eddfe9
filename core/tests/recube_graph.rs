//! ReCUBE's dependency graph and its four views (spec 2) on a fixture repository whose
//! target, `pkg/shapes.py`, is withheld: each edge kind, nothing of the target's code in
//! the graph or any view, and each similar-files signal against values worked by hand.
//!
//! The whole graph and the rendered views are also pinned in `fixtures/recube/graph/`
//! (after a deliberate change: `UPDATE_EXPECT=1 cargo test -p wheelwright-core --test
//! recube_graph`, then review the diff).

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::expect::{expect_json, expect_text};
use common::repo::workspace_of;
use wheelwright_core::metric::{Score, Undefined};
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::recube::graph::{EdgeKind, Graph, NodeKind};
use wheelwright_core::recube::mask::mask;
use wheelwright_core::recube::metrics::caller_coverage;
use wheelwright_core::recube::views::{
    Context, FileFeatures, caller_patterns, identifier_scores, inheritance, module_context,
    name_similarity, structure_similarity,
};
use wheelwright_core::trajectory::{
    InterpretOptions, TrajectorySummary, interpret_trajectory, parse_trajectory,
};

const TARGET: &str = "pkg/shapes.py";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recube/graph")
}

fn graph() -> Graph {
    Graph::build(
        &workspace_of(&fixtures().join("repo")),
        TARGET,
        &IndexOptions::default(),
    )
}

/// The edges of `kind` as (from, to, entity, count), by node names.
fn edges(graph: &Graph, kind: EdgeKind) -> BTreeSet<(String, String, Option<String>, u32)> {
    graph
        .edges_of(kind)
        .into_iter()
        .map(|e| {
            (
                graph.node(e.from).name.clone(),
                graph.node(e.to).name.clone(),
                e.entity.clone(),
                e.count,
            )
        })
        .collect()
}

fn edge(
    from: &str,
    to: &str,
    entity: Option<&str>,
    count: u32,
) -> (String, String, Option<String>, u32) {
    (
        from.to_owned(),
        to.to_owned(),
        entity.map(str::to_owned),
        count,
    )
}

#[test]
fn each_edge_kind_is_found() {
    let g = graph();
    let contain = edges(&g, EdgeKind::Contain);
    for expected in [
        edge("pkg", "pkg/draw.py", None, 1),
        edge("pkg", "pkg/geometry", None, 1),
        edge("pkg/draw.py", "pkg.draw.draw", None, 1),
        edge("pkg.base.Base", "pkg.base.Base.describe", None, 1),
        edge(
            "pkg.geometry.shape_tools.outline",
            "pkg.geometry.shape_tools.outline.<locals>.edge",
            None,
            1,
        ),
    ] {
        assert!(
            contain.contains(&expected),
            "{expected:?} not in {contain:#?}"
        );
    }
    let import = edges(&g, EdgeKind::Import);
    for expected in [
        edge("pkg/draw.py", TARGET, Some("Shape"), 1),
        edge("pkg/draw.py", TARGET, Some("unit"), 1),
        edge("pkg/draw.py", TARGET, Some("<module>"), 1),
        edge("pkg/draw.py", "pkg.base.Base", None, 1),
        edge("pkg/square.py", "pkg.base.Base", None, 1),
        // Through the package's re-export of the target's class.
        edge("pkg/geometry/shape_tools.py", TARGET, Some("Shape"), 1),
    ] {
        assert!(
            import.contains(&expected),
            "{expected:?} not in {import:#?}"
        );
    }
    assert_eq!(
        edges(&g, EdgeKind::Invoke),
        BTreeSet::from([
            edge("pkg.draw.draw", TARGET, Some("Shape"), 1),
            // `unit()` and `shapes.unit()`.
            edge("pkg.draw.draw", TARGET, Some("unit"), 2),
            // Module-level code calls from the file.
            edge("pkg/draw.py", "pkg.base.Base", None, 1),
            // Through the package's re-export.
            edge("pkg.geometry.shape_tools.make", TARGET, Some("Shape"), 1),
            edge(
                "pkg.geometry.shape_tools.outline.<locals>.edge",
                "pkg.geometry.shape_tools.scale",
                None,
                1
            ),
        ])
    );
    assert_eq!(
        edges(&g, EdgeKind::Inherit),
        BTreeSet::from([
            edge("pkg.square.Square", "pkg.base.Base", None, 1),
            edge("pkg.draw.Circle", TARGET, Some("Shape"), 1),
        ])
    );
    expect_json(
        &fixtures().join("graph.json"),
        &serde_json::to_value(&g).expect("a graph serialises"),
    );
}

#[test]
fn nothing_of_the_withheld_target_reaches_the_graph_or_a_view() {
    let g = graph();
    let target = g.node(g.target_node);
    assert_eq!((target.kind, target.lines), (NodeKind::File, None));
    // No node is in the target but its own, and no edge leaves it.
    for (i, node) in g.nodes.iter().enumerate() {
        if i as u32 != g.target_node {
            assert_ne!(node.path, TARGET, "{node:?}");
            assert!(!node.name.starts_with("pkg.shapes."), "{node:?}");
        }
    }
    assert!(g.edges.iter().all(|e| e.from != g.target_node));
    let workspace = workspace_of(&fixtures().join("repo"));
    let original = workspace
        .text(TARGET)
        .expect("the target is in the fixture");
    let masked = mask(original).text;
    let context = Context::of(&g, &workspace, &masked);
    let shown = format!(
        "{}\n{}",
        serde_json::to_string(&g).expect("serialises"),
        context.render()
    );
    // The body's own names and the target's imports appear nowhere.
    for secret in ["SECRET_MARKER_IMPLEMENTATION", "math"] {
        assert!(!shown.contains(secret), "{secret} leaked:\n{shown}");
    }
    expect_text(&fixtures().join("context.txt"), &context.render());
}

#[test]
fn the_views_of_the_fixture() {
    let g = graph();
    let workspace = workspace_of(&fixtures().join("repo"));
    let masked = mask(workspace.text(TARGET).expect("the target")).text;
    let callers = caller_patterns(&g);
    let summary: Vec<(&str, Vec<&str>, u32)> = callers
        .iter()
        .map(|c| {
            (
                c.path.as_str(),
                c.imports.iter().map(String::as_str).collect(),
                c.calls.values().sum(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("pkg/draw.py", vec!["<module>", "Shape", "unit"], 3),
            ("pkg/geometry/shape_tools.py", vec!["Shape"], 1),
            ("pkg/__init__.py", vec!["Shape"], 0),
        ]
    );
    let classes = inheritance(&g, &masked).classes;
    assert_eq!(classes.len(), 1);
    assert_eq!(classes[0].name, "Shape");
    assert_eq!(classes[0].parents, ["pkg.base.Base"]);
    assert_eq!(classes[0].siblings, ["pkg.square.Square"]);
    assert_eq!(classes[0].subclasses, ["pkg.draw.Circle"]);
    let module = module_context(&g);
    assert_eq!(
        module.siblings,
        [
            "pkg/__init__.py",
            "pkg/base.py",
            "pkg/draw.py",
            "pkg/square.py"
        ]
    );
    assert_eq!(
        module.shared_imports,
        [
            ("pkg.base.Base".to_owned(), 2),
            ("pkg.shapes.Shape".to_owned(), 2)
        ]
    );
}

fn features(
    subtokens: &[&str],
    classes: u32,
    functions: u32,
    depth: u32,
    identifiers: &[&str],
) -> FileFeatures {
    FileFeatures {
        subtokens: subtokens.iter().map(|s| (*s).to_owned()).collect(),
        classes,
        functions,
        depth,
        identifiers: identifiers.iter().map(|s| (*s).to_owned()).collect(),
    }
}

#[test]
fn each_similar_files_signal_matches_values_worked_by_hand() {
    // Name: Jaccard of subtokens.
    let graph_utils = FileFeatures::of("pkg/graph_utils.py", "");
    let utils = FileFeatures::of("other/utils.py", "");
    assert_eq!(
        graph_utils.subtokens,
        BTreeSet::from(["graph".to_owned(), "utils".to_owned()])
    );
    assert_eq!(name_similarity(&graph_utils, &utils), 0.5);
    assert_eq!(name_similarity(&utils, &utils), 1.0);
    assert_eq!(name_similarity(&utils, &FileFeatures::of("a.py", "")), 0.0);
    // Structure: (1 class, 2 functions, depth 2) against (1, 3, 2): (1 + 2/3 + 1) / 3.
    let a = features(&[], 1, 2, 2, &[]);
    let b = features(&[], 1, 3, 2, &[]);
    assert!((structure_similarity(&a, &b) - 8.0 / 9.0).abs() < 1e-12);
    // Two empty files have the same structure.
    assert_eq!(
        structure_similarity(&features(&[], 0, 0, 0, &[]), &features(&[], 0, 0, 0, &[])),
        1.0
    );
    // Counted from source: a class with a method holding a nested function is depth 3.
    let parsed = FileFeatures::of(
        "m.py",
        "class C:\n    def m(self):\n        def inner():\n            pass\n\n\ndef f():\n    pass\n",
    );
    assert_eq!((parsed.classes, parsed.functions, parsed.depth), (1, 3, 3));
    // Identifier: BM25 (k1 1.2, b 0.75) for the query {a, b} over [a a b], [c], [a c c c]:
    // 1.557420, 0, 0.390192 (worked in the module's formula), divided by the best.
    let query = features(&[], 0, 0, 0, &["a", "b", "a"]);
    let files = [
        features(&[], 0, 0, 0, &["a", "a", "b"]),
        features(&[], 0, 0, 0, &["c"]),
        features(&[], 0, 0, 0, &["a", "c", "c", "c"]),
    ];
    let scores = identifier_scores(&query, &files);
    for (actual, expected) in scores
        .iter()
        .zip([1.0, 0.0, 0.390_191_692_204 / 1.557_419_942_824])
    {
        assert!((actual - expected).abs() < 1e-9, "{scores:?}");
    }
    // No shared identifier: every score 0, not NaN.
    assert_eq!(
        identifier_scores(&features(&[], 0, 0, 0, &["z"]), &files),
        [0.0, 0.0, 0.0]
    );
}

#[test]
fn usages_and_search_find_what_the_graph_holds() {
    let g = graph();
    let unit: Vec<(String, u32)> = g
        .usages("pkg.shapes.unit")
        .into_iter()
        .map(|u| (u.by, u.count))
        .collect();
    assert_eq!(
        unit,
        [
            ("pkg.draw.draw".to_owned(), 2),
            ("pkg/draw.py".to_owned(), 1)
        ]
    );
    let base: BTreeSet<String> = g
        .usages("pkg.base.Base")
        .into_iter()
        .map(|u| u.by)
        .collect();
    assert_eq!(
        base,
        BTreeSet::from(["pkg/draw.py", "pkg/square.py", "pkg.square.Square"].map(str::to_owned))
    );
    assert!(g.usages("pkg.nowhere").is_empty());
    let names =
        |query: &str| -> Vec<String> { g.search(query).iter().map(|n| n.name.clone()).collect() };
    // Contained, any case; the withheld file is found by its name, nothing inside it.
    assert_eq!(
        names("SHAPE"),
        ["pkg/geometry/shape_tools.py", "pkg/shapes.py"]
    );
    // A class and a file of that name.
    assert_eq!(names("base"), ["pkg.base.Base", "pkg/base.py"]);
    assert!(names("nothing_like_it").is_empty());
}

/// Caller coverage through the shared trajectory reader: the fixture's trajectory (its
/// outputs are the real commands' in `repo/`) prints `pkg/draw.py` and lists but never
/// shows `pkg/geometry/shape_tools.py`, the two files that call the target.
#[test]
fn caller_coverage_counts_the_callers_a_trajectory_showed() {
    let g = graph();
    let text = std::fs::read_to_string(fixtures().join("trajectory.json")).expect("the fixture");
    let trajectory = parse_trajectory(&text).expect("a generic-1 trajectory");
    let options = InterpretOptions {
        workdir: "/testbed".to_owned(),
        ..InterpretOptions::default()
    };
    let actions = interpret_trajectory(&trajectory, &options);
    let (_, shown) = TrajectorySummary::with_shown(&actions, 0);
    assert_eq!(caller_coverage(&g, &shown), Score::Defined { value: 0.5 });
    // Nobody calls pkg/square.py: undefined, not 0.
    let square = Graph::build(
        &workspace_of(&fixtures().join("repo")),
        "pkg/square.py",
        &IndexOptions::default(),
    );
    assert_eq!(
        caller_coverage(&square, &shown),
        Score::Undefined {
            reason: Undefined::NoCallers
        }
    );
}

/// A file that shares nothing with the target (no name subtoken, no structure, no
/// identifier: score 0) is not listed as similar, however few candidates there are.
#[test]
fn a_file_sharing_nothing_is_not_listed_as_similar() {
    let mut workspace = workspace_of(&fixtures().join("repo"));
    workspace.insert("pkg/empty_notes.py", "");
    let g = Graph::build(&workspace, TARGET, &IndexOptions::default());
    let masked = mask(workspace.text(TARGET).expect("the target")).text;
    let all = wheelwright_core::recube::views::similar_files(&workspace, TARGET, &masked);
    let empty = all
        .iter()
        .find(|f| f.path == "pkg/empty_notes.py")
        .expect("every file is scored");
    assert_eq!(empty.score, 0.0, "{empty:?}");
    let context = Context::of(&g, &workspace, &masked);
    let listed: Vec<&str> = context.similar.iter().map(|f| f.path.as_str()).collect();
    assert!(!listed.contains(&"pkg/empty_notes.py"), "{listed:?}");
    assert!(!listed.is_empty());
}
