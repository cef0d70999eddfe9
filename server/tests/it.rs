//! The server's and command line's integration tests as one binary: each file beside this one is a module of it.
//!
//! One binary per crate is linked once instead of once per file (77 binaries took most
//! of a full test run's build). Cargo's discovery of `tests/*.rs` is off (`autotests =
//! false`), so a new file must be declared below; `scripts/check-test-modules` (run by
//! `scripts/test`) fails when one is not.

mod common;

mod analyze;
mod api_snapshots;
mod app;
mod baseline_copy;
mod benchmarks;
mod cli_actions;
mod cli_cce;
mod cli_dataset;
mod cli_dataset_map;
mod cli_dataset_pipeline;
mod cli_dataset_stats;
mod cli_dataset_walk;
mod cli_inputs;
mod cli_mask;
mod cli_prepare;
mod cli_recube_import;
mod cli_recube_prepare;
mod cli_recube_test;
mod cli_restate;
mod cli_rewrite;
mod cli_run;
mod cli_score;
mod cli_test;
mod cli_trajectory;
mod cli_view;
mod connections;
mod dataset;
mod datasets;
mod disk_full;
mod health;
mod host_paths;
mod hostile_submissions;
mod jobs;
mod leaderboard;
mod memory_bounds;
mod multi_repository;
mod openapi;
mod prompts;
mod recube_dataset;
mod recube_datasets;
mod recube_instances;
mod recube_runs;
mod rejections;
mod restart;
mod run_storage;
mod runs;
mod schrodinger_views;
mod score_agreement;
mod serve;
mod work_pool;
mod write_contention;
