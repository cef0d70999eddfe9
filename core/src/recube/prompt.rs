//! ReCUBE's prompts from versioned templates: the full-context prompt (`<readme>`, `<dependencies>`, `<implementations>` and the masked file) and the agent prompt.
//!
//! In the full-context settings the model sees the repository in one message: its README,
//! its declared dependencies, every other source file, and the masked target; in the agent
//! settings it explores the masked instance's workspace itself and gets only the task.
//! Every run must have been asked the same thing, so the text comes from template files
//! shipped in the crate, and each prompt records its template's version. Test files are
//! never shown (`workspace::why_removed`), nor is the target's original text.
//!
//! ```
//! use std::collections::BTreeMap;
//! use wheelwright_core::recube::prompt::{FULL_CONTEXT_TEMPLATE, full_context_prompt};
//!
//! let files = BTreeMap::from([
//!     ("pkg/a.py".to_owned(), "def f():\n    return 1\n".to_owned()),
//!     ("pkg/b.py".to_owned(), "from pkg.a import f\n".to_owned()),
//!     ("pkg/test_b.py".to_owned(), "def test_b():\n    pass\n".to_owned()),
//! ]);
//! let prompt = full_context_prompt("A package.", "Requires-Python: >=3.8", &files, "pkg/a.py");
//! assert_eq!(prompt.template, FULL_CONTEXT_TEMPLATE);
//! assert!(prompt.text.contains("<file path=\"pkg/b.py\">"));
//! assert!(!prompt.text.contains("return 1")); // the target is shown masked only
//! assert!(!prompt.text.contains("test_b"));
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::recube::mask::mask;
use crate::template::fill;
use crate::workspace::why_removed;

/// The version of the full-context template, recorded in each prompt.
pub const FULL_CONTEXT_TEMPLATE: &str = "recube-full-context-1";
/// The version of the agent template, recorded in each prompt.
pub const AGENT_TEMPLATE: &str = "recube-agent-1";
/// The version of the agent template that also names the CCE toolkit's commands (the
/// paper's "Agent + CCE tools" setting), recorded in each prompt.
pub const AGENT_CCE_TEMPLATE: &str = "recube-agent-cce-1";

const FULL_CONTEXT: &str = include_str!("prompts/full-context-1.md");
const AGENT: &str = include_str!("prompts/agent-1.md");
const AGENT_CCE: &str = include_str!("prompts/agent-cce-1.md");

/// A rendered ReCUBE prompt and the template it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecubePrompt {
    pub template: String,
    pub text: String,
}

/// The full-context prompt for rebuilding `target` of the repository `files` (paths
/// relative to its root): `readme` and `dependencies` as given, every other file that is
/// not a test file in path order, and `target` masked.
pub fn full_context_prompt(
    readme: &str,
    dependencies: &str,
    files: &BTreeMap<String, String>,
    target: &str,
) -> RecubePrompt {
    let mut implementations = String::new();
    for (path, text) in files {
        if path == target || why_removed(path).is_some() || !path.ends_with(".py") {
            continue;
        }
        if !implementations.is_empty() {
            implementations.push('\n');
        }
        implementations.push_str(&format!(
            "<file path=\"{path}\">\n{}\n</file>",
            text.trim_end()
        ));
    }
    let masked = files.get(target).map(|t| mask(t).text).unwrap_or_default();
    // One pass over the template, so a placeholder inside the repository's own text is
    // never replaced.
    let text = fill(
        FULL_CONTEXT,
        &[
            ("target", target),
            ("readme", readme.trim()),
            ("dependencies", dependencies.trim()),
            ("implementations", &implementations),
            ("masked", masked.trim_end()),
        ],
    );
    RecubePrompt {
        template: FULL_CONTEXT_TEMPLATE.to_owned(),
        text,
    }
}

/// The agent prompt for rebuilding `target`, with the instance's `description`.
pub fn agent_prompt(target: &str, description: &str) -> RecubePrompt {
    RecubePrompt {
        template: AGENT_TEMPLATE.to_owned(),
        text: fill(
            AGENT,
            &[("target", target), ("description", description.trim())],
        ),
    }
}

/// The agent prompt with the CCE toolkit: [`agent_prompt`]'s task, then each
/// `wheelwright cce` command the agent may run in its workspace, spelled for `target`.
pub fn agent_cce_prompt(target: &str, description: &str) -> RecubePrompt {
    RecubePrompt {
        template: AGENT_CCE_TEMPLATE.to_owned(),
        text: fill(
            AGENT_CCE,
            &[("target", target), ("description", description.trim())],
        ),
    }
}

/// The README and the dependencies of a package from its wheel's `METADATA` (core metadata,
/// an email-style header block, then the long description as the body): the body, else a
/// `Description` header, is the README; `Requires-Python` and each `Requires-Dist` line are
/// the dependencies.
pub fn readme_and_dependencies(metadata: &str) -> (String, String) {
    let (headers, body) = metadata
        .split_once("\r\n\r\n")
        .or_else(|| metadata.split_once("\n\n"))
        .unwrap_or((metadata, ""));
    let mut dependencies = Vec::new();
    let mut description = None;
    for line in headers.lines() {
        if let Some((key, value)) = line.split_once(':') {
            match key.trim() {
                "Requires-Python" | "Requires-Dist" => {
                    dependencies.push(format!("{}: {}", key.trim(), value.trim()));
                }
                "Description" => description = Some(value.trim().to_owned()),
                _ => {}
            }
        }
    }
    let readme = if body.trim().is_empty() {
        description.unwrap_or_default()
    } else {
        body.trim().to_owned()
    };
    let dependencies = if dependencies.is_empty() {
        "(none declared)".to_owned()
    } else {
        dependencies.join("\n")
    };
    (readme, dependencies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_in_the_repository_text_are_left_alone() {
        let files = BTreeMap::from([
            ("a.py".to_owned(), "x = '{target} {masked}'\n".to_owned()),
            (
                "t.py".to_owned(),
                "def g():\n    return {1: 2}\n".to_owned(),
            ),
        ]);
        let prompt = full_context_prompt("{readme}", "", &files, "t.py");
        assert!(prompt.text.contains("x = '{target} {masked}'"));
        assert!(prompt.text.contains("<readme>\n{readme}\n</readme>"));
        assert!(prompt.text.contains("<masked path=\"t.py\">"));
        assert!(!prompt.text.contains("{1: 2}"));
    }

    #[test]
    fn metadata_gives_the_readme_and_the_dependencies() {
        let metadata = "Metadata-Version: 2.1\nName: click\nRequires-Python: >=3.7\nRequires-Dist: colorama; platform_system == \"Windows\"\n\n# click\n\nA package.\n";
        let (readme, deps) = readme_and_dependencies(metadata);
        assert_eq!(readme, "# click\n\nA package.");
        assert_eq!(
            deps,
            "Requires-Python: >=3.7\nRequires-Dist: colorama; platform_system == \"Windows\""
        );
        let (readme, deps) = readme_and_dependencies("Name: x\nDescription: short\n");
        assert_eq!(
            (readme.as_str(), deps.as_str()),
            ("short", "(none declared)")
        );
    }

    #[test]
    fn the_agent_prompt_names_the_target() {
        let prompt = agent_prompt("pkg/a.py", "The option parser.");
        assert_eq!(prompt.template, AGENT_TEMPLATE);
        assert!(prompt.text.contains("`pkg/a.py`"));
        assert!(prompt.text.contains("The option parser."));
    }
}
