//! Charts as data: the line and bar charts a published table or a run's turns make, each series with its values.
//!
//! What is drawn is decided here, and [`super::plot`] draws it with plotters for the app
//! and the command line alike: which columns of a table form a series (`reuse_repo_t1`
//! and `reuse_repo_t5` are RepoReuse's first and last turn; `pass_at_1_original` and
//! `pass_at_1_transformed` SchrodingerRepo's two views), which rows make bars, and which
//! of a run's columns have a value to draw.

use crate::api::ReportedTable;
use crate::metric::{self, Unit};

/// One line: a row of the table, its value at each x position (`None`: not reported).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub values: Vec<Option<f64>>,
}

/// A chart of one metric over ordered positions (turns, or the original and transformed
/// repository), one series per row of its table.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// The metric plotted (`reuse_repo`); its title and unit come from core's registry.
    pub metric: String,
    pub x_labels: Vec<String>,
    pub series: Vec<Series>,
}

impl Chart {
    /// The chart's heading: the metric's title and what the x axis is.
    pub fn title(&self) -> String {
        let name = metric::title_of(&self.metric);
        match (self.x_labels.first(), self.x_labels.last()) {
            (Some(first), Some(last)) if first != last => format!("{name}: {first} → {last}"),
            _ => name,
        }
    }

    pub fn unit(&self) -> Unit {
        metric::unit_of(&self.metric)
    }
}

/// Where a column sits on an x axis: `reuse_repo_t5` is `reuse_repo` at T5;
/// `pass_at_1_original` is `pass_at_1` at "original".
fn position(column: &str) -> Option<(&str, String, u32)> {
    if let Some((base, turn)) = column.rsplit_once("_t")
        && let Ok(n) = turn.parse::<u32>()
    {
        return Some((base, format!("T{n}"), n));
    }
    [
        ("_original", "original", 0),
        ("_transformed", "transformed", 1),
    ]
    .into_iter()
    .find_map(|(suffix, label, order)| {
        column
            .strip_suffix(suffix)
            .map(|base| (base, label.to_owned(), order))
    })
}

/// The charts a published table makes: one per metric that the table reports at two or
/// more positions, in the table's column order, one series per row named by its labels.
///
/// ```
/// use std::collections::BTreeMap;
/// use wheelwright_core::api::ReportedTable;
/// use wheelwright_core::present::chart::charts_of;
/// use wheelwright_core::published::ReportedRow;
/// let table = ReportedTable {
///     id: "table3".into(),
///     title: "First vs last turn".into(),
///     columns: vec!["reuse_repo_t1".into(), "reuse_repo_t5".into(), "files".into()],
///     rows: vec![ReportedRow {
///         labels: BTreeMap::from([("model".into(), "GLM".into())]),
///         metrics: BTreeMap::from([("reuse_repo_t1".into(), 61.7), ("reuse_repo_t5".into(), 64.3)]),
///     }],
/// };
/// let charts = charts_of(&table);
/// assert_eq!(charts.len(), 1);
/// assert_eq!(charts[0].x_labels, ["T1", "T5"]);
/// assert_eq!(charts[0].series[0].values, [Some(61.7), Some(64.3)]);
/// ```
pub fn charts_of(table: &ReportedTable) -> Vec<Chart> {
    // Metrics in first-seen order, each with its columns.
    let mut groups: Vec<(&str, Vec<Position<'_>>)> = Vec::new();
    for column in &table.columns {
        let Some((base, label, order)) = position(column) else {
            continue;
        };
        match groups.iter_mut().find(|(b, _)| *b == base) {
            Some((_, columns)) => columns.push((column, label, order)),
            None => groups.push((base, vec![(column, label, order)])),
        }
    }
    groups
        .into_iter()
        .filter(|(_, columns)| columns.len() >= 2)
        .map(|(base, mut columns)| {
            columns.sort_by_key(|(_, _, order)| *order);
            let series = table
                .rows
                .iter()
                .map(|row| Series {
                    name: row_name(row),
                    values: columns
                        .iter()
                        .map(|(column, _, _)| row.metrics.get(*column).copied())
                        .collect(),
                })
                .collect();
            Chart {
                metric: base.to_owned(),
                x_labels: columns.into_iter().map(|(_, label, _)| label).collect(),
                series,
            }
        })
        .collect()
}

/// A table column at a position of a chart: (column, x label, order along x).
type Position<'t> = (&'t str, String, u32);

/// A run's per-turn series as the scorer writes them: column id to T1..Tn scores.
pub type TurnSeries = std::collections::BTreeMap<String, Vec<crate::metric::Score>>;

/// Per-turn line charts of runs: one chart per column of `columns` that some run has a
/// defined value for, one series per run (a run page has one, a comparison two), x from
/// T1 to the longest series' last turn.
///
/// ```
/// use wheelwright_core::metric::Score;
/// use wheelwright_core::present::chart::{TurnSeries, turn_charts};
/// let run = TurnSeries::from([(
///     "reuse_repo".to_owned(),
///     vec![Score::Defined { value: 50.0 }, Score::Defined { value: 75.0 }],
/// )]);
/// let charts = turn_charts(&["reuse_repo", "pass"], &[("run 1".to_owned(), run)]);
/// assert_eq!(charts.len(), 1, "pass has no values: no chart");
/// assert_eq!(charts[0].x_labels, ["T1", "T2"]);
/// assert_eq!(charts[0].series[0].values, [Some(50.0), Some(75.0)]);
/// ```
pub fn turn_charts(columns: &[&str], runs: &[(String, TurnSeries)]) -> Vec<Chart> {
    columns
        .iter()
        .filter_map(|column| {
            let series: Vec<Series> = runs
                .iter()
                .map(|(name, run)| Series {
                    name: name.clone(),
                    values: run
                        .get(*column)
                        .map(|scores| scores.iter().map(|s| s.value()).collect())
                        .unwrap_or_default(),
                })
                .collect();
            let turns = series.iter().map(|s| s.values.len()).max().unwrap_or(0);
            let defined = series.iter().any(|s| s.values.iter().any(Option::is_some));
            (defined && turns > 0).then(|| Chart {
                metric: (*column).to_owned(),
                x_labels: (1..=turns).map(|t| format!("T{t}")).collect(),
                series: series
                    .into_iter()
                    .map(|mut s| {
                        s.values.resize(turns, None);
                        s
                    })
                    .collect(),
            })
        })
        .collect()
}

