//! `wheelwright dataset verify`: each turn of a dataset directory checked the way the paper's pipeline does (the checks are `crate::dataset::verify`'s), with a table, notes and failures.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use wheelwright_core::reporeuse::dataset::{RepositorySource, empty_module, turn_dir};

use crate::dataset::verify::{
    PytestCounts, TargetCheck, check_targets, expected_count, regenerate, run_turn_tests,
};

/// `wheelwright dataset verify DIR`: the report on standard output; an error when any check
/// failed.
pub(super) fn verify(
    dir: &Path,
    python: PathBuf,
    cache_dir: Option<PathBuf>,
    skip_execution: bool,
) -> anyhow::Result<()> {
    let options = VerifyOptions {
        python,
        cache_dir: cache_dir.unwrap_or_else(crate::dataset::default_cache_dir),
        execute: !skip_execution,
        progress: std::io::stderr().is_terminal(),
    };
    let mut out = std::io::stdout().lock();
    if verify_dir(dir, &options, &mut out)? {
        Ok(())
    } else {
        anyhow::bail!("the dataset in {} failed verification", dir.display())
    }
}

/// What `wheelwright dataset verify` does.
#[derive(Clone, Debug)]
struct VerifyOptions {
    /// The Python that runs pip and creates the venv.
    python: std::path::PathBuf,
    /// Where wheels and venvs are cached.
    cache_dir: std::path::PathBuf,
    /// Run the tests and the generator (step 3); without, only steps 1 and 2.
    execute: bool,
    /// Show a progress bar on standard error.
    progress: bool,
}

/// One row of the verification table.
#[derive(Clone, Debug, Serialize)]
struct TurnVerdict {
    targets: TargetCheck,
    tests: Option<usize>,
    repo_targets: usize,
    self_targets: usize,
    /// `None` when not executed.
    regenerated: Option<bool>,
    reference: Option<PytestCounts>,
    empty: Option<PytestCounts>,
    /// The `copy` baseline's run.
    copy: Option<PytestCounts>,
    /// Targets copied into the `copy` baseline, and what could not be copied.
    copied: usize,
    copy_diagnostics: Vec<String>,
}

impl TurnVerdict {
    fn failures(&self) -> Vec<String> {
        let mut out = self.targets.problems();
        let n = self.tests.unwrap_or(0);
        if self.tests.is_none() {
            out.push("expected.json has no \"cases\" list".to_owned());
        }
        if self.regenerated == Some(false) {
            out.push("regenerating by execution gives different expected.json or tests; run tools/generate_tests.py and review".to_owned());
        }
        if let Some(r) = self.reference
            && !(r.collected == n && r.passed == n)
        {
            out.push(format!(
                "the reference passes {}/{n} tests (collected {})",
                r.passed, r.collected
            ));
        }
        if let Some(e) = self.empty
            && !(e.collected == n && e.failed == n)
        {
            out.push(format!(
                "an empty implementation fails {}/{n} tests (collected {}); every test must fail",
                e.failed, e.collected
            ));
        }
        if let Some(c) = self.copy
            && !(c.collected == n && c.passed == n)
        {
            out.push(format!(
                "the copy baseline passes {}/{n} tests (collected {}); a copy must keep the reference's behaviour",
                c.passed, c.collected
            ));
        }
        out
    }
}

/// The module a turn's tests are run against.
#[derive(Clone, Copy)]
enum Module {
    /// The turn's reference solution: every test passes.
    Reference,
    /// The targets' signatures with empty bodies: the tests must fail.
    Empty,
    /// What the copy baseline submits.
    Copy,
}

