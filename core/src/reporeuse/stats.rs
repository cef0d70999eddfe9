//! A RepoReuse dataset's statistics as the paper's Table 1 gives them (chains; turns, cases, requirement length, new functions and reuse targets per turn), computed from the dataset alone.
//!
//! The paper describes its dataset by these rows (75 chains, 5.0 turns per chain, 10.8
//! cases and 2,570 requirement characters per turn, ...; `data/published/reporeuse.json`,
//! `dataset_stats`). The same rows for any dataset directory show how a new dataset
//! compares, and each is a mean with its range, so a dataset with one outlier turn says so.

use serde::{Deserialize, Serialize};

use super::dataset::{RepoReuseDataset, Turn};

/// One row of Table 1: a per-chain or per-turn quantity's mean and range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatRow {
    /// Stable key (`cases_per_turn`).
    pub key: String,
    /// What the paper's table calls it (`Test cases per turn`).
    pub label: String,
    /// How many chains or turns it is over (turns without a case list are left out of
    /// `cases_per_turn`).
    pub count: usize,
    /// `None` when `count` is 0.
    pub mean: Option<f64>,
    pub min: Option<usize>,
    pub max: Option<usize>,
}

/// Table 1 of a dataset.
///
/// ```
/// use wheelwright_core::reporeuse::dataset::RepoReuseDataset;
/// use wheelwright_core::reporeuse::stats::DatasetStats;
///
/// # fn stats_of(dataset: &RepoReuseDataset) {
/// let stats = DatasetStats::of(dataset);
/// let turns = stats.row("turns_per_chain").unwrap();
/// println!("{} chains, {:.1} turns per chain", stats.chains, turns.mean.unwrap_or(0.0));
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DatasetStats {
    pub chains: usize,
    pub turns: usize,
    /// In the paper's order.
    pub rows: Vec<StatRow>,
}

impl DatasetStats {
    /// The rows of `dataset`, from its chain and turn files only.
    pub fn of(dataset: &RepoReuseDataset) -> Self {
        let turns: Vec<&Turn> = dataset.chains.iter().flat_map(|c| &c.turns).collect();
        let per_turn = |key: &str, label: &str, value: &dyn Fn(&Turn) -> Option<usize>| {
            row(key, label, turns.iter().filter_map(|t| value(t)))
        };
        let rows = vec![
            row(
                "turns_per_chain",
                "Turns per chain",
                dataset.chains.iter().map(|c| c.turns.len()),
            ),
            per_turn("cases_per_turn", "Test cases per turn", &case_count),
            per_turn(
                "requirement_chars",
                "Requirement length (characters)",
                &|t| Some(t.requirement.chars().count()),
            ),
            per_turn("new_functions_per_turn", "New functions per turn", &|t| {
                Some(t.manifest.functions.len())
            }),
            per_turn(
                "repo_targets_per_turn",
                "Reuse targets per turn (repository)",
                &|t| Some(t.manifest.repo_targets.len()),
            ),
            per_turn(
                "self_targets_per_turn",
                "Reuse targets per turn (self)",
                &|t| Some(t.manifest.self_targets.len()),
            ),
        ];
        DatasetStats {
            chains: dataset.chains.len(),
            turns: turns.len(),
            rows,
        }
    }

    /// The row of a key.
    pub fn row(&self, key: &str) -> Option<&StatRow> {
        self.rows.iter().find(|r| r.key == key)
    }
}

/// The number of cases in a turn's `expected.json` (`None` for a turn whose hidden tests
/// are a pytest file rather than cases).
fn case_count(turn: &Turn) -> Option<usize> {
    let value: serde_json::Value = serde_json::from_str(&turn.expected_json).ok()?;
    value.get("cases")?.as_array().map(Vec::len)
}

/// The paper's own Table 1, as `data/published/reporeuse.json` gives it (`dataset_stats`):
/// means only, under the paper's names. Kept beside [`DatasetStats`] so a page can set a
/// dataset's rows against the paper's, row by row ([`PaperStats::mean`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperStats {
    /// Chains (the paper calls them tasks).
    pub tasks: usize,
    pub avg_turns_per_task: f64,
    pub avg_test_cases_per_turn: f64,
    pub avg_requirement_chars: f64,
    pub new_functions_per_turn: f64,
    pub reused_symbols_per_turn_repo: f64,
    pub reused_symbols_per_turn_self: f64,
}

impl PaperStats {
    /// The `dataset_stats` of a published results file's text; `None` when it has none.
    pub fn from_published(text: &str) -> Result<Option<Self>, serde_json::Error> {
        #[derive(Deserialize)]
        struct File {
            dataset_stats: Option<PaperStats>,
        }
        Ok(serde_json::from_str::<File>(text)?.dataset_stats)
    }

    /// The paper's mean for the [`StatRow`] of `key`.
    pub fn mean(&self, key: &str) -> Option<f64> {
        Some(match key {
            "turns_per_chain" => self.avg_turns_per_task,
            "cases_per_turn" => self.avg_test_cases_per_turn,
            "requirement_chars" => self.avg_requirement_chars,
            "new_functions_per_turn" => self.new_functions_per_turn,
            "repo_targets_per_turn" => self.reused_symbols_per_turn_repo,
            "self_targets_per_turn" => self.reused_symbols_per_turn_self,
            _ => return None,
        })
    }
}

fn row(key: &str, label: &str, values: impl Iterator<Item = usize>) -> StatRow {
    let values: Vec<usize> = values.collect();
    let sum: usize = values.iter().sum();
    StatRow {
        key: key.to_owned(),
        label: label.to_owned(),
        count: values.len(),
        mean: (!values.is_empty()).then(|| sum as f64 / values.len() as f64),
        min: values.iter().min().copied(),
        max: values.iter().max().copied(),
    }
}
