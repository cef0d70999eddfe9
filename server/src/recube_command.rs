//! `wheelwright recube verify` and `wheelwright recube test`: ReCUBE instances' hidden tests in sandboxes on this machine, with a progress bar.
//!
//! `verify` checks a dataset as its instances must hold: with the original target every
//! listed test passes, with the masked target (`wheelwright mask`) none does. `test` runs a
//! run bundle's rebuilt targets and prints core's scores (`recube::scoring`).

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use wheelwright_core::bundle::COMMAND_LINE_LIMITS;
use wheelwright_core::dataset::RepositorySource;
use wheelwright_core::hidden_tests::Verdict;
use wheelwright_core::metric::{Score, Unit, format_value};
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::recube::bundle::{InstanceKey, RecubeBundle};
use wheelwright_core::recube::dataset::RecubeDataset;
use wheelwright_core::recube::mask::mask;
use wheelwright_core::recube::scoring::{InstanceRun, RecubeReport, report, score_instance};
use wheelwright_core::workspace::Workspace;

use crate::TestConfig;
use crate::cli::io::emit;
use crate::hidden_tests::Environments;
use crate::recube_tests::{InstanceTest, run_instance};

/// A ReCUBE dataset with its repositories' files and test environments.
struct Prepared {
    dataset: RecubeDataset,
    /// Each repository's files, by repository id.
    repositories: BTreeMap<String, BTreeMap<String, String>>,
    /// Each repository's environment, by repository id.
    environments: BTreeMap<String, std::path::PathBuf>,
}

/// Fetches `dataset`'s repositories and builds their environments.
fn prepare(dataset: RecubeDataset, config: &TestConfig) -> anyhow::Result<Prepared> {
    let cache = crate::dataset::default_cache_dir();
    let environments_root = Environments::new(config.env_root.clone());
    let mut repositories = BTreeMap::new();
    let mut environments = BTreeMap::new();
    for (id, source) in &dataset.manifest.repositories {
        let files = match source {
            RepositorySource::Pypi(repo) => {
                crate::dataset::pypi::repository_source(repo, &cache)
                    .with_context(|| format!("cannot fetch the repository {id}"))?
            }
            RepositorySource::Local(_) => dataset
                .repository_files
                .get(id)
                .map(|files| files.iter().cloned().collect())
                .unwrap_or_default(),
        };
        repositories.insert(id.clone(), files);
        let env = environments_root
            .for_dependencies_of(source, &mut |step| eprintln!("environment: {step:?}"))
            .with_context(|| format!("cannot prepare the Python environment of {id}"))?;
        environments.insert(id.clone(), env);
    }
    Ok(Prepared {
        dataset,
        repositories,
        environments,
    })
}

/// Runs every `(instance index, target text)` of `work` in sandboxes, a worker per slot,
/// with a progress bar; the verdicts in the order of `work`.
fn run_all(
    prepared: &Prepared,
    work: &[(usize, Option<String>)],
    config: &TestConfig,
) -> anyhow::Result<Vec<Verdict>> {
    let sandbox = config
        .sandbox()
        .map_err(|why| anyhow::anyhow!("no sandbox to run the tests in: {why}"))?;
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(work.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("testing {bar:40} {pos}/{len} instances, {eta} left")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, anyhow::Result<Verdict>)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..config.workers.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some((index, target)) = work.get(i) else {
                        return;
                    };
                    let instance = &prepared.dataset.instances[*index];
                    let repository = &instance.manifest.repository;
                    let verdict = run_instance(
                        sandbox.as_ref(),
                        &prepared.environments[repository],
                        &InstanceTest {
                            instance,
                            repository: &prepared.repositories[repository],
                            target: target.as_deref(),
                        },
                        config.turn_timeout,
                        None,
                    )
                    .with_context(|| format!("testing {}", instance.manifest.id));
                    bar.inc(1);
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((i, verdict));
                }
            });
        }
    });
    bar.finish_and_clear();
    let mut results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, verdict)| verdict).collect()
}

/// One instance's check by `verify`.
#[derive(Serialize)]
struct InstanceCheck {
    instance: String,
    tests: usize,
    /// Listed tests the original target passes (all must).
    original_passed: usize,
    /// Listed tests the masked target passes (none may).
    masked_passed: usize,
    /// What went wrong, if anything: the tests that did not behave.
    problems: Vec<String>,
}

/// `wheelwright recube verify DIR`.
pub(crate) fn verify(dir: &Path, config: &TestConfig, json: bool) -> anyhow::Result<()> {
    let prepared = prepare(crate::dataset::recube::load_recube_dir(dir)?, config)?;
    let mut work = Vec::new();
    for (i, instance) in prepared.dataset.instances.iter().enumerate() {
        let files = &prepared.repositories[&instance.manifest.repository];
        let original = files.get(&instance.manifest.target).with_context(|| {
            format!(
                "{}: the repository has no {}",
                instance.manifest.id, instance.manifest.target
            )
        })?;
        work.push((i, Some(original.clone())));
        work.push((i, Some(mask(original).text)));
    }
    let verdicts = run_all(&prepared, &work, config)?;
    let mut checks = Vec::new();
    for (i, instance) in prepared.dataset.instances.iter().enumerate() {
        let tests = &instance.manifest.tests;
        let judged =
            |verdict: &Verdict| wheelwright_core::recube::metrics::judge(tests, Some(verdict));
        let original = judged(&verdicts[2 * i]);
        let masked = judged(&verdicts[2 * i + 1]);
        let mut problems = Vec::new();
        for ((test, o), m) in tests.iter().zip(&original).zip(&masked) {
            if !o.passed {
                problems.push(format!(
                    "{}::{} fails with the original",
                    test.module, test.name
                ));
            }
            if m.passed {
                problems.push(format!(
                    "{}::{} passes with the masked file",
                    test.module, test.name
                ));
            }
        }
        for verdict in [&verdicts[2 * i], &verdicts[2 * i + 1]] {
            if let Some(why) = &verdict.tampered {
                problems.push(format!("a run was not believed: {why}"));
            }
        }
        checks.push(InstanceCheck {
            instance: instance.manifest.id.clone(),
            tests: tests.len(),
            original_passed: original.iter().filter(|t| t.passed).count(),
            masked_passed: masked.iter().filter(|t| t.passed).count(),
            problems,
        });
    }
    emit(json, &checks, |out, checks| {
        writeln!(
            out,
            "{:<28} {:>6} {:>9} {:>7}",
            "instance", "tests", "original", "masked"
        )?;
        for c in checks {
            writeln!(
                out,
                "{:<28} {:>6} {:>9} {:>7}",
                c.instance, c.tests, c.original_passed, c.masked_passed
            )?;
            for problem in &c.problems {
                writeln!(out, "  problem: {problem}")?;
            }
        }
        Ok(())
    })?;
    if checks.iter().any(|c| !c.problems.is_empty()) {
        anyhow::bail!("the dataset in {} failed verification", dir.display());
    }
    Ok(())
}

/// `wheelwright recube test RUN --dataset DIR`.
pub(crate) fn test(
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
