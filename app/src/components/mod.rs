//! Pieces shared by several pages.

pub(crate) mod footer;
pub(crate) mod header;
pub(crate) mod outline_table;
