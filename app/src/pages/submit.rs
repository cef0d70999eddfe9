//! Submit a run: drop or choose a run bundle, see it scored here in the browser (nothing is
//! sent), then submit it: the server scores it again, the page says whether the two agree,
//! and the hidden tests are queued and followed live.

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_meta::Title;
use wasm_bindgen::JsCast;

use crate::api::{self, ApiError, Progress, ProgressStream, RunDetail, TurnTableRow};
use crate::components::test_progress::TestProgress;
use crate::local::{self, LocalRun, Picked};
use crate::pages::reporeuse::run::{RunLinks, run_summary, unparsed_report};
use crate::pages::reporeuse::turn_pages::TurnPages;

/// The run scored in this page, shared with its case pages (`/submit/{chain}/{turn}`) for
/// as long as the page lives: it is never stored anywhere.
#[derive(Clone, Copy)]
pub(crate) struct LocalSlot(pub(crate) RwSignal<Option<Rc<LocalRun>>, LocalStorage>);

/// Where reading and scoring the dropped bundle is.
#[derive(Clone, Debug, PartialEq)]
enum Stage {
    Idle,
    Reading(String),
    Fetching(String),
    Indexing,
    Scoring { done: usize, total: usize },
    Failed(String),
    Scored,
}

/// Where submitting the scored bundle is.
#[derive(Clone, Debug, PartialEq)]
enum Sent {
    No,
    Sending,
    /// Stored as run `id` (or found stored already); `differences` between the server's
    /// scores and the browser's (none: they agree).
    Stored {
        id: i64,
        new: bool,
        differences: Vec<String>,
    },
    Failed(String),
}

/// The differences between the browser's scores and the server's for the same run: the
/// overall row, the per-turn series and every turn row. Empty when they are identical, as
/// they must be (one scorer).
fn differences(
    mine: &RunDetail,
    my_rows: &[TurnTableRow],
    theirs: &RunDetail,
    their_rows: &[TurnTableRow],
) -> Vec<String> {
    let mut out = Vec::new();
    for (column, score) in &mine.summary.overall {
        let other = theirs.summary.overall.get(column);
        if other != Some(score) {
            out.push(format!(
                "overall {column}: the browser has {}, the server {}",
                show(score),
                other.map_or_else(|| "nothing".to_owned(), show)
            ));
        }
    }
    if mine.series != theirs.series {
        out.push("the per-turn series differ".to_owned());
    }
    if my_rows.len() != their_rows.len() {
        out.push(format!(
            "the browser scored {} turns, the server {}",
            my_rows.len(),
            their_rows.len()
        ));
    }
    for (a, b) in my_rows.iter().zip(their_rows) {
        if a != b {
            out.push(format!(
                "chain {} turn {}: the browser's row is {}, the server's {}",
                a.row.chain,
                a.row.turn,
                show(a),
                show(b)
            ));
        }
    }
    out
}

/// JSON text of a value, for the differences' messages.
fn show<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The files of a directory input, or the one file of a file input or drop.
fn picked_from(files: &web_sys::FileList, directory: bool) -> Option<Picked> {
    if directory {
        let all: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
        return (!all.is_empty()).then_some(Picked::Directory(all));
    }
    files.get(0).map(Picked::File)
}

/// The limits the page checks before scoring, the server's upload limits (core's
/// `LIMITS`, `STORED_TEXT_BYTES` and `UPLOAD_BYTES`, docs/limits.md).
fn limits_text() -> String {
    use wheelwright_core::bundle::{LIMITS, STORED_TEXT_BYTES, UPLOAD_BYTES};
    let mib = |bytes: u64| bytes / (1024 * 1024);
    format!(
        "Formats: docs/formats.md, \"Run bundle\". Limits as for an upload, checked before scoring: {} files, {} MiB a file, {} MiB in all once decompressed, of it {} MiB of files and trajectories, and {} MiB as sent (a .jsonl or folder is sent gzip-compressed). A larger run: submit it in bundles of whole chains.",
        group(LIMITS.entries),
        mib(LIMITS.file_bytes),
        mib(LIMITS.total_bytes),
        mib(STORED_TEXT_BYTES),
        mib(UPLOAD_BYTES)
    )
}

