//! One RepoReuse run: its scores turn by turn, downloads, its hidden tests and the actions not understood.
//!
//! Its summary and overall row, the per-turn table grouped by chain (each turn
//! links to its case; the API sends turns a page at a time, so a long run shows more on
//! request), downloads, and its hidden tests: queue them and follow their progress live,
//! then see the pass and resolve rates they produce; and the report of the actions its
//! trajectories had that were not understood.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
use wheelwright_core::present::chart::{TurnSeries, turn_charts};
use wheelwright_core::present::test_groups::test_groups;

use super::runs::origin_badge;
use crate::api::{self, ApiError, Page, RunDetail, RunTests, TurnTableRow};
use crate::components::chart::LineChart;
use crate::components::hidden_tests::HiddenTestsControl;
use crate::components::loaded::loaded;
use crate::components::score::{COLUMNS, ScoreCell, score_headers};
use wheelwright_core::reporeuse::metrics::turn::SubmissionStatus;
use wheelwright_core::trajectory::UnparsedReport;

/// The turn rows loaded so far, and how many the run has.
type Turns = Option<Result<Page<TurnTableRow>, ApiError>>;

/// What the page loads at once: the run, the first page of its turns and its hidden tests.
#[derive(Clone)]
struct Loaded {
    run: RunDetail,
    turns: Result<Page<TurnTableRow>, ApiError>,
    tests: Option<RunTests>,
}

async fn load(id: Option<i64>) -> Result<Loaded, ApiError> {
    let id = id.ok_or_else(|| ApiError("no such run".to_owned()))?;
    let run = api::run(id).await?;
    let turns = api::turns(id, 0).await;
    let tests = api::run_tests(id).await.ok().flatten();
    Ok(Loaded { run, turns, tests })
}

/// Where a run's pages are: a stored run's under `/runs/{id}`, a run scored in the browser
/// (not submitted) under `/submit`. The same views show both, linked by this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunLinks {
    Stored(i64),
    Local,
}

impl RunLinks {
    /// The page of one turn's case.
    pub(crate) fn case(self, chain: &str, turn: impl std::fmt::Display) -> String {
        let chain = js_sys::encode_uri_component(chain);
        match self {
            Self::Stored(id) => format!("/runs/{id}/{chain}/{turn}"),
            Self::Local => format!("/submit/{chain}/{turn}"),
        }
    }
}

/// The run's report of unparsed actions (spec 1: counted, never silently dropped): how
/// many actions were not understood, by reason, with links to examples.
pub(crate) fn unparsed_report(
    links: RunLinks,
    report: Option<&UnparsedReport>,
) -> impl IntoView + use<> {
    let Some(report) = report else {
        return view! {
            <h2>"Actions not understood"</h2>
            <p class="muted" id="unparsed">"This run was scored before the report of unparsed actions was kept."</p>
        }
        .into_any();
    };
    let summary = format!(
        "{} of {} trajectory actions were not understood (they showed nothing); {} responses were rejected by the harness.",
        report.not_understood, report.actions, report.rejected_responses
    );
    let rows = report
        .reasons
        .iter()
        .map(|reason| {
            let examples = reason
                .examples
                .iter()
                .map(|e| {
                    let (chain, turn) = e.turn.rsplit_once("/turn-").unwrap_or((&e.turn, ""));
                    let href = format!("{}#action-{}", links.case(chain, turn), e.action);
                    view! {
                        <div><a href=href>{format!("{} #{}", e.turn, e.action)}</a> " " <code>{e.command.clone()}</code></div>
                    }
                })
                .collect_view();
            view! {
                <tr>
                    <td class="num">{reason.count}</td>
                    <td>{reason.message.clone()}</td>
                    <td class="examples">{examples}</td>
                </tr>
            }
        })
        .collect_view();
    let other = (report.other_reasons > 0).then(|| {
        view! { <tr><td class="num">{report.other_reasons}</td><td colspan="2">"other reasons"</td></tr> }
    });
    let table = (report.not_understood > 0).then(|| {
        view! {
            <div class="table-scroll">
                <table class="data unparsed">
                    <thead><tr><th class="num">"actions"</th><th>"why"</th><th>"examples"</th></tr></thead>
                    <tbody>{rows}{other}</tbody>
                </table>
            </div>
        }
    });
    view! {
        <h2>"Actions not understood"</h2>
        <div id="unparsed">
            <p class="muted">{summary}</p>
            {table}
        </div>
    }
    .into_any()
}

