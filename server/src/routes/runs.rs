//! `/api/v1/runs`: upload a run bundle (scored here), list runs, and read a run, its turns, one turn's case and its files.
//!
//! - `POST /runs`: the body is a run bundle as a `.zip`, JSON Lines or gzip-compressed JSON
//!   Lines (or a `multipart/form-data` form with the bundle in its field `bundle`), at most
//!   [`UPLOAD_LIMIT`] bytes; it is scored with core and stored in one transaction, or
//!   refused with a 4xx that says why and nothing stored.
//! - `GET /runs?benchmark=&origin=&limit=&offset=&format=`: a page of run summaries with
//!   their overall scores (`{items, total, limit, offset}`); `format=csv` is every run,
//!   streamed a page at a time.
//! - `GET /runs/{id}`: one run, its series, diagnostics and how many turns each chain has;
//!   `GET /runs/{id}/turns?limit=&offset=&format=`: a page of the per-turn table (CSV:
//!   every turn, streamed); `GET /runs/{id}/chains/{chain}/turns/{turn}`: the case of one
//!   turn (requirement, submitted and reference source, targets with evidence,
//!   trajectory), its files inlined up to [`INLINE_FILE`] each and [`INLINE_TOTAL`] in
//!   all; `GET .../turns/{turn}/files`: a page of the turn's files, and with `?path=` one
//!   file's text whole, streamed a part at a time.
//!
//! None of these reads more of a run than it answers: lists and tables read no file,
//! the case reads the first part of the files it shows, a download one part at a time.

use std::collections::BTreeMap;

use axum::Json;
use axum::body::{Body, Bytes};

use crate::body_budget::Counted;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde_json::Value;
use wheelwright_core::recube::scoring::COLUMNS as RECUBE_COLUMNS;
use wheelwright_core::reporeuse::metrics::run::COLUMNS;

use super::table::Format;
use crate::AppState;
use crate::dataset::catalog::LoadedDataset;
use crate::error::AppError;
use crate::store::run_files::{self, PART_BYTES};
use crate::store::{RunFilter, RunSummary, Store, StoredText};
use crate::submit::{Scorer, SubmitError};
use wheelwright_core::api::{
    CaseFiles, FileEntry, Page, RunDetail, SourceFile, TurnDetail, TurnObservations, TurnTableRow,
};

/// Largest run bundle accepted by upload (compressed, as sent): core's
/// [`wheelwright_core::bundle::UPLOAD_BYTES`], which the submit page checks before scoring.
pub(crate) const UPLOAD_LIMIT: usize = wheelwright_core::bundle::UPLOAD_BYTES as usize;

/// Page sizes of `GET /runs` (a run summary is at most about 12 KB: notes are capped).
const RUNS_PAGE: Paging = Paging::new(50, 200);
/// Page sizes of `GET /runs/{id}/turns` (a turn row is about 1 KB).
const TURNS_PAGE: Paging = Paging::new(100, 1000);
/// Page sizes of `GET .../turns/{turn}/files`.
const FILES_PAGE: Paging = Paging::new(100, 1000);
/// Records read per query while a CSV download streams.
const CSV_PAGE: i64 = 200;
/// Most bytes of one file the turn case inlines (as JSON, escapes counted): the first part.
pub(crate) const INLINE_FILE: usize = PART_BYTES;
/// Most bytes of all files the turn case inlines (as JSON); later files are cut to empty
/// and flagged, and read whole through `.../files?path=`.
pub(crate) const INLINE_TOTAL: usize = 4 * PART_BYTES;
/// Most other files the turn case lists; `other_file_count` says how many there are and
/// `.../files` pages through them all.
pub(crate) const OTHER_FILES_LISTED: i64 = 200;

/// Column order of the run table's CSV: these, the score columns, then the rest.
const SUMMARY_FIRST: [&str; 10] = [
    "id",
    "origin",
    "baseline",
    "benchmark",
    "dataset_name",
    "dataset_version",
    "model",
    "harness",
    "memory",
    "run_date",
];
const SUMMARY_LAST: [&str; 8] = [
    "chain_count",
    "turn_count",
    "cost_usd",
    "scaffold_version",
    "scorer_version",
    "grammar_version",
    "created_at",
    "dataset_sha256",
];

