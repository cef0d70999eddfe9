//! Expectation files: one helper per kind of comparison, rewritten when `UPDATE_EXPECT` is set.
//!
//! In the style of rust-analyzer's `expect_file!`: a test computes its output and hands it,
//! with the path of its expectation file, to the helper for its kind. Normally the helper
//! compares and fails with the first difference; with `UPDATE_EXPECT=1` it first rewrites
//! the file from the output, so a deliberate change is one command plus a reviewed diff, and
//! regenerating with nothing changed leaves `git diff` empty. Also used by the server's
//! tests (through `#[path]`).
#![allow(dead_code, unreachable_pub)]

use std::path::Path;

/// The environment variable that rewrites expectation files from the tests' output.
pub const UPDATE: &str = "UPDATE_EXPECT";

/// Whether this run rewrites expectation files.
pub fn updating() -> bool {
    std::env::var_os(UPDATE).is_some()
}

/// Structured output: `actual` equals the JSON in `path` as a value (key order and layout
/// do not matter). Rewritten as pretty JSON with a final newline.
pub fn expect_json(path: &Path, actual: &serde_json::Value) {
    if let Err(problem) = check_json(path, actual) {
        panic!("{problem}");
    }
}

/// Text output (source, CSV, a reply's body): `actual` equals the file byte for byte.
pub fn expect_text(path: &Path, actual: &str) {
    if let Err(problem) = check_text(path, actual) {
        panic!("{problem}");
    }
}

/// [`expect_json`] for a test that gathers every problem of a case before failing.
pub fn check_json(path: &Path, actual: &serde_json::Value) -> Result<(), String> {
    let pretty = serde_json::to_string_pretty(actual).expect("a JSON value serialises") + "\n";
    if updating() {
        write(path, &pretty);
    }
    let text = read(path)?;
    let expected: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: not JSON ({e}); rewrite it with {UPDATE}=1",
            path.display()
        )
    })?;
    if &expected == actual {
        return Ok(());
    }
    let want = serde_json::to_string_pretty(&expected).expect("a JSON value serialises") + "\n";
    Err(difference(path, &want, &pretty))
}

/// [`expect_text`] for a test that gathers every problem of a case before failing.
pub fn check_text(path: &Path, actual: &str) -> Result<(), String> {
    if updating() {
        write(path, actual);
    }
    let expected = read(path)?;
    if expected == actual {
        return Ok(());
    }
    Err(difference(path, &expected, actual))
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: {e}; create it with {UPDATE}=1 and review it before committing",
            path.display()
        )
    })
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// The first differing line of `expected` and `actual`, with the whole output to read.
fn difference(path: &Path, expected: &str, actual: &str) -> String {
    let (mut want, mut got) = (expected.lines(), actual.lines());
    let mut line = 1;
    loop {
        match (want.next(), got.next()) {
            (Some(w), Some(g)) if w == g => line += 1,
            (w, g) => {
                return format!(
                    "{} differs from the output at line {line}:\n  expected: {}\n  actual:   {}\n\
                     (if the change is intended, rerun with {UPDATE}=1 and review the diff)\n\
                     --- the whole output ---\n{actual}",
                    path.display(),
                    w.unwrap_or("<end of file>"),
                    g.unwrap_or("<end of output>"),
                );
            }
        }
    }
}