/// A run's head: its model, badge and label, what it was run with, its notes and
/// diagnostics, and its overall row.
pub(crate) fn run_summary(
    detail: &RunDetail,
    badge: AnyView,
    label: String,
) -> impl IntoView + use<> {
    let summary = &detail.summary;
    let overall = COLUMNS
        .iter()
        .map(|c| view! { <ScoreCell column=c score=summary.overall.get(*c).cloned() /> })
        .collect_view();
    let meta = [
        ("benchmark", summary.benchmark.clone()),
        (
            "dataset",
            format!("{} {}", summary.dataset_name, summary.dataset_version),
        ),
        ("harness", summary.harness.clone()),
        ("memory", summary.memory.clone()),
        ("run date", summary.run_date.clone()),
        (
            "size",
            format!(
                "{} chains, {} turns",
                summary.chain_count, summary.turn_count
            ),
        ),
        (
            "scorer",
            format!("{} · {}", summary.scorer_version, summary.grammar_version),
        ),
    ]
    .into_iter()
    .chain(summary.cost_usd.map(|c| ("cost", format!("${c:.2}"))))
    .map(|(k, v)| view! { <dt>{k}</dt><dd>{v}</dd> })
    .collect_view();
    let notes = summary
        .notes
        .clone()
        .map(|n| view! { <p class="muted notes">{n}</p> });
    let diagnostics = (!detail.diagnostics.is_empty()).then(|| {
        let items = detail
            .diagnostics
            .iter()
            .map(|d| {
                let text = d
                    .get("message")
                    .and_then(|m| m.as_str())
                    .map_or_else(|| d.to_string(), str::to_owned);
                view! { <li>{text}</li> }
            })
            .collect_view();
        view! {
            <details class="diagnostics">
                <summary>{format!("{} diagnostics", detail.diagnostics.len())}</summary>
                <ul>{items}</ul>
            </details>
        }
    });
    // T1..Tn of each column, averaged over the chains: one small chart per column.
    let series: TurnSeries = serde_json::from_value(detail.series.clone()).unwrap_or_default();
    let charts = turn_charts(&COLUMNS, &[(summary.model.clone(), series)])
        .into_iter()
        .map(|chart| view! { <LineChart chart compact=true /> })
        .collect_view();
    let model = summary.model.clone();
    view! {
        <header class="run-head">
            <h1>{model}</h1>
            <div class="run-badges">
                {badge}
                <span class="muted">{label}</span>
            </div>
        </header>
        <dl class="meta">{meta}</dl>
        {notes}
        {diagnostics}
        <h2>"Overall"</h2>
        <div class="table-scroll">
            <table class="data" id="overall">
                <thead><tr>{score_headers()}</tr></thead>
                <tbody><tr>{overall}</tr></tbody>
            </table>
        </div>
        <h2>"Per turn"</h2>
        <p class="muted">"Each column at turn 1, 2, …, averaged over the chains; hover a point for its value."</p>
        <div class="charts small" id="turn-charts">{charts}</div>
    }
}

/// Per turn, by (chain, turn): the hidden tests' passed and total, and whether the sandbox
/// found them tampered with.
pub(crate) type TurnTests = BTreeMap<(String, i64), (i64, i64, bool)>;

