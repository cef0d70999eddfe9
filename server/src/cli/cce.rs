//! `wheelwright cce`: ReCUBE's caller-centric exploration tools, as a harness hands them to an agent.
//!
//! Each command reads a repository directory, withholds the target file from its
//! dependency graph (core's `recube::graph`) and prints what an agent may know: the four
//! views of the target, where an entity is used, or where a name is defined. Inside an
//! agent's workspace the target is the masked file; masking is idempotent, so the views
//! are the same when it is the original.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::recube::graph::Graph;
use wheelwright_core::recube::mask::mask;
use wheelwright_core::recube::views::Context;
use wheelwright_core::workspace::Workspace;

use super::io::emit;

#[derive(Debug, Subcommand)]
pub enum CceCommand {
    /// The four views of the target: caller patterns, inheritance, module context and
    /// similar files.
    Context {
        #[command(flatten)]
        repo: RepoArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Where ENTITY (a qualified name: `pkg.mod.Class.method`) is imported, called or
    /// inherited from, most uses first.
    Usages {
        entity: String,
        #[command(flatten)]
        repo: RepoArgs,
        #[arg(long)]
        json: bool,
    },
    /// The classes, functions and files whose name contains each NAME (any case).
    Search {
        #[arg(required = true)]
        names: Vec<String>,
        #[command(flatten)]
        repo: RepoArgs,
        #[arg(long)]
        json: bool,
    },
}

/// The repository and the file withheld from its graph.
#[derive(Debug, Args)]
pub struct RepoArgs {
    /// The repository directory.
    #[arg(long)]
    repo: PathBuf,
    /// The target file, relative to the repository (`pkg/mod.py`).
    #[arg(long)]
    target: String,
    /// A source root stripped from paths to name modules (`src` for a src/ layout).
    #[arg(long = "source-root")]
    source_roots: Vec<String>,
}

impl RepoArgs {
    /// The repository's files and its graph with the target withheld.
    fn load(&self) -> anyhow::Result<(Workspace, Graph)> {
        let files = crate::dataset::read_source_tree(&self.repo, &self.repo, ".")
            .with_context(|| format!("reading the repository {}", self.repo.display()))?;
        let mut workspace = Workspace::new();
        for (path, text) in files {
            workspace.insert(&path, text);
        }
        let options = IndexOptions {
            source_roots: self.source_roots.clone(),
        };
        let graph = Graph::build(&workspace, &self.target, &options);
        Ok((workspace, graph))
    }
}

/// Runs one `cce` command.
pub(super) fn execute(command: CceCommand) -> anyhow::Result<()> {
    match command {
        CceCommand::Context { repo, json } => {
            let (workspace, graph) = repo.load()?;
            let target = workspace.text(&repo.target).with_context(|| {
                format!(
                    "{} is not a file of {}; give the target's path relative to the repository",
                    repo.target,
                    repo.repo.display()
                )
            })?;
            let context = Context::of(&graph, &workspace, &mask(target).text);
            emit(json, &context, |out, c| {
                out.write_all(c.render().as_bytes())
            })
        }
        CceCommand::Usages { entity, repo, json } => {
            let (_, graph) = repo.load()?;
            let usages = graph.usages(&entity);
            emit(json, &usages, |out, usages| {
                if usages.is_empty() {
                    writeln!(out, "No file imports, calls or inherits from {entity}.")?;
                }
                for u in usages {
                    let kind = u.kind.as_str();
                    writeln!(out, "{}: {} {kind} x{} ({})", u.by, entity, u.count, u.path)?;
                }
                Ok(())
            })
        }
        CceCommand::Search { names, repo, json } => {
            let (_, graph) = repo.load()?;
            let found: Vec<(String, Vec<wheelwright_core::recube::graph::Node>)> = names
                .iter()
                .map(|name| {
                    (
                        name.clone(),
                        graph.search(name).into_iter().cloned().collect(),
                    )
                })
                .collect();
            emit(json, &found, |out, found| {
                for (name, nodes) in found {
                    writeln!(out, "# {name}")?;
                    if nodes.is_empty() {
                        writeln!(out, "Nothing is named like it.")?;
                    }
                    for n in nodes {
                        let kind = n.kind.as_str();
                        match n.lines {
                            Some((start, end)) => {
                                writeln!(out, "{kind} {} ({}:{start}-{end})", n.name, n.path)?
                            }
                            None => writeln!(out, "{kind} {}", n.name)?,
                        }
                    }
                }
                Ok(())
            })
        }
    }
}
