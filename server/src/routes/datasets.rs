//! `GET /api/v1/datasets`, `GET /api/v1/datasets/{name}/{version}` and `.../source`: the
//! imported datasets; for one, its chains and turns with their requirements and targets, and
//! its repository's source files by path and line range.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::table::{Format, respond};
use crate::AppState;
use crate::error::AppError;
use wheelwright_core::api::{DatasetDetail, SourceFiles, SourceLines};

/// Column orders of the CSV downloads.
const DATASET_ORDER: [&str; 7] = [
    "name",
    "version",
    "benchmark",
    "chain_count",
    "turn_count",
    "test_count",
    "content_sha256",
];
const DATASET_TURN_ORDER: [&str; 8] = [
    "chain",
    "turn",
    "title",
    "module_path",
    "repo_targets",
    "self_targets",
    "tests",
    "requirement",
];

/// Most lines one source request returns; ask for ranges to read more.
pub(crate) const MAX_SOURCE_LINES: usize = 5_000;

pub(crate) async fn list(
    State(state): State<AppState>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let format = Format::parse(params.get("format").map(String::as_str))?;
    let rows = state.store.datasets().await?;
    respond(format, "datasets", &DATASET_ORDER, &rows)
}

pub(crate) async fn get(
    State(state): State<AppState>,
    Path((name, version)): Path<(String, String)>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let format = Format::parse(params.get("format").map(String::as_str))?;
    let summary = state.store.dataset(&name, &version).await?.ok_or_else(|| {
        AppError::not_found(format!(
            "no dataset {name:?} at version {version:?}; GET /api/v1/datasets lists them"
        ))
    })?;
    let turns = state.store.dataset_turns(&name, &version).await?;
    if format == Format::Csv {
        return respond(
            format,
            &format!("{name}-{version}-turns"),
            &DATASET_TURN_ORDER,
            &turns,
        );
    }
    let loaded = state.catalog.get(&name, &version);
    Ok(Json(DatasetDetail {
        summary,
        turns,
        repositories: loaded
            .as_ref()
            .map(|l| {
                l.dataset
                    .manifest
                    .repository_sources()
                    .into_iter()
                    .map(|(id, source)| (id.to_owned(), source.clone()))
                    .collect()
            })
            .unwrap_or_default(),
        chains: loaded.as_ref().map_or_else(Vec::new, |l| {
            l.dataset
                .chains
                .iter()
                .map(|c| c.manifest.clone())
                .collect()
        }),
        stats: loaded.map(|l| l.stats.clone()),
        paper_stats: crate::published::reporeuse_dataset_stats().cloned(),
    })
    .into_response())
}

