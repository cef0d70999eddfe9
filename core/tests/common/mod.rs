//! What several of core's tests share: expectation files and the real trajectories.
#![allow(dead_code, unreachable_pub)] // Each test binary uses a different part of this module.

pub mod expect;
pub mod real;
