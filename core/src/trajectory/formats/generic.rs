//! Wheelwright's `generic-1` trajectory format, for harnesses without a reader of their own.
//!
//! ```json
//! {
//!   "format": "generic-1",
//!   "instance_id": "optional",
//!   "rejected_responses": 0,
//!   "cost_usd": 0.42,
//!   "model_calls": 17,
//!   "input_tokens": 181000,
//!   "output_tokens": 9200,
//!   "actions": [
//!     {"kind": "bash", "command": "nl -ba a.py | sed -n '1,5p'", "output": "...", "returncode": 0},
//!     {"kind": "read", "path": "pkg/a.py", "start_line": 10, "end_line": 20, "output": "..."},
//!     {"kind": "grep", "pattern": "def f", "path": "pkg", "output": "pkg/a.py:12:def f():"},
//!     {"kind": "glob", "pattern": "**/*.py", "path": "."},
//!     {"kind": "list", "path": "pkg"},
//!     {"kind": "edit", "path": "pkg/a.py"},
//!     {"kind": "write", "path": "pkg/b.py"}
//!   ]
//! }
//! ```
//!
//! Every field but `kind` is optional; `cost_usd` (what the run cost in US dollars) and
//! `model_calls` (how many times the model was called) are what ReCUBE reports per instance;
//! `input_tokens` and `output_tokens` (summed over the model's calls) what SchrodingerRepo
//! compares. `bash` actions are interpreted as shell commands
//! exactly like mini-SWE-agent's; the others become [`ToolCall`]s named after their kind, with
//! the whole object as arguments. `read` shows `start_line..=end_line` (both 1-based; the
//! whole file when absent); `grep` output lines `path:line:text` (or `line:text` for a single
//! file) locate the hits. Any other `kind` is kept as an uninterpreted action.

use serde_json::Value;

use crate::trajectory::{
    RawAction, ShellAction, Tokens, ToolCall, Trajectory, TrajectoryError, TrajectoryFormat,
};

/// The `format` value of this format.
pub const FORMAT: &str = "generic-1";

pub(crate) fn parse(value: &Value) -> Result<Trajectory, TrajectoryError> {
    let malformed = |detail: &str| TrajectoryError::Malformed {
        format: FORMAT.to_owned(),
        detail: detail.to_owned(),
    };
    let list = value
        .get("actions")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed("`actions` is missing or not a list"))?;
    let mut actions = Vec::with_capacity(list.len());
    for (i, a) in list.iter().enumerate() {
        let kind = a
            .get("kind")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed(&format!("action {i} has no string `kind`")))?;
        let output = a.get("output").and_then(Value::as_str).map(str::to_owned);
        if kind == "bash" || kind == "shell" {
            let command = a
                .get("command")
                .and_then(Value::as_str)
                .ok_or_else(|| malformed(&format!("bash action {i} has no string `command`")))?;
            actions.push(RawAction::Shell(ShellAction {
                command: command.to_owned(),
                output,
                returncode: a.get("returncode").and_then(Value::as_i64),
                truncated: a.get("truncated").and_then(Value::as_bool).unwrap_or(false),
                timed_out: false,
                head_lines: None,
            }));
        } else {
            actions.push(RawAction::Tool(ToolCall {
                name: kind.to_ascii_lowercase(),
                args: a.clone(),
                output,
            }));
        }
    }
    Ok(Trajectory {
        format: TrajectoryFormat::Generic1,
        actions,
        rejected: Vec::new(),
        rejected_responses: value
            .get("rejected_responses")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0),
        instance_id: value
            .get("instance_id")
            .and_then(Value::as_str)
            .map(str::to_owned),
        exit_status: None,
        cost_usd: value
            .get("cost_usd")
            .and_then(Value::as_f64)
            .filter(|cost| cost.is_finite() && *cost >= 0.0),
        model_calls: value.get("model_calls").and_then(Value::as_u64),
        tokens: tokens(value),
    })
}

/// `input_tokens` and `output_tokens`, when either is given (the other then counts 0).
fn tokens(value: &Value) -> Option<Tokens> {
    let input = value.get("input_tokens").and_then(Value::as_u64);
    let output = value.get("output_tokens").and_then(Value::as_u64);
    (input.is_some() || output.is_some()).then(|| Tokens {
        input: input.unwrap_or(0),
        output: output.unwrap_or(0),
    })
}
