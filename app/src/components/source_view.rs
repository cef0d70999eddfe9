//! A source file with line numbers, optionally marking the lines a comparison did not find
//! in the other file (a simple line diff).

use leptos::prelude::*;

/// Largest `lines(a) * lines(b)` the line diff compares; beyond it no lines are marked.
const DIFF_LIMIT: usize = 4_000_000;

/// For each line of `a` and of `b`, whether it is outside a longest common subsequence of
/// the two files' lines: the lines one side has and the other does not. `None` when the
/// files are too large to compare cheaply.
pub(crate) fn changed_lines(a: &str, b: &str) -> Option<(Vec<bool>, Vec<bool>)> {
    let a: Vec<&str> = a.lines().collect();
    let b: Vec<&str> = b.lines().collect();
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > DIFF_LIMIT {
        return None;
    }
    // lcs[i][j]: the LCS length of a[i..] and b[j..], in one flat table.
    let width = m + 1;
    let mut lcs = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * width + j] = if a[i].trim_end() == b[j].trim_end() {
                lcs[(i + 1) * width + j + 1] + 1
            } else {
                lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
            };
        }
    }
    let (mut only_a, mut only_b) = (vec![true; n], vec![true; m]);
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i].trim_end() == b[j].trim_end() {
            only_a[i] = false;
            only_b[j] = false;
            i += 1;
            j += 1;
        } else if lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    Some((only_a, only_b))
}

/// A file in a monospace block with line numbers; `marked[i]` highlights line `i + 1`.
#[component]
pub(crate) fn SourceView(
    text: String,
    #[prop(optional)] marked: Vec<bool>,
    /// The class marked lines get (`added` or `removed`).
    #[prop(default = "added")]
    mark: &'static str,
) -> impl IntoView {
    let lines = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let class = if marked.get(i).copied().unwrap_or(false) {
                format!("line {mark}")
            } else {
                "line".to_owned()
            };
            view! {
                <div class=class>
                    <span class="line-number">{i + 1}</span>
                    <span class="line-text">{line.to_owned()}</span>
                </div>
            }
        })
        .collect_view();
    view! { <div class="source-view">{lines}</div> }
}

#[cfg(test)]
mod tests {
    use super::changed_lines;

    #[test]
    fn marks_the_lines_only_one_side_has() {
        let (a, b) = changed_lines("x\ny\nz\n", "x\nw\nz\nv\n").unwrap();
        assert_eq!(a, [false, true, false]);
        assert_eq!(b, [false, true, false, true]);
    }

    #[test]
    fn identical_files_mark_nothing() {
        let (a, b) = changed_lines("a\nb", "a\nb").unwrap();
        assert!(a.iter().chain(&b).all(|c| !c));
    }
}