/// ReCUBE's score columns as the run table's CSV names them ([`RECUBE_COLUMNS`] in order;
/// its mean cost per instance renamed, since `cost_usd` is the run's cost).
const RECUBE_CSV: [&str; 9] = [
    "spr",
    "apr",
    "spr_external",
    "apr_external",
    "spr_internal",
    "apr_internal",
    "caller_coverage",
    "cost_usd_per_instance",
    "turns",
];

/// Column order of a run's turn table: these, the score columns, then the rest.
const TURN_FIRST: [&str; 5] = ["chain", "turn", "path", "submission", "syntax_errors"];
const TURN_LAST: [&str; 3] = ["reimplemented", "unknown_targets", "trajectory"];

/// `first`, the score columns, then `last`: a CSV column order.
fn csv_order<'a>(first: &[&'a str], last: &[&'a str]) -> Vec<&'a str> {
    first
        .iter()
        .chain(COLUMNS.iter())
        .chain(last.iter())
        .copied()
        .collect()
}

fn parse_json(text: &str) -> Result<Value, AppError> {
    serde_json::from_str(text).map_err(|e| AppError::Internal(e.into()))
}

pub(crate) async fn upload(
    State(state): State<AppState>,
    client: super::Client,
    request: axum::extract::Request,
) -> Result<Response, AppError> {
    let id = submitted::<LoadedDataset>(&state, client, request).await?;
    let detail = detail(&state, id).await?;
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, format!("/api/v1/runs/{id}"))],
        Json(detail),
    )
        .into_response())
}

/// Reads the run bundle an upload carries as one of `S`'s benchmark, then scores and stores
/// it ([`crate::submit::submit`]); the new run's id. Reading (inflating) and scoring take
/// one slot of the work pool, or a 503 at once.
pub(super) async fn submitted<S: Scorer>(
    state: &AppState,
    client: super::Client,
    request: axum::extract::Request,
) -> Result<i64, AppError> {
    let body = upload_body(state, request).await?;
    let job = state.work.try_job(client.0)?;
    // The body's share of the memory budget goes back once it is read (the read bundle is
    // bounded by the work pool's size and core's limits).
    let bundle = job
        .run(move |_| S::read(&body.bytes))
        .await?
        .map_err(SubmitError::from)?;
    Ok(crate::submit::submit::<S>(&state.store, &state.catalog, bundle, &job).await?)
}

/// The run bundle of an upload: the body itself, or the field [`BUNDLE_FIELD`] of a
/// `multipart/form-data` form; refused when empty or over [`UPLOAD_LIMIT`], held within the
/// server's body budget (503 when it is spent).
async fn upload_body(
    state: &AppState,
    request: axum::extract::Request,
) -> Result<Counted, AppError> {
    // A browser form (the submit page) posts multipart/form-data with the bundle in a
    // field; a command-line client sends the bundle itself as the body.
    let multipart =
        super::content_type(request.headers()).is_some_and(|t| t == "multipart/form-data");
    let body = if multipart {
        bundle_field(request, state).await?
    } else {
        super::counted_body(request, UPLOAD_LIMIT, &state.bodies).await?
    };
    if body.bytes.is_empty() {
        return Err(AppError::bad_request(
            "the body is empty; send a run bundle as a .zip, JSON Lines or .jsonl.gz (see /api/v1/openapi.json)",
        ));
    }
    Ok(body)
}

/// The form field a multipart upload carries the run bundle in.
const BUNDLE_FIELD: &str = "bundle";

/// The largest multipart form accepted: a bundle of [`UPLOAD_LIMIT`] bytes and what the form
/// adds around it (boundaries, field headers).
pub(crate) const FORM_LIMIT: usize = UPLOAD_LIMIT + 64 * 1024;

