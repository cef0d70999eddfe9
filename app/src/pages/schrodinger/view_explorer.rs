//! `/recube/datasets/:name/:version/repositories/:repo/view?path=&seed=&levels=`: SchrodingerRepo's view explorer, one file of a shipped library beside its view under a seed (materialised, or as the virtual namespace shows it), the renamed names marked and listed, the reordered definitions marked.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_params_map, use_query_map};
use wheelwright_core::api::ViewFile;

use crate::api;
use crate::components::loaded::loaded;
use crate::components::source_view::{LineMark, SourceView};

/// The levels the page offers, as the query writes them and as the menu says them.
const LEVELS: &[(&str, &str)] = &[
    ("2,3", "2 and 3: names renamed, definitions reordered"),
    ("2", "2: names renamed"),
    ("3", "3: definitions reordered"),
    ("virtual", "2, virtual: as an agent reads it"),
];

/// What the page was asked for: the repository's API path, its title, the query.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Wanted {
    repository: String,
    page: String,
    repo: String,
    path: Option<String>,
    seed: String,
    levels: String,
}

/// Lines of `text` that define one of `names` (`def name`, `class name`), each marked
/// with `title(name)`.
fn definition_marks(text: &str, names: &BTreeMap<String, String>) -> BTreeMap<u32, LineMark> {
    let mut marks = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let rest = t
            .strip_prefix("async def ")
            .or_else(|| t.strip_prefix("def "))
            .or_else(|| t.strip_prefix("class "));
        let Some(rest) = rest else { continue };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if let Some(title) = names.get(&name) {
            let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
            marks.insert(
                n,
                LineMark {
                    class: "span",
                    title: title.clone(),
                },
            );
        }
    }
    marks
}

