//! Tests of the walk step (RepoReuse's pipeline) over the callable-map fixture repository: scripted answers in, the record or the error out (with every refusal's message), pinned as JSON; the hop prompts pinned as text; injection drawn by the seed and never an earlier turn's symbol; records replayed, and stale ones refused.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value, json};
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::reporeuse::callable_map::CallableMap;
use wheelwright_core::reporeuse::dataset::{ChainManifest, TurnManifest};
use wheelwright_core::reporeuse::walk::{
    MENU_SIZE, WalkError, WalkInput, WalkRecord, replay, walk,
};
use wheelwright_core::template::Prompt;

use crate::common::expect::{expect_json, expect_text};
use crate::common::real::files_under;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reporeuse/walk")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The callable-map fixture repository's files and map.
fn repository() -> (BTreeMap<String, String>, CallableMap) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reporeuse/callable_map");
    let files: BTreeMap<String, String> = files_under(&dir.join("repo"))
        .into_iter()
        .map(|(path, bytes)| (path, String::from_utf8(bytes).unwrap()))
        .collect();
    let map = CallableMap::build(
        files.iter().map(|(p, t)| (p.as_str(), t.as_str())),
        &IndexOptions::default(),
    );
    (files, map)
}

fn chain() -> ChainManifest {
    serde_json::from_str(&read(&fixtures().join("chain.json"))).unwrap()
}

fn turn(file: &str) -> TurnManifest {
    serde_json::from_str(&read(&fixtures().join(file))).unwrap()
}

/// One case of `cases.json`.
#[derive(Deserialize)]
struct Case {
    name: String,
    turn: usize,
    earlier: Vec<String>,
    seed: u64,
    start: Option<String>,
    /// The model's answers in order; `OPEN_FIRST` and `OPEN_SECOND` open the first or
    /// second menu entry not yet kept (read from the prompt's numbered menu).
    answers: Vec<String>,
}

/// The menu entries of a prompt not marked kept, in order.
fn open_entries(prompt: &str) -> Vec<String> {
    let menu = prompt
        .split("\n## Menu\n")
        .nth(1)
        .and_then(|m| m.split("\n## ").next())
        .expect("the prompt has a menu");
    menu.lines()
        .filter(|l| !l.contains("[kept]"))
        .filter_map(|l| l.split_once(". `"))
        .map(|(_, rest)| rest.split('`').next().unwrap().to_owned())
        .collect()
}

/// The reasons the refused answers' second asks gave, and what the model was asked.
#[derive(Default)]
struct Transcript {
    refusals: Vec<String>,
    prompts: Vec<String>,
}

/// Walks `input` answering from `answers` (with the `OPEN_*` placeholders resolved).
fn scripted(
    input: &WalkInput<'_>,
    answers: &[String],
) -> (Result<WalkRecord, WalkError>, Transcript) {
    let mut transcript = Transcript::default();
    let mut next = answers.iter();
    let result = walk(input, "scripted", None, |prompt: &Prompt| {
        assert_eq!(prompt.template, "reporeuse-walk-1");
        if let Some((_, why)) = prompt.text.split_once("\nWhy: ") {
            transcript.refusals.push(
                why.trim_end()
                    .trim_end_matches(". Answer again with exactly one JSON object.")
                    .to_owned(),
            );
        }
        transcript.prompts.push(prompt.text.clone());
        let answer = next
            .next()
            .expect("the script has an answer for every prompt");
        let open = |i: usize| {
            let symbol = &open_entries(&prompt.text)[i];
            Ok(json!({"action": "open", "symbol": symbol}).to_string())
        };
        match answer.as_str() {
            "OPEN_FIRST" => open(0),
            "OPEN_SECOND" => open(1),
            other => Ok(other.to_owned()),
        }
    });
    (result, transcript)
}

