//! `wheelwright recube prepare` and `recube prompt`: a ReCUBE instance as an agent gets it (the repository with the target masked, in its own layout, tests left out) and its prompts with their token counts.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;
use wheelwright_core::recube::dataset::{Instance, RecubeDataset};
use wheelwright_core::recube::mask::mask;
use wheelwright_core::recube::prompt::{
    RecubePrompt, agent_cce_prompt, agent_prompt, full_context_prompt, readme_and_dependencies,
};
use wheelwright_core::reporeuse::dataset::RepositorySource;
use wheelwright_core::workspace::why_removed;

use crate::cli::io::{emit, write_files};

/// The encoding token counts are given in: the GPT-4o family's (`tiktoken`'s `o200k_base`).
const TOKENIZER: &str = "o200k_base";

/// Which prompt (ReCUBE's settings: full context, or an agent exploring the workspace,
/// with or without the CCE toolkit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Setting {
    FullContext,
    Agent,
    /// The agent with the CCE toolkit's commands (`wheelwright cce`) named in its prompt.
    AgentCce,
}

/// A prompt as printed with `--json`.
#[derive(Serialize)]
struct Printed<'a> {
    instance: &'a str,
    target: &'a str,
    #[serde(flatten)]
    prompt: &'a RecubePrompt,
    tokens: usize,
    tokenizer: &'static str,
}

/// How many `o200k_base` tokens `text` is (special-token text counted as ordinary text).
fn count_tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// The repository of `instance`: its files by path (a PyPI wheel's sources, cached) and its
/// metadata (`METADATA` of the wheel; empty for a local repository).
fn repository(
    dataset: &RecubeDataset,
    instance: &Instance,
) -> anyhow::Result<(BTreeMap<String, String>, String)> {
    let id = &instance.manifest.repository;
    let source = dataset.manifest.repositories.get(id).with_context(|| {
        format!(
            "the dataset names no repository {id:?} for instance {}",
            instance.manifest.id
        )
    })?;
    match source {
        RepositorySource::Pypi(repo) => {
            let wheel = crate::dataset::pypi::wheel(
                repo,
                &crate::dataset::default_cache_dir(),
                Path::new("python3"),
            )?;
            Ok((
                crate::dataset::pypi::wheel_sources(&wheel)?,
                crate::dataset::pypi::wheel_metadata(&wheel)?,
            ))
        }
        RepositorySource::Local(_) => Ok((
            dataset
                .repository_files
                .get(id)
                .map(|files| files.iter().cloned().collect())
                .unwrap_or_default(),
            String::new(),
        )),
    }
}

/// The instance `id` of the dataset in `dir`.
fn load(dir: &Path, id: &str) -> anyhow::Result<(RecubeDataset, usize)> {
    let dataset = crate::dataset::recube::load_recube_dir(dir)?;
    let index = dataset
        .instances
        .iter()
        .position(|i| i.manifest.id == id)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "the dataset has no instance {id:?}; its instances are {}",
                dataset
                    .instances
                    .iter()
                    .map(|i| i.manifest.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
    Ok((dataset, index))
}

/// `recube prepare`: writes the instance's repository into `out` (new or empty) with its
/// target masked and its test files left out.
pub(in crate::cli) fn prepare(dir: &Path, id: &str, out: &Path) -> anyhow::Result<()> {
    let (dataset, index) = load(dir, id)?;
    let instance = &dataset.instances[index];
    let target = &instance.manifest.target;
    let (files, _) = repository(&dataset, instance)?;
    let original = files.get(target).with_context(|| {
        format!(
            "the repository {} has no file {target}, the instance's target",
            instance.manifest.repository
        )
    })?;
    let masked = mask(original);
    let mut workspace = BTreeMap::new();
    let mut removed = 0;
    for (path, text) in &files {
        if why_removed(path).is_some() {
            removed += 1;
        } else if path == target {
            workspace.insert(path.clone(), masked.text.clone());
        } else {
            workspace.insert(path.clone(), text.clone());
        }
    }
    if out.exists() && std::fs::read_dir(out)?.next().is_some() {
        anyhow::bail!(
            "{} is not empty; give a new or empty directory for the workspace",
            out.display()
        );
    }
    write_files(out, &workspace)?;
    println!(
        "wrote instance {id} to {}: {} files, {target} masked ({} bodies replaced, {} imports removed), {removed} test files left out",
        out.display(),
        workspace.len(),
        masked.bodies.len(),
        masked.imports
    );
    Ok(())
}

/// `recube prompt`: prints the instance's prompt under `setting`, with its token count on
/// standard error (or everything as JSON).
pub(in crate::cli) fn prompt(
    dir: &Path,
    id: &str,
    setting: Setting,
    json: bool,
) -> anyhow::Result<()> {
    let (dataset, index) = load(dir, id)?;
    let instance = &dataset.instances[index];
    let target = &instance.manifest.target;
    let prompt = match setting {
        Setting::Agent => agent_prompt(target, &instance.manifest.description),
        Setting::AgentCce => agent_cce_prompt(target, &instance.manifest.description),
        Setting::FullContext => {
            let (files, metadata) = repository(&dataset, instance)?;
            let (readme, dependencies) = readme_and_dependencies(&metadata);
            full_context_prompt(&readme, &dependencies, &files, target)
        }
    };
    let tokens = count_tokens(&prompt.text);
    if !json {
        eprintln!(
            "{tokens} tokens ({TOKENIZER}), template {}",
            prompt.template
        );
    }
    let printed = Printed {
        instance: id,
        target,
        prompt: &prompt,
        tokens,
        tokenizer: TOKENIZER,
    };
    emit(json, &printed, |out, p| {
        std::io::Write::write_all(out, p.prompt.text.as_bytes())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_are_o200k_base() {
        // As OpenAI's tiktoken counts them: "hello world" is [24912, 2375].
        assert_eq!(count_tokens("hello world"), 2);
        assert_eq!(count_tokens(""), 0);
        // Special-token text is ordinary text in a repository's files.
        assert!(count_tokens("<|endoftext|>") > 1);
    }
}
