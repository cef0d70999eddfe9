//! A hidden-test job's progress: its state, a bar over the run's turns, the tests passed so
//! far and what the job is doing now.

use leptos::prelude::*;

use crate::api::Progress;

/// "Turn i of n" (`unit` "turn"): the unit being tested while the job runs, the last one
/// when it is done.
fn turn_text(p: &Progress, unit: &str) -> String {
    let n = p.turns_total;
    let mut chars = unit.chars();
    let title: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    match p.state.as_str() {
        "queued" => format!("Waiting to start · {n} {unit}s"),
        "running" => format!("{title} {} of {n}", (p.turns_done + 1).min(n.max(1))),
        _ => format!("{title} {} of {n}", p.turns_done),
    }
}

#[component]
pub(crate) fn TestProgress(
    #[prop(into)] progress: Signal<Option<Progress>>,
    /// What the job goes through: `turn` (RepoReuse), `instance` (ReCUBE).
    #[prop(default = "turn")]
    unit: &'static str,
) -> impl IntoView {
    move || {
        progress.get().map(|p| {
            let percent = if p.turns_total == 0 {
                0.0
            } else {
                100.0 * f64::from(p.turns_done) / f64::from(p.turns_total)
            };
            let tests = if p.tests_total == 0 && !p.finished() {
                "no tests finished yet".to_owned()
            } else {
                format!("{} of {} tests passed", p.tests_passed, p.tests_total)
            };
            let state = p.state.clone();
            view! {
                <div class="test-progress" id="test-progress" data-state=state.clone()>
                    <div class="progress-head">
                        <span class=format!("badge job {state}") id="test-state">{state.clone()}</span>
                        <span id="test-turn">{turn_text(&p, unit)}</span>
                        <span class="muted" id="test-passed">{tests}</span>
                    </div>
                    <div
                        class="progress-bar"
                        role="progressbar"
                        aria-valuemin="0"
                        aria-valuemax=p.turns_total
                        aria-valuenow=p.turns_done
                    >
                        <div class=format!("progress-fill {state}") style=format!("width: {percent:.1}%")></div>
                    </div>
                    <p class="progress-message muted" id="test-message">
                        {p.message.clone().unwrap_or_default()}
                    </p>
                </div>
            }
        })
    }
}
