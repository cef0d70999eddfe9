//! Scoring a whole run against a dataset: the scorer's input types and the per-turn and overall report.
//!
//! [`score_run`] is the RepoReuse scorer behind `wheelwright score` (spec section 1). For
//! every chain of the [`Dataset`] it indexes the chain's repository (W0), then for turn t:
//! - scores the agent's file against W_{t-1} = W0 plus the agent's own files of turns
//!   1..t-1 (never reference solutions), with
//!   [`score_turn_with`], the one way into the turn's metrics;
//! - interprets the turn's trajectory, if any, against the same W_{t-1} (working directory
//!   [`Dataset::workdir`], `/testbed` by default) for the shown lines, files and lines;
//! - then adds the agent's file at the required path, so later turns see it.
//!
//! Finally [`aggregate_run`] macro-averages the chains. Per-turn rates in the report are in
//! percent, like the overall row.
//!
//! [`Dataset`] and [`Run`] are the scorer's internal input, no file formats: the dataset is
//! built from a dataset directory by
//! [`crate::reporeuse::dataset::RepoReuseDataset::to_score_dataset`], the run from a run bundle by
//! [`crate::reporeuse::bundle::RepoReuseBundle::to_run`] (with test results only from the server's own
//! test runs).
//!
//! Nothing panics on bad input. A dataset that contradicts itself is an [`InconsistentDataset`];
//! problems of the run (a chain the dataset does not have, missing turns, a trajectory
//! that cannot be read) become [`RunDiagnostic`]s and the rest is scored.
//!
//! Each repository is indexed once per run, not once per chain: a chain starts from a clone
//! of the repository's index and of its workspace (clones share the analysed modules and the
//! texts; inserting replaces, never mutates, them), so every chain sees exactly W0 plus its
//! own files, as with a fresh build, and W0 itself is only read.
//!
//! Chains are independent, so natively they are scored in parallel, on rayon's pool (as
//! many threads as cores, or `RAYON_NUM_THREADS`); the wasm32 build scores them one after
//! the other. Either way the report is the same, byte for byte: rows in the dataset's chain
//! order, each chain's diagnostics in its place, the same aggregate.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::budget::{Cancel, Cancelled};
use crate::bundle::BundleError;
use crate::hidden_tests::TestResults;
use crate::metric::Score;
use crate::python::index::{IndexOptions, MAX_RESOLUTION_STEPS, RepoIndex};
use crate::python::snapshot::{self, SnapshotError};
use crate::reporeuse::metrics::TargetKind;
use crate::reporeuse::metrics::reimplementation::Reimplementation;
use crate::reporeuse::metrics::run::{RunColumns, aggregate_run};
use crate::reporeuse::metrics::turn::{
    KindScore, ScoredTurn, SubmissionStatus, TargetOutcome, TurnInput, TurnScore, score_turn_with,
};
use crate::trajectory::{
    ActionRecord, InterpretOptions, Rejected, TrajectorySummary, UnparsedReport, UnparsedTally,
    interpret_trajectory_with, parse_trajectory, parse_trajectory_value,
};
use crate::workspace::{ShownLines, Workspace, normalise_path};

/// The working directory of the agents' shell when the dataset does not say (SWE-bench's).
pub const DEFAULT_WORKDIR: &str = "/testbed";

fn default_workdir() -> String {
    DEFAULT_WORKDIR.to_owned()
}

/// The benchmark side: repositories and task chains (the scorer's input, no file format).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dataset {
    /// Repositories (W0) by name.
    pub repositories: BTreeMap<String, Repository>,
    /// The chains, in report order.
    pub chains: Vec<ChainSpec>,
    /// The directory the agents' commands start in, where the repository is checked out.
    /// Trajectory paths are read relative to it.
    #[serde(default = "default_workdir")]
    pub workdir: String,
}

/// A repository snapshot: its files by path relative to the repository root.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repository {
    pub files: BTreeMap<String, String>,
    /// Source roots stripped from paths to name modules (`["src"]` for a `src/` layout).
    #[serde(default)]
    pub source_roots: Vec<String>,
}

/// One task chain of the dataset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainSpec {
    pub id: String,
    /// Name of its repository in [`Dataset::repositories`].
    pub repository: String,
    /// Turns 1..T in order.
    pub turns: Vec<TurnSpec>,
}

/// One turn of a chain: where the agent must write, and the reuse targets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnSpec {
    /// The required path of the new module, relative to the repository root.
    pub path: String,
    /// Qualified names of functions or methods of W0.
    #[serde(default)]
    pub repo_targets: Vec<String>,
    /// Qualified names of functions earlier turns were required to define.
    #[serde(default)]
    pub self_targets: Vec<String>,
}

