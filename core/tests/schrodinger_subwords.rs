//! Subword splitting (spec 3, level 2): each name of `fixtures/schrodinger/subwords/names.txt` split into its pieces and rebuilt with every word reversed, against `names.json`; rebuilt with every word kept, each name is itself.

use crate::common;

use std::path::Path;

use common::expect::expect_json;
use serde_json::{Map, Value, json};
use wheelwright_core::schrodinger::subwords::split;

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schrodinger/subwords")
}

#[test]
fn names_split_into_words_and_rebuild_in_their_shape() {
    let names = std::fs::read_to_string(fixtures().join("names.txt")).expect("the names");
    let mut out = Map::new();
    for name in names.lines().filter(|l| !l.is_empty()) {
        let subwords = split(name);
        // Every word kept: the name itself, so an identity mapping changes nothing.
        assert_eq!(subwords.rebuild(str::to_owned), name);
        let reversed = subwords.rebuild(|w| w.chars().rev().collect());
        out.insert(
            name.to_owned(),
            json!({"words": subwords.words(), "reversed": reversed, "pieces": subwords.pieces}),
        );
    }
    expect_json(&fixtures().join("names.json"), &Value::Object(out));
}
