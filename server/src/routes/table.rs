//! Tables as JSON or CSV: the `format` query parameter every table endpoint takes.

use axum::Json;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::error::AppError;

/// The `format` query parameter: `json` (the default) or `csv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Json,
    Csv,
}

impl Format {
    pub(crate) fn parse(value: Option<&str>) -> Result<Self, AppError> {
        match value {
            None | Some("json") => Ok(Self::Json),
            Some("csv") => Ok(Self::Csv),
            Some(other) => Err(AppError::bad_request(format!(
                "format {other:?} is not json or csv"
            ))),
        }
    }
}

/// `rows` as a JSON array, or as a CSV download named `<name>.csv` (one row per record,
/// scores flattened to their values by [`wheelwright_core::table::to_csv`], the columns
/// in `order` first).
pub(crate) fn respond<T: Serialize>(
    format: Format,
    name: &str,
    order: &[&str],
    rows: &[T],
) -> Result<Response, AppError> {
    match format {
        Format::Json => Ok(Json(rows).into_response()),
        Format::Csv => Ok(csv(
            name,
            wheelwright_core::table::to_csv(&to_values(rows)?, order),
        )),
    }
}

/// Serialises `rows` to JSON values (for CSV); a failure is the server's.
pub(crate) fn to_values<T: Serialize>(rows: &[T]) -> Result<Vec<serde_json::Value>, AppError> {
    rows.iter()
        .map(|row| serde_json::to_value(row).map_err(|e| AppError::Internal(e.into())))
        .collect()
}

/// A CSV body offered as the download `<name>.csv`.
pub(crate) fn csv(name: &str, body: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}.csv\""),
            ),
        ],
        body,
    )
        .into_response()
}
