//! The prompt of a RepoReuse turn: its requirement rendered under a memory setting (spec 1, "Memory settings"), wrapped in the delivery instructions of a versioned template.
//!
//! Every run on the leaderboard must have been asked the same thing, so the text comes
//! from a template file shipped in the crate (`prompts/turn-1.md`), and each prompt records
//! the template's version. The requirement is the turn's `requirement.md` (memory "none"
//! as written); the memory note about earlier turns is added here, never naming a
//! repository target: "interface" lists each earlier module with its functions'
//! signatures, return contracts and behaviour, "source" gives the exact text the agent left
//! at each earlier path (or says it left none).

use serde::{Deserialize, Serialize};

use crate::reporeuse::dataset::Chain;
use crate::template::fill;

/// The version of the turn template: recorded in each prompt, bumped when the text changes.
pub const TEMPLATE_VERSION: &str = "reporeuse-turn-1";

const TEMPLATE: &str = include_str!("prompts/turn-1.md");

/// What the agent keeps between turns (spec 1, "Memory settings").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Memory {
    /// No note about earlier turns.
    None,
    /// Each earlier turn's module and its functions' interfaces.
    Interface,
    /// The exact source of each earlier submission.
    Source,
}

impl Memory {
    pub const ALL: [Memory; 3] = [Memory::None, Memory::Interface, Memory::Source];

    pub fn name(self) -> &'static str {
        match self {
            Memory::None => "none",
            Memory::Interface => "interface",
            Memory::Source => "source",
        }
    }
}

/// A rendered prompt and what it was rendered from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    pub template: String,
    pub memory: Memory,
    pub text: String,
}

/// The prompt of turn `turn` (1-based) of `chain` under `memory`. `earlier` gives, for
/// each earlier turn in order, the text the agent left at its module path (`None`: it
/// left none); only [`Memory::Source`] reads it.
///
/// # Panics
/// When `turn` is not a turn of `chain` (the caller iterates the chain's turns).
pub fn turn_prompt(
    chain: &Chain,
    turn: usize,
    memory: Memory,
    earlier: &[Option<String>],
) -> Prompt {
    let current = &chain.turns[turn - 1];
    let note = memory_note(chain, turn, memory, earlier);
    // One pass: a placeholder inside the requirement or the agent's own files stays.
    let text = fill(
        TEMPLATE,
        &[
            ("requirement", current.requirement.trim_end()),
            ("memory", &note),
            ("module_path", &current.manifest.module_path),
        ],
    );
    Prompt {
        template: TEMPLATE_VERSION.to_owned(),
        memory,
        text,
    }
}

/// The note about turns before `turn`; empty for memory "none" and for turn 1.
fn memory_note(chain: &Chain, turn: usize, memory: Memory, earlier: &[Option<String>]) -> String {
    let before = &chain.turns[..turn - 1];
    if before.is_empty() || memory == Memory::None {
        return String::new();
    }
    let mut out = String::from("\n## What you wrote in earlier turns\n\n");
    match memory {
        Memory::None => {}
        Memory::Interface => {
            out.push_str(
                "These modules are in the workspace. Reuse their functions where they fit rather than writing them again.\n",
            );
            for t in before {
                out.push_str(&format!(
                    "\n### Turn {}: `{}`\n\n",
                    t.manifest.turn, t.manifest.module_path
                ));
                for f in &t.manifest.functions {
                    out.push_str(&format!(
                        "- `{}`: returns {}. {}\n",
                        f.signature, f.returns, f.behaviour
                    ));
                }
            }
        }
        Memory::Source => {
            out.push_str(
                "These are the files you left, exactly; they are in the workspace. Reuse their functions where they fit rather than writing them again.\n",
            );
            for (i, t) in before.iter().enumerate() {
                let path = &t.manifest.module_path;
                match earlier.get(i).and_then(Option::as_deref) {
                    Some(source) => out.push_str(&format!(
                        "\n### Turn {}: `{path}`\n\n<file path=\"{path}\">\n{}\n</file>\n",
                        t.manifest.turn,
                        source.trim_end()
                    )),
                    None => out.push_str(&format!(
                        "\n### Turn {}: `{path}`\n\nYou left no file at this path.\n",
                        t.manifest.turn
                    )),
                }
            }
        }
    }
    out
}
