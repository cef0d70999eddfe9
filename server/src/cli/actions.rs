//! `wheelwright actions`: a SchrodingerRepo run's Pass@1, action mix and token usage, read from its trajectories and SWE-bench reports, and its shift against a baseline run.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use wheelwright_core::metric::{Score, Unit, format_thousands, format_value};
use wheelwright_core::schrodinger::action_mix::CATEGORIES;
use wheelwright_core::schrodinger::action_shift::ActionsReport;
use wheelwright_core::schrodinger::run_actions::{FILE_LIMIT, RunActions, RunReader, is_run_file};

/// Reads the run in `dir` (and the baseline in `baseline`) and prints the report.
pub(super) fn run(dir: &Path, baseline: Option<&Path>, json: bool) -> anyhow::Result<()> {
    let run = read_run(dir, "--run")?;
    let baseline = baseline.map(|b| read_run(b, "--baseline")).transpose()?;
    super::io::emit(json, &ActionsReport::new(run, baseline), print)
}

/// The run whose files are under `dir`: every `.json` and `.json.gz` file, hidden
/// directories skipped, with a progress bar on a terminal.
fn read_run(dir: &Path, flag: &str) -> anyhow::Result<RunActions> {
    if !dir.is_dir() {
        anyhow::bail!(
            "{flag} {} is not a directory; give the folder holding the run's trajectories (<id>.traj.json) and the evaluation's report.json files",
            dir.display()
        );
    }
    let files = json_files(dir)?;
    if files.is_empty() {
        anyhow::bail!(
            "{flag} {} holds no .json or .json.gz file; give the folder holding the run's trajectories and reports",
            dir.display()
        );
    }
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(files.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("reading {bar:40} {pos}/{len} files, {eta} left")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let mut reader = RunReader::new();
    for path in &files {
        let name = path.strip_prefix(dir).unwrap_or(path).to_string_lossy();
        let size = path
            .metadata()
            .with_context(|| format!("reading {}", path.display()))?
            .len();
        // Skipped with a note, as the page skips it: one stray file does not stop a run.
        if size > FILE_LIMIT {
            reader.skip_over_limit(&name);
        } else {
            let bytes = crate::bundle::read_regular(path, FILE_LIMIT)
                .with_context(|| format!("reading {}", path.display()))?;
            reader.add(&name, &bytes);
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(reader.finish())
}

/// The `.json` and `.json.gz` files under `dir`, sorted; hidden entries skipped and
/// symbolic links to directories not followed (a run is a plain tree of files).
fn json_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(current) = pending.pop() {
        for entry in
            std::fs::read_dir(&current).with_context(|| format!("listing {}", current.display()))?
        {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let kind = entry.file_type()?;
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() && is_run_file(&name) {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    Ok(files)
}

fn percent(score: Score) -> String {
    format_value(Unit::Percent, score.value())
}

fn amount(score: Score) -> String {
    score
        .value()
        .map_or_else(|| "—".to_owned(), format_thousands)
}

fn print_run(out: &mut impl Write, label: &str, run: &RunActions) -> std::io::Result<()> {
    writeln!(
        out,
        "{label}: {} instances, {} resolved, Pass@1 {} %; {} actions per instance; tokens per instance {} in, {} out ({} instances recorded them)",
        run.instances.len(),
        run.resolved,
        percent(run.pass_at_1),
        format_value(Unit::Count, run.mix.mean_actions.value()),
        amount(run.tokens.input),
        amount(run.tokens.output),
        run.tokens.instances,
    )?;
    for line in &run.diagnostics {
        writeln!(out, "  note: {line}")?;
    }
    Ok(())
}

fn print(out: &mut impl Write, report: &ActionsReport) -> std::io::Result<()> {
    print_run(out, "run", &report.run)?;
    if let Some(baseline) = &report.baseline {
        print_run(out, "baseline", baseline)?;
    }
    writeln!(out)?;
    match (&report.baseline, &report.shift) {
        (Some(baseline), Some(shift)) => {
            writeln!(
                out,
                "{:<10} {:>7} {:>9} {:>14} {:>15}",
                "category", "run %", "base %", "extra/instance", "share of extra"
            )?;
            for c in CATEGORIES {
                writeln!(
                    out,
                    "{:<10} {:>7} {:>9} {:>14.2} {:>15}",
                    c.name(),
                    percent(report.run.mix.shares[&c]),
                    percent(baseline.mix.shares[&c]),
                    shift.additional.by_category[&c],
                    percent(shift.additional.shares[&c]),
                )?;
            }
            writeln!(out)?;
            writeln!(
                out,
                "shift over {} shared instances: Pass@1 {} points, actions {} %, input tokens {} %, output tokens {} %",
                shift.shared_instances,
                signed(shift.pass_at_1_change),
                signed(shift.actions_increase),
                signed(shift.input_tokens_increase),
                signed(shift.output_tokens_increase),
            )?;
        }
        _ => {
            writeln!(out, "{:<10} {:>8} {:>7}", "category", "actions", "share %")?;
            for c in CATEGORIES {
                writeln!(
                    out,
                    "{:<10} {:>8} {:>7}",
                    c.name(),
                    report.run.mix.by_category[&c],
                    percent(report.run.mix.shares[&c]),
                )?;
            }
        }
    }
    Ok(())
}

fn signed(score: Score) -> String {
    score
        .value()
        .map_or_else(|| "—".to_owned(), |v| format!("{v:+.1}"))
}
