//! Python analysis across files: the repository index and what a submission references.
//!
//! [`index::RepoIndex`] holds the analysed files of a workspace and resolves names through
//! imports and re-exports (spec section 1, D1 and D4–D6); [`references`] analyses one
//! submitted module against it (D2, D3, D5, D7, D8). [`facts`] are the definition facts
//! (kinds, qualified names, spans) the analysis and the outline share; [`rewrite`]
//! edits source on syntax spans.

pub(crate) mod builtins;
pub mod facts;
pub(crate) mod fuel;
pub mod index;
pub mod references;
pub mod rewrite;
pub(crate) mod scope;
pub mod snapshot;
pub(crate) mod stdlib;