#[test]
fn each_case_walks_or_fails_as_expected_and_replays_without_the_model() {
    let (files, map) = repository();
    let chain = chain();
    let cases: Vec<Case> = serde_json::from_str(&read(&fixtures().join("cases.json"))).unwrap();
    let mut outcomes = serde_json::Map::new();
    for case in &cases {
        let earlier: Vec<TurnManifest> = case.earlier.iter().map(|f| turn(f)).collect();
        let input = WalkInput {
            map: &map,
            files: &files,
            chain: &chain,
            turn: case.turn,
            earlier: &earlier,
            seed: case.seed,
            start: case.start.as_deref(),
        };
        let (result, transcript) = scripted(&input, &case.answers);
        let outcome = match result {
            Ok(record) => {
                // Every hop's menu is within bounds and never names a test file.
                for hop in &record.hops {
                    assert!(hop.menu.len() <= MENU_SIZE, "{}", case.name);
                    assert!(hop.menu.iter().all(|m| !m.contains(".tests.")));
                }
                let replayed = replay(&input, &record)
                    .unwrap_or_else(|e| panic!("{}: the replay failed: {e}", case.name));
                assert_eq!(replayed, record, "{}: the replay differs", case.name);
                json!({"record": record, "refusals": transcript.refusals})
            }
            Err(e) => json!({"error": e.to_string(), "refusals": transcript.refusals}),
        };
        if case.name == "turn1_drawn_start" || case.name == "turn2_injected" {
            expect_text(
                &fixtures().join(format!("{}.hop1.md", case.name)),
                &transcript.prompts[0],
            );
        }
        outcomes.insert(case.name.clone(), outcome);
    }
    let outcomes = Value::Object(outcomes);
    expect_json(&fixtures().join("expected.json"), &outcomes);
    // Said outright.
    let error = |name: &str| outcomes[name]["error"].as_str().unwrap_or("").to_owned();
    assert!(error("turn2_refused_twice").contains("`geo.shapes.Hexagon.area` is not on the menu"));
    assert!(error("turn1_start_not_in_map").contains("`geo.nope`"));
    assert!(error("turn2_without_the_injected").contains("did not finish within 8 hops"));
    let refusals = outcomes["turn1_every_refusal"]["refusals"].to_string();
    for words in [
        "is not one JSON object",
        "is already kept",
        "keep more first",
        "`geo.nope` is not on the menu",
        "must be \\\"open\\\", \\\"keep\\\" or \\\"done\\\"",
        "done needs a \\\"goal\\\"",
        "the key \\\"why\\\"",
    ] {
        assert!(refusals.contains(words), "{words}: {refusals}");
    }
    let injected = outcomes["turn2_without_the_injected"]["refusals"].to_string();
    assert!(injected.contains("the evidence lacks"), "{injected}");
    assert!(injected.contains("would fill the evidence"), "{injected}");
    let turn3 = &outcomes["turn3_only_unused_neighbour"]["record"];
    assert_eq!(turn3["injected"], "geo._impl.numeric.clamp");
}

/// The record of a turn-2 walk that opens the injected symbol (first on the menu), keeps
/// it and the start, and finishes.
fn turn2_walk(seed: u64, earlier: &[TurnManifest]) -> WalkRecord {
    let (files, map) = repository();
    let chain = chain();
    let input = WalkInput {
        map: &map,
        files: &files,
        chain: &chain,
        turn: 2,
        earlier,
        seed,
        start: None,
    };
    let answers = [
        r#"{"action": "keep"}"#,
        "OPEN_FIRST",
        r#"{"action": "keep"}"#,
        r#"{"action": "done", "goal": "Reuse both."}"#,
    ]
    .map(str::to_owned);
    scripted(&input, &answers).0.unwrap()
}

#[test]
fn the_injected_symbol_is_a_nearby_unused_one_drawn_by_the_seed() {
    let earlier = [turn("turn-1.json")];
    let used: BTreeSet<&str> = earlier[0].repo_targets.iter().map(String::as_str).collect();
    // Distance 1 from turn 1's targets (callers of `_square` and `_area_of`), none of them
    // a candidate; `_area_of`'s local function is not reusable.
    let near = [
        "geo._impl.numeric.unused",
        "geo.shapes.Circle.area",
        "geo.shapes.Square.area",
        "geo.shapes.total_area",
    ];
    let mut drawn = BTreeSet::new();
    for seed in 0..24 {
        let record = turn2_walk(seed, &earlier);
        let injected = record.injected.clone().unwrap();
        assert!(!used.contains(injected.as_str()), "seed {seed}: {injected}");
        assert!(near.contains(&injected.as_str()), "seed {seed}: {injected}");
        assert!(record.evidence.contains(&injected));
        assert_eq!(turn2_walk(seed, &earlier), record, "seed {seed}");
        drawn.insert(injected);
    }
    assert!(
        drawn.len() > 1,
        "the seed never changed the draw: {drawn:?}"
    );
}

#[test]
fn a_record_is_stale_when_its_inputs_or_answers_changed() {
    let (files, map) = repository();
    let chain = chain();
    let earlier = [turn("turn-1.json")];
    let record = turn2_walk(0, &earlier);
    let input = WalkInput {
        map: &map,
        files: &files,
        chain: &chain,
        turn: 2,
        earlier: &earlier,
        seed: 0,
        start: None,
    };
    let stale = |input: &WalkInput<'_>, record: &WalkRecord| match replay(input, record) {
        Err(e @ WalkError::Stale { .. }) => e.to_string(),
        other => panic!("not stale: {other:?}"),
    };
    let mut other_seed = input;
    other_seed.seed = 1;
    assert!(stale(&other_seed, &record).contains("seed 0, not 1"));

    let mut changed = earlier[0].clone();
    changed.repo_targets = vec!["geo.shapes.Square.area".into()];
    let changed = [changed];
    let mut other_turn1 = input;
    other_turn1.earlier = &changed;
    assert!(stale(&other_turn1, &record).contains("it starts at"));

    // The repository lost a callable on hop 1's menu.
    let mut smaller = map.clone();
    smaller
        .callables
        .retain(|c| c.qualified_name != "geo._impl.numeric.clamp");
    let mut other_map = input;
    other_map.map = &smaller;
    assert!(stale(&other_map, &record).contains("at hop 1 it shows the focus"));

    let mut edited = record.clone();
    edited.hops[1].answer = r#"{"action": "open", "symbol": "geo.nope"}"#.into();
    assert!(stale(&input, &edited).contains("is now refused: `geo.nope` is not on the menu"));

    let mut truncated = record.clone();
    truncated.hops.pop();
    assert!(stale(&input, &truncated).contains("ends after hop 3"));
    assert_eq!(replay(&input, &record).unwrap(), record);
}
