//! Reuse rate per kind: the share of a turn's targets that the submission references.
//!
//! Measures whether the agent reused existing code instead of rewriting it (spec 1, "Reuse
//! rate"). A target counts once however often it is used; a missing or empty submission
//! references nothing, so its reuse is 0 when the kind has targets (D8); with no targets
//! the rate is undefined. Example: targets `pkg.io.load` and `pkg.io.save`, submission
//! `from pkg.io import load; data = load(p)`: reuse = 1/2.

use super::{Score, Undefined};

/// `|referenced targets| / |targets|`, undefined without targets: `referenced` says, per
/// target of the kind, whether the submission references it.
pub fn reuse_rate(referenced: &[bool]) -> Score {
    let count = referenced.iter().filter(|&&r| r).count();
    Score::ratio(count, referenced.len(), Undefined::NoTargets)
}
