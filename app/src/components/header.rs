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
                <A href="/published/reporeuse">"Papers"</A>
                <A href="/runs">"Runs"</A>
                <A href="/submit">"Submit"</A>
                <A href="/analyze">"Analyze"</A>
                <a href="/api/v1/health" rel="external">"API status"</a>
            </nav>
            <ThemeToggle />
        </header>
    }
}

/// Where the reader's choice of theme is kept; `index.html` reads it before the first paint.
const THEME_KEY: &str = "wheelwright-theme";

/// Whether the page is dark now: the reader's choice, else the system's preference.
fn is_dark() -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    match window
        .document()
        .and_then(|d| d.document_element())
        .and_then(|e| e.get_attribute("data-theme"))
    {
        Some(theme) => theme == "dark",
        None => window
            .match_media("(prefers-color-scheme: dark)")
            .ok()
            .flatten()
            .is_some_and(|m| m.matches()),
    }
}

/// Switches between light and dark and remembers the choice (the stylesheet's colours
/// follow `data-theme` on `<html>`, else the system's scheme).
#[component]
fn ThemeToggle() -> impl IntoView {
    let dark = RwSignal::new(is_dark());
    let toggle = move |_| {
        let theme = if dark.get_untracked() {
            "light"
        } else {
            "dark"
        };
        if let Some(window) = web_sys::window() {
            if let Some(root) = window.document().and_then(|d| d.document_element()) {
                let _ = root.set_attribute("data-theme", theme);
            }
            // Private windows may refuse storage: the choice then lasts for this page.
            if let Ok(Some(storage)) = window.local_storage() {
                let _ = storage.set_item(THEME_KEY, theme);
            }
        }
        dark.set(theme == "dark");
    };
    view! {
        <button class="theme-toggle" type="button" id="theme-toggle" on:click=toggle
            aria-label=move || if dark.get() { "Switch to the light theme" } else { "Switch to the dark theme" }>
            {move || if dark.get() { "☀ Light" } else { "☾ Dark" }}
        </button>
    }
}
