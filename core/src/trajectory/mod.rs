//! Agent trajectories: reading harness formats into actions and interpreting what each action showed.
//!
//! Two steps, both pure functions of their inputs:
//!
//! 1. [`parse_trajectory`] reads a harness's JSON, as the harness wrote it, into a
//!    [`Trajectory`]: a list of [`RawAction`]s (a shell command with its observation, or a
//!    tool call with its arguments and output) plus the number of rejected responses.
//!    Accepted formats (detected from `trajectory_format` / `format`, else from the shape):
//!    - mini-SWE-agent `"mini-swe-agent-1"` and bare message lists (spec D9), see
//!      [`mini_swe_agent`];
//!    - mini-SWE-agent `"mini-swe-agent-1.1"` (`extra.actions`, tool calls, `role: "tool"`
//!      observations, `role: "exit"`), see [`mini_swe_agent`];
//!    - OpenCode-style sessions (messages with `parts` of `type: "tool"`), see [`opencode`];
//!    - Wheelwright's own `"generic-1"` format, see [`generic`].
//! 2. [`interpret_action`] / [`interpret_trajectory`] turn each action into an
//!    [`InterpretedAction`] (kind, category, files, shown lines) following section 1 of the
//!    metric definitions (D10–D14); [`TrajectorySummary`] aggregates them.
//!
//! Parsing never panics: malformed JSON is a [`TrajectoryError`]; a command that is not
//! understood is kept as an uninterpreted action of kind [`ActionKind::Other`].

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::workspace::ShownLines;
use formats::json::{Borrowed, Json};
use formats::{generic, mini_swe_agent, opencode};

pub mod formats;
mod interpret;
mod not_understood;
mod observation;
mod shell;
mod taxonomy;
mod unparsed;

pub use not_understood::{MAX_NAME_CHARS, NotUnderstood};
pub use observation::{MAX_SHOWN_OUTPUT, Observation, observations};
pub use taxonomy::{ActionKind, Category};
pub use unparsed::{
    EXAMPLES_PER_REASON, MAX_EXAMPLE_COMMAND, MAX_REASONS, ReasonCount, UnparsedExample,
    UnparsedReport, UnparsedTally,
};

pub use interpret::{
    ACTION_STEPS_BASE, ACTION_STEPS_PER_BYTE, InterpretOptions, MAX_UNSEEN_RANGE, interpret_action,
    interpret_trajectory, interpret_trajectory_with,
};

/// The harness format a trajectory was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TrajectoryFormat {
    /// mini-SWE-agent `trajectory_format: "mini-swe-agent-1"`, or a bare list of messages whose
    /// actions are fenced code blocks in assistant text.
    #[serde(rename = "mini-swe-agent-1")]
    MiniSweAgent1,
    /// mini-SWE-agent `trajectory_format: "mini-swe-agent-1.1"` (v2: `extra.actions`, tool calls).
    #[serde(rename = "mini-swe-agent-1.1")]
    MiniSweAgent11,
    /// OpenCode-style session export (tool parts).
    #[serde(rename = "opencode")]
    OpenCode,
    /// Wheelwright's documented `generic-1` format.
    #[serde(rename = "generic-1")]
    Generic1,
}

/// A shell command that the harness ran, with what it printed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellAction {
    pub command: String,
    /// The command's output as the agent saw it (the text inside `<output>`; for a truncated
    /// observation the head and the tail joined by a newline). `None` when there was no
    /// observation.
    pub output: Option<String>,
    pub returncode: Option<i64>,
    /// The harness elided part of the output.
    pub truncated: bool,
    /// For a truncated output, how many lines begin in its head (the part before the
    /// elided middle; a line the cut splits counts): the only lines of a truncated read
    /// that can be numbered without the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_lines: Option<u32>,
    /// The harness killed the command after its time limit.
    pub timed_out: bool,
}

/// A structured tool call (OpenCode-style `read`, `grep`, `glob`, `list`, `edit`, `write`, ...).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Tool name, lower-case.
    pub name: String,
    /// Arguments as the harness recorded them.
    pub args: serde_json::Value,
    pub output: Option<String>,
}

/// One action of a trajectory, as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RawAction {
    Shell(ShellAction),
    Tool(ToolCall),
}

/// A model response the harness rejected, and where it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejected {
    /// Its position in the file's message list (0-based, as in the file).
    pub message: usize,
    /// How many actions came before it.
    pub after_action: usize,
}

/// A trajectory read from a harness's file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    pub format: TrajectoryFormat,
    pub actions: Vec<RawAction>,
    /// Model responses the harness rejected (zero or several actions): they never ran.
    pub rejected_responses: usize,
    /// Where each rejected response was, when the format says (mini-SWE-agent does;
    /// `generic-1` gives only the count).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<Rejected>,
    pub instance_id: Option<String>,
    pub exit_status: Option<String>,
    /// What the run of this trajectory cost in US dollars, when the harness recorded it
    /// (mini-SWE-agent's `info.model_stats.instance_cost`, generic-1's `cost_usd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// How many times the model was called (mini-SWE-agent's `api_calls`, generic-1's
    /// `model_calls`): the agent's turns, which rejected responses also count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_calls: Option<u64>,
    /// The tokens the model read and wrote over the whole trajectory, when the harness
    /// recorded them (mini-SWE-agent's `usage` in each response, generic-1's
    /// `input_tokens` and `output_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
}

