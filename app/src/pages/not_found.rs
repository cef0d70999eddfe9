//! The page for addresses the app does not know.

use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub(crate) fn NotFoundPage() -> impl IntoView {
    view! {
        <section>
            <Title text="Page not found" />
            <h1>"Page not found"</h1>
            <p>"There is nothing at this address. " <a href="/">"Back to the benchmarks"</a></p>
        </section>
    }
}
