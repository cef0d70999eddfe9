//! Core's integration tests as one binary: each file beside this one is a module of it.
//!
//! One binary per crate is linked once instead of once per file (77 binaries took most
//! of a full test run's build). Cargo's discovery of `tests/*.rs` is off (`autotests =
//! false`), so a new file must be declared below; `scripts/check-test-modules` (run by
//! `scripts/test`) fails when one is not.

mod common;

mod api_wire;
mod baseline;
mod bundle;
mod hidden_tests;
mod hostile;
mod metrics_aggregation;
mod metrics_turn;
mod python_index;
mod python_references;
mod python_snapshot;
mod recube_correlation;
mod recube_graph;
mod recube_mask;
mod recube_neighbourhood;
mod recube_pass_rates;
mod recube_rebinding;
mod recube_validate;
mod reporeuse_callable_map;
mod reporeuse_execution;
mod reporeuse_shipped_answers;
mod reporeuse_synthesis;
mod reporeuse_walk;
mod schrodinger_actions;
mod schrodinger_restate;
mod schrodinger_rewrites;
mod schrodinger_subwords;
mod schrodinger_views;
mod schrodinger_words;
mod score_run;
mod shell_observations;
mod table;
mod trajectory_interpret;
mod trajectory_real;
mod trajectory_unparsed;