/// Tokens a model read (its prompts, each call's whole context) and wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
}

/// Why a trajectory could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TrajectoryError {
    #[error(
        "the trajectory is not valid JSON ({0}); check that the file is complete and was not cut off while the harness was writing it"
    )]
    InvalidJson(String),
    #[error(
        "unsupported trajectory format {0:?}; supported: \"mini-swe-agent-1\", \"mini-swe-agent-1.1\", \"opencode\", \"generic-1\" (convert other harnesses to generic-1, documented in the trajectory module)"
    )]
    UnsupportedFormat(String),
    #[error(
        "the JSON does not look like a trajectory ({0}); expected a mini-SWE-agent `.traj.json`, an OpenCode session export, or a generic-1 file"
    )]
    UnrecognisedShape(String),
    #[error("{format} trajectory is malformed: {detail}; fix or regenerate the file")]
    Malformed { format: String, detail: String },
}

/// Reads a trajectory, detecting its format. See the module documentation for the formats.
pub fn parse_trajectory(text: &str) -> Result<Trajectory, TrajectoryError> {
    let value: Borrowed<'_> =
        serde_json::from_str(text).map_err(|e| TrajectoryError::InvalidJson(e.to_string()))?;
    parse_json(&value)
}

/// Like [`parse_trajectory`], from bytes (must be UTF-8 JSON).
pub fn parse_trajectory_bytes(bytes: &[u8]) -> Result<Trajectory, TrajectoryError> {
    let value: Borrowed<'_> =
        serde_json::from_slice(bytes).map_err(|e| TrajectoryError::InvalidJson(e.to_string()))?;
    parse_json(&value)
}

/// Like [`parse_trajectory`], from an already parsed JSON value.
pub fn parse_trajectory_value(value: &serde_json::Value) -> Result<Trajectory, TrajectoryError> {
    parse_json(value)
}

/// Detects the format and reads the trajectory. mini-SWE-agent's are read from `value` as
/// it is; the other formats from a `serde_json::Value` of it.
fn parse_json<J: Json>(value: &J) -> Result<Trajectory, TrajectoryError> {
    if let Some(f) = value.field("trajectory_format") {
        return match f.as_str() {
            Some("mini-swe-agent-1") => mini_swe_agent::parse(value, false),
            Some("mini-swe-agent-1.1") => mini_swe_agent::parse(value, true),
            Some(other) => Err(TrajectoryError::UnsupportedFormat(other.to_owned())),
            None => Err(TrajectoryError::UnsupportedFormat(f.to_value().to_string())),
        };
    }
    if let Some(f) = value.field("format") {
        return match f.as_str() {
            Some(generic::FORMAT) => generic::parse(&value.to_value()),
            Some("opencode") => opencode::parse(&value.to_value()),
            Some(other) => Err(TrajectoryError::UnsupportedFormat(other.to_owned())),
            None => Err(TrajectoryError::UnsupportedFormat(f.to_value().to_string())),
        };
    }
    if opencode::looks_like(value) {
        return opencode::parse(&value.to_value());
    }
    if mini_swe_agent::looks_like(value) {
        return mini_swe_agent::parse(value, false);
    }
    Err(TrajectoryError::UnrecognisedShape(
        "no `trajectory_format`, `format`, `messages` with roles, or tool parts".to_owned(),
    ))
}

/// One action after interpretation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterpretedAction {
    pub kind: ActionKind,
    pub category: Category,
    /// D14: normalised paths (relative to the working directory; `.` for it; absolute for
    /// paths outside it) named as operands of reads, searches and listings, plus files with
    /// shown lines or grep hits.
    pub files: BTreeSet<String>,
    /// D13/D14: lines shown by reads and searches.
    pub shown: ShownLines,
    /// False when some part of the action was not understood (unknown command, shell
    /// control structure, unparsable quoting); such parts count as kind/category other.
    pub interpreted: bool,
    /// Why it was not understood (the first reason met); `None` exactly when `interpreted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_understood: Option<NotUnderstood>,
    /// Several commands printed into one observation and, without a workspace, decoded
    /// lines could not be attributed to one of them: the union was taken (D13).
    pub ambiguous: bool,
    /// The command (shell actions) or `tool(args)` (tool calls), for reports.
    pub command: String,
}

impl InterpretedAction {
    /// Marks (part of) the action as not understood, keeping the first reason.
    pub(crate) fn mark_not_understood(&mut self, reason: NotUnderstood) {
        self.interpreted = false;
        self.not_understood.get_or_insert(reason);
    }
}