/// The bundle of a `multipart/form-data` upload: the one field named [`BUNDLE_FIELD`],
/// within the same [`UPLOAD_LIMIT`] as a bundle sent as the body (the form's own
/// boundaries and headers may add up to [`FORM_LIMIT`]).
async fn bundle_field(
    request: axum::extract::Request,
    state: &AppState,
) -> Result<Counted, AppError> {
    use axum::extract::FromRequest;
    let form_error = |e: axum::extract::multipart::MultipartError| {
        AppError::bad_request(format!(
            "the multipart form could not be read ({}); send one field named {BUNDLE_FIELD:?} holding the run bundle",
            e.body_text()
        ))
    };
    // Bounded before the form is parsed: the whole body is read within its limit first.
    let (parts, body) = request.into_parts();
    let Counted { bytes, mut held } = super::counted_body(
        axum::extract::Request::from_parts(parts.clone(), body),
        FORM_LIMIT,
        &state.bodies,
    )
    .await?;
    // The field is copied out of the form: that copy is held too.
    state.bodies.take(bytes.len(), &mut held)?;
    let request = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
    let mut form = axum::extract::Multipart::from_request(request, state)
        .await
        .map_err(|e| {
            AppError::bad_request(format!(
                "{}; send one field named {BUNDLE_FIELD:?} holding the run bundle",
                e.body_text()
            ))
        })?;
    let mut bundle = None;
    while let Some(field) = form.next_field().await.map_err(form_error)? {
        let name = field.name().unwrap_or_default().to_owned();
        if name != BUNDLE_FIELD {
            return Err(AppError::bad_request(format!(
                "the form has a field {name:?}; send only one field, named {BUNDLE_FIELD:?}, holding the run bundle"
            )));
        }
        if bundle.is_some() {
            return Err(AppError::bad_request(format!(
                "the form has the field {BUNDLE_FIELD:?} twice; send one run bundle per upload"
            )));
        }
        bundle = Some(field.bytes().await.map_err(form_error)?);
    }
    let bundle = bundle.ok_or_else(|| {
        AppError::bad_request(format!(
            "the form has no field {BUNDLE_FIELD:?}; send the run bundle (.zip, .jsonl or .jsonl.gz) in a field of that name"
        ))
    })?;
    if bundle.len() > UPLOAD_LIMIT {
        return Err(AppError::Client {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: wheelwright_core::bundle::BundleError::UploadTooLarge {
                size: bundle.len() as u64,
                limit: wheelwright_core::bundle::UPLOAD_BYTES,
            }
            .to_string(),
        });
    }
    Ok(Counted {
        bytes: bundle,
        held,
    })
}

/// The `limit` and `offset` query parameters of a paged list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Paging {
    limit: i64,
    offset: i64,
    /// The largest `limit` accepted.
    max: i64,
}

impl Paging {
    const fn new(default: i64, max: i64) -> Self {
        Self {
            limit: default,
            offset: 0,
            max,
        }
    }

    /// Takes `limit` and `offset` out of `params`. A CSV download is every row, so it
    /// takes neither.
    fn parse(
        self,
        params: &mut BTreeMap<String, String>,
        format: Format,
    ) -> Result<Self, AppError> {
        let (limit, offset) = (params.remove("limit"), params.remove("offset"));
        if format == Format::Csv && (limit.is_some() || offset.is_some()) {
            return Err(AppError::bad_request(
                "limit and offset page the JSON list; format=csv is always the whole table, so leave them out",
            ));
        }
        let mut paging = self;
        if let Some(text) = limit {
            paging.limit = text
                .parse::<i64>()
                .ok()
                .filter(|l| (1..=self.max).contains(l))
                .ok_or_else(|| {
                    AppError::bad_request(format!(
                        "limit {text:?} is not a page size from 1 to {}",
                        self.max
                    ))
                })?;
        }
        if let Some(text) = offset {
            paging.offset = text
                .parse::<i64>()
                .ok()
                .filter(|o| *o >= 0)
                .ok_or_else(|| {
                    AppError::bad_request(format!(
                        "offset {text:?} is not a number of rows to skip (0, 1, ...)"
                    ))
                })?;
        }
        Ok(paging)
    }
}

