//! One module per page of the site.

pub(crate) mod analyze;
pub(crate) mod case_nav;
pub(crate) mod case_study;
pub(crate) mod compare;
pub(crate) mod home;
pub(crate) mod leaderboard;
pub(crate) mod metrics;
pub(crate) mod not_found;
pub(crate) mod published;
pub(crate) mod recube_dataset;
pub(crate) mod recube_instance;
pub(crate) mod recube_run;
pub(crate) mod run;
pub(crate) mod runs;
pub(crate) mod schrodinger_actions;
pub(crate) mod source;
pub(crate) mod submit;
pub(crate) mod turn_case;
pub(crate) mod view_explorer;
