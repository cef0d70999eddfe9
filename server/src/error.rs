//! The server's one error type: every handler returns it, and it decides what clients see.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// An error answered to a client. Internal causes are logged, never sent.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AppError {
    /// The request itself is wrong; the message says how to fix it.
    #[error("{message}")]
    Client { status: StatusCode, message: String },
    /// Something failed inside the server; clients get a generic message.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

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

impl From<crate::db::DbError> for AppError {
    fn from(error: crate::db::DbError) -> Self {
        Self::Internal(error.into())
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        match self {
            Self::Client { status, message } => {
                (status, Json(ErrorBody { error: &message })).into_response()
            }
            Self::Internal(error) => {
                tracing::error!(error = format!("{error:#}"), "request failed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    Json(ErrorBody {
                        error: "internal error; the server log has the details",
                    }),
                )
                    .into_response()
            }
        }
    }
}