/// `GET /api/v1/datasets/{name}/{version}/scoring`: the [`ScoringKit`] the browser scores
/// a run with, gzip-compressed (decompressed for a client that does not accept gzip), with
/// the dataset's content hash and [`KIT_FORMAT`] as its `ETag`: a browser that has it asks
/// again with `If-None-Match` and gets a 304 without a body.
///
/// [`ScoringKit`]: wheelwright_core::api::ScoringKit
pub(crate) async fn scoring(
    State(state): State<AppState>,
    Path((name, version)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let loaded = loaded_dataset(&state, &name, &version)?;
    let etag = format!("\"{}-{KIT_FORMAT}\"", loaded.content_sha256);
    if not_modified(&headers, &etag) {
        return Ok((StatusCode::NOT_MODIFIED, revalidated(etag)).into_response());
    }
    let gzip = tokio::task::spawn_blocking(move || loaded.scoring_kit_gzip())
        .await
        .map_err(|e| AppError::Internal(e.into()))?
        .map_err(AppError::Internal)?;
    gzipped(&headers, etag, "application/json", gzip).await
}

/// The kit's shape, in its `ETag` beside the content hash: a browser holding a kit of an
/// earlier shape (one `repository` of files) must not be told it is still current.
const KIT_FORMAT: &str = "kit2";

/// `GET /api/v1/datasets/{name}/{version}/scoring/index[?repository=R]`: repository `R`'s
/// index (the dataset's only one without `R`) as core saves it
/// (`wheelwright_core::python::snapshot`: postcard bytes naming the build and the SHA-256
/// of the files they were made from), so the browser loads it instead of parsing every
/// file of the repository; served as the kit is, with the bytes' SHA-256 as `ETag`. The
/// browser checks it against the kit's files and indexes them itself if it does not match.
pub(crate) async fn saved_index(
    State(state): State<AppState>,
    Path((name, version)): Path<(String, String)>,
    Query(params): Query<BTreeMap<String, String>>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let loaded = loaded_dataset(&state, &name, &version)?;
    if let Some(unknown) = params.keys().find(|k| *k != "repository") {
        return Err(AppError::bad_request(format!(
            "unknown query parameter {unknown:?}; use repository"
        )));
    }
    let id = repository_id(&loaded, &params)?;
    let (gzip, sha256) = tokio::task::spawn_blocking(move || loaded.saved_index_gzip(&id))
        .await
        .map_err(|e| AppError::Internal(e.into()))?
        .map_err(AppError::Internal)?;
    let etag = format!("\"{sha256}\"");
    if not_modified(&headers, &etag) {
        return Ok((StatusCode::NOT_MODIFIED, revalidated(etag)).into_response());
    }
    gzipped(&headers, etag, "application/octet-stream", gzip).await
}

fn loaded_dataset(
    state: &AppState,
    name: &str,
    version: &str,
) -> Result<std::sync::Arc<crate::dataset::catalog::LoadedDataset>, AppError> {
    state.catalog.get(name, version).ok_or_else(|| {
        AppError::not_found(format!(
            "no dataset {name:?} at version {version:?}; GET /api/v1/datasets lists them"
        ))
    })
}

/// The caching headers of a body revalidated by its `etag`.
fn revalidated(etag: String) -> [(header::HeaderName, String); 3] {
    [
        (header::ETAG, etag),
        // Always asked again (a dataset's content can change under its version), and
        // answered with a 304 while it has not.
        (header::CACHE_CONTROL, "no-cache".to_owned()),
        (header::VARY, "Accept-Encoding".to_owned()),
    ]
}

/// Whether the client already has the body tagged `etag` (`If-None-Match`).
fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| tags.split(',').any(|t| t.trim() == etag || t.trim() == "*"))
}

/// A body kept gzip-compressed: sent as it is to a client that accepts gzip, decompressed
/// for one that does not.
async fn gzipped(
    headers: &HeaderMap,
    etag: String,
    content_type: &'static str,
    gzip: axum::body::Bytes,
) -> Result<Response, AppError> {
    let accepts_gzip = headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|e| e.split(';').next().unwrap_or("").trim() == "gzip")
        });
    let kind = [(header::CONTENT_TYPE, content_type)];
    if accepts_gzip {
        return Ok((
            kind,
            revalidated(etag),
            [(header::CONTENT_ENCODING, "gzip")],
            gzip,
        )
            .into_response());
    }
    let plain = tokio::task::spawn_blocking(move || {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gzip[..]), &mut bytes)
            .map(|_| bytes)
    })
    .await
    .map_err(|e| AppError::Internal(e.into()))?
    .map_err(|e| AppError::Internal(e.into()))?;
    Ok((kind, revalidated(etag), plain).into_response())
}