/// A bar chart of one metric, one bar per row of its table: for tables whose columns are
/// not positions along an axis (ReCUBE's settings, SchrodingerRepo's action shares).
#[derive(Clone, Debug, PartialEq)]
pub struct Bars {
    pub metric: String,
    /// Each bar's label (the row's labels joined) and value, in the table's row order.
    pub bars: Vec<(String, f64)>,
}

impl Bars {
    pub fn title(&self) -> String {
        metric::title_of(&self.metric)
    }

    pub fn unit(&self) -> Unit {
        metric::unit_of(&self.metric)
    }
}

/// The bar chart of a table that makes no line chart: its first column that two or more
/// rows report, one bar per row that reports it. `None` for a table with line charts or
/// with fewer than two values to compare.
pub fn bars_of(table: &ReportedTable) -> Option<Bars> {
    if !charts_of(table).is_empty() {
        return None;
    }
    table.columns.iter().find_map(|column| {
        let bars: Vec<(String, f64)> = table
            .rows
            .iter()
            .filter_map(|row| {
                let value = row.metrics.get(column)?;
                Some((row_name(row), *value))
            })
            .collect();
        (bars.len() >= 2).then(|| Bars {
            metric: column.clone(),
            bars,
        })
    })
}

/// A row's name in a legend or beside a bar: its labels in the table's key order.
fn row_name(row: &crate::published::ReportedRow) -> String {
    row.labels.values().cloned().collect::<Vec<_>>().join(" · ")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::published::ReportedRow;

    fn row(model: &str, metrics: &[(&str, f64)]) -> ReportedRow {
        ReportedRow {
            labels: BTreeMap::from([("model".to_owned(), model.to_owned())]),
            metrics: metrics.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
        }
    }

    #[test]
    fn columns_at_positions_become_one_chart_per_metric() {
        let table = ReportedTable {
            id: "t".to_owned(),
            title: "T".to_owned(),
            columns: [
                "recall_repo_t1",
                "recall_repo_t5",
                "reuse_self_t2",
                "reuse_self_t5",
                "c_dup_t5",
                "pass_at_1_transformed",
                "pass_at_1_original",
                "files",
            ]
            .map(str::to_owned)
            .to_vec(),
            rows: vec![
                row(
                    "a",
                    &[
                        ("recall_repo_t1", 86.3),
                        ("recall_repo_t5", 38.8),
                        ("reuse_self_t2", 77.1),
                    ],
                ),
                row(
                    "b",
                    &[
                        ("pass_at_1_original", 46.8),
                        ("pass_at_1_transformed", 35.6),
                    ],
                ),
            ],
        };
        let charts = charts_of(&table);
        let summary: Vec<_> = charts
            .iter()
            .map(|c| {
                (
                    c.metric.clone(),
                    c.x_labels.clone(),
                    c.series.iter().map(|s| s.values.clone()).collect(),
                )
            })
            .collect();
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            summary,
            [
                (
                    "recall_repo".to_owned(),
                    s(&["T1", "T5"]),
                    vec![vec![Some(86.3), Some(38.8)], vec![None, None]]
                ),
                (
                    "reuse_self".to_owned(),
                    s(&["T2", "T5"]),
                    vec![vec![Some(77.1), None], vec![None, None]]
                ),
                // Original before transformed, whatever the column order; a metric at one
                // position (c_dup_t5) or none (files) is no chart.
                (
                    "pass_at_1".to_owned(),
                    s(&["original", "transformed"]),
                    vec![vec![None, None], vec![Some(46.8), Some(35.6)]]
                ),
            ]
        );
        assert_eq!(charts[0].title(), "recall repo: T1 → T5");
        assert_eq!(charts[0].series[0].name, "a");
    }

    #[test]
    fn a_table_without_positions_is_one_bar_per_row() {
        let table = ReportedTable {
            id: "t".to_owned(),
            title: "T".to_owned(),
            columns: vec!["spr".to_owned(), "apr".to_owned()],
            rows: vec![
                row("a", &[("apr", 40.0)]),
                row("b", &[("spr", 20.0), ("apr", 50.0)]),
                row("c", &[("spr", -5.0)]),
            ],
        };
        let bars = bars_of(&table).expect("two rows report spr");
        assert_eq!(
            bars.bars,
            [("b".to_owned(), 20.0), ("c".to_owned(), -5.0)],
            "the first column two rows report, rows without it left out"
        );
        // A table with line charts makes no bars.
        let lines = ReportedTable {
            columns: vec!["c_dup_t1".to_owned(), "c_dup_t5".to_owned()],
            rows: vec![row("a", &[("c_dup_t1", 1.0), ("c_dup_t5", 2.0)])],
            ..table
        };
        assert_eq!(bars_of(&lines), None);
    }
}
