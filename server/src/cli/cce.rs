//! `wheelwright cce`: ReCUBE's caller-centric exploration tools, as a harness hands them to an agent.
//!
//! Each command reads a repository directory, withholds the target file from its
//! dependency graph (core's `recube::graph`) and prints what an agent may know: the four
//! views of the target, where an entity is used, where a name is defined, or an answer of
//! the graph (`cce graph`: callers, callees, neighbouring files; core's `recube::query`).
//! Inside an agent's workspace the target is the masked file; masking is idempotent, so
//! the views are the same when it is the original.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Args, Subcommand};
use wheelwright_core::python::index::IndexOptions;
use wheelwright_core::recube::graph::Graph;
use wheelwright_core::recube::mask::mask;
use wheelwright_core::recube::query::{Answer, Call};
use wheelwright_core::recube::validate::Validation;
use wheelwright_core::recube::views::Context;
use wheelwright_core::workspace::Workspace;

use super::io::{Exit, emit, read_python};

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
    /// Ask the dependency graph (the target withheld): who calls an entity, what it calls,
    /// which files are near a module.
    ///
    /// Examples: `cce graph callers click.parser.OptionParser --repo . --target
    /// click/parser.py`; `cce graph neighbours click.core --depth 2 ...`. A name the graph
    /// does not know is an error that suggests close ones.
    #[command(subcommand)]
    Graph(GraphQuery),
    /// Check a rebuilt target file statically, without running it: it parses (syntax
    /// errors with line and column), it defines every name the repository's other files
    /// import, call or inherit from, with signatures that accept their calls (positional
    /// count, keyword names, required parameters), what others inherit from is a class,
    /// and its imports resolve to the repository (a name its module binds), the standard
    /// library, or a package the repository imports elsewhere (an installed package's
    /// contents are not checked).
    ///
    /// Prints each finding with its place in the candidate and the callers that need it.
    /// Exit code: 0 no findings, 1 findings, 2 input that cannot be read.
    Validate {
        /// The rebuilt target file to check (never executed).
        #[arg(long)]
        candidate: PathBuf,
        #[command(flatten)]
        repo: RepoArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// One question of `cce graph`.
#[derive(Debug, Subcommand)]
pub enum GraphQuery {
    /// The functions, classes and files that call ENTITY (a qualified name, a module or a
    /// path; the target's own names included), most calls first. Calls of what ENTITY
    /// contains (a class's methods, a module's functions) count.
    Callers {
        entity: String,
        #[command(flatten)]
        answer: AnswerArgs,
    },
    /// What ENTITY (a function, class, module or path of the repository, not of the
    /// withheld target) and everything in it calls, most calls first.
    Callees {
        entity: String,
        #[command(flatten)]
        answer: AnswerArgs,
    },
    /// The files within --depth hops of MODULE (a module, a path, or a name in it) over
    /// imports, calls and inheritance in either direction, nearest first.
    Neighbours {
        module: String,
        /// Hops from MODULE, 1 to 3.
        #[arg(long, default_value_t = 1)]
        depth: u32,
        #[command(flatten)]
        answer: AnswerArgs,
    },
}

/// The repository and how an answer is printed.
#[derive(Debug, Args)]
pub struct AnswerArgs {
    #[command(flatten)]
    repo: RepoArgs,
    /// The most items printed; how many more there are is said.
    #[arg(long, default_value_t = 50)]
    limit: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
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
        CceCommand::Graph(query) => graph_query(query),
        CceCommand::Validate {
            candidate,
            repo,
            json,
        } => validate(&candidate, &repo, json),
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

/// Answers one `cce graph` question.
fn graph_query(query: GraphQuery) -> anyhow::Result<()> {
    match query {
        GraphQuery::Callers { entity, answer } => {
            let (_, graph) = answer.repo.load()?;
            let calls = graph.callers(&entity, answer.limit)?;
            emit(answer.json, &calls, |out, calls| {
                let target = withheld_note(calls.items.iter().any(|c| c.withheld));
                let title = format!("callers of {}{target}", calls.subject);
                print_calls(
                    out,
                    &title,
                    "Nothing in the repository calls it.",
                    calls,
                    false,
                )
            })
        }
        GraphQuery::Callees { entity, answer } => {
            let (_, graph) = answer.repo.load()?;
            let calls = graph.callees(&entity, answer.limit)?;
            emit(answer.json, &calls, |out, calls| {
                let title = format!("callees of {}", calls.subject);
                print_calls(
                    out,
                    &title,
                    "It calls nothing of the repository.",
                    calls,
                    true,
                )
            })
        }
        GraphQuery::Neighbours {
            module,
            depth,
            answer,
        } => {
            let (_, graph) = answer.repo.load()?;
            let files = graph.neighbours(&module, depth, answer.limit)?;
            emit(answer.json, &files, |out, files| {
                let hops = if depth == 1 { "hop" } else { "hops" };
                writeln!(out, "# files within {depth} {hops} of {}", files.subject)?;
                if files.items.is_empty() && files.omitted == 0 {
                    writeln!(
                        out,
                        "No file imports, calls or inherits from it, nor it from one."
                    )?;
                }
                for n in &files.items {
                    let target = withheld_note(n.withheld);
                    writeln!(
                        out,
                        "{} {}{target}: {} {}",
                        n.depth,
                        n.path,
                        n.relations.join(", "),
                        n.via
                    )?;
                }
                omitted(out, files.omitted)
            })
        }
    }
}

/// A `callers` or `callees` answer: its title, each call (`mark`: the callee's file is said
/// to be the withheld target's), or `empty` when there is none.
fn print_calls(
    out: &mut impl Write,
    title: &str,
    empty: &str,
    calls: &Answer<Call>,
    mark: bool,
) -> std::io::Result<()> {
    writeln!(out, "# {title}")?;
    if calls.items.is_empty() && calls.omitted == 0 {
        writeln!(out, "{empty}")?;
    }
    for c in &calls.items {
        let target = if mark && c.withheld {
            ", withheld target"
        } else {
            ""
        };
        writeln!(
            out,
            "{} calls {} x{} ({}{target})",
            c.caller, c.callee, c.count, c.path
        )?;
    }
    omitted(out, calls.omitted)
}

/// ` (withheld target)` when `withheld`.
fn withheld_note(withheld: bool) -> &'static str {
    if withheld { " (withheld target)" } else { "" }
}

/// The line saying how many items the limit left out, if any.
fn omitted(out: &mut impl Write, omitted: usize) -> std::io::Result<()> {
    if omitted > 0 {
        writeln!(out, "... and {omitted} more (raise --limit to see them)")?;
    }
    Ok(())
}

/// `cce validate`: the findings, then exit 1 when there are any; input that cannot be read
/// exits 2.
fn validate(candidate: &Path, repo: &RepoArgs, json: bool) -> anyhow::Result<()> {
    let bad_input = |error: anyhow::Error| Exit {
        code: 2,
        message: Some(format!("{error:#}")),
    };
    let text = read_python(candidate)
        .with_context(|| format!("reading the candidate {}", candidate.display()))
        .map_err(bad_input)?;
    let files = crate::dataset::read_source_tree(&repo.repo, &repo.repo, ".")
        .with_context(|| format!("reading the repository {}", repo.repo.display()))
        .map_err(bad_input)?;
    let mut workspace = Workspace::new();
    for (path, text) in files {
        workspace.insert(&path, text);
    }
    if workspace.text(&repo.target).is_none() {
        return Err(Exit {
            code: 2,
            message: Some(format!(
                "{} is not a file of {}; give the target's path relative to the repository",
                repo.target,
                repo.repo.display()
            )),
        }
        .into());
    }
    let options = IndexOptions {
        source_roots: repo.source_roots.clone(),
    };
    let validation =
        wheelwright_core::recube::validate::validate(&workspace, &repo.target, &text, &options);
    emit(json, &validation, print_validation)?;
    if validation.findings.is_empty() {
        Ok(())
    } else {
        Err(Exit {
            code: 1,
            message: None,
        }
        .into())
    }
}

fn print_validation(out: &mut impl Write, v: &Validation) -> std::io::Result<()> {
    let n = v.findings.len();
    writeln!(
        out,
        "# {}: {} finding{} ({} name{} the repository needs, {} calls and {} imports checked)",
        v.target,
        n,
        if n == 1 { "" } else { "s" },
        v.names_checked,
        if v.names_checked == 1 { "" } else { "s" },
        v.calls_checked,
        v.imports_checked
    )?;
    for f in &v.findings {
        let at =
            f.at.map_or("-".to_owned(), |at| format!("{}:{}", at.line, at.column));
        let evidence = if f.evidence.is_empty() {
            String::new()
        } else {
            format!(" ({})", f.evidence.join(", "))
        };
        writeln!(out, "{at} {}: {}{evidence}", f.kind.as_str(), f.message)?;
    }
    for note in &v.notes {
        writeln!(out, "note: not checked: {note}")?;
    }
    Ok(())
}
