//! Scores as the run pages show them: the columns of a run or turn row, and one cell per
//! score, with the reason in the tooltip when a score is undefined.

use leptos::prelude::*;

use crate::api::Score;

/// The columns of every run and turn row, in display order (core's, as the API orders them).
pub(crate) use wheelwright_core::reporeuse::metrics::run::COLUMNS;

/// `reuse_repo` -> `reuse repo`, for column headers.
pub(crate) fn header(name: &str) -> String {
    name.replace('_', " ")
}

/// Files and lines are counts; every other column is a rate in percent.
pub(crate) fn format_score(column: &str, score: Option<&Score>) -> String {
    match score.and_then(Score::value) {
        None => "—".to_owned(),
        Some(v) if matches!(column, "files" | "lines") && v.fract() == 0.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.1}"),
    }
}

/// One table cell for `column`'s score; undefined scores say why on hover.
#[component]
pub(crate) fn ScoreCell(column: &'static str, score: Option<Score>) -> impl IntoView {
    let text = format_score(column, score.as_ref());
    let title = score.as_ref().and_then(Score::reason).unwrap_or_default();
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
        .map(|c| view! { <th class="num">{header(c)}</th> })
        .collect_view()
}
