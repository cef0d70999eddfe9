//! `/schrodinger/actions`: a SchrodingerRepo run's Pass@1, tokens and action mix, read in the browser from its trajectories and SWE-bench reports, and its shift against a baseline run.
//!
//! The run (an agent on a view) and the baseline (the same agent on the original) are
//! folders or files the user picks; core's [`RunReader`] reads them here, one file at a
//! time with live progress, exactly as `wheelwright actions` reads a folder. Nothing is
//! uploaded.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_meta::Title;
use wasm_bindgen::JsCast;
use wheelwright_core::metric::{Score, format_thousands};
use wheelwright_core::schrodinger::action_mix::CATEGORIES;
use wheelwright_core::schrodinger::action_shift::{ActionShift, action_shift};
use wheelwright_core::schrodinger::run_actions::{FILE_LIMIT, RunActions, RunReader, is_run_file};

use crate::local;

/// Where reading one side (the run or the baseline) is.
#[derive(Clone, Debug, PartialEq)]
enum Side {
    Idle,
    Reading { done: usize, total: usize },
    Read(Arc<RunActions>),
    Failed(String),
}

impl Side {
    fn read(&self) -> Option<Arc<RunActions>> {
        match self {
            Side::Read(run) => Some(Arc::clone(run)),
            _ => None,
        }
    }
}

/// Reads the `.json` and `.json.gz` files among `files`, reporting `(done, total)` as it goes.
async fn read_run(
    files: Vec<web_sys::File>,
    progress: impl Fn(usize, usize),
) -> Result<RunActions, String> {
    let files: Vec<web_sys::File> = files
        .into_iter()
        .filter(|f| is_run_file(&f.name()))
        .collect();
    if files.is_empty() {
        return Err("no .json or .json.gz file was chosen: pick the folder holding the run's trajectories (<id>.traj.json) and the evaluation's report.json files".to_owned());
    }
    let total = files.len();
    let mut reader = RunReader::new();
    for (i, file) in files.iter().enumerate() {
        let name = local::relative_path(file);
        if file.size() > FILE_LIMIT as f64 {
            reader.skip_over_limit(&name);
        } else {
            reader.add(&name, &local::bytes_of(file).await?);
        }
        progress(i + 1, total);
        // Hand the page back now and then, so the progress is drawn.
        if i % 4 == 3 {
            local::next_frame().await;
        }
    }
    Ok(reader.finish())
}

fn percent(score: Score) -> String {
    score
        .value()
        .map_or_else(|| "—".to_owned(), |v| format!("{v:.1}%"))
}

fn signed(score: Score, unit: &str) -> String {
    score
        .value()
        .map_or_else(|| "—".to_owned(), |v| format!("{v:+.1}{unit}"))
}

fn amount(score: Score) -> String {
    score
        .value()
        .map_or_else(|| "—".to_owned(), format_thousands)
}

/// One row of the summary table.
fn summary_row(label: &'static str, run: &RunActions) -> impl IntoView + use<> {
    view! {
        <tr data-side=label>
            <th scope="row">{label}</th>
            <td class="num" data-column="instances">{run.instances.len()}</td>
            <td class="num" data-column="resolved">{run.resolved}</td>
            <td class="num" data-column="pass_at_1">{percent(run.pass_at_1)}</td>
            <td class="num" data-column="mean_actions">
                {run.mix.mean_actions.value().map_or_else(|| "—".to_owned(), |v| format!("{v:.1}"))}
            </td>
            <td class="num" data-column="input_tokens">{amount(run.tokens.input)}</td>
            <td class="num" data-column="output_tokens">{amount(run.tokens.output)}</td>
        </tr>
    }
}

/// The share of each category, the run's bar over the baseline's.
fn mix_figure(run: &RunActions, baseline: Option<&RunActions>) -> impl IntoView + use<> {
    let rows = CATEGORIES
        .iter()
        .map(|c| {
            let name = c.name().to_owned();
            let bar = |side: &'static str, series: &'static str, mix: &RunActions| {
                let share = mix.mix.shares[c];
                let width = share.value().unwrap_or(0.0).clamp(0.0, 100.0);
                let title = format!(
                    "{name}, {side}: {} of {} actions",
                    percent(share),
                    mix.mix.actions
                );
                view! {
                    <div class=format!("bar-line {series}") title=title.clone()>
                        <div class="hbar" style=format!("width: {width:.2}%")></div>
                        <span class="bar-value">{percent(share)}</span>
                    </div>
                }
            };
            view! {
                <div class="bar-row" data-category=name.clone()>
                    <span class="bar-name">{name.clone()}</span>
                    <div class="bar-lines">
                        {bar("run", "series-0", run)}
                        {baseline.map(|b| bar("baseline", "series-1", b))}
                    </div>
                </div>
            }
        })
        .collect_view();
    view! {
        <figure class="chart bars-figure" id="action-mix">
            <figcaption>"Share of actions by category"</figcaption>
            <p class="legend">
                <span class="series-0"><span class="swatch"></span>"run"</span>
                {baseline.map(|_| view! { <span class="series-1"><span class="swatch"></span>"baseline"</span> })}
            </p>
            <div class="bar-rows">{rows}</div>
        </figure>
    }
}

