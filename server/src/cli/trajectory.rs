//! `wheelwright trajectory`: how each action of one trajectory was read, for auditing the scorer.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use wheelwright_core::bundle::COMMAND_LINE_LIMITS;
use wheelwright_core::trajectory::{InterpretOptions, TrajectoryReport, parse_trajectory_bytes};
use wheelwright_core::workspace::Workspace;

use super::io::{check_workdir, emit, print_unparsed};

/// `wheelwright trajectory`: one trajectory's actions as the scorer reads them.
pub(super) fn run(
    file: &Path,
    repo: Option<&Path>,
    workdir: &str,
    json: bool,
) -> anyhow::Result<()> {
    check_workdir(workdir)?;
    let bytes = crate::bundle::read_regular(file, COMMAND_LINE_LIMITS.file_bytes)?;
    let trajectory = parse_trajectory_bytes(&bytes)
        .with_context(|| format!("{} is not a trajectory the scorer reads", file.display()))?;
    let workspace = match repo {
        Some(dir) => {
            if !dir.is_dir() {
                anyhow::bail!(
                    "--repo {} is not a directory; give the repository the agent worked in, checked out at the commit it started from",
                    dir.display()
                );
            }
            let mut workspace = Workspace::new();
            for (path, text) in crate::dataset::read_source_tree(dir, dir, ".")? {
                workspace.insert(&path, text);
            }
            Some(workspace)
        }
        None => None,
    };
    let options = InterpretOptions::new(workspace.as_ref()).with_workdir(workdir);
    let report = TrajectoryReport::new(&trajectory, &options);
    emit(json, &report, print_trajectory)
}

/// The longest command a row of `wheelwright trajectory`'s table shows.
const TABLE_COMMAND_CHARS: usize = 60;

fn print_trajectory(out: &mut impl Write, report: &TrajectoryReport) -> std::io::Result<()> {
    let s = &report.summary;
    writeln!(
        out,
        "{} trajectory, working directory {}{}: {} actions, {} not understood, {} rejected responses; {} files, {} lines shown",
        serde_json::to_value(report.format)?
            .as_str()
            .unwrap_or_default(),
        report.workdir,
        if report.workspace {
            ""
        } else {
            " (no --repo: counted from the observations)"
        },
        s.actions,
        s.uninterpreted,
        s.rejected_responses,
        s.files,
        s.lines,
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:>4}  {:<6} {:<8}  {:<60}  shown (files counted)",
        "#", "kind", "category", "command"
    )?;
    let name = |v: serde_json::Value| v.as_str().unwrap_or_default().to_owned();
    let mut rejected = report.rejected.iter().peekable();
    for action in &report.actions {
        while let Some(r) = rejected.next_if(|r| r.after_action < action.index) {
            writeln!(out, "{:>4}  rejected response (message {})", "", r.message)?;
        }
        let command: String = action.command.replace('\n', " ⏎ ");
        let command = match command.char_indices().nth(TABLE_COMMAND_CHARS - 1) {
            Some((at, _)) => format!("{}…", &command[..at]),
            None => command,
        };
        let mut shown = action.shown.describe();
        let only_counted: Vec<&str> = action
            .files
            .iter()
            .filter(|f| action.shown.lines(f).is_none())
            .map(String::as_str)
            .collect();
        if !only_counted.is_empty() {
            shown.push(format!("({})", only_counted.join(", ")));
        }
        if let Some(reason) = &action.not_understood {
            shown.push(format!("not understood: {reason}"));
        }
        if action.ambiguous {
            shown.push("(ambiguous: lines of several commands)".to_owned());
        }
        let row = format!(
            "{:>4}  {:<6} {:<8}  {:<60}  {}",
            action.index,
            name(serde_json::to_value(action.kind)?),
            name(serde_json::to_value(action.category)?),
            command,
            shown.join(" ")
        );
        writeln!(out, "{}", row.trim_end())?;
    }
    for r in rejected {
        writeln!(out, "{:>4}  rejected response (message {})", "", r.message)?;
    }
    print_unparsed(out, &report.unparsed)
}