/// The agent side: what it wrote and did, per chain.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// By chain id of the dataset.
    pub chains: BTreeMap<String, ChainRun>,
}

/// The agent's turns of one chain, in order (turn 1 first).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainRun {
    pub turns: Vec<TurnRun>,
}

/// One turn of the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnRun {
    /// The text of the file at the required path; absent or `null` when there was none.
    #[serde(default)]
    pub submission: Option<String>,
    /// The other files the agent left in the turn, by path relative to the repository
    /// root. They are not scored, but later turns see them (they are part of W_t).
    #[serde(default)]
    pub other_files: BTreeMap<String, String>,
    /// The turn's trajectory in any format [`parse_trajectory`] reads, as a JSON value or as
    /// a string holding the JSON text; absent or `null` without one.
    #[serde(default)]
    pub trajectory: Option<serde_json::Value>,
    /// Hidden-test results; absent or `null` when tests were not run.
    #[serde(default)]
    pub tests: Option<TestResults>,
}

/// How far scoring has got: reported once when the repositories are indexed (`Scoring`,
/// no turn done), after every turn, and once when aggregation starts (`Aggregating`).
/// Chains are scored in parallel, but the reports come one at a time with `turns_done`
/// counting up by one (turns of whichever chains finished them).
///
/// Core has no clock: a host that wants the time of each phase (`wheelwright score
/// --timings`) timestamps the reports where the phase changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub phase: Phase,
    pub turns_done: usize,
    pub turns_total: usize,
}

/// What the scorer is doing when it reports [`Progress`]. Indexing the repositories comes
/// first and ends with the first report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Scoring turns (the repositories are indexed).
    Scoring,
    /// Every turn is scored; the run is being aggregated.
    Aggregating,
}

/// The dataset contradicts itself; nothing was scored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InconsistentDataset {
    #[error(
        "chain {chain:?} names repository {repository:?}, which the dataset's \"repositories\" does not have; add it or fix the chain's \"repository\""
    )]
    UnknownRepository { chain: String, repository: String },
    #[error(
        "chain id {0:?} appears more than once in the dataset; give every chain a unique \"id\""
    )]
    DuplicateChain(String),
}

/// Something in the run that could not be scored as given; the rest was scored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunDiagnostic {
    pub chain: String,
    /// 1-based; `None` for the whole chain.
    pub turn: Option<usize>,
    pub message: String,
}

/// A target the turn re-implemented (spec D6), with the evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReimplementedTarget {
    pub kind: TargetKind,
    /// As the dataset lists it.
    pub target: String,
    /// Its definition after following re-exports.
    pub canonical: String,
    pub evidence: Reimplementation,
}

/// One target of a turn and what the turn did with it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetRow {
    pub kind: TargetKind,
    #[serde(flatten)]
    pub outcome: TargetOutcome,
}

/// Counts from the turn's trajectory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrajectoryCounts {
    pub actions: usize,
    /// Actions (or parts of them) that were not understood; they showed nothing (spec 1).
    pub uninterpreted: usize,
    /// Responses the harness rejected (they never ran).
    pub rejected_responses: usize,
}

/// One turn's row: rates in percent, files and lines as counts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurnRow {
    pub chain: String,
    /// 1-based.
    pub turn: usize,
    pub path: String,
    pub submission: SubmissionStatus,
    pub syntax_errors: bool,
    /// The turn's values; `c_dup` is 100 when the chain has re-implemented a target at
    /// this turn or before, else 0 (its mean over chains is C_dup(t)).
    #[serde(flatten)]
    pub scores: RunColumns<Score>,
    pub reimplemented: Vec<ReimplementedTarget>,
    /// Targets naming no definition in W_{t-1} (they never count, spec D4).
    pub unknown_targets: Vec<String>,
    /// Every target of the turn, repo targets first, with its reused (referenced),
    /// recalled and re-implemented outcome and the evidence.
    pub targets: Vec<TargetRow>,
    /// `None` without a (readable) trajectory.
    pub trajectory: Option<TrajectoryCounts>,
    /// The trajectory action by action: what each counted (kind, category, files, shown
    /// lines) or why it was not understood. Empty without a (readable) trajectory.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<ActionRecord>,
    /// Where the rejected responses were, when the format says.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<Rejected>,
}

