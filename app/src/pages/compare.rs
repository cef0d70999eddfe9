//! `/compare?a=&b=`: two stored runs side by side: overall, per turn, per chain, the turns that differ most, and a sign test.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_query_map};
use wheelwright_core::compare::{self, SignTest};
use wheelwright_core::metric::{self, Direction};
use wheelwright_core::present::chart::{TurnSeries, turn_charts};

use crate::api::{self, ApiError, RunDetail, TurnTableRow};
use crate::components::chart::LineChart;
use crate::components::loaded::loaded;
use crate::components::score::{COLUMNS, definition, header};

/// Turns listed under "where they differ most".
const LARGEST: usize = 20;

/// One side of the comparison: the run and every turn row.
#[derive(Clone)]
struct Side {
    run: RunDetail,
    turns: Vec<TurnTableRow>,
}

async fn side(id: i64) -> Result<Side, ApiError> {
    let (run, turns) = futures_util::join!(api::run(id), api::all_turns(id));
    Ok(Side {
        run: run?,
        turns: turns?,
    })
}

async fn load(a: Option<i64>, b: Option<i64>) -> Result<(Side, Side), ApiError> {
    let (Some(a), Some(b)) = (a, b) else {
        return Err(ApiError(
            "choose two runs: /compare?a=RUN&b=RUN, or tick two rows of a leaderboard".to_owned(),
        ));
    };
    let (a, b) = futures_util::join!(side(a), side(b));
    Ok((a?, b?))
}

/// `b - a` as text with its sign, and whether it is better, worse or neither by the
/// metric's direction (a CSS class).
fn delta_cell(column: &str, a: Option<f64>, b: Option<f64>) -> impl IntoView + use<> {
    let (text, class) = match (a, b) {
        (Some(a), Some(b)) => {
            let d = b - a;
            let (better, worse) = match metric::metric(column).map(|m| m.direction) {
                Some(Direction::HigherIsBetter) => (d > 0.0, d < 0.0),
                Some(Direction::LowerIsBetter) => (d < 0.0, d > 0.0),
                _ => (false, false),
            };
            let text = format!(
                "{}{}",
                if d > 0.0 { "+" } else { "" },
                metric::format_value(metric::unit_of(column), Some(d))
            );
            let class = if better {
                "num delta better"
            } else if worse {
                "num delta worse"
            } else {
                "num delta"
            };
            (text, class)
        }
        _ => ("—".to_owned(), "num delta"),
    };
    view! { <td class=class>{text}</td> }
}

fn value_text(column: &str, value: Option<f64>) -> String {
    metric::format_value(metric::unit_of(column), value)
}

/// The sign test's verdict, in words a reader can act on.
fn verdict(test: &SignTest, a: &str, b: &str) -> String {
    let counted = test.b_higher + test.a_higher;
    if counted == 0 {
        return "No turn differs: nothing to test.".to_owned();
    }
    let lead = if test.b_higher >= test.a_higher { b } else { a };
    let conclusion = if test.significant() {
        format!("more than noise: {lead} is ahead on this column")
    } else {
        "within noise: two equally good agents differ this much often".to_owned()
    };
    format!(
        "{b} higher on {} turns, {a} on {}, {} tied; sign test p = {:.3}: {conclusion}.",
        test.b_higher, test.a_higher, test.ties, test.p_value
    )
}

