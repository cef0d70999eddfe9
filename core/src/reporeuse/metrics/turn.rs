//! One turn's score: reuse, recall and re-implementation per target, correctness, counts.
//!
//! This is the per-turn entry point of RepoReuse (spec section 1). It resolves the targets
//! in W_{t-1}, analyses the submission, and applies each metric module. Example: a turn
//! with repo targets `[pkg.a.f, pkg.a.g]` whose submission imports and calls `f` only has
//! `repo.reuse = 0.5`; if it also calls 80% of `g`'s callees, `g` is re-implemented.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::budget::{Cancel, Cancelled};
use crate::python::fuel::Fuel;
use crate::python::index::{RepoIndex, Resolution};
use crate::python::references::{SubmissionAnalysis, UseSite, analyse_parsed, analyse_submission};
use crate::python::scope::{self, FileAnalysis};
use crate::workspace::ShownLines;

use super::pass_rate::pass_rate;
use super::recall::{Definition, definition_of, recall};
use super::reimplementation::{Reimplementation, reimplementation};
use super::resolve_rate::resolve;
use super::reuse_rate::reuse_rate;
use super::{Score, TargetKind, Undefined};
use crate::hidden_tests::TestResults;

/// Everything one turn is scored from.
#[derive(Clone, Copy, Debug)]
pub struct TurnInput<'a> {
    /// W_{t-1}: the repository plus the agent's earlier files, indexed. Build it once per
    /// chain with [`RepoIndex::build`] and add each turn's file with [`RepoIndex::insert`].
    pub workspace: &'a RepoIndex,
    /// The file at the required path; `None` when there is none (D8).
    pub submission: Option<&'a str>,
    /// The required path (gives the module name for relative imports).
    pub path: &'a str,
    /// Qualified names of the repo targets.
    pub repo_targets: &'a [String],
    /// Qualified names of the self targets.
    pub self_targets: &'a [String],
    /// Lines shown by the turn's read actions; `None` without a trajectory.
    pub shown: Option<&'a ShownLines>,
    pub tests: Option<TestResults>,
    /// Descriptive counts from the trajectory (spec D14), aggregated as given.
    pub files: Option<u32>,
    pub lines: Option<u32>,
}

/// Whether the required file was there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubmissionStatus {
    Present,
    Missing,
}

impl SubmissionStatus {
    /// Its word, as the JSON writes it (`present`, `missing`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Present => "present",
            Self::Missing => "missing",
        }
    }
}

/// One target's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetOutcome {
    /// As listed by the dataset.
    pub target: String,
    /// Its definition after following re-exports; `None`: names no definition (unknown).
    pub canonical: Option<String>,
    pub referenced: bool,
    /// Where the submission uses it (the first few uses, with the import binding each):
    /// empty when it is not referenced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uses: Vec<UseSite>,
    /// `None` when no shown lines were given.
    pub recalled: Option<bool>,
    /// Where it is defined, the spans recall looks for; given with shown lines only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition: Option<Definition>,
    /// The actions (1-based, in trajectory order) whose shown lines hit the definition;
    /// filled in by the run scorer, which has the actions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recalled_by: Vec<usize>,
    /// Evidence; `None` for referenced and unknown targets, which are never re-implemented.
    pub reimplementation: Option<Reimplementation>,
}

impl TargetOutcome {
    pub fn reimplemented(&self) -> bool {
        self.reimplementation
            .as_ref()
            .is_some_and(|r| r.reimplemented)
    }
}

/// The outcomes and rates of one target kind.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KindScore {
    pub kind: TargetKind,
    pub targets: Vec<TargetOutcome>,
    pub reuse: Score,
    pub recall: Score,
}

/// A scored turn.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurnScore {
    pub submission: SubmissionStatus,
    pub syntax_errors: bool,
    pub repo: KindScore,
    #[serde(rename = "self")]
    pub self_targets: KindScore,
    /// Some target of either kind was re-implemented (feeds C_dup).
    pub reimplemented: bool,
    pub pass: Score,
    pub resolve: Score,
    pub files: Score,
    pub lines: Score,
    /// Distinct callee identities of the submission (D5), builtins included.
    pub callees: Vec<String>,
}

/// A scored turn with what the run scorer needs next: the submission's parse, for W_t, and
/// which budgets the turn hit, for its diagnostics.
#[derive(Debug)]
pub struct ScoredTurn {
    pub score: TurnScore,
    /// The submission as parsed for scoring; `None` without a submission.
    pub parsed: Option<ParsedSubmission>,
    /// The submission was over the per-file budget ([`crate::budget::MAX_PARSE_STEPS`]), so it
    /// was scored as a file that references and calls nothing.
    pub over_budget: bool,
    /// Resolving the turn's names needed more than
    /// [`MAX_RESOLUTION_STEPS`](crate::python::index::MAX_RESOLUTION_STEPS) lookups; the rest
    /// were not followed.
    pub fuel_exhausted: bool,
}

/// A submission parsed once, so that adding it to the index of later turns does not parse it
/// again.
#[derive(Debug)]
pub struct ParsedSubmission {
    path: String,
    /// `None` when its path names no module (it is then not indexed).
    module: Option<String>,
    analysis: FileAnalysis,
}

