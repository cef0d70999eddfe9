//! Leaderboard rows: filtering, sorting and CSV, shared by the server's API and the app.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::metric::Direction;
use crate::table::push_record;

/// Where a row's numbers come from; the leaderboard never mixes them up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// Transcribed from a paper; not recomputed.
    Reported,
    /// Scored and tested by this server.
    Verified,
    /// Computed by the tool from the dataset itself (reference, empty, copy).
    Baseline,
}

impl Origin {
    pub fn from_id(id: &str) -> Option<Self> {
        match id {
            "reported" => Some(Self::Reported),
            "verified" => Some(Self::Verified),
            "baseline" => Some(Self::Baseline),
            _ => None,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Self::Reported => "reported",
            Self::Verified => "verified",
            Self::Baseline => "baseline",
        }
    }
}

/// One row of a leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardRow {
    pub origin: Origin,
    /// What the row is about: model, harness, memory setting, ...
    pub labels: BTreeMap<String, String>,
    pub metrics: BTreeMap<String, f64>,
    /// The paper a reported row comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The stored run a verified or baseline row shows (`/api/v1/runs/{run}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<i64>,
    /// What the row was evaluated on (`paper, full set`, `dataset reporeuse-networkx 1`):
    /// rows are ranked only against rows of the same cohort ([`bands`]).
    #[serde(default)]
    pub cohort: String,
}

/// A sort direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Ascending,
    Descending,
}

impl Order {
    /// `asc` or `desc`, as URLs spell it.
    pub fn from_id(id: &str) -> Option<Self> {
        match id {
            "asc" => Some(Self::Ascending),
            "desc" => Some(Self::Descending),
            _ => None,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Self::Ascending => "asc",
            Self::Descending => "desc",
        }
    }

    pub fn reversed(self) -> Self {
        match self {
            Self::Ascending => Self::Descending,
            Self::Descending => Self::Ascending,
        }
    }
}

/// The order that puts the best row first when sorting by `column`: ascending for a metric
/// where lower is better (C_dup, cost), descending for the other metrics (largest first),
/// ascending (alphabetical) for a label.
pub fn best_first(column: &str, is_metric: bool) -> Order {
    match crate::metric::metric(column).map(|m| m.direction) {
        Some(Direction::LowerIsBetter) => Order::Ascending,
        _ if is_metric => Order::Descending,
        _ => Order::Ascending,
    }
}

/// Which rows to show, in which order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    pub origin: Option<Origin>,
    /// Label name -> required value.
    pub filters: BTreeMap<String, String>,
    /// A metric or label name.
    pub sort: Option<String>,
    /// `None`: best first for the sort column ([`best_first`]).
    pub order: Option<Order>,
}

/// A query that names something the leaderboard does not have.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("cannot filter by {0:?}: filter by one of {1}")]
    UnknownFilter(String, String),
    #[error("cannot sort by {0:?}: sort by one of {1}")]
    UnknownSort(String, String),
}

/// The label names and metric names used by `rows`, in first-seen order.
pub fn columns(rows: &[LeaderboardRow]) -> (Vec<String>, Vec<String>) {
    let mut labels: Vec<String> = Vec::new();
    let mut metrics: Vec<String> = Vec::new();
    for row in rows {
        for key in row.labels.keys() {
            if !labels.contains(key) {
                labels.push(key.clone());
            }
        }
        for key in row.metrics.keys() {
            if !metrics.contains(key) {
                metrics.push(key.clone());
            }
        }
    }
    (labels, metrics)
}

