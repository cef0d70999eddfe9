//! A run's table row (model x harness x memory setting) and its per-turn series.
//!
//! Aggregates scored turns per spec 1 "Aggregation": every rate is macro-averaged over the
//! turns where it is defined, then over chains, in percent; files and lines are averaged
//! the same way but stay counts; C_dup is the mean of the cumulative C_dup(1..T), in
//! percent. Example: two chains with reuse_repo [100%, undefined] and [50%, 0%] give
//! (100 + 25) / 2 = 62.5.

use serde::{Deserialize, Serialize};

use super::Score;
use super::duplicated_chains::duplicated_chains;
use super::macro_average::{macro_average, per_turn_series};
use super::turn::TurnScore;
use crate::metric::{MetricInfo, REPOREUSE};

/// The names of [`RunColumns`]' fields in display order: every table of a run, its turns
/// and the leaderboard uses them (and the published results name theirs alike). They are
/// the ids of [`crate::metric::REPOREUSE`], the registry that describes each.
pub const COLUMNS: [&str; 9] = {
    let mut ids = [""; 9];
    let mut i = 0;
    while i < ids.len() {
        ids[i] = REPOREUSE[i].id;
        i += 1;
    }
    ids
};

/// One value per column of the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunColumns<T> {
    pub reuse_repo: T,
    pub reuse_self: T,
    pub recall_repo: T,
    pub recall_self: T,
    pub files: T,
    pub lines: T,
    pub resolve: T,
    pub pass: T,
    pub c_dup: T,
}

impl<T> RunColumns<T> {
    /// The value of column `id` (one of [`COLUMNS`]).
    pub fn get(&self, id: &str) -> Option<&T> {
        Some(match id {
            "reuse_repo" => &self.reuse_repo,
            "reuse_self" => &self.reuse_self,
            "recall_repo" => &self.recall_repo,
            "recall_self" => &self.recall_self,
            "files" => &self.files,
            "lines" => &self.lines,
            "resolve" => &self.resolve,
            "pass" => &self.pass,
            "c_dup" => &self.c_dup,
            _ => return None,
        })
    }

    /// Applies `f` to every column.
    pub fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> RunColumns<U> {
        RunColumns {
            reuse_repo: f(&self.reuse_repo),
            reuse_self: f(&self.reuse_self),
            recall_repo: f(&self.recall_repo),
            recall_self: f(&self.recall_self),
            files: f(&self.files),
            lines: f(&self.lines),
            resolve: f(&self.resolve),
            pass: f(&self.pass),
            c_dup: f(&self.c_dup),
        }
    }

    /// Every column with its description, in display order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static MetricInfo, &T)> {
        REPOREUSE.iter().filter_map(|m| Some((m, self.get(m.id)?)))
    }
}

/// The row and the per-turn series (T1..T).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunRow {
    pub row: RunColumns<Score>,
    pub series: RunColumns<Vec<Score>>,
}

/// Aggregates a run: `chains[c]` are chain `c`'s scored turns in order.
pub fn aggregate_run(chains: &[Vec<TurnScore>]) -> RunRow {
    let column = |f: fn(&TurnScore) -> Score| -> Vec<Vec<Score>> {
        chains
            .iter()
            .map(|turns| turns.iter().map(f).collect())
            .collect()
    };
    let percent = |values: Vec<Vec<Score>>| {
        (
            macro_average(&values).scaled(100.0),
            per_turn_series(&values)
                .into_iter()
                .map(|s| s.scaled(100.0))
                .collect::<Vec<_>>(),
        )
    };
    let counts = |values: Vec<Vec<Score>>| (macro_average(&values), per_turn_series(&values));
    let (reuse_repo, s_reuse_repo) = percent(column(|t| t.repo.reuse));
    let (reuse_self, s_reuse_self) = percent(column(|t| t.self_targets.reuse));
    let (recall_repo, s_recall_repo) = percent(column(|t| t.repo.recall));
    let (recall_self, s_recall_self) = percent(column(|t| t.self_targets.recall));
    let (files, s_files) = counts(column(|t| t.files));
    let (lines, s_lines) = counts(column(|t| t.lines));
    let (resolve, s_resolve) = percent(column(|t| t.resolve));
    let (pass, s_pass) = percent(column(|t| t.pass));
    let flags: Vec<Vec<bool>> = chains
        .iter()
        .map(|turns| turns.iter().map(|t| t.reimplemented).collect())
        .collect();
    let dup = duplicated_chains(&flags);
    RunRow {
        row: RunColumns {
            reuse_repo,
            reuse_self,
            recall_repo,
            recall_self,
            files,
            lines,
            resolve,
            pass,
            c_dup: dup.overall.scaled(100.0),
        },
        series: RunColumns {
            reuse_repo: s_reuse_repo,
            reuse_self: s_reuse_self,
            recall_repo: s_recall_repo,
            recall_self: s_recall_self,
            files: s_files,
            lines: s_lines,
            resolve: s_resolve,
            pass: s_pass,
            c_dup: dup.per_turn.into_iter().map(|s| s.scaled(100.0)).collect(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_the_registry_and_the_fields_in_one_order() {
        let numbered = RunColumns {
            reuse_repo: 0,
            reuse_self: 1,
            recall_repo: 2,
            recall_self: 3,
            files: 4,
            lines: 5,
            resolve: 6,
            pass: 7,
            c_dup: 8,
        };
        let fields: Vec<String> = match serde_json::to_value(&numbered).unwrap() {
            serde_json::Value::Object(map) => map.keys().cloned().collect(),
            other => panic!("{other}"),
        };
        let mut sorted = COLUMNS.map(str::to_owned).to_vec();
        sorted.sort();
        assert_eq!(fields, sorted, "serde's field names are the columns");
        let order: Vec<(&str, usize)> = numbered.iter().map(|(m, &i)| (m.id, i)).collect();
        let expected: Vec<(&str, usize)> = COLUMNS.into_iter().zip(0..).collect();
        assert_eq!(
            order, expected,
            "iter() follows COLUMNS, each with its own field"
        );
        assert_eq!(numbered.map(|i| i * 2).get("c_dup"), Some(&16));
        assert_eq!(numbered.get("spr"), None);
    }
}
