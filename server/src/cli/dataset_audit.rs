//! `wheelwright dataset audit`: the independent check of a built RepoReuse dataset: its pinned repository installed afresh, every chain's packaged references put in place turn by turn, and every hidden test run as a submission's would be.
//!
//! The audit trusts nothing the pipeline left but the packaged files (`dataset.json`,
//! each turn's `reference.py`, `cases.json` and `expected.json`): the environment is
//! built in a new directory from the PyPI pin (nothing reused from earlier builds), and the
//! tests run through the same sandboxed path and judge as a participant's run. Every
//! reference must pass every test, and an empty implementation (the turn's functions
//! raising `NotImplementedError`) must fail every one; a hand-edited expected value shows
//! as a reference failing that case.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;
use wheelwright_core::hidden_tests::{TestOutcome, Verdict};
use wheelwright_core::reporeuse::dataset::empty_module;

use super::io::read_dataset;
use super::pool::in_slots;
use crate::TestConfig;
use crate::hidden_tests::Environments;
use crate::reporeuse::hidden_tests::{TurnTest, run_turn};

/// One turn's audit.
#[derive(Serialize)]
struct TurnAudit {
    chain: String,
    turn: usize,
    tests: usize,
    /// Tests the reference passed.
    reference_passed: usize,
    /// Tests the empty implementation failed.
    empty_failed: usize,
    /// Tests the reference failed, by id, with what it did.
    reference_failures: Vec<(String, String)>,
    /// Tests the empty implementation passed.
    empty_passes: Vec<String>,
}

/// `wheelwright dataset audit DIR`: the table (or JSON) on standard output; an error when
/// any reference fails a test or the empty implementation passes one.
pub(super) fn audit(dir: &Path, config: &TestConfig, json: bool) -> anyhow::Result<()> {
    let (dataset, files) = read_dataset(dir, None)?;
    let exceptions = dataset.exception_classes(&files);
    let sandbox = config
        .sandbox()
        .map_err(|why| anyhow::anyhow!("no sandbox to run the tests in: {why}"))?;
    // A new environment root: the pinned repository is installed again, not taken from an
    // environment an earlier step built.
    std::fs::create_dir_all(&config.env_root)
        .with_context(|| format!("creating {}", config.env_root.display()))?;
    let fresh = tempfile::Builder::new()
        .prefix("audit-")
        .tempdir_in(&config.env_root)
        .with_context(|| format!("creating a directory in {}", config.env_root.display()))?;
    // The sandbox's users must read it, as they read every environment.
    std::fs::set_permissions(fresh.path(), std::fs::Permissions::from_mode(0o755))?;
    let env_dirs = Environments::new(fresh.path().to_owned())
        .for_every_chain(&dataset)
        .context("cannot install the dataset's repository afresh")?;
    // Per chain, the files each turn leaves: its reference, or its empty implementation.
    let mut references = Vec::new();
    let mut empties = Vec::new();
    for chain in &dataset.chains {
        let turn_files = |text: &dyn Fn(usize) -> String| -> Vec<BTreeMap<String, String>> {
            (0..chain.turns.len())
                .map(|i| BTreeMap::from([(chain.turns[i].manifest.module_path.clone(), text(i))]))
                .collect()
        };
        references.push(turn_files(&|i| chain.turns[i].reference.clone()));
        // The empty implementation of turn t sits on the references of turns before it, as
        // `dataset verify` runs it: only the turn's own functions are missing.
        empties.push(turn_files(&|i| empty_module(&chain.turns[i].manifest)));
    }
    let work: Vec<(usize, usize, bool)> = dataset
        .chains
        .iter()
        .enumerate()
        .flat_map(|(c, chain)| {
            (1..=chain.turns.len()).flat_map(move |t| [(c, t, true), (c, t, false)])
        })
        .collect();
    let verdicts = in_slots(&work, config.workers, "turn runs", |&(c, t, reference)| {
        let files: Vec<BTreeMap<String, String>> = if reference {
            references[c].clone()
        } else {
            let mut files = references[c].clone();
            files[t - 1] = empties[c][t - 1].clone();
            files
        };
        run_turn(
            sandbox.as_ref(),
            &env_dirs[c],
            &TurnTest {
                dataset: &dataset,
                chain: c,
                turn: t,
                files: &files,
                exceptions: &exceptions,
            },
            config.turn_timeout,
            None,
        )
    });
    let mut by_turn: BTreeMap<(usize, usize), (Option<Verdict>, Option<Verdict>)> = BTreeMap::new();
    for (&(c, t, reference), verdict) in work.iter().zip(verdicts) {
        let id = &dataset.chains[c].manifest.id;
        let verdict = verdict.with_context(|| format!("testing {id} turn {t}"))?;
        let entry = by_turn.entry((c, t)).or_default();
        if reference {
            entry.0 = Some(verdict);
        } else {
            entry.1 = Some(verdict);
        }
    }
    // Every turn ran both ways (the work list holds both), so neither is missing.
    let audits: Vec<TurnAudit> = by_turn
        .into_iter()
        .filter_map(|((c, t), pair)| match pair {
            (Some(reference), Some(empty)) => Some(turn_audit(
                &dataset.chains[c].manifest.id,
                t,
                &reference,
                &empty,
            )),
            _ => None,
        })
        .collect();
    if json {
        println!("{}", serde_json::to_string_pretty(&audits)?);
    } else {
        println!("chain\tturn\ttests\treference passed\tempty failed");
        for a in &audits {
            println!(
                "{}\t{}\t{}\t{}\t{}",
                a.chain, a.turn, a.tests, a.reference_passed, a.empty_failed
            );
            for (name, why) in &a.reference_failures {
                println!("  the reference fails {name}: {why}");
            }
            for name in &a.empty_passes {
                println!("  the empty implementation passes {name}");
            }
        }
    }
    let bad = audits
        .iter()
        .filter(|a| !a.reference_failures.is_empty() || !a.empty_passes.is_empty() || a.tests == 0)
        .count();
    if bad > 0 {
        anyhow::bail!("{bad} turn(s) of {} failed the audit", dir.display());
    }
    Ok(())
}

/// The audit of one turn from its two verdicts; a tampered run's tests all count as
/// failed, as the scorer counts them.
fn turn_audit(chain: &str, turn: usize, reference: &Verdict, empty: &Verdict) -> TurnAudit {
    let passed = |v: &Verdict, r: &wheelwright_core::hidden_tests::TestResult| {
        v.tampered.is_none() && r.outcome == TestOutcome::Passed
    };
    TurnAudit {
        chain: chain.to_owned(),
        turn,
        tests: reference.tests.len(),
        reference_passed: reference.results().passed as usize,
        empty_failed: empty.tests.len() - empty.results().passed as usize,
        reference_failures: reference
            .tests
            .iter()
            .filter(|r| !passed(reference, r))
            .map(|r| {
                let why = reference
                    .tampered
                    .clone()
                    .unwrap_or_else(|| r.excerpt.clone());
                (r.name.clone(), why)
            })
            .collect(),
        empty_passes: empty
            .tests
            .iter()
            .filter(|r| passed(empty, r))
            .map(|r| r.name.clone())
            .collect(),
    }
}
