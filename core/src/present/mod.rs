//! How a case is shown, computed once for the server, the command line and the page alike.
//!
//! Pure functions from text to what a page draws: a requirement's Markdown as safe HTML
//! ([`markdown`]), two files as aligned rows with the changed words marked ([`diff`]), a
//! file's lines as highlighted runs ([`source`]), a published table's and a run's charts
//! ([`chart`]) drawn as SVG with plotters ([`plot`]), and a run's hidden tests grouped by
//! turn ([`test_groups`]).

pub mod chart;
pub mod diff;
pub mod markdown;
pub mod plot;
pub mod source;
pub mod test_groups;
