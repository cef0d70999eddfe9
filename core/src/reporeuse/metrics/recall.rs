//! Recall per kind: the share of a turn's targets whose definition the agent was shown.
//!
//! Measures whether the agent looked at the code it could reuse (spec 1, "Recall"): a target
//! is recalled when the turn's read actions showed at least one line of any of its D1 spans
//! in the file that defines it in W_{t-1}. Undefined without targets or without shown lines
//! (no trajectory). Example: `pkg.io.load` spans lines 10–14 of `pkg/io.py`; the agent ran
//! `sed -n '1,12p' pkg/io.py`: recalled.

use crate::python::index::{Fuel, RepoIndex};
use crate::workspace::ShownLines;

use super::turn::TargetOutcome;
use super::{Score, Undefined};

/// Whether any span of the canonical definition was shown (`false` for unknown targets).
pub fn is_recalled(index: &RepoIndex, canonical: Option<&str>, shown: &ShownLines) -> bool {
    is_recalled_with(index, canonical, shown, &Fuel::default())
}

/// [`is_recalled`] drawing on a turn's fuel.
pub(crate) fn is_recalled_with(
    index: &RepoIndex,
    canonical: Option<&str>,
    shown: &ShownLines,
    fuel: &Fuel,
) -> bool {
    canonical
        .and_then(|c| index.spans(c, fuel))
        .is_some_and(|(path, spans)| {
            spans
                .iter()
                .any(|span| shown.any_in(path, span.start, span.end))
        })
}

/// Recalled share of the targets; undefined without targets or without shown lines.
pub fn recall(targets: &[TargetOutcome], shown_available: bool) -> Score {
    if !shown_available && !targets.is_empty() {
        return Score::Undefined {
            reason: Undefined::NoShownLines,
        };
    }
    let recalled = targets.iter().filter(|t| t.recalled == Some(true)).count();
    Score::ratio(recalled, targets.len(), Undefined::NoTargets)
}
