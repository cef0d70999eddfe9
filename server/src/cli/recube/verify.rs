//! `wheelwright recube verify`: every instance of a ReCUBE dataset checked in sandboxes: with the original target every listed test passes, with the masked target (`wheelwright mask`) none does.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;
use wheelwright_core::hidden_tests::Verdict;
use wheelwright_core::recube::mask::mask;

use super::sandboxes::{prepare, run_all};
use crate::TestConfig;
use crate::cli::io::emit;

/// One instance's check by `verify`.
#[derive(Serialize)]
struct InstanceCheck {
    instance: String,
    tests: usize,
    /// Listed tests the original target passes (all must).
    original_passed: usize,
    /// Listed tests the masked target passes (none may).
    masked_passed: usize,
    /// What went wrong, if anything: the tests that did not behave.
    problems: Vec<String>,
}

/// `wheelwright recube verify DIR`.
pub(in crate::cli) fn run(dir: &Path, config: &TestConfig, json: bool) -> anyhow::Result<()> {
    let prepared = prepare(crate::dataset::recube::load_recube_dir(dir)?, config)?;
    let mut work = Vec::new();
    for (i, instance) in prepared.dataset.instances.iter().enumerate() {
        let files = &prepared.repositories[&instance.manifest.repository];
        let original = files.get(&instance.manifest.target).with_context(|| {
            format!(
                "{}: the repository has no {}",
                instance.manifest.id, instance.manifest.target
            )
        })?;
        work.push((i, Some(original.clone())));
        work.push((i, Some(mask(original).text)));
    }
    let verdicts = run_all(&prepared, &work, config)?;
    let mut checks = Vec::new();
    for (i, instance) in prepared.dataset.instances.iter().enumerate() {
        let tests = &instance.manifest.tests;
        let judged =
            |verdict: &Verdict| wheelwright_core::recube::metrics::judge(tests, Some(verdict));
        let original = judged(&verdicts[2 * i]);
        let masked = judged(&verdicts[2 * i + 1]);
        let mut problems = Vec::new();
        for ((test, o), m) in tests.iter().zip(&original).zip(&masked) {
            if !o.passed {
                problems.push(format!(
                    "{}::{} fails with the original",
                    test.module, test.name
                ));
            }
            if m.passed {
                problems.push(format!(
                    "{}::{} passes with the masked file",
                    test.module, test.name
                ));
            }
        }
        for verdict in [&verdicts[2 * i], &verdicts[2 * i + 1]] {
            if let Some(why) = &verdict.tampered {
                problems.push(format!("a run was not believed: {why}"));
            }
        }
        checks.push(InstanceCheck {
            instance: instance.manifest.id.clone(),
            tests: tests.len(),
            original_passed: original.iter().filter(|t| t.passed).count(),
            masked_passed: masked.iter().filter(|t| t.passed).count(),
            problems,
        });
    }
    emit(json, &checks, |out, checks| {
        writeln!(
            out,
            "{:<28} {:>6} {:>9} {:>7}",
            "instance", "tests", "original", "masked"
        )?;
        for c in checks {
            writeln!(
                out,
                "{:<28} {:>6} {:>9} {:>7}",
                c.instance, c.tests, c.original_passed, c.masked_passed
            )?;
            for problem in &c.problems {
                writeln!(out, "  problem: {problem}")?;
            }
        }
        Ok(())
    })?;
    if checks.iter().any(|c| !c.problems.is_empty()) {
        anyhow::bail!("the dataset in {} failed verification", dir.display());
    }
    Ok(())
}