/// One turn's row of a turns table: its case link, file, scores, hidden tests (from
/// `turn_tests`) and what it re-implemented; `found` marks the turn a user looked for.
pub(crate) fn turn_row(
    links: RunLinks,
    row: &TurnTableRow,
    turn_tests: &TurnTests,
    found: bool,
) -> impl IntoView + use<> {
    let reimplemented = &row.reimplemented;
    let t = &row.row;
    let href = links.case(&t.chain, t.turn);
    let scores = COLUMNS
        .iter()
        .map(|c| {
            view! { <ScoreCell column=c score=t.columns.get(c).copied() /> }
        })
        .collect_view();
    let tested = turn_tests.get(&(t.chain.clone(), t.turn)).map_or_else(
        || "—".to_owned(),
        |(passed, total, tampered)| {
            if *tampered {
                format!("{passed}/{total} (tampered)")
            } else {
                format!("{passed}/{total}")
            }
        },
    );
    // Only an unusual submission gets a badge: missing, or broken.
    let status = if t.submission != SubmissionStatus::Present {
        Some(view! { <span class="badge missing">{t.submission.as_str()}</span> }.into_any())
    } else if t.syntax_errors {
        Some(view! { <span class="badge warn">"syntax errors"</span> }.into_any())
    } else {
        None
    };
    let reimplemented = reimplemented
        .iter()
        .map(|r| view! { <code>{r.clone()}</code> " " })
        .collect_view();
    view! {
        <tr class="turn-row" class:found=found data-chain=t.chain.clone() data-turn=t.turn>
            <td class="num"><a class="case-link" href=href>{format!("turn {}", t.turn)}</a></td>
            <td class="path"><code>{t.path.clone()}</code> {status}</td>
            {scores}
            <td class="num tests">{tested}</td>
            <td class="reimplemented">{reimplemented}</td>
        </tr>
    }
}

/// The head row of a chain's turns in a turns table: its name and how many turns it has.
pub(crate) fn chain_head(
    chain: &str,
    turn_counts: &BTreeMap<String, i64>,
    continued: bool,
) -> impl IntoView + use<> {
    let mut text = match turn_counts.get(chain) {
        Some(n) => format!("chain {chain} · {n} turns"),
        None => format!("chain {chain}"),
    };
    if continued {
        text.push_str(" (continued)");
    }
    view! {
        <tr class="chain-head">
            <th colspan="13">{text}</th>
        </tr>
    }
}

/// The header row of a turns table.
pub(crate) fn turns_header() -> impl IntoView + use<> {
    view! {
        <thead>
            <tr>
                <th>"case"</th>
                <th>"file"</th>
                {score_headers()}
                <th class="num">"tests"</th>
                <th>"re-implemented"</th>
            </tr>
        </thead>
    }
}

