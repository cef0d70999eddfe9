//! `wheelwright dataset execute`: RepoReuse's pipeline step that gives every turn its expected values by running its reference in the sandbox, keeping only the cases every run agrees on.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;
use wheelwright_core::reporeuse::dataset::{RepositorySource, turn_dir};
use wheelwright_core::reporeuse::execution::{Discarded, RUNS, expected_json, kept_cases_json};
use wheelwright_core::reporeuse::synthesis::MIN_CASES;

use super::dataset_synthesize::{PIPELINE, pretty};
use super::io::emit;
use super::pool::in_slots;
use crate::TestConfig;
use crate::hidden_tests::Environments;
use crate::reporeuse::execute::execute_turn;

/// One turn's execution, as recorded in `pipeline/execution/<chain>/turn-<t>.json` and
/// printed.
#[derive(Serialize)]
struct TurnExecution {
    chain: String,
    turn: usize,
    runs: usize,
    proposed: usize,
    kept: usize,
    discarded: Vec<Discarded>,
    /// Fewer than [`MIN_CASES`] kept: the turn must be synthesized again.
    too_few: bool,
}

/// `wheelwright dataset execute DIR [--chain ID]...`: each turn of the chains (all when
/// none is named) run, its `expected.json` and `cases.json` rewritten with the kept cases
/// and the record written; an error naming the turns left with too few cases.
pub(super) fn execute(
    dir: &Path,
    chains: &[String],
    config: &TestConfig,
    json: bool,
) -> anyhow::Result<()> {
    // What synthesize wrote has no expected values yet, so the dataset is read without the
    // checks that need them; synthesize has checked the rest.
    let dataset = crate::dataset::read_dir_unvalidated(dir)?;
    let files = crate::dataset::repository_sources(
        &dataset,
        &crate::dataset::default_cache_dir(),
        Path::new("python3"),
    )?;
    // Static first: a reference that does not use its evidence, or evidence the repository
    // does not define, is the answer's fault; running it would only hide that.
    let static_problems: Vec<String> = crate::dataset::verify::check_targets(&dataset, &files)
        .into_iter()
        .filter(|c| chains.is_empty() || chains.contains(&c.chain))
        .flat_map(|c| {
            c.problems()
                .into_iter()
                .map(move |p| format!("{} turn {}: {p}", c.chain, c.turn))
        })
        .collect();
    if !static_problems.is_empty() {
        anyhow::bail!(
            "the references do not stand on their evidence; fix the answers and synthesize again:\n- {}",
            static_problems.join("\n- ")
        );
    }
    let classes = dataset.exception_classes(&files);
    let sandbox = config
        .sandbox()
        .map_err(|why| anyhow::anyhow!("no sandbox to run the references in: {why}"))?;
    let env_dirs = Environments::new(config.env_root.clone())
        .for_every_chain(&dataset)
        .context("cannot prepare the Python environment")?;
    // Per chain: its repository's id and pin, for its exception classes and expected.json.
    let mut repositories = Vec::with_capacity(dataset.chains.len());
    for (chain, env_dir) in dataset.chains.iter().zip(env_dirs) {
        let Some((id, RepositorySource::Pypi(repo))) =
            dataset.manifest.repository_of(&chain.manifest)
        else {
            anyhow::bail!(
                "chain {} is not on a release pinned on PyPI; hidden tests and execution need one",
                chain.manifest.id
            );
        };
        repositories.push((
            id.to_owned(),
            format!("{}=={}", repo.pypi, repo.version),
            env_dir,
        ));
    }
    let work: Vec<(usize, usize)> = dataset
        .chains
        .iter()
        .enumerate()
        .filter(|(_, c)| chains.is_empty() || chains.contains(&c.manifest.id))
        .flat_map(|(c, chain)| (1..=chain.turns.len()).map(move |t| (c, t)))
        .collect();
    if work.is_empty() {
        anyhow::bail!("no chain to execute in {}", dir.display());
    }
    let no_classes = wheelwright_core::hidden_tests::compare::ExceptionClasses::default();
    let results = in_slots(&work, config.workers, "turns", |&(c, t)| {
        let (id, _, env_dir) = &repositories[c];
        execute_turn(
            sandbox.as_ref(),
            env_dir,
            &dataset,
            c,
            t,
            classes.get(id).unwrap_or(&no_classes),
            config.turn_timeout,
        )
    });
    let mut records = Vec::new();
    for (&(c, t), result) in work.iter().zip(results) {
        let chain = &dataset.chains[c];
        let id = &chain.manifest.id;
        let executed = result.with_context(|| format!("executing {id} turn {t}"))?;
        let turn_path = dir.join(turn_dir(id, t));
        std::fs::write(
            turn_path.join("expected.json"),
            expected_json(id, t, &repositories[c].1, &executed.kept),
        )?;
        std::fs::write(
            turn_path.join("cases.json"),
            kept_cases_json(&executed.kept),
        )?;
        let record = TurnExecution {
            chain: id.clone(),
            turn: t,
            runs: RUNS,
            proposed: executed.kept.len() + executed.discarded.len(),
            kept: executed.kept.len(),
            too_few: executed.kept.len() < MIN_CASES,
            discarded: executed.discarded,
        };
        let record_path = dir
            .join(PIPELINE)
            .join("execution")
            .join(id)
            .join(format!("turn-{t}.json"));
        std::fs::create_dir_all(record_path.parent().unwrap_or(dir))?;
        std::fs::write(&record_path, pretty(&record)?)?;
        records.push(record);
    }
    emit(json, &records, |out, records| {
        writeln!(out, "chain\tturn\tproposed\tkept\tdiscarded")?;
        for r in records {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}",
                r.chain,
                r.turn,
                r.proposed,
                r.kept,
                r.discarded.len()
            )?;
            for d in &r.discarded {
                writeln!(out, "  discarded {}: {}", d.id, d.why)?;
            }
        }
        Ok(())
    })?;
    let short: Vec<String> = records
        .iter()
        .filter(|r| r.too_few)
        .map(|r| format!("{} turn {} ({} kept)", r.chain, r.turn, r.kept))
        .collect();
    if !short.is_empty() {
        anyhow::bail!(
            "{} left with fewer than {MIN_CASES} cases; synthesize them again: {}",
            if short.len() == 1 {
                "a turn is"
            } else {
                "turns are"
            },
            short.join(", ")
        );
    }
    Ok(())
}
