//! What the commands share: printing a value as JSON or text, reading a dataset directory and a run bundle, checking one against the other, and the tables of a scored run.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::Context;
use wheelwright_core::bundle::COMMAND_LINE_LIMITS;
use wheelwright_core::metric::{Score, format_score};
use wheelwright_core::reporeuse::dataset::{RepoReuseDataset, RepositoryFiles, workdir_problem};
use wheelwright_core::reporeuse::metrics::run::{COLUMNS, RunColumns};
use wheelwright_core::reporeuse::scoring::RunReport;
use wheelwright_core::trajectory::UnparsedReport;

/// Prints `value` to standard output as pretty JSON, or as text with `print`.
pub(super) fn emit<T: serde::Serialize>(
    json: bool,
    value: &T,
    print: impl FnOnce(&mut std::io::StdoutLock<'static>, &T) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, value)?;
        writeln!(out)?;
    } else {
        print(&mut out, value)?;
    }
    Ok(())
}

/// Ends a command with exit code `code` (and `message` on standard error, when there is
/// one): `cce validate` exits 1 when it found problems, 2 on input it cannot read.
#[derive(Debug, thiserror::Error)]
#[error("exit code {code}")]
pub struct Exit {
    pub code: u8,
    pub message: Option<String>,
}

/// A Python file's text (UTF-8, within core's per-file limit), for `analyze` and `mask`.
pub(super) fn read_python(file: &Path) -> anyhow::Result<String> {
    let bytes = crate::bundle::read_regular(file, wheelwright_core::bundle::LIMITS.file_bytes)?;
    String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8 text", file.display()))
}

/// A dataset directory and its repositories' sources by repository id; `workdir` replaces
/// the dataset's working directory.
pub(super) fn read_dataset(
    path: &Path,
    workdir: Option<&str>,
) -> anyhow::Result<(RepoReuseDataset, RepositoryFiles)> {
    if !path.is_dir() {
        anyhow::bail!(
            "{} is not a directory; a dataset is a directory holding dataset.json and chains/ (see docs/formats.md, \"Dataset (RepoReuse)\")",
            path.display()
        );
    }
    let mut dataset = crate::dataset::load_dir(path)?;
    if let Some(workdir) = workdir {
        check_workdir(workdir)?;
        workdir.clone_into(&mut dataset.manifest.workdir);
    }
    let files = crate::dataset::repository_sources(
        &dataset,
        &crate::dataset::default_cache_dir(),
        Path::new("python3"),
    )?;
    Ok((dataset, files))
}

/// The run bundle at `path`, read before the dataset: its errors (not a bundle, a FIFO,
/// too large) come at once instead of after the repository is loaded.
pub(super) fn read_bundle(
    path: &Path,
) -> anyhow::Result<wheelwright_core::reporeuse::bundle::RepoReuseBundle> {
    crate::bundle::read_path(path, COMMAND_LINE_LIMITS)
        .with_context(|| format!("{} is not a usable run bundle", path.display()))
}

/// Checks a bundle read from `path` against `dataset`.
pub(super) fn check_bundle(
    path: &Path,
    bundle: &wheelwright_core::reporeuse::bundle::RepoReuseBundle,
    dataset: &RepoReuseDataset,
) -> anyhow::Result<()> {
    bundle
        .check_against(dataset)
        .with_context(|| format!("{} does not fit the dataset", path.display()))
}

/// Refuses a `--workdir` the scorer cannot read paths against.
pub(super) fn check_workdir(workdir: &str) -> anyhow::Result<()> {
    match workdir_problem(workdir) {
        Some(problem) => anyhow::bail!("--workdir: {problem}"),
        None => Ok(()),
    }
}

