//! Every request the app makes to the server, in one place.

use gloo_net::http::Request;
use serde::Deserialize;
use wheelwright_core::outline::Outline;

/// A failed API call, worded for the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ApiError(pub(crate) String);

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Deserialize)]
struct ErrorBody {
    error: String,
}

/// Asks the server for the outline of `source` (`POST /api/v1/analyze`).
pub(crate) async fn analyze(source: &str) -> Result<Outline, ApiError> {
    let body = serde_json::json!({ "source": source });
    let response = Request::post("/api/v1/analyze")
        .json(&body)
        .map_err(|e| ApiError(format!("could not encode the request: {e}")))?
        .send()
        .await
        .map_err(|e| ApiError(format!("the server did not answer: {e}")))?;
    read_json(response).await
}

/// A benchmark's leaderboard as `GET /api/v1/leaderboard/{benchmark}` returns it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct Leaderboard {
    pub(crate) labels: Vec<String>,
    pub(crate) metrics: Vec<String>,
    pub(crate) rows: Vec<wheelwright_core::leaderboard::LeaderboardRow>,
}

/// Every row of a benchmark's leaderboard; the page filters and sorts them itself.
pub(crate) async fn leaderboard(benchmark: &str) -> Result<Leaderboard, ApiError> {
    get_json(&format!("/api/v1/leaderboard/{benchmark}")).await
}

async fn get_json<T: serde::de::DeserializeOwned>(url: &str) -> Result<T, ApiError> {
    let response = Request::get(url)
        .send()
        .await
        .map_err(|e| ApiError(format!("the server did not answer: {e}")))?;
    read_json(response).await
}

/// The body of a successful response, or the API's error message.
async fn read_json<T: serde::de::DeserializeOwned>(
    response: gloo_net::http::Response,
) -> Result<T, ApiError> {
    if !response.ok() {
        let status = response.status();
        let message = response
            .json::<ErrorBody>()
            .await
            .map_or_else(|_| format!("HTTP {status}"), |b| b.error);
        return Err(ApiError(message));
    }
    response
        .json::<T>()
        .await
        .map_err(|e| ApiError(format!("the server's answer was not understood: {e}")))
}

/// A metric value as the API sends it: `{"status":"defined","value":v}` or
/// `{"status":"undefined","reason":r}`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(crate) enum Score {
    Defined {
        value: f64,
    },
    Undefined {
        #[serde(default)]
        reason: serde_json::Value,
    },
}

impl Score {
    pub(crate) fn value(&self) -> Option<f64> {
        match self {
            Score::Defined { value } => Some(*value),
            Score::Undefined { .. } => None,
        }
    }

    /// Why the score is undefined, as text (`None` when it is defined).
    pub(crate) fn reason(&self) -> Option<String> {
        match self {
            Score::Defined { .. } => None,
            Score::Undefined { reason } => Some(match reason {
                serde_json::Value::String(s) => s.replace('_', " "),
                serde_json::Value::Null => "undefined".to_owned(),
                other => other.to_string(),
            }),
        }
    }
}

/// Reads `key` of a JSON object as a [`Score`], if it is one.
pub(crate) fn score_of(
    map: &std::collections::BTreeMap<String, serde_json::Value>,
    key: &str,
) -> Option<Score> {
    map.get(key)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

/// One stored run (`GET /api/v1/runs`), with its overall row.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct RunSummary {
    pub(crate) id: i64,
    /// `verified` or `baseline`.
    pub(crate) origin: String,
    #[serde(default)]
    pub(crate) baseline: Option<String>,
    pub(crate) benchmark: String,
    pub(crate) dataset_name: String,
    pub(crate) dataset_version: String,
    #[serde(default)]
    pub(crate) dataset_sha256: String,
    pub(crate) model: String,
    pub(crate) harness: String,
    pub(crate) memory: String,
    pub(crate) run_date: String,
    #[serde(default)]
    pub(crate) cost_usd: Option<f64>,
    #[serde(default)]
    pub(crate) notes: Option<String>,
    pub(crate) scorer_version: String,
    pub(crate) grammar_version: String,
    pub(crate) chain_count: i64,
    pub(crate) turn_count: i64,
    #[serde(default)]
    pub(crate) created_at: String,
    /// Column name -> score.
    pub(crate) overall: std::collections::BTreeMap<String, Score>,
}

/// One page of a list (`{items, total, limit, offset}`): the API pages runs and turns.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct Page<T> {
    pub(crate) items: Vec<T>,
    /// Rows in the whole list.
    pub(crate) total: i64,
}

/// Runs per page the run list asks for (the API's largest page).
pub(crate) const RUNS_PAGE: usize = 200;
/// Turns per page the run page asks for (the API's largest page).
pub(crate) const TURNS_PAGE: usize = 1000;

