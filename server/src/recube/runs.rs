//! ReCUBE runs on the server: how a bundle is read, checked, scored and stored (its [`Scorer`]; the steps are [`crate::submit`]'s), each instance scored again as its hidden tests finish, and the two baselines (the original file, the masked file).
//!
//! A ReCUBE run is stored in the same tables as a RepoReuse run: an instance is the slot
//! (id, 1), a chain of one turn, so the run's files and trajectories, the hidden-test
//! queue, its commits and restarts are the same code. At upload the instances are scored
//! from the bundle alone (caller coverage, cost and calls from the trajectories) and the
//! run's pass rates are undefined: a run nobody tested has not failed its tests. Each
//! instance's commit in the queue stores its score judged by its verdict
//! ([`InstanceScore::retested`]); the last one also stores the run's row.

use std::collections::BTreeMap;
use std::sync::Arc;

use wheelwright_core::budget::Cancel;
use wheelwright_core::bundle::{BundleError, DatasetRef, LIMITS, Metadata};
use wheelwright_core::hidden_tests::Verdict;
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::recube::bundle::{InstanceKey, RecubeBundle};
use wheelwright_core::recube::dataset::Instance;
use wheelwright_core::recube::mask::mask;
use wheelwright_core::recube::scoring::{
    InstanceRun, InstanceScore, RecubeReport, report, score_instance_on,
};
use wheelwright_core::reporeuse::scoring::DEFAULT_WORKDIR;

use crate::dataset::catalog::Catalog;
use crate::dataset::recube::LoadedRecube;
use crate::store::{Scores, SlotScore, Store};
use crate::submit::{Provenance, Scorer, SubmitError};

/// A baseline of a ReCUBE dataset: the name stored with the run, what the target holds,
/// and the run's model label.
#[derive(Clone, Copy)]
pub(crate) struct RecubeBaseline {
    name: &'static str,
    target: Target,
    model: &'static str,
}

/// What a baseline puts at each instance's target.
#[derive(Clone, Copy)]
enum Target {
    /// The file as the library ships it: every test passes.
    Original,
    /// The file the agent is given, bodies removed: what an agent that did nothing leaves.
    Masked,
}

/// Uploads and baselines are scored from the bundle alone: every instance without test
/// results ([`score_untested`]); the rows store the run untested.
impl Scorer for LoadedRecube {
    type Key = InstanceKey;
    type Report = RecubeReport;
    type Baseline = RecubeBaseline;

    const BASELINES: &'static [RecubeBaseline] = &[
        RecubeBaseline {
            name: "reference",
            target: Target::Original,
            model: "original file (baseline)",
        },
        RecubeBaseline {
            name: "empty",
            target: Target::Masked,
            model: "masked file (baseline)",
        },
    ];

    fn find(catalog: &Catalog, name: &str, version: &str) -> Option<Arc<Self>> {
        catalog.recube(name, version)
    }

    fn provenance(&self) -> Provenance<'_> {
        let m = &self.dataset.manifest;
        Provenance::upload(m.benchmark, &m.name, &m.version, &self.content_sha256)
    }

    /// JSON Lines, plain or gzip.
    fn read(bytes: &[u8]) -> Result<RecubeBundle, BundleError> {
        RecubeBundle::from_bytes(bytes, "the upload", LIMITS)
    }

    fn check(&self, bundle: &RecubeBundle) -> Result<(), BundleError> {
        bundle.check_against(&self.dataset)
    }

    fn score(&self, bundle: &RecubeBundle, _cancel: &Cancel) -> Result<RecubeReport, SubmitError> {
        Ok(score_untested(self, bundle)?)
    }

    fn score_baseline(
        &self,
        baseline: Self::Baseline,
        bundle: &RecubeBundle,
        _cancel: &Cancel,
    ) -> Result<RecubeReport, SubmitError> {
        let name = Self::baseline_name(baseline);
        Ok(self.baseline_report(name, || score_untested(self, bundle))?)
    }

    fn scores(&self, _bundle: &RecubeBundle, report: &RecubeReport) -> Result<Scores, SubmitError> {
        Ok(Scores::of_recube(report, false)?)
    }

    fn baseline_name(baseline: RecubeBaseline) -> &'static str {
        baseline.name
    }

    fn baseline(&self, baseline: RecubeBaseline, today: &str) -> anyhow::Result<RecubeBundle> {
        let manifest = &self.dataset.manifest;
        let metadata = Metadata {
            model: baseline.model.to_owned(),
            harness: "baseline".to_owned(),
            memory: "none".to_owned(),
            date: today.to_owned(),
            dataset: DatasetRef {
                name: manifest.name.clone(),
                version: manifest.version.clone(),
            },
            cost_usd: None,
            scaffold_version: Some(wheelwright_core::SCORER_VERSION.to_owned()),
            notes: Some(format!(
                "Computed by Wheelwright {} from the dataset itself; not an agent's run.",
                wheelwright_core::SCORER_VERSION
            )),
        };
        Ok(RecubeBundle::baseline(
            &self.dataset,
            metadata,
            |instance| {
                let files = repository(self, instance).ok()?;
                let original = files.get(&instance.manifest.target)?;
                Some(match baseline.target {
                    Target::Original => original.clone(),
                    Target::Masked => mask(original).text,
                })
            },
        ))
    }
}

