//! Throughput of indexing real Python source and building ReCUBE's graph of it (MB/s), and of scoring a 3,000-turn run (turns/s).
//!
//! The source is this machine's Python standard library (found with `python3`): the
//! packages in [`PACKAGES`], tests excluded. The run has [`CHAINS`] chains of [`TURNS`]
//! turns over that source: each submission is real code (two top-level functions of a
//! real module with that module's imports, written next to it), its targets are real
//! definitions (what those functions call, plus siblings they do not call), and each turn
//! carries one of the real mini-SWE-agent trajectories of `shared/data/real/` (all 70 when
//! `../shared` is beside the repository, else the 12 vendored in `tests/fixtures/real/`,
//! which the bench says on standard error), in turn.
//! Run with `cargo bench -p wheelwright-core`; results are in `docs/performance.md`.

#![allow(clippy::print_stderr)] // The bench reports its inputs' sizes on standard error.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

#[path = "../tests/common/real.rs"]
mod real;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use wheelwright_core::budget::Cancel;
use wheelwright_core::python::facts::DefinitionKind;
use wheelwright_core::python::index::{IndexOptions, RepoIndex, Resolution};
use wheelwright_core::python::snapshot;
use wheelwright_core::recube::graph::Graph;
use wheelwright_core::reporeuse::scoring::{
    ChainRun, ChainSpec, Dataset, PreparedDataset, Repository, Run, TurnRun, TurnSpec, score_run,
};
use wheelwright_core::workspace::Workspace;

/// Standard-library packages indexed and used as the repository.
const PACKAGES: &[&str] = &[
    "asyncio",
    "email",
    "json",
    "http",
    "urllib",
    "logging",
    "concurrent",
    "importlib",
    "xml",
    "unittest",
];
const CHAINS: usize = 600;
const TURNS: usize = 5;

/// The library source: path -> text.
fn library() -> BTreeMap<String, String> {
    real::stdlib_packages(PACKAGES)
}

fn workspace_of(files: &BTreeMap<String, String>) -> Workspace {
    let mut w = Workspace::new();
    for (path, text) in files {
        w.insert(path, text.as_str());
    }
    w
}

/// The real trajectories the turns carry, in turn: the 70 of `../shared` when present, else
/// the 12 vendored in `tests/fixtures/real/` (cycled to the same 3,000 turns).
fn trajectories() -> Vec<serde_json::Value> {
    real::bench_texts()
        .iter()
        .map(|t| serde_json::from_str(t).expect("a real trajectory is JSON"))
        .collect()
}

/// A module usable as a submission source: its imports and top-level functions.
struct Source {
    path: String,
    module: String,
    imports: String,
    /// (name, text, repository definitions it calls).
    functions: Vec<(String, String, Vec<String>)>,
}

fn sources(files: &BTreeMap<String, String>, index: &RepoIndex) -> Vec<Source> {
    let mut out = Vec::new();
    for (path, text) in files {
        let Some((module, _)) = index.module_of_path(path) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        let imports: String = index
            .imports(&module)
            .iter()
            .filter(|i| i.scope == "<module>")
            .filter_map(|i| lines.get(i.line as usize - 1))
            .filter(|l| !l.starts_with(' ') && !l.trim_end().ends_with('(') && !l.ends_with('\\'))
            .map(|l| format!("{l}\n"))
            .collect::<Vec<_>>()
            .join("");
        let functions: Vec<(String, String, Vec<String>)> = index
            .definitions(&module)
            .into_iter()
            .filter(|d| d.kind == DefinitionKind::Function && d.spans.len() == 1)
            .filter_map(|d| {
                let name = d.qualified_name.strip_prefix(&format!("{module}."))?;
                if name.contains('.') {
                    return None;
                }
                let span = d.spans[0];
                let body = lines
                    .get(span.start as usize - 1..span.end as usize)?
                    .join("\n");
                let repo_calls = d
                    .callees
                    .iter()
                    .filter(|c| {
                        matches!(index.resolve(c), Resolution::Definition { kind, .. } if kind == DefinitionKind::Function)
                    })
                    .cloned()
                    .collect();
                Some((name.to_owned(), body, repo_calls))
            })
            .collect();
        if functions.len() >= 4 {
            out.push(Source {
                path: path.clone(),
                module,
                imports,
                functions,
            });
        }
    }
    out
}

