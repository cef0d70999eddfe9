//! Every request the app makes to the server, in one place.

use gloo_net::http::Request;
use wheelwright_core::outline::Outline;

/// A failed API call, worded for the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ApiError(pub(crate) String);

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

// An `ErrorBoundary` takes any error; the message is the whole of it.
impl std::error::Error for ApiError {}

use wheelwright_core::api::ErrorBody;

/// Asks the server for the outline of `source` (`POST /api/v1/analyze`).
pub(crate) async fn analyze(source: &str) -> Result<Outline, ApiError> {
    let body = wheelwright_core::api::AnalyzeRequest {
        source: source.to_owned(),
    };
    let response = Request::post("/api/v1/analyze")
        .json(&body)
        .map_err(|e| ApiError(format!("could not encode the request: {e}")))?
        .send()
        .await
        .map_err(|e| ApiError(format!("the server did not answer: {e}")))?;
    read_json(response).await
}

// The replies, as core declares them for the server and the app alike.
pub(crate) use wheelwright_core::api::{
    Leaderboard, Page, RunDetail, RunSummary, RunTests, SourceFile, Target, TurnDetail,
    TurnTableRow,
};
pub(crate) use wheelwright_core::metric::Score;

/// Every row of a benchmark's leaderboard; the page filters and sorts them itself.
pub(crate) async fn leaderboard(benchmark: &str) -> Result<Leaderboard, ApiError> {
    get_json(&format!("/api/v1/leaderboard/{benchmark}")).await
}

