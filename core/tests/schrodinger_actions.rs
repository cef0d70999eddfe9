//! SchrodingerRepo's action metrics (spec 3): hand-worked runs in `fixtures/schrodinger/actions/cases.json` (the mix, the additional actions against a baseline, their edge cases), runs read from their files (`fixtures/schrodinger/runs/<case>/`: trajectories, SWE-bench reports, what is skipped) with their Pass@1, mix, tokens and shift, and the vendored real run (trajectories and reports) as a snapshot.
//!
//! The expected outputs of the runs are under `fixtures/schrodinger/runs-expected/`; to
//! regenerate them after a deliberate change: `UPDATE_EXPECT=1 cargo test -p
//! wheelwright-core --test it schrodinger_actions::`, then review the diff.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::expect::expect_json;
use serde_json::{Value, json};
use wheelwright_core::metric::Score;
use wheelwright_core::schrodinger::action_mix::{ActionMix, CATEGORIES, action_mix};
use wheelwright_core::schrodinger::action_shift::ActionsReport;
use wheelwright_core::schrodinger::additional_actions::{AdditionalActions, additional_actions};
use wheelwright_core::schrodinger::run_actions::{RunActions, RunReader};
use wheelwright_core::trajectory::{Category, TrajectorySummary};

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
        let key = c.name();
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
        let key = c.name();
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

/// The run whose files are under `dir`, read in sorted order with their paths relative to
/// `dir`, as the command line reads a run folder.
fn read_run(dir: &Path) -> RunActions {
    let mut reader = RunReader::new();
    for (name, bytes) in common::real::files_under(dir) {
        reader.add(&name, &bytes);
    }
    reader.finish()
}

fn runs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schrodinger/runs")
}

fn runs_expected() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schrodinger/runs-expected")
}

#[test]
fn runs_are_read_from_their_files() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(runs())
        .expect("the run cases")
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 3);
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let run = read_run(&case);
        // Every instance is counted once, resolved or not.
        assert_eq!(run.mix.instances, run.instances.len(), "{name}");
        assert!(run.resolved <= run.instances.len(), "{name}");
        expect_json(&runs_expected().join(format!("{name}.json")), &json!(run));
    }
}

#[test]
fn a_run_shifts_against_its_baseline() {
    for (run, baseline) in [
        ("summary", "edge"),
        ("edge", "summary"),
        ("summary", "no_reports"),
    ] {
        let report = ActionsReport::new(
            read_run(&runs().join(run)),
            Some(read_run(&runs().join(baseline))),
        );
        let shift = report.shift.as_ref().expect("a shift with a baseline");
        // Defined shares (none when the run took no more actions) sum to 100 %.
        let defined: Vec<f64> = shift
            .additional
            .shares
            .values()
            .filter_map(|s| s.value())
            .collect();
        if !defined.is_empty() {
            let sum: f64 = defined.iter().sum();
            assert!(
                (sum - 100.0).abs() < 1e-9,
                "{run} vs {baseline}: shares sum to {sum}"
            );
        }
        expect_json(
            &runs_expected().join(format!("shift-{run}-vs-{baseline}.json")),
            &json!(shift),
        );
    }
}

#[test]
fn the_real_run_is_read_with_its_reports() {
    let run = read_run(Path::new(common::real::VENDORED));
    assert_eq!(run.instances.len(), 12);
    assert!(run.diagnostics.is_empty(), "{:?}", run.diagnostics);
    // Every gemini-3-pro trajectory records its model's usage in each response.
    assert_eq!(run.tokens.instances, 12);
    expect_json(&runs_expected().join("real-gemini-3-pro.json"), &json!(run));
    // The full set, when it is beside the repository: its 70 trajectories and their reports.
    if let Some(paths) = common::real::shared_paths("the full gemini-3-pro run") {
        let root = paths[0]
            .ancestors()
            .nth(3)
            .expect("the run folder")
            .to_owned();
        let full = read_run(&root);
        assert_eq!(full.instances.len(), common::real::SHARED_COUNT);
        assert_eq!(full.resolved, 40, "{:?}", full.diagnostics);
    }
}
