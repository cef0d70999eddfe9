//! `wheelwright analyze`: a Python file's definitions and the calls in each, as the analysis page shows them.

use std::io::Write;
use std::path::Path;

use super::io::{emit, read_python};

/// `wheelwright analyze FILE`: a table, or with `--json` what `POST /api/v1/analyze` answers.
pub(super) fn run(file: &Path, json: bool) -> anyhow::Result<()> {
    let source = read_python(file)?;
    let outline = wheelwright_core::outline::outline(&source);
    emit(json, &outline, print_outline)
}

fn print_outline(
    out: &mut impl Write,
    outline: &wheelwright_core::outline::Outline,
) -> std::io::Result<()> {
    writeln!(out, "{:<8} {:<40} {:>11}  calls", "kind", "name", "lines")?;
    for d in &outline.definitions {
        let calls: Vec<&str> = d
            .calls
            .iter()
            .map(|c| c.callee.as_deref().unwrap_or("<expr>"))
            .collect();
        let kind = serde_json::to_value(d.kind)?;
        writeln!(
            out,
            "{:<8} {:<40} {:>5}-{:<5}  {}",
            kind.as_str().unwrap_or(""),
            d.qualified_name,
            d.start_line,
            d.end_line,
            calls.join(", ")
        )?;
    }
    if outline.syntax_errors {
        for d in &outline.diagnostics {
            writeln!(out, "line {}: {}", d.line, d.message)?;
        }
    }
    Ok(())
}