/// Where the additional actions went: each category's share, left of the axis when the
/// run took fewer of them than the baseline.
fn shift_figure(shift: &ActionShift) -> impl IntoView + use<> {
    let extra = &shift.additional;
    let defined = extra.shares.values().any(|s| s.value().is_some());
    let body = if defined {
        let most = extra
            .shares
            .values()
            .filter_map(|s| s.value())
            .fold(1e-9_f64, |m, v| m.max(v.abs()));
        let rows = CATEGORIES
            .iter()
            .map(|c| {
                let name = c.name().to_owned();
                let share = extra.shares[c];
                let v = share.value().unwrap_or(0.0);
                let half = v.abs() / most * 50.0;
                let left = if v < 0.0 { 50.0 - half } else { 50.0 };
                let title = format!(
                    "{name}: {} of the additional actions ({:+.2} per instance)",
                    signed(share, "%"),
                    extra.by_category[c]
                );
                view! {
                    <div class="bar-row" data-category=name.clone() title=title>
                        <span class="bar-name">{name.clone()}</span>
                        <div class="bar-lines">
                            <div class=if v < 0.0 { "bar-line diverging series-1" } else { "bar-line diverging series-0" }>
                                <div class="axis-track">
                                    <div class="hbar" style=format!("left: {left:.2}%; width: {half:.2}%")></div>
                                </div>
                                <span class="bar-value">{signed(share, "%")}</span>
                            </div>
                        </div>
                    </div>
                }
            })
            .collect_view();
        view! {
            <p class="muted small">
                {format!("{:+.2} actions per instance over the baseline; a category left of the axis took fewer.", extra.per_instance)}
            </p>
            <div class="bar-rows">{rows}</div>
        }
        .into_any()
    } else {
        view! {
            <p class="muted" id="no-additional">
                {format!(
                    "The run took no more actions per instance than the baseline ({:+.2}), so the shares of additional actions are undefined.",
                    extra.per_instance
                )}
            </p>
        }
        .into_any()
    };
    view! {
        <figure class="chart bars-figure" id="additional-actions">
            <figcaption>"Where the additional actions went"</figcaption>
            {body}
        </figure>
    }
}

