//! The papers' published results: reading them and splitting each row into labels and metrics.
//!
//! A published file holds tables transcribed from a paper; each row mixes labels (model,
//! harness, setting) with numbers (metrics in percent, counts). Rows are kept as they were
//! published ("reported"), never recomputed, and are shown apart from runs the server verified.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::benchmark::Benchmark;

/// Keys that name what a row is about rather than measure it, even when numeric (`level`).
const LABEL_KEYS: &[&str] = &[
    "harness", "model", "memory", "setting", "scale", "quartile", "level", "instance",
];

/// A published results file as it is stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PublishedFile {
    pub benchmark: Benchmark,
    /// The paper, as a citation line.
    pub source: String,
    #[serde(default)]
    pub notes: String,
    pub tables: Vec<PublishedTable>,
}

/// One table of a paper.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PublishedTable {
    pub id: String,
    pub title: String,
    /// The metric columns in the paper's order, when the file lists them.
    #[serde(default)]
    pub columns: Option<Vec<String>>,
    pub rows: Vec<BTreeMap<String, serde_json::Value>>,
}

/// A row split into what it is about and what it measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportedRow {
    pub labels: BTreeMap<String, String>,
    pub metrics: BTreeMap<String, f64>,
}

/// Why a published file was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum PublishedError {
    #[error("published results are not valid JSON of the expected shape: {0}")]
    Shape(#[from] serde_json::Error),
    #[error(
        "table {table}, row {row}: value of {key:?} is neither a number nor text; fix the file"
    )]
    Value {
        table: String,
        row: usize,
        key: String,
    },
    #[error("table {table}, row {row}: column {column:?} is listed but missing or not a number")]
    Column {
        table: String,
        row: usize,
        column: String,
    },
}

/// Parses a published results file.
pub fn parse(text: &str) -> Result<PublishedFile, PublishedError> {
    Ok(serde_json::from_str(text)?)
}

impl PublishedTable {
    /// The metric columns: as listed, else every numeric key that is not a label, in key order.
    pub fn metric_columns(&self) -> Vec<String> {
        if let Some(columns) = &self.columns {
            return columns.clone();
        }
        let mut columns: Vec<String> = Vec::new();
        for row in &self.rows {
            for (key, value) in row {
                if value.is_number() && !is_label(key) && !columns.contains(key) {
                    columns.push(key.clone());
                }
            }
        }
        columns
    }

    /// Every row split into labels and metrics.
    pub fn reported_rows(&self) -> Result<Vec<ReportedRow>, PublishedError> {
        let columns = self.metric_columns();
        self.rows
            .iter()
            .enumerate()
            .map(|(index, row)| {
                let mut labels = BTreeMap::new();
                let mut metrics = BTreeMap::new();
                for (key, value) in row {
                    let metric = columns.contains(key);
                    match value {
                        serde_json::Value::Number(n) if metric => {
                            metrics.insert(key.clone(), n.as_f64().unwrap_or(f64::NAN));
                        }
                        serde_json::Value::Number(n) => {
                            labels.insert(key.clone(), n.to_string());
                        }
                        serde_json::Value::String(s) if !metric => {
                            labels.insert(key.clone(), s.clone());
                        }
                        // Flags such as ReCUBE's `significant` (p < 0.05) describe the row.
                        serde_json::Value::Bool(b) if !metric => {
                            labels.insert(key.clone(), b.to_string());
                        }
                        _ => {
                            return Err(PublishedError::Value {
                                table: self.id.clone(),
                                row: index + 1,
                                key: key.clone(),
                            });
                        }
                    }
                }
                // A table that lists its columns promises every one in every row; without a
                // list, rows may be sparse (the paper left cells empty).
                let listed = self.columns.as_deref().unwrap_or_default();
                if let Some(column) = listed.iter().find(|c| !metrics.contains_key(*c)) {
                    return Err(PublishedError::Column {
                        table: self.id.clone(),
                        row: index + 1,
                        column: column.clone(),
                    });
                }
                Ok(ReportedRow { labels, metrics })
            })
            .collect()
    }
}

fn is_label(key: &str) -> bool {
    LABEL_KEYS.contains(&key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(columns: Option<&[&str]>, rows: serde_json::Value) -> PublishedTable {
        PublishedTable {
            id: "t".to_owned(),
            title: "T".to_owned(),
            columns: columns.map(|c| c.iter().map(|s| (*s).to_owned()).collect()),
            rows: serde_json::from_value(rows).unwrap(),
        }
    }

    #[test]
    fn listed_columns_are_metrics_and_the_rest_labels() {
        let t = table(
            Some(&["spr", "apr"]),
            serde_json::json!([{ "setting": "Agent", "model": "M", "spr": 25.5, "apr": 36 }]),
        );
        let rows = t.reported_rows().unwrap();
        assert_eq!(rows[0].labels["setting"], "Agent");
        assert_eq!(rows[0].metrics["apr"], 36.0);
        assert_eq!(rows[0].metrics.len(), 2);
    }

    #[test]
    fn without_columns_numbers_are_metrics_except_label_keys() {
        let t = table(
            None,
            serde_json::json!([{ "level": 1, "min_drop": 0.0, "max_drop": 2.0 }]),
        );
        assert_eq!(t.metric_columns(), ["max_drop", "min_drop"]);
        let rows = t.reported_rows().unwrap();
        assert_eq!(rows[0].labels["level"], "1");
    }

    #[test]
    fn a_listed_column_missing_from_a_row_is_an_error() {
        let t = table(Some(&["spr"]), serde_json::json!([{ "model": "M" }]));
        let error = t.reported_rows().unwrap_err().to_string();
        assert!(error.contains("column \"spr\""), "{error}");
    }

    #[test]
    fn without_listed_columns_rows_may_be_sparse() {
        let t = table(
            None,
            serde_json::json!([{ "model": "a", "x": 1.0 }, { "model": "b", "y": 2.0 }]),
        );
        let rows = t.reported_rows().unwrap();
        assert_eq!(t.metric_columns(), ["x", "y"]);
        assert!(!rows[1].metrics.contains_key("x"));
    }

    #[test]
    fn flags_are_labels() {
        let t = table(
            Some(&["tau"]),
            serde_json::json!([{ "model": "M", "tau": -0.2, "significant": true }]),
        );
        assert_eq!(t.reported_rows().unwrap()[0].labels["significant"], "true");
    }

    #[test]
    fn nested_values_are_refused() {
        let t = table(None, serde_json::json!([{ "model": ["a"] }]));
        assert!(t.reported_rows().is_err());
    }
}
