//! The case of one turn: the requirement, the agent's file beside the reference (lines one
//! has and the other lacks are marked), the targets with the evidence for each verdict
//! (where the file uses each, which actions showed it), and the trajectory action by action.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::{self, ApiError, Target, TurnDetail};
use crate::components::loaded::loaded;
use crate::components::score::{COLUMNS, ScoreCell, score_headers, score_text};
use crate::components::source_view::{SourceView, changed_lines};
use wheelwright_core::python::references::UseRule;
use wheelwright_core::trajectory::{ActionRecord, Rejected};

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

/// What made a target recalled: the actions that showed its definition's lines.
fn recalled_by(target: &Target) -> Option<impl IntoView + use<>> {
    let definition = target.definition.as_ref()?;
    let spans: Vec<String> = definition
        .spans
        .iter()
        .map(|(a, b)| format!("{a}-{b}"))
        .collect();
    let place = format!("{}:{}", definition.path, spans.join(","));
    let actions = target
        .recalled_by
        .iter()
        .map(|i| view! { " " <a href=format!("#action-{i}")>{format!("#{i}")}</a> })
        .collect_view();
    let by = (!target.recalled_by.is_empty()).then(|| view! { " shown by" {actions} });
    Some(view! { <div class="muted why"><code>{place}</code>{by}</div> })
}

