//! One module per page of the site.

pub(crate) mod analyze;
pub(crate) mod home;
pub(crate) mod leaderboard;
pub(crate) mod not_found;
