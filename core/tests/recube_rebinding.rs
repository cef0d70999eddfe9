//! Calls through a module-level name resolve to the values the name may have where the call
//! is made (`FileAnalysis::module_candidates`): each file of `fixtures/recube/rebinding/repo`
//! is one case (rebinding after or before the call, in a branch, in an `except`, inside a
//! function, through `global`, in a class body), its comments say what it shows, and the
//! graph's invoke edges with the target `pkg/target.py` withheld are pinned in
//! `invokes.txt` (`UPDATE_EXPECT=1` rewrites it).

use crate::common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use common::expect::expect_text;
use common::repo::workspace_of;
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::recube::graph::{EdgeKind, Graph};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recube/rebinding")
}

/// One line per invoke edge: `caller -> callee [entity] xcount`, in the graph's order.
fn invokes(graph: &Graph) -> String {
    let mut out = String::new();
    for edge in graph.edges_of(EdgeKind::Invoke) {
        let entity = edge
            .entity
            .as_deref()
            .map(|e| format!(" [{e}]"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{} -> {}{entity} x{}",
            graph.node(edge.from).name,
            graph.node(edge.to).name,
            edge.count
        );
    }
    out
}

#[test]
fn calls_resolve_to_the_binding_in_effect_where_they_are_made() {
    let graph = Graph::build(
        &workspace_of(&fixtures().join("repo")),
        "pkg/target.py",
        &IndexOptions::default(),
    );
    let text = invokes(&graph);
    // The brief's case, checked here as well as in the pinned file: a call before
    // `helper = None` is a call of the target's helper.
    assert!(
        text.contains("pkg/after_call.py -> pkg/target.py [helper] x1"),
        "{text}"
    );
    expect_text(&fixtures().join("invokes.txt"), &text);
}
