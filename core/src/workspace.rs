//! The files an analysis sees (a repository snapshot) and the lines an agent was shown.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Whether `path` is a relative path down from a directory (no `..`, `.`, empty parts,
/// backslashes or drive letters).
pub fn is_relative_down(path: &str) -> bool {
    !path.starts_with('/')
        && !path.contains(['\\', ':'])
        && path
            .trim_end_matches('/')
            .split('/')
            .all(|p| !p.is_empty() && p != "." && p != "..")
}

/// Directories whose whole content is dropped: version-control history and the caches of
/// test runners (which list the tests that were removed).
const DROPPED_DIRECTORIES: [(&str, &str); 9] = [
    (".git", "version-control history"),
    (".hg", "version-control history"),
    (".svn", "version-control history"),
    (".pytest_cache", "a cached test listing"),
    (".hypothesis", "a cached test listing"),
    (".tox", "a cached test listing"),
    (".nox", "a cached test listing"),
    ("__pycache__", "compiled cache"),
    (".mypy_cache", "compiled cache"),
];

/// Files that record which tests exist or ran.
const DROPPED_FILES: [&str; 3] = [".noseids", ".testmondata", ".coverage"];

/// Why `path` (relative to the repository root) is left out of the workspace an agent
/// gets (RepoReuse's W_{t-1}, ReCUBE's masked instance), or
/// `None` when it stays: test files (`test_*.py`, `*_test.py`, `conftest.py`), anything
/// under version-control or test-cache directories, and cached test listings.
pub fn why_removed(path: &str) -> Option<&'static str> {
    let mut parts = path.split('/');
    let name = parts.next_back().unwrap_or(path);
    for dir in parts {
        if let Some((_, why)) = DROPPED_DIRECTORIES.iter().find(|(d, _)| *d == dir) {
            return Some(why);
        }
    }
    if DROPPED_FILES.contains(&name) {
        return Some("a cached test listing");
    }
    let is_test = name == "conftest.py"
        || (name.starts_with("test_") && name.ends_with(".py"))
        || name.ends_with("_test.py");
    is_test.then_some("a test file")
}

/// A set of Python (and other) files keyed by normalised relative path (`pkg/mod.py`, no
/// leading `./` or `/`). W_t in the spec: the repository plus the agent's own files.
///
/// Cloning is cheap: the texts are shared (reference-counted) between clones, so every
/// chain of a run starts from its own clone of W0 (scored in parallel, each adding only its
/// own files) without copying the repository.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspace {
    files: BTreeMap<String, Arc<str>>,
}

impl Workspace {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces a file. The path is normalised (see [`normalise_path`]).
    pub fn insert(&mut self, path: &str, text: impl Into<String>) {
        self.files
            .insert(normalise_path(path), Arc::from(text.into()));
    }

    /// Removes a file (the path is normalised), returning its text.
    pub fn remove(&mut self, path: &str) -> Option<String> {
        self.files
            .remove(&normalise_path(path))
            .map(|text| text.to_string())
    }

