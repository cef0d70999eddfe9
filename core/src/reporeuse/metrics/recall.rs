//! Recall per kind: the share of a turn's targets whose definition the agent was shown.
//!
//! Measures whether the agent looked at the code it could reuse (spec 1, "Recall"): a target
//! is recalled when the turn's read actions showed at least one line of any of its D1 spans
//! in the file that defines it in W_{t-1}. Undefined without targets or without shown lines
//! (no trajectory). Example: `pkg.io.load` spans lines 10–14 of `pkg/io.py`; the agent ran
//! `sed -n '1,12p' pkg/io.py`: recalled.

use serde::{Deserialize, Serialize};

use crate::python::fuel::Fuel;
use crate::python::index::RepoIndex;
use crate::workspace::ShownLines;

use super::{Score, Undefined};

/// Whether any span of the canonical definition was shown (`false` for unknown targets).
pub fn is_recalled(index: &RepoIndex, canonical: Option<&str>, shown: &ShownLines) -> bool {
    canonical
        .and_then(|c| definition_of(index, c, &Fuel::default()))
        .is_some_and(|d| d.shown_in(shown))
}

/// Where a target is defined: the file and the D1 spans recall looks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    pub path: String,
    /// Inclusive 1-based line ranges, one per definition of the name in the file.
    pub spans: Vec<(u32, u32)>,
}

impl Definition {
    /// Whether `shown` has a line of any span.
    pub fn shown_in(&self, shown: &ShownLines) -> bool {
        self.spans
            .iter()
            .any(|&(start, end)| shown.any_in(&self.path, start, end))
    }
}

/// The definition of `canonical` in W_{t-1}, drawing on the turn's fuel.
pub(crate) fn definition_of(index: &RepoIndex, canonical: &str, fuel: &Fuel) -> Option<Definition> {
    index
        .spans(canonical, fuel)
        .map(|(path, spans)| Definition {
            path: path.to_owned(),
            spans: spans.iter().map(|s| (s.start, s.end)).collect(),
        })
}

/// Recalled share of the targets; undefined without targets or without shown lines.
/// `recalled` says, per target of the kind, whether it was recalled (`None`: no shown lines
/// were given).
pub fn recall(recalled: &[Option<bool>], shown_available: bool) -> Score {
    if !shown_available && !recalled.is_empty() {
        return Score::Undefined {
            reason: Undefined::NoShownLines,
        };
    }
    let count = recalled.iter().filter(|&&r| r == Some(true)).count();
    Score::ratio(count, recalled.len(), Undefined::NoTargets)
}
