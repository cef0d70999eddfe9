//! `/api/v1/schrodinger`: SchrodingerRepo's views of a dataset's repositories, one file at a time, for the view explorer; the old `/recube/.../view` address answers with a permanent redirect here.
//!
//! - `GET /schrodinger/datasets/{name}/{version}/repositories/{repo}/view?seed=N&levels=2,3[&path=P][&namespace=virtual]`:
//!   one Python file of the repository's view (the first without `path`), beside its
//!   original; with `namespace=virtual` (level 2 alone), the file as an agent reads it in
//!   the virtual namespace; made on a slot of the work pool;
//! - `GET /recube/datasets/{name}/{version}/repositories/{repo}/view?...`: 308 to the same
//!   path and query under `/schrodinger`, for clients of the address the view had first.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{OriginalUri, Path, Query, State};
use axum::response::Redirect;

use super::recube::dataset;
use crate::AppState;
use crate::error::AppError;
use crate::schrodinger::{ViewRequest, Viewed, view as make_view};

/// `GET /api/v1/schrodinger/datasets/{name}/{version}/repositories/{repo}/view`: one file
/// of the repository's SchrodingerRepo view beside its original.
pub(crate) async fn view(
    State(state): State<AppState>,
    client: super::Client,
    Path((name, version, repo)): Path<(String, String, String)>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Json<wheelwright_core::api::ViewFile>, AppError> {
    let request = ViewRequest::parse(&params).map_err(AppError::bad_request)?;
    let loaded = dataset(&state, &name, &version)?;
    let job = state.work.try_job(client.0)?;
    let viewed = job
        .run(move |_| make_view(&loaded, &repo, &request))
        .await??;
    drop(job);
    match viewed {
        Viewed::File(file) => Ok(Json(file)),
        Viewed::NoRepository => Err(AppError::not_found(format!(
            "the dataset {name} {version} has no repository of that name; GET /api/v1/recube/datasets/{name}/{version} lists them"
        ))),
        Viewed::NoFile => Err(AppError::not_found(
            "the repository has no such Python file; the reply without path lists them (files)",
        )),
        Viewed::Refused(why) => Err(AppError::bad_request(why)),
    }
}

/// `GET /api/v1/recube/datasets/{name}/{version}/repositories/{repo}/view`: 308 Permanent
/// Redirect to the view's address under `/schrodinger`, path and query kept as sent.
pub(crate) async fn moved_view(OriginalUri(uri): OriginalUri) -> Redirect {
    let path = uri.path().replacen("/recube/", "/schrodinger/", 1);
    let location = match uri.query() {
        Some(query) => format!("{path}?{query}"),
        None => path,
    };
    Redirect::permanent(&location)
}
