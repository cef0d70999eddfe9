//! SchrodingerRepo (spec 3): behaviour-preserving views of a repository and how agents' actions shift on them.
//!
//! So far: the subword splitting its namespace mapping (level 2) is built on, and the
//! action metrics over trajectories (the mix of a run, its additional actions against a
//! baseline). The mapping, the translator, the layout reordering (level 3) and the views
//! come with issue 16.

pub mod action_mix;
pub mod additional_actions;
pub mod layout;
pub mod namespace;
pub mod subwords;
pub mod translate;
pub mod validity;
pub mod view;
pub mod words;
