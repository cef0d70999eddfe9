//! One turn's score: reuse, recall and re-implementation per target, correctness, counts.
//!
//! This is the per-turn entry point of RepoReuse (spec section 1). It resolves the targets
//! in W_{t-1}, analyses the submission, and applies each metric module. Example: a turn
//! with repo targets `[pkg.a.f, pkg.a.g]` whose submission imports and calls `f` only has
//! `repo.reuse = 0.5`; if it also calls 80% of `g`'s callees, `g` is re-implemented.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::python::index::{Fuel, RepoIndex, Resolution};
use crate::python::references::{SubmissionAnalysis, analyse_submission};
use crate::workspace::ShownLines;

use super::pass_rate::{TestResults, pass_rate};
use super::recall::{is_recalled_with, recall};
use super::reimplementation::{Reimplementation, reimplementation};
use super::resolve_rate::resolve;
use super::reuse_rate::reuse_rate;
use super::{Score, TargetKind, Undefined};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SubmissionStatus {
    Present,
    Missing,
}

/// One target's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetOutcome {
    /// As listed by the dataset.
    pub target: String,
    /// Its definition after following re-exports; `None`: names no definition (unknown).
    pub canonical: Option<String>,
    pub referenced: bool,
    /// `None` when no shown lines were given.
    pub recalled: Option<bool>,
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

/// Scores one turn.
pub fn score_turn(input: &TurnInput<'_>) -> TurnScore {
    let analysis = analyse_submission(input.workspace, input.path, input.submission);
    score_analysed(input, analysis, &Fuel::default())
}

/// [`score_turn`] with the submission already analysed against `input.workspace` (the
/// caller reuses the parse for the index of later turns); the targets' resolution draws on
/// the turn's `fuel`.
pub(crate) fn score_analysed(
    input: &TurnInput<'_>,
    analysis: SubmissionAnalysis,
    fuel: &Fuel,
) -> TurnScore {
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
            let recalled = input
                .shown
                .map(|shown| is_recalled_with(index, canonical.as_deref(), shown, fuel));
            let evidence = canonical.as_deref().filter(|_| !referenced).map(|c| {
                let callees = crate::python::index::non_builtin(index.callees(c, fuel));
                reimplementation(&callees, calls)
            });
            TargetOutcome {
                target: target.clone(),
                canonical,
                referenced,
                recalled,
                reimplementation: evidence,
            }
        })
        .collect();
    KindScore {
        kind,
        reuse: reuse_rate(&outcomes),
        recall: recall(&outcomes, input.shown.is_some()),
        targets: outcomes,
    }
}