fn no_other_params(params: &BTreeMap<String, String>, allowed: &str) -> Result<(), AppError> {
    match params.keys().next() {
        Some(unknown) => Err(AppError::bad_request(format!(
            "unknown query parameter {unknown:?}; use {allowed}"
        ))),
        None => Ok(()),
    }
}

pub(crate) async fn list(
    State(state): State<AppState>,
    Query(params): Query<BTreeMap<String, String>>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let mut params = params;
    let format = Format::parse(params.remove("format").as_deref())?;
    let benchmark = params.remove("benchmark");
    if let Some(b) = &benchmark {
        super::benchmarks::benchmark(b)?;
    }
    let origin = params.remove("origin");
    if let Some(o) = &origin
        && o != "verified"
        && o != "baseline"
    {
        return Err(AppError::bad_request(format!(
            "origin {o:?} is not verified or baseline (reported rows are not runs; see /api/v1/leaderboard)"
        )));
    }
    let paging = RUNS_PAGE.parse(&mut params, format)?;
    no_other_params(&params, "benchmark, origin, limit, offset or format")?;
    let filter = RunFilter { benchmark, origin };
    if format == Format::Csv {
        let store = state.store.clone();
        let next = move |after: Option<i64>| {
            let (store, filter) = (store.clone(), filter.clone());
            async move {
                let rows = store.runs_after(&filter, after, CSV_PAGE).await?;
                rows.iter()
                    .map(|row| Ok((row.id, flat_summary(row)?)))
                    .collect::<anyhow::Result<Vec<_>>>()
            }
        };
        let mut order = csv_order(&SUMMARY_FIRST, &[]);
        order.extend(RECUBE_CSV);
        order.extend(SUMMARY_LAST);
        return stream_csv("runs", order, next).await;
    }
    // Every part of the key was checked above: a benchmark and an origin of their few,
    // numbers as parsed.
    let key = format!(
        "runs?benchmark={:?}&origin={:?}&limit={}&offset={}",
        filter.benchmark, filter.origin, paging.limit, paging.offset
    );
    super::cached(&state, key, &headers, || async {
        let items = state
            .store
            .runs_page(&filter, paging.limit, paging.offset)
            .await?;
        let total = state.store.run_count(&filter).await?;
        Ok(Json(Page {
            items,
            total,
            limit: paging.limit,
            offset: paging.offset,
        })
        .into_response())
    })
    .await
}

/// A run summary as one CSV record: one column per score, not a nested object.
///
/// Every record has every benchmark's score columns (empty where they do not apply), so a
/// table of RepoReuse and ReCUBE runs has one header. ReCUBE's mean cost per instance is
/// `cost_usd_per_instance`: `cost_usd` is the run's cost as its metadata gives it.
fn flat_summary(row: &RunSummary) -> anyhow::Result<Value> {
    let mut row = serde_json::to_value(row)?;
    if let Some(Value::Object(overall)) = row.as_object_mut().and_then(|r| r.remove("overall")) {
        for column in COLUMNS {
            row[column] = overall.get(column).cloned().unwrap_or(Value::Null);
        }
        for (column, name) in RECUBE_COLUMNS.iter().zip(RECUBE_CSV) {
            row[name] = overall.get(*column).cloned().unwrap_or(Value::Null);
        }
    }
    Ok(row)
}

