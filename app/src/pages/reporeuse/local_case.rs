//! A turn of the run scored in this page (`/submit/{chain}/{turn}`): its case from the browser's own result, nothing sent.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::case::case_content;
use super::case_nav::{CaseNav, CaseOrigin};

/// A turn's case of the run scored in this page (`/submit/{chain}/{turn}`), from the
/// browser's own result: nothing is fetched but what the page already has.
#[component]
pub(crate) fn LocalCasePage() -> impl IntoView {
    let params = use_params_map();
    let slot = expect_context::<crate::pages::submit::LocalSlot>().0;
    let place = Memo::new(move |_| {
        let p = params.read();
        Some((p.get("chain")?, p.get("turn")?.parse::<usize>().ok()?))
    });
    // The case is built once per render of the content (it parses the turn's trajectory
    // for its observations); the breadcrumb reads only where the page is.
    let case = move || {
        let (chain, turn) = place.get()?;
        let run = slot.get()?;
        let found = run.case(&chain, turn).map(|detail| {
            let origin = CaseOrigin::Local {
                observations: run.observations(&chain, turn),
                earlier_files: run.files(&chain, turn.saturating_sub(1)),
            };
            let nav = CaseNav::of(&run.detail(), &chain, "/submit".to_owned(), origin);
            (detail, nav)
        });
        Some((chain, turn, found))
    };
    view! {
        <section class="case-page">
            <Title text=move || place.get().map_or_else(
                || "Turn scored in your browser".to_owned(),
                |(chain, turn)| format!("{chain}, turn {turn} · scored in your browser"),
            ) />
            <nav class="breadcrumbs">
                <a href="/submit">"Submit"</a>
                " / "
                {move || {
                    let scored = slot.with(Option::is_some);
                    place.get().filter(|_| scored).map(|(chain, turn)| format!("{chain}, turn {turn}"))
                }}
                " "
                <span class="badge origin local">"scored in your browser, not submitted"</span>
            </nav>
            {move || match case() {
                Some((_, _, Some((detail, nav)))) => case_content(detail, nav),
                Some((chain, turn, None)) => view! {
                    <p class="error">{format!("The run scored here has no turn {turn} of chain {chain}.")}</p>
                }
                .into_any(),
                None => view! {
                    <p class="muted">
                        "Nothing is scored in this page yet (a run scored in the browser lives only "
                        "as long as the page): " <a href="/submit">"drop a bundle"</a> "."
                    </p>
                }
                .into_any(),
            }}
        </section>
    }
}