/// The stored runs from `offset` on, oldest first, a page at a time.
pub(crate) async fn runs(offset: usize) -> Result<Page<RunSummary>, ApiError> {
    get_json(&format!("/api/v1/runs?limit={RUNS_PAGE}&offset={offset}")).await
}

/// One row of a run's turn table: a few fixed fields and one score per column.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct TurnRow {
    pub(crate) chain: String,
    pub(crate) turn: i64,
    pub(crate) path: String,
    /// `present` or `missing`.
    pub(crate) submission: String,
    #[serde(default)]
    pub(crate) syntax_errors: bool,
    #[serde(default)]
    pub(crate) reimplemented: Vec<String>,
    /// The score columns and anything else the row carries.
    #[serde(flatten)]
    pub(crate) columns: std::collections::BTreeMap<String, serde_json::Value>,
}

/// A chain of a run and how many of its turns are stored.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct ChainTurns {
    pub(crate) chain: String,
    pub(crate) turn_count: i64,
}

/// One run (`GET /api/v1/runs/{id}`); its turns come a page at a time from [`turns`].
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct RunDetail {
    #[serde(flatten)]
    pub(crate) summary: RunSummary,
    #[serde(default)]
    pub(crate) diagnostics: Vec<serde_json::Value>,
    pub(crate) chains: Vec<ChainTurns>,
}

/// One run.
pub(crate) async fn run(id: i64) -> Result<RunDetail, ApiError> {
    get_json(&format!("/api/v1/runs/{id}")).await
}

/// The run's turn rows from `offset` on, in order (`GET /api/v1/runs/{id}/turns`).
pub(crate) async fn turns(run: i64, offset: usize) -> Result<Page<TurnRow>, ApiError> {
    get_json(&format!(
        "/api/v1/runs/{run}/turns?limit={TURNS_PAGE}&offset={offset}"
    ))
    .await
}

/// A file of a case; `text` is `None` when the agent left no file there, and only the
/// file's beginning when `truncated` (the whole file: [`file_url`]).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct SourceFile {
    pub(crate) path: String,
    pub(crate) text: Option<String>,
    /// The whole file's size in bytes.
    #[serde(default)]
    pub(crate) bytes: u64,
    #[serde(default)]
    pub(crate) truncated: bool,
}

/// Where one file of a turn is served whole, as text.
pub(crate) fn file_url(run: i64, chain: &str, turn: i64, path: &str) -> String {
    format!(
        "/api/v1/runs/{run}/chains/{}/turns/{turn}/files?path={}",
        js_sys::encode_uri_component(chain),
        js_sys::encode_uri_component(path)
    )
}

/// Why a target was or was not counted as re-implemented.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct Reimplementation {
    #[serde(default)]
    pub(crate) callees: Vec<String>,
    #[serde(default)]
    pub(crate) matched: Vec<String>,
    #[serde(default)]
    pub(crate) share: Option<f64>,
    #[serde(default)]
    pub(crate) reimplemented: bool,
}

/// One target of a turn and its outcome.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct Target {
    /// `repo` or `self`.
    pub(crate) kind: String,
    pub(crate) target: String,
    #[serde(default)]
    pub(crate) canonical: Option<String>,
    /// Reused: the submission references it.
    pub(crate) referenced: bool,
    #[serde(default)]
    pub(crate) recalled: Option<bool>,
    #[serde(default)]
    pub(crate) reimplementation: Option<Reimplementation>,
}

/// What the turn's trajectory showed.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct TurnTrajectory {
    pub(crate) present: bool,
    pub(crate) bytes: u64,
    #[serde(default)]
    pub(crate) counts: Option<std::collections::BTreeMap<String, serde_json::Value>>,
    pub(crate) files: Option<Score>,
    pub(crate) lines: Option<Score>,
    #[serde(default)]
    pub(crate) recall_repo: Option<Score>,
    #[serde(default)]
    pub(crate) recall_self: Option<Score>,
}

/// The case of one turn (`GET /api/v1/runs/{id}/chains/{chain}/turns/{turn}`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct TurnDetail {
    pub(crate) run: i64,
    pub(crate) chain: String,
    pub(crate) turn: i64,
    pub(crate) title: String,
    pub(crate) requirement: String,
    pub(crate) submission: SourceFile,
    #[serde(default)]
    pub(crate) other_files: Vec<SourceFile>,
    /// How many other files the turn has (`other_files` lists the first of them).
    #[serde(default)]
    pub(crate) other_file_count: i64,
    pub(crate) reference: SourceFile,
    #[serde(default)]
    pub(crate) targets: Vec<Target>,
    #[serde(default)]
    pub(crate) unknown_targets: Vec<String>,
    #[serde(default)]
    pub(crate) scores: std::collections::BTreeMap<String, serde_json::Value>,
    pub(crate) trajectory: TurnTrajectory,
}

