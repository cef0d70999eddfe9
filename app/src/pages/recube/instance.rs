//! `/recube/datasets/:name/:version/instances/:id[?run=N]`: one ReCUBE instance: the target as the agent gets it and as the library has it, their diff, the labelled hidden tests, the four caller-centric views and the drawing of its neighbourhood; with `run`, that run's file, its test results and its diff against the original.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};
use wheelwright_core::api::{RecubeInstanceDetail, RecubeRunInstance};
use wheelwright_core::recube::metrics::TestKind;
use wheelwright_core::recube::views::Context;

use crate::api;
use crate::components::diff_view::DiffView;
use crate::components::loaded::loaded;
use crate::components::neighbourhood::NeighbourhoodGraph;
use crate::components::source_view::SourceView;

/// The hidden tests, external first, each with its label.
fn tests_table(page: &RecubeInstanceDetail) -> impl IntoView + use<> {
    let mut tests = page.tests.clone();
    tests.sort_by_key(|t| t.kind);
    let rows = tests
        .into_iter()
        .map(|t| {
            let (class, label) = match t.kind {
                TestKind::External => ("badge kind external", "external"),
                TestKind::Internal => ("badge kind internal", "internal"),
            };
            view! {
                <tr>
                    <td><span class=class>{label}</span></td>
                    <td><code>{t.name}</code></td>
                    <td class="muted"><code>{t.module}</code></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table class="data" id="recube-tests">
                <thead>
                    <tr>
                        <th scope="col">"Kind"</th>
                        <th scope="col">"Test"</th>
                        <th scope="col">"File"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// A stored run's answer to the instance: its score and the file it left at the target.
#[derive(Clone)]
struct Submission {
    run: i64,
    model: String,
    instance: Option<RecubeRunInstance>,
    /// The run's file at the target, `None` when it left none.
    file: Option<String>,
}

async fn submission(run: Option<i64>, id: String) -> Result<Option<Submission>, api::ApiError> {
    let Some(run) = run else {
        return Ok(None);
    };
    let detail = api::recube_run(run).await?;
    let instance = detail
        .instances
        .into_iter()
        .find(|i| i.score.instance == id);
    let file = match &instance {
        Some(i) if i.score.submitted => {
            api::text(&api::file_url(run, &id, 1, &i.score.target)).await?
        }
        _ => None,
    };
    Ok(Some(Submission {
        run,
        model: detail.summary.model,
        instance,
        file,
    }))
}

/// The run's file, its tests' outcomes and its diff against the original.
fn submission_view(s: Submission, original: String) -> impl IntoView {
    let run_href = api::recube_run_path(s.run);
    let Some(instance) = s.instance else {
        return view! {
            <p class="error" id="submission-missing">{format!("Run {} has no such instance.", s.run)}</p>
        }
        .into_any();
    };
    let tested = instance.tested;
    let score = instance.score;
    let verdict = match (score.submitted, tested) {
        (false, _) => "It left no file at the target: every test fails.".to_owned(),
        (true, false) => "Its hidden tests have not run yet.".to_owned(),
        (true, true) => format!(
            "{} of {} hidden tests passed.",
            score.all.passed, score.all.total
        ),
    };
    let rows = score
        .tests
        .into_iter()
        .map(|t| {
            let outcome = if tested || !score.submitted {
                serde_json::to_value(t.outcome)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            } else {
                "not run".to_owned()
            };
            let class = if t.passed {
                "badge outcome passed"
            } else {
                "badge outcome failed"
            };
            let kind = match t.kind {
                TestKind::External => "external",
                TestKind::Internal => "internal",
            };
            view! {
                <tr>
                    <td><span class=format!("badge kind {kind}")>{kind}</span></td>
                    <td><code>{t.name}</code></td>
                    <td><span class=class>{outcome}</span></td>
                </tr>
            }
        })
        .collect_view();
    let file = s.file.map(|file| {
        view! {
            <h3>"Its file against the original"</h3>
            <DiffView old=original new=file.clone() />
            <details class="original">
                <summary>"Its file"</summary>
                <SourceView text=file anchor="submitted" />
            </details>
        }
    });
    view! {
        <section id="submission">
            <h2>"Run " <a href=run_href>{s.run}</a> {format!(" · {}", s.model)}</h2>
            <p class="lead" id="submission-verdict">{verdict}</p>
            <div class="table-scroll">
                <table class="data" id="submission-tests">
                    <thead>
                        <tr>
                            <th scope="col">"Kind"</th>
                            <th scope="col">"Test"</th>
                            <th scope="col">"Outcome"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            {file}
        </section>
    }
    .into_any()
}

/// The four views, each file linked to its source (`link`).
fn views<L: Fn(&str) -> String>(context: &Context, link: L) -> impl IntoView + use<L> {
    let callers = if context.callers.is_empty() {
        view! { <p class="muted">"No other file imports or calls it."</p> }.into_any()
    } else {
        let items = context
            .callers
            .iter()
            .map(|c| {
                let calls = c
                    .calls
                    .iter()
                    .map(|(entity, n)| format!("{entity} ×{n}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let imports = c.imports.join(", ");
                view! {
                    <li>
                        <a href=link(&c.path)><code>{c.path.clone()}</code></a>
                        {(!imports.is_empty()).then(|| view! { <span class="muted">" imports "{imports}</span> })}
                        {(!calls.is_empty()).then(|| view! { <span>" · calls "{calls}</span> })}
                    </li>
                }
            })
            .collect_view();
        view! { <ul class="view-list" id="view-callers">{items}</ul> }.into_any()
    };
    let inheritance = if context.inheritance.classes.is_empty() {
        view! { <p class="muted">"The file defines no class."</p> }.into_any()
    } else {
        let items = context
            .inheritance
            .classes
            .iter()
            .map(|c| {
                let list = |names: &[String]| {
                    if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    }
                };
                view! {
                    <li>
                        <code>{c.name.clone()}</code>
                        <span class="muted">
                            {format!(
                                " · parents {} · siblings {} · subclasses {}",
                                list(&c.parents),
                                list(&c.siblings),
                                list(&c.subclasses),
                            )}
                        </span>
                    </li>
                }
            })
            .collect_view();
        view! { <ul class="view-list" id="view-inheritance">{items}</ul> }.into_any()
    };
    let siblings = context
        .module
        .siblings
        .iter()
        .map(|s| view! { <li><a href=link(s)><code>{s.clone()}</code></a></li> })
        .collect_view();
    let shared = context
        .module
        .shared_imports
        .iter()
        .take(12)
        .map(|(name, n)| format!("{name} ({n})"))
        .collect::<Vec<_>>()
        .join(", ");
    let similar = context
        .similar
        .iter()
        .map(|f| {
            view! {
                <tr>
                    <td><a href=link(&f.path)><code>{f.path.clone()}</code></a></td>
                    <td class="num">{format!("{:.3}", f.score)}</td>
                    <td class="num">{format!("{:.2}", f.name)}</td>
                    <td class="num">{format!("{:.2}", f.structure)}</td>
                    <td class="num">{format!("{:.2}", f.identifier)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="cards views">
            <section class="card">
                <h3>"Caller patterns"</h3>
                {callers}
            </section>
            <section class="card">
                <h3>"Inheritance"</h3>
                {inheritance}
            </section>
            <section class="card">
                <h3>"Module context"</h3>
                <ul class="view-list columns" id="view-module">{siblings}</ul>
                {(!shared.is_empty()).then(|| view! { <p class="muted small">"Imports they share: "{shared}</p> })}
            </section>
            <section class="card wide">
                <h3>"Similar files"</h3>
                <div class="table-scroll">
                    <table class="data" id="view-similar">
                        <thead>
                            <tr>
                                <th scope="col">"File"</th>
                                <th scope="col" class="num">"Score"</th>
                                <th scope="col" class="num">"Name"</th>
                                <th scope="col" class="num">"Structure"</th>
                                <th scope="col" class="num">"Identifiers"</th>
                            </tr>
                        </thead>
                        <tbody>{similar}</tbody>
                    </table>
                </div>
            </section>
        </div>
    }
}

#[component]
pub(crate) fn RecubeInstancePage() -> impl IntoView {
    let params = use_params_map();
    let key = Memo::new(move |_| {
        let p = params.read();
        (
            p.get("name").unwrap_or_default(),
            p.get("version").unwrap_or_default(),
            p.get("id").unwrap_or_default(),
        )
    });
    let page = LocalResource::new(move || {
        let (name, version, id) = key.get();
        async move { api::recube_instance(&name, &version, &id).await }
    });
    let query = use_query_map();
    let run = Memo::new(move |_| query.read().get("run").and_then(|r| r.parse::<i64>().ok()));
    let answer = LocalResource::new(move || submission(run.get(), key.get().2));
    let render = move |page: RecubeInstanceDetail| {
        let repository =
            api::recube_repository_path(&page.dataset, &page.version, &page.summary.repository);
        let link = move |path: &str| {
            format!(
                "{repository}/source?path={}",
                js_sys::encode_uri_component(path)
            )
        };
        let dataset_href = api::recube_dataset_path(&page.dataset, &page.version);
        let s = &page.summary;
        let badges = format!(
            "{} · {} external and {} internal tests · {} bodies masked",
            s.repository,
            s.external_tests,
            s.internal_tests,
            page.masked_bodies.len()
        );
        view! {
            <nav class="breadcrumbs">
                <a href="/leaderboard/recube">"ReCUBE"</a>" · "
                <a href=dataset_href>{format!("{} {}", page.dataset, page.version)}</a>
                " · "{s.id.clone()}
            </nav>
            <header class="run-head">
                <h1><code>{s.target.clone()}</code></h1>
                <div class="run-badges muted">{badges}</div>
            </header>
            {(!s.description.is_empty()).then(|| view! { <p class="lead">{s.description.clone()}</p> })}
            {
                let original = page.original.clone();
                move || match answer.get() {
                    Some(Ok(Some(s))) => Some(submission_view(s, original.clone()).into_any()),
                    Some(Err(e)) => Some(view! { <p class="error" id="submission-error">{e.to_string()}</p> }.into_any()),
                    _ => None,
                }
            }
            <section id="neighbourhood-section">
                <h2>"Neighbourhood"</h2>
                <p class="muted">
                    "Who uses the file, the classes around its classes and the files beside it, read from the library with the file withheld. Each file links to its source."
                </p>
                <NeighbourhoodGraph graph=page.neighbourhood.clone() link=link.clone() />
            </section>
            <section>
                <h2>"The four views"</h2>
                <p class="muted">"What a harness shows the agent (" <code>"wheelwright cce context"</code> ")."</p>
                {views(&page.context, link.clone())}
            </section>
            <section>
                <h2>"Hidden tests"</h2>
                {tests_table(&page)}
            </section>
            <section>
                <h2>"What the agent gets"</h2>
                <p class="muted">"The target masked: imports removed, each body its docstring and " <code>"raise NotImplementedError"</code> "."</p>
                <SourceView text=page.masked.clone() anchor="masked" />
            </section>
            <section>
                <h2>"The masked file against the original"</h2>
                <DiffView old=page.masked.clone() new=page.original.clone() />
            </section>
            <details class="original">
                <summary>"The original file"</summary>
                <SourceView text=page.original.clone() anchor="original" />
            </details>
        }
    };
    view! {
        <section class="recube-instance">
            <Title text=move || format!("ReCUBE: {}", key.get().2) />
            {loaded(page, render)}
        </section>
    }
}
