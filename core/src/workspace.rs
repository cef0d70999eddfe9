//! The files an analysis sees (a repository snapshot) and the lines an agent was shown.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// A set of Python (and other) files keyed by normalised relative path (`pkg/mod.py`, no
/// leading `./` or `/`). W_t in the spec: the repository plus the agent's own files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspace {
    files: BTreeMap<String, String>,
}

impl Workspace {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces a file. The path is normalised (see [`normalise_path`]).
    pub fn insert(&mut self, path: &str, text: impl Into<String>) {
        self.files.insert(normalise_path(path), text.into());
    }

    /// Removes a file (the path is normalised), returning its text.
    pub fn remove(&mut self, path: &str) -> Option<String> {
        self.files.remove(&normalise_path(path))
    }

    pub fn text(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }

    /// Number of lines of a file, counted as editors do (a final newline ends the last line).
    pub fn line_count(&self, path: &str) -> Option<u32> {
        self.text(path).map(line_count)
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// Whether some file lies under `dir/`.
    pub fn is_dir(&self, dir: &str) -> bool {
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        dir.is_empty()
            || dir == "."
            || self
                .files
                .range(prefix.clone()..)
                .next()
                .is_some_and(|(p, _)| p.starts_with(&prefix))
    }

    /// Files in path order.
    pub fn files(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files.iter().map(|(p, t)| (p.as_str(), t.as_str()))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// Lines of text, as an editor numbers them.
pub fn line_count(text: &str) -> u32 {
    let n = text.lines().count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Normalises a relative path: drops `./`, empty segments and a leading `/`, resolves `..`
/// lexically (never above the root).
pub fn normalise_path(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// The (file, line) pairs an agent was shown, per file; lines are 1-based.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShownLines {
    files: BTreeMap<String, BTreeSet<u32>>,
}

impl ShownLines {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, path: &str, line: u32) {
        self.lines_of(path).insert(line);
    }

    /// Adds lines `start..=end`.
    pub fn add_range(&mut self, path: &str, start: u32, end: u32) {
        if start <= end {
            self.lines_of(path).extend(start..=end);
        }
    }

    /// Adds every line of `lines` to `path`.
    pub fn add_lines(&mut self, path: &str, lines: &BTreeSet<u32>) {
        self.lines_of(path).extend(lines.iter().copied());
    }

    /// The lines of `path`, created empty if needed. Lines are added one at a time to a
    /// few files, so the path is copied only when it is new, not for every line.
    fn lines_of(&mut self, path: &str) -> &mut BTreeSet<u32> {
        if !self.files.contains_key(path) {
            self.files.insert(path.to_owned(), BTreeSet::new());
        }
        self.files
            .get_mut(path)
            .expect("the path's entry was just made")
    }

    pub fn extend(&mut self, other: &ShownLines) {
        for (path, lines) in &other.files {
            self.files
                .entry(path.clone())
                .or_default()
                .extend(lines.iter().copied());
        }
    }

    /// Whether any line in `start..=end` of `path` was shown.
    pub fn any_in(&self, path: &str, start: u32, end: u32) -> bool {
        self.files
            .get(path)
            .is_some_and(|lines| lines.range(start..=end).next().is_some())
    }

    /// Distinct (file, line) pairs.
    pub fn count(&self) -> usize {
        self.files.values().map(BTreeSet::len).sum()
    }

    pub fn files(&self) -> impl Iterator<Item = (&str, &BTreeSet<u32>)> {
        self.files.iter().map(|(p, l)| (p.as_str(), l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_paths() {
        for (input, expected) in [
            ("./pkg/mod.py", "pkg/mod.py"),
            ("/testbed/pkg//a.py", "testbed/pkg/a.py"),
            ("pkg/sub/../a.py", "pkg/a.py"),
            ("../../a.py", "a.py"),
            (".", ""),
        ] {
            assert_eq!(normalise_path(input), expected, "{input}");
        }
    }

    #[test]
    fn counts_lines_like_an_editor() {
        for (text, expected) in [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("a\n\n", 2)] {
            assert_eq!(line_count(text), expected, "{text:?}");
        }
    }

    #[test]
    fn shown_lines_answer_range_queries() {
        let mut shown = ShownLines::new();
        shown.add_range("a.py", 10, 12);
        shown.add("b.py", 3);
        assert!(shown.any_in("a.py", 12, 20));
        assert!(!shown.any_in("a.py", 13, 20));
        assert!(!shown.any_in("c.py", 1, 100));
        assert_eq!(shown.count(), 4);
    }

    #[test]
    fn directories_are_known_from_their_files() {
        let mut w = Workspace::new();
        w.insert("./pkg/sub/a.py", "x = 1\n");
        assert!(w.is_dir("pkg") && w.is_dir("pkg/sub") && !w.is_dir("pk"));
        assert!(w.contains("pkg/sub/a.py"));
    }
}
