//! Pieces shared by several pages.

pub(crate) mod benchmark_tabs;
pub(crate) mod chart;
pub(crate) mod diff_view;
pub(crate) mod footer;
pub(crate) mod header;
pub(crate) mod hidden_tests;
pub(crate) mod loaded;
pub(crate) mod neighbourhood;
pub(crate) mod outline_table;
pub(crate) mod score;
pub(crate) mod source_view;
pub(crate) mod test_progress;
