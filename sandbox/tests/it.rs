//! The sandbox's integration tests as one binary: each file beside this one is a module of it.
//!
//! One binary per crate is linked once instead of once per file (77 binaries took most
//! of a full test run's build). Cargo's discovery of `tests/*.rs` is off (`autotests =
//! false`), so a new file must be declared below; `scripts/check-test-modules` (run by
//! `scripts/test`) fails when one is not.

mod common;

mod happy;
mod hostile;
mod sweep;
