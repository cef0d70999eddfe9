//! The analysis page: paste or drop Python, see its definitions and calls, computed in the
//! browser by core; optionally ask the server for the same analysis and compare.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_meta::Title;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wheelwright_core::outline::{self, Outline};

use crate::api;
use crate::components::outline_table::OutlineTable;

/// What the page starts with, so a first visit shows something real.
const EXAMPLE: &str = r#"import os.path
from collections import Counter


def word_counts(path):
    """Count the words in a text file."""
    with open(path) as handle:
        return Counter(handle.read().split())


class Report:
    def __init__(self, root):
        self.root = root

    def top(self, name, n=3):
        counts = word_counts(os.path.join(self.root, name))
        return [word for word, _ in counts.most_common(n)]
"#;

/// The outcome of asking the server.
#[derive(Clone, Debug, PartialEq)]
enum ServerCheck {
    Idle,
    Running,
    Agrees(String),
    Differs,
    Failed(String),
}

/// Reads a dropped or chosen file as text into `set_source`.
fn load_file(file: web_sys::File, set_source: WriteSignal<String>, set_name: WriteSignal<String>) {
    let name = file.name();
    spawn_local(async move {
        if let Ok(text) = JsFuture::from(file.text()).await
            && let Some(text) = text.as_string()
        {
            set_name.set(name);
            set_source.set(text);
        }
    });
}

#[component]
pub fn AnalyzePage() -> impl IntoView {
    let (source, set_source) = signal(EXAMPLE.to_owned());
    let (file_name, set_file_name) = signal(String::from("example.py"));
    let (dragging, set_dragging) = signal(false);
    let (check, set_check) = signal(ServerCheck::Idle);
    // Re-parsed on every edit: a few milliseconds even for large files.
    let analysis: Memo<Outline> = Memo::new(move |_| source.with(|s| outline::outline(s)));
    let definitions = Signal::derive(move || analysis.with(|a| a.definitions.clone()));
    // A new source makes an earlier verdict stale.
    Effect::new(move |_| {
        source.track();
        set_check.set(ServerCheck::Idle);
    });

    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        set_dragging.set(false);
        if let Some(file) = ev
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|f| f.get(0))
        {
            load_file(file, set_source, set_file_name);
        }
    };
    let on_choose = move |ev: web_sys::Event| {
        let input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(file) = input.and_then(|i| i.files()).and_then(|f| f.get(0)) {
            load_file(file, set_source, set_file_name);
        }
    };
    let compare = move |_| {
        set_check.set(ServerCheck::Running);
        let text = source.get_untracked();
        let mine = analysis.get_untracked();
        spawn_local(async move {
            let verdict = match api::analyze(&text).await {
                Ok(theirs) if theirs == mine => ServerCheck::Agrees(format!(
                    "The server's analysis is identical ({} definitions; scorer {}, {}).",
                    theirs.definitions.len(),
                    theirs.scorer,
                    theirs.grammar
                )),
                Ok(_) => ServerCheck::Differs,
                Err(e) => ServerCheck::Failed(e.to_string()),
            };
            // Only report on the source that was sent.
            if source.get_untracked() == text {
                set_check.set(verdict);
            }
        });
    };

    view! {
        <section class="analyze">
            <Title text="Analyze a Python file" />
            <h1>"Analyze Python"</h1>
            <p class="lead">
                "Paste Python or drop a " <code>".py"</code> " file. It is parsed here, in your "
                "browser, by the same scorer the server and the command line use; nothing is "
                "uploaded unless you ask the server to compare."
            </p>
            <div
                class="drop-zone"
                class:dragging=dragging
                on:dragover=move |ev: web_sys::DragEvent| {
                    ev.prevent_default();
                    set_dragging.set(true);
                }
                on:dragleave=move |_| set_dragging.set(false)
                on:drop=on_drop
            >
                <div class="drop-bar">
                    <span class="file-name">{file_name}</span>
                    <label class="button">
                        "Open a file…"
                        <input type="file" accept=".py,text/x-python" on:change=on_choose />
                    </label>
                </div>
                <textarea
                    id="source"
                    aria-label="Python source"
                    spellcheck="false"
                    prop:value=source
                    on:input=move |ev| {
                        set_file_name.set("pasted.py".to_owned());
                        set_source.set(event_target_value(&ev));
                    }
                ></textarea>
            </div>
            <div class="summary" id="summary">
                {move || analysis.with(|a| {
                    let n = a.definitions.len();
                    let calls: usize = a.definitions.iter().map(|d| d.calls.len()).sum();
                    let definitions = if n == 1 { "definition" } else { "definitions" };
                    let call_word = if calls == 1 { "call" } else { "calls" };
                    format!("{n} {definitions}, {calls} {call_word} inside them")
                })}
                <Show when=move || analysis.with(|a| a.syntax_errors)>
                    <span class="warning" id="syntax-errors">
                        {move || analysis.with(|a| {
                            let lines: Vec<String> =
                                a.diagnostics.iter().map(|d| d.line.to_string()).collect();
                            format!(
                                " · syntax errors on line {}; what parsed is still listed",
                                lines.join(", ")
                            )
                        })}
                    </span>
                </Show>
            </div>
            <OutlineTable definitions=definitions />
            <div class="server-check">
                <button
                    id="compare-server"
                    class="button"
                    on:click=compare
                    disabled=move || check.get() == ServerCheck::Running
                >
                    "Compare with the server"
                </button>
                <span id="server-verdict" class=move || match check.get() {
                    ServerCheck::Agrees(_) => "verdict ok",
                    ServerCheck::Differs | ServerCheck::Failed(_) => "verdict bad",
                    _ => "verdict",
                }>
                    {move || match check.get() {
                        ServerCheck::Idle => String::new(),
                        ServerCheck::Running => "Asking the server…".to_owned(),
                        ServerCheck::Agrees(text) => text,
                        ServerCheck::Differs => {
                            "The server's analysis differs from the browser's: please report \
                             this file."
                                .to_owned()
                        }
                        ServerCheck::Failed(e) => e,
                    }}
                </span>
            </div>
        </section>
    }
}
