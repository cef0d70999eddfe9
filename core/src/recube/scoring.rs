//! Scores a ReCUBE run: each instance's tests judged against the dataset, caller coverage from its trajectory, cost and turns, then the run's rates and correlations.
//!
//! The host runs the hidden tests (in a sandbox) and gives their verdicts; everything else is
//! computed here, from the dataset, the repository's files and the bundle, so the server, the
//! command line and the page agree. The dataset fixes each instance's tests: an instance
//! without a rebuilt target, or whose tests did not run, fails every one of them and stays
//! in every denominator.
//!
//! Difficulty, for the correlations by quartile (spec 2, "per-model difficulty quartile"),
//! is the model's own: within one run (one model), instances are ranked by their APR and
//! split into four quartiles; caller coverage and APR are correlated within each and over
//! the run, leaving out instances at 0% and 100%, which stay in each quartile's mean
//! coverage ([`by_quartile`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::bundle::Prediction;
use crate::hidden_tests::{TestOutcome, Verdict};
use crate::python::index::IndexOptions;
use crate::recube::dataset::Instance;
use crate::recube::graph::Graph;
use crate::recube::mask::mask;
use crate::recube::metrics::{
    Correlation, PassRates, QuartileCorrelation, Score, TestKind, Undefined, by_quartile,
    caller_coverage, correlated, judge, kendall_tau, spearman_rho,
};
use crate::trajectory::{
    InterpretOptions, TrajectorySummary, interpret_trajectory, parse_trajectory,
};
use crate::workspace::Workspace;

/// One instance as the host gives it to the scorer.
pub struct InstanceRun<'a> {
    pub instance: &'a Instance,
    /// What the bundle holds for it (`None`: nothing).
    pub prediction: Option<&'a Prediction>,
    /// Its hidden tests' verdict (`None`: they did not run, so every test fails).
    pub verdict: Option<&'a Verdict>,
    /// The instance's repository with the original target, as the dataset pins it.
    pub repository: &'a Workspace,
    pub options: &'a IndexOptions,
    /// The directory the agent's actions started in (paths in its trajectory are relative
    /// to it); the repository's root.
    pub workdir: &'a str,
}

/// One test of an instance after the run, as the instance page lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestRow {
    /// The test file, relative to the instance's `tests/`.
    pub module: String,
    pub name: String,
    pub kind: TestKind,
    pub passed: bool,
    /// How it ended (`missing` when the tests did not run at all).
    pub outcome: TestOutcome,
    /// Why it failed, when the runner said.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub excerpt: String,
}

/// Passed and total tests of one kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub passed: usize,
    pub total: usize,
}

/// One instance's scores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceScore {
    pub instance: String,
    pub target: String,
    /// Whether the bundle held a file at the target's path.
    pub submitted: bool,
    pub tests: Vec<TestRow>,
    pub all: Tally,
    pub external: Tally,
    pub internal: Tally,
    /// The share of its tests that passed, in percent (the instance's part of APR).
    pub pass_rate: Score,
    /// Of the files invoking the target's entities, the share the agent viewed, in percent.
    pub caller_coverage: Score,
    /// How many files invoke the target's entities.
    pub callers: usize,
    /// Bodies the mask removed: the code the agent has to write back.
    pub masked_bodies: usize,
    /// What the agent's run on it cost, when its trajectory says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The model's calls (its turns), when the trajectory says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_calls: Option<u64>,
    /// The actions in its trajectory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<usize>,
    /// Why its trajectory could not be read (caller coverage is then undefined).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trajectory_error: Option<String>,
    /// Why its test results were not believed (every test then failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tampered: Option<String>,
}

/// Caller coverage against APR, over all instances and by difficulty quartile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoverageCorrelations {
    /// Over the instances with a defined caller coverage and an APR strictly between 0% and
    /// 100%.
    pub kendall: Option<Correlation>,
    pub spearman: Option<Correlation>,
    pub by_quartile: Vec<QuartileCorrelation>,
}

/// A whole run's scores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecubeReport {
    pub instances: Vec<InstanceScore>,
    pub rates: PassRates,
    pub correlations: CoverageCorrelations,
    /// Mean caller coverage over the instances where it is defined, in percent.
    pub caller_coverage: Score,
    /// The run's cost: the sum over instances when every trajectory gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Mean model calls per instance, over the instances whose trajectory gave them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_model_calls: Option<f64>,
}

/// The columns of a ReCUBE run's leaderboard row, in order: the paper's six pass rates
/// (its table 5), then mean caller coverage, and the mean cost and model calls per instance
/// (its table 7's `cost_usd` and `turns`).
pub const COLUMNS: [&str; 9] = [
    "spr",
    "apr",
    "spr_external",
    "apr_external",
    "spr_internal",
    "apr_internal",
    "caller_coverage",
    "cost_usd",
    "turns",
];

