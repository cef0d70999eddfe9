//! The harness formats a trajectory is read from, one module each (see [`super::TrajectoryFormat`]).

pub mod generic;
pub(crate) mod json;
pub mod mini_swe_agent;
pub mod opencode;