/// Every instance of `bundle` scored without test results, in dataset order. Blocking: a
/// repository not fetched yet is downloaded.
fn score_untested(loaded: &LoadedRecube, bundle: &RecubeBundle) -> anyhow::Result<RecubeReport> {
    let options = IndexOptions::default();
    let mut scores = Vec::with_capacity(loaded.dataset.instances.len());
    for instance in &loaded.dataset.instances {
        let workspace = loaded.workspace(&instance.manifest.repository)?;
        let basis = loaded.basis(instance)?;
        scores.push(score_instance_on(
            &InstanceRun {
                instance,
                prediction: bundle
                    .predictions
                    .get(&InstanceKey::new(instance.manifest.id.as_str())),
                verdict: None,
                repository: &workspace,
                options: &options,
                workdir: DEFAULT_WORKDIR,
            },
            &basis,
        ));
    }
    Ok(report(scores))
}

/// The files of `instance`'s repository. Blocking: the first call may download it.
pub(crate) fn repository(
    loaded: &LoadedRecube,
    instance: &Instance,
) -> anyhow::Result<Arc<BTreeMap<String, String>>> {
    let id = &instance.manifest.repository;
    loaded
        .repository(id)?
        .ok_or_else(|| anyhow::anyhow!("instance {} names no repository", instance.manifest.id))
}

/// The stored scores of run `run`'s instances, in the order they were stored (the
/// dataset's).
pub(crate) async fn stored_scores(store: &Store, run: i64) -> anyhow::Result<Vec<InstanceScore>> {
    store
        .turn_scores(run, i64::MAX, 0)
        .await?
        .iter()
        .map(|text| Ok(serde_json::from_str(text)?))
        .collect()
}

/// The run's report from its instances' scores, in dataset order (an instance without a
/// stored score is a bug: every instance is stored at upload).
pub(crate) fn report_of(
    loaded: &LoadedRecube,
    scores: Vec<InstanceScore>,
) -> anyhow::Result<RecubeReport> {
    let mut scores: BTreeMap<String, InstanceScore> = scores
        .into_iter()
        .map(|s| (s.instance.clone(), s))
        .collect();
    let ordered = loaded
        .dataset
        .instances
        .iter()
        .map(|i| {
            scores
                .remove(&i.manifest.id)
                .ok_or_else(|| anyhow::anyhow!("no stored score for instance {}", i.manifest.id))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(report(ordered))
}

/// Run `run` as `GET /api/v1/recube/runs/{id}` shows it (`summary` is the run's), test
/// excerpts left out.
pub(crate) async fn detail(
    store: &Store,
    summary: wheelwright_core::api::RunSummary,
) -> anyhow::Result<wheelwright_core::api::RecubeRunDetail> {
    let tested = store.tested_slots(summary.id).await?;
    let mut instances = Vec::new();
    for mut score in stored_scores(store, summary.id).await? {
        for test in &mut score.tests {
            test.excerpt.clear();
        }
        let tested = tested.contains(&score.instance);
        // A file whose tests have not run yet has not failed them: no rate until they ran
        // (a missing file fails every test, tested or not).
        if !tested && score.submitted {
            score.pass_rate = wheelwright_core::metric::Score::Undefined {
                reason: wheelwright_core::metric::Undefined::NoTests,
            };
        }
        instances.push(wheelwright_core::api::RecubeRunInstance { tested, score });
    }
    let correlations = report(
        instances
            .iter()
            .filter(|i| i.tested)
            .map(|i| i.score.clone())
            .collect(),
    )
    .correlations;
    Ok(wheelwright_core::api::RecubeRunDetail {
        summary,
        instances,
        correlations,
    })
}

/// What the commit of instance `id`'s verdict stores: its score judged again, and, when it
/// is the last instance of the run, the run's row with its pass rates.
pub(crate) async fn rescore(
    store: &Store,
    loaded: &LoadedRecube,
    run: i64,
    instance: &Instance,
    verdict: &Verdict,
    last: bool,
) -> anyhow::Result<(SlotScore, Option<Scores>)> {
    let id = &instance.manifest.id;
    // Only the last commit needs every instance's score; the others read their own.
    let stored = store
        .turn_score(run, id, 1)
        .await?
        .ok_or_else(|| anyhow::anyhow!("run {run} has no stored score for instance {id}"))?;
    let score = serde_json::from_str::<InstanceScore>(&stored)?.retested(instance, verdict);
    let slot = SlotScore::new(id, 1, &score)?;
    if !last {
        return Ok((slot, None));
    }
    let mut scores = stored_scores(store, run).await?;
    for stored in scores.iter_mut().filter(|s| s.instance == *id) {
        *stored = score.clone();
    }
    let report = report_of(loaded, scores)?;
    Ok((slot, Some(Scores::of_recube(&report, true)?)))
}
