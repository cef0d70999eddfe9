//! Charts as geometry: the line and bar charts a published table makes, nice axis ticks, and each mark in SVG coordinates.
//!
//! The app draws the SVG; everything that decides what is drawn where is here, so it is
//! tested without a browser: which columns of a table form a series (`reuse_repo_t1` and
//! `reuse_repo_t5` are RepoReuse's first and last turn; `pass_at_1_original` and
//! `pass_at_1_transformed` SchrodingerRepo's two views), the y axis's ticks, and where each
//! value lands.

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

/// About `count` round tick values covering `low..=high` (steps of 1, 2, 2.5 or 5 times a
/// power of ten), from at or below `low` to at or above `high`.
pub fn nice_ticks(low: f64, high: f64, count: usize) -> Vec<f64> {
    if !(low.is_finite() && high.is_finite()) || count < 2 {
        return Vec::new();
    }
    let (low, high) = if high > low {
        (low, high)
    } else {
        (low - 1.0, low + 1.0)
    };
    let raw = (high - low) / (count - 1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power);
    let first = (low / step).floor() as i64;
    let last = (high / step).ceil() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// A chart laid out in a `width` x `height` SVG: the plot area's edges, the ticks and each
/// series' points.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawn {
    pub width: f64,
    pub height: f64,
    /// The plot area: left, top, right, bottom.
    pub area: (f64, f64, f64, f64),
    /// (y, value) of each horizontal grid line.
    pub y_ticks: Vec<(f64, f64)>,
    /// (x, label) of each position.
    pub x_ticks: Vec<(f64, String)>,
    /// Each series' points, (x, y, value), `None` where it has no value.
    pub points: Vec<Vec<Option<(f64, f64, f64)>>>,
}

impl Drawn {
    /// The SVG path of series `i`: straight segments between its points, broken where a
    /// value is missing.
    pub fn path(&self, i: usize) -> String {
        let mut path = String::new();
        let mut pen_down = false;
        for point in &self.points[i] {
            match point {
                Some((x, y, _)) => {
                    path.push_str(&format!(
                        "{}{x:.1} {y:.1} ",
                        if pen_down { "L" } else { "M" }
                    ));
                    pen_down = true;
                }
                None => pen_down = false,
            }
        }
        path.trim_end().to_owned()
    }
}

/// Margins around the plot area: room for the y labels on the left, the x labels below.
const MARGIN: (f64, f64, f64, f64) = (44.0, 12.0, 16.0, 28.0);

/// Lays `chart` out in a `width` x `height` SVG: positions spread evenly across, the y
/// axis 0 to 100% for rates, else from round ticks around every value (the axis says
/// where it starts).
pub fn draw(chart: &Chart, width: f64, height: f64) -> Drawn {
    let (left, top) = (MARGIN.0, MARGIN.1);
    let (right, bottom) = (width - MARGIN.2, height - MARGIN.3);
    let values: Vec<f64> = chart
        .series
        .iter()
        .flat_map(|s| s.values.iter().flatten().copied())
        .collect();
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let rates = chart.unit() == Unit::Percent && low >= 0.0 && high <= 100.0;
    let ticks = if values.is_empty() || rates {
        // Rates on their whole scale: a 2-point change looks like one, and a series of
        // zeros has an axis.
        nice_ticks(0.0, 100.0, 5)
    } else {
        nice_ticks(low.min(0.0).max(low - (high - low)), high, 5)
    };
    let (y_min, y_max) = (ticks[0], ticks[ticks.len() - 1]);
    let y_of = |v: f64| bottom - (v - y_min) / (y_max - y_min) * (bottom - top);
    let slots = chart.x_labels.len().max(1) as f64;
    let x_of = |i: usize| left + (right - left) * (i as f64 + 0.5) / slots;
    Drawn {
        width,
        height,
        area: (left, top, right, bottom),
        y_ticks: ticks.iter().map(|&t| (y_of(t), t)).collect(),
        x_ticks: chart
            .x_labels
            .iter()
            .enumerate()
            .map(|(i, label)| (x_of(i), label.clone()))
            .collect(),
        points: chart
            .series
            .iter()
            .map(|s| {
                s.values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| v.map(|v| (x_of(i), y_of(v), v)))
                    .collect()
            })
            .collect(),
    }
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

/// A bar chart laid out in an SVG `width` wide: bars across from a shared zero line.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnBars {
    pub width: f64,
    pub height: f64,
    /// Where the labels end and the plot area begins, and where it ends.
    pub left: f64,
    pub right: f64,
    /// (x, value) of each vertical grid line.
    pub x_ticks: Vec<(f64, f64)>,
    /// Each bar: its top y, its left and right x (from zero to the value, either way).
    pub bars: Vec<(f64, f64, f64)>,
    /// The height of one bar.
    pub bar_height: f64,
}

/// Height of one bar's row, and the room below the bars for the tick labels.
const BAR_ROW: f64 = 22.0;
const BAR_AXIS: f64 = 24.0;

