//! `/recube/runs/:id`: one stored ReCUBE run: its row of rates, its hidden tests queued and followed live, and each instance's tests, caller coverage and cost, linked to the instance page with the submission.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use wheelwright_core::api::{RecubeRunDetail, RecubeRunInstance};
use wheelwright_core::recube::scoring::{COLUMNS, Tally};

use crate::api::{self, Progress};
use crate::components::hidden_tests::HiddenTestsControl;
use crate::components::loaded::loaded;
use crate::components::score::{ScoreCell, definition, header};

/// What the page loads: the run and its hidden-test job, if any.
#[derive(Clone)]
struct Loaded {
    run: RecubeRunDetail,
    job: Option<Progress>,
}

async fn load(id: Option<i64>) -> Result<Loaded, api::ApiError> {
    let id = id.ok_or_else(|| api::ApiError("no such run".to_owned()))?;
    let run = api::recube_run(id).await?;
    let job = api::run_tests(id).await.ok().flatten().map(|t| t.progress);
    Ok(Loaded { run, job })
}

/// `passed/total`, or a dash for a kind the instance has no test of.
fn tally(t: Tally) -> String {
    if t.total == 0 {
        "—".to_owned()
    } else {
        format!("{}/{}", t.passed, t.total)
    }
}

/// One instance's row; its id links to the instance page showing this run's file.
fn instance_row(run: &RecubeRunDetail, i: RecubeRunInstance) -> impl IntoView + use<> {
    let s = &run.summary;
    let href = format!(
        "{}/instances/{}?run={}",
        api::recube_dataset_path(&s.dataset_name, &s.dataset_version),
        js_sys::encode_uri_component(&i.score.instance),
        s.id
    );
    let score = i.score;
    let (state, state_class) = match (i.tested, score.submitted) {
        (_, false) => ("no file", "badge outcome failed"),
        (true, _) => ("tested", "badge job done"),
        (false, _) => ("not tested", "badge job queued"),
    };
    let tests = if i.tested || !score.submitted {
        tally(score.all)
    } else {
        "—".to_owned()
    };
    let cost = score
        .cost_usd
        .map(|c| format!("${c:.4}"))
        .unwrap_or_default();
    let calls = score.model_calls.map(|c| c.to_string()).unwrap_or_default();
    view! {
        <tr class="instance-row" data-instance=score.instance.clone() data-tested=i.tested.to_string()>
            <td><a href=href><code>{score.instance.clone()}</code></a></td>
            <td><span class=state_class>{state}</span></td>
            <td class="num">{tests}</td>
            <td class="num">{if i.tested { tally(score.external) } else { String::new() }}</td>
            <td class="num">{if i.tested { tally(score.internal) } else { String::new() }}</td>
            <ScoreCell column="caller_coverage" score=Some(score.caller_coverage) />
            <td class="num">{score.callers}</td>
            <td class="num">{cost}</td>
            <td class="num">{calls}</td>
        </tr>
    }
}

fn content(loaded: Loaded) -> impl IntoView {
    let run = loaded.run;
    let s = run.summary.clone();
    let headers = COLUMNS
        .iter()
        .map(|c| view! { <th class="num" scope="col" title=definition(c)>{header(c)}</th> })
        .collect_view();
    let cells = COLUMNS
        .iter()
        .map(|c| view! { <ScoreCell column=*c score=s.overall.get(*c).copied() /> })
        .collect_view();
    let tested = run.instances.iter().filter(|i| i.tested).count();
    let total = run.instances.len();
    let note = if tested == total {
        "Every instance was tested in the sandbox; the rates count an error, a timeout or a test never collected as a failure.".to_owned()
    } else {
        format!(
            "{tested} of {total} instances tested: the pass rates appear once every instance is. Caller coverage, cost and model calls come from the trajectories and are known already."
        )
    };
    let correlation = |c: Option<wheelwright_core::recube::metrics::Correlation>| {
        c.map_or_else(
            || "—".to_owned(),
            |c| {
                format!(
                    "{:.3} (p = {:.3}, {} instances)",
                    c.coefficient, c.p_value, c.n
                )
            },
        )
    };
    let kendall = correlation(run.correlations.kendall);
    let spearman = correlation(run.correlations.spearman);
    let rows = run
        .instances
        .clone()
        .into_iter()
        .map(|i| instance_row(&run, i))
        .collect_view();
    let dataset_href = api::recube_dataset_path(&s.dataset_name, &s.dataset_version);
    view! {
        <nav class="breadcrumbs">
            <a href="/leaderboard/recube">"ReCUBE"</a>" · "
            <a href=dataset_href>{format!("{} {}", s.dataset_name, s.dataset_version)}</a>
            " · "{format!("run {}", s.id)}
        </nav>
        <header class="run-head">
            <h1>{s.model.clone()}</h1>
            <div class="run-badges">
                <span class=format!("badge origin {}", s.origin)>{s.origin.clone()}</span>
                <span class="muted">{format!(" {} · {} · {} instances", s.harness, s.run_date, total)}</span>
            </div>
        </header>
        {s.notes.clone().map(|n| view! { <p class="muted">{n}</p> })}
        <h2>"Overall"</h2>
        <div class="table-scroll">
            <table class="data" id="recube-rates">
                <thead><tr>{headers}</tr></thead>
                <tbody><tr>{cells}</tr></tbody>
            </table>
        </div>
        <p class="muted" id="tested-note">{note}</p>
        <section>
            <h2>"Instances"</h2>
            <div class="table-scroll">
                <table class="data" id="recube-instances">
                    <thead>
                        <tr>
                            <th scope="col">"Instance"</th>
                            <th scope="col">"State"</th>
                            <th scope="col" class="num">"Tests passed"</th>
                            <th scope="col" class="num">"External"</th>
                            <th scope="col" class="num">"Internal"</th>
                            <th scope="col" class="num" title=definition("caller_coverage")>"Caller coverage"</th>
                            <th scope="col" class="num">"Callers"</th>
                            <th scope="col" class="num">"Cost"</th>
                            <th scope="col" class="num">"Model calls"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <p class="muted small" id="correlations">
                "Caller coverage against each instance's APR, over the tested instances whose APR is neither 0% nor 100%: Kendall τ "
                {kendall}", Spearman ρ "{spearman}"."
            </p>
        </section>
    }
}

#[component]
pub(crate) fn RecubeRunPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| {
        params
            .read()
            .get("id")
            .and_then(|id| id.parse::<i64>().ok())
    });
    // Refetched when the run's hidden tests finish, so its pass rates appear.
    let data = LocalResource::new(move || load(id.get()));
    let loaded_job = Signal::derive(move || {
        data.get()
            .and_then(Result::ok)
            .filter(|l| Some(l.run.summary.id) == id.get())
            .and_then(|l| l.job)
    });
    let ready = Signal::derive(move || data.get().is_some_and(|r| r.is_ok()));
    let run_id = Signal::derive(move || id.get());
    view! {
        <section class="run-page recube-run">
            <Title text=move || id.get().map_or_else(|| "ReCUBE run".to_owned(), |id| format!("ReCUBE run {id}")) />
            {loaded(data, content)}
            <section class="hidden-tests" class:hidden=move || data.get().is_none()>
                <h2>"Hidden tests"</h2>
                <p class="muted">
                    "Each instance's tests run in a sandbox on the server, against the library with the rebuilt file in place."
                </p>
                <HiddenTestsControl
                    run=run_id
                    loaded=loaded_job
                    ready=ready
                    on_finished=Callback::new(move |()| data.refetch())
                    unit="instance"
                />
            </section>
        </section>
    }
}
