//! The benchmarks Wheelwright knows, and how URLs, files and datasets spell them.

use serde::{Deserialize, Serialize};

/// A benchmark. Its serde spelling (`reporeuse`, `recube`, `schrodinger`) is the one used in
/// URLs, published results and `dataset.json` alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Benchmark {
    RepoReuse,
    Recube,
    Schrodinger,
}

impl Benchmark {
    pub const ALL: [Benchmark; 3] = [Self::RepoReuse, Self::Recube, Self::Schrodinger];

    /// The identifier used in URLs and files.
    pub fn id(self) -> &'static str {
        match self {
            Self::RepoReuse => "reporeuse",
            Self::Recube => "recube",
            Self::Schrodinger => "schrodinger",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Self::RepoReuse => "RepoReuse",
            Self::Recube => "ReCUBE",
            Self::Schrodinger => "SchrodingerRepo",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.id() == id)
    }

    /// The metric a leaderboard ranks by until the reader sorts by another: what the
    /// benchmark is about (reuse of the repository, strict pass rate, Pass@1 on the view
    /// that strips familiar cues).
    pub fn headline_metric(self) -> &'static str {
        match self {
            Self::RepoReuse => "reuse_repo",
            Self::Recube => "spr",
            Self::Schrodinger => "pass_at_1_transformed",
        }
    }

    /// The published table that is this benchmark's leaderboard, and labels its rows leave
    /// implicit (RepoReuse's Table 2 is titled "interface memory").
    pub fn leaderboard_table(self) -> (&'static str, &'static [(&'static str, &'static str)]) {
        match self {
            Self::RepoReuse => ("table2", &[("memory", "interface")]),
            Self::Recube => ("table5", &[]),
            Self::Schrodinger => ("swe-bench-verified-full", &[]),
        }
    }
}
