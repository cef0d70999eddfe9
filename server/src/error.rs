//! The server's one error type: every handler returns it, and it decides what clients see.

use std::time::Duration;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use wheelwright_core::api::ErrorBody;

/// An error answered to a client. Internal causes are logged, never sent.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AppError {
    /// The request itself is wrong; the message says how to fix it.
    #[error("{message}")]
    Client { status: StatusCode, message: String },
    /// The server is at one of its limits for now (503 with `Retry-After`): the same
    /// request may succeed later.
    #[error("{message}")]
    Busy {
        message: String,
        retry_after: Duration,
    },
    /// This client already holds its share of a limit that others share (429 with
    /// `Retry-After`): the same request may succeed once its other requests are done.
    #[error("{message}")]
    TooMany {
        message: String,
        retry_after: Duration,
    },
    /// Something failed inside the server; clients get a generic message (or, when the
    /// disk is full, a 507 that says so).
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

/// What a client is told when the disk under the data directory is full.
pub(crate) const DISK_FULL: &str = "the server's disk is full, so nothing was stored; try again later (the server's operator has to free space)";

/// What a client is told when other writes held the database for longer than it waits.
pub(crate) const DATABASE_BUSY: &str =
    "the server's database is busy with other writes; try again in a few seconds";

impl AppError {
    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::Client {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::Client {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
        }
    }
}

impl From<crate::store::DbError> for AppError {
    fn from(error: crate::store::DbError) -> Self {
        Self::Internal(error.into())
    }
}

/// The API's error shape, `{"error": message}` ([`ErrorBody`], which the app reads), with
/// `status`.
pub(crate) fn error_response(status: StatusCode, message: &str) -> Response {
    let body = ErrorBody {
        error: message.to_owned(),
    };
    (status, Json(body)).into_response()
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        match self {
            Self::Client { status, message } => error_response(status, &message),
            Self::Busy {
                message,
                retry_after,
            } => {
                let mut response = error_response(StatusCode::SERVICE_UNAVAILABLE, &message);
                // Whole seconds, at least one: what `Retry-After` allows.
                let seconds = retry_after.as_secs().max(1);
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
                response
            }
            Self::TooMany {
                message,
                retry_after,
            } => {
                let mut response = error_response(StatusCode::TOO_MANY_REQUESTS, &message);
                // Whole seconds, at least one: what `Retry-After` allows.
                let seconds = retry_after.as_secs().max(1);
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
                response
            }
            Self::Internal(error) if is_disk_full(&error) => {
                tracing::error!(error = format!("{error:#}"), "request failed: disk full");
                error_response(StatusCode::INSUFFICIENT_STORAGE, DISK_FULL)
            }
            Self::Internal(error) if error.chain().any(crate::store::says_busy) => {
                tracing::warn!(
                    error = format!("{error:#}"),
                    "request failed: database busy"
                );
                Self::Busy {
                    message: DATABASE_BUSY.to_owned(),
                    retry_after: Duration::from_secs(5),
                }
                .into_response()
            }
            Self::Internal(error) => {
                tracing::error!(error = format!("{error:#}"), "request failed");
                error_response(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal error; the server log has the details",
                )
            }
        }
    }
}

/// Whether `error` (or any cause in its chain) says the disk or the quota is full: the
/// database's own error for it ([`crate::store::says_full`]), or `ENOSPC`/`EDQUOT` from
/// the file system.
pub(crate) fn is_disk_full(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        crate::store::says_full(cause)
            .unwrap_or_else(|| cause.downcast_ref::<std::io::Error>().is_some_and(io_full))
    })
}

/// `ENOSPC` and `EDQUOT` (std maps the errno to these kinds).
pub(crate) fn io_full(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_disks_are_told_apart_from_other_failures() {
        let cases: [(anyhow::Error, bool); 5] = [
            (std::io::Error::from_raw_os_error(28).into(), true),
            (
                anyhow::Error::from(std::io::Error::from_raw_os_error(28))
                    .context("writing the run"),
                true,
            ),
            (
                sqlx::Error::Io(std::io::Error::from_raw_os_error(28)).into(),
                true,
            ),
            (std::io::Error::from_raw_os_error(13).into(), false),
            (
                anyhow::anyhow!("no space left on device (only text)"),
                false,
            ),
        ];
        for (error, full) in cases {
            assert_eq!(is_disk_full(&error), full, "{error:#}");
        }
    }
}
