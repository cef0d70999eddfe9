//! `wheelwright mask`: a Python file masked as ReCUBE shows it to an agent.

use std::io::Write;
use std::path::Path;

use super::io::{emit, read_python};

/// `wheelwright mask FILE`: the masked file on standard output, its problems on standard
/// error (in the JSON with `--json`).
pub(super) fn run(file: &Path, json: bool) -> anyhow::Result<()> {
    let source = read_python(file)?;
    let masked = wheelwright_core::recube::mask::mask(&source);
    if !json {
        for problem in &masked.diagnostics {
            eprintln!("warning: {}: {problem}", file.display());
        }
    }
    emit(json, &masked, |out, m| out.write_all(m.text.as_bytes()))
}
