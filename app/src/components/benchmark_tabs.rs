//! The benchmark tabs above the leaderboard and the published results: one link per benchmark.

use leptos::prelude::*;
use wheelwright_core::benchmark::Benchmark;

/// A tab per benchmark linking to `{base}/{id}`, the one in `current` marked active.
pub(crate) fn benchmark_tabs(
    base: &'static str,
    current: Memo<Option<Benchmark>>,
) -> impl IntoView + use<> {
    let tabs = move || {
        Benchmark::ALL
            .into_iter()
            .map(|b| {
                let active = current.get() == Some(b);
                view! { <a href=format!("{base}/{}", b.id()) class:active=active class="tab">{b.title()}</a> }
            })
            .collect_view()
    };
    view! { <nav class="tabs" aria-label="Benchmarks">{tabs}</nav> }
}
