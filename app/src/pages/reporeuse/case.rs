//! A turn's case as a researcher reads it, the same for a stored run's turn and one scored in the browser.
//!
//! The chain's turns as a strip (`j`/`k`
//! move along it), the requirement as Markdown, the agent's file and the reference
//! highlighted with the lines that use a target marked, their aligned diff, the targets
//! with the evidence for each verdict, the hidden tests' results, and the trajectory as a
//! step list (each action's command, what it showed and printed, the steps that showed a
//! target flagged).

use std::collections::{BTreeMap, BTreeSet};

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use super::case_nav::{CaseNav, CaseOrigin};
use super::case_study::CaseStudy;
use crate::api::{self, Target, TurnDetail};
use crate::components::diff_view::DiffView;
use crate::components::loaded::loaded;
use crate::components::score::{COLUMNS, ScoreCell, score_headers, score_text};
use crate::components::source_view::{LineMark, SourceView};
use wheelwright_core::api::TurnObservations;
use wheelwright_core::present::markdown::markdown_html;
use wheelwright_core::python::references::UseRule;
use wheelwright_core::trajectory::{ActionRecord, Observation, Rejected};

/// The longest command an actions row shows (the whole one is its tooltip).
const ROW_COMMAND_CHARS: usize = 160;

/// A dotted name that may wrap after each dot, never inside a name.
fn dotted(name: &str) -> impl IntoView + use<> {
    let parts: Vec<String> = name.split('.').map(str::to_owned).collect();
    let last = parts.len().saturating_sub(1);
    parts
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            if i < last {
                view! { {part} "." <wbr /> }.into_any()
            } else {
                view! { {part} }.into_any()
            }
        })
        .collect_view()
}

fn flag(value: Option<bool>, yes: &'static str, no: &'static str) -> impl IntoView + use<> {
    match value {
        Some(true) => view! { <span class="flag yes">{yes}</span> }.into_any(),
        Some(false) => view! { <span class="flag no">{no}</span> }.into_any(),
        None => view! { <span class="flag none" title="not measured">"—"</span> }.into_any(),
    }
}

/// The re-implementation cell: the verdict and its evidence.
fn evidence(target: &Target) -> impl IntoView + use<> {
    let Some(r) = target.reimplementation.clone() else {
        let why = if target.referenced {
            "reused, so not re-implemented"
        } else {
            "unknown target"
        };
        return view! { <span class="muted">{why}</span> }.into_any();
    };
    let share = r
        .share
        .map_or_else(|| "—".to_owned(), |s| format!("{:.0}%", 100.0 * s));
    let callees = r
        .callees
        .iter()
        .map(|c| {
            let matched = r.matched.contains(c);
            view! { <code class="callee" class:matched=matched>{c.clone()}</code> " " }
        })
        .collect_view();
    let summary = if r.callees.is_empty() {
        "calls nothing, so cannot be re-implemented".to_owned()
    } else {
        format!(
            "the submission calls {} of its {} callees ({share})",
            r.matched.len(),
            r.callees.len()
        )
    };
    view! {
        <div class="evidence">
            <span class="muted">{summary}</span>
            <div class="callees">{callees}</div>
        </div>
    }
    .into_any()
}

/// Where the file uses a reused target: each use's line and the import binding it.
fn uses(target: &Target) -> Option<impl IntoView + use<>> {
    (!target.uses.is_empty()).then(|| {
        let sites: Vec<String> = target
            .uses
            .iter()
            .map(|u| {
                let how = match u.rule {
                    UseRule::Name => "",
                    UseRule::Constructed => ", on an object it constructs",
                    UseRule::Super => ", through super()",
                    UseRule::Member => ", as a member of an imported class",
                };
                match u.import_line {
                    Some(import) => format!("line {} (import on line {import}{how})", u.line),
                    None => format!("line {}{how}", u.line),
                }
            })
            .collect();
        view! { <div class="muted why">{sites.join("; ")}</div> }
    })
}

