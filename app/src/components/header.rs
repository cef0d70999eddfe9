//! The site header: product name and navigation.

use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub(crate) fn Header() -> impl IntoView {
    view! {
        <header class="site-header">
            <a class="brand" href="/">
                <span class="brand-mark" aria-hidden="true">"☸"</span>
                " Wheelwright"
            </a>
            <nav aria-label="Main">
                <A href="/" exact=true>"Benchmarks"</A>
                <A href="/leaderboard/reporeuse">"Leaderboard"</A>
                <A href="/runs">"Runs"</A>
                <A href="/submit">"Submit"</A>
                <A href="/analyze">"Analyze"</A>
                <a href="/api/v1/health">"API status"</a>
            </nav>
        </header>
    }
}
