//! A source file with line numbers and Python highlighting, optionally marking lines (the
//! lines that use a target, a definition's span) and anchoring each line for links.

use std::collections::BTreeMap;

use leptos::prelude::*;
use wheelwright_core::present::source::{Run, highlighted_lines};

/// Largest file highlighted; a larger one is shown plain (its lines are still numbered).
const HIGHLIGHT_LIMIT: usize = 512 * 1024;

/// A mark on one line: the class it adds (`uses`, `span`) and what its tooltip says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LineMark {
    pub(crate) class: &'static str,
    pub(crate) title: String,
}

/// `line`'s text as spans of its highlight runs, with each whole-word occurrence of one of
/// `words` in a `<mark>` (a case study's matched callees).
fn highlighted(line: &str, runs: &[Run], words: &[String]) -> AnyView {
    let plain = [Run {
        start: 0,
        end: u32::try_from(line.len()).unwrap_or(u32::MAX),
        class: None,
    }];
    let runs = if runs.is_empty() { &plain[..] } else { runs };
    runs.iter()
        .map(|run| {
            let text = line
                .get(run.start as usize..run.end as usize)
                .unwrap_or_default();
            let body = marked_words(text, words);
            match run.class {
                Some(class) => {
                    view! { <span class=format!("hl-{}", class.replace('.', "-"))>{body}</span> }
                        .into_any()
                }
                None => body,
            }
        })
        .collect_view()
        .into_any()
}

/// `text` with each whole-word occurrence of one of `words` in a `<mark class="callee">`.
fn marked_words(text: &str, words: &[String]) -> AnyView {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    if words.is_empty() {
        return text.to_owned().into_any();
    }
    let mut parts = Vec::new();
    let mut plain_from = 0;
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let starts_word = !text[..at].ends_with(is_word);
        let found = starts_word
            .then(|| {
                words
                    .iter()
                    .find(|w| rest.starts_with(w.as_str()) && !rest[w.len()..].starts_with(is_word))
            })
            .flatten();
        match found {
            Some(word) => {
                parts.push(text[plain_from..at].to_owned().into_any());
                parts.push(view! { <mark class="callee">{word.clone()}</mark> }.into_any());
                at += word.len();
                plain_from = at;
            }
            None => at += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    parts.push(text[plain_from..].to_owned().into_any());
    parts.collect_view().into_any()
}

/// Each line's highlight runs, or none for a file over [`HIGHLIGHT_LIMIT`].
pub(crate) fn line_runs(text: &str) -> Vec<Vec<Run>> {
    if text.len() > HIGHLIGHT_LIMIT {
        Vec::new()
    } else {
        highlighted_lines(text)
    }
}

/// A file in a monospace block with line numbers and highlighting. `marks` adds a class to
/// lines by number (1-based); with `anchor`, line `n` has the id `{anchor}-L{n}` so a link
/// can point at it. `first` numbers the first line shown (for part of a file).
#[component]
pub(crate) fn SourceView(
    text: String,
    #[prop(optional)] marks: BTreeMap<u32, LineMark>,
    #[prop(optional)] anchor: Option<&'static str>,
    #[prop(default = 1)] first: u32,
    /// Names marked wherever they occur as whole words.
    #[prop(optional)]
    words: Vec<String>,
) -> impl IntoView {
    let runs = line_runs(&text);
    let lines = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let number = u32::try_from(i).unwrap_or(u32::MAX).saturating_add(first);
            let mark = marks.get(&number);
            let class = match mark {
                Some(m) => format!("line {}", m.class),
                None => "line".to_owned(),
            };
            let title = mark.map(|m| m.title.clone());
            let id = anchor.map(|a| format!("{a}-L{number}"));
            let body = highlighted(line, runs.get(i).map_or(&[], Vec::as_slice), &words);
            view! {
                <div class=class id=id title=title>
                    <span class="line-number">{number}</span>
                    <span class="line-text">{body}</span>
                </div>
            }
        })
        .collect_view();
    view! { <div class="source-view">{lines}</div> }
}
