//! Why an action was not understood: the reasons the report of unparsed actions groups by.
//!
//! The spec (section 1) keeps an action that is not understood as an action that showed
//! nothing, and counts it in the run's report of unparsed actions, never silently. A
//! researcher reading that report needs to know what to fix or discount, so each such
//! action carries one of these reasons (the first met, for an action of several parts).
//! Example: `ctags -x a.py` is [`NotUnderstood::UnknownCommand`] `ctags`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The longest program or tool name a reason keeps: names come from the trajectory, so a
/// hostile one cannot make every report that groups by it large.
pub const MAX_NAME_CHARS: usize = 64;

/// Why (part of) an action was not understood.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum NotUnderstood {
    /// A shell control structure (`for`, `while`, `if`, `case`), a subshell `( ... )` or a
    /// function definition: what it prints depends on running it.
    ShellControl,
    /// An unterminated quote, substitution or here-document.
    ShellUnterminated,
    /// A redirection without a target, or another malformed command line.
    ShellSyntax,
    /// A command the interpreter has no rule for.
    UnknownCommand { program: String },
    /// The command's name is itself expanded (`$EDITOR a.py`, `$(which python)`).
    ExpandedCommand,
    /// A tool the interpreter has no rule for.
    UnknownTool { tool: String },
    /// A tool call without the argument its rule needs (a `read` without a path).
    MissingArgument { tool: String },
    /// Interpreting it took more steps than its size allows (a glob over a huge repository,
    /// a line of a million characters); what it showed before that is kept.
    OverBudget,
}

impl NotUnderstood {
    /// [`NotUnderstood::UnknownCommand`] with the name cut to [`MAX_NAME_CHARS`].
    pub(crate) fn unknown_command(program: &str) -> Self {
        Self::UnknownCommand {
            program: cut(program),
        }
    }

    pub(crate) fn unknown_tool(tool: &str) -> Self {
        Self::UnknownTool { tool: cut(tool) }
    }

    pub(crate) fn missing_argument(tool: &str) -> Self {
        Self::MissingArgument { tool: cut(tool) }
    }
}

fn cut(name: &str) -> String {
    match name.char_indices().nth(MAX_NAME_CHARS) {
        Some((at, _)) => format!("{}…", &name[..at]),
        None => name.to_owned(),
    }
}

impl fmt::Display for NotUnderstood {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ShellControl => f.write_str(
                "a shell control structure, subshell or function definition: what it shows depends on running it",
            ),
            Self::ShellUnterminated => {
                f.write_str("an unterminated quote, substitution or here-document")
            }
            Self::ShellSyntax => f.write_str("a malformed command line (a redirection without a target)"),
            Self::UnknownCommand { program } => {
                write!(f, "`{program}` is not a command the interpreter has a rule for")
            }
            Self::ExpandedCommand => {
                f.write_str("the command's name is a variable or substitution, known only when it runs")
            }
            Self::UnknownTool { tool } => {
                write!(f, "`{tool}` is not a tool the interpreter has a rule for")
            }
            Self::MissingArgument { tool } => {
                write!(f, "the `{tool}` call lacks the argument its rule needs (a path)")
            }
            Self::OverBudget => f.write_str(
                "interpreting it took more steps than its size allows; what it showed before that is kept",
            ),
        }
    }
}
