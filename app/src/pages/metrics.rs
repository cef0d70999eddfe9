//! `/metrics`: every metric the site shows, from core's registry: its name, unit, which way is better and what it measures.

use leptos::prelude::*;
use leptos_meta::Title;
use wheelwright_core::metric::{self, Direction, Unit};

/// Which way a metric is better, as a reader says it.
fn direction_text(direction: Direction) -> &'static str {
    match direction {
        Direction::HigherIsBetter => "higher is better",
        Direction::LowerIsBetter => "lower is better",
        Direction::Descriptive => "descriptive (neither)",
    }
}

fn unit_text(unit: Unit) -> &'static str {
    match unit {
        Unit::Percent => "percent",
        Unit::Count => "count",
        Unit::Dollars => "US dollars",
    }
}

#[component]
pub(crate) fn MetricsPage() -> impl IntoView {
    let rows = metric::metrics()
        .map(|m| {
            view! {
                <tr id=m.id>
                    <th scope="row">{m.title}</th>
                    <td><code>{m.id}</code></td>
                    <td>{unit_text(m.unit)}</td>
                    <td>{direction_text(m.direction)}</td>
                    <td>{m.definition}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="metrics-page">
            <Title text="Metrics" />
            <h1>"Metrics"</h1>
            <p class="lead">
                "What every column of the leaderboards, runs and turns means. Leaderboards rank "
                "by a column in its better direction; descriptive columns are never ranked. "
                "The definitions are the specification's, one sentence each; a column's header "
                "shows its definition on hover."
            </p>
            <div class="table-scroll">
                <table class="data metrics" id="metrics">
                    <thead>
                        <tr><th>"metric"</th><th>"name"</th><th>"unit"</th><th>"better"</th><th>"what it measures"</th></tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </section>
    }
}
