//! A benchmark's leaderboard: every row with its origin, sortable and filterable, with
//! CSV/JSON downloads. The URL holds the sort and filters, so every view is a permalink.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_params_map, use_query_map};
use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::leaderboard::{self, Origin, Query};

use crate::api::{self, Leaderboard};
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
    // The URL's query parameters, as a map.
    let current = Memo::new(move |_| {
        let map = query.read();
        let mut params = BTreeMap::new();
        for key in [
            "sort", "order", "origin", "harness", "model", "memory", "setting",
        ] {
            if let Some(value) = map.get(key) {
                params.insert(key.to_owned(), value);
            }
        }
        params
    });
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
    // The rows the URL's sort and filters select.
    let shown = move |board: &Leaderboard| {
        let params = current.get();
        let q = Query {
            origin: params.get("origin").and_then(|o| Origin::from_id(o)),
            filters: params
                .iter()
                .filter(|(k, _)| !CONTROL_KEYS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            sort: params.get("sort").cloned(),
            descending: params.get("order").map(String::as_str) != Some("asc"),
        };
        leaderboard::apply(board.rows.clone(), &q).map_err(|e| e.to_string())
    };

    let tabs = move || {
        Benchmark::ALL
            .into_iter()
            .map(|b| {
                let active = benchmark.get() == Some(b);
                view! {
                    <a href=format!("/leaderboard/{}", b.id()) class:active=active class="tab">
                        {b.title()}
                    </a>
                }
            })
            .collect_view()
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
        let rows = match shown(board) {
            Ok(rows) => rows,
            Err(e) => return view! { <p class="error">{e}</p> }.into_any(),
        };
        let params = current.get();
        let sort = params.get("sort").cloned();
        let ascending = params.get("order").map(String::as_str) == Some("asc");
        let heading = move |column: String, numeric: bool| {
            let active = sort.as_deref() == Some(column.as_str());
            let arrow = match (active, ascending) {
                (false, _) => "",
                (true, true) => " ▲",
                (true, false) => " ▼",
            };
            let column_for_click = column.clone();
            view! {
                <th class:num=numeric class:sorted=active title=definition(&column)>
                    <button class="sort" data-column=column.clone() on:click=move |_| {
                        let mut params = current.get_untracked();
                        let same = params.get("sort") == Some(&column_for_click);
                        let was_asc = params.get("order").map(String::as_str) == Some("asc");
                        params.insert("sort".to_owned(), column_for_click.clone());
                        // First click: best first (descending); a second click flips it.
                        params.insert(
                            "order".to_owned(),
                            if same && !was_asc { "asc" } else { "desc" }.to_owned(),
                        );
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
        let metrics = board.metrics.clone();
        let labels = board.labels.clone();
        let body = rows
            .into_iter()
            .map(|row| {
                // Verified and baseline rows link their model to the run behind them.
                let label_cells = labels
                    .iter()
                    .map(|l| {
                        let text = row.labels.get(l).cloned().unwrap_or_default();
                        match row.run {
                            Some(run) if l == "model" => view! {
                                <td><a class="run-link" href=format!("/runs/{run}")>{text}</a></td>
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
                view! {
                    <tr class="leaderboard-row">
                        <td><span class=format!("badge origin {origin}") title=row.source.clone().unwrap_or_default()>{origin}</span></td>
                        {label_cells}
                        {metric_cells}
                    </tr>
                }
            })
            .collect_view();
        view! {
            <div class="table-scroll">
                <table class="data leaderboard" id="leaderboard">
                    <thead><tr><th>"origin"</th>{head}</tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        }
        .into_any()
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
                    <a href=format!("/api/v1/leaderboard/{}{csv}", b.id()) download="">"CSV"</a>
                    " · "
                    <a href=format!("/api/v1/leaderboard/{}{q}", b.id())>"JSON"</a>
                </div>
            }
        })
    };

    let source = |board: &Leaderboard| {
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
        view! { {reported} {baselines} }
    };
    // Filters, sort and table follow the URL without reloading the board.
    let board_view = move |board: Leaderboard| {
        view! {
            {source(&board)}
            {
                let board = board.clone();
                move || filters(&board)
            }
            {move || table(&board)}
        }
    };

    view! {
        <section class="leaderboard-page">
            <h1>"Leaderboard"</h1>
            <nav class="tabs" aria-label="Benchmarks">{tabs}</nav>
            <Show
                when=move || benchmark.get().is_some()
                fallback=|| view! { <p class="error">"No such benchmark."</p> }
            >
                {loaded(data, board_view)}
                {downloads}
            </Show>
        </section>
    }
}