/// `GET /api/v1/datasets/{name}/{version}/source[?repository=R][&path=P[&start=S][&end=E]]`:
/// repository `R`'s files (W0) without `path`; with it, lines S..=E of that file (default
/// all, at most [`MAX_SOURCE_LINES`]). Paths are looked up among the repository's files,
/// never on the file system, so `..` or an absolute path can only be refused.
///
/// Without `R` the dataset's repositories are read together: every one's files are listed,
/// and `P` is read from the one that holds it (a repository's paths start with its import
/// package, so they rarely meet; when several hold it, `R` is asked for). So the pages'
/// links to a file, which know its path but not its repository, work for every dataset.
pub(crate) async fn source(
    State(state): State<AppState>,
    Path((name, version)): Path<(String, String)>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let loaded = state.catalog.get(&name, &version).ok_or_else(|| {
        AppError::not_found(format!(
            "no dataset {name:?} at version {version:?}; GET /api/v1/datasets lists them"
        ))
    })?;
    let named = match params.get("repository") {
        Some(_) => Some(repository_id(&loaded, &params)?),
        None => None,
    };
    let mut params = params;
    params.remove("repository");
    check_source_params(&params)?;
    let repositories = tokio::task::spawn_blocking(move || loaded.repositories())
        .await
        .map_err(|e| AppError::Internal(e.into()))?
        .map_err(|e| AppError::Internal(e.into()))?;
    let chosen = match (named, params.get("path")) {
        (Some(id), _) => repositories.get(&id),
        (None, _) if repositories.len() == 1 => repositories.values().next(),
        (None, Some(path)) => {
            let holders: Vec<&String> = repositories
                .iter()
                .filter(|(_, files)| files.contains_key(path))
                .map(|(id, _)| id)
                .collect();
            if let [_, _, ..] = holders.as_slice() {
                return Err(AppError::bad_request(format!(
                    "{path:?} is a file of several repositories ({}); name one with repository=",
                    holders
                        .iter()
                        .map(|id| id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            // None holds it: any of them answers that it has no such file.
            holders
                .first()
                .and_then(|id| repositories.get(*id))
                .or_else(|| repositories.values().next())
        }
        (None, None) => {
            let files = repositories
                .values()
                .flat_map(|files| files.keys().cloned())
                .collect::<std::collections::BTreeSet<_>>();
            return Ok(Json(SourceFiles {
                files: files.into_iter().collect(),
            })
            .into_response());
        }
    };
    let files = chosen.ok_or_else(|| {
        AppError::Internal(anyhow::anyhow!(
            "the dataset's repositories were not fetched"
        ))
    })?;
    source_reply(files, &params)
}

/// The repository a request's `?repository=` names, or the dataset's only one.
fn repository_id(
    loaded: &crate::dataset::catalog::LoadedDataset,
    params: &BTreeMap<String, String>,
) -> Result<String, AppError> {
    loaded
        .repository_id(params.get("repository").map(String::as_str))
        .map_err(AppError::bad_request)
}

/// Refuses query parameters a source request does not take.
pub(crate) fn check_source_params(params: &BTreeMap<String, String>) -> Result<(), AppError> {
    if let Some(unknown) = params
        .keys()
        .find(|k| !["path", "start", "end"].contains(&k.as_str()))
    {
        return Err(AppError::bad_request(format!(
            "unknown query parameter {unknown:?}; use path, start and end"
        )));
    }
    Ok(())
}

/// The reply to a source request on a repository's `files`: their paths without `path`,
/// else lines `start..=end` of that file.
pub(crate) fn source_reply(
    files: &BTreeMap<String, String>,
    params: &BTreeMap<String, String>,
) -> Result<Response, AppError> {
    let Some(path) = params.get("path") else {
        return Ok(Json(SourceFiles {
            files: files.keys().cloned().collect(),
        })
        .into_response());
    };
    if !wheelwright_core::workspace::is_relative_down(path) {
        return Err(AppError::bad_request(format!(
            "path {path:?} must be relative to the repository root, without \"..\" (e.g. networkx/classes/graph.py)"
        )));
    }
    let text = files.get(path.as_str()).ok_or_else(|| {
        AppError::not_found(format!(
            "the repository has no file {path:?}; GET this endpoint without path lists its files"
        ))
    })?;
    let line = |key: &str| -> Result<Option<usize>, AppError> {
        params
            .get(key)
            .map(|v| {
                v.parse::<usize>().ok().filter(|n| *n >= 1).ok_or_else(|| {
                    AppError::bad_request(format!("{key} {v:?} is not a line number (1, 2, ...)"))
                })
            })
            .transpose()
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total_lines = lines.len();
    let start = line("start")?.unwrap_or(1);
    let end = line("end")?.unwrap_or(total_lines).min(total_lines);
    if start > end.max(1) || start > total_lines.max(1) {
        return Err(AppError::bad_request(format!(
            "lines {start}..{end} are not in {path}, which has {total_lines} lines"
        )));
    }
    if end + 1 - start > MAX_SOURCE_LINES {
        return Err(AppError::bad_request(format!(
            "at most {MAX_SOURCE_LINES} lines per request; ask for a smaller range with start and end"
        )));
    }
    Ok(Json(SourceLines {
        path: path.clone(),
        start,
        end,
        total_lines,
        text: lines[start.min(total_lines + 1) - 1..end].concat(),
    })
    .into_response())
}
