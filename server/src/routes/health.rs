//! `GET /api/v1/health`: is the server up and its database reachable, and which versions run.

use axum::Json;
use axum::extract::State;

use crate::AppState;
use crate::error::AppError;
use wheelwright_core::api::Health;

pub(crate) async fn get(State(state): State<AppState>) -> Result<Json<Health>, AppError> {
    Ok(Json(Health {
        status: "ok".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        scorer: wheelwright_core::SCORER_VERSION.to_owned(),
        grammar: wheelwright_core::syntax::GRAMMAR_VERSION.to_owned(),
        database: state.store.health().await?,
    }))
}