/// The scored run: per-turn rows, the overall row and the per-turn series.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunReport {
    pub scorer_version: String,
    pub chains: usize,
    pub turns: Vec<TurnRow>,
    /// The run's table row (spec 1 "Aggregation"), rates in percent.
    pub overall: RunColumns<Score>,
    /// T1..T of each column.
    pub series: RunColumns<Vec<Score>>,
    pub diagnostics: Vec<RunDiagnostic>,
    /// The actions of every trajectory that were not understood, by reason (spec 1).
    pub unparsed: UnparsedReport,
}

impl Dataset {
    /// Checks that chain ids are unique and every chain's repository exists.
    pub fn validate(&self) -> Result<(), InconsistentDataset> {
        let mut ids = BTreeSet::new();
        for chain in &self.chains {
            if !ids.insert(chain.id.as_str()) {
                return Err(InconsistentDataset::DuplicateChain(chain.id.clone()));
            }
            if !self.repositories.contains_key(&chain.repository) {
                return Err(InconsistentDataset::UnknownRepository {
                    chain: chain.id.clone(),
                    repository: chain.repository.clone(),
                });
            }
        }
        Ok(())
    }

    /// Turns over all chains.
    pub fn turn_count(&self) -> usize {
        self.chains.iter().map(|c| c.turns.len()).sum()
    }
}

/// W0 of one repository, built once per run and only read by the chains on it.
struct Base {
    workspace: Workspace,
    index: RepoIndex,
}

