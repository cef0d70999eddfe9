//! What one analysis may cost: a budget per file, and cancellation by the host.
//!
//! Every byte a submitter sends is hostile, so the work and memory one file can cause are
//! capped by [`MAX_FILE_NODES`]: a file over it is not analysed (it counts as an empty
//! module) and its result carries a diagnostic saying so. Within the budget every step is
//! linear (or `n log n`) in its input.
//!
//! Core is pure and has no clock (wasm32 has none it could read), so it cannot keep a
//! deadline itself. The host owns the deadline: it hands core a [`Cancel`], and when the
//! request times out or is abandoned it calls [`Cancel::cancel`]; core checks the flag
//! inside every long step (tree-sitter every hundred of its steps, the tree conversion,
//! scope analysis, indexing and trajectory interpretation every few thousand items) and
//! returns [`Cancelled`], so abandoned work stops within milliseconds instead of running
//! on in a blocking thread.
//!
//! ```
//! use wheelwright_core::budget::Cancel;
//! let cancel = Cancel::new();
//! assert!(cancel.check().is_ok());
//! cancel.cancel();
//! assert!(cancel.check().is_err());
//! assert!(Cancel::never().check().is_ok());
//! ```

use std::sync::Arc;

/// Syntax nodes (tree-sitter's, named and anonymous) of one file that core analyses; a
/// file with more is not analysed at all.
///
/// Chosen from measurements (docs/performance.md, "Core: hostile inputs"): the largest
/// files found have 75,344 nodes (the standard library's `pydoc_data/topics.py`; its
/// largest code module, `tkinter/__init__.py`, 35,101), 31,141 (networkx's largest file)
/// and 202,620 (the largest of 11,000 files of site-packages, a sympy test), while a
/// file of this many nodes, the densest kind (`a=1;` repeated), costs about 0.3 s and
/// 60 MB to parse and score on one core.
pub const MAX_FILE_NODES: usize = 400_000;

/// How far tree-sitter may get on one file before it is stopped, in its progress calls
/// (one per hundred of its steps). Real files take at most 3.3 steps per node, so this is
/// 4 steps per node of [`MAX_FILE_NODES`]: a file within the node budget is never stopped
/// here, and a hostile one (or one that makes tree-sitter's error recovery work hard) is
/// stopped before it can allocate much more than the budget's worth of nodes.
pub const MAX_PARSE_PROGRESS: usize = MAX_FILE_NODES * 4 / 100;
use std::sync::atomic::{AtomicBool, Ordering};

/// A cancellation flag shared between the host (which raises it) and core (which checks it).
/// Clones share the flag.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Option<Arc<AtomicBool>>);

/// The work was cancelled by its host before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the analysis was stopped before it finished (its time limit passed); try a smaller input")]
pub struct Cancelled;

impl Cancel {
    /// A flag that can be raised.
    pub fn new() -> Self {
        Self(Some(Arc::new(AtomicBool::new(false))))
    }

    /// A flag that is never raised (the command line, tests).
    pub fn never() -> Self {
        Self(None)
    }

    /// Raises the flag: every check from now on fails.
    pub fn cancel(&self) {
        if let Some(flag) = &self.0 {
            flag.store(true, Ordering::Relaxed);
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// `Err(Cancelled)` once the flag is raised.
    pub fn check(&self) -> Result<(), Cancelled> {
        if self.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }
}
