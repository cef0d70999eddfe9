//! `score_run`: W_{t-1} per chain and turn, trajectories against it, diagnostics, aggregation.

use crate::common;

use std::collections::BTreeMap;

use serde_json::json;
use wheelwright_core::budget::Cancel;
use wheelwright_core::hidden_tests::TestResults;
use wheelwright_core::metric::{Score, Undefined};
use wheelwright_core::python::index::{IndexOptions, RepoIndex};
use wheelwright_core::reporeuse::metrics::turn::{SubmissionStatus, TurnInput, score_turn};
use wheelwright_core::reporeuse::scoring::{
    ChainRun, ChainSpec, Dataset, InconsistentDataset, Phase, PreparedDataset, Progress,
    Repository, Run, RunReport, TurnRun, TurnSpec, save_index, score_chains, score_run,
};
use wheelwright_core::workspace::Workspace;

const CORE: &str = "\
def clean(x):
    return x.strip()


def parse(text):
    rows = split_rows(text)
    cells = split_cells(rows)
    return convert(cells)


def split_rows(text):
    return text.splitlines()


def split_cells(rows):
    return [r.split(',') for r in rows]


def convert(cells):
    return cells
";

fn repository() -> Repository {
    Repository {
        files: BTreeMap::from([
            (
                "pkg/__init__.py".to_owned(),
                "from .core import clean\n".to_owned(),
            ),
            ("pkg/core.py".to_owned(), CORE.to_owned()),
        ]),
        source_roots: Vec::new(),
    }
}

fn turn(path: &str, repo: &[&str], own: &[&str]) -> TurnSpec {
    TurnSpec {
        path: path.to_owned(),
        repo_targets: repo.iter().map(|s| (*s).to_owned()).collect(),
        self_targets: own.iter().map(|s| (*s).to_owned()).collect(),
    }
}

fn dataset(chains: Vec<ChainSpec>) -> Dataset {
    Dataset {
        repositories: BTreeMap::from([("pkg".to_owned(), repository())]),
        chains,
        workdir: "/testbed".to_owned(),
    }
}

fn chain(id: &str, turns: Vec<TurnSpec>) -> ChainSpec {
    ChainSpec {
        id: id.to_owned(),
        repository: "pkg".to_owned(),
        turns,
    }
}

fn submitted(text: &str) -> TurnRun {
    TurnRun {
        submission: Some(text.to_owned()),
        ..TurnRun::default()
    }
}

fn run(chains: Vec<(&str, Vec<TurnRun>)>) -> Run {
    Run {
        chains: chains
            .into_iter()
            .map(|(id, turns)| (id.to_owned(), ChainRun { turns }))
            .collect(),
    }
}