/// A CSV download named `<name>.csv` of a table read a page at a time: `next(after)`
/// returns the records after the cursor `after` (from the start with `None`), each with
/// its cursor, at most [`CSV_PAGE`] of them. Columns are those of `order` the first
/// record has, then its others (every record of a table has the same fields). The first
/// page is read before answering, so a failure there is an error response; a later one
/// ends the download early (and is logged).
async fn stream_csv<F, Fut>(
    name: &str,
    order: Vec<&'static str>,
    mut next: F,
) -> Result<Response, AppError>
where
    F: FnMut(Option<i64>) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = anyhow::Result<Vec<(i64, Value)>>> + Send + 'static,
{
    let first = next(None).await?;
    let columns: Vec<String> = match first.first().and_then(|(_, r)| r.as_object()) {
        Some(record) => order
            .iter()
            .filter(|c| record.contains_key(**c))
            .map(|c| (*c).to_owned())
            .chain(
                record
                    .keys()
                    .filter(|k| !order.contains(&k.as_str()))
                    .cloned(),
            )
            .collect(),
        None => order.iter().map(|c| (*c).to_owned()).collect(),
    };
    let records = |page: &[(i64, Value)], columns: &[String]| -> String {
        let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
        page.iter()
            .map(|(_, record)| wheelwright_core::table::row(record, &columns))
            .collect()
    };
    let head = {
        let names: Vec<&str> = columns.iter().map(String::as_str).collect();
        wheelwright_core::table::header(&names) + &records(&first, &columns)
    };
    let cursor = first.last().map(|(c, _)| *c);
    let done = i64::try_from(first.len()).unwrap_or(0) < CSV_PAGE;
    let rest = futures_util::stream::unfold(
        (next, cursor, done, columns),
        move |(mut next, cursor, done, columns)| async move {
            if done {
                return None;
            }
            match next(cursor).await {
                Ok(page) if page.is_empty() => None,
                Ok(page) => {
                    let chunk = records(&page, &columns);
                    let cursor = page.last().map(|(c, _)| *c);
                    let done = i64::try_from(page.len()).unwrap_or(0) < CSV_PAGE;
                    Some((Ok(Bytes::from(chunk)), (next, cursor, done, columns)))
                }
                Err(error) => {
                    tracing::error!(error = format!("{error:#}"), "CSV download failed");
                    let failed = std::io::Error::other("the download failed; see the server log");
                    Some((Err(failed), (next, cursor, true, columns)))
                }
            }
        },
    );
    let body = futures_util::stream::once(async move { Ok(Bytes::from(head)) }).chain(rest);
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}.csv\""),
            ),
        ],
        // Fused: the compression layer may poll a body once more after its end, which an
        // unfold stream answers with a panic.
        Body::from_stream(body.fuse()),
    )
        .into_response())
}

pub(super) async fn summary(state: &AppState, id: i64) -> Result<RunSummary, AppError> {
    state
        .store
        .run_summary(id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("no run {id}; GET /api/v1/runs lists them")))
}

/// Refuses a run of another benchmark than RepoReuse, whose turns these routes show; a
/// ReCUBE run's instances are at `/api/v1/recube/runs/{id}`.
fn reporeuse_only(run: &RunSummary) -> Result<(), AppError> {
    if run.benchmark == wheelwright_core::benchmark::Benchmark::Recube.id() {
        return Err(AppError::not_found(format!(
            "run {} is a ReCUBE run, which has instances, not turns; GET /api/v1/recube/runs/{} shows them",
            run.id, run.id
        )));
    }
    Ok(())
}

/// One row of a run's turn table from its stored score (the scorer's row as JSON).
fn turn_row(score: &str) -> Result<TurnTableRow, AppError> {
    serde_json::from_str(score).map_err(|e| AppError::Internal(e.into()))
}

async fn detail(state: &AppState, id: i64) -> Result<RunDetail, AppError> {
    let summary = summary(state, id).await?;
    let (series, diagnostics, unparsed) = state.store.run_series(id).await?;
    let chains = state.store.run_chains(id).await?;
    Ok(RunDetail {
        summary,
        series: parse_json(&series)?,
        diagnostics: wire(parse_json(&diagnostics)?)?,
        unparsed: unparsed.map(|u| wire(parse_json(&u)?)).transpose()?,
        chains,
    })
}

pub(crate) async fn get(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let id = super::positive_id(&id, "run")?;
    super::cached(&state, format!("run/{id}"), &headers, || async {
        Ok(Json(detail(&state, id).await?).into_response())
    })
    .await
}

