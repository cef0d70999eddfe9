//! RepoReuse turn prompts (`core::reporeuse::prompt`) for every turn of one shipped chain under each memory setting, as snapshots; an earlier turn that left no file is said so.
//!
//! The expected prompts are under `fixtures/prompts/`. To regenerate them after a
//! deliberate change: `UPDATE_EXPECT=1 cargo test -p wheelwright-server --test it prompts::`,
//! then review the diff.

use crate::common;

use std::path::{Path, PathBuf};

use common::expect::expect_text;
use wheelwright_core::reporeuse::prompt::{Memory, TEMPLATE_VERSION, turn_prompt};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/prompts")
}

/// What an agent left in each turn of a five-turn chain: turn 2 left nothing.
fn agent_files() -> Vec<Option<String>> {
    (1..=5)
        .map(|t| {
            (t != 2).then(|| {
                format!(
                    "import networkx as nx\n\n\ndef turn_{t}_helper(G):\n    return sorted(G)\n"
                )
            })
        })
        .collect()
}

#[test]
fn each_memory_setting_renders_every_turn_of_a_chain() {
    let dataset =
        wheelwright_server::dataset::load_dir(&common::real_dataset()).expect("the dataset");
    let chain = dataset
        .chains
        .iter()
        .find(|c| c.manifest.id == "build-graph")
        .expect("the build-graph chain");
    let files = agent_files();
    for memory in Memory::ALL {
        let mut all = String::new();
        for (i, turn) in chain.turns.iter().enumerate() {
            let prompt = turn_prompt(chain, i + 1, memory, &files[..i]);
            assert_eq!(prompt.template, TEMPLATE_VERSION);
            assert!(prompt.text.contains(&turn.manifest.module_path));
            // Repository targets are never named (spec 1).
            for target in &turn.manifest.repo_targets {
                let name = target.rsplit('.').next().unwrap();
                assert!(
                    !prompt.text.contains(&format!("{name}(")),
                    "{target} named in turn {}",
                    i + 1
                );
            }
            all.push_str(&format!("===== turn {} =====\n{}\n", i + 1, prompt.text));
        }
        if memory == Memory::Source {
            assert!(all.contains("You left no file at this path."));
        }
        expect_text(
            &fixtures().join(format!("build-graph-{}.md", memory.name())),
            &all,
        );
    }
}