#[component]
pub(crate) fn ViewExplorerPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let navigate = StoredValue::new(use_navigate());
    let wanted = Memo::new(move |_| {
        let p = params.read();
        let q = query.read();
        let (name, version, repo) = (
            p.get("name").unwrap_or_default(),
            p.get("version").unwrap_or_default(),
            p.get("repo").unwrap_or_default(),
        );
        Wanted {
            page: format!(
                "{}/view",
                api::recube_repository_path(&name, &version, &repo)
            ),
            repository: api::schrodinger_repository_path(&name, &version, &repo),
            repo,
            path: q.get("path"),
            seed: q.get("seed").unwrap_or_else(|| "0".to_owned()),
            levels: q.get("levels").unwrap_or_else(|| "2,3".to_owned()),
        }
    });
    let file = LocalResource::new(move || {
        let w = wanted.get();
        async move { api::view_file(&w.repository, w.path.as_deref(), &w.seed, &w.levels).await }
    });
    // Another file, seed or level: a new URL, so the view can be linked to and reloaded.
    let go = move |path: Option<String>, seed: String, levels: String| {
        let w = wanted.get_untracked();
        let mut q = format!(
            "?seed={}&levels={}",
            js_sys::encode_uri_component(&seed),
            js_sys::encode_uri_component(&levels)
        );
        if let Some(path) = path.or(w.path) {
            q.push_str(&format!("&path={}", js_sys::encode_uri_component(&path)));
        }
        navigate.with_value(|n| n(&format!("{}{q}", w.page), Default::default()));
    };
    let render = move |f: ViewFile| {
        let w = wanted.get_untracked();
        let (seed, levels, path) = (w.seed.clone(), w.levels.clone(), f.path.clone());
        let files = f
            .files
            .iter()
            .map(|p| {
                let selected = *p == f.path;
                view! { <option value=p.clone() selected=selected>{p.clone()}</option> }
            })
            .collect_view();
        let level_options = LEVELS
            .iter()
            .map(|(value, label)| {
                let selected = *value == levels;
                view! { <option value=*value selected=selected>{*label}</option> }
            })
            .collect_view();
        let originals: Vec<String> = f.names.iter().map(|(o, _)| o.clone()).collect();
        let renamed: Vec<String> = f.names.iter().map(|(_, v)| v.clone()).collect();
        // Each reordered definition: where it was and where it is in its run.
        let mut moved = BTreeMap::new();
        for run in &f.runs {
            for (now, name) in run.view_order.iter().enumerate() {
                let was = run.original_order.iter().position(|n| n == name);
                if let Some(was) = was.filter(|&w| w != now) {
                    let title = format!(
                        "reordered: definition {} of its run, was {}",
                        now + 1,
                        was + 1
                    );
                    moved.insert(name.clone(), title);
                }
            }
        }
        let view_marks = definition_marks(&f.view, &moved);
        let names_rows = f
            .names
            .iter()
            .map(|(o, v)| view! { <tr><td><code>{o.clone()}</code></td><td><code class="renamed">{v.clone()}</code></td></tr> })
            .collect_view();
        let runs_rows = f
            .runs
            .iter()
            .map(|r| {
                let place = if r.container.is_empty() {
                    "module".to_owned()
                } else {
                    format!("class {}", r.container)
                };
                view! {
                    <tr>
                        <td>{place}</td>
                        <td><code>{r.original_order.join(", ")}</code></td>
                        <td><code>{r.view_order.join(", ")}</code></td>
                    </tr>
                }
            })
            .collect_view();
        let summary = if f.virtual_namespace {
            format!(
                "Seed {} · level 2 as a virtual namespace: the file as an agent reads it through wheelwright view shell, which also renames names in strings, __all__, methods and the package · {} names renamed in the repository ({} left out) · {} in this file",
                f.seed,
                f.names_mapped,
                f.names_left_out,
                f.names.len(),
            )
        } else {
            format!(
                "Seed {} · level {} · {} names renamed in the repository ({} left out) · {} in this file · {} runs of definitions reordered here",
                f.seed,
                f.levels
                    .iter()
                    .map(u8::to_string)
                    .collect::<Vec<_>>()
                    .join(" and "),
                f.names_mapped,
                f.names_left_out,
                f.names.len(),
                f.runs.len(),
            )
        };
        let (seed_for_file, levels_for_file) = (seed.clone(), levels.clone());
        let (path_for_seed, levels_for_seed) = (path.clone(), levels.clone());
        let (path_for_levels, seed_for_levels) = (path.clone(), seed.clone());
        view! {
            <form class="view-controls" on:submit=|e| e.prevent_default()>
                <label>"File "
                    <select id="view-file" on:change=move |e| go(Some(event_target_value(&e)), seed_for_file.clone(), levels_for_file.clone())>
                        {files}
                    </select>
                </label>
                <label>"Seed "
                    <input id="view-seed" type="number" min="0" value=seed.clone()
                        on:change=move |e| go(Some(path_for_seed.clone()), event_target_value(&e), levels_for_seed.clone()) />
                </label>
                <label>"Levels "
                    <select id="view-levels" on:change=move |e| go(Some(path_for_levels.clone()), seed_for_levels.clone(), event_target_value(&e))>
                        {level_options}
                    </select>
                </label>
            </form>
            <p class="muted" id="view-summary">{summary}</p>
            <div class="view-panes">
                <section class="view-pane" id="view-original">
                    <h2>"Original " <code>{f.path.clone()}</code></h2>
                    <SourceView text=f.original.clone() words=originals />
                </section>
                <section class="view-pane" id="view-view">
                    <h2>"View " <code>{f.view_path.clone()}</code></h2>
                    <SourceView text=f.view.clone() words=renamed marks=view_marks />
                </section>
            </div>
            <div class="view-tables">
                <section>
                    <h2>"Names renamed in this file"</h2>
                    <div class="table-scroll">
                        <table class="data" id="view-names">
                            <thead><tr><th scope="col">"Original"</th><th scope="col">"View"</th></tr></thead>
                            <tbody>{names_rows}</tbody>
                        </table>
                    </div>
                </section>
                <section>
                    <h2>"Definitions reordered (named as in the view)"</h2>
                    <div class="table-scroll">
                        <table class="data" id="view-runs">
                            <thead><tr><th scope="col">"In"</th><th scope="col">"Original order"</th><th scope="col">"View order"</th></tr></thead>
                            <tbody>{runs_rows}</tbody>
                        </table>
                    </div>
                </section>
            </div>
        }
    };
    view! {
        <section class="view-explorer">
            <Title text=move || format!("{} · SchrodingerRepo view", wanted.get().repo) />
            <nav class="breadcrumbs"><a href="/leaderboard/schrodinger">"SchrodingerRepo"</a>" · view explorer"</nav>
            <h1>{move || format!("Views of {}", wanted.get().repo)}</h1>
            <p class="lead">
                "A view keeps what the code does and strips the cues an agent may know it by: level 2 renames the names the library owns, word by word under the seed; level 3 reorders runs of definitions, keeping what each needs when it is defined. The library's own tests pass on both ("
                <code>"wheelwright view check"</code>
                "). Renamed names are marked in both files; reordered definitions are marked in the view."
            </p>
            {loaded(file, render)}
        </section>
    }
}
