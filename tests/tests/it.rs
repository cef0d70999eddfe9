//! The end-to-end tests (real server, headless Chromium) as one binary: each file beside this one is a module of it.
//!
//! One binary per crate is linked once instead of once per file (77 binaries took most
//! of a full test run's build). Cargo's discovery of `tests/*.rs` is off (`autotests =
//! false`), so a new file must be declared below; `scripts/check-test-modules` (run by
//! `scripts/test`) fails when one is not.

mod analyze_page;
mod compare_page;
mod dataset_page;
mod leaderboard_page;
mod published_page;
mod recube_pages;
mod run_pages;
mod schrodinger_actions_page;
mod submit_large_runs;
mod submit_page;
mod view_explorer_page;