/// Why [`score_run_with`] returned no report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScoreError {
    #[error(transparent)]
    Dataset(#[from] InconsistentDataset),
    #[error(transparent)]
    Cancelled(#[from] Cancelled),
    /// The bundle [`score_chains`] read turned out to be unusable.
    #[error(transparent)]
    Bundle(#[from] BundleError),
}

/// Scores `run` against `dataset`; `progress` is called after every turn.
pub fn score_run(
    dataset: &Dataset,
    run: &Run,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<RunReport, InconsistentDataset> {
    match score_run_with(dataset, run, progress, &Cancel::never()) {
        Ok(report) => Ok(report),
        Err(ScoreError::Dataset(e)) => Err(e),
        Err(ScoreError::Cancelled(_)) => unreachable!("a Cancel::never() is never raised"),
        Err(ScoreError::Bundle(_)) => unreachable!("only a streamed run reads a bundle"),
    }
}

/// [`score_run`] that stops with [`ScoreError::Cancelled`] soon after `cancel` is raised.
///
/// `progress` is called from whichever thread finished a turn, never from two at once.
pub fn score_run_with(
    dataset: &Dataset,
    run: &Run,
    progress: &mut (dyn FnMut(Progress) + Send),
    cancel: &Cancel,
) -> Result<RunReport, ScoreError> {
    PreparedDataset::new(dataset, cancel)?.score(run, progress, cancel)
}

/// A dataset ready to score runs on: checked, and W0 of each of its repositories indexed
/// once. A host that scores several runs (the server, every upload of a dataset version),
/// or one run a chain at a time (the browser, which hands the page back between chains,
/// [`ChainByChain`]), prepares the dataset once: indexing W0 is most of scoring a short run.
///
/// It borrows the dataset (`PreparedDataset<'d>`, as [`score_run`] does for one run) or
/// owns it (`PreparedDataset<'static>`, kept by a host for as long as it scores with it).
pub struct PreparedDataset<'d> {
    dataset: Cow<'d, Dataset>,
    bases: BTreeMap<String, Base>,
}

impl<'d> PreparedDataset<'d> {
    /// Checks `dataset` and indexes its repositories; stops with [`ScoreError::Cancelled`]
    /// soon after `cancel` is raised.
    pub fn new(dataset: &'d Dataset, cancel: &Cancel) -> Result<Self, ScoreError> {
        Ok(Self::with_saved_indexes(dataset, &BTreeMap::new(), cancel)?.0)
    }

    /// [`PreparedDataset::new`] that loads a repository's index from `saved` (by repository
    /// name, bytes of [`save_index`]) instead of parsing its files, where the saved index
    /// is of exactly those files and was saved by this build ([`snapshot::load`]); the
    /// others are indexed here. Also returns why each refused saved index was refused.
    ///
    /// `dataset` is borrowed (`&Dataset`) or given (`Dataset`, for a `PreparedDataset<'static>`
    /// a host keeps).
    pub fn with_saved_indexes(
        dataset: impl Into<Cow<'d, Dataset>>,
        saved: &BTreeMap<String, Vec<u8>>,
        cancel: &Cancel,
    ) -> Result<(Self, BTreeMap<String, SnapshotError>), ScoreError> {
        let dataset = dataset.into();
        dataset.validate()?;
        let mut bases: BTreeMap<String, Base> = BTreeMap::new();
        let mut refused = BTreeMap::new();
        for chain in &dataset.chains {
            let name = chain.repository.as_str();
            if bases.contains_key(name) {
                continue;
            }
            let (workspace, options) = workspace_of(&dataset.repositories[name]);
            let loaded = saved
                .get(name)
                .map(|bytes| snapshot::load(bytes, &workspace, &options));
            let index = match loaded {
                Some(Ok(index)) => index,
                Some(Err(why)) => {
                    refused.insert(name.to_owned(), why);
                    RepoIndex::build_with(&workspace, &options, cancel)?
                }
                None => RepoIndex::build_with(&workspace, &options, cancel)?,
            };
            bases.insert(name.to_owned(), Base { workspace, index });
        }
        Ok((Self { dataset, bases }, refused))
    }

    /// The dataset it scores against.
    pub fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    /// Each chain of the dataset, in order, with W0 of its repository.
    fn work(&self) -> Vec<(&ChainSpec, &Base)> {
        work_of(&self.dataset, &self.bases)
    }

    /// [`score_run_with`] on this prepared dataset: the run scored without indexing W0.
    pub fn score(
        &self,
        run: &Run,
        progress: &mut (dyn FnMut(Progress) + Send),
        cancel: &Cancel,
    ) -> Result<RunReport, ScoreError> {
        let dataset = self.dataset();
        let known: BTreeSet<&str> = dataset.chains.iter().map(|c| c.id.as_str()).collect();
        let unknown: Vec<&String> = run
            .chains
            .keys()
            .filter(|id| !known.contains(id.as_str()))
            .collect();
        let work = self.work();
        let scoring = Scoring::start(dataset, progress);
        let chains = crate::parallel::try_map(&work, |&(chain, base)| {
            scoring.chain(chain, run.chains.get(&chain.id), base, cancel)
        })?;
        Ok(scoring.finish(unknown, chains))
    }

    /// Starts scoring one run a chain at a time.
    pub fn chain_by_chain(&self) -> ChainByChain<'_, 'd> {
        let work = self.work();
        ChainByChain {
            scored: work.iter().map(|_| None).collect(),
            work,
            prepared: self,
            unknown: Vec::new(),
            seen: BTreeSet::new(),
            turns_done: 0,
        }
    }
}

/// One run scored a chain at a time, for a host that cannot hand the whole run over at
/// once (the browser gives the page back between chains, to show progress): give each of
/// the run's chains to [`ChainByChain::add`], in any order, then [`ChainByChain::finish`].
/// The report is [`score_run`]'s for the same run, byte for byte.
pub struct ChainByChain<'p, 'd> {
    prepared: &'p PreparedDataset<'d>,
    work: Vec<(&'p ChainSpec, &'p Base)>,
    /// Each chain of the dataset once scored, in the dataset's order.
    scored: Vec<Option<ScoredChain>>,
    /// The run's chains the dataset does not have.
    unknown: Vec<String>,
    seen: BTreeSet<String>,
    turns_done: usize,
}

impl ChainByChain<'_, '_> {
    /// Scores the run's chain `id`; a chain the dataset does not have is noted for the
    /// report's diagnostics, one given twice is refused.
    pub fn add(&mut self, id: &str, run: &ChainRun, cancel: &Cancel) -> Result<(), ScoreError> {
        if !self.seen.insert(id.to_owned()) {
            return Err(BundleError::entry(
                format!("chain {id}"),
                "is given twice; give each chain once",
            )
            .into());
        }
        let Some(at) = self.work.iter().position(|(chain, _)| chain.id == id) else {
            self.unknown.push(id.to_owned());
            return Ok(());
        };
        let (chain, base) = self.work[at];
        let scored = score_chain(
            self.prepared.dataset(),
            chain,
            Some(run),
            base,
            &|| {},
            cancel,
        )?;
        self.turns_done += chain.turns.len();
        self.scored[at] = Some(scored);
        Ok(())
    }

    /// Scores, as missing, the first of the dataset's chains not given yet: what
    /// [`ChainByChain::finish`] does for all of them at once, for a host that hands control
    /// back between chains (a partial run of a large dataset lacks hundreds). Call it once
    /// every chain of the run is added; `false` when no chain is left.
    pub fn add_next_missing(&mut self, cancel: &Cancel) -> Result<bool, Cancelled> {
        let Some(at) = self.scored.iter().position(Option::is_none) else {
            return Ok(false);
        };
        let (chain, base) = self.work[at];
        let scored = score_chain(self.prepared.dataset(), chain, None, base, &|| {}, cancel)?;
        self.turns_done += chain.turns.len();
        self.scored[at] = Some(scored);
        Ok(true)
    }

    /// Turns scored so far (of the chains the dataset has), and in the whole dataset.
    pub fn turns(&self) -> (usize, usize) {
        (self.turns_done, self.prepared.dataset().turn_count())
    }

    /// The report: chains never given are scored as missing.
    pub fn finish(self, cancel: &Cancel) -> Result<RunReport, Cancelled> {
        let dataset = self.prepared.dataset();
        let mut chains = Vec::with_capacity(self.work.len());
        for ((chain, base), scored) in self.work.into_iter().zip(self.scored) {
            chains.push(match scored {
                Some(scored) => scored,
                None => score_chain(dataset, chain, None, base, &|| {}, cancel)?,
            });
        }
        let mut unknown = self.unknown;
        unknown.sort();
        Ok(report_of(dataset, unknown.iter().collect(), chains))
    }
}

/// [`score_run_with`] for a run given chain by chain, as [`RepoReuseBundle::chains`] reads
/// a bundle: each chain is scored as it comes (natively on every core, while the next is
/// read) and dropped once scored, so the run is never held whole. The report is
/// [`score_run_with`]'s for the same run; chains the stream lacks are scored as missing,
/// and the stream's first error ends the scoring.
///
/// [`RepoReuseBundle::chains`]: crate::reporeuse::bundle::RepoReuseBundle::chains
pub fn score_chains(
    dataset: &Dataset,
    chains: impl Iterator<Item = Result<(String, ChainRun), BundleError>> + Send,
    progress: &mut (dyn FnMut(Progress) + Send),
    cancel: &Cancel,
) -> Result<RunReport, ScoreError> {
    PreparedDataset::new(dataset, cancel)?.score_chains(chains, progress, cancel)
}

impl PreparedDataset<'_> {
    /// [`score_chains`] on this prepared dataset: the run scored as it is read, without
    /// indexing W0.
    pub fn score_chains(
        &self,
        chains: impl Iterator<Item = Result<(String, ChainRun), BundleError>> + Send,
        progress: &mut (dyn FnMut(Progress) + Send),
        cancel: &Cancel,
    ) -> Result<RunReport, ScoreError> {
        let dataset = self.dataset();
        let work = self.work();
        let position: BTreeMap<&str, usize> = work
            .iter()
            .enumerate()
            .map(|(at, (chain, _))| (chain.id.as_str(), at))
            .collect();
        let scoring = Scoring::start(dataset, progress);
        // Read one at a time (rayon's bridge locks the stream), so the checks are in order.
        let mut seen = BTreeSet::new();
        let given = chains.map(move |chain| -> Result<_, BundleError> {
            let (id, run) = chain?;
            if !seen.insert(id.clone()) {
                return Err(BundleError::entry(
                    format!("chain {id}"),
                    "is given twice; give each chain once",
                ));
            }
            Ok((position.get(id.as_str()).copied(), id, run))
        });
        let streamed =
            crate::parallel::try_map_unordered(given, |given| -> Result<_, ScoreError> {
                let (at, id, run) = given?;
                let Some(at) = at else {
                    return Ok(Err(id));
                };
                let (chain, base) = work[at];
                Ok(Ok((at, scoring.chain(chain, Some(&run), base, cancel)?)))
            })?;
        let mut unknown = Vec::new();
        let mut scored: Vec<Option<ScoredChain>> = work.iter().map(|_| None).collect();
        for chain in streamed {
            match chain {
                Ok((at, chain)) => scored[at] = Some(chain),
                Err(id) => unknown.push(id),
            }
        }
        unknown.sort();
        let missing: Vec<usize> = (0..work.len()).filter(|&at| scored[at].is_none()).collect();
        let missed = crate::parallel::try_map(&missing, |&at| {
            let (chain, base) = work[at];
            scoring.chain(chain, None, base, cancel)
        })?;
        for (at, chain) in missing.into_iter().zip(missed) {
            scored[at] = Some(chain);
        }
        let chains = scored.into_iter().flatten().collect();
        Ok(scoring.finish(unknown.iter().collect(), chains))
    }
}

/// W0 of every repository the dataset's chains are on.
impl<'d> From<&'d Dataset> for Cow<'d, Dataset> {
    fn from(dataset: &'d Dataset) -> Self {
        Cow::Borrowed(dataset)
    }
}

