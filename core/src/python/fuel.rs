//! The resolution steps one analysis may take: a bound on what star imports and bases that fan out can cost.
//!
//! Its own file because both the index ([`super::index`], across files) and the scopes of
//! one file ([`super::scope`]) draw on it, and the scopes are below the index.

use std::cell::Cell;

/// Lookups (a name in a module's namespace, an attribute in a class and its bases, a
/// check of the attribute rules) one analysis may make: scoring one turn, or answering one
/// public query. Real turns need a few hundred at most (149 for the networkx dataset's
/// references, 103 for the scoring benchmark's 3,000 turns); past it, resolution gives up
/// as it does past the index's depth limit, and the turn says so in a diagnostic.
pub const MAX_RESOLUTION_STEPS: u64 = 1 << 16;

/// The resolution steps left to one analysis (see [`MAX_RESOLUTION_STEPS`]).
#[derive(Debug)]
pub(crate) struct Fuel {
    left: Cell<u64>,
    exhausted: Cell<bool>,
}

impl Default for Fuel {
    fn default() -> Self {
        Fuel {
            left: Cell::new(MAX_RESOLUTION_STEPS),
            exhausted: Cell::new(false),
        }
    }
}

impl Fuel {
    /// Takes one step; `false` (and exhausted from now on) when none is left.
    pub(crate) fn take(&self) -> bool {
        match self.left.get() {
            0 => {
                self.exhausted.set(true);
                false
            }
            n => {
                self.left.set(n - 1);
                true
            }
        }
    }

    /// Whether some resolution gave up for lack of steps.
    pub(crate) fn exhausted(&self) -> bool {
        self.exhausted.get()
    }

    /// The steps left.
    pub(super) fn left(&self) -> u64 {
        self.left.get()
    }

    /// Takes `steps` at once, as a remembered lookup that took them does; `false`, taking
    /// nothing, when fewer are left (the lookup is then made step by step, and gives up
    /// where it gave up before).
    pub(super) fn take_many(&self, steps: u64) -> bool {
        match self.left.get().checked_sub(steps) {
            Some(left) => {
                self.left.set(left);
                true
            }
            None => false,
        }
    }
}
