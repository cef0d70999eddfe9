//! The site footer: versions of the scorer running in this page.

use leptos::prelude::*;

#[component]
pub(crate) fn Footer() -> impl IntoView {
    view! {
        <footer class="site-footer">
            "Scorer " {wheelwright_core::SCORER_VERSION} " · "
            {wheelwright_core::syntax::GRAMMAR_VERSION}
            " · the scorer runs in your browser: what you paste or drop is not uploaded unless you ask. "
            <a href="/metrics">"What the metrics mean"</a>
        </footer>
    }
}
