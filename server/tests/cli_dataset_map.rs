//! `wheelwright dataset map`: the real binary on the core fixture repository (the same map as core's expectation) and on the networkx 3.4.2 wheel (NEEDS PyPI the first time; the wheel is then cached).

use std::path::Path;

use crate::common;

use common::expect::expect_json;
use common::stdout_of;

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/reporeuse/callable_map")
}

#[test]
fn a_directory_maps_as_core_does() {
    let dir = fixture();
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("map.json");
    let stdout = stdout_of(&[
        "dataset",
        "map",
        "--dir",
        dir.join("repo").to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
        "--json",
    ]);
    let printed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(printed, written);
    // Core's test pins this file; the command adds nothing and drops nothing.
    expect_json(&dir.join("expected.json"), &printed);
}

#[test]
fn the_summary_lists_candidates_most_called_first() {
    let stdout = stdout_of(&[
        "dataset",
        "map",
        "--dir",
        fixture().join("repo").to_str().unwrap(),
    ]);
    assert!(
        stdout.starts_with(
            "5 modules, 15 callables (7 functions, 8 methods), 7 public, 2 candidates, 9 call edges\n"
        ),
        "{stdout}"
    );
    let first = stdout.lines().nth(2).unwrap();
    assert!(first.contains("geo._impl.numeric._square"), "{stdout}");
}

#[test]
fn a_pin_without_a_version_is_refused() {
    let out = common::wheelwright(&["dataset", "map", "--repo", "networkx"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("write it as NAME==VERSION"), "{stderr}");
}

#[test]
fn networkx_maps_with_its_known_edges_needs_pypi() {
    let stdout = stdout_of(&["dataset", "map", "--repo", "networkx==3.4.2", "--json"]);
    let map: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let counts = &map["counts"];
    let callables = map["callables"].as_array().unwrap();
    let get = |name: &str| {
        callables
            .iter()
            .find(|c| c["qualified_name"] == name)
            .unwrap_or_else(|| panic!("{name} is not in the map"))
    };
    // The wheel's test files are left out, as from an agent's workspace.
    assert!(
        callables
            .iter()
            .all(|c| !c["path"].as_str().unwrap().contains("/tests/test_")),
        "a test file was mapped"
    );
    assert_eq!(counts["callables"], callables.len());
    let condensation = get("networkx.algorithms.components.strongly_connected.condensation");
    assert_eq!(condensation["public"], true);
    assert_eq!(condensation["signature"], "def condensation(G, scc=None)");
    assert_eq!(condensation["doc"], "Returns the condensation of G.");
    let callees: Vec<&str> = condensation["callees"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(
        callees,
        [
            "networkx.algorithms.components.strongly_connected.strongly_connected_components",
            "networkx.classes.digraph.DiGraph.__init__",
            "networkx.classes.function.set_node_attributes",
        ]
    );
    let dijkstra = get("networkx.algorithms.shortest_paths.weighted.dijkstra_path");
    assert_eq!(
        dijkstra["callees"],
        serde_json::json!(["networkx.algorithms.shortest_paths.weighted.single_source_dijkstra"])
    );
    // A private helper beneath the shortest-path API is a candidate starting point.
    let weight = get("networkx.algorithms.shortest_paths.weighted._weight_function");
    assert_eq!(weight["candidate"], true);
    assert_eq!(weight["public"], false);
    assert!(weight["callers"].as_u64().unwrap() >= 10, "{weight}");
    eprintln!("networkx 3.4.2 map counts: {counts}");
}