#[component]
pub(crate) fn ComparePage() -> impl IntoView {
    let query = use_query_map();
    let run_of = move |key: &str| query.read().get(key).and_then(|v| v.parse::<i64>().ok());
    let ids = Memo::new(move |_| (run_of("a"), run_of("b")));
    let data = LocalResource::new(move || {
        let (a, b) = ids.get();
        load(a, b)
    });
    let column = Memo::new(move |_| {
        query
            .read()
            .get("metric")
            .filter(|m| COLUMNS.contains(&m.as_str()))
            .unwrap_or_else(|| "reuse_repo".to_owned())
    });
    let navigate = StoredValue::new_local(use_navigate());
    let choose = move |metric: String| {
        let (a, b) = ids.get_untracked();
        if let (Some(a), Some(b)) = (a, b) {
            navigate.with_value(|navigate| {
                navigate(
                    &format!("/compare?a={a}&b={b}&metric={metric}"),
                    Default::default(),
                )
            });
        }
    };

    let render = move |(a, b): (Side, Side)| {
        let name =
            |side: &Side| format!("{} (run {})", side.run.summary.model, side.run.summary.id);
        let (name_a, name_b) = (name(&a), name(&b));
        let (sa, sb) = (&a.run.summary, &b.run.summary);
        let comparable = (sa.dataset_name.as_str(), sa.dataset_version.as_str())
            == (sb.dataset_name.as_str(), sb.dataset_version.as_str());
        let warning = (!comparable).then(|| {
            view! {
                <p class="warning" id="not-comparable">
                    {format!(
                        "These runs are on different datasets ({} {} and {} {}): only turns with the same chain and number are paired, and they are not the same tasks.",
                        sa.dataset_name, sa.dataset_version, sb.dataset_name, sb.dataset_version
                    )}
                </p>
            }
        });
        let card = |label: &'static str, side: &Side| {
            let s = &side.run.summary;
            view! {
                <div class="compare-card">
                    <span class="badge">{label}</span>
                    <a href=format!("/runs/{}", s.id)><strong>{s.model.clone()}</strong></a>
                    <span class="muted">
                        {format!(
                            "run {} · {} · memory {} · {} {} · {} turns",
                            s.id, s.harness, s.memory, s.dataset_name, s.dataset_version, s.turn_count
                        )}
                    </span>
                </div>
            }
        };
        let overall = COLUMNS
            .iter()
            .map(|c| {
                let va = sa.overall.get(*c).and_then(|s| s.value());
                let vb = sb.overall.get(*c).and_then(|s| s.value());
                view! {
                    <tr data-column=*c>
                        <th scope="row" title=definition(c)>{header(c)}</th>
                        <td class="num">{value_text(c, va)}</td>
                        <td class="num">{value_text(c, vb)}</td>
                        {delta_cell(c, va, vb)}
                    </tr>
                }
            })
            .collect_view();
        let series = |side: &Side| -> TurnSeries {
            serde_json::from_value(side.run.series.clone()).unwrap_or_default()
        };
        let charts = turn_charts(
            &COLUMNS,
            &[(name_a.clone(), series(&a)), (name_b.clone(), series(&b))],
        )
        .into_iter()
        .map(|chart| view! { <LineChart chart compact=true /> })
        .collect_view();

        // The chosen column, turn by turn.
        let by_column = {
            let (a_turns, b_turns, run_a, run_b) = (a.turns.clone(), b.turns.clone(), sa.id, sb.id);
            let (name_a, name_b) = (name_a.clone(), name_b.clone());
            move || {
                let c = column.get();
                let pairs = compare::pairs(&a_turns, &b_turns, &c);
                let test = compare::sign_test(&pairs);
                let chains = compare::chain_means(&pairs)
                    .into_iter()
                    .map(|m| {
                        view! {
                            <tr class="chain-row">
                                <td>{m.chain.clone()}</td>
                                <td class="num">{value_text(&c, m.a)}</td>
                                <td class="num">{value_text(&c, m.b)}</td>
                                {delta_cell(&c, m.a, m.b)}
                            </tr>
                        }
                    })
                    .collect_view();
                let largest: Vec<_> = compare::largest_differences(&pairs)
                    .into_iter()
                    .take(LARGEST)
                    .map(|p| {
                        let case = |run: i64| format!("/runs/{run}/{}/{}", p.chain, p.turn);
                        view! {
                            <tr class="turn-pair" data-chain=p.chain.clone() data-turn=p.turn>
                                <td>{format!("{} · turn {}", p.chain, p.turn)}</td>
                                <td class="num"><a href=case(run_a)>{value_text(&c, p.a)}</a></td>
                                <td class="num"><a href=case(run_b)>{value_text(&c, p.b)}</a></td>
                                {delta_cell(&c, p.a, p.b)}
                            </tr>
                        }
                    })
                    .collect();
                let heads = {
                    let (name_a, name_b) = (name_a.clone(), name_b.clone());
                    move |first: &'static str| {
                        view! { <tr><th>{first}</th><th class="num">{name_a.clone()}</th><th class="num">{name_b.clone()}</th><th class="num">"B − A"</th></tr> }
                    }
                };
                let largest = if largest.is_empty() {
                    view! { <p class="muted" id="no-differences">"The two runs agree on every turn they share in this column."</p> }.into_any()
                } else {
                    view! {
                        <div class="table-scroll">
                            <table class="data" id="largest">
                                <thead>{heads("turn")}</thead>
                                <tbody>{largest}</tbody>
                            </table>
                        </div>
                    }
                    .into_any()
                };
                view! {
                    <p class="sign-test" id="sign-test" data-p=test.p_value
                        class:significant=test.significant()>
                        {verdict(&test, &name_a, &name_b)}
                    </p>
                    <h3>"Where they differ most"</h3>
                    <p class="muted">"The turns of both runs with the largest difference, either way; each value opens that run's case."</p>
                    {largest}
                    <h3>"Per chain"</h3>
                    <div class="table-scroll">
                        <table class="data" id="chains">
                            <thead>{heads("chain")}</thead>
                            <tbody>{chains}</tbody>
                        </table>
                    </div>
                }
            }
        };
        let options = COLUMNS
            .iter()
            .map(|c| {
                view! { <option value=*c selected=move || column.get() == *c>{header(c)}</option> }
            })
            .collect_view();
        view! {
            <div class="compare-cards">{card("A", &a)}{card("B", &b)}</div>
            {warning}
            <h2>"Overall"</h2>
            <div class="table-scroll">
                <table class="data" id="compare-overall">
                    <thead><tr><th>"column"</th><th class="num">"A"</th><th class="num">"B"</th><th class="num">"B − A"</th></tr></thead>
                    <tbody>{overall}</tbody>
                </table>
            </div>
            <h2>"Per turn"</h2>
            <div class="charts small two" id="turn-charts">{charts}</div>
            <h2>"Turn by turn"</h2>
            <label class="filter">
                "column"
                <select id="compare-metric" on:change=move |ev| choose(event_target_value(&ev))>{options}</select>
            </label>
            {by_column}
        }
    };
    view! {
        <section class="compare-page">
            <Title text=move || match ids.get() {
                (Some(a), Some(b)) => format!("Compare runs {a} and {b}"),
                _ => "Compare runs".to_owned(),
            } />
            <h1>"Compare two runs"</h1>
            <p class="lead">
                "The same turns of two runs side by side. A difference in the overall rate can be "
                "noise; pairing each (chain, turn) and counting which run is higher (an exact "
                "sign test) says whether it is more than that."
            </p>
            {loaded(data, render)}
        </section>
    }
}
