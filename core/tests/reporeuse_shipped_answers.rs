//! The authoring answers shipped for `datasets/reporeuse-pypi` (RepoReuse's pipeline input): every turn of every chain passes the synthesize step's checks, and the set is of the size the dataset needs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use wheelwright_core::reporeuse::dataset::TurnManifest;
use wheelwright_core::reporeuse::synthesis::{
    ChainSource, MIN_CALLS, RepositoryLine, TurnContext, check_answer, parse_answer, render_turn,
};

fn pipeline() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/reporeuse-pypi/pipeline")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_shipped_answer_passes_the_synthesize_checks() {
    let repositories: Value =
        serde_json::from_str(&read(&pipeline().join("repositories.json"))).unwrap();
    let mut chains: Vec<PathBuf> = std::fs::read_dir(pipeline().join("answers"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("chain.json").is_file())
        .collect();
    chains.sort();
    let mut problems = Vec::new();
    let mut libraries = BTreeSet::new();
    let mut turns = 0;
    for dir in &chains {
        let source: ChainSource = serde_json::from_str(&read(&dir.join("chain.json"))).unwrap();
        let repo = &repositories[&source.repository];
        let repository = RepositoryLine {
            name: repo["pypi"].as_str().unwrap().to_owned(),
            version: repo["version"].as_str().unwrap().to_owned(),
            import: repo["import"].as_str().unwrap().to_owned(),
        };
        libraries.insert(source.repository.clone());
        let chain = source.manifest(true);
        let mut earlier: Vec<TurnManifest> = Vec::new();
        for t in 1..=5 {
            let path = dir.join(format!("turn-{t}.md"));
            let answer = match parse_answer(&read(&path)) {
                Ok(a) => a,
                Err(p) => {
                    problems.push(format!("{}: {p:?}", path.display()));
                    break;
                }
            };
            let context = TurnContext {
                chain: &chain,
                turn: t,
                earlier: &earlier,
                evidence: None,
                repository: &repository,
            };
            let found = check_answer(&answer, &context);
            if !found.is_empty() {
                problems.push(format!("{}: {found:?}", path.display()));
            }
            assert!(answer.calls.len() >= MIN_CALLS);
            if let Some(files) = render_turn(&answer, &context) {
                earlier.push(files.manifest);
            }
            turns += 1;
        }
        assert!(
            !dir.join("turn-6.md").exists(),
            "{}: five turns a chain",
            dir.display()
        );
    }
    assert!(problems.is_empty(), "{problems:#?}");
    // The floor: 25 chains of five turns over at least five libraries.
    assert_eq!(chains.len(), 25);
    assert_eq!(turns, 125);
    assert_eq!(libraries.len(), 5, "{libraries:?}");
}
