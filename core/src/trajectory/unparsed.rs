//! The report of unparsed actions of a run: how many actions were not understood, and why.
//!
//! Spec section 1: an action that is not understood is kept as an action that showed
//! nothing and counted in this report, never silently dropped. The report groups such
//! actions by [`NotUnderstood`] reason, most frequent first, with a few examples of each
//! (the turn, the action's position, its command), so a reader can tell whether a run's
//! recall is lower for its agent's habits (`ctags`, `for` loops) or for the scorer's gaps.
//! Example: a run whose agent runs `ctags` ten times has one reason, `ctags`, of
//! count 10, with three examples.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ActionRecord, NotUnderstood};

/// Examples kept per reason.
pub const EXAMPLES_PER_REASON: usize = 3;

/// Reasons listed; the rest are counted in [`UnparsedReport::other_reasons`]. Unknown
/// program names come from the trajectory, so a hostile run could otherwise list one per
/// action.
pub const MAX_REASONS: usize = 50;

/// The longest command an example keeps, in bytes.
pub const MAX_EXAMPLE_COMMAND: usize = 200;

/// A run's (or one trajectory's) unparsed actions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnparsedReport {
    /// Actions read, over every trajectory.
    pub actions: usize,
    /// Of those, the actions (or parts of them) not understood.
    pub not_understood: usize,
    /// Model responses the harness rejected (they never ran, so they are no actions).
    pub rejected_responses: usize,
    /// Why, most frequent first (ties in the reasons' order).
    pub reasons: Vec<ReasonCount>,
    /// Actions whose reason is not listed (beyond [`MAX_REASONS`] reasons).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub other_reasons: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One reason and the actions it stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasonCount {
    #[serde(flatten)]
    pub reason: NotUnderstood,
    /// The reason in words.
    pub message: String,
    pub count: usize,
    pub examples: Vec<UnparsedExample>,
}

/// An action not understood, and where it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnparsedExample {
    /// The turn it belongs to (`<chain>/turn-<t>` for RepoReuse), empty for one trajectory.
    pub turn: String,
    /// Its 1-based position in the turn's trajectory.
    pub action: usize,
    /// Its command, cut at [`MAX_EXAMPLE_COMMAND`] bytes.
    pub command: String,
}

/// Collects a report over many trajectories; [`UnparsedTally::finish`] gives it.
#[derive(Debug, Default)]
pub struct UnparsedTally {
    actions: usize,
    rejected_responses: usize,
    by_reason: BTreeMap<NotUnderstood, (usize, Vec<UnparsedExample>)>,
}

impl UnparsedTally {
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts the actions of one trajectory (of turn `turn`).
    pub fn add(&mut self, turn: &str, actions: &[ActionRecord], rejected_responses: usize) {
        self.actions += actions.len();
        self.rejected_responses += rejected_responses;
        for action in actions {
            let Some(reason) = &action.not_understood else {
                continue;
            };
            let (count, examples) = self.by_reason.entry(reason.clone()).or_default();
            *count += 1;
            if examples.len() < EXAMPLES_PER_REASON {
                examples.push(UnparsedExample {
                    turn: turn.to_owned(),
                    action: action.index,
                    command: cut(&action.command, MAX_EXAMPLE_COMMAND),
                });
            }
        }
    }

    pub fn finish(self) -> UnparsedReport {
        let not_understood = self.by_reason.values().map(|(n, _)| n).sum();
        let mut reasons: Vec<ReasonCount> = self
            .by_reason
            .into_iter()
            .map(|(reason, (count, examples))| ReasonCount {
                message: reason.to_string(),
                reason,
                count,
                examples,
            })
            .collect();
        // Stable: equal counts keep the reasons' own order.
        reasons.sort_by_key(|r| std::cmp::Reverse(r.count));
        let other_reasons = reasons
            .get(MAX_REASONS..)
            .map_or(0, |rest| rest.iter().map(|r| r.count).sum());
        reasons.truncate(MAX_REASONS);
        UnparsedReport {
            actions: self.actions,
            not_understood,
            rejected_responses: self.rejected_responses,
            reasons,
            other_reasons,
        }
    }
}

/// `text` cut at `max` bytes on a character boundary, `…` marking the cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
