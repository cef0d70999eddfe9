//! `wheelwright prepare` and `wheelwright prompt`: writes the workspace an agent gets for a RepoReuse turn (W_{t-1}) and checks that the package still imports from it; prints the turn's prompt.
//!
//! The workspace is the sources of the chain's pinned repository without tests or history
//! (`core::reporeuse::turn_workspace`) plus the agent's own files of earlier turns. The
//! package runs from the workspace: the environment beside it holds what the package
//! depends on and pytest, but not the package itself, so `import networkx` in the
//! workspace imports the files the agent reads, as in the paper's containers. The same
//! environment is what the hidden tests of ReCUBE use, built once under `--env-root`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;
use serde::Deserialize;
use wheelwright_core::bundle::Prediction;
use wheelwright_core::reporeuse::bundle::TurnId;
use wheelwright_core::reporeuse::dataset::{Chain, RepoReuseDataset, RepositorySource};
use wheelwright_core::reporeuse::prompt::{Memory, turn_prompt};
use wheelwright_core::reporeuse::turn_workspace::turn_workspace;

use super::io::{check_bundle, emit, read_bundle, read_dataset, write_files};
use crate::hidden_tests::Environments;

/// One RepoReuse turn, and the run whose earlier turns it builds on.
#[derive(Debug, clap::Args)]
pub struct TurnArgs {
    /// The dataset directory (holding dataset.json).
    #[arg(long)]
    pub dataset: PathBuf,
    /// The chain.
    #[arg(long)]
    pub chain: String,
    /// The turn (1-based).
    #[arg(long)]
    pub turn: usize,
    /// A run bundle whose files of turns 1..t-1 of the chain are the agent's earlier files.
    #[arg(long)]
    pub run: Option<PathBuf>,
}

/// Imports the package named by argv[2] with the directory argv[1] first on the path and
/// prints where it came from and which of that directory's files were imported.
const IMPORT_PROBE: &str = r#"
import importlib, json, os, sys
root = os.path.realpath(sys.argv[1])
module = importlib.import_module(sys.argv[2])
def inside(f):
    return f and os.path.realpath(f).startswith(root + os.sep)
files = sorted({os.path.relpath(os.path.realpath(m.__file__), root)
                for m in list(sys.modules.values())
                if inside(getattr(m, "__file__", None))})
print(json.dumps({"file": os.path.realpath(module.__file__), "files": files}))
"#;

/// What [`IMPORT_PROBE`] prints.
#[derive(Deserialize)]
struct Probe {
    file: String,
    files: Vec<String>,
}

/// Everything needed to write the turns' workspaces of some chains of one dataset: each
/// of their repositories' sources, environments and imports ([`AgentRepository`]).
pub(super) struct Preparer {
    pub(super) dataset: RepoReuseDataset,
    /// The repositories of the chains asked for, by repository id.
    repositories: BTreeMap<String, AgentRepository>,
}

/// One repository as agents work on it: its sources, the environment the agent runs in,
/// and which test-named files its package imports.
pub(super) struct AgentRepository {
    files: BTreeMap<String, String>,
    imported: BTreeSet<String>,
    /// The environment's Python.
    pub(super) python: PathBuf,
    /// The environment's `bin/`, put first on the agent's `PATH`.
    pub(super) bin: PathBuf,
    import: String,
}

/// What writing one turn's workspace left out, for the user.
pub(super) struct Prepared {
    pub(super) files: usize,
    pub(super) removed: usize,
    pub(super) kept_imported: Vec<String>,
}

impl AgentRepository {
    /// Reads repository `id`, `source` of `dataset` (cached under `cache_dir`) and builds
    /// or reuses its environment under `env_root`; blocking (pip may run for a minute the
    /// first time).
    fn new(
        dataset: &RepoReuseDataset,
        (id, source): (&str, &RepositorySource),
        cache_dir: &Path,
        env_root: &Path,
    ) -> anyhow::Result<Self> {
        let files = crate::dataset::repository_source(
            dataset,
            id,
            source,
            cache_dir,
            Path::new("python3"),
        )?;
        let import = source.import().to_owned();
        let env = Environments::new(env_root.to_owned())
            .for_agents_of(source, &mut |step| {
                tracing::info!("agent environment: {step:?}");
            })
            .context("cannot build the Python environment the agent runs in")?;
        let bin = env.join("bin");
        let python = bin.join("python");
        // Which of the repository's test-named files the package needs when imported:
        // import it once from a full copy.
        let full = tempfile::tempdir().context("creating a temporary directory")?;
        write_files(full.path(), &files)?;
        let probe = probe_import(&python, full.path(), &import).with_context(|| {
            format!("the repository's package {import} does not import even with its tests")
        })?;
        let imported = probe.files.into_iter().collect();
        Ok(Self {
            files,
            imported,
            python,
            bin,
            import,
        })
    }
}