/// What made a target recalled: the actions that showed its definition's lines. A
/// repository target's definition links to the repository's source at its first line; a
/// target the agent wrote earlier links to the previous turn's case.
fn recalled_by(
    target: &Target,
    detail: &TurnDetail,
    nav: &CaseNav,
) -> Option<impl IntoView + use<>> {
    let definition = target.definition.as_ref()?;
    let spans: Vec<String> = definition
        .spans
        .iter()
        .map(|(a, b)| format!("{a}-{b}"))
        .collect();
    let text = format!("{}:{}", definition.path, spans.join(","));
    let first = definition.spans.first().copied();
    let href = if target.kind == "repo" {
        api::source_page(&nav.dataset.0, &nav.dataset.1, &definition.path, first)
    } else {
        format!(
            "{}#submission",
            nav.turn_href(&detail.chain, (detail.turn - 1).max(1))
        )
    };
    let place = view! { <a class="definition" href=href><code>{text}</code></a> };
    let actions = target
        .recalled_by
        .iter()
        .map(|i| view! { " " <a href=format!("#action-{i}")>{format!("#{i}")}</a> })
        .collect_view();
    let by = (!target.recalled_by.is_empty()).then(|| view! { " shown by" {actions} });
    Some(view! { <div class="muted why">{place}{by}</div> })
}

