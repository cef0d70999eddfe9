//! A stored run's turn (`/runs/{id}/chains/{chain}/turns/{turn}`): its case read from the server, under the run's breadcrumbs.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::case::case_content;
use super::case_nav::{CaseNav, CaseOrigin};
use crate::api::{self, ApiError, TurnDetail};
use crate::components::loaded::loaded;

#[component]
pub(crate) fn TurnCasePage() -> impl IntoView {
    let params = use_params_map();
    let key = Memo::new(move |_| {
        let p = params.read();
        let id = p.get("id")?.parse::<i64>().ok()?;
        let chain = p.get("chain")?;
        let turn = p.get("turn")?.parse::<i64>().ok()?;
        Some((id, chain, turn))
    });
    let run_id = Memo::new(move |_| key.get().map(|(id, _, _)| id));
    // The run (its chains and dataset) loads once per run; the turn once per turn. Each is
    // keyed by the URL, so only the latest request's reply is shown.
    let run = LocalResource::new(move || {
        let id = run_id.get();
        async move {
            match id {
                Some(id) => api::run(id).await,
                None => Err(ApiError("no such run".to_owned())),
            }
        }
    });
    let detail = LocalResource::new(move || {
        let key = key.get();
        async move {
            let Some((id, chain, turn)) = key else {
                return Err(ApiError("no such turn".to_owned()));
            };
            let detail = api::turn(id, &chain, turn).await?;
            let run = run.await?;
            let nav = CaseNav::of(&run, &chain, format!("/runs/{id}"), CaseOrigin::Stored(id));
            Ok((detail, nav))
        }
    });
    let content = |(detail, nav): (TurnDetail, CaseNav)| case_content(detail, nav);
    view! {
        <section class="case-page">
            <Title text=move || key.get().map_or_else(
                || "Turn".to_owned(),
                |(id, chain, turn)| format!("{chain}, turn {turn} · run {id}"),
            ) />
            <nav class="breadcrumbs">
                <a href="/runs">"Runs"</a>
                " / "
                {move || key.get().map(|(id, _, _)| view! { <a href=format!("/runs/{id}")>{format!("run {id}")}</a> })}
                " / "
                {move || key.get().map(|(_, chain, turn)| format!("{chain}, turn {turn}"))}
            </nav>
            {loaded(detail, content)}
        </section>
    }
}