pub(crate) async fn turn_table(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let mut params = params;
    let format = Format::parse(params.remove("format").as_deref())?;
    let paging = TURNS_PAGE.parse(&mut params, format)?;
    no_other_params(&params, "limit, offset or format")?;
    let id = super::positive_id(&id, "run")?;
    reporeuse_only(&summary(&state, id).await?)?;
    if format == Format::Csv {
        let store = state.store.clone();
        let next = move |after: Option<i64>| {
            let store = store.clone();
            async move {
                let rows = store.turn_scores_after(id, after, CSV_PAGE).await?;
                rows.iter()
                    .map(|(rowid, score)| {
                        let row = turn_row(score).map_err(|e| anyhow::anyhow!("{e}"))?;
                        Ok((*rowid, serde_json::to_value(row)?))
                    })
                    .collect::<anyhow::Result<Vec<_>>>()
            }
        };
        return stream_csv(
            &format!("run-{id}-turns"),
            csv_order(&TURN_FIRST, &TURN_LAST),
            next,
        )
        .await;
    }
    let scores = state
        .store
        .turn_scores(id, paging.limit, paging.offset)
        .await?;
    let total = state.store.turn_count(id).await?;
    Ok(Json(Page {
        items: scores
            .iter()
            .map(|s| turn_row(s))
            .collect::<Result<Vec<_>, _>>()?,
        total,
        limit: paging.limit,
        offset: paging.offset,
    })
    .into_response())
}

/// A file as the case shows it: its text inlined up to the case's limits.
///
/// `stored`'s text, cut to what is left of `budget` (JSON bytes, escapes counted) and
/// at most [`INLINE_FILE`]; the bytes it takes are taken from `budget`.
async fn inline(
    store: &Store,
    stored: StoredText,
    budget: &mut usize,
) -> Result<SourceFile, AppError> {
    let cap = INLINE_FILE.min(*budget);
    let (mut text, mut truncated) = if cap == 0 {
        (String::new(), stored.size > 0)
    } else {
        run_files::prefix(store, &stored, cap).await?
    };
    let (cut, cost) = json_cut(&text, cap);
    if cut < text.len() {
        text.truncate(cut);
        truncated = true;
    }
    *budget -= cost;
    Ok(SourceFile {
        path: stored.path,
        text: Some(text),
        bytes: u64::try_from(stored.size).unwrap_or(0),
        truncated,
    })
}

/// The longest prefix of `text` whose JSON string body is at most `budget` bytes: its
/// length in bytes and what it takes as JSON. Control characters take up to six bytes
/// escaped, so counting raw bytes would let a reply grow six times over its limit.
fn json_cut(text: &str, budget: usize) -> (usize, usize) {
    let mut cost = 0;
    for (at, c) in text.char_indices() {
        let width = match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if u32::from(c) < 0x20 => 6,
            c => c.len_utf8(),
        };
        if cost + width > budget {
            return (at, cost);
        }
        cost += width;
    }
    (text.len(), cost)
}

/// A part of a stored turn row as its wire type; the server wrote the row, so a mismatch
/// is a bug (a 500 that logs it), never the client's fault.
fn wire<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, AppError> {
    serde_json::from_value(value).map_err(|e| AppError::Internal(e.into()))
}

/// The turn number in a path, or a 400.
fn turn_number(turn: &str) -> Result<i64, AppError> {
    turn.parse().ok().filter(|t| *t >= 1).ok_or_else(|| {
        AppError::bad_request(format!("turn {turn:?} is not a turn number (1, 2, ...)"))
    })
}

/// The stored score of turn `number` of `chain` of run `id`, or a 404 that says so.
async fn turn_score(
    state: &AppState,
    id: i64,
    chain: &str,
    number: i64,
) -> Result<String, AppError> {
    state
        .store
        .turn_score(id, chain, number)
        .await?
        .ok_or_else(|| {
            AppError::not_found(format!(
                "run {id} has no turn {number} of chain {chain:?}; GET /api/v1/runs/{id} lists its chains"
            ))
        })
}

