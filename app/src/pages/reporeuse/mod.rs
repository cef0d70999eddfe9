//! RepoReuse's pages: a dataset, the runs list, a run, a turn's case (a stored run's or one scored in the browser) and its case studies.

pub(crate) mod case;
pub(crate) mod case_nav;
pub(crate) mod case_study;
pub(crate) mod dataset;
pub(crate) mod local_case;
pub(crate) mod run;
pub(crate) mod runs;
pub(crate) mod turn_case;
pub(crate) mod turn_pages;