/// The longest command an [`ActionRecord`] keeps, in bytes: the whole command is in the
/// trajectory, and a heredoc that writes a file must not make every report that large.
pub const MAX_RECORDED_COMMAND: usize = 1000;

/// One action's interpretation as reports show it: its position and what it counted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRecord {
    /// 1-based position among the trajectory's actions.
    pub index: usize,
    /// The command as run, cut at [`MAX_RECORDED_COMMAND`] bytes (`…` marks the cut).
    pub command: String,
    pub kind: ActionKind,
    pub category: Category,
    /// D14: the files it counts.
    pub files: BTreeSet<String>,
    /// D13: the lines it showed, per file, as inclusive ranges.
    pub shown: ShownLines,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_understood: Option<NotUnderstood>,
    /// Several commands printed into one observation and its lines could not be told
    /// apart: each was given the union (D13).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ambiguous: bool,
}

impl ActionRecord {
    /// The record of the `index`-th (1-based) action.
    pub fn new(index: usize, action: &InterpretedAction) -> Self {
        let command = unparsed::cut(&action.command, MAX_RECORDED_COMMAND);
        Self {
            index,
            command,
            kind: action.kind,
            category: action.category,
            files: action.files.clone(),
            shown: action.shown.clone(),
            not_understood: action.not_understood.clone(),
            ambiguous: action.ambiguous,
        }
    }

    /// Records of every action, in order.
    pub fn all(actions: &[InterpretedAction]) -> Vec<Self> {
        actions
            .iter()
            .enumerate()
            .map(|(i, a)| Self::new(i + 1, a))
            .collect()
    }
}

/// One trajectory read and interpreted action by action: what `wheelwright trajectory`
/// prints, so a researcher can audit how every action was counted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrajectoryReport {
    pub format: TrajectoryFormat,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<String>,
    /// The directory the agent's shell started in: paths are relative to it.
    pub workdir: String,
    /// Whether a workspace was given: without one, line counts and grep hits come from
    /// the observations alone.
    pub workspace: bool,
    pub summary: TrajectorySummary,
    pub actions: Vec<ActionRecord>,
    /// Where the rejected responses were, when the format says.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<Rejected>,
    pub unparsed: UnparsedReport,
}

impl TrajectoryReport {
    /// Interprets `trajectory` with `options` and reports every action.
    pub fn new(trajectory: &Trajectory, options: &InterpretOptions<'_>) -> Self {
        let interpreted = interpret_trajectory(trajectory, options);
        let actions = ActionRecord::all(&interpreted);
        let mut unparsed = UnparsedTally::new();
        unparsed.add("", &actions, trajectory.rejected_responses);
        Self {
            format: trajectory.format,
            instance_id: trajectory.instance_id.clone(),
            exit_status: trajectory.exit_status.clone(),
            workdir: options.workdir.clone(),
            workspace: options.workspace.is_some(),
            summary: TrajectorySummary::new(&interpreted, trajectory.rejected_responses),
            actions,
            rejected: trajectory.rejected.clone(),
            unparsed: unparsed.finish(),
        }
    }
}

/// Per-trajectory counts (descriptive statistics of section 1).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrajectorySummary {
    pub actions: usize,
    pub by_kind: BTreeMap<ActionKind, usize>,
    pub by_category: BTreeMap<Category, usize>,
    pub uninterpreted: usize,
    pub ambiguous: usize,
    pub rejected_responses: usize,
    /// Distinct files viewed, searched or listed.
    pub files: usize,
    /// Distinct (file, line) pairs shown.
    pub lines: usize,
}

impl TrajectorySummary {
    /// Summarises interpreted actions; `rejected_responses` comes from the [`Trajectory`].
    pub fn new(actions: &[InterpretedAction], rejected_responses: usize) -> Self {
        Self::with_shown(actions, rejected_responses).0
    }

    /// [`TrajectorySummary::new`] together with the union of the actions' shown lines, for
    /// callers that need both (merging the shown lines is a large part of the cost).
    pub fn with_shown(
        actions: &[InterpretedAction],
        rejected_responses: usize,
    ) -> (Self, ShownLines) {
        let mut s = Self {
            actions: actions.len(),
            rejected_responses,
            ..Self::default()
        };
        let mut files = BTreeSet::new();
        let mut shown = ShownLines::new();
        for a in actions {
            *s.by_kind.entry(a.kind).or_default() += 1;
            *s.by_category.entry(a.category).or_default() += 1;
            s.uninterpreted += usize::from(!a.interpreted);
            s.ambiguous += usize::from(a.ambiguous);
            files.extend(a.files.iter().map(String::as_str));
            shown.extend(&a.shown);
        }
        s.files = files.len();
        s.lines = shown.count();
        (s, shown)
    }

    /// Interprets and summarises a whole trajectory.
    pub fn of(trajectory: &Trajectory, options: &InterpretOptions<'_>) -> Self {
        Self::new(
            &interpret_trajectory(trajectory, options),
            trajectory.rejected_responses,
        )
    }
}
