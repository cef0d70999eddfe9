//! A case study, as the RepoReuse paper's figures show one: a re-implemented target beside the turn's code.
//!
//! For a target the turn re-implemented, its definition (in the repository, or in the agent's file of the turn
//! before) beside the turn's code, with the callees the two share marked in both.

use std::collections::BTreeMap;

use leptos::prelude::*;

use super::case_nav::{CaseNav, CaseOrigin};
use crate::api::{self, Target, TurnDetail};
use crate::components::source_view::{LineMark, SourceView};
use wheelwright_core::outline::outline;
use wheelwright_core::present::source::module_of;

/// Where a target is defined: the file, its text, and the definition's lines in it.
#[derive(Clone, Debug)]
struct Earlier {
    place: String,
    path: String,
    text: String,
    span: Option<(u32, u32)>,
}

/// Where the dotted `name` is defined among `files` (path -> text), said to be in `place`.
fn find(name: &str, files: &BTreeMap<String, String>, place: String) -> Option<Earlier> {
    let (path, qualified) = module_of(name, |p| files.contains_key(p))?;
    let text = files.get(&path)?.clone();
    let span = outline(&text)
        .definitions
        .into_iter()
        .find(|d| d.qualified_name == qualified)
        .map(|d| (d.start_line, d.end_line));
    Some(Earlier {
        place,
        path,
        text,
        span,
    })
}

/// Loads the target's definition: the repository's file from the dataset's source route,
/// or the agent's files of the turn before (from the server, or the bundle in this page).
async fn earlier(target: Target, detail: TurnDetail, nav: CaseNav) -> Result<Earlier, String> {
    let name = target
        .canonical
        .clone()
        .unwrap_or_else(|| target.target.clone());
    let (name_, version) = nav.dataset.clone();
    if target.kind == "repo" {
        let repository = api::dataset_path(&name_, &version);
        let listed = api::source_files(&repository)
            .await
            .map_err(|e| e.to_string())?;
        let (path, _) = module_of(&name, |p| {
            listed.files.binary_search_by(|f| f.as_str().cmp(p)).is_ok()
        })
        .ok_or_else(|| format!("{name} is not defined in a module of the repository"))?;
        let file = api::source(&repository, &path)
            .await
            .map_err(|e| e.to_string())?;
        let files = BTreeMap::from([(path.clone(), file.text)]);
        return find(&name, &files, "the repository".to_owned())
            .ok_or_else(|| "the definition was not found".to_owned());
    }
    let before = detail.turn - 1;
    let files: BTreeMap<String, String> = match &nav.origin {
        CaseOrigin::Stored(run) => {
            let prev = api::turn(*run, &detail.chain, before)
                .await
                .map_err(|e| e.to_string())?;
            std::iter::once(prev.submission)
                .chain(prev.other_files)
                .filter_map(|f| Some((f.path, f.text?)))
                .collect()
        }
        CaseOrigin::Local { earlier_files, .. } => earlier_files.clone(),
    };
    find(&name, &files, format!("turn {before}, the agent's file"))
        .ok_or_else(|| format!("turn {before}'s files do not define {name}"))
}

/// The last part of each dotted callee: what the code calls it by.
fn call_names(callees: &[String]) -> Vec<String> {
    let mut names: Vec<String> = callees
        .iter()
        .filter_map(|c| c.rsplit('.').next().map(str::to_owned))
        .collect();
    // Longest first, so a name that begins another is not marked inside it.
    names.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    names.dedup();
    names
}

/// The case study of one re-implemented target of the turn.
#[component]
pub(crate) fn CaseStudy(target: Target, detail: TurnDetail, nav: CaseNav) -> impl IntoView {
    let matched = target
        .reimplementation
        .as_ref()
        .map(|r| r.matched.clone())
        .unwrap_or_default();
    let words = call_names(&matched);
    let current = detail.submission.text.clone().unwrap_or_default();
    let marks: BTreeMap<u32, LineMark> = current
        .lines()
        .enumerate()
        .filter(|(_, line)| {
            line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|token| words.iter().any(|w| w == token))
        })
        .filter_map(|(i, _)| {
            let mark = LineMark {
                class: "uses",
                title: "calls a callee of the target".to_owned(),
            };
            Some((u32::try_from(i + 1).ok()?, mark))
        })
        .collect();
    let loaded = {
        let (target, detail, nav) = (target.clone(), detail.clone(), nav.clone());
        LocalResource::new(move || earlier(target.clone(), detail.clone(), nav.clone()))
    };
    let left_words = words.clone();
    let left = move || {
        let words = left_words.clone();
        match loaded.get() {
            None => view! { <p class="muted">"Loading…"</p> }.into_any(),
            Some(Err(e)) => view! { <p class="muted">{e}</p> }.into_any(),
            Some(Ok(found)) => {
                let (first, text) = match found.span {
                    Some((a, b)) => (
                        a,
                        found
                            .text
                            .lines()
                            .skip(a as usize - 1)
                            .take((b - a + 1) as usize)
                            .collect::<Vec<_>>()
                            .join("\n"),
                    ),
                    None => (1, found.text.clone()),
                };
                view! {
                    <h3>{format!("Defined in {}: ", found.place)} <code>{found.path.clone()}</code></h3>
                    <SourceView text=text first=first words=words />
                }
                .into_any()
            }
        }
    };
    let chips = matched
        .iter()
        .map(|c| view! { <code class="callee matched">{c.clone()}</code> " " })
        .collect_view();
    let share = target
        .reimplementation
        .as_ref()
        .and_then(|r| r.share.map(|s| format!("{:.0}%", 100.0 * s)))
        .unwrap_or_default();
    view! {
        <section class="case-study" data-target=target.target.clone()>
            <h3 class="study-title">
                <span class=format!("badge kind {}", target.kind)>{target.kind.clone()}</span>
                " " <code>{target.target.clone()}</code>
            </h3>
            <p class="muted">
                {format!("Not reused, yet this turn calls {share} of its callees: ")}
                {chips}
            </p>
            <div class="side-by-side">
                <div class="file study-earlier">{left}</div>
                <div class="file study-later">
                    <h3>{format!("Turn {}: the agent's file ", detail.turn)} <code>{detail.submission.path.clone()}</code></h3>
                    <SourceView text=current marks=marks anchor="study" words=words />
                </div>
            </div>
        </section>
    }
}
