//! `GET /api/v1/health`: is the server up and its database reachable, and which versions run.

use axum::Json;
use axum::extract::State;
use serde::Serialize;

use crate::AppState;
use crate::error::AppError;
use crate::store::DatabaseHealth;

#[derive(Serialize)]
pub(crate) struct Health {
    status: &'static str,
    version: &'static str,
    scorer: &'static str,
    grammar: &'static str,
    database: DatabaseHealth,
}

pub(crate) async fn get(State(state): State<AppState>) -> Result<Json<Health>, AppError> {
    Ok(Json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
        scorer: wheelwright_core::SCORER_VERSION,
        grammar: wheelwright_core::syntax::GRAMMAR_VERSION,
        database: state.store.health().await?,
    }))
}