    pub fn text(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(|text| &**text)
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
        self.files.iter().map(|(p, t)| (p.as_str(), &**t))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// The largest file other than Python source a workspace keeps (a README, `setup.cfg`, a
/// data file): reads of such files are counted from the file, not from what the harness
/// printed, and a large data file cannot make W0 large.
pub const MAX_TEXT_FILE_BYTES: usize = 1 << 20;

/// `bytes` as a text file a workspace keeps beside the Python sources: UTF-8 without NUL
/// bytes (which mark binary files) and at most [`MAX_TEXT_FILE_BYTES`]; `None` otherwise.
///
/// ```
/// use wheelwright_core::workspace::text_file;
/// assert_eq!(text_file(b"[metadata]\nname = pkg\n"), Some("[metadata]\nname = pkg\n"));
/// assert_eq!(text_file(b"\x89PNG\r\n\x1a\n\0\0"), None);
/// ```
pub fn text_file(bytes: &[u8]) -> Option<&str> {
    if bytes.len() > MAX_TEXT_FILE_BYTES || bytes.contains(&0) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
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

/// A set of 1-based line numbers, kept as disjoint ranges that neither overlap nor touch.
///
/// A read of lines `1..=4294967295` is one range, not four billion numbers: memory grows with
/// the number of separate ranges an agent was shown, never with their length. Every
/// operation answers exactly as a set of the individual lines would.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Vec<(u32, u32)>", into = "Vec<(u32, u32)>")]
pub struct LineSet {
    /// Range start -> range end (inclusive); ranges are disjoint and separated by a gap.
    ranges: BTreeMap<u32, u32>,
}

impl LineSet {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&mut self, line: u32) {
        self.insert_range(line, line);
    }

    /// Adds lines `start..=end` (nothing when `start > end`), merging with the ranges it
    /// overlaps or touches: O(log n) plus the ranges it absorbs.
    pub fn insert_range(&mut self, start: u32, end: u32) {
        if start > end {
            return;
        }
        let (mut start, mut end) = (start, end);
        if let Some((&s, &e)) = self.ranges.range(..=start).next_back()
            && e.saturating_add(1) >= start
        {
            if e >= end {
                return; // already inside
            }
            start = s;
            end = end.max(e);
        }
        // Absorb every range that starts inside `start..=end + 1` (the one found above too).
        while let Some((&s, &e)) = self.ranges.range(start..).next() {
            if s > end.saturating_add(1) {
                break;
            }
            self.ranges.remove(&s);
            end = end.max(e);
        }
        self.ranges.insert(start, end);
    }

    /// Adds every line of `other`.
    pub fn extend_from(&mut self, other: &LineSet) {
        for (start, end) in other.ranges() {
            self.insert_range(start, end);
        }
    }

    /// Whether any line in `start..=end` is in the set.
    pub fn intersects(&self, start: u32, end: u32) -> bool {
        start <= end
            && self
                .ranges
                .range(..=end)
                .next_back()
                .is_some_and(|(_, &e)| e >= start)
    }

    pub fn contains(&self, line: u32) -> bool {
        self.intersects(line, line)
    }

    /// Number of lines (a `u64`: one range may hold every `u32`).
    pub fn len(&self) -> u64 {
        self.ranges
            .iter()
            .map(|(&s, &e)| u64::from(e - s) + 1)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The ranges `(start, end)`, inclusive, in order.
    pub fn ranges(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.ranges.iter().map(|(&s, &e)| (s, e))
    }

    /// Every line, in order. As long as the set is (use [`LineSet::ranges`] for counting).
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.ranges().flat_map(|(s, e)| s..=e)
    }
}

impl From<Vec<(u32, u32)>> for LineSet {
    fn from(ranges: Vec<(u32, u32)>) -> Self {
        let mut set = LineSet::new();
        for (start, end) in ranges {
            set.insert_range(start, end);
        }
        set
    }
}

impl From<LineSet> for Vec<(u32, u32)> {
    fn from(set: LineSet) -> Self {
        set.ranges().collect()
    }
}

/// The (file, line) pairs an agent was shown, per file; lines are 1-based.
///
/// Lines are kept as ranges ([`LineSet`]), so what one action can make this cost is
/// bounded by the action's size, not by the line numbers it names.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ShownLines {
    files: BTreeMap<String, LineSet>,
}

impl ShownLines {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, path: &str, line: u32) {
        self.lines_of(path).insert(line);
    }

    /// Adds lines `start..=end` in O(log n), whatever their number.
    pub fn add_range(&mut self, path: &str, start: u32, end: u32) {
        if start <= end {
            self.lines_of(path).insert_range(start, end);
        }
    }

    /// Adds every line of `lines` to `path`.
    pub fn add_lines(&mut self, path: &str, lines: &LineSet) {
        if !lines.is_empty() {
            self.lines_of(path).extend_from(lines);
        }
    }

    /// The lines of `path`, created empty if needed. Lines are added one at a time to a
    /// few files, so the path is copied only when it is new, not for every line.
    fn lines_of(&mut self, path: &str) -> &mut LineSet {
        if !self.files.contains_key(path) {
            self.files.insert(path.to_owned(), LineSet::new());
        }
        self.files
            .get_mut(path)
            .expect("the path's entry was just made")
    }

    pub fn extend(&mut self, other: &ShownLines) {
        for (path, lines) in &other.files {
            self.add_lines(path, lines);
        }
    }

    /// Whether any line in `start..=end` of `path` was shown.
    pub fn any_in(&self, path: &str, start: u32, end: u32) -> bool {
        self.files
            .get(path)
            .is_some_and(|lines| lines.intersects(start, end))
    }

    /// The lines shown of `path`, if any.
    pub fn lines(&self, path: &str) -> Option<&LineSet> {
        self.files.get(path)
    }

    /// Distinct (file, line) pairs (saturating at `usize::MAX` on 32-bit targets).
    pub fn count(&self) -> usize {
        let total = self
            .files
            .values()
            .fold(0u64, |sum, lines| sum.saturating_add(lines.len()));
        usize::try_from(total).unwrap_or(usize::MAX)
    }

    /// Each file's lines as reports print them: `a.py:3-6,9`.
    pub fn describe(&self) -> Vec<String> {
        self.files()
            .map(|(file, lines)| {
                let ranges: Vec<String> = lines
                    .ranges()
                    .map(|(a, b)| {
                        if a == b {
                            a.to_string()
                        } else {
                            format!("{a}-{b}")
                        }
                    })
                    .collect();
                format!("{file}:{}", ranges.join(","))
            })
            .collect()
    }