impl ParsedSubmission {
    /// Adds the submission to `index` (W_{t-1} becomes W_t), replacing the file at its path.
    pub fn insert_into(self, index: &mut RepoIndex) {
        if let Some(module) = self.module {
            index.insert_analysed(&self.path, module, self.analysis);
        }
    }
}

/// Scores one turn.
pub fn score_turn(input: &TurnInput<'_>) -> TurnScore {
    match score_turn_with(input, &Cancel::never()) {
        Ok(scored) => scored.score,
        Err(Cancelled) => unreachable!("a Cancel::never() is never raised"),
    }
}

/// [`score_turn`] that also returns the submission's parse and the budgets it hit, and stops
/// with [`Cancelled`] soon after `cancel` is raised. The only way into the turn's metrics:
/// every resolution the turn makes, of the submission and of its targets, draws on one
/// [`Fuel`] (see `MAX_RESOLUTION_STEPS`).
pub fn score_turn_with(input: &TurnInput<'_>, cancel: &Cancel) -> Result<ScoredTurn, Cancelled> {
    let index = input.workspace;
    let fuel = Fuel::default();
    let module = index.module_of_path(input.path);
    let parsed = match input.submission {
        Some(text) => {
            let (name, package) = module.clone().unwrap_or_default();
            Some(scope::analyse_with(text, &name, package, cancel)?)
        }
        None => None,
    };
    let analysis = match &parsed {
        Some(parsed) => {
            let name = module.as_ref().map(|(n, _)| n.clone()).unwrap_or_default();
            analyse_parsed(index, name, parsed, &fuel, cancel)?
        }
        None => analyse_submission(index, input.path, None),
    };
    let over_budget = parsed.as_ref().is_some_and(|p| p.over_budget);
    let score = score_analysed(input, analysis, &fuel);
    Ok(ScoredTurn {
        score,
        parsed: parsed.map(|analysis| ParsedSubmission {
            path: crate::workspace::normalise_path(input.path),
            module: module.map(|(name, _)| name),
            analysis,
        }),
        over_budget,
        fuel_exhausted: fuel.exhausted(),
    })
}

/// The metrics of a turn whose submission is analysed against `input.workspace`; the targets'
/// resolution draws on the turn's `fuel`.
fn score_analysed(input: &TurnInput<'_>, analysis: SubmissionAnalysis, fuel: &Fuel) -> TurnScore {
    let calls: BTreeSet<String> =
        crate::python::index::non_builtin(analysis.callees.iter().cloned());
    let repo = score_kind(
        input,
        &analysis,
        &calls,
        TargetKind::Repo,
        input.repo_targets,
        fuel,
    );
    let self_targets = score_kind(
        input,
        &analysis,
        &calls,
        TargetKind::SelfTarget,
        input.self_targets,
        fuel,
    );
    let reimplemented = repo
        .targets
        .iter()
        .chain(&self_targets.targets)
        .any(TargetOutcome::reimplemented);
    let count = |c: Option<u32>| match c {
        Some(n) => Score::Defined { value: n.into() },
        None => Score::Undefined {
            reason: Undefined::NoCount,
        },
    };
    TurnScore {
        submission: if analysis.missing {
            SubmissionStatus::Missing
        } else {
            SubmissionStatus::Present
        },
        syntax_errors: analysis.syntax_errors,
        repo,
        self_targets,
        reimplemented,
        pass: pass_rate(input.tests, analysis.missing),
        resolve: resolve(input.tests, analysis.missing),
        files: count(input.files),
        lines: count(input.lines),
        callees: analysis.callees.into_iter().collect(),
    }
}

fn score_kind(
    input: &TurnInput<'_>,
    analysis: &SubmissionAnalysis,
    calls: &BTreeSet<String>,
    kind: TargetKind,
    targets: &[String],
    fuel: &Fuel,
) -> KindScore {
    let index = input.workspace;
    let mut seen = BTreeSet::new();
    let outcomes: Vec<TargetOutcome> = targets
        .iter()
        .filter(|t| seen.insert(t.as_str()))
        .map(|target| {
            let canonical = match index.resolve_with(target, fuel) {
                Resolution::Definition { canonical, .. } => Some(canonical),
                _ => None,
            };
            let referenced = canonical.as_deref().is_some_and(|c| analysis.references(c));
            let uses = canonical
                .as_deref()
                .map(|c| analysis.uses(c).to_vec())
                .unwrap_or_default();
            // Only with shown lines: the spans draw on the turn's fuel, as recall always has.
            let definition = input
                .shown
                .and(canonical.as_deref())
                .and_then(|c| definition_of(index, c, fuel));
            let recalled = input
                .shown
                .map(|shown| definition.as_ref().is_some_and(|d| d.shown_in(shown)));
            let evidence = canonical.as_deref().filter(|_| !referenced).map(|c| {
                let callees = crate::python::index::non_builtin(index.callees(c, fuel));
                reimplementation(&callees, calls)
            });
            TargetOutcome {
                target: target.clone(),
                canonical,
                referenced,
                uses,
                recalled,
                definition,
                recalled_by: Vec::new(),
                reimplementation: evidence,
            }
        })
        .collect();
    KindScore {
        kind,
        reuse: reuse_rate(&outcomes.iter().map(|t| t.referenced).collect::<Vec<_>>()),
        recall: recall(
            &outcomes.iter().map(|t| t.recalled).collect::<Vec<_>>(),
            input.shown.is_some(),
        ),
        targets: outcomes,
    }
}