/// The turns table: `rows` grouped by chain (they come chain after chain, in order), each
/// turn linking to its case, with its scores and hidden tests.
pub(crate) fn turns_table(
    links: RunLinks,
    rows: Vec<TurnTableRow>,
    turn_counts: &BTreeMap<String, i64>,
    turn_tests: &TurnTests,
) -> impl IntoView + use<> {
    let mut groups: Vec<(String, Vec<TurnTableRow>)> = Vec::new();
    for row in rows {
        match groups.last_mut() {
            Some((chain, rows)) if *chain == row.row.chain => rows.push(row),
            _ => groups.push((row.row.chain.clone(), vec![row])),
        }
    }
    let chains = groups
        .into_iter()
        .map(|(chain, chain_turns)| {
            let rows = chain_turns
                .iter()
                .map(|t| turn_row(links, t, turn_tests, false))
                .collect_view();
            view! {
                <tbody class="chain" data-chain=chain.clone()>
                    {chain_head(&chain, turn_counts, false)}
                    {rows}
                </tbody>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table class="data turns" id="turns">
                {turns_header()}
                {chains}
            </table>
        </div>
    }
}

#[component]
pub(crate) fn RunPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| {
        params
            .read()
            .get("id")
            .and_then(|id| id.parse::<i64>().ok())
    });
    // Keyed by the URL's run: only the latest request's reply is shown. Refetched when the
    // run's hidden tests finish, so its pass and resolve rates appear.
    let data = LocalResource::new(move || load(id.get()));
    // The turns shown: the first page as loaded, then the pages "Show more" appends.
    let turns = RwSignal::<Turns>::new(None);
    let (loading_turns, set_loading_turns) = signal(false);
    let tests = Signal::derive(move || data.get().and_then(Result::ok).and_then(|l| l.tests));
    // The run's job as loaded with it (for the run in the URL only).
    let loaded_job = Signal::derive(move || {
        data.get()
            .and_then(Result::ok)
            .filter(|l| Some(l.run.summary.id) == id.get())
            .and_then(|l| l.tests.map(|t| t.progress))
    });
    let ready = Signal::derive(move || data.get().is_some_and(|r| r.is_ok()));
    let run_id = Signal::derive(move || id.get());

    // Another run: nothing of the last one's turns stays.
    Effect::new(move |_| {
        id.track();
        turns.set(None);
    });
    // A reply for the run in the URL: its first page of turns.
    Effect::new(move |_| {
        let Some(Ok(loaded)) = data.get() else {
            return;
        };
        if Some(loaded.run.summary.id) != id.get_untracked() {
            return;
        }
        turns.set(Some(loaded.turns));
    });

    // The next page of turns, appended to those shown (unless the page moved to another run
    // while it loaded).
    let more_turns = move |_| {
        let (Some(run_id), Some(Ok(loaded))) = (id.get_untracked(), turns.get_untracked()) else {
            return;
        };
        set_loading_turns.set(true);
        spawn_local(async move {
            let next = api::turns(run_id, loaded.items.len()).await;
            if id.get_untracked() == Some(run_id) {
                match next {
                    Ok(next) => turns.update(|t| {
                        if let Some(Ok(page)) = t {
                            page.items.extend(next.items);
                            page.total = next.total;
                        }
                    }),
                    Err(e) => turns.set(Some(Err(e))),
                }
            }
            set_loading_turns.set(false);
        });
    };

    // The turns shown so far, grouped by chain, with their hidden tests once there are
    // results; it follows "Show more" and the tests finishing without reloading the page.
    let turn_table = move |run_id: i64, turn_counts: &BTreeMap<String, i64>| {
        // Per turn: the hidden tests' passed/total, once there are results.
        let turn_tests: TurnTests = tests
            .get()
            .map(|t| {
                t.turns
                    .iter()
                    .map(|r| {
                        (
                            (r.chain.clone(), r.turn),
                            (r.passed, r.total, r.tampered.is_some()),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        // The loaded turns, grouped by chain (they come chain after chain, in order).
        let (rows, turn_total, turn_error) = match turns.get() {
            Some(Ok(page)) => (page.items, page.total, None),
            Some(Err(e)) => (Vec::new(), 0, Some(e.to_string())),
            None => (Vec::new(), 0, None),
        };
        let shown = rows.len();
        let table = turns_table(RunLinks::Stored(run_id), rows, turn_counts, &turn_tests);
        let rest = usize::try_from(turn_total)
            .unwrap_or(0)
            .saturating_sub(shown);
        let more_turns_button = (rest > 0).then(|| {
            view! {
                <p class="more">
                    {format!("{shown} of {turn_total} turns. ")}
                    <button
                        id="more-turns"
                        class="button"
                        on:click=more_turns
                        disabled=move || loading_turns.get()
                    >
                        {format!("Show {} more", rest.min(api::TURNS_PAGE))}
                    </button>
                </p>
            }
        });
        view! {
        {table}
        {turn_error.map(|e| view! { <p class="error">{e}</p> })}
        {more_turns_button}
        }
    };

    let content = move |loaded: Loaded| {
        let detail = loaded.run;
        let summary = &detail.summary;
        let run_id = summary.id;
        let unparsed = unparsed_report(RunLinks::Stored(run_id), detail.unparsed.as_ref());
        let turn_counts: BTreeMap<String, i64> = detail
            .chains
            .iter()
            .map(|c| (c.chain.clone(), c.turn_count))
            .collect();
        view! {
            {run_summary(&detail, origin_badge(summary).into_any(), format!("run {run_id}"))}
            <div class="downloads">
                "Download the turns: "
                <a href=format!("/api/v1/runs/{run_id}/turns?format=csv") download="" rel="external">"CSV"</a>
                " · "
                <a href=format!("/api/v1/runs/{run_id}/turns") rel="external">"JSON"</a>
                " · the whole run: "
                <a href=format!("/api/v1/runs/{run_id}") rel="external">"JSON"</a>
            </div>
            <h2>"Turns"</h2>
            {move || turn_table(run_id, &turn_counts)}
            {unparsed}
        }
        .into_any()
    };

    let test_results = move || {
        tests.get().filter(|t| !t.tests.is_empty()).map(|t| {
            let passed = t.tests.iter().filter(|o| o.outcome == "passed").count();
            let total = t.tests.len();
            // One folded group per turn, the turns with failures first.
            let groups = test_groups(&t.tests)
                .into_iter()
                .map(|group| {
                    let rows = group
                        .tests
                        .iter()
                        .map(|o| {
                            view! {
                                <tr class="test-row">
                                    <td><code>{o.module.clone()}</code></td>
                                    <td class="test-name"><code>{o.name.clone()}</code></td>
                                    <td>
                                        <span class=format!("badge outcome {}", o.outcome)>{o.outcome.clone()}</span>
                                    </td>
                                </tr>
                            }
                        })
                        .collect_view();
                    let count = group.tests.len();
                    let verdict = match group.not_passed {
                        0 => format!("all {count} passed"),
                        n => format!("{n} of {count} did not pass"),
                    };
                    let failing = group.not_passed > 0;
                    view! {
                        <details class="test-group" class:failing=failing
                            data-chain=group.chain.to_owned() data-turn=group.turn>
                            <summary>
                                <span class="group-turn">{format!("{} · turn {}", group.chain, group.turn)}</span>
                                " "
                                <span class="group-verdict">{verdict}</span>
                            </summary>
                            <table class="data">
                                <thead><tr><th>"group"</th><th>"test"</th><th>"outcome"</th></tr></thead>
                                <tbody>{rows}</tbody>
                            </table>
                        </details>
                    }
                })
                .collect_view();
            view! {
                <details class="test-results" id="test-results">
                    <summary>
                        {format!("{total} hidden tests: {passed} passed, {} did not", total - passed)}
                    </summary>
                    <p class="muted">
                        "By turn, the turns with failures first. Names and outcomes only: "
                        "failure messages may quote the hidden tests, so they are not shown."
                    </p>
                    <div class="test-groups">{groups}</div>
                </details>
            }
        })
    };

    view! {
        <section class="run-page">
            <Title text=move || id.get().map_or_else(|| "Run".to_owned(), |id| format!("Run {id}")) />
            <nav class="breadcrumbs"><a href="/runs">"Runs"</a> " / " {move || id.get().map(|i| format!("run {i}"))}</nav>
            {loaded(data, content)}
            // Shown with the run, so it does not sit under "Loading…" and jump down.
            <section class="hidden-tests" class:hidden=move || data.get().is_none()>
                <h2>"Hidden tests"</h2>
                <p class="muted">
                    "The dataset's hidden tests run in a sandbox on the server; their results "
                    "give the run its pass and resolve rates."
                </p>
                <HiddenTestsControl
                    run=run_id
                    loaded=loaded_job
                    ready=ready
                    on_finished=Callback::new(move |()| data.refetch())
                    unit="turn"
                />
                {test_results}
            </section>
        </section>
    }
}
