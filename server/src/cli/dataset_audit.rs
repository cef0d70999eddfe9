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
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;
use wheelwright_core::hidden_tests::{TestOutcome, Verdict};
use wheelwright_core::reporeuse::dataset::empty_module;

use super::io::{emit, read_dataset};
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
    // Per chain, the files each turn leaves: its reference.
    let references: Vec<Vec<BTreeMap<String, String>>> = dataset
        .chains
        .iter()
        .map(|chain| {
            chain
                .turns
                .iter()
                .map(|turn| {
                    BTreeMap::from([(turn.manifest.module_path.clone(), turn.reference.clone())])
                })
                .collect()
        })
        .collect();
    let work: Vec<(usize, usize, bool)> = dataset
        .chains
        .iter()
        .enumerate()
        .flat_map(|(c, chain)| {
            (1..=chain.turns.len()).flat_map(move |t| [(c, t, true), (c, t, false)])
        })
        .collect();
    let verdicts = in_slots(&work, config.workers, "turn runs", |&(c, t, reference)| {
        let mut files = references[c].clone();
        if !reference {
            // The empty implementation of turn t sits on the references of turns before
            // it, as `dataset verify` runs it: only the turn's own functions are missing.
            let turn = &dataset.chains[c].turns[t - 1].manifest;
            files[t - 1] = BTreeMap::from([(turn.module_path.clone(), empty_module(turn))]);
        }
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
    // The work list holds each turn's reference run, then its empty run.
    let mut audits = Vec::with_capacity(work.len() / 2);
    let mut verdicts = work.iter().zip(verdicts);
    while let (Some((&(c, t, _), reference)), Some((_, empty))) = (verdicts.next(), verdicts.next())
    {
        let id = &dataset.chains[c].manifest.id;
        let reference = reference.with_context(|| format!("testing {id} turn {t}"))?;
        let empty = empty.with_context(|| format!("testing {id} turn {t}"))?;
        audits.push(turn_audit(id, t, &reference, &empty));
    }
    emit(json, &audits, |out, audits| {
        writeln!(out, "chain\tturn\ttests\treference passed\tempty failed")?;
        for a in audits {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}",
                a.chain, a.turn, a.tests, a.reference_passed, a.empty_failed
            )?;
            for (name, why) in &a.reference_failures {
                writeln!(out, "  the reference fails {name}: {why}")?;
            }
            for name in &a.empty_passes {
                writeln!(out, "  the empty implementation passes {name}")?;
            }
        }
        Ok(())
    })?;
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
