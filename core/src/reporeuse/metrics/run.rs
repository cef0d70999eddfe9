//! A run's table row (model x harness x memory setting) and its per-turn series.
//!
//! Aggregates scored turns per spec 1 "Aggregation": every rate is macro-averaged over the
//! turns where it is defined, then over chains, in percent; files and lines are averaged
//! the same way but stay counts; C_dup is the mean of the cumulative C_dup(1..T), in
//! percent. Example: two chains with reuse_repo [100%, undefined] and [50%, 0%] give
//! (100 + 25) / 2 = 62.5.

use serde::Serialize;

use super::Score;
use super::duplicated_chains::duplicated_chains;
use super::macro_average::{macro_average, per_turn_series};
use super::turn::TurnScore;

/// The names of [`RunColumns`]' fields in display order: every table of a run, its turns
/// and the leaderboard uses them (and the published results name theirs alike).
pub const COLUMNS: [&str; 9] = [
    "reuse_repo",
    "reuse_self",
    "recall_repo",
    "recall_self",
    "files",
    "lines",
    "resolve",
    "pass",
    "c_dup",
];

/// One value per column of the table.
#[derive(Clone, Debug, PartialEq, Serialize)]
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
