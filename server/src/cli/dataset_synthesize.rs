//! `wheelwright dataset synthesize`: RepoReuse's pipeline step that turns each turn's recorded authoring answer (six blocks) into the turn's files, refusing any answer core finds a problem in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use wheelwright_core::dataset::RepositorySource;
use wheelwright_core::reporeuse::dataset::{DatasetManifest, TurnManifest};
use wheelwright_core::reporeuse::synthesis::{
    ChainSource, RepositoryLine, TurnContext, check_answer, parse_answer, render_turn,
};
use wheelwright_core::reporeuse::walk::WalkRecord;

use super::io::write_files;

/// Where the pipeline's records live in a dataset directory.
pub(super) const PIPELINE: &str = "pipeline";

/// What `expected.json` holds until `dataset execute` has run the reference.
const NOT_EXECUTED: &str = "{\"executed\": false, \"cases\": []}\n";

/// `wheelwright dataset synthesize DIR [--chain ID]...`: every turn of each chain under
/// `DIR/pipeline/answers/` (or the ones named) rendered into `DIR/chains/`, and the chains
/// added to `dataset.json`. An answer with a problem stops the command, naming its file and
/// every problem; nothing of that chain is written.
pub(super) fn synthesize(dir: &Path, chains: &[String]) -> anyhow::Result<()> {
    let manifest_path = dir.join("dataset.json");
    let mut manifest: DatasetManifest = serde_json::from_str(
        &std::fs::read_to_string(&manifest_path)
            .with_context(|| format!("reading {}", manifest_path.display()))?,
    )
    .with_context(|| {
        format!(
            "{} is not a RepoReuse dataset.json",
            manifest_path.display()
        )
    })?;
    let answers = dir.join(PIPELINE).join("answers");
    let ids = if chains.is_empty() {
        let mut ids: Vec<String> = std::fs::read_dir(&answers)
            .with_context(|| format!("reading {}", answers.display()))?
            .flatten()
            .filter(|e| e.path().join("chain.json").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        ids.sort();
        ids
    } else {
        chains.to_vec()
    };
    if ids.is_empty() {
        bail!(
            "{} holds no chain (a directory with chain.json and turn-<t>.md answers)",
            answers.display()
        );
    }
    for id in &ids {
        let turns = synthesize_chain(dir, &answers.join(id), &manifest)?;
        if !manifest.chains.contains(id) {
            manifest.chains.push(id.clone());
        }
        eprintln!("{id}: {turns} turns written to chains/{id}");
    }
    std::fs::write(&manifest_path, pretty(&manifest)?)
        .with_context(|| format!("writing {}", manifest_path.display()))?;
    Ok(())
}

/// The repository as requirements name it; a local one has no PyPI pin to name.
fn repository_line(source: &RepositorySource) -> anyhow::Result<RepositoryLine> {
    match source {
        RepositorySource::Pypi(repo) => Ok(RepositoryLine {
            name: repo.pypi.clone(),
            version: repo.version.clone(),
            import: repo.import.clone(),
        }),
        RepositorySource::Local(local) => bail!(
            "the dataset's repository is local ({}); the pipeline builds on a release pinned on PyPI",
            local.path
        ),
    }
}

/// The repository a chain is built on, as requirements name it, and whether its
/// `chain.json` names it (a dataset over several repositories) or not (a dataset of one,
/// which must be the chain's).
fn chain_repository(
    manifest: &DatasetManifest,
    source: &ChainSource,
) -> anyhow::Result<(RepositoryLine, bool)> {
    match &manifest.repository {
        Some(one) => {
            let line = repository_line(one)?;
            if source.repository != line.name {
                bail!(
                    "chain {} is built on {}, but the dataset's repository is {}",
                    source.id,
                    source.repository,
                    line.name
                );
            }
            Ok((line, false))
        }
        None => {
            let repo = manifest.repositories.get(&source.repository).with_context(|| {
                format!(
                    "chain {} is built on {}, which dataset.json's \"repositories\" does not list",
                    source.id, source.repository
                )
            })?;
            Ok((repository_line(repo)?, true))
        }
    }
}

/// Checks and writes one chain; the number of turns written.
fn synthesize_chain(
    dir: &Path,
    source_dir: &Path,
    manifest: &DatasetManifest,
) -> anyhow::Result<usize> {
    let source_path = source_dir.join("chain.json");
    let source: ChainSource = serde_json::from_str(
        &std::fs::read_to_string(&source_path)
            .with_context(|| format!("reading {}", source_path.display()))?,
    )
    .with_context(|| format!("{} is not a chain source", source_path.display()))?;
    let id = source.id.clone();
    if source_dir.file_name().and_then(|n| n.to_str()) != Some(id.as_str()) {
        bail!(
            "{}: \"id\" must be its directory's name",
            source_path.display()
        );
    }
    let (repository, named) = chain_repository(manifest, &source)?;
    let repository = &repository;
    let chain = source.manifest(named);
    let mut earlier: Vec<TurnManifest> = Vec::new();
    let mut files = Vec::new();
    for t in 1.. {
        let path = source_dir.join(format!("turn-{t}.md"));
        if !path.is_file() {
            break;
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let evidence = walk_evidence(dir, &id, t)?;
        let context = TurnContext {
            chain: &chain,
            turn: t,
            earlier: &earlier,
            evidence: evidence.as_deref(),
            repository,
        };
        let checked = parse_answer(&text).map(|answer| (check_answer(&answer, &context), answer));
        let answer = match checked {
            Ok((problems, answer)) if problems.is_empty() => answer,
            Ok((problems, _)) | Err(problems) => bail!(
                "{} is refused; fix it (or ask the model again):\n- {}",
                path.display(),
                problems.join("\n- ")
            ),
        };
        let turn = render_turn(&answer, &context)
            .with_context(|| format!("{}: a call does not split", path.display()))?;
        earlier.push(turn.manifest.clone());
        files.push(turn);
    }
    if files.is_empty() {
        bail!("{} has no turn-1.md", source_dir.display());
    }
    let chain_dir = dir.join("chains").join(&id);
    if chain_dir.exists() {
        // A chain is rewritten whole: a turn the answers no longer have must not stay.
        std::fs::remove_dir_all(&chain_dir)
            .with_context(|| format!("removing {}", chain_dir.display()))?;
    }
    let mut written = BTreeMap::from([("chain.json".to_owned(), pretty(&chain)?)]);
    for (i, turn) in files.iter().enumerate() {
        let dir = format!("turn-{}", i + 1);
        written.insert(format!("{dir}/turn.json"), pretty(&turn.manifest)?);
        written.insert(format!("{dir}/requirement.md"), turn.requirement.clone());
        written.insert(format!("{dir}/reference.py"), turn.reference.clone());
        written.insert(format!("{dir}/cases.json"), turn.cases_json.clone());
        written.insert(format!("{dir}/expected.json"), NOT_EXECUTED.to_owned());
    }
    write_files(&chain_dir, &written)?;
    Ok(files.len())
}

/// The evidence the walk of turn `t` selected, when the pipeline recorded a walk for it.
fn walk_evidence(dir: &Path, chain: &str, t: usize) -> anyhow::Result<Option<Vec<String>>> {
    let path: PathBuf = dir
        .join(PIPELINE)
        .join("walks")
        .join(chain)
        .join(format!("turn-{t}.json"));
    if !path.is_file() {
        return Ok(None);
    }
    let walk: WalkRecord = serde_json::from_str(
        &std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?,
    )
    .with_context(|| {
        format!(
            "{} is not a walk record (docs/formats.md, \"Walk\")",
            path.display()
        )
    })?;
    Ok(Some(walk.evidence))
}

/// `value` as pretty JSON ending with a newline, as the pipeline's files are written.
pub(super) fn pretty<T: serde::Serialize>(value: &T) -> anyhow::Result<String> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}
