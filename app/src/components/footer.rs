//! The site footer: versions of the scorer running in this page.

use leptos::prelude::*;

#[component]
pub(crate) fn Footer() -> impl IntoView {
    view! {
        <footer class="site-footer">
            "Scorer " {wheelwright_core::SCORER_VERSION} " · "
            {wheelwright_core::syntax::GRAMMAR_VERSION}
            " · everything on this page is computed in your browser unless you ask the server."
        </footer>
    }
}
