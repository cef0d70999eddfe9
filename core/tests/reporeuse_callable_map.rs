//! Tests of the callable map (RepoReuse's pipeline, step 1): a fixture repository's map pinned as JSON.

use std::path::Path;

use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::reporeuse::callable_map::CallableMap;

use crate::common::expect::expect_json;
use crate::common::real::files_under;

#[test]
fn the_fixture_repository_maps_as_expected() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reporeuse/callable_map");
    let files: Vec<(String, String)> = files_under(&dir.join("repo"))
        .into_iter()
        .map(|(path, bytes)| (path, String::from_utf8(bytes).unwrap()))
        .collect();
    let map = CallableMap::build(
        files.iter().map(|(p, t)| (p.as_str(), t.as_str())),
        &IndexOptions::default(),
    );
    expect_json(
        &dir.join("expected.json"),
        &serde_json::to_value(&map).unwrap(),
    );
    // What the map is for, said outright: the private helpers public code calls are the
    // starting points; a function's local closure and an uncalled private one are not.
    let candidates: Vec<&str> = map
        .callables
        .iter()
        .filter(|c| c.candidate)
        .map(|c| c.qualified_name.as_str())
        .collect();
    assert_eq!(
        candidates,
        ["geo._impl.numeric._square", "geo.shapes._area_of"]
    );
}
