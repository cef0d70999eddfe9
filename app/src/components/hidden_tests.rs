//! A stored run's hidden tests: the button that queues them (or what is left of a failed or cancelled job), their progress followed live, and a callback when they end.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{self, ApiError, Progress, ProgressStream};
use crate::components::test_progress::TestProgress;

/// Queues and follows the hidden tests of `run`. `loaded` is the run's job as the page
/// loaded it (`None`: none yet); a job still running is followed at once. `on_finished`
/// runs when a followed job ends, so the page reloads the rates the tests produced.
/// `unit` names what the job goes through (`turn`, `instance`).
#[component]
pub(crate) fn HiddenTestsControl(
    #[prop(into)] run: Signal<Option<i64>>,
    #[prop(into)] loaded: Signal<Option<Progress>>,
    /// Whether the run is loaded; the button waits for it.
    #[prop(into)]
    ready: Signal<bool>,
    on_finished: Callback<()>,
    unit: &'static str,
) -> impl IntoView {
    let (progress, set_progress) = signal::<Option<Progress>>(None);
    let (test_error, set_test_error) = signal::<Option<String>>(None);
    let (queueing, set_queueing) = signal(false);
    // The live progress stream; replacing or disposing it closes the connection.
    let stream = StoredValue::new_local(None::<ProgressStream>);

    let follow = move |job: i64| {
        let handle = api::follow_job(
            job,
            move |p: Progress| {
                let finished = p.finished();
                set_progress.set(Some(p));
                if finished {
                    on_finished.run(());
                }
            },
            move |e: ApiError| set_test_error.set(Some(e.to_string())),
        );
        match handle {
            Ok(handle) => stream.set_value(Some(handle)),
            Err(e) => set_test_error.set(Some(e.to_string())),
        }
    };
    // Another run: nothing of the last one's tests stays.
    Effect::new(move |_| {
        run.track();
        stream.set_value(None);
        set_progress.set(None);
        set_test_error.set(None);
    });
    // The job as loaded with the run, followed live while it runs.
    Effect::new(move |_| {
        let Some(p) = loaded.get() else {
            return;
        };
        let following = stream.with_value(Option::is_some);
        let (finished, job) = (p.finished(), p.job);
        set_progress.set(Some(p));
        if !finished && !following {
            follow(job);
        }
    });
    let queue = move |_| {
        let Some(run_id) = run.get_untracked() else {
            return;
        };
        set_queueing.set(true);
        set_test_error.set(None);
        spawn_local(async move {
            match api::queue_tests(run_id).await {
                Ok(p) => {
                    let job = p.job;
                    let finished = p.finished();
                    set_progress.set(Some(p));
                    if !finished {
                        follow(job);
                    }
                }
                Err(e) => set_test_error.set(Some(e.to_string())),
            }
            set_queueing.set(false);
        });
    };
    // A failed or cancelled job can be queued again; it resumes where it stopped.
    let stopped = move || {
        progress.with(|p| {
            p.as_ref()
                .is_some_and(|p| matches!(p.state.as_str(), "failed" | "cancelled"))
        })
    };
    let can_queue = move || progress.with(Option::is_none) || stopped();
    view! {
        <Show when=can_queue>
            <button
                id="run-tests"
                class="button primary"
                on:click=queue
                disabled=move || queueing.get() || !ready.get()
            >
                {move || if stopped() { "Run the remaining hidden tests" } else { "Run hidden tests" }}
            </button>
        </Show>
        <TestProgress progress=progress unit=unit />
        {move || test_error.get().map(|e| view! { <p class="error" id="test-error">{e}</p> })}
    }
}
