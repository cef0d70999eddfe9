//! Scores as the run pages show them: the columns of a run or turn row, and one cell per
//! score, with the reason in the tooltip when a score is undefined.

use leptos::prelude::*;
use wheelwright_core::metric;

use crate::api::Score;

/// The columns of every run and turn row, in display order (core's, as the API orders them).
pub(crate) use wheelwright_core::reporeuse::metrics::run::COLUMNS;

/// A column's header: the metric's title from core's registry (`SPR`), or for a label
/// (`harness`) its name with spaces (`a_b` -> `a b`).
pub(crate) fn header(name: &str) -> String {
    metric::title_of(name)
}

/// A column's tooltip: the metric's one-sentence definition (empty for a label).
pub(crate) fn definition(name: &str) -> &'static str {
    metric::metric(name)
        .map(|m| m.definition)
        .unwrap_or_default()
}

/// The column's value as core's metric registry writes it (counts whole, rates with one
/// decimal), the same text the command line prints.
pub(crate) fn score_text(column: &str, score: Option<&Score>) -> String {
    metric::format_value(metric::unit_of(column), score.and_then(|s| s.value()))
}

/// One table cell for `column`'s score; undefined scores say why on hover.
#[component]
pub(crate) fn ScoreCell(column: &'static str, score: Option<Score>) -> impl IntoView {
    let text = score_text(column, score.as_ref());
    let title = score
        .as_ref()
        .and_then(crate::api::reason)
        .unwrap_or_default();
    let undefined = score.as_ref().is_none_or(|s| s.value().is_none());
    view! {
        <td class="num score" class:undefined=undefined data-column=column title=title>
            {text}
        </td>
    }
}

/// The header cells of the score columns.
pub(crate) fn score_headers() -> impl IntoView {
    COLUMNS
        .iter()
        .map(|c| view! { <th class="num" title=definition(c)>{header(c)}</th> })
        .collect_view()
}
