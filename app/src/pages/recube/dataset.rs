//! `/recube/datasets/:name/:version`: a ReCUBE dataset's instances, each a target file of a pinned library with its labelled hidden tests.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use wheelwright_core::api::RecubeDatasetDetail;
use wheelwright_core::dataset::RepositorySource;

use crate::api;
use crate::components::loaded::loaded;

/// How a repository is pinned, as written under the title (`click 8.1.7`).
pub(crate) fn pinned(source: Option<&RepositorySource>) -> String {
    match source {
        Some(RepositorySource::Pypi(repo)) => format!("{} {} (PyPI)", repo.pypi, repo.version),
        Some(RepositorySource::Local(local)) => format!("{} (local)", local.path),
        None => "unknown repository".to_owned(),
    }
}

#[component]
pub(crate) fn RecubeDatasetPage() -> impl IntoView {
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
        async move { api::recube_dataset(&name, &version).await }
    });
    let render = move |d: RecubeDatasetDetail| {
        let (name, version) = (d.summary.name.clone(), d.summary.version.clone());
        let rows = d
            .instances
            .iter()
            .map(|i| {
                let href = format!(
                    "{}/instances/{}",
                    api::recube_dataset_path(&name, &version),
                    i.id
                );
                view! {
                    <tr>
                        <td><a href=href>{i.id.clone()}</a></td>
                        <td><code>{i.target.clone()}</code></td>
                        <td>{pinned(d.summary.repositories.get(&i.repository))}</td>
                        <td class="num">{i.external_tests}</td>
                        <td class="num">{i.internal_tests}</td>
                        <td class="why">{i.description.clone()}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <header class="run-head">
                <h1>{format!("{} {}", d.summary.name, d.summary.version)}</h1>
                <div class="run-badges muted">
                    {format!(
                        "{} instances · {} hidden tests · sha256 {}",
                        d.summary.instance_count,
                        d.summary.test_count,
                        &d.summary.content_sha256[..12.min(d.summary.content_sha256.len())],
                    )}
                </div>
            </header>
            <p class="lead">
                "Each instance is one file of a pinned library. The agent gets the library with that file masked (imports removed, every body replaced by its docstring and "
                <code>"raise NotImplementedError"</code>
                ") and rebuilds it; hidden tests labelled external (the file's behaviour as the rest of the library uses it) or internal (its own helpers) judge the result."
            </p>
            <p id="schrodinger-views">
                "SchrodingerRepo views of these libraries (names renamed, definitions reordered, behaviour kept): "
                {d.summary.repositories.keys().map(|repo| {
                    let href = format!("{}/view", api::recube_repository_path(&name, &version, repo));
                    view! { <a href=href>{repo.clone()}</a>" " }
                }).collect_view()}
            </p>
            <div class="table-scroll">
                <table class="data" id="recube-instances">
                    <thead>
                        <tr>
                            <th scope="col">"Instance"</th>
                            <th scope="col">"Target"</th>
                            <th scope="col">"Library"</th>
                            <th scope="col" class="num">"External tests"</th>
                            <th scope="col" class="num">"Internal tests"</th>
                            <th scope="col">"What the file does"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
    };
    view! {
        <section class="recube-dataset">
            <Title text="ReCUBE instances" />
            <nav class="breadcrumbs"><a href="/leaderboard/recube">"ReCUBE"</a>" · instances"</nav>
            {loaded(dataset, render)}
        </section>
    }
}