impl From<Dataset> for Cow<'_, Dataset> {
    fn from(dataset: Dataset) -> Self {
        Cow::Owned(dataset)
    }
}

/// Each chain of the dataset, in order, with W0 of its repository.
fn work_of<'d, 'b>(
    dataset: &'d Dataset,
    bases: &'b BTreeMap<String, Base>,
) -> Vec<(&'d ChainSpec, &'b Base)> {
    // `validate` made sure every chain's repository exists.
    dataset
        .chains
        .iter()
        .filter_map(|chain| Some((chain, bases.get(chain.repository.as_str())?)))
        .collect()
}

/// One run's scoring under way: its progress, counted up across the chains as their turns
/// are done (on whichever thread), and the assembly of the report.
struct Scoring<'d, 'p> {
    dataset: &'d Dataset,
    turns_total: usize,
    /// One lock around the count and the call: reports come one at a time, counting up.
    reporter: Mutex<(usize, &'p mut (dyn FnMut(Progress) + Send))>,
}

impl<'d, 'p> Scoring<'d, 'p> {
    fn start(dataset: &'d Dataset, progress: &'p mut (dyn FnMut(Progress) + Send)) -> Self {
        let turns_total = dataset.turn_count();
        progress(Progress {
            phase: Phase::Scoring,
            turns_done: 0,
            turns_total,
        });
        Self {
            dataset,
            turns_total,
            reporter: Mutex::new((0, progress)),
        }
    }

