//! Wheelwright's browser app: a Leptos client-side app over `wheelwright-core`.
//!
//! Pages live in `pages/`, shared pieces in `components/`, and every request to the server
//! goes through `api`. Scoring and parsing run here, in the browser, through core.

// Leptos' `#[component]` generates `pub` props structs for crate-private components.
#![allow(unreachable_pub)]

mod api;
mod components;
mod local;
mod pages;

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

pub use pages::analyze::AnalyzePage;

/// The whole app: header, routes, footer.
#[component]
pub fn App() -> impl IntoView {
    // The run scored in the browser, kept while the page lives (never stored).
    provide_context(pages::submit::LocalSlot(RwSignal::new_local(None)));
    // Each page names itself with a `Title`; the tab reads "Leaderboard: ReCUBE · Wheelwright".
    leptos_meta::provide_meta_context();
    view! {
        <leptos_meta::Title formatter=|page: String| {
            if page.is_empty() { "Wheelwright".to_owned() } else { format!("{page} · Wheelwright") }
        } />
        <Router>
            <a class="skip-link" href="#content" rel="external">"Skip to content"</a>
            <components::header::Header />
            <main class="page" id="content" tabindex="-1">
                <Routes fallback=pages::not_found::NotFoundPage>
                    <Route path=path!("/") view=pages::home::HomePage />
                    <Route path=path!("/analyze") view=AnalyzePage />
                    <Route
                        path=path!("/leaderboard/:benchmark")
                        view=pages::leaderboard::LeaderboardPage
                    />
                    <Route
                        path=path!("/published/:benchmark")
                        view=pages::published::PublishedPage
                    />
                    <Route path=path!("/runs") view=pages::reporeuse::runs::RunsPage />
                    <Route path=path!("/metrics") view=pages::metrics::MetricsPage />
                    <Route path=path!("/compare") view=pages::compare::ComparePage />
                    <Route
                        path=path!("/schrodinger/actions")
                        view=pages::schrodinger::actions::SchrodingerActionsPage
                    />
                    <Route path=path!("/submit") view=pages::submit::SubmitPage />
                    <Route
                        path=path!("/submit/:chain/:turn")
                        view=pages::reporeuse::local_case::LocalCasePage
                    />
                    <Route
                        path=path!("/datasets/:name/:version")
                        view=pages::reporeuse::dataset::DatasetPage
                    />
                    <Route
                        path=path!("/datasets/:name/:version/source")
                        view=pages::source::SourcePage
                    />
                    <Route
                        path=path!("/recube/datasets/:name/:version")
                        view=pages::recube::dataset::RecubeDatasetPage
                    />
                    <Route
                        path=path!("/recube/datasets/:name/:version/instances/:id")
                        view=pages::recube::instance::RecubeInstancePage
                    />
                    <Route
                        path=path!("/recube/datasets/:name/:version/repositories/:repo/source")
                        view=pages::source::SourcePage
                    />
                    <Route
                        path=path!("/recube/datasets/:name/:version/repositories/:repo/view")
                        view=pages::schrodinger::view_explorer::ViewExplorerPage
                    />
                    <Route path=path!("/recube/runs/:id") view=pages::recube::run::RecubeRunPage />
                    <Route path=path!("/runs/:id") view=pages::reporeuse::run::RunPage />
                    <Route
                        path=path!("/runs/:id/:chain/:turn")
                        view=pages::reporeuse::turn_case::TurnCasePage
                    />
                </Routes>
            </main>
            <components::footer::Footer />
        </Router>
    }
}

/// Mounts the app into `<body>`; called once by the binary.
pub fn mount() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}
