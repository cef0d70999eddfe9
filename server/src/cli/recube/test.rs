//! `wheelwright recube test`: a ReCUBE run bundle's rebuilt targets run against the hidden tests in sandboxes, then core's scores (`recube::scoring`).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::Context;
use wheelwright_core::bundle::COMMAND_LINE_LIMITS;
use wheelwright_core::metric::{Score, Unit, format_value};
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::recube::bundle::{InstanceKey, RecubeBundle};
use wheelwright_core::recube::scoring::{InstanceRun, RecubeReport, report, score_instance};
use wheelwright_core::workspace::Workspace;

use super::sandboxes::{prepare, run_all};
use crate::TestConfig;
use crate::cli::io::emit;

/// `wheelwright recube test RUN --dataset DIR`.
pub(in crate::cli) fn run(
    run: &Path,
    dir: &Path,
    workdir: &str,
    config: &TestConfig,
    json: bool,
) -> anyhow::Result<()> {
    let bytes = crate::bundle::read_regular(run, COMMAND_LINE_LIMITS.file_bytes)
        .with_context(|| format!("cannot read {}", run.display()))?;
    let bundle = RecubeBundle::from_bytes(&bytes, &run.to_string_lossy(), COMMAND_LINE_LIMITS)
        .with_context(|| format!("{} is not a usable ReCUBE run bundle", run.display()))?;
    drop(bytes);
    let dataset = crate::dataset::recube::load_recube_dir(dir)?;
    bundle
        .check_against(&dataset)
        .with_context(|| format!("{} does not fit the dataset", run.display()))?;
    let prepared = prepare(dataset, config)?;
    let work: Vec<(usize, Option<String>)> = prepared
        .dataset
        .instances
        .iter()
        .enumerate()
        .map(|(i, instance)| (i, bundle.target_of(instance).map(str::to_owned)))
        .collect();
    let verdicts = run_all(&prepared, &work, config)?;
    let workspaces: BTreeMap<&str, Workspace> = prepared
        .repositories
        .iter()
        .map(|(id, files)| {
            let mut workspace = Workspace::new();
            for (path, text) in files {
                workspace.insert(path, text.as_str());
            }
            (id.as_str(), workspace)
        })
        .collect();
    let options = IndexOptions::default();
    let scores = prepared
        .dataset
        .instances
        .iter()
        .zip(&verdicts)
        .map(|(instance, verdict)| {
            score_instance(&InstanceRun {
                instance,
                prediction: bundle
                    .predictions
                    .get(&InstanceKey::new(instance.manifest.id.as_str())),
                verdict: Some(verdict),
                repository: &workspaces[instance.manifest.repository.as_str()],
                options: &options,
                workdir,
            })
        })
        .collect();
    let report = report(scores);
    emit(json, &report, print_report)
}

/// The report as text: one row per instance, then the run's rates.
fn print_report(out: &mut impl Write, report: &RecubeReport) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<28} {:>9} {:>9} {:>9} {:>9} {:>8}",
        "instance", "passed", "external", "internal", "callers", "cost"
    )?;
    for i in &report.instances {
        let cost = i
            .cost_usd
            .map_or_else(|| "-".to_owned(), |c| format!("${c:.2}"));
        writeln!(
            out,
            "{:<28} {:>9} {:>9} {:>9} {:>9} {:>8}",
            i.instance,
            format!("{}/{}", i.all.passed, i.all.total),
            format!("{}/{}", i.external.passed, i.external.total),
            format!("{}/{}", i.internal.passed, i.internal.total),
            percent(i.caller_coverage),
            cost,
        )?;
    }
    let r = &report.rates;
    writeln!(out)?;
    for (name, score) in [
        ("SPR", r.spr),
        ("APR", r.apr),
        ("SPR external", r.spr_external),
        ("APR external", r.apr_external),
        ("SPR internal", r.spr_internal),
        ("APR internal", r.apr_internal),
        ("caller coverage", report.caller_coverage),
    ] {
        writeln!(out, "{name:<16} {}", percent(score))?;
    }
    Ok(())
}

fn percent(score: Score) -> String {
    format_value(Unit::Percent, score.value())
}
