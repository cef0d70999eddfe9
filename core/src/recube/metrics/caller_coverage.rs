//! Caller coverage: the share of the files that call the target's functions that the agent looked at.
//!
//! ReCUBE's finding is that agents which read how a file is used rebuild it better; this
//! measures how much of that usage an agent saw (spec 2). A file counts as looked at when
//! the agent's trajectory showed any of its lines (read, printed or hit by a search, D13),
//! read through the shared trajectory reader. Undefined when no other file calls the
//! target. Example: `cli.py` and `api.py` call the target, the agent printed `cli.py`: 0.5.

use super::{Score, Undefined};
use crate::recube::graph::Graph;
use crate::workspace::ShownLines;

/// Of the files with calls into `graph`'s target, the share with a line in `shown`.
pub fn caller_coverage(graph: &Graph, shown: &ShownLines) -> Score {
    let callers = graph.caller_files();
    let viewed = callers
        .iter()
        .filter(|path| shown.any_in(path, 1, u32::MAX))
        .count();
    Score::ratio(viewed, callers.len(), Undefined::NoCallers)
}
