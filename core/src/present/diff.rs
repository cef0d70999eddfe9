//! Two files as aligned rows, as a side-by-side diff shows them, with the changed words of
//! each changed line marked.

use serde::Serialize;
use similar::{Algorithm, DiffOp, capture_diff_slices};

/// Unchanged lines kept around each change; longer unchanged runs are folded.
pub const CONTEXT: usize = 3;

/// Most lines either file may have for a diff: past it the two are not compared (a
/// hostile file of a million lines must not cost the page seconds).
pub const MAX_LINES: usize = 20_000;

/// Longest line whose words are compared; a longer changed line is marked as a whole.
pub const MAX_WORDS_LINE: usize = 2_000;

/// Byte range within a line, half-open.
pub type Span = (u32, u32);

/// One line of one side: its number (1-based) and the byte ranges (half-open, within the
/// line) that differ from the line it is paired with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DiffLine {
    pub line: u32,
    pub changed: Vec<Span>,
}

/// A row of the aligned diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "row", rename_all = "snake_case")]
pub enum DiffRow {
    /// The same line in both files.
    Same { old: u32, new: u32 },
    /// A line the new file changed: both sides, with the changed words.
    Changed { old: DiffLine, new: DiffLine },
    /// A line only the old file has.
    Removed(DiffLine),
    /// A line only the new file has.
    Added(DiffLine),
    /// `count` unchanged lines not shown, starting at these lines.
    Folded { old: u32, new: u32, count: u32 },
}

/// The aligned diff of two files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FileDiff {
    pub rows: Vec<DiffRow>,
    /// Lines only the old file has (removed, or the old side of a changed line).
    pub removed: usize,
    /// Lines only the new file has.
    pub added: usize,
    /// `false` when either file is over [`MAX_LINES`]: then there are no rows.
    pub compared: bool,
}

/// The aligned diff of `old` and `new`, line by line (trailing whitespace ignored), with
/// runs of more than `2 * CONTEXT` unchanged lines folded and, for each pair of lines a
/// change replaced one for one, the words that differ. Example: `"a = 1\nb\n"` against
/// `"a = 2\nb\n"` is one `Changed` row marking `1` and `2`, then `Same { 2, 2 }`.
pub fn aligned_diff(old: &str, new: &str) -> FileDiff {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    if old_lines.len() > MAX_LINES || new_lines.len() > MAX_LINES {
        return FileDiff::default();
    }
    let key =
        |lines: &[&str]| -> Vec<String> { lines.iter().map(|l| l.trim_end().to_owned()).collect() };
    let ops = capture_diff_slices(Algorithm::Patience, &key(&old_lines), &key(&new_lines));
    let mut diff = FileDiff {
        compared: true,
        ..FileDiff::default()
    };
    let last = ops.len().saturating_sub(1);
    for (at, op) in ops.iter().enumerate() {
        match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => same(
                &mut diff.rows,
                old_index,
                new_index,
                len,
                at == 0,
                at == last,
            ),
            DiffOp::Delete {
                old_index, old_len, ..
            } => {
                diff.removed += old_len;
                diff.rows
                    .extend((old_index..old_index + old_len).map(|i| DiffRow::Removed(whole(i))));
            }
            DiffOp::Insert {
                new_index, new_len, ..
            } => {
                diff.added += new_len;
                diff.rows
                    .extend((new_index..new_index + new_len).map(|i| DiffRow::Added(whole(i))));
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                diff.removed += old_len;
                diff.added += new_len;
                let paired = old_len.min(new_len);
                for k in 0..paired {
                    let (o, n) = (old_index + k, new_index + k);
                    let (old_changed, new_changed) = changed_words(old_lines[o], new_lines[n]);
                    diff.rows.push(DiffRow::Changed {
                        old: DiffLine {
                            line: number(o),
                            changed: old_changed,
                        },
                        new: DiffLine {
                            line: number(n),
                            changed: new_changed,
                        },
                    });
                }
                diff.rows.extend(
                    (old_index + paired..old_index + old_len).map(|i| DiffRow::Removed(whole(i))),
                );
                diff.rows.extend(
                    (new_index + paired..new_index + new_len).map(|i| DiffRow::Added(whole(i))),
                );
            }
        }
    }
    diff
}

