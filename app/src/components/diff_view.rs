//! Two files as an aligned side-by-side diff, the changed words of each changed line marked.

use leptos::prelude::*;
use wheelwright_core::present::diff::{DiffLine, DiffRow, FileDiff, aligned_diff};

/// `line` with its changed byte ranges in `<mark>`s.
fn marked(line: &str, changed: &[(u32, u32)]) -> AnyView {
    let mut parts = Vec::new();
    let mut at = 0usize;
    for &(start, end) in changed {
        let (start, end) = (start as usize, end as usize);
        if let (Some(before), Some(inside)) = (line.get(at..start), line.get(start..end)) {
            parts.push(before.to_owned().into_any());
            parts.push(view! { <mark>{inside.to_owned()}</mark> }.into_any());
            at = end;
        }
    }
    parts.push(line.get(at..).unwrap_or_default().to_owned().into_any());
    parts.collect_view().into_any()
}

/// The cells of one side of a row: its line number and text.
fn side(lines: &[&str], line: Option<&DiffLine>, class: &'static str) -> AnyView {
    match line {
        Some(l) => {
            let text = lines.get(l.line as usize - 1).copied().unwrap_or_default();
            view! {
                <td class=format!("num {class}")>{l.line}</td>
                <td class=format!("code {class}")>{marked(text, &l.changed)}</td>
            }
            .into_any()
        }
        None => view! { <td class="num empty"></td><td class="code empty"></td> }.into_any(),
    }
}

/// One row of the table.
fn row(old: &[&str], new: &[&str], row: &DiffRow) -> AnyView {
    fn same(lines: &[&str], n: u32) -> String {
        lines
            .get(n as usize - 1)
            .copied()
            .unwrap_or_default()
            .to_owned()
    }
    match row {
        DiffRow::Same { old: o, new: n } => view! {
            <tr class="same">
                <td class="num">{*o}</td><td class="code">{same(old, *o)}</td>
                <td class="num">{*n}</td><td class="code">{same(new, *n)}</td>
            </tr>
        }
        .into_any(),
        DiffRow::Changed { old: o, new: n } => view! {
            <tr class="changed">{side(old, Some(o), "removed")}{side(new, Some(n), "added")}</tr>
        }
        .into_any(),
        DiffRow::Removed(o) => {
            view! { <tr class="removed">{side(old, Some(o), "removed")}{side(new, None, "")}</tr> }
                .into_any()
        }
        DiffRow::Added(n) => {
            view! { <tr class="added">{side(old, None, "")}{side(new, Some(n), "added")}</tr> }
                .into_any()
        }
        DiffRow::Folded { count, .. } => view! {
            <tr class="folded">
                <td colspan="4" class="muted">{format!("⋯ {count} unchanged lines")}</td>
            </tr>
        }
        .into_any(),
    }
}

/// The diff of `old` (the reference) and `new` (the agent's file), with a one-line summary.
#[component]
pub(crate) fn DiffView(old: String, new: String) -> impl IntoView {
    let diff: FileDiff = aligned_diff(&old, &new);
    let summary = if !diff.compared {
        "The files are too long to compare here.".to_owned()
    } else if diff.added == 0 && diff.removed == 0 {
        "The agent's file is the reference, line for line.".to_owned()
    } else {
        format!(
            "{} lines only the agent's file has (or changed), {} only the reference has.",
            diff.added, diff.removed
        )
    };
    let (old_lines, new_lines): (Vec<&str>, Vec<&str>) =
        (old.lines().collect(), new.lines().collect());
    let rows = diff
        .rows
        .iter()
        .map(|r| row(&old_lines, &new_lines, r))
        .collect_view();
    view! {
        <p class="muted" id="diff-summary">{summary}</p>
        <div class="table-scroll">
            <table class="diff" id="diff">
                // Fixed layout takes widths from the columns (the first row may be a fold).
                <colgroup>
                    <col class="num" />
                    <col />
                    <col class="num" />
                    <col />
                </colgroup>
                <thead>
                    <tr><th colspan="2">"Reference"</th><th colspan="2">"The agent's file"</th></tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
