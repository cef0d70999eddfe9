//! A table of a file's definitions, their lines and the calls in each.

use leptos::prelude::*;
use wheelwright_core::outline::Definition;
use wheelwright_core::python::facts::DefinitionKind;

fn kind_label(kind: DefinitionKind) -> &'static str {
    match kind {
        DefinitionKind::Class => "class",
        DefinitionKind::Function => "function",
        DefinitionKind::Method => "method",
    }
}

/// One row per definition; cells carry classes the end-to-end tests read.
#[component]
pub(crate) fn OutlineTable(#[prop(into)] definitions: Signal<Vec<Definition>>) -> impl IntoView {
    view! {
        <table id="definitions" class="data">
            <thead>
                <tr>
                    <th>"Kind"</th>
                    <th>"Qualified name"</th>
                    <th class="num">"Lines"</th>
                    <th>"Calls"</th>
                </tr>
            </thead>
            <tbody>
                <For
                    each=move || definitions.get().into_iter().enumerate()
                    key=|(i, d)| format!("{i}:{d:?}")
                    children=|(_, d)| {
                        let calls = d
                            .calls
                            .iter()
                            .map(|c| c.callee.clone().unwrap_or_else(|| "<expr>".to_owned()))
                            .collect::<Vec<_>>()
                            .join(", ");
                        view! {
                            <tr class="definition">
                                <td class="kind">
                                    <span class=format!("badge {}", kind_label(d.kind))>
                                        {kind_label(d.kind)}
                                    </span>
                                </td>
                                <td class="name"><code>{d.qualified_name.clone()}</code></td>
                                <td class="lines num">{format!("{}–{}", d.start_line, d.end_line)}</td>
                                <td class="calls"><code>{calls}</code></td>
                            </tr>
                        }
                    }
                />
            </tbody>
        </table>
    }
}
