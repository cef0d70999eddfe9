//! Agent trajectories: reading harness formats and interpreting actions (issue 3, in progress).
