//! RepoReuse's pipeline, step "execute", on this machine: a turn's reference run by the case runner in the sandbox, as a submission's code is, once per run core asks for; core keeps what the runs agree on.

use std::collections::BTreeMap;
use std::time::Duration;

use wheelwright_core::hidden_tests::cases::CaseSuite;
use wheelwright_core::hidden_tests::compare::ExceptionClasses;
use wheelwright_core::reporeuse::dataset::RepoReuseDataset;
use wheelwright_core::reporeuse::execution::{Executed, RUNS, expected_values};
use wheelwright_sandbox::Sandbox;

use super::hidden_tests::case_judge;
use crate::hidden_tests::{TestRunError, run_stream, streaming_job};

/// Runs the calls of turn `turn` (1-based) of chain `chain` (an index) on the references
/// of turns 1..=turn, [`RUNS`] times in `sandbox` with the environment `env_dir` (the
/// chain's repository's), and returns what core keeps; exceptions are judged with
/// `classes` (the chain's repository's).
pub(crate) fn execute_turn(
    sandbox: &dyn Sandbox,
    env_dir: &std::path::Path,
    dataset: &RepoReuseDataset,
    chain: usize,
    turn: usize,
    classes: &ExceptionClasses,
    timeout: Duration,
) -> Result<Executed, TestRunError> {
    let manifest = &dataset.chains[chain].manifest;
    let turns = &dataset.chains[chain].turns[..turn];
    let current = &turns[turn - 1];
    let package = dataset
        .manifest
        .repository_of(manifest)
        .map(|(_, source)| source.import())
        .unwrap_or_default();
    let suite = CaseSuite::to_execute(
        &current.manifest.module_name(),
        package,
        &current.cases_json,
    )
    .map_err(TestRunError::Dataset)?;
    let judge = case_judge(dataset, manifest, &suite)?;
    // The workspace a chain's agent would leave after turn t, with the references standing
    // in for its files: each turn's reference imports the earlier ones by module path.
    let workspace: BTreeMap<String, Vec<u8>> = turns
        .iter()
        .map(|t| {
            (
                t.manifest.module_path.clone(),
                t.reference.clone().into_bytes(),
            )
        })
        .collect();
    let argv = ["python", "-I", "/judge/run_cases.py"]
        .map(str::to_owned)
        .to_vec();
    let mut runs = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        // Each run is a fresh interpreter: its own hash seed, its own addresses.
        let job = streaming_job(
            workspace.clone(),
            judge.clone(),
            env_dir,
            argv.clone(),
            timeout,
            None,
        );
        let (stream, truncated, end) = run_stream(sandbox, &job)?;
        runs.push(suite.observe(stream.as_deref(), truncated, end));
    }
    expected_values(&suite, &runs, classes).map_err(TestRunError::Dataset)
}