    fn turn_done(&self) {
        let mut guard = self.reporter.lock().unwrap_or_else(PoisonError::into_inner);
        let (done, report) = &mut *guard;
        *done += 1;
        report(Progress {
            phase: Phase::Scoring,
            turns_done: *done,
            turns_total: self.turns_total,
        });
    }

    fn chain(
        &self,
        chain: &ChainSpec,
        run: Option<&ChainRun>,
        base: &Base,
        cancel: &Cancel,
    ) -> Result<ScoredChain, Cancelled> {
        score_chain(self.dataset, chain, run, base, &|| self.turn_done(), cancel)
    }

    /// The report of the dataset's `chains`, scored in its order; `unknown` are the run's
    /// chains the dataset does not have, sorted.
    fn finish(self, unknown: Vec<&String>, chains: Vec<ScoredChain>) -> RunReport {
        let (_, progress) = self
            .reporter
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        progress(Progress {
            phase: Phase::Aggregating,
            turns_done: self.turns_total,
            turns_total: self.turns_total,
        });
        report_of(self.dataset, unknown, chains)
    }
}

/// The report of `dataset`'s `chains`, scored in its order; `unknown` are the run's chains
/// the dataset does not have, sorted.
fn report_of(dataset: &Dataset, unknown: Vec<&String>, chains: Vec<ScoredChain>) -> RunReport {
    let mut diagnostics: Vec<RunDiagnostic> = unknown
        .into_iter()
        .map(|id| RunDiagnostic {
            chain: id.clone(),
            turn: None,
            message: "the run has this chain but the dataset does not; it was ignored (check the chain id against the dataset)".to_owned(),
        })
        .collect();
    let mut rows = Vec::with_capacity(dataset.turn_count());
    let mut scored: Vec<Vec<TurnScore>> = Vec::with_capacity(chains.len());
    let mut unparsed = UnparsedTally::new();
    for chain in chains {
        diagnostics.extend(chain.diagnostics);
        for row in &chain.rows {
            let rejected = row.trajectory.map_or(0, |t| t.rejected_responses);
            let turn = format!("{}/turn-{}", row.chain, row.turn);
            unparsed.add(&turn, &row.actions, rejected);
        }
        rows.extend(chain.rows);
        scored.push(chain.scores);
    }
    let aggregate = aggregate_run(&scored);
    RunReport {
        scorer_version: crate::SCORER_VERSION.to_owned(),
        chains: dataset.chains.len(),
        turns: rows,
        overall: aggregate.row,
        series: aggregate.series,
        diagnostics,
        unparsed: unparsed.finish(),
    }
}

/// A repository's files as a workspace, and how its paths name modules.
fn workspace_of(repository: &Repository) -> (Workspace, IndexOptions) {
    let mut workspace = Workspace::new();
    for (path, text) in &repository.files {
        workspace.insert(path, text.as_str());
    }
    let options = IndexOptions {
        source_roots: repository.source_roots.clone(),
    };
    (workspace, options)
}

/// The index of `repository` saved as bytes ([`snapshot::save`]), for a host that prepares
/// the dataset elsewhere ([`PreparedDataset::with_saved_indexes`]: the server saves it, the
/// browser loads it).
pub fn save_index(repository: &Repository, cancel: &Cancel) -> Result<Vec<u8>, Cancelled> {
    let (workspace, options) = workspace_of(repository);
    snapshot::save_with(&workspace, &options, cancel)
}

/// What a turn's trajectory gave.
struct Reading {
    shown: ShownLines,
    actions: Vec<ActionRecord>,
    rejected: Vec<Rejected>,
    files: u32,
    lines: u32,
    counts: TrajectoryCounts,
}

/// A turn's trajectory read and interpreted; the inner error says why it could not be read.
fn read_trajectory(
    value: &serde_json::Value,
    workspace: &Workspace,
    workdir: &str,
    cancel: &Cancel,
) -> Result<Result<Reading, String>, Cancelled> {
    let trajectory = match match value {
        serde_json::Value::String(text) => parse_trajectory(text),
        other => parse_trajectory_value(other),
    } {
        Ok(trajectory) => trajectory,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let options = InterpretOptions::new(Some(workspace)).with_workdir(workdir);
    let actions = interpret_trajectory_with(&trajectory, &options, cancel)?;
    let (summary, shown) = TrajectorySummary::with_shown(&actions, trajectory.rejected_responses);
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Ok(Ok(Reading {
        shown,
        actions: ActionRecord::all(&actions),
        rejected: trajectory.rejected,
        files: count(summary.files),
        lines: count(summary.lines),
        counts: TrajectoryCounts {
            actions: summary.actions,
            uninterpreted: summary.uninterpreted,
            rejected_responses: summary.rejected_responses,
        },
    }))
}

/// One chain's rows, turn scores and diagnostics (in the order the sequential scorer
/// gave them: the chain's own first, then its turns').
struct ScoredChain {
    rows: Vec<TurnRow>,
    scores: Vec<TurnScore>,
    diagnostics: Vec<RunDiagnostic>,
}

/// Scores one chain on its own clone of W0 (`base` is only read); `turn_done` is called
/// after each turn.
fn score_chain(
    dataset: &Dataset,
    chain: &ChainSpec,
    chain_run: Option<&ChainRun>,
    base: &Base,
    turn_done: &(dyn Fn() + Sync),
    cancel: &Cancel,
) -> Result<ScoredChain, Cancelled> {
    let mut diagnostics = Vec::new();
    let empty = ChainRun::default();
    let present = chain_run.is_some();
    let chain_run = chain_run.unwrap_or_else(|| {
        diagnostics.push(RunDiagnostic {
            chain: chain.id.clone(),
            turn: None,
            message:
                "the run has no entry for this chain; its turns were scored as missing submissions"
                    .to_owned(),
        });
        &empty
    });
    let given = chain_run.turns.len();
    if present && given < chain.turns.len() {
        diagnostics.push(RunDiagnostic {
            chain: chain.id.clone(),
            turn: Some(given + 1),
            message: format!(
                "the run stops after turn {given} of {}; the later turns were scored as missing submissions",
                chain.turns.len()
            ),
        });
    }
    if given > chain.turns.len() {
        diagnostics.push(RunDiagnostic {
            chain: chain.id.clone(),
            turn: None,
            message: format!(
                "the run has {} turns for this chain but the dataset has {}; the extra turns were ignored",
                given,
                chain.turns.len()
            ),
        });
    }
    let mut index = base.index.clone();
    let mut workspace = base.workspace.clone();
    let mut rows = Vec::with_capacity(chain.turns.len());
    let mut scores = Vec::with_capacity(chain.turns.len());
    let mut duplicated = false;
    let missing_turn = TurnRun::default();
    for (i, spec) in chain.turns.iter().enumerate() {
        cancel.check()?;
        let turn = i + 1;
        let turn_run = chain_run.turns.get(i).unwrap_or(&missing_turn);
        let reading = match &turn_run.trajectory {
            None => None,
            Some(value) => match read_trajectory(value, &workspace, &dataset.workdir, cancel)? {
                Ok(reading) => Some(reading),
                Err(message) => {
                    diagnostics.push(RunDiagnostic {
                        chain: chain.id.clone(),
                        turn: Some(turn),
                        message: format!(
                            "{message}; the turn was scored without its trajectory (recall, files and lines undefined)"
                        ),
                    });
                    None
                }
            },
        };
        let path = normalise_path(&spec.path);
        let input = TurnInput {
            workspace: &index,
            submission: turn_run.submission.as_deref(),
            path: &path,
            repo_targets: &spec.repo_targets,
            self_targets: &spec.self_targets,
            shown: reading.as_ref().map(|r| &r.shown),
            tests: turn_run.tests,
            files: reading.as_ref().map(|r| r.files),
            lines: reading.as_ref().map(|r| r.lines),
        };
        let ScoredTurn {
            score,
            parsed,
            over_budget,
            fuel_exhausted,
        } = score_turn_with(&input, cancel)?;
        if over_budget {
            diagnostics.push(RunDiagnostic {
                chain: chain.id.clone(),
                turn: Some(turn),
                message: format!(
                    "{path} is too large to analyse (parsing it takes more than {} steps, the limit per file); it was scored as a file that references and calls nothing",
                    crate::budget::MAX_PARSE_STEPS
                ),
            });
        }
        if fuel_exhausted {
            diagnostics.push(RunDiagnostic {
                chain: chain.id.clone(),
                turn: Some(turn),
                message: format!(
                    "resolving the names of this turn needed more than {MAX_RESOLUTION_STEPS} lookups (imports, star imports and base classes that fan out); the rest were not followed, so some references may be missing"
                ),
            });
        }
        duplicated |= score.reimplemented;
        rows.push(turn_row(chain, turn, &path, &score, duplicated, reading));
        scores.push(score);
        for (other, text) in &turn_run.other_files {
            let other = normalise_path(other);
            if other == path {
                continue;
            }
            if other.ends_with(".py") {
                index.insert_with(&other, text, cancel)?;
                if index.over_budget(&other) == Some(true) {
                    diagnostics.push(RunDiagnostic {
                        chain: chain.id.clone(),
                        turn: Some(turn),
                        message: format!(
                            "{other} is too large to analyse (parsing it takes more than {} steps, the limit per file); later turns see it as an empty module",
                            crate::budget::MAX_PARSE_STEPS
                        ),
                    });
                }
            }
            workspace.insert(&other, text.as_str());
        }
        if let Some(text) = &turn_run.submission {
            // The submission was parsed once, for scoring; W_t reuses that parse.
            if let Some(parsed) = parsed {
                parsed.insert_into(&mut index);
            }
            workspace.insert(&path, text.as_str());
        }
        turn_done();
    }
    Ok(ScoredChain {
        rows,
        scores,
        diagnostics,
    })
}

fn turn_row(
    chain: &ChainSpec,
    turn: usize,
    path: &str,
    score: &TurnScore,
    duplicated: bool,
    reading: Option<Reading>,
) -> TurnRow {
    let percent = |s: Score| s.scaled(100.0);
    let (counts, actions, rejected) = match reading {
        Some(r) => (Some(r.counts), r.actions, r.rejected),
        None => (None, Vec::new(), Vec::new()),
    };
    let mut reimplemented = Vec::new();
    let mut unknown_targets = Vec::new();
    for kind in [&score.repo, &score.self_targets] {
        collect_targets(kind, &mut reimplemented, &mut unknown_targets);
    }
    TurnRow {
        chain: chain.id.clone(),
        turn,
        path: path.to_owned(),
        submission: score.submission,
        syntax_errors: score.syntax_errors,
        scores: RunColumns {
            reuse_repo: percent(score.repo.reuse),
            reuse_self: percent(score.self_targets.reuse),
            recall_repo: percent(score.repo.recall),
            recall_self: percent(score.self_targets.recall),
            files: score.files,
            lines: score.lines,
            resolve: percent(score.resolve),
            pass: percent(score.pass),
            c_dup: Score::Defined {
                value: if duplicated { 100.0 } else { 0.0 },
            },
        },
        reimplemented,
        unknown_targets,
        targets: [&score.repo, &score.self_targets]
            .into_iter()
            .flat_map(|kind| {
                kind.targets.iter().map(|outcome| TargetRow {
                    kind: kind.kind,
                    outcome: with_recall_evidence(outcome, &actions),
                })
            })
            .collect(),
        trajectory: counts,
        rejected,
        actions,
    }
}

/// `outcome` with the actions whose shown lines hit its definition (what made it recalled).
fn with_recall_evidence(outcome: &TargetOutcome, actions: &[ActionRecord]) -> TargetOutcome {
    let mut outcome = outcome.clone();
    if outcome.recalled == Some(true)
        && let Some(definition) = &outcome.definition
    {
        outcome.recalled_by = actions
            .iter()
            .filter(|a| definition.shown_in(&a.shown))
            .map(|a| a.index)
            .collect();
    }
    outcome
}

fn collect_targets(
    kind: &KindScore,
    reimplemented: &mut Vec<ReimplementedTarget>,
    unknown: &mut Vec<String>,
) {
    for outcome in &kind.targets {
        match (&outcome.canonical, &outcome.reimplementation) {
            (None, _) => unknown.push(outcome.target.clone()),
            (Some(canonical), Some(evidence)) if evidence.reimplemented => {
                reimplemented.push(ReimplementedTarget {
                    kind: kind.kind,
                    target: outcome.target.clone(),
                    canonical: canonical.clone(),
                    evidence: evidence.clone(),
                });
            }
            _ => {}
        }
    }
}