/// The 1-based number of the line at `index`.
fn number(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

/// A line shown on one side only: nothing to compare its words with.
fn whole(index: usize) -> DiffLine {
    DiffLine {
        line: number(index),
        changed: Vec::new(),
    }
}

/// The rows of `len` unchanged lines: all of them when short, else the context at each end
/// that touches a change and a fold between.
fn same(rows: &mut Vec<DiffRow>, old: usize, new: usize, len: usize, first: bool, last: bool) {
    let before = if first { 0 } else { CONTEXT.min(len) };
    let after = if last { 0 } else { CONTEXT.min(len - before) };
    let folded = len - before - after;
    let row = |k: usize| DiffRow::Same {
        old: number(old + k),
        new: number(new + k),
    };
    // Folding fewer than two lines would hide less than the fold's own row shows.
    if folded < 2 {
        rows.extend((0..len).map(row));
        return;
    }
    rows.extend((0..before).map(row));
    rows.push(DiffRow::Folded {
        old: number(old + before),
        new: number(new + before),
        count: u32::try_from(folded).unwrap_or(u32::MAX),
    });
    rows.extend((len - after..len).map(row));
}

/// The words (identifiers, numbers, runs of spaces, single other characters) of `line`,
/// as byte ranges.
fn words(line: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        let same_kind = |d: char| {
            if c.is_alphanumeric() || c == '_' {
                d.is_alphanumeric() || d == '_'
            } else if c.is_whitespace() {
                d.is_whitespace()
            } else {
                false
            }
        };
        let mut end = start + c.len_utf8();
        while let Some(&(at, d)) = chars.peek() {
            if !same_kind(d) {
                break;
            }
            end = at + d.len_utf8();
            chars.next();
        }
        out.push((start, end));
    }
    out
}