pub(crate) async fn turn(
    State(state): State<AppState>,
    Path((id, chain, turn)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let id = super::positive_id(&id, "run")?;
    let Ok(number) = turn_number(&turn) else {
        // Answered as ever (a missing run's 404 before the turn's 400), and never kept.
        return Ok(Json(case(&state, id, chain, &turn).await?).into_response());
    };
    // Only a turn that exists is kept (a 200), so the chain in the key is one the run has.
    let key = format!("run/{id}/chain/{chain:?}/turn/{number}");
    super::cached(&state, key, &headers, || async {
        Ok(Json(case(&state, id, chain, &turn).await?).into_response())
    })
    .await
}

/// The case of turn `turn` of `chain` of run `id`: its score, its files inlined within
/// [`INLINE_FILE`] and [`INLINE_TOTAL`], the dataset's requirement and reference.
async fn case(
    state: &AppState,
    id: i64,
    chain: String,
    turn: &str,
) -> Result<TurnDetail, AppError> {
    let run = summary(state, id).await?;
    reporeuse_only(&run)?;
    let number = turn_number(turn)?;
    let score = turn_score(state, id, &chain, number).await?;
    let loaded = state
        .catalog
        .get(&run.dataset_name, &run.dataset_version)
        .ok_or_else(|| {
            AppError::not_found(format!(
                "the dataset of run {id} ({} {}) is no longer served, so its case cannot be shown",
                run.dataset_name, run.dataset_version
            ))
        })?;
    let dataset_turn = loaded
        .dataset
        .chains
        .iter()
        .find(|c| c.manifest.id == chain)
        .and_then(|c| c.turns.get(usize::try_from(number - 1).ok()?))
        .ok_or_else(|| {
            AppError::not_found(format!(
                "the dataset no longer has turn {number} of chain {chain:?}"
            ))
        })?;
    let module_path = dataset_turn.manifest.module_path.clone();
    let key = (id, chain.as_str(), number);
    let store = &state.store;
    let mut budget = INLINE_TOTAL;
    let submission = match store.turn_text(key, Some(&module_path)).await? {
        Some(stored) => inline(store, stored, &mut budget).await?,
        None => SourceFile {
            path: module_path.clone(),
            text: None,
            bytes: 0,
            truncated: false,
        },
    };
    let (listed, count) = store.turn_files(key, OTHER_FILES_LISTED + 1, 0).await?;
    let mut other_files = Vec::new();
    for stored in listed.into_iter().filter(|f| f.path != module_path) {
        if i64::try_from(other_files.len()).unwrap_or(i64::MAX) >= OTHER_FILES_LISTED {
            break;
        }
        other_files.push(inline(store, stored, &mut budget).await?);
    }
    let other_file_count = count - i64::from(submission.text.is_some());
    let trajectory_size = store.turn_text(key, None).await?.map(|t| t.size);
    let reference = dataset_turn.reference.clone();
    let files = CaseFiles {
        run: id,
        chain,
        turn: number,
        title: dataset_turn.manifest.title.clone(),
        requirement: dataset_turn.requirement.clone(),
        submission,
        other_files,
        other_file_count,
        reference: SourceFile {
            path: module_path,
            bytes: u64::try_from(reference.len()).unwrap_or(u64::MAX),
            text: Some(reference),
            truncated: false,
        },
        trajectory_bytes: trajectory_size.map(|s| u64::try_from(s).unwrap_or(0)),
    };
    // The server wrote the row, so a mismatch is a bug (a 500 that logs it).
    TurnDetail::from_scored(parse_json(&score)?, files).map_err(|e| AppError::Internal(e.into()))
}

/// `GET .../turns/{turn}/observations`: what each action of the turn's trajectory printed,
/// each cut for a step list (the trajectory's summary and actions are in the turn's case).
pub(crate) async fn turn_observations(
    State(state): State<AppState>,
    client: super::Client,
    Path((id, chain, turn)): Path<(String, String, String)>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Json<TurnObservations>, AppError> {
    let id = super::positive_id(&id, "run")?;
    let number = turn_number(&turn)?;
    no_other_params(&params, "none: this route takes no query parameters")?;
    summary(&state, id).await?;
    turn_score(&state, id, &chain, number).await?;
    // Loading (up to a bundle's largest trajectory, inflated) and parsing it take one slot
    // of the work pool, or a 503 at once: requests for large trajectories cannot pile up
    // outside the pool, whoever sends them.
    let job = state.work.try_job(client.0)?;
    // A turn without a trajectory has no observations: an empty list saying why (the
    // turn itself exists, so this is not a 404).
    let Some(stored) = state
        .store
        .turn_text((id, chain.as_str(), number), None)
        .await?
    else {
        return Ok(Json(TurnObservations {
            observations: Vec::new(),
            error: Some(format!(
                "turn {number} of chain {chain:?} of run {id} was submitted without a trajectory"
            )),
        }));
    };
    let text = run_files::whole(&state.store, &stored).await?;
    let observations = job.run(move |_| TurnObservations::of(&text)).await?;
    Ok(Json(observations))
}

/// `GET .../turns/{turn}/files`: a page of the turn's files; with `?path=`, that file's
/// text whole as `text/plain`, streamed a part (at most 1 MiB) at a time.
pub(crate) async fn turn_files(
    State(state): State<AppState>,
    Path((id, chain, turn)): Path<(String, String, String)>,
    Query(params): Query<BTreeMap<String, String>>,
) -> Result<Response, AppError> {
    let mut params = params;
    let id = super::positive_id(&id, "run")?;
    let number = turn_number(&turn)?;
    let path = params.remove("path");
    if path.is_some() && (params.contains_key("limit") || params.contains_key("offset")) {
        return Err(AppError::bad_request(
            "limit and offset page the list of files; leave them out with path=",
        ));
    }
    let paging = FILES_PAGE.parse(&mut params, Format::Json)?;
    no_other_params(&params, "path, limit or offset")?;
    summary(&state, id).await?;
    turn_score(&state, id, &chain, number).await?;
    let key = (id, chain.as_str(), number);
    let Some(path) = path else {
        let (files, total) = state
            .store
            .turn_files(key, paging.limit, paging.offset)
            .await?;
        return Ok(Json(Page {
            items: files
                .into_iter()
                .map(|f| FileEntry {
                    path: f.path,
                    bytes: f.size,
                })
                .collect(),
            total,
            limit: paging.limit,
            offset: paging.offset,
        })
        .into_response());
    };
    if path.is_empty()
        || path.chars().any(char::is_control)
        || path.len() > wheelwright_core::bundle::PATH_BYTES
        || !wheelwright_core::workspace::is_relative_down(&path)
    {
        return Err(AppError::bad_request(format!(
            "path {:?} is not a file path relative to the repository root (no leading /, no .., no control characters)",
            path.escape_debug().to_string()
        )));
    }
    let stored = state
        .store
        .turn_text(key, Some(&path))
        .await?
        .ok_or_else(|| {
            AppError::not_found(format!(
                "turn {number} of chain {chain:?} of run {id} has no file {path:?}; GET /api/v1/runs/{id}/chains/{chain}/turns/{number}/files lists them"
            ))
        })?;
    let store = state.store.clone();
    let file = stored.id;
    let parts = futures_util::stream::unfold(Some(0i64), move |next| {
        let store = store.clone();
        async move {
            let part = next?;
            match run_files::part(&store, file, part).await {
                Ok(Some(bytes)) => Some((Ok(Bytes::from(bytes)), Some(part + 1))),
                Ok(None) => None,
                Err(error) => {
                    tracing::error!(
                        error = format!("{error:#}"),
                        file,
                        part,
                        "file download failed"
                    );
                    let failed = std::io::Error::other("the download failed; see the server log");
                    Some((Err(failed), None))
                }
            }
        }
    });
    Ok((
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
            (header::CONTENT_LENGTH, stored.size.to_string()),
            // A submitter wrote these bytes: never let a browser run them as a page.
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; sandbox".to_owned(),
            ),
        ],
        // Fused: see the CSV download above.
        Body::from_stream(parts.fuse()),
    )
        .into_response())
}
