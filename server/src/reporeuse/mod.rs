//! RepoReuse on the server: its runs scored, stored and scored again with their hidden tests' results, and one turn's hidden tests in a sandbox.

pub(crate) mod execute;
pub(crate) mod hidden_tests;
pub(crate) mod runs;