/// The byte ranges of `old` and of `new` that differ, word by word. When less than half of
/// the longer line's words are shared, the lines are unrelated and nothing is marked (the
/// row already says the line changed); a line over [`MAX_WORDS_LINE`] is marked whole.
fn changed_words(old: &str, new: &str) -> (Vec<Span>, Vec<Span>) {
    let span = |s: &str| vec![(0, u32::try_from(s.len()).unwrap_or(u32::MAX))];
    if old.len() > MAX_WORDS_LINE || new.len() > MAX_WORDS_LINE {
        return (span(old), span(new));
    }
    let (old_words, new_words) = (words(old), words(new));
    let text = |line: &'_ str, ws: &[(usize, usize)]| -> Vec<String> {
        ws.iter().map(|&(a, b)| line[a..b].to_owned()).collect()
    };
    let ops = capture_diff_slices(
        Algorithm::Myers,
        &text(old, &old_words),
        &text(new, &new_words),
    );
    let shared: usize = ops
        .iter()
        .map(|op| match op {
            DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum();
    if 2 * shared < old_words.len().max(new_words.len()) {
        return (Vec::new(), Vec::new());
    }
    let (mut old_marks, mut new_marks) = (Vec::new(), Vec::new());
    for op in &ops {
        let (o, n) = (op.old_range(), op.new_range());
        if matches!(op, DiffOp::Equal { .. }) {
            continue;
        }
        mark(&mut old_marks, &old_words[o]);
        mark(&mut new_marks, &new_words[n]);
    }
    (old_marks, new_marks)
}

/// Adds the span of `words` to `marks`, joined to the previous mark when they touch.
fn mark(marks: &mut Vec<Span>, words: &[(usize, usize)]) {
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return;
    };
    let (start, end) = (
        u32::try_from(first.0).unwrap_or(u32::MAX),
        u32::try_from(last.1).unwrap_or(u32::MAX),
    );
    match marks.last_mut() {
        Some(previous) if previous.1 == start => previous.1 = end,
        _ => marks.push((start, end)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(line: u32, changed: &[(u32, u32)]) -> DiffLine {
        DiffLine {
            line,
            changed: changed.to_vec(),
        }
    }

    /// Checks the diff of `old` and `new`: its rows, and the lines counted on each side.
    fn check(old: &str, new: &str, rows: &[DiffRow], removed: usize, added: usize) {
        let diff = aligned_diff(old, new);
        assert!(diff.compared);
        assert_eq!(diff.rows, rows, "rows of {old:?} against {new:?}");
        assert_eq!((diff.removed, diff.added), (removed, added));
    }

    #[test]
    fn a_changed_word_is_marked_on_both_sides() {
        check(
            "a = 1\nb\n",
            "a = 22\nb\n",
            &[
                DiffRow::Changed {
                    old: line(1, &[(4, 5)]),
                    new: line(1, &[(4, 6)]),
                },
                DiffRow::Same { old: 2, new: 2 },
            ],
            1,
            1,
        );
    }

    #[test]
    fn lines_one_side_lacks_stand_alone() {
        check(
            "x\ny\n",
            "x\nnew\ny\nend\n",
            &[
                DiffRow::Same { old: 1, new: 1 },
                DiffRow::Added(line(2, &[])),
                DiffRow::Same { old: 2, new: 3 },
                DiffRow::Added(line(4, &[])),
            ],
            0,
            2,
        );
        check(
            "x\ngone\n",
            "x\n",
            &[
                DiffRow::Same { old: 1, new: 1 },
                DiffRow::Removed(line(2, &[])),
            ],
            1,
            0,
        );
    }

    #[test]
    fn unrelated_lines_are_changed_without_word_marks() {
        check(
            "return total\n",
            "for node in graph.nodes():\n",
            &[DiffRow::Changed {
                old: line(1, &[]),
                new: line(1, &[]),
            }],
            1,
            1,
        );
    }

    #[test]
    fn long_unchanged_runs_fold_leaving_context_around_changes() {
        let old: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l10\n", "l10 changed\n");
        let diff = aligned_diff(&old, &new);
        // Lines 1-6 fold (no change before them), 7-9 stay, 10 changed, 11-13 stay, 14-20 fold.
        assert_eq!(
            diff.rows.first(),
            Some(&DiffRow::Folded {
                old: 1,
                new: 1,
                count: 6
            })
        );
        assert_eq!(diff.rows[1], DiffRow::Same { old: 7, new: 7 });
        assert!(matches!(diff.rows[4], DiffRow::Changed { .. }));
        assert_eq!(diff.rows[7], DiffRow::Same { old: 13, new: 13 });
        assert_eq!(
            diff.rows.last(),
            Some(&DiffRow::Folded {
                old: 14,
                new: 14,
                count: 7
            })
        );
        assert_eq!(diff.rows.len(), 9);
    }

    #[test]
    fn identical_files_are_one_fold_and_trailing_spaces_do_not_count() {
        check(
            "a\nb\nc\n",
            "a  \nb\nc\n",
            &[DiffRow::Folded {
                old: 1,
                new: 1,
                count: 3,
            }],
            0,
            0,
        );
        check("", "", &[], 0, 0);
        check("a", "a", &[DiffRow::Same { old: 1, new: 1 }], 0, 0);
    }

    #[test]
    fn files_over_the_limit_are_not_compared() {
        let big = "x\n".repeat(MAX_LINES + 1);
        let diff = aligned_diff(&big, "x\n");
        assert!(!diff.compared);
        assert!(diff.rows.is_empty());
    }

    #[test]
    fn words_split_names_numbers_spaces_and_punctuation() {
        let line = "nx.path(G, 10)  é";
        let got: Vec<&str> = words(line).iter().map(|&(a, b)| &line[a..b]).collect();
        assert_eq!(
            got,
            ["nx", ".", "path", "(", "G", ",", " ", "10", ")", "  ", "é"]
        );
    }
}