/// The run, against the baseline when there is one.
fn report_view(run: &RunActions, baseline: Option<&RunActions>) -> impl IntoView + use<> {
    let shift = baseline.map(|b| action_shift(run, b));
    let shift_line = shift.as_ref().map(|s| {
        view! {
            <p class="shift-line" id="actions-shift">
                {format!(
                    "Against the baseline: Pass@1 {}, actions per instance {}, input tokens {}, output tokens {}; {} instance(s) in both runs.",
                    signed(s.pass_at_1_change, " points"),
                    signed(s.actions_increase, "%"),
                    signed(s.input_tokens_increase, "%"),
                    signed(s.output_tokens_increase, "%"),
                    s.shared_instances
                )}
            </p>
        }
    });
    let notes: Vec<(&'static str, String)> = run
        .diagnostics
        .iter()
        .map(|d| ("run", d.clone()))
        .chain(
            baseline
                .into_iter()
                .flat_map(|b| b.diagnostics.iter().map(|d| ("baseline", d.clone()))),
        )
        .collect();
    let notes = (!notes.is_empty()).then(|| {
        let items = notes
            .into_iter()
            .map(|(side, d)| view! { <li><strong>{side}": "</strong>{d}</li> })
            .collect_view();
        view! { <ul class="notes" id="actions-notes">{items}</ul> }
    });
    let instances = run
        .instances
        .iter()
        .map(|i| {
            let resolved = match i.resolved {
                Some(true) => "yes",
                Some(false) => "no",
                None => "—",
            };
            view! {
                <tr>
                    <td><code>{i.id.clone()}</code></td>
                    <td>{resolved}</td>
                    <td class="num">{i.actions}</td>
                    <td class="num">{i.tokens.map_or_else(|| "—".to_owned(), |t| amount(Score::Defined { value: t.input as f64 }))}</td>
                    <td class="num">{i.tokens.map_or_else(|| "—".to_owned(), |t| amount(Score::Defined { value: t.output as f64 }))}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table class="data" id="actions-summary">
                <thead>
                    <tr>
                        <th></th>
                        <th class="num">"instances"</th>
                        <th class="num">"resolved"</th>
                        <th class="num">"Pass@1"</th>
                        <th class="num">"actions / instance"</th>
                        <th class="num">"input tokens / instance"</th>
                        <th class="num">"output tokens / instance"</th>
                    </tr>
                </thead>
                <tbody>
                    {summary_row("run", run)}
                    {baseline.map(|b| summary_row("baseline", b))}
                </tbody>
            </table>
        </div>
        {shift_line}
        <div class="charts">
            {mix_figure(run, baseline)}
            {shift.as_ref().map(shift_figure)}
        </div>
        {notes}
        <details class="instances">
            <summary>{format!("The run's {} instances", run.instances.len())}</summary>
            <div class="table-scroll">
                <table class="data" id="actions-instances">
                    <thead>
                        <tr>
                            <th>"instance"</th>
                            <th>"resolved"</th>
                            <th class="num">"actions"</th>
                            <th class="num">"input tokens"</th>
                            <th class="num">"output tokens"</th>
                        </tr>
                    </thead>
                    <tbody>{instances}</tbody>
                </table>
            </div>
        </details>
    }
}

/// The pickers of one side, and its state.
fn picker(
    side: &'static str,
    title: &'static str,
    state: ReadSignal<Side>,
    set: WriteSignal<Side>,
) -> impl IntoView {
    let folder_input = NodeRef::<leptos::html::Input>::new();
    // `webkitdirectory` is not an attribute Leptos knows: set once the input exists.
    Effect::new(move |_| {
        if let Some(input) = folder_input.get() {
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });
    let on_choose = move |ev: web_sys::Event| {
        let input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        let files: Vec<web_sys::File> = input
            .as_ref()
            .and_then(web_sys::HtmlInputElement::files)
            .map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect())
            .unwrap_or_default();
        if let Some(input) = input {
            input.set_value("");
        }
        if files.is_empty() {
            return;
        }
        set.set(Side::Reading {
            done: 0,
            total: files.len(),
        });
        spawn_local(async move {
            local::next_frame().await;
            match read_run(files, move |done, total| {
                set.set(Side::Reading { done, total });
            })
            .await
            {
                Ok(run) => set.set(Side::Read(Arc::new(run))),
                Err(e) => set.set(Side::Failed(e)),
            }
        });
    };
    let status = move || match state.get() {
        Side::Idle => view! { <p class="muted small">"Nothing chosen."</p> }.into_any(),
        Side::Reading { done, total } => {
            let percent = if total == 0 {
                0.0
            } else {
                100.0 * done as f64 / total as f64
            };
            view! {
                <div class="test-progress" id=format!("{side}-progress")>
                    <div class="progress-head">{format!("Reading {done} of {total} files")}</div>
                    <div class="progress-bar" role="progressbar" aria-label=format!("{side} files read") aria-valuemin="0" aria-valuemax=total aria-valuenow=done>
                        <div class="progress-fill running" style=format!("width: {percent:.1}%")></div>
                    </div>
                </div>
            }
            .into_any()
        }
        Side::Read(run) => view! {
            <p class="small" id=format!("{side}-read")>
                {format!("Read: {} instances, {} resolved.", run.instances.len(), run.resolved)}
            </p>
        }
        .into_any(),
        Side::Failed(message) => view! {
            <p class="error" id=format!("{side}-error") role="alert">{message}</p>
        }
        .into_any(),
    };
    view! {
        <div class="drop-zone run-pick" id=format!("{side}-pick")>
            <h2>{title}</h2>
            <div class="choose">
                <label class="button">
                    "Choose a folder"
                    <input id=format!("{side}-folder") type="file" multiple="" node_ref=folder_input on:change=on_choose />
                </label>
                <label class="button">
                    "Choose files"
                    <input id=format!("{side}-files") type="file" multiple="" accept=".json,.gz,application/json,application/gzip" on:change=on_choose />
                </label>
            </div>
            {status}
        </div>
    }
}

#[component]
pub(crate) fn SchrodingerActionsPage() -> impl IntoView {
    let (run, set_run) = signal(Side::Idle);
    let (baseline, set_baseline) = signal(Side::Idle);
    let report = move || {
        let run = run.get().read()?;
        let baseline = baseline.get().read();
        Some(view! {
            <section class="actions-report">{report_view(&run, baseline.as_deref())}</section>
        })
    };
    view! {
        <section class="actions-page">
            <Title text="SchrodingerRepo: how a run's actions shift" />
            <nav class="breadcrumbs"><a href="/published/schrodinger">"SchrodingerRepo"</a>" · actions"</nav>
            <h1>"How a run's actions shift"</h1>
            <p class="lead">
                "Choose a run's folder: its trajectories (" <code>"<id>.traj.json"</code>
                ", also gzip-compressed) and the SWE-bench evaluation's " <code>"report.json"</code>
                " files. The page reads them here, in your browser (nothing is uploaded), and shows "
                "the run's Pass@1, tokens and the mix of its actions (navigate, search, read, probe, "
                "edit, test, other). Add a baseline, the same agent on the original repository, to "
                "see how the run moved and where its additional actions went. "
                <code>"wheelwright actions --run DIR --baseline DIR"</code> " prints the same."
            </p>
            <p class="muted">
                "The paper's own shares of additional actions under the full setting are on "
                <a href="/published/schrodinger#action-shift">"its published results"</a>
                "; views of a shipped library to run agents on are in the view explorer, from "
                <a href="/recube/datasets/recube-pypi/1#schrodinger-views">"the ReCUBE datasets"</a> "."
            </p>
            <div class="run-picks">
                {picker("run", "Run", run, set_run)}
                {picker("baseline", "Baseline (optional)", baseline, set_baseline)}
            </div>
            {report}
        </section>
    }
}