/// Lays `bars` out `width` wide, the labels in the left `label_share` of it and the bars'
/// rows one under another; the axis includes zero so a bar's length is its value.
pub fn draw_bars(bars: &Bars, width: f64, label_share: f64) -> DrawnBars {
    let left = (width * label_share).round();
    let right = width - MARGIN.2;
    let values = bars.bars.iter().map(|(_, v)| *v);
    let low = values.clone().fold(0.0, f64::min);
    let high = values.fold(0.0, f64::max);
    let ticks = nice_ticks(low, high, 5);
    let ticks = if ticks.is_empty() {
        vec![0.0, 1.0]
    } else {
        ticks
    };
    let (x_min, x_max) = (ticks[0], ticks[ticks.len() - 1]);
    let x_of = |v: f64| left + (v - x_min) / (x_max - x_min) * (right - left);
    let bar_height = BAR_ROW * 0.7;
    DrawnBars {
        width,
        height: MARGIN.1 + BAR_ROW * bars.bars.len() as f64 + BAR_AXIS,
        left,
        right,
        x_ticks: ticks.iter().map(|&t| (x_of(t), t)).collect(),
        bars: bars
            .bars
            .iter()
            .enumerate()
            .map(|(i, (_, v))| {
                let top = MARGIN.1 + BAR_ROW * i as f64 + (BAR_ROW - bar_height) / 2.0;
                let (a, b) = (x_of(0.0), x_of(*v));
                (top, a.min(b), a.max(b))
            })
            .collect(),
        bar_height,
    }
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
    fn ticks_are_round_and_cover_the_range() {
        let cases: [(f64, f64, &[f64]); 5] = [
            (0.0, 100.0, &[0.0, 25.0, 50.0, 75.0, 100.0]),
            (0.0, 89.3, &[0.0, 25.0, 50.0, 75.0, 100.0]),
            (14.7, 64.3, &[0.0, 20.0, 40.0, 60.0, 80.0]),
            (0.2, 0.9, &[0.2, 0.4, 0.6000000000000001, 0.8, 1.0]),
            // One value: a range around it.
            (5.0, 5.0, &[4.0, 4.5, 5.0, 5.5, 6.0]),
        ];
        for (low, high, want) in cases {
            assert_eq!(nice_ticks(low, high, 5), want, "{low}..{high}");
        }
        assert!(nice_ticks(f64::NAN, 1.0, 5).is_empty());
    }

    #[test]
    fn points_land_inside_the_plot_area_and_gaps_break_the_line() {
        let chart = Chart {
            metric: "c_dup".to_owned(),
            x_labels: vec!["T1".to_owned(), "T2".to_owned(), "T5".to_owned()],
            series: vec![Series {
                name: "a".to_owned(),
                values: vec![Some(0.0), None, Some(100.0)],
            }],
        };
        let drawn = draw(&chart, 300.0, 200.0);
        let (left, top, right, bottom) = drawn.area;
        let points: Vec<(f64, f64, f64)> = drawn.points[0].iter().flatten().copied().collect();
        // 0 sits on the bottom edge, 100 on the top, the positions spread evenly.
        assert_eq!(points[0].1, bottom);
        assert_eq!(points[1].1, top);
        assert!(points.iter().all(|(x, _, _)| (left..=right).contains(x)));
        assert_eq!(drawn.x_ticks.len(), 3);
        // A rate's axis is its whole scale, even when every value is 0; a count's follows
        // its values.
        let flat = Chart {
            series: vec![Series {
                name: "a".to_owned(),
                values: vec![Some(0.0), Some(0.0)],
            }],
            ..chart.clone()
        };
        let ticks = |c: &Chart| {
            draw(c, 300.0, 200.0)
                .y_ticks
                .iter()
                .map(|t| t.1)
                .collect::<Vec<_>>()
        };
        assert_eq!(ticks(&flat), [0.0, 25.0, 50.0, 75.0, 100.0]);
        let files = Chart {
            metric: "files".to_owned(),
            series: vec![Series {
                name: "a".to_owned(),
                values: vec![Some(2.0), Some(7.0)],
            }],
            ..chart.clone()
        };
        assert_eq!(ticks(&files), [0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(
            drawn.path(0),
            format!(
                "M{:.1} {bottom:.1} M{:.1} {top:.1}",
                points[0].0, points[1].0
            )
        );
    }

    #[test]
    fn a_table_without_positions_is_one_bar_per_row_from_zero() {
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
        let drawn = draw_bars(&bars, 400.0, 0.25);
        let zero = drawn.x_ticks.iter().find(|(_, v)| *v == 0.0).unwrap().0;
        // b runs right from zero, c left; each ends at its value; rows do not overlap.
        assert_eq!(drawn.bars[0].1, zero);
        assert_eq!(drawn.bars[1].2, zero);
        assert!(drawn.bars[1].1 >= drawn.left && drawn.bars[0].2 <= drawn.right);
        assert!(drawn.bars[0].0 + drawn.bar_height < drawn.bars[1].0);
        // A table with line charts makes no bars.
        let lines = ReportedTable {
            columns: vec!["c_dup_t1".to_owned(), "c_dup_t5".to_owned()],
            rows: vec![row("a", &[("c_dup_t1", 1.0), ("c_dup_t5", 2.0)])],
            ..table
        };
        assert_eq!(bars_of(&lines), None);
    }
}
