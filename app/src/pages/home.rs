//! The landing page: what Wheelwright measures, benchmark by benchmark.

use leptos::prelude::*;
use leptos_meta::Title;
use wheelwright_core::benchmark::Benchmark;

/// What the landing page says of a benchmark; its id and name are core's.
struct Pitch {
    benchmark: Benchmark,
    question: &'static str,
    measures: &'static str,
}

const PITCHES: [Pitch; 3] = [
    Pitch {
        benchmark: Benchmark::RepoReuse,
        question: "Does the agent reuse the repository's code and its own, or reinvent the wheel?",
        measures: "Multi-turn task chains on real Python libraries: reuse and recall of repository \
                   and self targets, files and lines read, re-implementations left behind, \
                   pass and resolve rates.",
    },
    Pitch {
        benchmark: Benchmark::Recube,
        question: "Can the agent rebuild a masked file from its repository's context?",
        measures: "Strict and average pass rates, external versus internal tests, and a \
                   dependency graph of who calls the masked file.",
    },
    Pitch {
        benchmark: Benchmark::Schrodinger,
        question: "Does the agent still work when familiar names and layouts are gone?",
        measures: "Behaviour-preserving repository views (renamed namespaces, reordered \
                   definitions) and how the agent's actions shift on them.",
    },
];

#[component]
pub(crate) fn HomePage() -> impl IntoView {
    view! {
        <Title text="" />
        <section class="hero">
            <h1>"Audit coding agents beyond pass rates"</h1>
            <p class="lead">
                "Wheelwright explores, scores and ranks coding-agent runs on three benchmarks. "
                "The scorer runs in your browser: drop in Python and see what it finds, with "
                "nothing uploaded until you ask."
            </p>
            <div class="hero-actions">
                <a class="button primary" href="/submit">"Score and submit a run"</a>
                <a class="button" href="/analyze">"Analyze Python in the browser"</a>
            </div>
        </section>
        <section class="cards">
            {PITCHES
                .iter()
                .map(|p| {
                    view! {
                        <article class="card">
                            <h2>{p.benchmark.title()}</h2>
                            <p class="question">{p.question}</p>
                            <p>{p.measures}</p>
                            <a href=format!("/leaderboard/{}", p.benchmark.id())>"Leaderboard →"</a>
                        </article>
                    }
                })
                .collect_view()}
        </section>
    }
}
