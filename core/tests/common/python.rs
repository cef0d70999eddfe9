//! CPython's own parser as a second judge of generated Python (`python3`, which CI installs).

use std::io::Write;
use std::process::{Command, Stdio};

/// The sources among `files` (name, text) that CPython's `ast.parse` refuses, with its error,
/// from one `python3` process. Panics when `python3` cannot be run: the check must not pass
/// by not running.
pub fn cpython_refuses(files: &[(String, String)]) -> Vec<String> {
    const SCRIPT: &str = r#"
import ast, json, sys
for name, text in json.load(sys.stdin):
    try:
        ast.parse(text, filename=name)
    except (SyntaxError, ValueError) as e:
        print(f"{name}: {e}")
"#;
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs (scripts/setup installs it)");
    let input = serde_json::to_vec(files).expect("names and texts serialise");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(&input)
        .expect("python3 reads its input");
    let out = child.wait_with_output().expect("python3 finishes");
    assert!(out.status.success(), "python3 failed: {out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}