impl RecubeReport {
    /// The run's leaderboard row, one score per [`COLUMNS`] entry (cost and turns only when
    /// the trajectories gave them). Until the hidden tests ran (`tested` false) the pass
    /// rates are undefined, never 0: a run nobody tested has not failed its tests. Example:
    /// ```
    /// use wheelwright_core::recube::scoring::report;
    /// let row = report(Vec::new()).row(false);
    /// assert_eq!(row["spr"].value(), None);
    /// ```
    pub fn row(&self, tested: bool) -> BTreeMap<String, Score> {
        let untested = Score::Undefined {
            reason: Undefined::NoTests,
        };
        let rate = |score: Score| if tested { score } else { untested };
        let r = &self.rates;
        let mut row: BTreeMap<String, Score> = [
            ("spr", rate(r.spr)),
            ("apr", rate(r.apr)),
            ("spr_external", rate(r.spr_external)),
            ("apr_external", rate(r.apr_external)),
            ("spr_internal", rate(r.spr_internal)),
            ("apr_internal", rate(r.apr_internal)),
            ("caller_coverage", self.caller_coverage),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let instances = self.instances.len();
        if let Some(cost) = self.cost_usd.filter(|_| instances > 0) {
            row.insert(
                "cost_usd".to_owned(),
                Score::Defined {
                    value: cost / instances as f64,
                },
            );
        }
        if let Some(calls) = self.mean_model_calls {
            row.insert("turns".to_owned(), Score::Defined { value: calls });
        }
        row
    }
}

/// An instance's tests judged: one row per test of the dataset, the tallies and the rate.
struct Judgement {
    tests: Vec<TestRow>,
    all: Tally,
    external: Tally,
    internal: Tally,
    pass_rate: Score,
    tampered: Option<String>,
}

/// Judges `instance`'s tests by `verdict`; without a submitted target (`submitted` false)
/// no verdict is believed.
fn judgement(instance: &Instance, verdict: Option<&Verdict>, submitted: bool) -> Judgement {
    // A verdict on nothing submitted cannot be believed: the tests fail without it.
    let verdict = verdict.filter(|_| submitted);
    let judged = judge(&instance.manifest.tests, verdict);
    let believed = verdict.filter(|v| v.tampered.is_none());
    let tests: Vec<TestRow> = instance
        .manifest
        .tests
        .iter()
        .zip(&judged)
        .map(|(test, judged)| {
            let expected = test.expected();
            let result = believed.and_then(|v| {
                v.tests
                    .iter()
                    .find(|r| r.module == expected.module && r.name == expected.name)
            });
            TestRow {
                module: test.module.clone(),
                name: test.name.clone(),
                kind: test.kind,
                passed: judged.passed,
                outcome: result.map_or(TestOutcome::Missing, |r| r.outcome),
                excerpt: result.map(|r| r.excerpt.clone()).unwrap_or_default(),
            }
        })
        .collect();
    let tally = |kind: Option<TestKind>| {
        let of_kind = tests.iter().filter(|t| kind.is_none_or(|k| t.kind == k));
        let (passed, total) = of_kind.fold((0, 0), |(p, n), t| (p + usize::from(t.passed), n + 1));
        Tally { passed, total }
    };
    let all = tally(None);
    Judgement {
        external: tally(Some(TestKind::External)),
        internal: tally(Some(TestKind::Internal)),
        pass_rate: Score::ratio(all.passed, all.total, Undefined::NoTests).scaled(100.0),
        all,
        tests,
        tampered: verdict.and_then(|v| v.tampered.clone()),
    }
}

impl InstanceScore {
    /// This score with its tests judged again by `verdict`, what the rest of it was scored
    /// from (the trajectory, the repository) unchanged: a host scores a submission when it
    /// arrives and again as each instance's hidden tests finish, without reading the
    /// trajectory twice.
    pub fn retested(self, instance: &Instance, verdict: &Verdict) -> Self {
        let judgement = judgement(instance, Some(verdict), self.submitted);
        Self {
            tests: judgement.tests,
            all: judgement.all,
            external: judgement.external,
            internal: judgement.internal,
            pass_rate: judgement.pass_rate,
            tampered: judgement.tampered,
            ..self
        }
    }
}

/// What scoring an instance takes from its repository alone: the target masked and the
/// graph of who calls it. It is the same for every submission, so a host that scores many
/// makes it once per instance ([`InstanceBasis::of`] indexes the whole repository: most
/// of an instance's scoring time).
#[derive(Clone, Debug)]
pub struct InstanceBasis {
    masked: crate::recube::mask::Masked,
    graph: Graph,
}

impl InstanceBasis {
    /// The target as the agent sees it.
    pub fn masked(&self) -> &crate::recube::mask::Masked {
        &self.masked
    }

