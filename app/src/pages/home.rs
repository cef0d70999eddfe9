//! The landing page: what Wheelwright measures, benchmark by benchmark.

use leptos::prelude::*;

struct Benchmark {
    id: &'static str,
    name: &'static str,
    question: &'static str,
    measures: &'static str,
}

const BENCHMARKS: [Benchmark; 3] = [
    Benchmark {
        id: "reporeuse",
        name: "RepoReuse",
        question: "Does the agent reuse the repository's code and its own, or reinvent the wheel?",
        measures: "Multi-turn task chains on real Python libraries: reuse and recall of repository \
                   and self targets, files and lines read, re-implementations left behind, \
                   pass and resolve rates.",
    },
    Benchmark {
        id: "recube",
        name: "ReCUBE",
        question: "Can the agent rebuild a masked file from its repository's context?",
        measures: "Strict and average pass rates, external versus internal tests, and a \
                   dependency graph of who calls the masked file.",
    },
    Benchmark {
        id: "schrodinger",
        name: "SchrodingerRepo",
        question: "Does the agent still work when familiar names and layouts are gone?",
        measures: "Behaviour-preserving repository views (renamed namespaces, reordered \
                   definitions) and how the agent's actions shift on them.",
    },
];

#[component]
pub(crate) fn HomePage() -> impl IntoView {
    view! {
        <section class="hero">
            <h1>"Audit coding agents beyond pass rates"</h1>
            <p class="lead">
                "Wheelwright explores, scores and ranks coding-agent runs on three benchmarks. "
                "The scorer runs in your browser: drop in Python and see what it finds, with "
                "nothing uploaded until you ask."
            </p>
            <a class="button primary" href="/analyze">"Analyze Python in the browser"</a>
        </section>
        <section class="cards">
            {BENCHMARKS
                .iter()
                .map(|b| {
                    view! {
                        <article class="card">
                            <h2>{b.name}</h2>
                            <p class="question">{b.question}</p>
                            <p>{b.measures}</p>
                            <a href=format!("/leaderboard/{}", b.id)>"Leaderboard →"</a>
                        </article>
                    }
                })
                .collect_view()}
        </section>
    }
}
