//! ReCUBE on the server: its runs scored, stored and each instance scored again as its hidden tests finish, and one instance's hidden tests in a sandbox.

pub(crate) mod hidden_tests;
pub(crate) mod runs;