fn targets_table(detail: &TurnDetail) -> impl IntoView + use<> {
    let rows = detail
        .targets
        .iter()
        .map(|t| {
            let canonical = t
                .canonical
                .clone()
                .filter(|c| *c != t.target)
                .map(|c| view! { <div class="muted canonical">"→ " <code>{c}</code></div> });
            let reimplemented = t.reimplementation.as_ref().map(|r| r.reimplemented);
            view! {
                <tr class="target-row" data-target=t.target.clone()>
                    <td><span class=format!("badge kind {}", t.kind)>{t.kind.clone()}</span></td>
                    <td class="target-name"><code>{dotted(&t.target)}</code>{canonical}</td>
                    <td class="reused">{flag(Some(t.referenced), "reused", "not reused")}{uses(t)}</td>
                    <td class="recalled">{flag(t.recalled, "recalled", "not recalled")}{recalled_by(t)}</td>
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

fn files(detail: &TurnDetail) -> impl IntoView + use<> {
    let reference = detail.reference.text.clone().unwrap_or_default();
    let submission = detail.submission.text.clone();
    let marks = submission
        .as_deref()
        .and_then(|s| changed_lines(s, &reference));
    let (mine, theirs) = marks.unwrap_or_default();
    let changed = mine.iter().filter(|m| **m).count();
    let missing = theirs.iter().filter(|m| **m).count();
    let diff_note = submission.as_ref().map(|_| {
        if changed == 0 && missing == 0 {
            "The agent's file is the reference, line for line.".to_owned()
        } else {
            format!(
                "Marked: {changed} lines only the agent's file has, {missing} only the reference has."
            )
        }
    });
    let cut = truncated_note(detail, &detail.submission);
    let left = match submission {
        Some(text) => view! { {cut} <SourceView text=text marked=mine mark="added" /> }.into_any(),
        None => view! {
            <p class="missing-file">"The agent left no file at this path."</p>
        }
        .into_any(),
    };
    view! {
        <p class="muted">{diff_note}</p>
        <div class="side-by-side">
            <div class="file" id="submission">
                <h3>"The agent's file " <code>{detail.submission.path.clone()}</code></h3>
                {left}
            </div>
            <div class="file" id="reference">
                <h3>"Reference " <code>{detail.reference.path.clone()}</code></h3>
                <SourceView text=reference marked=theirs mark="removed" />
            </div>
        </div>
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

fn trajectory(detail: &TurnDetail) -> impl IntoView + use<> {
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
        .clone()
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| {
            let v = match v {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            view! { <dt>{k.replace('_', " ")}</dt><dd>{v}</dd> }
        })
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
    let actions = (!t.actions.is_empty()).then(|| actions_table(&t.actions, &t.rejected));
    view! {
        <dl class="meta" id="trajectory">
            <dt>"size"</dt>
            <dd>{format!("{} bytes", t.bytes)}</dd>
            {measures}
            {counts}
        </dl>
        <p class="muted">
            "Each action as the scorer read it (spec D10–D14): what it counts as, the lines it "
            "showed per file, and, when it was not understood, why (it then showed nothing)."
        </p>
        {actions}
    }
    .into_any()
}

/// One row of the actions table.
fn action_row(action: &ActionRecord) -> impl IntoView + use<> {
    let name = |v: serde_json::Value| v.as_str().unwrap_or_default().to_owned();
    let kind = name(serde_json::to_value(action.kind).unwrap_or_default());
    let category = name(serde_json::to_value(action.category).unwrap_or_default());
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
    view! {
        <tr id=format!("action-{}", action.index) class:not-understood=action.not_understood.is_some()>
            <td class="num">{action.index}</td>
            <td>{kind}</td>
            <td>{category}</td>
            <td class="command"><code title=full>{short}</code></td>
            <td class="shown"><code>{shown}</code>{counted}{why}{ambiguous}</td>
        </tr>
    }
}

fn actions_table(actions: &[ActionRecord], rejected: &[Rejected]) -> impl IntoView + use<> {
    let mut rows = Vec::new();
    let mut pending = rejected.iter().peekable();
    let rejected_row = |r: &Rejected| {
        view! {
            <tr class="rejected">
                <td></td>
                <td colspan="4" class="muted">
                    {format!("a response the harness rejected (message {}): it ran nothing", r.message)}
                </td>
            </tr>
        }
        .into_any()
    };
    for action in actions {
        while let Some(r) = pending.next_if(|r| r.after_action < action.index) {
            rows.push(rejected_row(r));
        }
        rows.push(action_row(action).into_any());
    }
    rows.extend(pending.map(rejected_row));
    view! {
        <div class="table-scroll">
            <table class="data actions" id="actions">
                <thead>
                    <tr>
                        <th class="num">"#"</th>
                        <th>"kind"</th>
                        <th>"category"</th>
                        <th>"command"</th>
                        <th>"lines shown, files counted"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// A turn's case: its scores, requirement, files, targets and trajectory. The same for a
/// stored run's turn and one scored in the browser (whose files are never cut short).
pub(crate) fn case_content(detail: TurnDetail) -> AnyView {
    let scores = COLUMNS
        .iter()
        .map(|c| view! { <ScoreCell column=c score=api::score_of(&detail.scores, c) /> })
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
    view! {
        <header class="run-head">
            <h1>{detail.title.clone()}</h1>
            <div class="run-badges muted">
                {format!("run {} · chain {} · turn {}", detail.run, detail.chain, detail.turn)}
            </div>
        </header>
        <div class="table-scroll">
            <table class="data" id="turn-scores">
                <thead><tr>{score_headers()}</tr></thead>
                <tbody><tr>{scores}</tr></tbody>
            </table>
        </div>
        <h2>"Requirement"</h2>
        <pre class="requirement" id="requirement">{detail.requirement.clone()}</pre>
        <h2>"Files"</h2>
        {files(&detail)}
        {others}
        <h2>"Targets"</h2>
        <p class="muted">
            "Reused: the file references the target. Recalled: the agent was shown the "
            "target's lines. Re-implemented: not reused, yet the file calls at least 80% of "
            "the target's (3 or more) callees; matched callees are highlighted."
        </p>
        {targets_table(&detail)}
        {unknown}
        <h2>"Trajectory"</h2>
        {trajectory(&detail)}
    }
    .into_any()
}

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
    // Keyed by the URL: moving to another turn starts a new request, and only the latest
    // one's reply is shown.
    let detail = LocalResource::new(move || {
        let key = key.get();
        async move {
            match key {
                Some((id, chain, turn)) => api::turn(id, &chain, turn).await,
                None => Err(ApiError("no such turn".to_owned())),
            }
        }
    });
    let content = case_content;
    view! {
        <section class="case-page">
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

/// A turn's case of the run scored in this page (`/submit/{chain}/{turn}`), from the
/// browser's own result: nothing is fetched but what the page already has.
#[component]
pub(crate) fn LocalCasePage() -> impl IntoView {
    let params = use_params_map();
    let slot = expect_context::<crate::pages::submit::LocalSlot>().0;
    let case = move || {
        let p = params.read();
        let chain = p.get("chain")?;
        let turn = p.get("turn")?.parse::<usize>().ok()?;
        let run = slot.get()?;
        Some((chain.clone(), turn, run.case(&chain, turn)))
    };
    view! {
        <section class="case-page">
            <nav class="breadcrumbs">
                <a href="/submit">"Submit"</a>
                " / "
                {move || case().map(|(chain, turn, _)| format!("{chain}, turn {turn}"))}
                " "
                <span class="badge origin local">"scored in your browser, not submitted"</span>
            </nav>
            {move || match case() {
                Some((_, _, Some(detail))) => case_content(detail),
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
