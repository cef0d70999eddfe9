//! `/datasets/:name/:version`: a RepoReuse dataset described as the paper describes its own: what it is, its Table 1 computed from its files beside the paper's, and its chains with their turns.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use wheelwright_core::api::{DatasetDetail, DatasetTurn};
use wheelwright_core::present::markdown::markdown_html;
use wheelwright_core::reporeuse::dataset::ChainManifest;
use wheelwright_core::reporeuse::stats::{PaperStats, StatRow};

use crate::api;
use crate::components::loaded::loaded;
use crate::pages::recube::dataset::pinned;

#[component]
pub(crate) fn DatasetPage() -> impl IntoView {
    let params = use_params_map();
    let key = Memo::new(move |_| {
        let p = params.read();
        (
            p.get("name").unwrap_or_default(),
            p.get("version").unwrap_or_default(),
        )
    });
    let dataset = LocalResource::new(move || {
        let (name, version) = key.get();
        async move { api::dataset(&name, &version).await }
    });
    let render = move |d: DatasetDetail| {
        let s = &d.summary;
        let source_href = format!("{}/source", api::dataset_path(&s.name, &s.version));
        view! {
            <header class="run-head">
                <h1>{format!("{} {}", s.name, s.version)}</h1>
                <div class="run-badges muted">
                    {format!(
                        "{} chains · {} turns · {} hidden tests · sha256 {}",
                        s.chain_count,
                        s.turn_count,
                        s.test_count,
                        &s.content_sha256[..12.min(s.content_sha256.len())],
                    )}
                </div>
            </header>
            <p class="lead">
                "A RepoReuse dataset: chains of turns, each asking an agent for a new module written against "
                <a href=source_href>{pinned_all(&d)}</a>
                ". A turn names the repository functions (and the functions earlier turns of its chain defined) a good answer reuses; hidden test cases judge what it computes."
            </p>
            {stats_table(&d)}
            <h2>"Chains"</h2>
            {chains(&d.chains, &d.turns)}
        }
    };
    view! {
        <section class="dataset-page">
            <Title text=move || format!("Dataset {} {}", key.get().0, key.get().1) />
            <nav class="breadcrumbs">
                <a href="/leaderboard/reporeuse">"RepoReuse"</a>
                " · dataset"
            </nav>
            {loaded(dataset, render)}
        </section>
    }
}

/// A mean as `wheelwright dataset stats` prints it (one decimal), `—` when undefined.
fn mean(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| format!("{v:.1}"))
}

/// Table 1: a row per statistic, this dataset's mean and range beside the paper's mean.
fn stats_table(d: &DatasetDetail) -> AnyView {
    let Some(stats) = &d.stats else {
        return view! {
            <p class="empty" id="dataset-stats">
                "The server lists this dataset but did not load its files, so its statistics cannot be computed."
            </p>
        }
        .into_any();
    };
    let paper = d.paper_stats.as_ref();
    let chains_row = view! {
        <tr data-key="chains">
            <th scope="row">"Chains"</th>
            <td class="num">{stats.chains}</td>
            <td class="num">"—"</td>
            <td class="num">{paper.map_or_else(|| "—".to_owned(), |p| p.tasks.to_string())}</td>
        </tr>
    };
    let rows = stats
        .rows
        .iter()
        .map(|row| stat_row(row, paper))
        .collect_view();
    view! {
        <div class="table-scroll edges" role="region" aria-labelledby="dataset-stats-caption" tabindex="0">
            <table class="data dataset-stats" id="dataset-stats">
                <caption id="dataset-stats-caption">
                    "Statistics, as the RepoReuse paper's Table 1 gives them for its own dataset"
                </caption>
                <thead>
                    <tr>
                        <th scope="col">"Statistic"</th>
                        <th scope="col" class="num">"This dataset (mean)"</th>
                        <th scope="col" class="num">"Range"</th>
                        <th scope="col" class="num">"Paper (mean)"</th>
                    </tr>
                </thead>
                <tbody>{chains_row}{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}

fn stat_row(row: &StatRow, paper: Option<&PaperStats>) -> impl IntoView + use<> {
    let range = match (row.min, row.max) {
        (Some(min), Some(max)) => format!("{min}–{max}"),
        _ => "—".to_owned(),
    };
    let over = if row.key == "turns_per_chain" {
        "chains"
    } else {
        "turns"
    };
    view! {
        <tr data-key=row.key.clone()>
            <th scope="row">
                {row.label.clone()}
                <span class="muted over">{format!(" over {} {over}", row.count)}</span>
            </th>
            <td class="num mean">{mean(row.mean)}</td>
            <td class="num range">{range}</td>
            <td class="num paper">{mean(paper.and_then(|p| p.mean(&row.key)))}</td>
        </tr>
    }
}

/// Each chain with its turns, in the dataset's order, titled and described by its
/// manifest when the server sent them; a turn's requirement opens in place (turns are read
/// per run elsewhere, and a dataset has no page per turn).
fn chains(manifests: &[ChainManifest], turns: &[DatasetTurn]) -> impl IntoView + use<> {
    let mut by_chain: Vec<(String, Vec<DatasetTurn>)> = Vec::new();
    for turn in turns {
        match by_chain.last_mut() {
            Some((chain, list)) if *chain == turn.chain => list.push(turn.clone()),
            _ => by_chain.push((turn.chain.clone(), vec![turn.clone()])),
        }
    }
    by_chain
        .into_iter()
        .map(|(chain, turns)| {
            let items = turns
                .iter()
                .map(|t| {
                    let counts = format!(
                        "{} cases · reuses {} repository and {} own functions",
                        t.tests,
                        t.repo_targets.len(),
                        t.self_targets.len()
                    );
                    view! {
                        <li class="dataset-turn" data-turn=t.turn>
                            <details>
                                <summary>
                                    <span class="turn-title">{format!("Turn {}: {}", t.turn, t.title)}</span>
                                    " "
                                    <code>{t.module_path.clone()}</code>
                                    <span class="muted turn-counts">{counts}</span>
                                </summary>
                                <div class="requirement markdown" inner_html=markdown_html(&t.requirement)></div>
                            </details>
                        </li>
                    }
                })
                .collect_view();
            let manifest = manifests.iter().find(|m| m.id == chain);
            let heading = manifest.map_or_else(|| chain.clone(), |m| m.title.clone());
            let about = manifest.map(|m| view! { <p class="chain-about">{m.description.clone()}</p> });
            view! {
                <section class="dataset-chain" data-chain=chain>
                    <h3>{heading}</h3>
                    {about}
                    <ol class="dataset-turns">{items}</ol>
                </section>
            }
        })
        .collect_view()
}

/// The dataset's repositories as pinned, in id order: `networkx 3.4.2 (PyPI)`, or several
/// joined with commas.
fn pinned_all(d: &DatasetDetail) -> String {
    if d.repositories.is_empty() {
        return pinned(None);
    }
    d.repositories
        .values()
        .map(|source| pinned(Some(source)))
        .collect::<Vec<_>>()
        .join(", ")
}