/// The report of `run`, which must also be the report of the run streamed chain by chain
/// (in reverse order, so no chain comes where the dataset has it), as the command line
/// scores a bundle, and of the run given a chain at a time (also with the last chain left
/// out, then scored as missing) to a dataset prepared from the repositories' saved indexes,
/// as the browser scores one.
fn score(dataset: &Dataset, run: &Run) -> RunReport {
    let whole = score_run(dataset, run, &mut |_| {}).expect("a valid dataset");
    assert_eq!(
        streamed(dataset, run, &mut |_| {}),
        whole,
        "streamed and whole reports differ"
    );
    let saved = dataset
        .repositories
        .iter()
        .map(|(name, repository)| {
            let bytes = save_index(repository, &Cancel::never()).expect("never cancelled");
            (name.clone(), bytes)
        })
        .collect();
    let (prepared, refused) =
        PreparedDataset::with_saved_indexes(dataset, &saved, &Cancel::never())
            .expect("a valid dataset");
    assert!(refused.is_empty(), "saved indexes refused: {refused:?}");
    let mut by_chain = prepared.chain_by_chain();
    for (id, chain) in run.chains.iter().rev() {
        by_chain
            .add(id, chain, &Cancel::never())
            .expect("each chain once");
    }
    assert_eq!(
        by_chain.finish(&Cancel::never()).expect("never cancelled"),
        whole,
        "chain by chain and whole reports differ"
    );
    // A chain the run lacks is scored as missing in both.
    if let Some(last) = run.chains.keys().next_back() {
        let mut fewer = run.clone();
        fewer.chains.remove(last);
        let mut by_chain = prepared.chain_by_chain();
        for (id, chain) in &fewer.chains {
            by_chain
                .add(id, chain, &Cancel::never())
                .expect("each chain once");
        }
        let fewer_whole = score_run(dataset, &fewer, &mut |_| {}).expect("a valid dataset");
        // The missing chain scored on its own before the report: the same report.
        let mut missing_first = prepared.chain_by_chain();
        for (id, chain) in &fewer.chains {
            missing_first
                .add(id, chain, &Cancel::never())
                .expect("each chain once");
        }
        assert!(
            missing_first
                .add_next_missing(&Cancel::never())
                .expect("never cancelled")
        );
        assert!(
            !missing_first
                .add_next_missing(&Cancel::never())
                .expect("never cancelled")
        );
        assert_eq!(
            missing_first
                .finish(&Cancel::never())
                .expect("never cancelled"),
            fewer_whole,
            "a missing chain scored alone changes the report"
        );
        assert_eq!(
            by_chain.finish(&Cancel::never()).expect("never cancelled"),
            fewer_whole,
            "chain by chain and whole reports of a run lacking a chain differ"
        );
    }
    whole
}

