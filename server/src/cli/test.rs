//! `wheelwright test`: a run bundle's hidden tests in sandboxes on this machine, with a progress bar, then the scored report.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use wheelwright_core::hidden_tests::Verdict;
use wheelwright_core::reporeuse::bundle::TurnId;
use wheelwright_core::reporeuse::scoring::{RunReport, score_run};

use super::io::{check_bundle, emit, print_report, read_bundle, read_dataset};
use crate::TestConfig;
use crate::hidden_tests::Environments;
use crate::reporeuse::hidden_tests::{TurnTest, run_turn};

/// One turn's verdict, as printed.
#[derive(Serialize)]
struct TurnVerdict {
    chain: String,
    turn: usize,
    /// Wall time of the turn's test run in the sandbox (0 when nothing had to run).
    duration_s: f64,
    #[serde(flatten)]
    verdict: Verdict,
}

#[derive(Serialize)]
struct Output {
    tests: Vec<TurnVerdict>,
    report: RunReport,
}

/// Runs the hidden tests of the bundle at `run` against the dataset at `dataset` and
/// prints the verdicts and the scored report; `workdir` replaces the dataset's working
/// directory.
pub(super) fn run(
    run: &Path,
    dataset: &Path,
    workdir: Option<&str>,
    config: &TestConfig,
    json: bool,
) -> anyhow::Result<()> {
    let bundle = read_bundle(run)?;
    let (dataset, files) = read_dataset(dataset, workdir)?;
    check_bundle(run, &bundle, &dataset)?;
    let exceptions = dataset.exception_classes(&files);
    let sandbox = config
        .sandbox()
        .map_err(|why| anyhow::anyhow!("no sandbox to run the tests in: {why}"))?;
    // Each chain's tests run in its repository's environment, built before any test runs.
    let env_dirs = Environments::new(config.env_root.clone())
        .for_every_chain(&dataset)
        .context("cannot prepare the Python environment for the tests")?;

    // Every (chain index, turn) with the agent's files of turns 1..t of its chain.
    let mut work = Vec::new();
    let mut chain_files = Vec::new();
    for (c, chain) in dataset.chains.iter().enumerate() {
        let files: Vec<BTreeMap<String, String>> = (1..=chain.turns.len())
            .map(|t| {
                bundle
                    .predictions
                    .get(&TurnId::new(chain.manifest.id.clone(), t))
                    .map(|f| f.files.clone())
                    .unwrap_or_default()
            })
            .collect();
        chain_files.push(files);
        for t in 1..=chain.turns.len() {
            work.push((c, t));
        }
    }
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(work.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "testing {bar:40} {pos}/{len} turns, {msg} tests passed, {eta} left",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, f64, anyhow::Result<Verdict>)>> = Mutex::new(Vec::new());
    let passed = AtomicUsize::new(0);
    // One thread per sandbox slot takes turns off the list until none is left.
    std::thread::scope(|scope| {
        for _ in 0..config.workers.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(c, t)) = work.get(i) else {
                        return;
                    };
                    let started = std::time::Instant::now();
                    let verdict = run_turn(
                        sandbox.as_ref(),
                        &env_dirs[c],
                        &TurnTest {
                            dataset: &dataset,
                            chain: c,
                            turn: t,
                            files: &chain_files[c],
                            exceptions: &exceptions,
                        },
                        config.turn_timeout,
                        None,
                    )
                    .map_err(anyhow::Error::from);
                    if let Ok(v) = &verdict {
                        let add = v.results().passed;
                        passed.fetch_add(add as usize, Ordering::SeqCst);
                    }
                    bar.set_message(passed.load(Ordering::SeqCst).to_string());
                    bar.inc(1);
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((i, started.elapsed().as_secs_f64(), verdict));
                }
            });
        }
    });
    bar.finish_and_clear();
    let mut results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    results.sort_by_key(|(i, _, _)| *i);
    let mut verdicts = Vec::with_capacity(results.len());
    let mut tests = BTreeMap::new();
    for (i, duration_s, verdict) in results {
        let (c, t) = work[i];
        let chain = dataset.chains[c].manifest.id.clone();
        let verdict = verdict.with_context(|| format!("testing {chain} turn {t}"))?;
        tests.insert((chain.clone(), t), verdict.results());
        verdicts.push(TurnVerdict {
            chain,
            turn: t,
            duration_s,
            verdict,
        });
    }
    let mut scored_run = bundle.into_run(&dataset);
    for (chain, chain_run) in &mut scored_run.chains {
        for (i, turn) in chain_run.turns.iter_mut().enumerate() {
            turn.tests = tests.get(&(chain.clone(), i + 1)).copied();
        }
    }
    let report = score_run(&dataset.to_score_dataset(files), &scored_run, &mut |_| {})?;
    let output = Output {
        tests: verdicts,
        report,
    };
    emit(json, &output, |out, output| {
        print_tests(out, &output.tests)?;
        writeln!(out)?;
        print_report(out, &output.report)
    })
}

fn print_tests(out: &mut impl Write, verdicts: &[TurnVerdict]) -> std::io::Result<()> {
    writeln!(out, "Hidden tests")?;
    let width = verdicts
        .iter()
        .map(|v| v.chain.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    writeln!(
        out,
        "{:<width$} turn  passed  total  seconds  verdict",
        "chain"
    )?;
    for v in verdicts {
        let verdict = match &v.verdict.tampered {
            Some(why) => format!("tampered: {why}"),
            None if v.verdict.total > 0 && v.verdict.passed == v.verdict.total => {
                "resolved".to_owned()
            }
            None => "not resolved".to_owned(),
        };
        writeln!(
            out,
            "{:<width$} {:>4}  {:>6}  {:>5}  {:>7.2}  {verdict}",
            v.chain, v.turn, v.verdict.passed, v.verdict.total, v.duration_s
        )?;
    }
    Ok(())
}
