//! Cancellation of long analyses: a flag the host raises and core checks as it works.
//!
//! Core is pure and has no clock (wasm32 has none it could read), so it cannot keep a
//! deadline itself. The host owns the deadline: it hands core a [`Cancel`], and when the
//! request times out or is abandoned it calls [`Cancel::cancel`]; core checks the flag at
//! every file and every few thousand syntax nodes and returns [`Cancelled`], so abandoned
//! work stops within milliseconds instead of running on in a blocking thread.
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