/// The synthetic run: `CHAINS` chains of `TURNS` turns over the library.
fn synthetic_run(files: &BTreeMap<String, String>) -> (Dataset, Run) {
    let index = RepoIndex::build(&workspace_of(files), &IndexOptions::default());
    let sources = sources(files, &index);
    let trajectories = trajectories();
    assert!(!sources.is_empty() && !trajectories.is_empty());
    let mut chains = Vec::new();
    let mut runs = BTreeMap::new();
    let mut n = 0usize;
    for c in 0..CHAINS {
        let id = format!("chain-{c:04}");
        let mut turns = Vec::new();
        let mut turn_runs = Vec::new();
        let mut previous: Vec<String> = Vec::new();
        for t in 1..=TURNS {
            let source = &sources[(c * 7 + t * 13) % sources.len()];
            let k = (c + t) % (source.functions.len() - 1);
            let taken = [&source.functions[k], &source.functions[k + 1]];
            let dir = source.path.rsplit_once('/').map_or("", |(d, _)| d);
            let file = format!("agent_{c}_{t}");
            let path = if dir.is_empty() {
                format!("{file}.py")
            } else {
                format!("{dir}/{file}.py")
            };
            let package = source.module.rsplit_once('.').map_or("", |(p, _)| p);
            let module = if source.path.ends_with("__init__.py") {
                format!("{}.{file}", source.module)
            } else if package.is_empty() {
                file.clone()
            } else {
                format!("{package}.{file}")
            };
            let mut repo_targets: Vec<String> = taken
                .iter()
                .flat_map(|f| f.2.iter().take(2).cloned())
                .collect();
            // Siblings the submission does not include: unreferenced, maybe re-implemented.
            for f in source.functions.iter().skip(k + 2).take(2) {
                repo_targets.push(format!("{}.{}", source.module, f.0));
            }
            let submission = format!("{}\n\n{}\n\n\n{}\n", source.imports, taken[0].1, taken[1].1);
            turns.push(TurnSpec {
                path,
                repo_targets,
                self_targets: previous.clone(),
            });
            previous = taken.iter().map(|f| format!("{module}.{}", f.0)).collect();
            let total = 4 + (n % 5) as u32;
            turn_runs.push(TurnRun {
                submission: (!n.is_multiple_of(17)).then_some(submission),
                trajectory: Some(trajectories[n % trajectories.len()].clone()),
                tests: Some(wheelwright_core::hidden_tests::TestResults {
                    passed: (n as u32 * 7) % (total + 1),
                    total,
                }),
                ..TurnRun::default()
            });
            n += 1;
        }
        chains.push(ChainSpec {
            id: id.clone(),
            repository: "stdlib".to_owned(),
            turns,
        });
        runs.insert(id, ChainRun { turns: turn_runs });
    }
    let dataset = Dataset {
        repositories: BTreeMap::from([(
            "stdlib".to_owned(),
            Repository {
                files: files.clone(),
                source_roots: Vec::new(),
            },
        )]),
        chains,
        workdir: "/testbed".to_owned(),
    };
    (dataset, Run { chains: runs })
}