/// Applies `query` to `rows`. Filters and sort keys are checked against the rows' own labels
/// and metrics, so a typo is an error rather than an empty table.
pub fn apply(
    mut rows: Vec<LeaderboardRow>,
    query: &Query,
) -> Result<Vec<LeaderboardRow>, QueryError> {
    let (labels, metrics) = columns(&rows);
    for key in query.filters.keys() {
        if !labels.contains(key) {
            return Err(QueryError::UnknownFilter(key.clone(), labels.join(", ")));
        }
    }
    if let Some(sort) = &query.sort
        && !labels.contains(sort)
        && !metrics.contains(sort)
    {
        let known: Vec<String> = metrics.iter().chain(&labels).cloned().collect();
        return Err(QueryError::UnknownSort(sort.clone(), known.join(", ")));
    }
    rows.retain(|row| {
        query.origin.is_none_or(|o| row.origin == o)
            && query
                .filters
                .iter()
                .all(|(k, v)| row.labels.get(k).is_some_and(|l| l.eq_ignore_ascii_case(v)))
    });
    if let Some(sort) = &query.sort {
        let descending = query
            .order
            .unwrap_or_else(|| best_first(sort, metrics.contains(sort)))
            == Order::Descending;
        // Stable sort: rows that tie keep their published order. Missing values go last
        // whichever the direction.
        rows.sort_by(|a, b| {
            let ordering = match (a.metrics.get(sort), b.metrics.get(sort)) {
                (Some(x), Some(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
                (Some(_), None) => return Ordering::Less,
                (None, Some(_)) => return Ordering::Greater,
                (None, None) => match (a.labels.get(sort), b.labels.get(sort)) {
                    (Some(x), Some(y)) => x.cmp(y),
                    (Some(_), None) => return Ordering::Less,
                    (None, Some(_)) => return Ordering::Greater,
                    (None, None) => Ordering::Equal,
                },
            };
            if descending {
                ordering.reverse()
            } else {
                ordering
            }
        });
    }
    Ok(rows)
}

/// Rows that may be ranked against each other, in the order the table shows them: the
/// agents of one cohort, or its baselines (computed from the dataset, never ranked).
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    pub cohort: String,
    pub baseline: bool,
    /// Each row with its rank ([`bands`]).
    pub rows: Vec<(Option<u32>, LeaderboardRow)>,
}

/// Groups `rows` (already filtered and sorted, [`apply`]) into bands, keeping their order
/// within each: each cohort's agents' rows (reported and verified), cohorts in first-seen
/// order, then each cohort's baselines. An agent row's rank is its place by `rank_by` among
/// its band's rows that have a value, best first whichever way the table is sorted; tied
/// values share a rank and the next rank skips (1, 2, 2, 4). Rows get no rank when
/// `rank_by` is no metric with a better direction (a label, files, lines) or is missing.
///
/// ```
/// # use std::collections::BTreeMap;
/// use wheelwright_core::leaderboard::{LeaderboardRow, Origin, bands};
/// let row = |origin, c_dup: f64| LeaderboardRow {
///     origin,
///     labels: BTreeMap::new(),
///     metrics: BTreeMap::from([("c_dup".to_owned(), c_dup)]),
///     source: None,
///     run: None,
///     cohort: "paper, full set".to_owned(),
/// };
/// let shown = bands(
///     vec![row(Origin::Reported, 40.0), row(Origin::Baseline, 0.0), row(Origin::Reported, 20.0)],
///     Some("c_dup"),
/// );
/// // Lower C_dup is better: 20.0 ranks first; the baseline is in its own band, unranked.
/// let ranks: Vec<Vec<Option<u32>>> =
///     shown.iter().map(|b| b.rows.iter().map(|(rank, _)| *rank).collect()).collect();
/// assert_eq!(ranks, [vec![Some(2), Some(1)], vec![None]]);
/// ```
pub fn bands(rows: Vec<LeaderboardRow>, rank_by: Option<&str>) -> Vec<Band> {
    let mut shown: Vec<Band> = Vec::new();
    for row in rows {
        let baseline = row.origin == Origin::Baseline;
        match shown
            .iter_mut()
            .find(|b| b.cohort == row.cohort && b.baseline == baseline)
        {
            Some(band) => band.rows.push((None, row)),
            None => shown.push(Band {
                cohort: row.cohort.clone(),
                baseline,
                rows: vec![(None, row)],
            }),
        }
    }
    // Every agent band above every baseline band; each kind's cohorts in first-seen order
    // (a stable sort keeps it).
    shown.sort_by_key(|b| b.baseline);
    let direction = rank_by.and_then(crate::metric::metric).map(|m| m.direction);
    let (Some(metric), Some(Direction::HigherIsBetter | Direction::LowerIsBetter)) =
        (rank_by, direction)
    else {
        return shown;
    };
    let better = |a: f64, b: f64| match direction {
        Some(Direction::LowerIsBetter) => a < b,
        _ => a > b,
    };
    for band in shown.iter_mut().filter(|b| !b.baseline) {
        let values: Vec<f64> = band
            .rows
            .iter()
            .filter_map(|(_, r)| r.metrics.get(metric).copied())
            .collect();
        for (rank, row) in &mut band.rows {
            *rank = row.metrics.get(metric).map(|&v| {
                let ahead = values.iter().filter(|&&o| better(o, v)).count();
                u32::try_from(ahead).unwrap_or(u32::MAX).saturating_add(1)
            });
        }
    }
    shown
}

/// The rows as CSV (RFC 4180): origin, cohort, the given label and metric columns, source.
pub fn to_csv(labels: &[String], metrics: &[String], rows: &[LeaderboardRow]) -> String {
    let mut out = String::new();
    let header: Vec<&str> = ["origin", "cohort"]
        .into_iter()
        .chain(labels.iter().map(String::as_str))
        .chain(metrics.iter().map(String::as_str))
        .chain(std::iter::once("source"))
        .collect();
    push_record(&mut out, header.iter().map(|s| (*s).to_owned()));
    for row in rows {
        let fields = [row.origin.id().to_owned(), row.cohort.clone()]
            .into_iter()
            .chain(
                labels
                    .iter()
                    .map(|k| row.labels.get(k).cloned().unwrap_or_default()),
            )
            .chain(
                metrics
                    .iter()
                    .map(|k| row.metrics.get(k).map(f64::to_string).unwrap_or_default()),
            )
            .chain(std::iter::once(row.source.clone().unwrap_or_default()));
        push_record(&mut out, fields);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(model: &str, harness: &str, score: Option<f64>) -> LeaderboardRow {
        LeaderboardRow {
            origin: Origin::Reported,
            labels: [("model", model), ("harness", harness)]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            metrics: score.map(|s| ("pass".to_owned(), s)).into_iter().collect(),
            source: Some("Paper, 2026".to_owned()),
            run: None,
            cohort: "paper".to_owned(),
        }
    }

    fn models(rows: &[LeaderboardRow]) -> Vec<&str> {
        rows.iter().map(|r| r.labels["model"].as_str()).collect()
    }

    fn rows() -> Vec<LeaderboardRow> {
        vec![
            row("a", "OpenCode", Some(50.0)),
            row("b", "mini-SWE-agent", None),
            row("c", "OpenCode", Some(70.0)),
            row("d", "mini-SWE-agent", Some(60.0)),
        ]
    }

    #[test]
    fn sorts_by_metric_with_missing_values_last_in_both_directions() {
        let sort = |order| Query {
            sort: Some("pass".to_owned()),
            order,
            ..Query::default()
        };
        assert_eq!(
            models(&apply(rows(), &sort(Some(Order::Descending))).unwrap()),
            ["c", "d", "a", "b"]
        );
        assert_eq!(
            models(&apply(rows(), &sort(Some(Order::Ascending))).unwrap()),
            ["a", "d", "c", "b"]
        );
        // Without an order, best first: pass is higher-is-better.
        assert_eq!(
            models(&apply(rows(), &sort(None)).unwrap()),
            ["c", "d", "a", "b"]
        );
    }

    #[test]
    fn best_first_follows_the_metric_direction() {
        let cases = [
            ("c_dup", true, Order::Ascending),
            ("cost_usd", true, Order::Ascending),
            ("reuse_repo", true, Order::Descending),
            ("files", true, Order::Descending),
            ("not_in_the_registry", true, Order::Descending),
            ("model", false, Order::Ascending),
        ];
        for (column, is_metric, want) in cases {
            assert_eq!(best_first(column, is_metric), want, "{column}");
        }
        let mut lower = rows();
        for (row, c_dup) in lower.iter_mut().zip([30.0, 10.0, 20.0, 40.0]) {
            row.metrics.insert("c_dup".to_owned(), c_dup);
        }
        let query = Query {
            sort: Some("c_dup".to_owned()),
            ..Query::default()
        };
        assert_eq!(models(&apply(lower, &query).unwrap()), ["b", "c", "a", "d"]);
    }

    /// Each band as `cohort[/baseline]: model#rank ...`.
    fn band_summary(shown: &[Band]) -> Vec<String> {
        shown
            .iter()
            .map(|band| {
                let rows: Vec<String> = band
                    .rows
                    .iter()
                    .map(|(rank, r)| match rank {
                        Some(rank) => format!("{}#{rank}", r.labels["model"]),
                        None => r.labels["model"].clone(),
                    })
                    .collect();
                let kind = if band.baseline { "/baseline" } else { "" };
                format!("{}{kind}: {}", band.cohort, rows.join(" "))
            })
            .collect()
    }

    #[test]
    fn bands_keep_cohorts_apart_put_baselines_below_all_agents_and_rank_with_ties() {
        let make = |model: &str, origin, cohort: &str, pass: Option<f64>| {
            let mut r = row(model, "h", pass);
            r.origin = origin;
            r.cohort = cohort.to_owned();
            r.metrics.insert("files".to_owned(), 3.0);
            r
        };
        let rows = vec![
            make("empty", Origin::Baseline, "paper", Some(0.0)),
            make("a", Origin::Reported, "paper", Some(70.0)),
            make("b", Origin::Reported, "paper", Some(60.0)),
            make("mine", Origin::Verified, "dataset x 1", Some(99.0)),
            make("c", Origin::Reported, "paper", Some(60.0)),
            make("d", Origin::Reported, "paper", Some(50.0)),
            make("e", Origin::Reported, "paper", None),
            make("ref", Origin::Baseline, "dataset x 1", Some(100.0)),
        ];
        let cases: [(Option<&str>, [&str; 4]); 3] = [
            (
                Some("pass"),
                [
                    "paper: a#1 b#2 c#2 d#4 e",
                    "dataset x 1: mine#1",
                    "paper/baseline: empty",
                    "dataset x 1/baseline: ref",
                ],
            ),
            // Descriptive metrics and labels rank nothing.
            (
                Some("files"),
                [
                    "paper: a b c d e",
                    "dataset x 1: mine",
                    "paper/baseline: empty",
                    "dataset x 1/baseline: ref",
                ],
            ),
            (
                None,
                [
                    "paper: a b c d e",
                    "dataset x 1: mine",
                    "paper/baseline: empty",
                    "dataset x 1/baseline: ref",
                ],
            ),
        ];
        for (rank_by, want) in cases {
            assert_eq!(
                band_summary(&bands(rows.clone(), rank_by)),
                want,
                "{rank_by:?}"
            );
        }
        // Ranks are best first whatever the shown order: the same ranks, rows reversed.
        let mut reversed = rows.clone();
        reversed.reverse();
        assert!(
            band_summary(&bands(reversed, Some("pass")))
                .contains(&"paper: e d#4 c#2 b#2 a#1".to_owned())
        );
    }

    #[test]
    fn filters_by_label_ignoring_case_and_by_origin() {
        let mut query = Query::default();
        query
            .filters
            .insert("harness".to_owned(), "opencode".to_owned());
        assert_eq!(models(&apply(rows(), &query).unwrap()), ["a", "c"]);
        query.origin = Some(Origin::Verified);
        assert!(apply(rows(), &query).unwrap().is_empty());
    }

    #[test]
    fn unknown_filters_and_sort_keys_are_errors_naming_the_known_ones() {
        let mut query = Query::default();
        query.filters.insert("modle".to_owned(), "a".to_owned());
        let error = apply(rows(), &query).unwrap_err().to_string();
        assert!(error.contains("harness, model"), "{error}");
        let query = Query {
            sort: Some("nope".to_owned()),
            ..Query::default()
        };
        assert!(matches!(
            apply(rows(), &query),
            Err(QueryError::UnknownSort(..))
        ));
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let mut r = row("x, \"y\"", "h", Some(1.5));
        r.source = None;
        let (labels, metrics) = columns(std::slice::from_ref(&r));
        assert_eq!(
            to_csv(&labels, &metrics, &[r]),
            "origin,cohort,harness,model,pass,source\r\nreported,paper,h,\"x, \"\"y\"\"\",1.5,\r\n"
        );
    }
}