impl Preparer {
    /// Reads the repositories the chains `chains` (ids of `dataset`) run on (cached under
    /// `cache_dir`) and builds or reuses their environments under `env_root`; blocking
    /// (pip may run for a minute the first time for each).
    pub(super) fn new(
        dataset: RepoReuseDataset,
        chains: &[String],
        cache_dir: &Path,
        env_root: &Path,
    ) -> anyhow::Result<Self> {
        let mut repositories = BTreeMap::new();
        for id in chains {
            let chain = find_chain(&dataset, id)?;
            let (repo_id, source) = repository_of(&dataset, chain)?;
            if !repositories.contains_key(repo_id) {
                let repository =
                    AgentRepository::new(&dataset, (repo_id, source), cache_dir, env_root)?;
                repositories.insert(repo_id.to_owned(), repository);
            }
        }
        Ok(Self {
            dataset,
            repositories,
        })
    }

    /// The repository `chain` runs on, as [`Preparer::new`] prepared it.
    pub(super) fn repository(&self, chain: &Chain) -> anyhow::Result<&AgentRepository> {
        let (id, _) = repository_of(&self.dataset, chain)?;
        self.repositories.get(id).with_context(|| {
            format!(
                "the repository of chain {} was not prepared; ask for the chain when preparing",
                chain.manifest.id
            )
        })
    }

    /// Writes the workspace of turn `turn` of `chain` into `dir` (created; it must not
    /// exist or be empty) and checks that the package imports from it.
    pub(super) fn write(
        &self,
        chain: &Chain,
        turn: usize,
        earlier: &[(String, String)],
        dir: &Path,
    ) -> anyhow::Result<Prepared> {
        if dir.exists()
            && std::fs::read_dir(dir)
                .with_context(|| format!("reading {}", dir.display()))?
                .next()
                .is_some()
        {
            anyhow::bail!(
                "{} is not empty; give a new or empty directory for the workspace",
                dir.display()
            );
        }
        let repository = self.repository(chain)?;
        // The repository without its tests, then the agent's own files of turns 1..t-1.
        let workspace = turn_workspace(&repository.files, &repository.imported, earlier);
        write_files(dir, &workspace.files)?;
        let probe = probe_import(&repository.python, dir, &repository.import).with_context(|| {
            format!(
                "the package {} no longer imports once the tests are removed from turn {turn} of {}",
                repository.import, chain.manifest.id
            )
        })?;
        let root = dir.canonicalize()?;
        if !Path::new(&probe.file).starts_with(&root) {
            anyhow::bail!(
                "{} was imported from {}, not from the workspace; the environment must not hold the package",
                repository.import,
                probe.file
            );
        }
        Ok(Prepared {
            files: workspace.files.len(),
            removed: workspace.removed.len(),
            kept_imported: workspace.kept_imported,
        })
    }

    /// The chain `id` of the dataset.
    pub(super) fn chain(&self, id: &str) -> anyhow::Result<&Chain> {
        find_chain(&self.dataset, id)
    }
}

