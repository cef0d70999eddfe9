//! SchrodingerRepo's pages: a repository's view beside its original (the view explorer), and a run's actions read in the browser.

pub(crate) mod actions;
pub(crate) mod view_explorer;
