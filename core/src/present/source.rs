//! A file's lines as runs of highlighted text, from [`crate::syntax::highlights`].

use serde::Serialize;

use crate::syntax::{Highlight, highlights};

/// A run of one line: byte range within the line (half-open) and its highlight class, if any.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Run {
    pub start: u32,
    pub end: u32,
    pub class: Option<&'static str>,
}

/// Each line of `source` (as `str::lines` splits it) as runs that cover the whole line:
/// highlighted runs with their class, the text between them with none. A highlight that
/// spans lines (a docstring) is cut at each line's end. Example: `"x = 1"` is
/// `[x: variable][ : none][=: operator][ : none][1: number]`.
pub fn highlighted_lines(source: &str) -> Vec<Vec<Run>> {
    lines_of(source, &highlights(source))
}

/// [`highlighted_lines`] with the highlights already computed.
fn lines_of(source: &str, marks: &[Highlight]) -> Vec<Vec<Run>> {
    let mut out = Vec::new();
    let mut marks = marks.iter().peekable();
    let mut line_start = 0usize;
    for line in source.lines() {
        let line_end = line_start + line.len();
        let mut runs = Vec::new();
        let mut at = line_start;
        // Highlights that end before this line are done; one that spans lines stays.
        while marks.next_if(|m| (m.end as usize) <= line_start).is_some() {}
        let mut pending = marks.clone();
        while let Some(m) = pending.next_if(|m| (m.start as usize) < line_end) {
            let (start, end) = (
                (m.start as usize).max(line_start),
                (m.end as usize).min(line_end),
            );
            if start > at {
                runs.push(plain(at - line_start, start - line_start));
            }
            if end > start {
                runs.push(Run {
                    start: to_u32(start - line_start),
                    end: to_u32(end - line_start),
                    class: Some(m.class),
                });
            }
            at = at.max(end);
        }
        if at < line_end {
            runs.push(plain(at - line_start, line_end - line_start));
        }
        out.push(runs);
        // Past the line and its ending (`\n` or `\r\n`).
        line_start = line_end;
        if source[line_start..].starts_with("\r\n") {
            line_start += 2;
        } else if source[line_start..].starts_with('\n') {
            line_start += 1;
        }
    }
    out
}

/// Where the dotted `name` (`pkg.mod.Class.method`) is defined among a repository's files,
/// as the file's path and the name's qualified name in it (`pkg/mod.py`, `Class.method`):
/// the longest prefix of the name that is a module (`a/b.py`, or a package's
/// `a/b/__init__.py`), the rest qualified within it. `None` when no prefix is a module.
/// Example: with `networkx/classes/graph.py` among the files,
/// `networkx.classes.graph.Graph.add_edge` is `("networkx/classes/graph.py",
/// "Graph.add_edge")`.
pub fn module_of(name: &str, is_file: impl Fn(&str) -> bool) -> Option<(String, String)> {
    let parts: Vec<&str> = name.split('.').collect();
    (1..parts.len()).rev().find_map(|split| {
        let module = parts[..split].join("/");
        let rest = parts[split..].join(".");
        [format!("{module}.py"), format!("{module}/__init__.py")]
            .into_iter()
            .find(|path| is_file(path))
            .map(|path| (path, rest))
    })
}

fn plain(start: usize, end: usize) -> Run {
    Run {
        start: to_u32(start),
        end: to_u32(end),
        class: None,
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::{highlighted_lines, module_of};

    #[test]
    fn a_dotted_name_is_found_in_the_longest_module_prefix() {
        let files = ["pkg/__init__.py", "pkg/mod.py", "pkg/sub/__init__.py"];
        let find = |name: &str| module_of(name, |p| files.contains(&p));
        let found = |path: &str, rest: &str| Some((path.to_owned(), rest.to_owned()));
        assert_eq!(find("pkg.mod.C.m"), found("pkg/mod.py", "C.m"));
        assert_eq!(find("pkg.mod.f"), found("pkg/mod.py", "f"));
        // A package's name is defined in its __init__.py.
        assert_eq!(find("pkg.sub.g"), found("pkg/sub/__init__.py", "g"));
        assert_eq!(find("pkg.helper"), found("pkg/__init__.py", "helper"));
        // A module itself is looked for in its package (where no definition has its name);
        // a name outside the repository is nowhere.
        assert_eq!(find("pkg.mod"), found("pkg/__init__.py", "mod"));
        assert_eq!(find("numpy.array"), None);
        assert_eq!(find("pkg"), None);
    }

    /// `source`'s lines as (text, class) runs.
    fn runs(source: &str) -> Vec<Vec<(&str, Option<&'static str>)>> {
        highlighted_lines(source)
            .iter()
            .zip(source.lines())
            .map(|(runs, line)| {
                runs.iter()
                    .map(|r| (&line[r.start as usize..r.end as usize], r.class))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn lines_are_covered_by_runs_in_order() {
        assert_eq!(
            runs("x = 1\n\ndef f():\n    pass\n"),
            [
                vec![
                    ("x", Some("variable")),
                    (" ", None),
                    ("=", Some("operator")),
                    (" ", None),
                    ("1", Some("number")),
                ],
                vec![],
                vec![
                    ("def", Some("keyword")),
                    (" ", None),
                    ("f", Some("function")),
                    ("():", None),
                ],
                vec![("    ", None), ("pass", Some("keyword"))],
            ]
        );
    }

    #[test]
    fn a_string_over_several_lines_is_cut_at_each_line() {
        assert_eq!(
            runs("s = '''a\r\nb'''\n"),
            [
                vec![
                    ("s", Some("variable")),
                    (" ", None),
                    ("=", Some("operator")),
                    (" ", None),
                    ("'''a", Some("string")),
                ],
                vec![("b'''", Some("string"))],
            ]
        );
    }
}
