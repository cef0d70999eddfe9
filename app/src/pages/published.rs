//! `/published/:benchmark`: every table a benchmark's paper published, with its source, as a chart where one reads better, and as a table.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use wheelwright_core::api::{Published, ReportedTable};
use wheelwright_core::benchmark::Benchmark;
use wheelwright_core::metric;
use wheelwright_core::present::chart::{bars_of, charts_of};

use crate::api;
use crate::components::benchmark_tabs::benchmark_tabs;
use crate::components::chart::{BarChart, LineChart};
use crate::components::loaded::loaded;
use crate::components::score::{definition, header};

/// Where in the paper a table is: "Table 3" for `table3`; the others were transcribed from
/// the paper's text and figures (SchrodingerRepo's tables are images).
fn place_in_paper(id: &str) -> String {
    match id.strip_prefix("table") {
        Some(n) if n.parse::<u32>().is_ok() => format!("Table {n}"),
        _ => "figures stated in the text".to_owned(),
    }
}

/// One published table: its heading and source, its charts, then the numbers.
fn table_view(table: ReportedTable, source: &str) -> impl IntoView + use<> {
    let charts = charts_of(&table)
        .into_iter()
        .map(|chart| view! { <LineChart chart /> })
        .collect_view();
    let bars = bars_of(&table).map(|bars| view! { <BarChart bars /> });
    // Label columns in first-seen order across rows (a row may lack one), then metrics.
    let mut labels: Vec<String> = Vec::new();
    for row in &table.rows {
        for key in row.labels.keys() {
            if !labels.contains(key) {
                labels.push(key.clone());
            }
        }
    }
    let label_heads = labels
        .iter()
        .map(|l| view! { <th scope="col">{l.clone()}</th> })
        .collect_view();
    let metric_heads = table
        .columns
        .iter()
        .map(|c| view! { <th scope="col" class="num" title=definition(c)>{header(c)}</th> })
        .collect_view();
    let rows = table
        .rows
        .iter()
        .map(|row| {
            let label_cells = labels
                .iter()
                .map(|l| view! { <td>{row.labels.get(l).cloned().unwrap_or_default()}</td> })
                .collect_view();
            let cells = table
                .columns
                .iter()
                .map(|c| {
                    let value = row.metrics.get(c).copied();
                    view! { <td class="num">{metric::format_value(metric::unit_of(c), value)}</td> }
                })
                .collect_view();
            view! { <tr>{label_cells}{cells}</tr> }
        })
        .collect_view();
    let place = place_in_paper(&table.id);
    view! {
        <section class="published-table" id=table.id.clone()>
            <h2><a href=format!("#{}", table.id) class="anchor">{place.clone()}</a>": "{table.title.clone()}</h2>
            <p class="source muted">"Source: " <cite>{source.to_owned()}</cite>", "{place}"."</p>
            <div class="charts">{charts}{bars}</div>
            <div class="table-scroll">
                <table class="data">
                    <thead><tr>{label_heads}{metric_heads}</tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </section>
    }
}

#[component]
pub(crate) fn PublishedPage() -> impl IntoView {
    let params = use_params_map();
    let benchmark = Memo::new(move |_| {
        params
            .read()
            .get("benchmark")
            .and_then(|id| Benchmark::from_id(&id))
    });
    let data = LocalResource::new(move || {
        let benchmark = benchmark.get();
        async move {
            match benchmark {
                Some(b) => api::published(b.id()).await,
                None => Err(api::ApiError("no such benchmark".to_owned())),
            }
        }
    });
    let render = move |published: Published| {
        let contents = published
            .tables
            .iter()
            .map(|t| {
                view! { <li><a href=format!("#{}", t.id)>{place_in_paper(&t.id)}": "{t.title.clone()}</a></li> }
            })
            .collect_view();
        let source = published.source.clone();
        let tables = published
            .tables
            .into_iter()
            .map(|t| table_view(t, &source))
            .collect_view();
        view! {
            <p class="source">"From " <cite>{published.source.clone()}</cite>". " {published.notes.clone()}</p>
            <nav aria-label="tables"><ul class="contents">{contents}</ul></nav>
            {tables}
        }
    };
    view! {
        <section class="published-page">
            <Title text=move || format!("Published results: {}", benchmark.get().map_or("unknown benchmark", |b| b.title())) />
            <h1>"Published results"</h1>
            {benchmark_tabs("/published", benchmark)}
            <p class="lead">
                "Every table of the benchmark's paper, transcribed as published: numbers we did "
                "not re-run. Series over turns or views are drawn as charts (hover a point for "
                "its value); " <a href="/metrics">"what each column means"</a>"."
            </p>
            {move || match benchmark.get() {
                Some(b) => view! {
                    <p>
                        <a href=format!("/leaderboard/{}", b.id())>"The leaderboard"</a>
                        " ranks the main table's rows beside verified runs."
                        {(b == Benchmark::Schrodinger).then(|| view! {
                            " Your own runs: "
                            <a id="actions-link" href="/schrodinger/actions">"how a run's actions shift"</a>
                            " against a baseline, read in your browser."
                        })}
                    </p>
                }.into_any(),
                None => view! { <p class="error">"No such benchmark."</p> }.into_any(),
            }}
            {loaded(data, render)}
        </section>
    }
}