    /// The repository's graph with the target withheld.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The basis of `target` in `repository` (which holds the original target).
    pub fn of(repository: &Workspace, target: &str, options: &IndexOptions) -> Self {
        Self {
            masked: mask(repository.text(target).unwrap_or_default()),
            graph: Graph::build(repository, target, options),
        }
    }
}

/// Scores one instance.
pub fn score_instance(run: &InstanceRun<'_>) -> InstanceScore {
    let basis = InstanceBasis::of(run.repository, &run.instance.manifest.target, run.options);
    score_instance_on(run, &basis)
}

/// Scores one instance on its [`InstanceBasis`], made from `run.repository` beforehand.
pub fn score_instance_on(run: &InstanceRun<'_>, basis: &InstanceBasis) -> InstanceScore {
    let instance = run.instance;
    let target = &instance.manifest.target;
    let submitted = run.prediction.is_some_and(|p| p.files.contains_key(target));
    let judgement = judgement(instance, run.verdict, submitted);

    let masked = &basis.masked;
    let graph = &basis.graph;
    let callers = graph.caller_files().len();

    let mut score = InstanceScore {
        instance: instance.manifest.id.clone(),
        target: target.clone(),
        submitted,
        all: judgement.all,
        external: judgement.external,
        internal: judgement.internal,
        tests: judgement.tests,
        pass_rate: judgement.pass_rate,
        caller_coverage: Score::Undefined {
            reason: Undefined::NoShownLines,
        },
        callers,
        masked_bodies: masked.bodies.len(),
        cost_usd: None,
        model_calls: None,
        actions: None,
        trajectory_error: None,
        tampered: judgement.tampered,
    };
    let Some(text) = run.prediction.and_then(|p| p.trajectory.as_deref()) else {
        return score;
    };
    match parse_trajectory(text) {
        Ok(trajectory) => {
            // The agent saw the repository with the target masked.
            let mut seen = run.repository.clone();
            seen.insert(target, masked.text.clone());
            let options = InterpretOptions::new(Some(&seen)).with_workdir(run.workdir);
            let actions = interpret_trajectory(&trajectory, &options);
            let (summary, shown) =
                TrajectorySummary::with_shown(&actions, trajectory.rejected_responses);
            score.caller_coverage = caller_coverage(graph, &shown).scaled(100.0);
            score.actions = Some(summary.actions);
            score.cost_usd = trajectory.cost_usd;
            score.model_calls = trajectory.model_calls;
        }
        Err(e) => score.trajectory_error = Some(e.to_string()),
    }
    score
}

/// The run's scores from its instances' ([`score_instance`]), in dataset order.
pub fn report(instances: Vec<InstanceScore>) -> RecubeReport {
    let judged: Vec<Vec<crate::recube::metrics::Judged>> = instances
        .iter()
        .map(|i| {
            i.tests
                .iter()
                .map(|t| crate::recube::metrics::Judged {
                    kind: t.kind,
                    passed: t.passed,
                })
                .collect()
        })
        .collect();
    let rates = PassRates::of(&judged);
    // Pairs of (caller coverage, pass rate) where both are defined.
    let (coverage, pass): (Vec<f64>, Vec<f64>) = instances
        .iter()
        .filter_map(|i| Some((i.caller_coverage.value()?, i.pass_rate.value()?)))
        .unzip();
    let (kept_coverage, kept_pass): (Vec<f64>, Vec<f64>) = coverage
        .iter()
        .zip(&pass)
        .filter(|&(_, &p)| correlated(p))
        .unzip();
    let correlations = CoverageCorrelations {
        kendall: kendall_tau(&kept_coverage, &kept_pass),
        spearman: spearman_rho(&kept_coverage, &kept_pass),
        by_quartile: by_quartile(&coverage, &pass),
    };
    let defined: Vec<f64> = instances
        .iter()
        .filter_map(|i| i.caller_coverage.value())
        .collect();
    let caller_coverage = if defined.is_empty() {
        Score::Undefined {
            reason: Undefined::NoCallers,
        }
    } else {
        Score::Defined {
            value: defined.iter().sum::<f64>() / defined.len() as f64,
        }
    };
    let cost_usd = instances
        .iter()
        .map(|i| i.cost_usd)
        .sum::<Option<f64>>()
        .filter(|_| !instances.is_empty());
    let calls: Vec<u64> = instances.iter().filter_map(|i| i.model_calls).collect();
    let mean_model_calls =
        (!calls.is_empty()).then(|| calls.iter().sum::<u64>() as f64 / calls.len() as f64);
    RecubeReport {
        instances,
        rates,
        correlations,
        caller_coverage,
        cost_usd,
        mean_model_calls,
    }
}
