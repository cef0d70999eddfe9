//! What several of core's tests share: expectation files, the real trajectories, fixture repositories.
#![allow(dead_code, unreachable_pub)] // Each test binary uses a different part of this module.

pub mod expect;
pub mod python;
pub mod real;
pub mod repo;
