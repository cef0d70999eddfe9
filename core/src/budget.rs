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
use std::sync::atomic::{AtomicBool, Ordering};

/// Steps tree-sitter may take to parse one file (it reports progress every hundred); a
/// file that needs more is not analysed at all.
///
/// Time and memory of a parse grow with its steps: about 135 bytes of tree a step for flat
/// code, and up to about 230 bytes a step of parser stack for deep nesting (`f(f(f(...`,
/// `[[[[...`, `lambda: lambda: ...`), which no real file has. At this budget the worst
/// file parses in about 0.2 s and 95 MB on one core (docs/performance.md, "Core: hostile
/// inputs"). Real code takes 2.3 to 3.3 steps a syntax node: the standard library's
/// largest file, `pydoc_data/topics.py` (757 KB), takes 173,300 steps, its largest code
/// module, `tkinter/__init__.py`, 99,400, networkx's largest file 100,700. Of the 11,653
/// Python files of this machine's standard library and site-packages, 2 take more (a
/// 446 KB sympy benchmark and a 346 KB sympy test, both generated).
pub const MAX_PARSE_STEPS: usize = 400_000;

/// Syntax nodes (named and anonymous) of one file that core converts and analyses. Every
/// node takes a parser step, so a file within [`MAX_PARSE_STEPS`] has no more; the
/// conversion counts them anyway, so the bound does not rest on tree-sitter's accounting.
pub const MAX_FILE_NODES: usize = MAX_PARSE_STEPS;

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