fn targets_table(detail: &TurnDetail, nav: &CaseNav) -> impl IntoView + use<> {
    let rows = detail
        .targets
        .iter()
        .map(|t| {
            let canonical = t
                .canonical
                .clone()
                .filter(|c| *c != t.target)
                .map(|c| view! { <div class="muted canonical">"→ " <code>{c}</code></div> });
            // The target's definition: in the repository's source (where the scorer found
            // it, or found by its name in the browser), or in the agent's earlier file.
            let href = match (&t.definition, t.kind.as_str()) {
                (Some(d), "repo") => api::source_page(
                    &nav.dataset.0,
                    &nav.dataset.1,
                    &d.path,
                    d.spans.first().copied(),
                ),
                (None, "repo") => api::definition_page(
                    &nav.dataset.0,
                    &nav.dataset.1,
                    t.canonical.as_deref().unwrap_or(&t.target),
                ),
                _ => format!(
                    "{}#submission",
                    nav.turn_href(&detail.chain, (detail.turn - 1).max(1))
                ),
            };
            let title = if t.kind == "repo" {
                "its definition in the repository"
            } else {
                "the agent's earlier file"
            };
            let reimplemented = t.reimplementation.as_ref().map(|r| r.reimplemented);
            view! {
                <tr class="target-row" data-target=t.target.clone()>
                    <td><span class=format!("badge kind {}", t.kind)>{t.kind.clone()}</span></td>
                    <td class="target-name">
                        <a class="definition" href=href title=title><code>{dotted(&t.target)}</code></a>
                        {canonical}
                    </td>
                    <td class="reused">{flag(Some(t.referenced), "reused", "not reused")}{uses(t)}</td>
                    <td class="recalled">{flag(t.recalled, "recalled", "not recalled")}{recalled_by(t, detail, nav)}</td>
                    <td class="reimplemented">
                        {match reimplemented {
                            Some(true) => view! { <span class="flag bad">"re-implemented"</span> }.into_any(),
                            Some(false) => view! { <span class="flag no">"no"</span> }.into_any(),
                            None => view! { <span class="flag none">"—"</span> }.into_any(),
                        }}
                    </td>
                    <td>{evidence(t)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table class="data targets" id="targets">
                <thead>
                    <tr>
                        <th>"kind"</th>
                        <th>"target"</th>
                        <th>"reused"</th>
                        <th>"recalled"</th>
                        <th>"re-implemented"</th>
                        <th>"evidence"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// The lines of the agent's file that use a target, each titled with what it uses.
fn use_marks(detail: &TurnDetail) -> BTreeMap<u32, LineMark> {
    let mut used: BTreeMap<u32, BTreeSet<&str>> = BTreeMap::new();
    for target in &detail.targets {
        for site in &target.uses {
            used.entry(site.line).or_default().insert(&target.target);
        }
    }
    used.into_iter()
        .map(|(line, targets)| {
            let names: Vec<&str> = targets.into_iter().collect();
            let mark = LineMark {
                class: "uses",
                title: format!("uses {}", names.join(", ")),
            };
            (line, mark)
        })
        .collect()
}

fn files(detail: &TurnDetail) -> impl IntoView + use<> {
    let reference = detail.reference.text.clone().unwrap_or_default();
    let submission = detail.submission.text.clone();
    let marks = use_marks(detail);
    let uses_note = (!marks.is_empty()).then(|| {
        view! {
            <p class="muted">
                <span class="legend uses"></span>
                {format!(" {} lines of the agent's file use a target (hover one to see which).", marks.len())}
            </p>
        }
    });
    let cut = truncated_note(detail, &detail.submission);
    let left = match submission.clone() {
        Some(text) => {
            view! { {cut} <SourceView text=text marks=marks anchor="submission" /> }.into_any()
        }
        None => view! {
            <p class="missing-file">"The agent left no file at this path."</p>
        }
        .into_any(),
    };
    let diff = submission.map(|text| {
        view! {
            <h2>"Diff against the reference"</h2>
            <DiffView old=reference.clone() new=text />
        }
    });
    view! {
        {uses_note}
        <div class="side-by-side">
            <div class="file" id="submission">
                <h3>"The agent's file " <code>{detail.submission.path.clone()}</code></h3>
                {left}
            </div>
            <div class="file" id="reference">
                <h3>"Reference " <code>{detail.reference.path.clone()}</code></h3>
                <SourceView text=reference.clone() anchor="reference" />
            </div>
        </div>
        {diff}
    }
}

/// For a file the case shows only the beginning of: how much, and a link to all of it.
fn truncated_note(detail: &TurnDetail, file: &api::SourceFile) -> Option<impl IntoView + use<>> {
    file.truncated.then(|| {
        let shown = file.text.as_ref().map_or(0, String::len);
        let href = api::file_url(detail.run, &detail.chain, detail.turn, &file.path);
        view! {
            <p class="muted truncated">
                {format!("The first {shown} of {} bytes. ", file.bytes)}
                <a href=href target="_blank" rel="noopener">"The whole file"</a>
            </p>
        }
    })
}

fn trajectory(detail: &TurnDetail, nav: &CaseNav) -> impl IntoView + use<> {
    let t = &detail.trajectory;
    if !t.present {
        return view! {
            <p class="muted" id="trajectory">
                "No trajectory was submitted for this turn, so files, lines and recall are undefined."
            </p>
        }
        .into_any();
    }
    let counts = t
        .counts
        .map(|c| {
            [
                ("actions", c.actions),
                ("rejected responses", c.rejected_responses),
                ("uninterpreted", c.uninterpreted),
            ]
        })
        .into_iter()
        .flatten()
        .map(|(k, v)| view! { <dt>{k}</dt><dd>{v}</dd> })
        .collect_view();
    let measures = [
        ("files touched", "files", t.files),
        ("lines viewed", "lines", t.lines),
        ("recall repo", "recall_repo", t.recall_repo),
        ("recall self", "recall_self", t.recall_self),
    ]
    .into_iter()
    .map(|(label, column, score)| {
        let text = score_text(column, score.as_ref());
        let reason = score.as_ref().and_then(api::reason).unwrap_or_default();
        view! { <dt>{label}</dt><dd title=reason>{text}</dd> }
    })
    .collect_view();
    // Which targets' definitions each action showed (what made them recalled).
    let mut showed: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for target in &detail.targets {
        for &action in &target.recalled_by {
            showed
                .entry(action)
                .or_default()
                .push(target.target.clone());
        }
    }
    let observations: Signal<Option<Result<TurnObservations, String>>> = match &nav.origin {
        CaseOrigin::Stored(run) => {
            let (run, chain, turn) = (*run, detail.chain.clone(), detail.turn);
            let loaded = LocalResource::new(move || {
                let chain = chain.clone();
                async move { api::observations(run, &chain, turn).await }
            });
            Signal::derive(move || loaded.get().map(|r| r.map_err(|e| e.to_string())))
        }
        CaseOrigin::Local { observations, .. } => Signal::stored(
            observations
                .clone()
                .map(Ok)
                .or_else(|| Some(Err("the bundle has no trajectory for this turn".to_owned()))),
        ),
    };
    let steps = (!t.actions.is_empty()).then(|| {
        view! {
            <Steps
                actions=t.actions.clone()
                rejected=t.rejected.clone()
                showed=showed
                observations=observations
            />
        }
    });
    view! {
        <dl class="meta" id="trajectory">
            <dt>"size"</dt>
            <dd>{format!("{} bytes", t.bytes)}</dd>
            {measures}
            {counts}
        </dl>
        <p class="muted">
            "Each action as the scorer read it (spec D10–D14): what it counts as, the lines it "
            "showed per file, and, when it was not understood, why (it then showed nothing). "
            "Open a step to see what it printed; a step's number links to it."
        </p>
        {steps}
    }
    .into_any()
}

/// What a step list shows: every step, one category, the steps that showed a target, or
/// the ones not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
enum StepFilter {
    All,
    Category(String),
    ShowedTarget,
    NotUnderstood,
}

impl StepFilter {
    fn parse(value: &str) -> Self {
        match value {
            "" | "all" => Self::All,
            "targets" => Self::ShowedTarget,
            "not-understood" => Self::NotUnderstood,
            other => Self::Category(other.to_owned()),
        }
    }
}

/// A serialised enum's name (`read`, `navigate`).
fn name_of(value: impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// One step: its number (a permalink), kind, category, command, what it showed, the targets
/// it showed, and its output folded.
fn step(
    action: &ActionRecord,
    showed: Option<&Vec<String>>,
    filter: RwSignal<StepFilter>,
    observations: Signal<Option<Result<TurnObservations, String>>>,
) -> AnyView {
    let kind = name_of(action.kind);
    let category = name_of(action.category);
    let full = action.command.clone();
    let short = match full.char_indices().nth(ROW_COMMAND_CHARS) {
        Some((at, _)) => format!("{}…", &full[..at]),
        None => full.clone(),
    };
    let shown = action.shown.describe().join(" ");
    let counted: Vec<&str> = action
        .files
        .iter()
        .filter(|f| action.shown.lines(f).is_none())
        .map(String::as_str)
        .collect();
    let counted = (!counted.is_empty()).then(|| {
        view! { <div class="muted">{format!("files: {}", counted.join(", "))}</div> }
    });
    let why = action.not_understood.as_ref().map(|reason| {
        view! { <div class="flag bad">{format!("not understood: {reason}")}</div> }
    });
    let ambiguous = action.ambiguous.then(|| {
        view! { <div class="muted">"several commands printed here; each got the union of the lines"</div> }
    });
    let targets = showed.cloned().unwrap_or_default();
    let flagged = !targets.is_empty();
    let target_flag = flagged.then(|| {
        view! {
            <div class="flag yes showed-target">
                {format!("showed the definition of {}", targets.join(", "))}
            </div>
        }
    });
    let shown_line =
        (!shown.is_empty()).then(|| view! { <div class="shown"><code>{shown}</code></div> });
    let not_understood = action.not_understood.is_some();
    let hidden = {
        let category = category.clone();
        move || match filter.get() {
            StepFilter::All => false,
            StepFilter::Category(c) => c != category,
            StepFilter::ShowedTarget => !flagged,
            StepFilter::NotUnderstood => !not_understood,
        }
    };
    let index = action.index;
    let output = move || match observations.get() {
        None => view! { <p class="muted">"Loading…"</p> }.into_any(),
        Some(Err(e)) => view! { <p class="muted">{format!("Not available: {e}")}</p> }.into_any(),
        Some(Ok(all)) => match all.observations.get(index - 1) {
            Some(o) => observation(o).into_any(),
            None => view! { <p class="muted">"The trajectory has no output for this step."</p> }
                .into_any(),
        },
    };
    view! {
        <li
            class="step"
            id=format!("action-{index}")
            data-category=category.clone()
            class:flagged=flagged
            class:not-understood=not_understood
            class:hidden=hidden
        >
            <div class="step-head">
                <a class="step-number" href=format!("#action-{index}") title="a link to this step">
                    {format!("#{index}")}
                </a>
                <span class="badge kind">{kind}</span>
                <span class=format!("badge category {category}")>{category.clone()}</span>
                <code class="command" title=full>{short}</code>
            </div>
            {target_flag}
            {shown_line}
            {counted}
            {why}
            {ambiguous}
            <details class="observation">
                <summary>"output"</summary>
                {output}
            </details>
        </li>
    }
    .into_any()
}

/// What one step printed: its exit code, size, and the text (cut, as the server sends it).
fn observation(o: &Observation) -> impl IntoView + use<> {
    let mut facts = vec![format!("{} bytes", o.bytes)];
    if let Some(code) = o.returncode {
        facts.push(format!("exit code {code}"));
    }
    if o.elided {
        facts.push("the harness elided part of it".to_owned());
    }
    if o.timed_out {
        facts.push("timed out".to_owned());
    }
    let text = match &o.output {
        Some(text) if !text.is_empty() => {
            view! { <pre class="output">{text.clone()}</pre> }.into_any()
        }
        Some(_) => view! { <p class="muted">"(printed nothing)"</p> }.into_any(),
        None => view! { <p class="muted">"(no output recorded)"</p> }.into_any(),
    };
    view! {
        <div class="muted">{facts.join(" · ")}</div>
        {text}
    }
}

/// The trajectory as a list of steps, with a filter. Steps off screen are not laid out
/// (`content-visibility: auto` in the style sheet), so a list of hundreds scrolls smoothly;
/// outputs are folded until opened.
#[component]
fn Steps(
    actions: Vec<ActionRecord>,
    rejected: Vec<Rejected>,
    showed: BTreeMap<usize, Vec<String>>,
    observations: Signal<Option<Result<TurnObservations, String>>>,
) -> impl IntoView {
    let filter = RwSignal::new(StepFilter::All);
    let mut categories: BTreeMap<String, usize> = BTreeMap::new();
    for action in &actions {
        *categories.entry(name_of(action.category)).or_default() += 1;
    }
    let flagged = actions
        .iter()
        .filter(|a| showed.contains_key(&a.index))
        .count();
    let not_understood = actions
        .iter()
        .filter(|a| a.not_understood.is_some())
        .count();
    let options = categories
        .into_iter()
        .map(|(c, n)| view! { <option value=c.clone()>{format!("{c} ({n})")}</option> })
        .collect_view();
    let mut items = Vec::new();
    let mut pending = rejected.iter().peekable();
    let rejected_item = |r: &Rejected| {
        view! {
            <li class="step rejected muted">
                {format!("a response the harness rejected (message {}): it ran nothing", r.message)}
            </li>
        }
        .into_any()
    };
    for action in &actions {
        while let Some(r) = pending.next_if(|r| r.after_action < action.index) {
            items.push(rejected_item(r));
        }
        items.push(step(
            action,
            showed.get(&action.index),
            filter,
            observations,
        ));
    }
    items.extend(pending.map(rejected_item));
    let total = actions.len();
    view! {
        <div class="step-filter">
            <label>
                "Show "
                <select
                    id="step-filter"
                    on:change=move |ev| filter.set(StepFilter::parse(&event_target_value(&ev)))
                >
                    <option value="all">{format!("every step ({total})")}</option>
                    <option value="targets">{format!("steps that showed a target ({flagged})")}</option>
                    <option value="not-understood">{format!("steps not understood ({not_understood})")}</option>
                    {options}
                </select>
            </label>
        </div>
        <ol class="steps" id="steps">{items}</ol>
    }
}

/// A case study of each target the turn re-implemented, as the paper's figures show them.
fn case_studies(detail: &TurnDetail, nav: &CaseNav) -> Option<impl IntoView + use<>> {
    let studies: Vec<_> = detail
        .targets
        .iter()
        .filter(|t| t.reimplementation.as_ref().is_some_and(|r| r.reimplemented))
        .map(|t| {
            view! { <CaseStudy target=t.clone() detail=detail.clone() nav=nav.clone() /> }
        })
        .collect();
    (!studies.is_empty()).then(|| {
        view! {
            <h2 id="case-studies">"Case studies"</h2>
            <p class="muted">
                "Each re-implemented target's definition beside this turn's code; the callees "
                "both call are marked."
            </p>
            {studies}
        }
    })
}

/// The chain's turns as a strip: the previous and next turn, and every turn by number.
fn chain_strip(detail: &TurnDetail, nav: &CaseNav) -> impl IntoView + use<> {
    let turns = (1..=nav.turn_count)
        .map(|n| {
            let current = n == detail.turn;
            view! {
                <a
                    href=nav.turn_href(&detail.chain, n)
                    class="strip-turn"
                    class:current=current
                    aria-current=current.then_some("page")
                >
                    {n}
                </a>
            }
        })
        .collect_view();
    let link = |n: i64, id: &'static str, text: &'static str| {
        if (1..=nav.turn_count).contains(&n) {
            view! { <a id=id href=nav.turn_href(&detail.chain, n) class="strip-step">{text}</a> }
                .into_any()
        } else {
            view! { <span class="strip-step muted">{text}</span> }.into_any()
        }
    };
    view! {
        <nav class="chain-strip" aria-label="the chain's turns">
            {link(detail.turn - 1, "prev-turn", "← previous")}
            <span class="muted">{format!("chain {}:", detail.chain)}</span>
            {turns}
            {link(detail.turn + 1, "next-turn", "next →")}
            <span class="muted keys">"keys: j next, k previous"</span>
        </nav>
    }
}

/// `j` and `k` move to the next and previous turn of the chain (not while typing).
///
/// A case drawn by a request that a newer one replaced may keep its listener until its
/// owner is cleaned up, so each listener acts only while its own case is the page's.
fn turn_keys(detail: &TurnDetail, nav: &CaseNav) {
    let own = nav.turn_href(&detail.chain, detail.turn);
    let next =
        (detail.turn < nav.turn_count).then(|| nav.turn_href(&detail.chain, detail.turn + 1));
    let prev = (detail.turn > 1).then(|| nav.turn_href(&detail.chain, detail.turn - 1));
    let navigate = use_navigate();
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let typing = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        let shown = window().location().pathname().unwrap_or_default();
        if typing || shown != own {
            return;
        }
        let to = match ev.key().as_str() {
            "j" => next.as_deref(),
            "k" => prev.as_deref(),
            _ => None,
        };
        if let Some(href) = to {
            navigate(href, Default::default());
        }
    });
    on_cleanup(move || handle.remove());
}

/// Scrolls to the element the URL's fragment names (a step's or a line's permalink) once
/// the case is drawn: the browser looked for it at load, before the case arrived.
fn scroll_to_hash() {
    let hash = window().location().hash().unwrap_or_default();
    let Some(id) = hash.strip_prefix('#').filter(|id| !id.is_empty()) else {
        return;
    };
    settle_on(id.to_owned(), MAX_SETTLE_FRAMES, None, 0);
}

/// Frames the permalink's target must hold still before scrolling stops.
const STABLE_FRAMES: u32 = 10;
/// Frames after which scrolling to the target stops whatever happens (about 3 s).
const MAX_SETTLE_FRAMES: u32 = 180;

/// Scrolls `id` into view in each frame until it has held still for [`STABLE_FRAMES`]
/// frames (at most `frames` more): steps off screen are laid out at an estimated height
/// (`content-visibility: auto`), and parts of the page that arrive later (the hidden-test
/// results) move it, so one scroll, or a fixed few, can leave it off screen on a slow
/// device.
fn settle_on(id: String, frames: u32, last_top: Option<f64>, stable: u32) {
    request_animation_frame(move || {
        let Some(el) = document().get_element_by_id(&id) else {
            if frames > 0 {
                settle_on(id, frames - 1, None, 0);
            }
            return;
        };
        el.scroll_into_view();
        let top = el.get_bounding_client_rect().top();
        let stable = match last_top {
            Some(last) if (last - top).abs() < 1.0 => stable + 1,
            _ => 0,
        };
        if frames > 0 && stable < STABLE_FRAMES {
            settle_on(id, frames - 1, Some(top), stable);
        }
    });
}

/// The turn's hidden-test results, for a stored run whose tests have run.
#[component]
fn TurnTestResults(run: i64, chain: String, turn: i64) -> impl IntoView {
    let tests = LocalResource::new(move || api::run_tests(run));
    let render = move |results: Option<api::RunTests>| {
        let Some(results) = results else {
            return view! {
                <p class="muted" id="turn-tests">"The hidden tests have not been run for this run."</p>
            }
            .into_any();
        };
        let summary = results
            .turns
            .iter()
            .find(|t| t.chain == chain && t.turn == turn)
            .map(|t| {
                let tampered = t
                    .tampered
                    .clone()
                    .map(|what| format!(" · tampered with: {what}"))
                    .unwrap_or_default();
                format!(
                    "{} of {} passed in {:.1} s{tampered}",
                    t.passed, t.total, t.duration_s
                )
            });
        let rows = results
            .tests
            .iter()
            .filter(|t| t.chain == chain && t.turn == turn)
            .map(|t| {
                let passed = t.outcome == "passed";
                view! {
                    <tr>
                        <td><code>{format!("{}::{}", t.module, t.name)}</code></td>
                        <td>
                            <span class="flag" class:yes=passed class:bad=!passed>{t.outcome.clone()}</span>
                        </td>
                        <td class="num">{format!("{:.2} s", t.duration_s)}</td>
                    </tr>
                }
            })
            .collect_view();
        match summary {
            None => view! {
                <p class="muted" id="turn-tests">
                    {format!("No results for this turn yet (the run's tests are {}).", results.progress.state)}
                </p>
            }
            .into_any(),
            Some(summary) => view! {
                <p id="turn-tests">{summary}</p>
                <div class="table-scroll">
                    <table class="data tests" id="turn-test-table">
                        <thead><tr><th>"test"</th><th>"outcome"</th><th class="num">"time"</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }
            .into_any(),
        }
    };
    loaded(tests, render)
}

/// A turn's case: the chain strip, scores, requirement, files and their diff, targets,
/// hidden tests and trajectory. The same for a stored run's turn and one scored in the
/// browser (whose files are never cut short, and which has no hidden-test results).
pub(crate) fn case_content(detail: TurnDetail, nav: CaseNav) -> AnyView {
    turn_keys(&detail, &nav);
    scroll_to_hash();
    let scores = COLUMNS
        .iter()
        .map(|c| view! { <ScoreCell column=c score=detail.scores.columns.get(c).copied() /> })
        .collect_view();
    let unknown = (!detail.unknown_targets.is_empty()).then(|| {
        let names = detail
            .unknown_targets
            .iter()
            .map(|u| view! { <code>{u.clone()}</code> " " })
            .collect_view();
        view! {
            <p class="warning">
                "Targets that name no definition in the repository (not counted): " {names}
            </p>
        }
    });
    let others = detail
        .other_files
        .iter()
        .map(|f| {
            let text = f.text.clone().unwrap_or_default();
            let cut = truncated_note(&detail, f);
            view! {
                <details class="other-file">
                    <summary><code>{f.path.clone()}</code></summary>
                    {cut}
                    <SourceView text=text />
                </details>
            }
        })
        .collect_view();
    let unlisted = usize::try_from(detail.other_file_count)
        .unwrap_or(0)
        .saturating_sub(detail.other_files.len());
    let unlisted = (unlisted > 0).then(|| {
        let href = format!(
            "/api/v1/runs/{}/chains/{}/turns/{}/files?limit=1000",
            detail.run,
            js_sys::encode_uri_component(&detail.chain),
            detail.turn
        );
        view! {
            <p class="muted">
                {format!("and {unlisted} more files, not shown here: ")}
                <a href=href>"the list of all of them"</a>
            </p>
        }
    });
    let others = (!detail.other_files.is_empty()).then(|| {
        view! {
            <h2>"Other files the agent left"</h2>
            {others}
            {unlisted}
        }
    });
    let tests = match &nav.origin {
        CaseOrigin::Stored(run) => view! {
            <TurnTestResults run=*run chain=detail.chain.clone() turn=detail.turn />
        }
        .into_any(),
        CaseOrigin::Local { .. } => view! {
            <p class="muted" id="turn-tests">
                "Hidden tests run only on the server, once the run is submitted."
            </p>
        }
        .into_any(),
    };
    let badges = match &nav.origin {
        CaseOrigin::Stored(run) => {
            format!("run {run} · chain {} · turn {}", detail.chain, detail.turn)
        }
        CaseOrigin::Local { .. } => format!("chain {} · turn {}", detail.chain, detail.turn),
    };
    view! {
        {chain_strip(&detail, &nav)}
        <header class="run-head">
            <h1>{detail.title.clone()}</h1>
            <div class="run-badges muted">{badges}</div>
        </header>
        <div class="table-scroll">
            <table class="data" id="turn-scores">
                <thead><tr>{score_headers()}</tr></thead>
                <tbody><tr>{scores}</tr></tbody>
            </table>
        </div>
        <h2>"Requirement"</h2>
        // Core's Markdown renderer turns raw HTML into text and drops unsafe links.
        <div class="requirement markdown" id="requirement" inner_html=markdown_html(&detail.requirement)></div>
        <h2>"Files"</h2>
        {files(&detail)}
        {others}
        <h2>"Targets"</h2>
        <p class="muted">
            "Reused: the file references the target. Recalled: the agent was shown the "
            "target's lines. Re-implemented: not reused, yet the file calls at least 80% of "
            "the target's (3 or more) callees; matched callees are highlighted."
        </p>
        {targets_table(&detail, &nav)}
        {unknown}
        {case_studies(&detail, &nav)}
        <h2>"Hidden tests"</h2>
        {tests}
        <h2>"Trajectory"</h2>
        {trajectory(&detail, &nav)}
    }
    .into_any()
}