/// Verifies the dataset in `dir`, printing progress, a per-turn table, notes and failures
/// to `out`; `Ok(true)` when every check passed.
fn verify_dir(
    dir: &Path,
    options: &VerifyOptions,
    out: &mut impl std::io::Write,
) -> anyhow::Result<bool> {
    let dataset = crate::dataset::load_dir(dir)?;
    writeln!(
        out,
        "dataset {} version {} ({}), {} chains, {} turns, content hash {}",
        dataset.manifest.name,
        dataset.manifest.version,
        dataset.manifest.benchmark.id(),
        dataset.chains.len(),
        dataset.turn_count(),
        dataset.content_hash()
    )?;
    writeln!(out, "structure: ok")?;
    let files = crate::dataset::repository_sources(&dataset, &options.cache_dir, &options.python)?;
    let sources = dataset.manifest.repository_sources();
    for (id, source) in &sources {
        let count = files.get(*id).map_or(0, BTreeMap::len);
        // A dataset of several repositories says which id each line is.
        let label = if dataset.manifest.repository.is_some() {
            String::new()
        } else {
            format!(" {id}")
        };
        match source {
            RepositorySource::Pypi(r) => writeln!(
                out,
                "repository{label}: {}=={} ({count} Python files from its wheel)",
                r.pypi, r.version
            )?,
            RepositorySource::Local(r) => writeln!(
                out,
                "repository{label}: {} ({count} Python files, local)",
                r.path
            )?,
        }
    }
    let checks = check_targets(&dataset, &files);
    let copies = wheelwright_core::reporeuse::baseline::copy_modules(&dataset, &files);
    let mut verdicts: Vec<TurnVerdict> = Vec::new();
    let mut turn_refs = Vec::new();
    let mut k = 0;
    for chain in &dataset.chains {
        for (i, turn) in chain.turns.iter().enumerate() {
            verdicts.push(TurnVerdict {
                targets: checks[k].clone(),
                tests: expected_count(turn),
                repo_targets: turn.manifest.repo_targets.len(),
                self_targets: turn.manifest.self_targets.len(),
                regenerated: None,
                reference: None,
                empty: None,
                copy: None,
                copied: copies[k].copied.len(),
                copy_diagnostics: copies[k].diagnostics.clone(),
            });
            turn_refs.push((chain, i));
            k += 1;
        }
    }
    let mut general_failures = Vec::new();
    if options.execute {
        // Each repository's environment; a chain's tests run in its repository's.
        let mut pythons = BTreeMap::new();
        for (id, source) in &sources {
            let RepositorySource::Pypi(repo) = source else {
                anyhow::bail!(
                    "running the tests needs a PyPI repository to install; a local repository ({id}) can be verified only with --skip-execution so far"
                );
            };
            let python =
                crate::dataset::pypi::venv_python(repo, &options.cache_dir, &options.python)?;
            pythons.insert((*id).to_owned(), python);
        }
        eprintln!("regenerating expected values and tests by running the references ...");
        let regeneration = regenerate(&pythons, &dataset)?;
        for (v, (chain, i)) in verdicts.iter_mut().zip(&turn_refs) {
            v.regenerated = regeneration
                .same
                .get(&(chain.manifest.id.clone(), i + 1))
                .copied();
        }
        for (chain, output) in regeneration.failed {
            general_failures.push(format!(
                "chains/{chain}: tools/generate_tests.py {chain} failed:\n{}",
                output
                    .lines()
                    .map(|l| format!("    {l}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
        // Each turn's three pytest runs (reference, empty module, the copy baseline) are
        // separate processes in their own workspaces: run on every core (rayon), they take
        // half the time on two.
        let runs: Vec<(usize, Module)> = (0..verdicts.len())
            .flat_map(|k| [Module::Reference, Module::Empty, Module::Copy].map(|m| (k, m)))
            .collect();
        let bar = if options.progress {
            let bar = indicatif::ProgressBar::new(runs.len() as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "testing {bar:40} {pos}/{len} pytest runs (3 a turn)",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        } else {
            indicatif::ProgressBar::hidden()
        };
        let counts: Vec<Result<PytestCounts, _>> = runs
            .par_iter()
            .map(|&(k, module)| {
                let (chain, i) = turn_refs[k];
                let turn = &chain.turns[i];
                let text = match module {
                    Module::Reference => turn.reference.clone(),
                    Module::Empty => empty_module(&turn.manifest),
                    Module::Copy => copies[k].text.clone(),
                };
                let python = dataset
                    .manifest
                    .repository_of(&chain.manifest)
                    .and_then(|(id, _)| pythons.get(id));
                // load_dir validated that every chain names a repository of the dataset.
                let Some(python) = python else {
                    return Err(crate::dataset::DatasetError::Repository {
                        what: format!("chains/{}/chain.json", chain.manifest.id),
                        message: "names no repository of the dataset".to_owned(),
                    });
                };
                let counts = run_turn_tests(python, &chain.turns, i, &text);
                bar.inc(1);
                counts
            })
            .collect();
        for ((k, module), counts) in runs.into_iter().zip(counts) {
            let slot = match module {
                Module::Reference => &mut verdicts[k].reference,
                Module::Empty => &mut verdicts[k].empty,
                Module::Copy => &mut verdicts[k].copy,
            };
            *slot = Some(counts?);
        }
        bar.finish_and_clear();
    }
    print_table(out, &verdicts)?;
    let notes: Vec<&TurnVerdict> = verdicts
        .iter()
        .filter(|v| !v.targets.undeclared.is_empty())
        .collect();
    if !notes.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Notes: definitions the references use but do not declare as targets (derived from the reference)"
        )?;
        for v in notes {
            writeln!(
                out,
                "  {} turn {}: {}",
                v.targets.chain,
                v.targets.turn,
                v.targets.undeclared.join(", ")
            )?;
        }
    }
    let copy_notes: Vec<&TurnVerdict> = verdicts
        .iter()
        .filter(|v| !v.copy_diagnostics.is_empty())
        .collect();
    if !copy_notes.is_empty() {
        writeln!(out)?;
        writeln!(out, "Notes: what the copy baseline could not copy")?;
        for v in copy_notes {
            writeln!(
                out,
                "  {} turn {}: {}",
                v.targets.chain,
                v.targets.turn,
                v.copy_diagnostics.join("; ")
            )?;
        }
    }
    let mut failures = general_failures;
    for v in &verdicts {
        for f in v.failures() {
            failures.push(format!(
                "{}: {f}",
                turn_dir(&v.targets.chain, v.targets.turn)
            ));
        }
    }
    let total: usize = verdicts.iter().filter_map(|v| v.tests).sum();
    writeln!(out)?;
    writeln!(
        out,
        "{} chains, {} turns, {} tests{}",
        dataset.chains.len(),
        verdicts.len(),
        total,
        if options.execute {
            ""
        } else {
            " (not executed: --skip-execution)"
        }
    )?;
    if failures.is_empty() {
        writeln!(out, "all checks passed")?;
        Ok(true)
    } else {
        writeln!(out, "FAILURES:")?;
        for f in &failures {
            writeln!(out, "  {f}")?;
        }
        Ok(false)
    }
}

fn print_table(out: &mut impl std::io::Write, verdicts: &[TurnVerdict]) -> std::io::Result<()> {
    let width = verdicts
        .iter()
        .map(|v| v.targets.chain.len())
        .max()
        .unwrap_or(0)
        .max("chain".len());
    writeln!(out)?;
    writeln!(
        out,
        "{:<width$} {:>4} {:>5} {:>4} {:>4} {:>7} {:>5} {:>8} {:>10} {:>6} {:>9}",
        "chain",
        "turn",
        "tests",
        "repo",
        "self",
        "targets",
        "regen",
        "ref pass",
        "empty fail",
        "copied",
        "copy pass"
    )?;
    let counts = |c: Option<PytestCounts>, f: fn(PytestCounts) -> usize, n: Option<usize>| {
        c.map_or_else(
            || "-".to_owned(),
            |c| format!("{}/{}", f(c), n.unwrap_or(0)),
        )
    };
    for v in verdicts {
        writeln!(
            out,
            "{:<width$} {:>4} {:>5} {:>4} {:>4} {:>7} {:>5} {:>8} {:>10} {:>6} {:>9}",
            v.targets.chain,
            v.targets.turn,
            v.tests.map_or_else(|| "?".to_owned(), |n| n.to_string()),
            v.repo_targets,
            v.self_targets,
            if v.targets.ok() { "ok" } else { "FAIL" },
            match v.regenerated {
                None => "-",
                Some(true) => "ok",
                Some(false) => "FAIL",
            },
            counts(v.reference, |c| c.passed, v.tests),
            counts(v.empty, |c| c.failed, v.tests),
            format!("{}/{}", v.copied, v.repo_targets + v.self_targets),
            counts(v.copy, |c| c.passed, v.tests),
        )?;
    }
    Ok(())
}