    pub fn files(&self) -> impl Iterator<Item = (&str, &LineSet)> {
        self.files.iter().map(|(p, l)| (p.as_str(), l))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn test_files_are_named_by_their_file_name_only() {
        for (path, expected) in [
            ("networkx/algorithms/tests/test_dag.py", Some("a test file")),
            ("networkx/conftest.py", Some("a test file")),
            ("pkg/io_test.py", Some("a test file")),
            ("pkg/tests/__init__.py", None),
            ("pkg/tests/data/graph.txt", None),
            ("pkg/testing.py", None),
            ("pkg/test_data.json", None),
            ("pkg/contest.py", None),
            ("pkg/attest_py.py", None),
            (".git/HEAD", Some("version-control history")),
            (
                "pkg/.pytest_cache/v/cache/nodeids",
                Some("a cached test listing"),
            ),
            (".noseids", Some("a cached test listing")),
            (
                "pkg/__pycache__/core.cpython-312.pyc",
                Some("compiled cache"),
            ),
        ] {
            assert_eq!(why_removed(path), expected, "{path}");
        }
    }

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

    /// A small deterministic generator (xorshift), so the model test needs no crate.
    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn line_sets_answer_exactly_as_sets_of_single_lines() {
        // Random ranges near each other (so they overlap, touch and nest), checked after
        // every insert against a plain set of the same lines.
        let mut state = 0x9e37_79b9_7f4a_7c15;
        for round in 0..200 {
            let mut set = LineSet::new();
            let mut model = std::collections::BTreeSet::new();
            for _ in 0..30 {
                let start = u32::try_from(xorshift(&mut state) % 120).unwrap();
                let len = u32::try_from(xorshift(&mut state) % 12).unwrap();
                let end = if xorshift(&mut state).is_multiple_of(7) {
                    start.saturating_sub(1) // an empty range
                } else {
                    start + len
                };
                set.insert_range(start, end);
                model.extend(start..=end);
                let label = format!("round {round}, after {start}..={end}");
                assert_eq!(
                    set.iter().collect::<Vec<_>>(),
                    model.iter().copied().collect::<Vec<_>>(),
                    "{label}"
                );
                assert_eq!(set.len(), model.len() as u64, "{label}");
                for (a, b) in set.ranges().zip(set.ranges().skip(1)) {
                    assert!(a.1 + 1 < b.0, "ranges {a:?} and {b:?} touch ({label})");
                }
                for (q0, q1) in [(0, 5), (start, start), (end, end + 3), (50, 60), (119, 200)] {
                    assert_eq!(
                        set.intersects(q0, q1),
                        model.range(q0..=q1).next().is_some(),
                        "{label}: {q0}..={q1}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_range_of_every_line_costs_one_entry() {
        let mut shown = ShownLines::new();
        shown.add_range("a.py", 1, u32::MAX);
        shown.add_range("a.py", 5, 10);
        shown.add("a.py", u32::MAX);
        shown.add_range("b.py", u32::MAX - 1, u32::MAX);
        shown.add_range("b.py", 0, 0);
        let a = shown.lines("a.py").unwrap();
        assert_eq!(a.ranges().collect::<Vec<_>>(), [(1, u32::MAX)]);
        assert_eq!(a.len(), u64::from(u32::MAX));
        assert!(shown.any_in("a.py", 4_000_000_000, 4_000_000_001));
        assert!(!shown.any_in("b.py", 1, 10));
        assert_eq!(
            shown.count(),
            usize::try_from(u64::from(u32::MAX) + 3).unwrap_or(usize::MAX)
        );
    }

    #[test]
    fn line_sets_serialise_as_ranges() {
        let mut shown = ShownLines::new();
        shown.add_range("a.py", 3, 5);
        shown.add("a.py", 6);
        shown.add("a.py", 9);
        let json = serde_json::to_string(&shown).unwrap();
        assert_eq!(json, r#"{"a.py":[[3,6],[9,9]]}"#);
        assert_eq!(shown.describe(), ["a.py:3-6,9"]);
        // Overlapping ranges in the input are merged, as if added one by one.
        let back: ShownLines = serde_json::from_str(r#"{"a.py":[[9,9],[3,5],[4,6]]}"#).unwrap();
        assert_eq!(back, shown);
    }

    #[test]
    fn directories_are_known_from_their_files() {
        let mut w = Workspace::new();
        w.insert("./pkg/sub/a.py", "x = 1\n");
        assert!(w.is_dir("pkg") && w.is_dir("pkg/sub") && !w.is_dir("pk"));
        assert!(w.contains("pkg/sub/a.py"));
    }
}
