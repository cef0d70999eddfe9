//! The `copy` baseline on the real dataset `datasets/reporeuse-networkx`: for every turn the
//! copy module parses, copies every repo target, and the scorer finds reuse_repo 0; every
//! repo target the scorer could find re-implemented is, except where D5 or D6 explain why.

use crate::common;

use common::real_dataset;

use wheelwright_core::metric::Score;
use wheelwright_core::python::index::{IndexOptions, RepoIndex};
use wheelwright_core::reporeuse::baseline::{Baseline, copy_module};
use wheelwright_core::reporeuse::metrics::turn::{TurnInput, score_turn};
use wheelwright_core::workspace::Workspace;
use wheelwright_server::dataset::load_dir;

/// NEEDS PyPI the first time (the networkx 3.4.2 wheel, then cached).
#[test]
fn the_copy_baseline_of_every_real_turn_drops_repo_reuse_to_zero_needs_pypi() {
    let dataset = load_dir(&real_dataset()).unwrap();
    let files = wheelwright_server::dataset::repository_sources(
        &dataset,
        &wheelwright_server::dataset::default_cache_dir(),
        std::path::Path::new("python3"),
    )
    .expect("the networkx 3.4.2 wheel (needs PyPI or the pip cache)")
    .remove("networkx")
    .unwrap();
    let mut base = Workspace::new();
    for (path, text) in &files {
        base.insert(path, text.as_str());
    }
    let base_index = RepoIndex::build(&base, &IndexOptions::default());
    let (mut turns, mut repo_targets, mut reimplemented) = (0, 0, 0);
    for chain in &dataset.chains {
        // W_{t-1}: the repository plus the references of the earlier turns.
        let mut workspace = base.clone();
        let mut index = base_index.clone();
        for (i, turn) in chain.turns.iter().enumerate() {
            let tm = &turn.manifest;
            let at = format!("{} turn {}", chain.manifest.id, i + 1);
            let targets: Vec<String> = tm
                .repo_targets
                .iter()
                .chain(&tm.self_targets)
                .cloned()
                .collect();
            let copy = copy_module(
                &workspace,
                &index,
                &tm.module_path,
                &turn.reference,
                &targets,
            );
            assert!(copy.diagnostics.is_empty(), "{at}: {:?}", copy.diagnostics);
            let copied: Vec<&str> = copy.copied.iter().map(|c| c.target.as_str()).collect();
            assert_eq!(copied, targets, "{at}: every target is copied");
            let score = score_turn(&TurnInput {
                workspace: &index,
                submission: Some(&copy.text),
                path: &tm.module_path,
                repo_targets: &tm.repo_targets,
                self_targets: &tm.self_targets,
                shown: None,
                tests: None,
                files: None,
                lines: None,
            });
            assert!(
                !score.syntax_errors,
                "{at}: the copy parses:\n{}",
                copy.text
            );
            // The three baselines through the one entry point: the reference as is, no file
            // for empty, the module above for copy.
            let module = |b: Baseline| {
                b.module(
                    &workspace,
                    &index,
                    &tm.module_path,
                    &turn.reference,
                    &targets,
                )
            };
            assert_eq!(
                module(Baseline::Reference).as_deref(),
                Some(turn.reference.as_str())
            );
            assert_eq!(module(Baseline::Empty), None);
            assert_eq!(module(Baseline::Copy).as_deref(), Some(copy.text.as_str()));
            assert_eq!(score.repo.reuse, Score::Defined { value: 0.0 }, "{at}");
            assert_eq!(score.self_targets.reuse.value().unwrap_or(0.0), 0.0, "{at}");
            for outcome in &score.repo.targets {
                let evidence = outcome.reimplementation.as_ref().expect("known target");
                repo_targets += 1;
                if outcome.reimplemented() {
                    reimplemented += 1;
                    continue;
                }
                // Not re-implemented only when the scorer cannot see it: fewer than 3
                // callees (D6), or callees the copy calls under another identity: a
                // same-module helper is a bare name in the target but imported, so
                // dotted, in the copy (D5); a target copied too is called by its
                // private name.
                let copies: Vec<&str> = copy.copied.iter().map(|c| c.canonical.as_str()).collect();
                let unexplained: Vec<&String> = evidence
                    .callees
                    .iter()
                    .filter(|c| !evidence.matched.contains(c))
                    .filter(|c| c.contains('.') && !copies.contains(&c.as_str()))
                    .collect();
                assert!(
                    evidence.callees.len() < 3 || unexplained.is_empty(),
                    "{at}: {} is not re-implemented; the copy misses {unexplained:?}",
                    outcome.target
                );
            }
            turns += 1;
            workspace.insert(&tm.module_path, turn.reference.as_str());
            index.insert(&tm.module_path, &turn.reference);
        }
    }
    assert_eq!(turns, 20);
    assert_eq!(repo_targets, 49);
    assert_eq!(reimplemented, 25, "repo targets the copy re-implements");
}