/// `run` scored by `score_chains`, its chains given in reverse order.
fn streamed(
    dataset: &Dataset,
    run: &Run,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> RunReport {
    let chains: Vec<_> = run.chains.clone().into_iter().rev().map(Ok).collect();
    score_chains(dataset, chains.into_iter(), progress, &Cancel::never()).expect("a valid dataset")
}

fn value(score: Score) -> Option<f64> {
    score.value()
}

#[test]
fn later_turns_see_the_agents_own_files_and_never_other_chains() {
    let d = dataset(vec![
        chain(
            "a",
            vec![
                turn("pkg/helpers.py", &["pkg.clean"], &[]),
                turn("pkg/report.py", &[], &["pkg.helpers.tidy"]),
            ],
        ),
        chain("b", vec![turn("pkg/other.py", &[], &["pkg.helpers.tidy"])]),
    ]);
    let r = run(vec![
        (
            "a",
            vec![
                submitted("from pkg import clean\n\ndef tidy(x):\n    return clean(x)\n"),
                submitted("from pkg.helpers import tidy\n\nout = tidy(' a ')\n"),
            ],
        ),
        (
            "b",
            vec![submitted(
                "from pkg.helpers import tidy\n\nout = tidy(' a ')\n",
            )],
        ),
    ]);
    let report = score(&d, &r);
    assert_eq!(report.turns.len(), 3);
    let [a1, a2, b1] = [&report.turns[0], &report.turns[1], &report.turns[2]];
    assert_eq!((a1.chain.as_str(), a1.turn), ("a", 1));
    assert_eq!(value(a1.scores.reuse_repo), Some(100.0));
    assert_eq!(value(a2.scores.reuse_self), Some(100.0));
    assert!(a2.unknown_targets.is_empty());
    // Chain b starts from W0: chain a's helpers.py is not there.
    assert_eq!(b1.unknown_targets, vec!["pkg.helpers.tidy".to_owned()]);
    assert_eq!(value(b1.scores.reuse_self), Some(0.0));
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
}

#[test]
fn a_saved_index_of_other_files_is_refused_and_the_repository_indexed_instead() {
    let d = dataset(vec![chain(
        "a",
        vec![turn("pkg/t1.py", &["pkg.core.clean"], &[])],
    )]);
    let mut other = repository();
    other.files.insert(
        "pkg/core.py".to_owned(),
        "def clean(x):\n    return x\n".to_owned(),
    );
    let saved = BTreeMap::from([(
        "pkg".to_owned(),
        save_index(&other, &Cancel::never()).expect("never cancelled"),
    )]);
    let (prepared, refused) =
        PreparedDataset::with_saved_indexes(&d, &saved, &Cancel::never()).expect("a valid dataset");
    assert_eq!(refused.keys().collect::<Vec<_>>(), ["pkg"]);
    assert!(
        refused["pkg"].to_string().contains("other files"),
        "{}",
        refused["pkg"]
    );
    let r = run(vec![(
        "a",
        vec![submitted("from pkg.core import clean\n\nclean(' a ')\n")],
    )]);
    let mut by_chain = prepared.chain_by_chain();
    by_chain
        .add("a", &r.chains["a"], &Cancel::never())
        .expect("each chain once");
    assert_eq!(
        by_chain.finish(&Cancel::never()).expect("never cancelled"),
        score(&d, &r)
    );
}

#[test]
fn an_agent_file_replacing_a_repository_file_does_not_leak_into_the_next_chain() {
    let d = dataset(vec![
        chain("a", vec![turn("pkg/core.py", &["pkg.core.clean"], &[])]),
        chain("b", vec![turn("pkg/new.py", &["pkg.core.parse"], &[])]),
    ]);
    let r = run(vec![
        ("a", vec![submitted("def something_else():\n    pass\n")]),
        (
            "b",
            vec![submitted("from pkg.core import parse\n\nparse('x')\n")],
        ),
    ]);
    let report = score(&d, &r);
    assert!(report.turns[1].unknown_targets.is_empty());
    assert_eq!(value(report.turns[1].scores.reuse_repo), Some(100.0));
}

#[test]
fn rows_equal_score_turn_on_a_freshly_built_workspace() {
    let d = dataset(vec![chain(
        "a",
        vec![
            turn("pkg/one.py", &["pkg.core.parse", "pkg.clean"], &[]),
            turn("pkg/two.py", &["pkg.core.parse"], &["pkg.one.load"]),
        ],
    )]);
    // Its own copies of parse's helpers (same-module calls are compared by bare name, D5).
    let one = "def split_rows(t):\n    return t.splitlines()\n\ndef split_cells(r):\n    return r\n\ndef convert(c):\n    return c\n\ndef load(t):\n    return convert(split_cells(split_rows(t)))\n";
    let two = "from pkg.one import load\n\nx = load('a,b')\n";
    let r = run(vec![("a", vec![submitted(one), submitted(two)])]);
    let report = score(&d, &r);

    let mut w = Workspace::new();
    for (p, t) in &repository().files {
        w.insert(p, t.as_str());
    }
    let mut index = RepoIndex::build(&w, &IndexOptions::default());
    let mut expected = Vec::new();
    for (spec, text) in d.chains[0].turns.iter().zip([one, two]) {
        let s = score_turn(&TurnInput {
            workspace: &index,
            submission: Some(text),
            path: &spec.path,
            repo_targets: &spec.repo_targets,
            self_targets: &spec.self_targets,
            shown: None,
            tests: None,
            files: None,
            lines: None,
        });
        index.insert(&spec.path, text);
        expected.push(s);
    }
    assert!(expected[0].reimplemented);
    assert_eq!(report.turns[0].reimplemented.len(), 1);
    assert_eq!(report.turns[0].reimplemented[0].canonical, "pkg.core.parse");
    assert_eq!(
        report.turns[0].reimplemented[0].evidence.matched,
        vec!["convert", "split_cells", "split_rows"]
    );
    for (row, s) in report.turns.iter().zip(&expected) {
        assert_eq!(row.scores.reuse_repo, s.repo.reuse.scaled(100.0));
        assert_eq!(row.scores.reuse_self, s.self_targets.reuse.scaled(100.0));
        assert_eq!(row.scores.recall_repo, s.repo.recall.scaled(100.0));
    }
    // Turn 1 re-implemented parse: the chain is duplicated from turn 1 on.
    assert_eq!(value(report.turns[0].scores.c_dup), Some(100.0));
    assert_eq!(value(report.turns[1].scores.c_dup), Some(100.0));
    assert_eq!(value(report.overall.c_dup), Some(100.0));
}

#[test]
fn trajectories_are_read_against_the_workspace_of_the_turn() {
    let d = dataset(vec![chain(
        "a",
        vec![
            turn("pkg/one.py", &[], &[]),
            turn("pkg/two.py", &["pkg.core.convert"], &["pkg.one.load"]),
        ],
    )]);
    // `cat` shows whole files, known from W_{t-1}: pkg/one.py is the agent's turn-1 file.
    let trajectory = json!({
        "format": "generic-1",
        "actions": [
            {"kind": "bash", "command": "cat pkg/one.py", "output": "", "returncode": 0},
            {"kind": "bash", "command": "sed -n '1,3p' pkg/core.py", "output": "", "returncode": 0},
            {"kind": "bash", "command": "frobnicate", "output": "", "returncode": 127}
        ]
    });
    let r = run(vec![(
        "a",
        vec![
            submitted("def load(t):\n    return t\n"),
            TurnRun {
                submission: Some("x = 1\n".to_owned()),
                trajectory: Some(trajectory),
                tests: Some(TestResults {
                    passed: 1,
                    total: 4,
                }),
                ..TurnRun::default()
            },
        ],
    )]);
    let report = score(&d, &r);
    let t2 = &report.turns[1];
    assert_eq!(value(t2.scores.recall_self), Some(100.0));
    assert_eq!(value(t2.scores.recall_repo), Some(0.0));
    assert_eq!(value(t2.scores.files), Some(2.0));
    assert_eq!(value(t2.scores.lines), Some(2.0 + 3.0));
    assert_eq!(value(t2.scores.pass), Some(25.0));
    assert_eq!(value(t2.scores.resolve), Some(0.0));
    let counts = t2.trajectory.expect("a trajectory");
    assert_eq!((counts.actions, counts.uninterpreted), (3, 1));
    // Turn 1 had no trajectory: its recall is undefined, not zero.
    assert_eq!(report.turns[0].trajectory, None);
    assert_eq!(
        report.turns[0].scores.lines,
        Score::Undefined {
            reason: Undefined::NoCount
        }
    );
}

#[test]
fn bad_run_entries_are_diagnosed_and_the_rest_is_scored() {
    let d = dataset(vec![
        chain(
            "a",
            vec![
                turn("pkg/one.py", &["pkg.clean"], &[]),
                turn("pkg/two.py", &["pkg.clean"], &[]),
                turn("pkg/three.py", &["pkg.clean"], &[]),
            ],
        ),
        chain("b", vec![turn("pkg/b.py", &["pkg.clean"], &[])]),
    ]);
    let good = "from pkg import clean\nclean(' ')\n";
    let r = run(vec![
        (
            "a",
            vec![
                TurnRun {
                    submission: Some(good.to_owned()),
                    trajectory: Some(json!("{\"format\": \"generic-1\", \"actions\": [")),
                    ..TurnRun::default()
                },
                submitted(good),
            ],
        ),
        ("zzz", vec![submitted(good)]),
        ("yyy", vec![submitted(good)]),
    ]);
    let report = score(&d, &r);
    assert_eq!(report.turns.len(), 4);
    assert_eq!(value(report.turns[0].scores.reuse_repo), Some(100.0));
    assert_eq!(report.turns[0].trajectory, None);
    assert_eq!(value(report.turns[1].scores.reuse_repo), Some(100.0));
    assert_eq!(report.turns[2].submission, SubmissionStatus::Missing);
    assert_eq!(value(report.turns[2].scores.reuse_repo), Some(0.0));
    assert_eq!(report.turns[3].submission, SubmissionStatus::Missing);
    let said = |chain: &str, turn: Option<usize>, words: &str| {
        report
            .diagnostics
            .iter()
            .any(|d| d.chain == chain && d.turn == turn && d.message.contains(words))
    };
    assert!(
        said("zzz", None, "dataset does not"),
        "{:?}",
        report.diagnostics
    );
    assert!(
        said("a", Some(1), "not valid JSON"),
        "{:?}",
        report.diagnostics
    );
    assert!(
        said("a", Some(3), "stops after turn 2"),
        "{:?}",
        report.diagnostics
    );
    assert!(said("b", None, "no entry"), "{:?}", report.diagnostics);
    assert_eq!(report.diagnostics.len(), 5);
    // The run's unknown chains come first, by name.
    assert_eq!(report.diagnostics[0].chain, "yyy");
    assert_eq!(report.diagnostics[1].chain, "zzz");
}

#[test]
fn progress_counts_every_turn_once() {
    let d = dataset(vec![
        chain(
            "a",
            vec![turn("pkg/x.py", &[], &[]), turn("pkg/y.py", &[], &[])],
        ),
        chain("b", vec![turn("pkg/z.py", &[], &[])]),
    ]);
    let mut seen = Vec::new();
    score_run(&d, &Run::default(), &mut |p: Progress| seen.push(p)).unwrap();
    let done: Vec<(Phase, usize)> = seen.iter().map(|p| (p.phase, p.turns_done)).collect();
    // Indexed, every turn once, then aggregation.
    assert_eq!(
        done,
        vec![
            (Phase::Scoring, 0),
            (Phase::Scoring, 1),
            (Phase::Scoring, 2),
            (Phase::Scoring, 3),
            (Phase::Aggregating, 3),
        ]
    );
    assert!(seen.iter().all(|p| p.turns_total == 3));
}

#[test]
fn inconsistent_datasets_are_errors_that_say_what_to_fix() {
    let mut d = dataset(vec![chain("a", vec![]), chain("a", vec![])]);
    let err = score_run(&d, &Run::default(), &mut |_| {}).unwrap_err();
    assert_eq!(err, InconsistentDataset::DuplicateChain("a".to_owned()));
    assert!(err.to_string().contains("unique"));
    d.chains = vec![ChainSpec {
        id: "a".to_owned(),
        repository: "nope".to_owned(),
        turns: vec![],
    }];
    let err = score_run(&d, &Run::default(), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("\"nope\""), "{err}");
}

#[test]
fn the_input_format_reads_from_json() {
    let d: Dataset = serde_json::from_value(json!({
        "repositories": {"pkg": {"files": {"pkg/__init__.py": "def f():\n    pass\n"}}},
        "chains": [{"id": "c", "repository": "pkg", "turns": [{"path": "pkg/a.py", "repo_targets": ["pkg.f"]}]}]
    }))
    .unwrap();
    assert_eq!(d.workdir, "/testbed");
    let r: Run = serde_json::from_value(json!({
        "chains": {"c": {"turns": [{"submission": "from pkg import f\nf()\n", "tests": {"passed": 1, "total": 1}}]}}
    }))
    .unwrap();
    let report = score(&d, &r);
    assert_eq!(value(report.overall.reuse_repo), Some(100.0));
    assert_eq!(value(report.overall.resolve), Some(100.0));
    // Typos are refused rather than silently ignored.
    let typo = serde_json::from_value::<Run>(json!({"chains": {"c": {"turn": []}}}));
    assert!(typo.is_err());
}

#[test]
fn other_files_of_a_turn_are_part_of_later_workspaces() {
    // Turn 1 also leaves a helper module that re-exports the repository's `clean`; turn 2
    // imports it from there, which resolves only if the helper is in W_1.
    let d = dataset(vec![chain(
        "a",
        vec![
            turn("pkg/one.py", &["pkg.clean"], &[]),
            turn("pkg/two.py", &["pkg.clean"], &[]),
        ],
    )]);
    let helper = "from pkg import clean\n";
    let mut first = submitted("from pkg import clean\nclean(' ')\n");
    first
        .other_files
        .insert("pkg/util.py".to_owned(), helper.to_owned());
    let second = submitted("from pkg.util import clean\nclean(' ')\n");
    let report = score(&d, &run(vec![("a", vec![first, second.clone()])]));
    assert_eq!(value(report.turns[1].scores.reuse_repo), Some(100.0));

    // Without the helper the import names nothing in W_1, so nothing is reused.
    let alone = score(
        &d,
        &run(vec![(
            "a",
            vec![submitted("from pkg import clean\nclean(' ')\n"), second],
        )]),
    );
    assert_eq!(value(alone.turns[1].scores.reuse_repo), Some(0.0));
}

/// A multi-chain run on real inputs: the standard library's `json` and `email` packages as
/// the repository, real modules of it (copied under new names, so they re-implement their
/// originals) as submissions, the vendored real trajectories, and every kind of run
/// diagnostic (a chain the dataset lacks, a chain the run lacks, a short chain, a trajectory
/// that cannot be read).
fn real_run() -> (Dataset, Run) {
    let root = common::real::stdlib();
    let mut files = BTreeMap::new();
    for package in ["json", "email"] {
        for entry in std::fs::read_dir(root.join(package)).expect("the standard library") {
            let path = entry.expect("directory entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".py") {
                let text = std::fs::read_to_string(&path).expect("a readable module");
                files.insert(format!("{package}/{name}"), text);
            }
        }
    }
    let mut w = Workspace::new();
    for (path, text) in &files {
        w.insert(path, text.as_str());
    }
    let index = RepoIndex::build(&w, &IndexOptions::default());
    // (path, module, its first top-level functions) of every module with some.
    let modules: Vec<(&String, Vec<String>)> = files
        .keys()
        .filter_map(|path| {
            let (module, _) = index.module_of_path(path)?;
            let functions: Vec<String> = index
                .definitions(&module)
                .into_iter()
                .map(|d| d.qualified_name)
                .filter(|q| q.matches('.').count() == module.matches('.').count() + 1)
                .take(3)
                .collect();
            (!functions.is_empty()).then_some((path, functions))
        })
        .collect();
    let trajectories = common::real::vendored_all();
    let mut chains = Vec::new();
    let mut runs = BTreeMap::new();
    let mut n = 0;
    for c in 0..12 {
        let id = format!("chain-{c:02}");
        let mut turns = Vec::new();
        let mut turn_runs = Vec::new();
        let mut previous = Vec::new();
        for t in 1..=3 {
            let (source, functions) = &modules[(c * 5 + t * 3) % modules.len()];
            let package = source.split('/').next().unwrap();
            let module = format!("agent_{c}_{t}");
            turns.push(TurnSpec {
                path: format!("{package}/{module}.py"),
                repo_targets: functions.clone(),
                self_targets: previous.clone(),
            });
            previous = functions
                .iter()
                .map(|f| format!("{package}.{module}.{}", f.rsplit('.').next().unwrap()))
                .collect();
            let trajectory = if n == 7 {
                json!("this is no trajectory")
            } else {
                json!(trajectories[n % trajectories.len()].1)
            };
            turn_runs.push(TurnRun {
                submission: (n % 5 != 4).then(|| files[*source].clone()),
                trajectory: Some(trajectory),
                tests: Some(TestResults {
                    passed: (n % 4) as u32,
                    total: 3,
                }),
                ..TurnRun::default()
            });
            n += 1;
        }
        if c == 4 {
            turn_runs.truncate(1);
        }
        chains.push(ChainSpec {
            id: id.clone(),
            repository: "stdlib".to_owned(),
            turns,
        });
        if c != 9 {
            runs.insert(id, ChainRun { turns: turn_runs });
        }
    }
    runs.insert("not-in-the-dataset".to_owned(), ChainRun::default());
    let dataset = Dataset {
        repositories: BTreeMap::from([(
            "stdlib".to_owned(),
            Repository {
                files,
                source_roots: Vec::new(),
            },
        )]),
        chains,
        workdir: "/testbed".to_owned(),
    };
    (dataset, Run { chains: runs })
}

/// The JSON report of `run` scored on a pool of `threads` threads, and the progress seen.
fn report_on_threads(dataset: &Dataset, run: &Run, threads: usize) -> (String, Vec<usize>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let mut seen = Vec::new();
    let mut seen_streamed = Vec::new();
    let (report, streamed) = pool.install(|| {
        let whole = score_run(dataset, run, &mut |p: Progress| {
            assert_eq!(p.turns_total, dataset.turn_count());
            if p.phase == Phase::Scoring {
                seen.push(p.turns_done);
            }
        })
        .expect("a valid dataset");
        let streamed = streamed(dataset, run, &mut |p: Progress| {
            if p.phase == Phase::Scoring {
                seen_streamed.push(p.turns_done);
            }
        });
        (whole, streamed)
    });
    let json = serde_json::to_string(&report).expect("a report is JSON");
    assert_eq!(
        serde_json::to_string(&streamed).expect("a report is JSON"),
        json,
        "{threads} threads: the run streamed chain by chain must give the whole run's report"
    );
    assert_eq!(seen_streamed, seen, "{threads} threads: streamed progress");
    (json, seen)
}

#[test]
fn chains_scored_in_parallel_give_the_sequential_report_byte_for_byte() {
    let (dataset, run) = real_run();
    let (one, one_progress) = report_on_threads(&dataset, &run, 1);
    let (two, two_progress) = report_on_threads(&dataset, &run, 2);
    assert_eq!(one, two, "1 thread and 2 threads must give the same report");
    // Indexed, then every turn reported once, counting up, on both.
    let expected: Vec<usize> = (0..=dataset.turn_count()).collect();
    assert_eq!(one_progress, expected);
    assert_eq!(two_progress, expected);
    // The report exercises what parallelism could reorder: rows of every chain in
    // dataset order, re-implementations, read trajectories and each diagnostic.
    let report: serde_json::Value = serde_json::from_str(&one).unwrap();
    let rows = report["turns"].as_array().unwrap();
    let order: Vec<(&str, u64)> = rows
        .iter()
        .map(|r| (r["chain"].as_str().unwrap(), r["turn"].as_u64().unwrap()))
        .collect();
    let sorted: Vec<(String, u64)> = (0..12)
        .flat_map(|c| (1..=3).map(move |t| (format!("chain-{c:02}"), t)))
        .collect();
    assert_eq!(
        order,
        sorted
            .iter()
            .map(|(c, t)| (c.as_str(), *t))
            .collect::<Vec<_>>()
    );
    assert!(
        rows.iter()
            .any(|r| !r["reimplemented"].as_array().unwrap().is_empty())
    );
    assert!(
        rows.iter()
            .any(|r| r["trajectory"]["actions"].as_u64() > Some(0))
    );
    let diagnostics: Vec<(&str, Option<u64>)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["chain"].as_str().unwrap(), d["turn"].as_u64()))
        .collect();
    assert_eq!(
        diagnostics,
        [
            ("not-in-the-dataset", None),
            ("chain-02", Some(2)),
            ("chain-04", Some(2)),
            ("chain-09", None),
        ]
    );
}

#[test]
fn a_chain_given_twice_chain_by_chain_is_refused() {
    let d = dataset(vec![chain("a", vec![turn("pkg/m.py", &[], &[])])]);
    let prepared = PreparedDataset::new(&d, &Cancel::never()).unwrap();
    let mut by_chain = prepared.chain_by_chain();
    let run = ChainRun::default();
    by_chain.add("a", &run, &Cancel::never()).unwrap();
    assert_eq!(by_chain.turns(), (1, 1));
    let err = by_chain.add("a", &run, &Cancel::never()).unwrap_err();
    assert!(err.to_string().contains("chain a: is given twice"), "{err}");
}
