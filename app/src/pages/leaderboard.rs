//! A benchmark's leaderboard: every row with its origin, sortable and filterable, with
//! CSV/JSON downloads. The URL holds the sort and filters, so every view is a permalink.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_params_map, use_query_map};
use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::leaderboard::{self, Order, Origin, Query, best_first};

use crate::api::{self, Leaderboard};
use crate::components::benchmark_tabs::benchmark_tabs;
use crate::components::loaded::loaded;
use crate::components::score::{definition, header};

/// Query keys that are not label filters.
const CONTROL_KEYS: [&str; 3] = ["sort", "order", "origin"];

/// A published or verified value, in the unit core's metric registry gives `metric`.
fn format_metric(metric: &str, value: Option<f64>) -> String {
    wheelwright_core::metric::format_value(wheelwright_core::metric::unit_of(metric), value)
}

fn query_string(params: &BTreeMap<String, String>) -> String {
    let pairs: Vec<String> = params
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect();
    if pairs.is_empty() {
        String::new()
    } else {
        format!("?{}", pairs.join("&"))
    }
}

fn encode(text: &str) -> String {
    js_sys::encode_uri_component(text).into()
}

#[component]
pub(crate) fn LeaderboardPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let navigate = use_navigate();
    let benchmark = Memo::new(move |_| {
        params
            .read()
            .get("benchmark")
            .and_then(|id| Benchmark::from_id(&id))
    });
    // Keyed by the benchmark in the URL: switching tabs starts a new request, and only the
    // latest one's reply is shown. Sorting and filtering happen here, without a request.
    let data = LocalResource::new(move || {
        let benchmark = benchmark.get();
        async move {
            match benchmark {
                Some(b) => api::leaderboard(b.id()).await,
                None => Err(api::ApiError("no such benchmark".to_owned())),
            }
        }
    });
    // The URL's query parameters, as a map: the controls and every label filter (each
    // benchmark has its own labels: SchrodingerRepo's `subset`, ReCUBE's `setting`).
    let current = Memo::new(move |_| {
        query
            .read()
            .clone()
            .into_iter()
            .filter(|(_, value)| !value.is_empty())
            .map(|(key, value)| (key.into_owned(), value))
            .collect::<BTreeMap<String, String>>()
    });
    // The runs ticked for comparison, in the order they were ticked.
    let picked = RwSignal::new(Vec::<i64>::new());
    // The router's navigate is not `Send`; a local stored value makes `go` `Copy`.
    let navigate = StoredValue::new_local(navigate);
    let go = move |params: BTreeMap<String, String>| {
        if let Some(b) = benchmark.get_untracked() {
            navigate.with_value(|navigate| {
                navigate(
                    &format!("/leaderboard/{}{}", b.id(), query_string(&params)),
                    Default::default(),
                );
            });
        }
    };
    // The column the rows are sorted and ranked by: the URL's, else the benchmark's
    // headline metric, best first.
    let sort_column = move || {
        current
            .get()
            .get("sort")
            .cloned()
            .or_else(|| benchmark.get().map(|b| b.headline_metric().to_owned()))
    };
    // The rows the URL's sort and filters select, in bands (a cohort's agents, then its
    // baselines), ranked by the sort column.
    let shown = move |board: &Leaderboard| {
        let params = current.get();
        let sort = sort_column().filter(|s| {
            board.metrics.contains(s) || board.labels.contains(s) || params.contains_key("sort")
        });
        let q = Query {
            origin: params.get("origin").and_then(|o| Origin::from_id(o)),
            filters: params
                .iter()
                .filter(|(k, _)| !CONTROL_KEYS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            sort: sort.clone(),
            order: params.get("order").and_then(|o| Order::from_id(o)),
        };
        let rows = leaderboard::apply(board.rows.clone(), &q).map_err(|e| e.to_string())?;
        Ok::<_, String>(leaderboard::bands(rows, sort.as_deref()))
    };

    let filters = move |board: &Leaderboard| {
        let selects = board
                .labels
                .iter()
                .filter(|label| *label != "instance")
                .map(|label| {
                    let mut values: Vec<String> = board
                        .rows
                        .iter()
                        .filter_map(|r| r.labels.get(label).cloned())
                        .collect();
                    values.sort();
                    values.dedup();
                    let label = label.clone();
                    let selected = current.get().get(&label).cloned().unwrap_or_default();
                    let key = label.clone();
                    view! {
                        <label class="filter">
                            {header(&label)}
                            <select
                                name=label.clone()
                                on:change=move |ev| {
                                    let mut params = current.get_untracked();
                                    params.insert(key.clone(), event_target_value(&ev));
                                    go(params);
                                }
                            >
                                <option value="" selected=selected.is_empty()>"all"</option>
                                {values
                                    .into_iter()
                                    .map(|v| {
                                        let is = v == selected;
                                        view! { <option value=v.clone() selected=is>{v.clone()}</option> }
                                    })
                                    .collect_view()}
                            </select>
                        </label>
                    }
                })
                .collect_view();
        view! { <div class="filters">{selects}</div> }
    };

    let table = move |board: &Leaderboard| {
        let shown = match shown(board) {
            Ok(shown) => shown,
            Err(e) => return view! { <p class="error">{e}</p> }.into_any(),
        };
        let params = current.get();
        let sort = sort_column();
        let heading = move |column: String, numeric: bool| {
            let active = sort.as_deref() == Some(column.as_str());
            let best = best_first(&column, numeric);
            let order = params
                .get("order")
                .and_then(|o| Order::from_id(o))
                .unwrap_or(best);
            let aria = match (active, order) {
                (false, _) => "none",
                (true, Order::Ascending) => "ascending",
                (true, Order::Descending) => "descending",
            };
            let arrow = match (active, order) {
                (false, _) => "",
                (true, Order::Ascending) => " ▲",
                (true, Order::Descending) => " ▼",
            };
            let column_for_click = column.clone();
            view! {
                <th class:num=numeric class:sorted=active title=definition(&column) aria-sort=aria>
                    <button class="sort" data-column=column.clone() on:click=move |_| {
                        let mut params = current.get_untracked();
                        // First click: best first (by the metric's direction); a second
                        // click on the same column flips it.
                        let next = if active { order.reversed() } else { best };
                        params.insert("sort".to_owned(), column_for_click.clone());
                        params.insert("order".to_owned(), next.id().to_owned());
                        go(params);
                    }>
                        {header(&column)} {arrow}
                    </button>
                </th>
            }
        };
        let head = board
            .labels
            .iter()
            .map(|l| heading(l.clone(), false))
            .chain(board.metrics.iter().map(|m| heading(m.clone(), true)))
            .collect_view();
        let columns = 2 + board.labels.len() + board.metrics.len();
        if shown.is_empty() {
            return view! {
                <p class="empty" id="no-rows">
                    "No rows match these filters. "
                    <a href=move || benchmark.get().map(|b| format!("/leaderboard/{}", b.id())).unwrap_or_default()>
                        "Show every row"
                    </a>
                </p>
            }
            .into_any();
        }
        let cohorts = shown
            .iter()
            .map(|b| b.cohort.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let metrics = board.metrics.clone();
        let labels = board.labels.clone();
        // A ReCUBE run has its own page (instances, not turns) and no turn comparison.
        let recube = benchmark.get_untracked() == Some(Benchmark::Recube);
        let run_href = move |run: i64| {
            if recube {
                api::recube_run_path(run)
            } else {
                format!("/runs/{run}")
            }
        };
        let body = shown
            .into_iter()
            .map(|band| {
                let title = match (band.baseline, cohorts > 1) {
                    (true, _) => format!(
                        "Baselines · {}: computed from the dataset, not agents; not ranked",
                        band.cohort
                    ),
                    (false, true) => format!("{}: ranked among themselves only", band.cohort),
                    (false, false) => band.cohort.clone(),
                };
                let rows = band
                    .rows
                    .into_iter()
                    .map(|(rank, row)| {
                        // Verified and baseline rows link their model to the run behind them.
                        let label_cells = labels
                            .iter()
                            .map(|l| {
                                let text = row.labels.get(l).cloned().unwrap_or_default();
                                match row.run {
                                    Some(run) if l == "model" => view! {
                                        <td><a class="run-link" href=run_href(run)>{text}</a></td>
                                    }
                                    .into_any(),
                                    _ => view! { <td>{text}</td> }.into_any(),
                                }
                            })
                            .collect_view();
                        let metric_cells = metrics
                            .iter()
                            .map(|m| view! { <td class="num">{format_metric(m, row.metrics.get(m).copied())}</td> })
                            .collect_view();
                        let origin = row.origin.id();
                        let rank = rank.map(|r| r.to_string()).unwrap_or_default();
                        // A stored run can be ticked for the comparison; reported rows
                        // have no run behind them.
                        let pick = row.run.filter(|_| !recube).map(|run| {
                            let model = row.labels.get("model").cloned().unwrap_or_default();
                            view! {
                                <input type="checkbox" class="compare-pick" data-run=run
                                    aria-label=format!("compare {model} (run {run})")
                                    prop:checked=move || picked.with(|p| p.contains(&run))
                                    on:change=move |_| picked.update(|p| {
                                        if let Some(i) = p.iter().position(|r| *r == run) {
                                            p.remove(i);
                                        } else {
                                            p.push(run);
                                            // Two at most: a third tick replaces the first.
                                            if p.len() > 2 {
                                                p.remove(0);
                                            }
                                        }
                                    }) />
                            }
                        });
                        view! {
                            <tr class="leaderboard-row" data-origin=origin>
                                <td class="num rank">{pick}{rank}</td>
                                <td><span class=format!("badge origin {origin}") title=row.source.clone().unwrap_or_default()>{origin}</span></td>
                                {label_cells}
                                {metric_cells}
                            </tr>
                        }
                    })
                    .collect_view();
                view! {
                    <tbody class="band" class:baselines=band.baseline data-cohort=band.cohort.clone()>
                        <tr class="band-title"><th colspan=columns scope="rowgroup">{title}</th></tr>
                        {rows}
                    </tbody>
                }
            })
            .collect_view();
        view! {
            <div class="table-scroll">
                <table class="data leaderboard" id="leaderboard">
                    <thead><tr><th class="num" title="Rank among the agents of the same cohort, by the sorted column">"#"</th><th>"origin"</th>{head}</tr></thead>
                    {body}
                </table>
            </div>
        }
        .into_any()
    };

    let compare_bar = move || {
        let p = picked.get();
        match p.as_slice() {
            [a, b] => view! {
                <p class="compare-bar">
                    <a class="button primary" id="compare-selected" href=format!("/compare?a={a}&b={b}")>
                        {format!("Compare run {a} with run {b}")}
                    </a>
                </p>
            }
            .into_any(),
            _ => view! {
                <p class="compare-bar muted">"Tick two runs (the boxes in the # column) to compare them turn by turn."</p>
            }
            .into_any(),
        }
    };

    let downloads = move || {
        benchmark.get().map(|b| {
            let q = query_string(&current.get());
            let csv = if q.is_empty() {
                "?format=csv".to_owned()
            } else {
                format!("{q}&format=csv")
            };
            view! {
                <div class="downloads">
                    "Download: "
                    <a href=format!("/api/v1/leaderboard/{}{csv}", b.id()) download="" rel="external">"CSV"</a>
                    " · "
                    <a href=format!("/api/v1/leaderboard/{}{q}", b.id()) rel="external">"JSON"</a>
                </div>
            }
        })
    };

    let source = move |board: &Leaderboard| {
        let reported = board.rows.iter().find_map(|r| r.source.clone()).map(|s| {
            view! {
                <p class="source">
                    <span class="badge origin reported">"reported"</span>
                    " rows are transcribed from " <cite>{s}</cite>
                    "; they were not re-run here."
                </p>
            }
        });
        let baselines = board
            .rows
            .iter()
            .any(|r| r.origin == Origin::Baseline)
            .then(|| {
                view! {
                    <p class="source">
                        <span class="badge origin baseline">"baseline"</span>
                        " rows are computed here from the dataset itself, not by an agent: "
                        "the reference solutions, no files at all, and the reference calling "
                        "private copies of its targets."
                    </p>
                }
            });
        view! {
            {reported}
            {baselines}
            <p class="source">
                "Rows are ranked (#) among the agents of one cohort only: a paper's full set, "
                "a subset of it, and each dataset and version are separate contests. "
                <a href="/metrics">"What each column means"</a>" · "
                {move || benchmark.get().map(|b| view! {
                    <a href=format!("/published/{}", b.id()) id="all-published">"Every table of the paper, with charts"</a>
                })}
            </p>
        }
    };
    // Filters, sort and table follow the URL without reloading the board. What follows
    // the table comes with it, so nothing below moves when the rows arrive.
    let board_view = move |board: Leaderboard| {
        view! {
            {source(&board)}
            {
                let board = board.clone();
                move || filters(&board)
            }
            {move || table(&board)}
            {compare_bar}
            {downloads}
        }
    };

    view! {
        <section class="leaderboard-page">
            <Title text=move || format!("Leaderboard: {}", benchmark.get().map_or("unknown benchmark", |b| b.title())) />
            <h1>"Leaderboard"</h1>
            {benchmark_tabs("/leaderboard", benchmark)}
            <Show
                when=move || benchmark.get().is_some()
                fallback=|| view! { <p class="error">"No such benchmark."</p> }
            >
                {loaded(data, board_view)}
            </Show>
            <Show when=move || benchmark.get() == Some(Benchmark::RepoReuse)>
                <RepoReuseDatasets />
            </Show>
            <Show when=move || benchmark.get() == Some(Benchmark::Recube)>
                <RecubeDatasets />
            </Show>
        </section>
    }
}

/// The RepoReuse datasets the server holds, linked to their pages (under RepoReuse's board).
#[component]
fn RepoReuseDatasets() -> impl IntoView {
    let datasets = LocalResource::new(api::datasets);
    let render = |datasets: Vec<wheelwright_core::api::DatasetSummary>| {
        let items = datasets
            .into_iter()
            .map(|d| {
                let href = api::dataset_path(&d.name, &d.version);
                let what = format!(
                    ": {} chains, {} turns, {} hidden tests",
                    d.chain_count, d.turn_count, d.test_count
                );
                view! { <li><a href=href>{format!("{} {}", d.name, d.version)}</a>{what}</li> }
            })
            .collect_view();
        view! { <ul id="reporeuse-datasets">{items}</ul> }
    };
    view! {
        <section class="reporeuse-datasets">
            <h2>"Datasets shipped with Wheelwright"</h2>
            <p class="muted">
                "Chains of turns on a pinned library, each dataset described by the paper's Table 1 beside the paper's own values."
            </p>
            {loaded(datasets, render)}
        </section>
    }
}

/// The ReCUBE datasets the server holds, linked to their instances (under ReCUBE's board).
#[component]
fn RecubeDatasets() -> impl IntoView {
    let datasets = LocalResource::new(api::recube_datasets);
    let render = |datasets: Vec<wheelwright_core::api::RecubeDatasetSummary>| {
        let items = datasets
            .into_iter()
            .map(|d| {
                let href = api::recube_dataset_path(&d.name, &d.version);
                let what = format!(
                    ": {} instances from {} libraries, {} hidden tests",
                    d.instance_count,
                    d.repositories.len(),
                    d.test_count
                );
                view! { <li><a href=href>{format!("{} {}", d.name, d.version)}</a>{what}</li> }
            })
            .collect_view();
        view! { <ul id="recube-datasets">{items}</ul> }
    };
    view! {
        <section class="recube-datasets">
            <h2>"Instances shipped with Wheelwright"</h2>
            <p class="muted">
                "Masked files of pinned libraries with labelled hidden tests, each with its caller-centric views and the drawing of its neighbourhood."
            </p>
            {loaded(datasets, render)}
        </section>
    }
}
