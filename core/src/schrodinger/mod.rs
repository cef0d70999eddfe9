//! SchrodingerRepo (spec 3): behaviour-preserving views of a repository and how agents' actions shift on them.
//!
//! The views: the namespace mapping (level 2, [`namespace`] over [`subwords`] and
//! [`words`]), the layout reordering (level 3, [`layout`]), both together with their
//! record ([`view`]), the translator between a view and its original ([`translate`]), and a
//! view's validity ([`validity`]); level 1's problem statement rewritten through a
//! language model ([`restate`]) and level 4's behaviour-preserving rewrites of functions
//! ([`rewrites`]). The runs: one read from its trajectories and reports
//! ([`run_actions`]) with its Pass@1, action mix and token usage, and its shift against a
//! baseline run ([`action_shift`], [`additional_actions`]).

pub mod action_mix;
pub mod action_shift;
pub mod additional_actions;
pub mod layout;
pub mod namespace;
pub mod pass_at_1;
pub mod restate;
pub mod rewrites;
pub mod run_actions;
pub mod subwords;
pub mod token_usage;
pub mod translate;
pub mod validity;
pub mod view;
pub mod words;
