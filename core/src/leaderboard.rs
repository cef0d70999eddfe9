//! Leaderboard rows: filtering, sorting and CSV, shared by the server's API and the app.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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
}

/// Which rows to show, in which order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    pub origin: Option<Origin>,
    /// Label name -> required value.
    pub filters: BTreeMap<String, String>,
    /// A metric or label name.
    pub sort: Option<String>,
    /// Descending when true (the default for metrics: best first).
    pub descending: bool,
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
            if query.descending {
                ordering.reverse()
            } else {
                ordering
            }
        });
    }
    Ok(rows)
}

/// The rows as CSV (RFC 4180): origin, the given label and metric columns, source.
pub fn to_csv(labels: &[String], metrics: &[String], rows: &[LeaderboardRow]) -> String {
    let mut out = String::new();
    let header: Vec<&str> = std::iter::once("origin")
        .chain(labels.iter().map(String::as_str))
        .chain(metrics.iter().map(String::as_str))
        .chain(std::iter::once("source"))
        .collect();
    push_record(&mut out, header.iter().map(|s| (*s).to_owned()));
    for row in rows {
        let fields = std::iter::once(row.origin.id().to_owned())
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
        let sort = |descending| Query {
            sort: Some("pass".to_owned()),
            descending,
            ..Query::default()
        };
        assert_eq!(
            models(&apply(rows(), &sort(true)).unwrap()),
            ["c", "d", "a", "b"]
        );
        assert_eq!(
            models(&apply(rows(), &sort(false)).unwrap()),
            ["a", "d", "c", "b"]
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
            "origin,harness,model,pass,source\r\nreported,h,\"x, \"\"y\"\"\",1.5,\r\n"
        );
    }
}