/// `n` with thousands separated by commas (20,000).
fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[component]
pub(crate) fn SubmitPage() -> impl IntoView {
    let slot = expect_context::<LocalSlot>().0;
    let (stage, set_stage) = signal(if slot.with_untracked(Option::is_some) {
        Stage::Scored
    } else {
        Stage::Idle
    });
    let (sent, set_sent) = signal(Sent::No);
    // What the user waited for, measured once the scored run's view is shown (kept in the
    // run too, for when the page is opened again).
    let (waited, set_waited) =
        signal(slot.with_untracked(|run| run.as_ref().and_then(|run| run.waited.get())));
    let (dragging, set_dragging) = signal(false);
    let (progress, set_progress) = signal::<Option<Progress>>(None);
    let (test_error, set_test_error) = signal::<Option<String>>(None);
    let stream = StoredValue::new_local(None::<ProgressStream>);
    // The folder picker: `webkitdirectory` is not an attribute Leptos knows, so it is set
    // once the input exists.
    let folder_input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = folder_input.get() {
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });

    // Reads, fetches the dataset, indexes and scores, showing each step; nothing is sent.
    let take = move |picked: Picked| {
        let name = match &picked {
            Picked::File(f) => f.name(),
            Picked::Directory(files) => files
                .first()
                .map(|f| {
                    let path = local::relative_path(f);
                    path.split('/').next().unwrap_or_default().to_owned()
                })
                .unwrap_or_default(),
        };
        // What the user waits for starts here.
        let dropped = local::now_ms();
        slot.set(None);
        set_waited.set(None);
        set_sent.set(Sent::No);
        set_progress.set(None);
        stream.set_value(None);
        set_stage.set(Stage::Reading(name.clone()));
        spawn_local(async move {
            local::next_frame().await;
            let (bundle, upload) = match local::read_bundle(picked).await {
                Ok(read) => read,
                Err(e) => return set_stage.set(Stage::Failed(e)),
            };
            let wanted = &bundle.metadata.dataset;
            set_stage.set(Stage::Fetching(format!(
                "{} {}",
                wanted.name, wanted.version
            )));
            let indexed = match local::indexed(&wanted.name, &wanted.version, || {
                set_stage.set(Stage::Indexing);
            })
            .await
            {
                Ok(indexed) => indexed,
                Err(e) => return set_stage.set(Stage::Failed(e)),
            };
            let scoring_began = local::now_ms();
            let scored = local::score(&indexed, &bundle, |done, total| {
                set_stage.set(Stage::Scoring { done, total });
            })
            .await;
            match scored {
                Ok(scored) => {
                    let run = Rc::new(LocalRun {
                        bundle,
                        upload,
                        report: scored.report,
                        indexed,
                        name,
                        score_ms: scored.score_ms,
                        chain_ms: scored.chain_ms,
                        waited: std::cell::Cell::new(None),
                    });
                    slot.set(Some(Rc::clone(&run)));
                    set_stage.set(Stage::Scored);
                    // The view is built before the page's next task runs: measured then,
                    // the times hold everything the user waited for.
                    local::next_frame().await;
                    let now = local::now_ms();
                    let measured = Some(local::Waited {
                        score_ms: now - scoring_began,
                        total_ms: now - dropped,
                    });
                    run.waited.set(measured);
                    set_waited.set(measured);
                }
                Err(e) => set_stage.set(Stage::Failed(e)),
            }
        });
    };

    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        set_dragging.set(false);
        if let Some(picked) = ev
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|f| picked_from(&f, false))
        {
            take(picked);
        }
    };
    let on_choose = move |directory: bool| {
        move |ev: web_sys::Event| {
            let input = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
            if let Some(picked) = input
                .as_ref()
                .and_then(web_sys::HtmlInputElement::files)
                .and_then(|f| picked_from(&f, directory))
            {
                take(picked);
            }
            // The same file chosen again is a new choice.
            if let Some(input) = input {
                input.set_value("");
            }
        }
    };

    // Follows the hidden tests of the stored run live.
    let follow = move |job: i64| match api::follow_job(
        job,
        move |p: Progress| set_progress.set(Some(p)),
        move |e: ApiError| set_test_error.set(Some(e.to_string())),
    ) {
        Ok(handle) => stream.set_value(Some(handle)),
        Err(e) => set_test_error.set(Some(e.to_string())),
    };

    let submit = move |_| {
        let Some(run) = slot.get_untracked() else {
            return;
        };
        set_sent.set(Sent::Sending);
        set_test_error.set(None);
        spawn_local(async move {
            let form = match run.upload.form() {
                Ok(form) => form,
                Err(e) => return set_sent.set(Sent::Failed(e)),
            };
            let api::Submitted { id, new } = match api::submit(form).await {
                Ok(submitted) => submitted,
                Err(e) => return set_sent.set(Sent::Failed(e.to_string())),
            };
            let theirs = match (api::run(id).await, api::all_turns(id).await) {
                (Ok(detail), Ok(rows)) => (detail, rows),
                (Err(e), _) | (_, Err(e)) => return set_sent.set(Sent::Failed(e.to_string())),
            };
            let differences = differences(&run.detail(), &run.rows(), &theirs.0, &theirs.1);
            set_sent.set(Sent::Stored {
                id,
                new,
                differences,
            });
            match api::queue_tests(id).await {
                Ok(p) => {
                    let (job, finished) = (p.job, p.finished());
                    set_progress.set(Some(p));
                    if !finished {
                        follow(job);
                    }
                }
                Err(e) => set_test_error.set(Some(e.to_string())),
            }
        });
    };

    let status = move || {
        match stage.get() {
        Stage::Idle => None,
        Stage::Reading(name) => Some(view! { <p class="muted" id="stage">{format!("Reading {name}…")}</p> }.into_any()),
        Stage::Fetching(dataset) => Some(
            view! { <p class="muted" id="stage">{format!("Fetching the dataset {dataset}…")}</p> }
                .into_any(),
        ),
        Stage::Indexing => Some(view! { <p class="muted" id="stage">"Indexing the repository…"</p> }.into_any()),
        Stage::Scoring { done, total } => {
            let percent = if total == 0 { 0.0 } else { 100.0 * done as f64 / total as f64 };
            Some(
                view! {
                    <div class="test-progress" id="stage">
                        <div class="progress-head">{format!("Scoring in your browser: {done} of {total} turns")}</div>
                        <div class="progress-bar" role="progressbar" aria-label="turns scored" aria-valuemin="0" aria-valuemax=total aria-valuenow=done>
                            <div class="progress-fill running" style=format!("width: {percent:.1}%")></div>
                        </div>
                    </div>
                }
                .into_any(),
            )
        }
        Stage::Failed(message) => Some(
            view! {
                <div class="error-box" id="bundle-error" role="alert">
                    <strong>"This bundle cannot be scored: "</strong>
                    <span class="message">{message}</span>
                    <p class="muted">"Nothing was sent. Fix the entry named above and drop the bundle again (formats: docs/formats.md, \"Run bundle\")."</p>
                </div>
            }
            .into_any(),
        ),
        Stage::Scored => None,
    }
    };

    let submission = move || {
        let view = match sent.get() {
            Sent::No => view! {
                <button id="submit-run" class="button primary" on:click=submit>"Submit to the server"</button>
                <span class="muted">" The server reads and scores the bundle again itself, then runs its hidden tests."</span>
            }
            .into_any(),
            Sent::Sending => view! { <p class="muted" id="submit-state">"Sending; the server is scoring the run…"</p> }.into_any(),
            Sent::Failed(message) => view! {
                <p class="error" id="submit-error">{format!("The server refused the run: {message}")}</p>
                <button id="submit-run" class="button" on:click=submit>"Try again"</button>
            }
            .into_any(),
            Sent::Stored { id, new, differences } => {
                let stored = if new { "Stored as " } else { "This bundle was stored before, as " };
                let verdict = if differences.is_empty() {
                    view! {
                        <p class="agree" id="server-agrees">
                            "The server's scores are identical to your browser's: overall, per turn and the series."
                        </p>
                    }
                    .into_any()
                } else {
                    let items = differences.into_iter().map(|d| view! { <li>{d}</li> }).collect_view();
                    view! {
                        <div class="error-box" id="server-differs" role="alert">
                            <strong>"The server's scores differ from your browser's. This is a bug in Wheelwright: please report it with the bundle."</strong>
                            <ul>{items}</ul>
                        </div>
                    }
                    .into_any()
                };
                view! {
                    <p id="submit-state">
                        {stored}
                        <a id="stored-run" href=format!("/runs/{id}")>{format!("run {id}")}</a>
                        "."
                    </p>
                    {verdict}
                }
                .into_any()
            }
        };
        view! {
            <section class="submission">
                <h2>"Submit"</h2>
                {view}
                <TestProgress progress=progress />
                {move || test_error.get().map(|e| view! { <p class="error" id="test-error">{e}</p> })}
            </section>
        }
    };

    let result = move || {
        if stage.get() != Stage::Scored {
            return None;
        }
        let run = slot.get()?;
        let detail = run.detail();
        let rows = run.rows();
        let turn_counts = detail
            .chains
            .iter()
            .map(|c| (c.chain.clone(), c.turn_count))
            .collect();
        let how = match &run.indexed.built_because {
            None => {
                "its index, saved by the server and checked against its files, loaded".to_owned()
            }
            Some(why) => format!("indexed here ({why})"),
        };
        let (fetch_ms, index_ms, turns) = (run.indexed.fetch_ms, run.indexed.index_ms, rows.len());
        let compute_ms = run.score_ms;
        let timing = move || match waited.get() {
            Some(w) => format!(
                "Dataset fetched in {fetch_ms:.0} ms; {how} in {index_ms:.0} ms; {turns} turns scored and shown in {:.0} ms ({:.0} ms of it the scorer's own work); {:.0} ms in all since the bundle was dropped.",
                w.score_ms, compute_ms, w.total_ms
            ),
            None => format!(
                "Dataset fetched in {fetch_ms:.0} ms; {how} in {index_ms:.0} ms; {turns} turns scored."
            ),
        };
        let score_ms = move || waited.get().map(|w| w.score_ms);
        let total_ms = move || waited.get().map(|w| w.total_ms);
        let slowest_chain = run.chain_ms.iter().copied().fold(0.0, f64::max);
        let badge =
            view! { <span class="badge origin local">"scored in your browser"</span> }.into_any();
        Some(view! {
            // The timings as numbers too, for the browser benchmark (scripts/bench/browser-scoring).
            <div
                class="local-state"
                id="local-state"
                role="status"
                data-fetch-ms=run.indexed.fetch_ms
                data-index-ms=run.indexed.index_ms
                data-index=if run.indexed.built_because.is_none() { "saved" } else { "built" }
                data-score-ms=score_ms
                data-compute-ms=run.score_ms
                data-total-ms=total_ms
                data-slowest-chain-ms=slowest_chain
                data-turns=rows.len()
            >
                <strong>"Scored in your browser, not submitted."</strong>
                " Nothing has been sent: the numbers below were computed on this page. "
                <span class="muted">{timing}</span>
            </div>
            {submission}
            {run_summary(&detail, badge, run.name.clone())}
            <h2>"Turns"</h2>
            <TurnPages links=RunLinks::Local rows turn_counts />
            {unparsed_report(RunLinks::Local, detail.unparsed.as_ref())}
        })
    };

    view! {
        <section class="submit-page">
            <Title text="Submit a run" />
            <h1>"Submit a run"</h1>
            <p class="lead">
                "Drop your run bundle: a " <code>".zip"</code> ", a " <code>".jsonl"</code> " (or "
                <code>".jsonl.gz"</code> ") file, or choose its folder. It is read and scored here, "
                "in your browser, by the scorer the server uses; nothing is uploaded until you "
                "press " <em>"Submit to the server"</em> "."
            </p>
            <div
                class="drop-zone bundle-drop"
                class:dragging=move || dragging.get()
                on:dragover=move |ev: web_sys::DragEvent| {
                    ev.prevent_default();
                    set_dragging.set(true);
                }
                on:dragleave=move |_| set_dragging.set(false)
                on:drop=on_drop
            >
                <p>"Drop a bundle file here, or"</p>
                <div class="choose">
                    <label class="button">
                        "Choose a file"
                        <input id="bundle-file" type="file" accept=".zip,.jsonl,.gz,application/zip,application/x-ndjson,application/gzip" on:change=on_choose(false) />
                    </label>
                    <label class="button">
                        "Choose a folder"
                        <input id="bundle-folder" type="file" multiple="" node_ref=folder_input on:change=on_choose(true) />
                    </label>
                </div>
                <p class="muted small">{limits_text()}</p>
            </div>
            {status}
            {result}
        </section>
    }
}