/// Imports `import` with `python` from `dir` (first on the path, no bytecode written).
fn probe_import(python: &Path, dir: &Path, import: &str) -> anyhow::Result<Probe> {
    let output = Command::new(python)
        .args(["-c", IMPORT_PROBE])
        .arg(dir)
        .arg(import)
        .current_dir(dir)
        .env("PYTHONPATH", dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .with_context(|| format!("running {}", python.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        anyhow::bail!(
            "import {import} failed: {}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    serde_json::from_slice(&output.stdout).context("reading what the import probe printed")
}

/// `wheelwright prepare`: writes turn `turn` of `chain` into `out`, with the agent's
/// earlier files read from the run bundle `run` (its turns 1..t-1), and prints a summary.
pub(super) fn run(args: &TurnArgs, out: &Path, env_root: &Path) -> anyhow::Result<()> {
    let (dataset, _) = read_dataset(&args.dataset, None)?;
    let preparer = Preparer::new(
        dataset,
        std::slice::from_ref(&args.chain),
        &crate::dataset::default_cache_dir(),
        env_root,
    )?;
    let chain = preparer.chain(&args.chain)?;
    let turn = args.turn;
    check_turn(chain, turn)?;
    let mut earlier = Vec::new();
    for (id, prediction) in earlier_turns(args, &preparer.dataset)? {
        if id.chain == chain.manifest.id && id.turn < turn {
            earlier.extend(prediction.files);
        }
    }
    let prepared = preparer.write(chain, turn, &earlier, out)?;
    println!(
        "wrote turn {turn} of {} to {}: {} files ({} of them the agent's own), {} test files removed{}",
        chain.manifest.id,
        out.display(),
        prepared.files,
        earlier.len(),
        prepared.removed,
        if prepared.kept_imported.is_empty() {
            String::new()
        } else {
            format!(
                ", {} kept because the package imports them ({})",
                prepared.kept_imported.len(),
                prepared.kept_imported.join(", ")
            )
        }
    );
    println!(
        "the package imports from it with {} (PYTHONPATH={})",
        preparer.repository(chain)?.python.display(),
        out.display()
    );
    Ok(())
}

/// `wheelwright prompt`: prints the prompt of turn `turn` of `chain` under `memory`; the
/// agent's earlier files (memory "source") come from the run bundle `run`. With `json`, the
/// prompt with its template version and memory setting.
pub(super) fn print_prompt(args: &TurnArgs, memory: Memory, json: bool) -> anyhow::Result<()> {
    let dataset = crate::dataset::load_dir(&args.dataset)?;
    let chain = find_chain(&dataset, &args.chain)?;
    let turn = args.turn;
    check_turn(chain, turn)?;
    let predictions = earlier_turns(args, &dataset)?;
    let earlier: Vec<Option<String>> = (1..turn)
        .map(|t| {
            let path = &chain.turns[t - 1].manifest.module_path;
            predictions
                .get(&TurnId::new(chain.manifest.id.clone(), t))
                .and_then(|p| p.files.get(path).cloned())
        })
        .collect();
    let prompt = turn_prompt(chain, turn, memory, &earlier);
    emit(json, &prompt, |out, p| {
        std::io::Write::write_all(out, p.text.as_bytes())
    })
}

/// The turns of the run bundle `--run` names (none without one), checked against `dataset`.
fn earlier_turns(
    args: &TurnArgs,
    dataset: &RepoReuseDataset,
) -> anyhow::Result<BTreeMap<TurnId, Prediction>> {
    let Some(run) = &args.run else {
        return Ok(BTreeMap::new());
    };
    let bundle = read_bundle(run)?;
    check_bundle(run, &bundle, dataset)?;
    Ok(bundle.predictions)
}

/// The chain `id` of `dataset`.
fn find_chain<'a>(dataset: &'a RepoReuseDataset, id: &str) -> anyhow::Result<&'a Chain> {
    dataset
        .chains
        .iter()
        .find(|c| c.manifest.id == id)
        .ok_or_else(|| {
            let ids: Vec<&str> = dataset
                .chains
                .iter()
                .map(|c| c.manifest.id.as_str())
                .collect();
            anyhow::anyhow!(
                "the dataset has no chain {id:?}; its chains are {}",
                ids.join(", ")
            )
        })
}

/// The id and source of the repository `chain` of `dataset` runs on.
fn repository_of<'a>(
    dataset: &'a RepoReuseDataset,
    chain: &Chain,
) -> anyhow::Result<(&'a str, &'a RepositorySource)> {
    dataset
        .manifest
        .repository_of(&chain.manifest)
        .with_context(|| {
            format!(
                "chain {} names no repository of the dataset; fix its chain.json \"repository\"",
                chain.manifest.id
            )
        })
}

/// Refuses a turn number `chain` does not have.
fn check_turn(chain: &Chain, turn: usize) -> anyhow::Result<()> {
    if turn == 0 || turn > chain.turns.len() {
        anyhow::bail!(
            "chain {} has turns 1 to {}; --turn {turn} is not one of them",
            chain.manifest.id,
            chain.turns.len()
        );
    }
    Ok(())
}
