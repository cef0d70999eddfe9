//! Scores as the run pages show them: the columns of a run or turn row, and one cell per
//! score, with the reason in the tooltip when a score is undefined.

use leptos::prelude::*;
use wheelwright_core::metric;

use crate::api::Score;

/// The columns of every run and turn row, in display order (core's, as the API orders them).
pub(crate) use wheelwright_core::reporeuse::metrics::run::COLUMNS;

/// `reuse_repo` -> `reuse repo`, for column headers.
pub(crate) fn header(name: &str) -> String {
    name.replace('_', " ")
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
        .map(|c| {
            let definition = metric::metric(c).map(|m| m.definition).unwrap_or_default();
            view! { <th class="num" title=definition>{header(c)}</th> }
        })
        .collect_view()
}
