//! A file of a dataset's repository, highlighted, with a definition's lines marked and
//! scrolled to: `/datasets/{name}/{version}/source?path=P&line=A&end=B` (lines A..=B of P),
//! or `?name=pkg.mod.f` (the definition of that name, found in the browser by outlining the
//! module the name's longest prefix names). Where a target's definition links.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::api::{self, ApiError};
use crate::components::loaded::loaded;
use crate::components::source_view::{LineMark, SourceView};
use wheelwright_core::api::SourceLines;
use wheelwright_core::outline::outline;
use wheelwright_core::present::source::module_of;

/// What the page was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Wanted {
    /// A file, with lines marked.
    File {
        path: String,
        span: Option<(u32, u32)>,
    },
    /// The definition of a dotted name.
    Definition(String),
}

/// A file as the page shows it: its lines, the lines marked, and what the marks are.
#[derive(Clone, Debug)]
struct Shown {
    file: SourceLines,
    span: Option<(u32, u32)>,
    what: String,
}

/// The file and lines `wanted` names in the repository whose routes begin at `repository`.
async fn load(repository: String, wanted: Wanted) -> Result<Shown, ApiError> {
    match wanted {
        Wanted::File { path, span } => Ok(Shown {
            file: api::source(&repository, &path).await?,
            span,
            what: "the lines linked to".to_owned(),
        }),
        Wanted::Definition(dotted) => {
            let files = api::source_files(&repository).await?;
            let (path, qualified) = module_of(&dotted, |p| {
                files.files.binary_search_by(|f| f.as_str().cmp(p)).is_ok()
            })
            .ok_or_else(|| {
                ApiError(format!(
                    "{dotted} is not defined in a module of this repository"
                ))
            })?;
            let file = api::source(&repository, &path).await?;
            let found = outline(&file.text)
                .definitions
                .into_iter()
                .find(|d| d.qualified_name == qualified);
            let offset = u32::try_from(file.start.saturating_sub(1)).unwrap_or(0);
            Ok(Shown {
                span: found.map(|d| (d.start_line + offset, d.end_line + offset)),
                what: format!("the definition of {dotted}"),
                file,
            })
        }
    }
}

#[component]
pub(crate) fn SourcePage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let key = Memo::new(move |_| {
        let p = params.read();
        let q = query.read();
        let wanted = match (q.get("path"), q.get("name")) {
            (Some(path), _) => {
                let line = q.get("line").and_then(|l| l.parse::<u32>().ok());
                let end = q.get("end").and_then(|e| e.parse::<u32>().ok());
                let span = line.map(|a| (a, end.unwrap_or(a).max(a)));
                Wanted::File { path, span }
            }
            (None, Some(name)) => Wanted::Definition(name),
            (None, None) => return None,
        };
        let (name, version) = (p.get("name")?, p.get("version")?);
        // A ReCUBE dataset names one of its repositories; a RepoReuse dataset has one.
        let repository = match p.get("repo") {
            Some(repo) => api::recube_repository_path(&name, &version, &repo),
            None => api::dataset_path(&name, &version),
        };
        // The breadcrumb: the dataset, linked to its page, then what this page shows of it.
        let (dataset, rest) = match p.get("repo") {
            Some(repo) => (
                api::recube_dataset_path(&name, &version),
                format!(" · {repo} · repository source"),
            ),
            None => (
                api::dataset_path(&name, &version),
                " · repository source".to_owned(),
            ),
        };
        let crumb = (dataset, format!("{name} {version}"), rest);
        Some((repository, crumb, wanted))
    });
    let shown = LocalResource::new(move || {
        let key = key.get();
        async move {
            match key {
                Some((repository, _, wanted)) => load(repository, wanted).await,
                None => Err(ApiError(
                    "say which file (?path=networkx/classes/graph.py) or which definition (?name=networkx.classes.graph.Graph)"
                        .to_owned(),
                )),
            }
        }
    });
    let render = move |shown: Shown| {
        let Shown { file, span, what } = shown;
        let marks: BTreeMap<u32, LineMark> = span
            .map(|(a, b)| {
                (a..=b)
                    .map(|n| {
                        let mark = LineMark {
                            class: "span",
                            title: what.clone(),
                        };
                        (n, mark)
                    })
                    .collect()
            })
            .unwrap_or_default();
        if let Some((line, _)) = span {
            // The lines exist once this view is mounted: scroll the first into view then.
            request_animation_frame(move || {
                if let Some(el) = document().get_element_by_id(&format!("src-L{line}")) {
                    el.scroll_into_view();
                }
            });
        }
        let first = u32::try_from(file.start).unwrap_or(1);
        let note = match span {
            Some((a, b)) => format!("Marked: {what}, lines {a}–{b}."),
            None => format!("{what}: not found in this file."),
        };
        let part = (file.end < file.total_lines).then(|| {
            format!(
                " Lines {}–{} of {} shown.",
                file.start, file.end, file.total_lines
            )
        });
        view! {
            <header class="run-head">
                <h1><code>{file.path.clone()}</code></h1>
                <div class="run-badges muted">{format!("{} lines", file.total_lines)}</div>
            </header>
            <p class="muted" id="source-note">{note}{part}</p>
            <SourceView text=file.text marks=marks anchor="src" first=first />
        }
    };
    view! {
        <section class="source-page">
            <Title text="Repository source" />
            <nav class="breadcrumbs">
                {move || {
                    key.get()
                        .map(|(_, (href, dataset, rest), _)| view! { <a href=href>{dataset}</a>{rest} })
                }}
            </nav>
            {loaded(shown, render)}
        </section>
    }
}
