//! One module per page of the site: the pages every benchmark shares here, each benchmark's own in its folder.

pub(crate) mod analyze;
pub(crate) mod compare;
pub(crate) mod home;
pub(crate) mod leaderboard;
pub(crate) mod metrics;
pub(crate) mod not_found;
pub(crate) mod published;
pub(crate) mod recube;
pub(crate) mod reporeuse;
pub(crate) mod schrodinger;
pub(crate) mod source;
pub(crate) mod submit;