pub(crate) async fn turn(run: i64, chain: &str, turn: i64) -> Result<TurnDetail, ApiError> {
    get_json(&format!(
        "/api/v1/runs/{run}/chains/{}/turns/{turn}",
        js_sys::encode_uri_component(chain)
    ))
    .await
}

/// A hidden-test job's progress (`GET /api/v1/jobs/{id}` and each `progress` event).
pub(crate) use wheelwright_core::hidden_tests::JobProgress as Progress;

/// One turn's hidden-test result.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct TurnTests {
    pub(crate) chain: String,
    pub(crate) turn: i64,
    pub(crate) passed: i64,
    pub(crate) total: i64,
    #[serde(default)]
    pub(crate) tampered: Option<String>,
}

/// One hidden test's outcome (never its failure text: the server does not send it).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct TestOutcome {
    pub(crate) chain: String,
    pub(crate) turn: i64,
    pub(crate) module: String,
    pub(crate) name: String,
    pub(crate) outcome: String,
}

/// A run's hidden-test job and its results so far (`GET /api/v1/runs/{id}/tests`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub(crate) struct RunTests {
    #[serde(flatten)]
    pub(crate) progress: Progress,
    #[serde(default)]
    pub(crate) turns: Vec<TurnTests>,
    #[serde(default)]
    pub(crate) tests: Vec<TestOutcome>,
}

/// The run's hidden-test job, or `None` when it has none yet (the API answers 404).
pub(crate) async fn run_tests(run: i64) -> Result<Option<RunTests>, ApiError> {
    let response = Request::get(&format!("/api/v1/runs/{run}/tests"))
        .send()
        .await
        .map_err(|e| ApiError(format!("the server did not answer: {e}")))?;
    if response.status() == 404 {
        return Ok(None);
    }
    read_json(response).await.map(Some)
}

/// Queues the run's hidden tests (`POST /api/v1/runs/{id}/tests`). When they were queued
/// before (409), the existing job's progress is returned instead.
pub(crate) async fn queue_tests(run: i64) -> Result<Progress, ApiError> {
    let response = Request::post(&format!("/api/v1/runs/{run}/tests"))
        .send()
        .await
        .map_err(|e| ApiError(format!("the server did not answer: {e}")))?;
    if response.status() == 409 {
        return match run_tests(run).await? {
            Some(tests) => Ok(tests.progress),
            None => Err(ApiError(
                "the job was queued but cannot be found".to_owned(),
            )),
        };
    }
    read_json(response).await
}

/// A live subscription to a job's progress (`GET /api/v1/jobs/{id}/events`, server-sent
/// events). The connection closes when the job ends or when this handle is dropped.
pub(crate) struct ProgressStream {
    source: web_sys::EventSource,
    _on_progress: wasm_bindgen::closure::Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: wasm_bindgen::closure::Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for ProgressStream {
    fn drop(&mut self) {
        self.source.close();
    }
}

/// Follows job `job`: `on_progress` gets every `progress` event (the first is the state
/// now); `on_error` is told when the connection is lost for good.
pub(crate) fn follow_job(
    job: i64,
    mut on_progress: impl FnMut(Progress) + 'static,
    mut on_error: impl FnMut(ApiError) + 'static,
) -> Result<ProgressStream, ApiError> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;

    let source = web_sys::EventSource::new(&format!("/api/v1/jobs/{job}/events"))
        .map_err(|e| ApiError(format!("cannot follow the job: {e:?}")))?;
    let for_progress = source.clone();
    let on_progress =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let Some(data) = event.data().as_string() else {
                return;
            };
            let Ok(progress) = serde_json::from_str::<Progress>(&data) else {
                return;
            };
            // The stream ends with the job; closing first keeps the browser from
            // reconnecting to a finished job.
            if progress.finished() {
                for_progress.close();
            }
            on_progress(progress);
        });
    source
        .add_event_listener_with_callback("progress", on_progress.as_ref().unchecked_ref())
        .map_err(|e| ApiError(format!("cannot follow the job: {e:?}")))?;
    let for_error = source.clone();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
        // The browser retries on its own unless the source is closed.
        if for_error.ready_state() == web_sys::EventSource::CLOSED {
            on_error(ApiError(
                "lost the connection to the server's progress stream".to_owned(),
            ));
        }
    });
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(ProgressStream {
        source,
        _on_progress: on_progress,
        _on_error: on_error,
    })
}