/// Every table a benchmark's paper published (`GET /api/v1/benchmarks/{id}/published`).
pub(crate) async fn published(
    benchmark: &str,
) -> Result<wheelwright_core::api::Published, ApiError> {
    get_json(&format!("/api/v1/benchmarks/{benchmark}/published")).await
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

/// Why `score` is undefined, as text for a tooltip (`None` when it is defined).
pub(crate) fn reason(score: &Score) -> Option<String> {
    match score {
        Score::Defined { .. } => None,
        Score::Undefined { reason } => Some(
            serde_json::to_value(reason)
                .ok()
                .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
                .unwrap_or_else(|| "undefined".to_owned()),
        ),
    }
}

/// Runs per page the run list asks for (the API's largest page).
pub(crate) const RUNS_PAGE: usize = 200;
/// Turns per page the run page asks for (the API's largest page).
pub(crate) const TURNS_PAGE: usize = 1000;

/// The stored runs from `offset` on, oldest first, a page at a time.
pub(crate) async fn runs(offset: usize) -> Result<Page<RunSummary>, ApiError> {
    get_json(&format!("/api/v1/runs?limit={RUNS_PAGE}&offset={offset}")).await
}

/// One run.
pub(crate) async fn run(id: i64) -> Result<RunDetail, ApiError> {
    get_json(&format!("/api/v1/runs/{id}")).await
}

/// The run's turn rows from `offset` on, in order (`GET /api/v1/runs/{id}/turns`).
pub(crate) async fn turns(run: i64, offset: usize) -> Result<Page<TurnTableRow>, ApiError> {
    get_json(&format!(
        "/api/v1/runs/{run}/turns?limit={TURNS_PAGE}&offset={offset}"
    ))
    .await
}

/// A stored ReCUBE run with its instances (`GET /api/v1/recube/runs/{id}`).
pub(crate) async fn recube_run(
    id: i64,
) -> Result<wheelwright_core::api::RecubeRunDetail, ApiError> {
    get_json(&format!("/api/v1/recube/runs/{id}")).await
}

/// The page of a ReCUBE run.
pub(crate) fn recube_run_path(id: i64) -> String {
    format!("/recube/runs/{id}")
}

/// A stored text served whole (`url` from [`file_url`]); `None` when the run has no such
/// file (the API answers 404).
pub(crate) async fn text(url: &str) -> Result<Option<String>, ApiError> {
    let response = Request::get(url)
        .send()
        .await
        .map_err(|e| ApiError(format!("the server did not answer: {e}")))?;
    if response.status() == 404 {
        return Ok(None);
    }
    if !response.ok() {
        return Err(ApiError(format!("HTTP {}", response.status())));
    }
    response
        .text()
        .await
        .map(Some)
        .map_err(|e| ApiError(format!("the file could not be read: {e}")))
}

/// Where one file of a turn is served whole, as text.
pub(crate) fn file_url(run: i64, chain: &str, turn: i64, path: &str) -> String {
    format!(
        "/api/v1/runs/{run}/chains/{}/turns/{turn}/files?path={}",
        js_sys::encode_uri_component(chain),
        js_sys::encode_uri_component(path)
    )
}

pub(crate) async fn turn(run: i64, chain: &str, turn: i64) -> Result<TurnDetail, ApiError> {
    get_json(&format!(
        "/api/v1/runs/{run}/chains/{}/turns/{turn}",
        js_sys::encode_uri_component(chain)
    ))
    .await
}

/// What each action of a stored turn's trajectory printed (`.../observations`).
pub(crate) async fn observations(
    run: i64,
    chain: &str,
    turn: i64,
) -> Result<wheelwright_core::api::TurnObservations, ApiError> {
    get_json(&format!(
        "/api/v1/runs/{run}/chains/{}/turns/{turn}/observations",
        js_sys::encode_uri_component(chain)
    ))
    .await
}

/// `/datasets/{name}/{version}` with both parts encoded: where a dataset's routes and pages
/// begin (under `/api/v1` for the API).
pub(crate) fn dataset_path(name: &str, version: &str) -> String {
    format!(
        "/datasets/{}/{}",
        js_sys::encode_uri_component(name),
        js_sys::encode_uri_component(version)
    )
}

/// A RepoReuse dataset with its turns and its Table 1 beside the paper's.
pub(crate) async fn dataset(
    name: &str,
    version: &str,
) -> Result<wheelwright_core::api::DatasetDetail, ApiError> {
    get_json(&format!("/api/v1{}", dataset_path(name, version))).await
}

/// The RepoReuse datasets the server holds.
pub(crate) async fn datasets() -> Result<Vec<wheelwright_core::api::DatasetSummary>, ApiError> {
    get_json("/api/v1/datasets").await
}

/// Lines of a file of a repository (`{repository}/source?path=`); `repository` is
/// [`dataset_path`] or [`recube_repository_path`].
pub(crate) async fn source(
    repository: &str,
    path: &str,
) -> Result<wheelwright_core::api::SourceLines, ApiError> {
    get_json(&format!(
        "/api/v1{repository}/source?path={}",
        js_sys::encode_uri_component(path)
    ))
    .await
}

/// One file of a repository's SchrodingerRepo view (`{repository}/view`); `repository` is a
/// [`schrodinger_repository_path`]; `levels` as the page's query writes them (`2,3`, `2`,
/// `3`, or `virtual`).
pub(crate) async fn view_file(
    repository: &str,
    path: Option<&str>,
    seed: &str,
    levels: &str,
) -> Result<wheelwright_core::api::ViewFile, ApiError> {
    // The page's `virtual` choice is level 2 read through the virtual namespace.
    let levels = if levels == "virtual" {
        "2&namespace=virtual".to_owned()
    } else {
        String::from(js_sys::encode_uri_component(levels))
    };
    let mut uri = format!(
        "/api/v1{repository}/view?seed={}&levels={levels}",
        js_sys::encode_uri_component(seed),
    );
    if let Some(path) = path {
        uri.push_str(&format!("&path={}", js_sys::encode_uri_component(path)));
    }
    get_json(&uri).await
}

/// The paths of the files of a repository (`{repository}/source` without `path`).
pub(crate) async fn source_files(
    repository: &str,
) -> Result<wheelwright_core::api::SourceFiles, ApiError> {
    get_json(&format!("/api/v1{repository}/source")).await
}

/// `/recube/datasets/{name}/{version}`, encoded: where a ReCUBE dataset's routes and pages
/// begin (under `/api/v1` for the API).
pub(crate) fn recube_dataset_path(name: &str, version: &str) -> String {
    benchmark_dataset_path("recube", name, version)
}

/// `/{benchmark}/datasets/{name}/{version}`, encoded.
fn benchmark_dataset_path(benchmark: &str, name: &str, version: &str) -> String {
    format!(
        "/{benchmark}/datasets/{}/{}",
        js_sys::encode_uri_component(name),
        js_sys::encode_uri_component(version)
    )
}

/// Where the routes and pages of repository `repo` of a ReCUBE dataset begin.
pub(crate) fn recube_repository_path(name: &str, version: &str, repo: &str) -> String {
    repository_path(&recube_dataset_path(name, version), repo)
}

/// Where the API's SchrodingerRepo views of repository `repo` of a ReCUBE dataset begin
/// (`/schrodinger/datasets/{name}/{version}/repositories/{repo}`, under `/api/v1`).
pub(crate) fn schrodinger_repository_path(name: &str, version: &str, repo: &str) -> String {
    repository_path(&benchmark_dataset_path("schrodinger", name, version), repo)
}

/// `{dataset}/repositories/{repo}`, `repo` encoded.
fn repository_path(dataset: &str, repo: &str) -> String {
    format!(
        "{dataset}/repositories/{}",
        js_sys::encode_uri_component(repo)
    )
}

/// A ReCUBE dataset and its instances.
pub(crate) async fn recube_dataset(
    name: &str,
    version: &str,
) -> Result<wheelwright_core::api::RecubeDatasetDetail, ApiError> {
    get_json(&format!("/api/v1{}", recube_dataset_path(name, version))).await
}

/// The ReCUBE datasets the server holds.
pub(crate) async fn recube_datasets()
-> Result<Vec<wheelwright_core::api::RecubeDatasetSummary>, ApiError> {
    get_json("/api/v1/recube/datasets").await
}

/// One ReCUBE instance's page.
pub(crate) async fn recube_instance(
    name: &str,
    version: &str,
    id: &str,
) -> Result<wheelwright_core::api::RecubeInstanceDetail, ApiError> {
    get_json(&format!(
        "/api/v1{}/instances/{}",
        recube_dataset_path(name, version),
        js_sys::encode_uri_component(id)
    ))
    .await
}

/// Where the page showing the definition of the dotted `name` in a dataset's repository is.
pub(crate) fn definition_page(name: &str, version: &str, definition: &str) -> String {
    format!(
        "{}/source?name={}",
        dataset_path(name, version),
        js_sys::encode_uri_component(definition)
    )
}

/// Where the page showing a file of a dataset's repository is, with lines `span`
/// (inclusive) marked and scrolled to.
pub(crate) fn source_page(
    name: &str,
    version: &str,
    path: &str,
    span: Option<(u32, u32)>,
) -> String {
    let lines = span
        .map(|(a, b)| format!("&line={a}&end={b}"))
        .unwrap_or_default();
    format!(
        "{}/source?path={}{lines}",
        dataset_path(name, version),
        js_sys::encode_uri_component(path)
    )
}

/// What the browser scores a run of dataset `name` `version` with (`GET .../scoring`).
/// The server sends it gzip-compressed with its content hash as the `ETag`, so the
/// browser's cache asks again cheaply (a 304) and the page gets it from the cache.
pub(crate) async fn scoring_kit(
    name: &str,
    version: &str,
) -> Result<wheelwright_core::api::ScoringKit, ApiError> {
    get_json(&format!("/api/v1{}/scoring", dataset_path(name, version))).await
}

/// A repository's index as the server saved it (`GET .../scoring/index`, gzip): loaded by
/// the page instead of parsing every file, after core checks it is of the kit's files.
/// `repository` names one of the dataset's repositories by id; `None` asks for the only one
/// of a dataset that has one.
pub(crate) async fn saved_index(
    name: &str,
    version: &str,
    repository: Option<&str>,
) -> Result<Vec<u8>, ApiError> {
    let query = repository
        .map(|id| format!("?repository={}", js_sys::encode_uri_component(id)))
        .unwrap_or_default();
    let url = format!(
        "/api/v1{}/scoring/index{query}",
        dataset_path(name, version)
    );
    let response = Request::get(&url)
        .send()
        .await
        .map_err(|e| ApiError(format!("the server did not answer: {e}")))?;
    if !response.ok() {
        return Err(ApiError(format!("HTTP {}", response.status())));
    }
    response
        .binary()
        .await
        .map_err(|e| ApiError(format!("the saved index could not be read: {e}")))
}

/// Where the server keeps a submitted run.
pub(crate) struct Submitted {
    pub(crate) id: i64,
    /// Stored now; `false`: the same bundle was stored before, as run `id`.
    pub(crate) new: bool,
}

/// Submits a run bundle as a browser form (`POST /api/v1/runs`, the bundle in the field
/// `bundle`); the server reads and scores it itself.
pub(crate) async fn submit(form: web_sys::FormData) -> Result<Submitted, ApiError> {
    let response = Request::post("/api/v1/runs")
        .body(form)
        .map_err(|e| ApiError(format!("could not send the bundle: {e}")))?
        .send()
        .await
        .map_err(|e| ApiError(format!("the server did not answer: {e}")))?;
    if response.status() == 409 {
        // "... already stored as run {id}; GET /api/v1/runs/{id} shows it"
        let message = response
            .json::<ErrorBody>()
            .await
            .map(|b| b.error)
            .unwrap_or_default();
        return duplicate_of(&message)
            .map(|id| Submitted { id, new: false })
            .ok_or(ApiError(message));
    }
    read_json::<RunDetail>(response).await.map(|run| Submitted {
        id: run.summary.id,
        new: true,
    })
}

/// The run a 409's message names (`... GET /api/v1/runs/{id} shows it`).
fn duplicate_of(message: &str) -> Option<i64> {
    let (_, after) = message.rsplit_once("/api/v1/runs/")?;
    after
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// Every turn row of run `run`, page after page.
pub(crate) async fn all_turns(run: i64) -> Result<Vec<TurnTableRow>, ApiError> {
    let mut rows = Vec::new();
    loop {
        let page = turns(run, rows.len()).await?;
        let done = page.items.is_empty()
            || usize::try_from(page.total).is_ok_and(|t| rows.len() + page.items.len() >= t);
        rows.extend(page.items);
        if done {
            return Ok(rows);
        }
    }
}

/// A hidden-test job's progress (`GET /api/v1/jobs/{id}` and each `progress` event).
pub(crate) use wheelwright_core::hidden_tests::JobProgress as Progress;

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