fn indexing(c: &mut Criterion) {
    let files = library();
    let bytes: usize = files.values().map(String::len).sum();
    eprintln!(
        "library: {} files, {:.2} MB ({})",
        files.len(),
        bytes as f64 / 1e6,
        PACKAGES.join(", ")
    );
    let workspace = workspace_of(&files);
    let mut group = c.benchmark_group("core");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("index_stdlib_packages", |b| {
        b.iter(|| RepoIndex::build(black_box(&workspace), &IndexOptions::default()))
    });
    // The same index saved by the server and loaded where it is scored (the browser):
    // what loading costs instead of parsing.
    let saved = snapshot::save(&workspace, &IndexOptions::default()).unwrap();
    eprintln!("saved index: {:.2} MB", saved.len() as f64 / 1e6);
    group.bench_function("index_stdlib_packages_loaded", |b| {
        b.iter(|| snapshot::load(black_box(&saved), &workspace, &IndexOptions::default()).unwrap())
    });
    // ReCUBE's dependency graph of the same files, the largest module withheld: the index,
    // then every definition, import and call resolved into nodes and edges.
    let target = files
        .iter()
        .max_by_key(|(_, text)| text.len())
        .map(|(path, _)| path.clone())
        .unwrap();
    let graph = Graph::build(&workspace, &target, &IndexOptions::default());
    eprintln!(
        "graph without {target}: {} nodes, {} edges",
        graph.nodes.len(),
        graph.edges.len()
    );
    group.bench_function("recube_graph_stdlib_packages", |b| {
        b.iter(|| Graph::build(black_box(&workspace), &target, &IndexOptions::default()))
    });
    group.finish();
}

fn scoring(c: &mut Criterion) {
    let files = library();
    let (dataset, run) = synthetic_run(&files);
    let report = score_run(&dataset, &run, &mut |_| {}).unwrap();
    let submitted: Vec<usize> = run
        .chains
        .values()
        .flat_map(|c| {
            c.turns
                .iter()
                .filter_map(|t| t.submission.as_ref().map(String::len))
        })
        .collect();
    eprintln!(
        "submissions: {}, mean {} bytes",
        submitted.len(),
        submitted.iter().sum::<usize>() / submitted.len().max(1)
    );
    let reimplemented: usize = report.turns.iter().map(|t| t.reimplemented.len()).sum();
    eprintln!(
        "run: {} turns, {} diagnostics, {} re-implemented targets, overall reuse_repo {:?}, recall_repo {:?}, lines {:?}",
        report.turns.len(),
        report.diagnostics.len(),
        reimplemented,
        report.overall.reuse_repo.value(),
        report.overall.recall_repo.value(),
        report.overall.lines.value(),
    );
    let mut group = c.benchmark_group("core");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(dataset.turn_count() as u64));
    group.bench_function("score_run_3000_turns", |b| {
        b.iter(|| score_run(black_box(&dataset), black_box(&run), &mut |_| {}).unwrap())
    });
    // The same run without trajectories: how the time splits between code and trajectories.
    let mut bare = run.clone();
    for chain in bare.chains.values_mut() {
        for turn in &mut chain.turns {
            turn.trajectory = None;
        }
    }
    group.bench_function("score_run_3000_turns_without_trajectories", |b| {
        b.iter(|| score_run(black_box(&dataset), black_box(&bare), &mut |_| {}).unwrap())
    });
    group.finish();

    // An upload of the shipped dataset's size (20 turns): W0 indexed in every call, as each
    // upload did, against the dataset prepared once, as the server now keeps it.
    let mut small = dataset.clone();
    small.chains.truncate(20 / TURNS);
    let small_run = Run {
        chains: small
            .chains
            .iter()
            .map(|chain| (chain.id.clone(), run.chains[&chain.id].clone()))
            .collect(),
    };
    let prepared = PreparedDataset::new(&small, &Cancel::never()).unwrap();
    let mut group = c.benchmark_group("core");
    group.sample_size(20);
    group.throughput(Throughput::Elements(small.turn_count() as u64));
    group.bench_function("score_run_20_turns", |b| {
        b.iter(|| score_run(black_box(&small), black_box(&small_run), &mut |_| {}).unwrap())
    });
    group.bench_function("score_run_20_turns_prepared", |b| {
        b.iter(|| {
            prepared
                .score(black_box(&small_run), &mut |_| {}, &Cancel::never())
                .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, indexing, scoring);
criterion_main!(benches);
