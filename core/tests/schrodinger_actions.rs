//! SchrodingerRepo's action metrics (spec 3): hand-worked runs in `fixtures/schrodinger/actions/cases.json` (the mix, the additional actions against a baseline, their edge cases), and the mix of the vendored real trajectories as a snapshot.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::expect::expect_json;
use serde_json::{Value, json};
use wheelwright_core::metric::Score;
use wheelwright_core::schrodinger::action_mix::{ActionMix, CATEGORIES, action_mix};
use wheelwright_core::schrodinger::additional_actions::{AdditionalActions, additional_actions};
use wheelwright_core::trajectory::{
    Category, InterpretOptions, TrajectorySummary, parse_trajectory,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schrodinger/actions")
}

fn category(name: &str) -> Category {
    serde_json::from_value(json!(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// One summary per instance from `{category: count}` objects.
fn summaries(instances: &Value) -> Vec<TrajectorySummary> {
    instances
        .as_array()
        .expect("a list of instances")
        .iter()
        .map(|counts| {
            let by_category: BTreeMap<Category, usize> = counts
                .as_object()
                .expect("{category: count}")
                .iter()
                .map(|(c, n)| (category(c), n.as_u64().expect("a count") as usize))
                .collect();
            TrajectorySummary {
                actions: by_category.values().sum(),
                by_category,
                ..TrajectorySummary::default()
            }
        })
        .collect()
}

/// A score as the cases write it: its value, or null when undefined.
fn value(score: Score) -> Value {
    score.value().map_or(Value::Null, Value::from)
}

/// The mix compared with the case's `mix`.
fn check_mix(name: &str, mix: &ActionMix, want: &Value) {
    assert_eq!(json!(mix.actions), want["actions"], "{name}: actions");
    assert_eq!(
        value(mix.mean_actions),
        want["mean_actions"],
        "{name}: mean"
    );
    for c in CATEGORIES {
        let key = serde_json::to_value(c).unwrap();
        let key = key.as_str().unwrap();
        assert_eq!(
            value(mix.shares[&c]),
            want["shares"][key],
            "{name}: share of {key}"
        );
    }
}

/// The additional actions compared with the case's `additional` (a category it does not
/// list has 0 extra actions; `shares: null` means every share is undefined).
fn check_additional(name: &str, extra: &AdditionalActions, want: &Value) {
    assert_eq!(
        json!(extra.per_instance),
        want["per_instance"],
        "{name}: per instance"
    );
    for c in CATEGORIES {
        let key = serde_json::to_value(c).unwrap();
        let key = key.as_str().unwrap();
        let listed = want["by_category"]
            .get(key)
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        assert_eq!(extra.by_category[&c], listed, "{name}: extra {key}");
        let share = want["shares"].get(key).cloned().unwrap_or(Value::Null);
        assert_eq!(value(extra.shares[&c]), share, "{name}: share of {key}");
    }
    if want["shares"].is_object() {
        let sum: f64 = extra.shares.values().filter_map(|s| s.value()).sum();
        assert!((sum - 100.0).abs() < 1e-9, "{name}: shares sum to {sum}");
    }
}

#[test]
fn hand_worked_runs_give_their_mix_and_additional_actions() {
    let text = std::fs::read_to_string(fixtures().join("cases.json")).expect("the cases");
    let cases: BTreeMap<String, Value> = serde_json::from_str(&text).expect("cases JSON");
    assert!(cases.len() >= 6);
    for (name, case) in &cases {
        let run = action_mix(&summaries(&case["run"]));
        let baseline = action_mix(&summaries(&case["baseline"]));
        check_mix(name, &run, &case["mix"]);
        check_additional(
            name,
            &additional_actions(&run, &baseline),
            &case["additional"],
        );
    }
}

#[test]
fn the_real_trajectories_mix_is_pinned() {
    let mut instances = BTreeMap::new();
    let mut all = Vec::new();
    for id in common::real::vendored_ids() {
        let trajectory = parse_trajectory(&common::real::vendored(&id)).expect(&id);
        let summary = TrajectorySummary::of(&trajectory, &InterpretOptions::new(None));
        instances.insert(id, json!(summary.by_category));
        all.push(summary);
    }
    let mix = action_mix(&all);
    assert_eq!(mix.instances, 12);
    assert_eq!(
        mix.actions,
        all.iter().map(|s| s.actions).sum::<usize>(),
        "every action has one category"
    );
    expect_json(
        &fixtures().join("real-gemini-3-pro.json"),
        &json!({"run": mix, "instances": instances}),
    );
}
