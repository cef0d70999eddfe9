//! Every stored run: verified agent runs and the baselines, with their overall scores.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_meta::Title;

use wheelwright_core::benchmark::Benchmark;

use crate::api::{self, Page, RunSummary};
use crate::components::loaded::loaded;
use crate::components::score::{ScoreCell, definition, header};

/// The scores the list shows (the run page has all of them).
const KEY_COLUMNS: [&str; 6] = [
    "reuse_repo",
    "reuse_self",
    "recall_repo",
    "resolve",
    "pass",
    "c_dup",
];

/// The origin badge, naming the baseline for baseline runs.
pub(crate) fn origin_badge(run: &RunSummary) -> impl IntoView + use<> {
    let origin = run.origin.clone();
    let text = match &run.baseline {
        Some(b) => format!("{origin} · {b}"),
        None => origin.clone(),
    };
    view! { <span class=format!("badge origin {origin}")>{text}</span> }
}

#[component]
pub(crate) fn RunsPage() -> impl IntoView {
    // The first page, as a resource; "Show more" appends the next pages to `more`, with the
    // total the latest of them reported.
    let first = LocalResource::new(|| api::runs(0));
    let more = RwSignal::new(None::<Result<Page<RunSummary>, api::ApiError>>);
    let (loading, set_loading) = signal(false);
    let next_page = move |offset: usize| {
        set_loading.set(true);
        spawn_local(async move {
            match api::runs(offset).await {
                Ok(next) => more.update(|m| match m {
                    Some(Ok(page)) => {
                        page.items.extend(next.items);
                        page.total = next.total;
                    }
                    _ => *m = Some(Ok(next)),
                }),
                Err(e) => more.set(Some(Err(e))),
            }
            set_loading.set(false);
        });
    };
    let table = move |page: Page<RunSummary>| {
        if page.items.is_empty() {
            return view! { <p class="muted">"No runs are stored yet."</p> }.into_any();
        }
        (move || {
            let (mut runs, mut total) = (page.items.clone(), page.total);
            let error = match more.get() {
                Some(Ok(next)) => {
                    runs.extend(next.items);
                    total = next.total;
                    None
                }
                Some(Err(e)) => Some(e.to_string()),
                None => None,
            };
            let more_error = error.map(|e| view! { <p class="error">{e}</p> });
            let shown = runs.len();
            let rest = usize::try_from(total).unwrap_or(0).saturating_sub(shown);
            let more_button = (rest > 0).then(|| {
                view! {
                    <p class="more">
                        {format!("{shown} of {total} runs. ")}
                        <button
                            id="more-runs"
                            class="button"
                            on:click=move |_| next_page(shown)
                            disabled=move || loading.get()
                        >
                            {format!("Show {} more", rest.min(api::RUNS_PAGE))}
                        </button>
                    </p>
                }
            });
            let body = runs
                .into_iter()
                .map(|run| {
                    let href = format!("/runs/{}", run.id);
                    let scores = KEY_COLUMNS
                        .iter()
                        .map(|c| view! { <ScoreCell column=c score=run.overall.get(*c).cloned() /> })
                        .collect_view();
                    view! {
                        <tr class="run-row" data-run=run.id>
                            <td class="num">{run.id}</td>
                            <td>{origin_badge(&run)}</td>
                            <td><a class="run-link" href=href>{run.model.clone()}</a></td>
                            <td>{run.harness.clone()}</td>
                            <td>{run.memory.clone()}</td>
                            <td>
                                {dataset_link(&run)}
                            </td>
                            <td class="num">{run.turn_count}</td>
                            {scores}
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <div class="table-scroll">
                    <table class="data runs" id="runs">
                        <thead>
                            <tr>
                                <th class="num">"id"</th>
                                <th>"origin"</th>
                                <th>"model"</th>
                                <th>"harness"</th>
                                <th>"memory"</th>
                                <th>"dataset"</th>
                                <th class="num">"turns"</th>
                                {KEY_COLUMNS.iter().map(|c| view! { <th class="num" title=definition(c)>{header(c)}</th> }).collect_view()}
                            </tr>
                        </thead>
                        <tbody>{body}</tbody>
                    </table>
                </div>
                {more_error}
                {more_button}
            }
        })
        .into_any()
    };
    view! {
        <section class="runs-page">
            <Title text="Runs" />
            <h1>"Runs"</h1>
            <p class="lead">
                "Every run scored here: agents' runs uploaded as bundles ("
                <span class="badge origin verified">"verified"</span>
                ") and the baselines computed from the dataset itself ("
                <span class="badge origin baseline">"baseline"</span>
                "). Rates are percentages; a dash is an undefined score (hover for why)."
            </p>
            {loaded(first, table)}
            <div class="downloads">
                "Download: " <a href="/api/v1/runs?format=csv" download="" rel="external">"CSV"</a> " · "
                <a href="/api/v1/runs" rel="external">"JSON"</a>
            </div>
        </section>
    }
}

/// A run's dataset, linked to its page where its benchmark has dataset pages.
fn dataset_link(run: &RunSummary) -> AnyView {
    let (name, version) = (&run.dataset_name, &run.dataset_version);
    let label = view! { <code>{format!("{name} {version}")}</code> };
    let href = match Benchmark::from_id(&run.benchmark) {
        Some(Benchmark::RepoReuse) => api::dataset_path(name, version),
        Some(Benchmark::Recube) => api::recube_dataset_path(name, version),
        _ => return label.into_any(),
    };
    view! { <a href=href>{label}</a> }.into_any()
}