/// Prints a scored run: per turn, re-implemented targets, overall, the per-turn series,
/// unparsed actions and diagnostics.
pub(super) fn print_report(out: &mut impl Write, report: &RunReport) -> std::io::Result<()> {
    let width = report
        .turns
        .iter()
        .map(|t| t.chain.chars().count())
        .max()
        .unwrap_or(0)
        .max("chain".len());
    writeln!(
        out,
        "Per turn (rates in percent, files and lines as counts, — undefined)"
    )?;
    write_header(out, &format!("{:<width$} {:>4}", "chain", "turn"))?;
    for row in &report.turns {
        write!(out, "{:<width$} {:>4}", row.chain, row.turn)?;
        write_values(out, &row.scores)?;
    }
    let reimplemented: Vec<_> = report
        .turns
        .iter()
        .flat_map(|row| row.reimplemented.iter().map(move |r| (row, r)))
        .collect();
    if !reimplemented.is_empty() {
        writeln!(out)?;
        writeln!(out, "Re-implemented targets")?;
        for (row, r) in reimplemented {
            writeln!(
                out,
                "{} turn {}: {} ({} of {} callees: {})",
                row.chain,
                row.turn,
                r.canonical,
                r.evidence.matched.len(),
                r.evidence.callees.len(),
                r.evidence.matched.join(", ")
            )?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "Overall ({} chains, {} turns)",
        report.chains,
        report.turns.len()
    )?;
    write_header(out, &format!("{:<width$} {:>4}", "", ""))?;
    write!(out, "{:<width$} {:>4}", "run", "")?;
    write_values(out, &report.overall)?;
    let turns = report.series.reuse_repo.len();
    if turns > 0 {
        writeln!(out)?;
        writeln!(out, "Per-turn series (mean over chains)")?;
        write_header(out, &format!("{:<width$} {:>4}", "", "turn"))?;
        let s = &report.series;
        for t in 0..turns {
            let at = |v: &Vec<Score>| {
                v.get(t).copied().unwrap_or(Score::Undefined {
                    reason: wheelwright_core::metric::Undefined::NoDefinedValue,
                })
            };
            write!(out, "{:<width$} {:>4}", "", format!("T{}", t + 1))?;
            write_values(out, &s.map(at))?;
        }
    }
    print_unparsed(out, &report.unparsed)?;
    if !report.diagnostics.is_empty() {
        writeln!(out)?;
        writeln!(out, "Diagnostics")?;
        for d in &report.diagnostics {
            match d.turn {
                Some(turn) => writeln!(out, "{} turn {}: {}", d.chain, turn, d.message)?,
                None => writeln!(out, "{}: {}", d.chain, d.message)?,
            }
        }
    }
    Ok(())
}

/// Writes one row: every column's value in the order and unit the metric registry gives.
fn write_values(out: &mut impl Write, values: &RunColumns<Score>) -> std::io::Result<()> {
    for (metric, &value) in values.iter() {
        write!(out, " {:>11}", format_score(metric.id, value))?;
    }
    writeln!(out)
}

fn write_header(out: &mut impl Write, first: &str) -> std::io::Result<()> {
    write!(out, "{first}")?;
    for name in COLUMNS {
        write!(out, " {name:>11}")?;
    }
    writeln!(out)
}

/// The report of unparsed actions, by reason; nothing when every action was understood.
pub(super) fn print_unparsed(
    out: &mut impl Write,
    unparsed: &UnparsedReport,
) -> std::io::Result<()> {
    if unparsed.not_understood == 0 {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(
        out,
        "Not understood: {} of {} actions (they showed nothing)",
        unparsed.not_understood, unparsed.actions
    )?;
    for reason in &unparsed.reasons {
        let examples: Vec<String> = reason
            .examples
            .iter()
            .map(|e| {
                if e.turn.is_empty() {
                    format!("#{}", e.action)
                } else {
                    format!("{} #{}", e.turn, e.action)
                }
            })
            .collect();
        writeln!(
            out,
            "{:>6}  {} (e.g. {})",
            reason.count,
            reason.message,
            examples.join(", ")
        )?;
    }
    if unparsed.other_reasons > 0 {
        writeln!(out, "{:>6}  other reasons", unparsed.other_reasons)?;
    }
    Ok(())
}

/// Writes `files` (paths relative to `dir`) under `dir`, creating directories. Each file
/// is new, and nothing below `dir` is reached through a link ([`crate::no_follow`]): a
/// workspace is written into `wheelwright run`'s output folder.
pub(super) fn write_files(dir: &Path, files: &BTreeMap<String, String>) -> anyhow::Result<()> {
    let tree = crate::no_follow::Tree::create(dir)?;
    for (path, text) in files {
        tree.create_new(Path::new(path))?
            .write_all(text.as_bytes())
            .with_context(|| format!("writing {}", dir.join(path).display()))?;
    }
    Ok(())
}
