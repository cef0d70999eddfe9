//! RepoReuse runs: how a bundle is read, checked, scored against a loaded dataset and stored (its [`Scorer`]), its three baselines, and a stored run scored again with its hidden tests' results.
//!
//! The steps of a submission and of the baselines are [`crate::submit`]'s, shared with
//! ReCUBE; what is RepoReuse's is here: the scores come from
//! [`wheelwright_core::reporeuse::scoring`] with the dataset's W0 indexed once
//! ([`LoadedDataset::prepared`]), and every turn of the bundle must have its row.

use std::sync::Arc;

use wheelwright_core::budget::Cancel;
use wheelwright_core::bundle::{BundleError, LIMITS};
use wheelwright_core::hidden_tests::TestResults;
use wheelwright_core::reporeuse::baseline::Baseline;
use wheelwright_core::reporeuse::bundle::{RepoReuseBundle, TurnId};
use wheelwright_core::reporeuse::scoring::{
    ChainRun, Run, RunDiagnostic, RunReport, ScoreError, TurnRun,
};

use crate::dataset::catalog::{Catalog, LoadedDataset};
use crate::store::{Scores, Store};
use crate::submit::{Provenance, Scorer, SubmitError};

impl Scorer for LoadedDataset {
    type Key = TurnId;
    type Report = RunReport;
    type Baseline = Baseline;

    const BASELINES: &'static [Baseline] = &Baseline::ALL;

    fn find(catalog: &Catalog, name: &str, version: &str) -> Option<Arc<Self>> {
        catalog.get(name, version)
    }

    fn provenance(&self) -> Provenance<'_> {
        let m = &self.dataset.manifest;
        Provenance::upload(m.benchmark, &m.name, &m.version, &self.content_sha256)
    }

    fn read(bytes: &[u8]) -> Result<RepoReuseBundle, BundleError> {
        RepoReuseBundle::from_bytes(bytes, "the upload", LIMITS)
    }

    fn check(&self, bundle: &RepoReuseBundle) -> Result<(), BundleError> {
        bundle.check_against(&self.dataset)
    }

    fn score(&self, bundle: &RepoReuseBundle, cancel: &Cancel) -> Result<RunReport, SubmitError> {
        let prepared = self.prepared().map_err(SubmitError::Internal)?;
        cancel.check()?;
        let run = bundle.to_run(&self.dataset);
        prepared
            .score(&run, &mut |_| {}, cancel)
            .map_err(|e| match e {
                ScoreError::Cancelled(cancelled) => SubmitError::Cancelled(cancelled),
                ScoreError::Dataset(e) => SubmitError::Internal(anyhow::anyhow!(e)),
                // Only `score_chains` reads a bundle as it scores; this run was read whole.
                ScoreError::Bundle(e) => SubmitError::Internal(anyhow::anyhow!(e)),
            })
    }

    /// One row per scored turn; a turn of the bundle without one is a bug, refused.
    fn scores(&self, bundle: &RepoReuseBundle, report: &RunReport) -> Result<Scores, SubmitError> {
        let scored: std::collections::BTreeSet<(&str, usize)> = report
            .turns
            .iter()
            .map(|row| (row.chain.as_str(), row.turn))
            .collect();
        if let Some(TurnId { chain, turn }) = bundle
            .predictions
            .keys()
            .find(|id| !scored.contains(&(id.chain.as_str(), id.turn)))
        {
            return Err(SubmitError::Internal(anyhow::anyhow!(
                "the report has no row for turn {turn} of chain {chain:?} of the bundle"
            )));
        }
        Ok(Scores::of_reporeuse(report)?)
    }

    fn baseline_name(baseline: Baseline) -> &'static str {
        baseline.name()
    }

    fn baseline(&self, baseline: Baseline, today: &str) -> anyhow::Result<RepoReuseBundle> {
        let mut bundle = (*self.baseline_bundle(baseline)?).clone();
        today.clone_into(&mut bundle.metadata.date);
        Ok(bundle)
    }
}

/// The stored run `run` scored again, now with the hidden-test results `tests` by
/// (chain, turn): the same files and trajectories, so only pass, resolve and their
/// aggregates change.
///
/// The diagnostics of the upload are kept: the stored texts are the run as scored, so a
/// chain the bundle left out or a turn it stopped before now looks present and empty,
/// and the re-score alone would no longer say what the bundle lacked.
pub(crate) async fn rescored(
    store: &Store,
    loaded: Arc<LoadedDataset>,
    run: i64,
    tests: std::collections::BTreeMap<(String, usize), TestResults>,
) -> anyhow::Result<RunReport> {
    let mut stored = crate::store::run_files::run_texts(store, run, true).await?;
    let (_, uploaded, _) = store.run_series(run).await?;
    let uploaded: Vec<RunDiagnostic> = serde_json::from_str(&uploaded)?;
    tokio::task::spawn_blocking(move || {
        let mut chains = std::collections::BTreeMap::new();
        for chain in &loaded.dataset.chains {
            let id = &chain.manifest.id;
            let turns = chain
                .turns
                .iter()
                .enumerate()
                .map(|(i, turn)| {
                    let key = (id.clone(), i + 1);
                    let crate::store::run_files::TurnTexts {
                        mut files,
                        trajectory,
                    } = stored.remove(&key).unwrap_or_default();
                    TurnRun {
                        submission: files.remove(&turn.manifest.module_path),
                        other_files: files,
                        trajectory: trajectory.map(serde_json::Value::String),
                        tests: tests.get(&key).copied(),
                    }
                })
                .collect();
            chains.insert(id.clone(), ChainRun { turns });
        }
        let mut report =
            loaded
                .prepared()?
                .score(&Run { chains }, &mut |_| {}, &Cancel::never())?;
        report.diagnostics = kept_and_new(uploaded, report.diagnostics);
        Ok(report)
    })
    .await?
}

/// The upload's diagnostics, then any of the re-score's that they do not already say.
fn kept_and_new(mut kept: Vec<RunDiagnostic>, new: Vec<RunDiagnostic>) -> Vec<RunDiagnostic> {
    for diagnostic in new {
        if !kept.contains(&diagnostic) {
            kept.push(diagnostic);
        }
    }
    kept
}
