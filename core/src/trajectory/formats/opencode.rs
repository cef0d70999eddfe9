//! OpenCode-style sessions: messages whose `parts` include tool calls (`type: "tool"`).
//!
//! Accepted shape (what `opencode export` writes, reduced to what the scorer reads):
//!
//! ```json
//! {
//!   "format": "opencode",            // optional; detected from the shape otherwise
//!   "info": {"id": "ses_..."},       // optional
//!   "messages": [
//!     {"info": {"role": "assistant"}, "parts": [
//!       {"type": "text", "text": "..."},
//!       {"type": "tool", "tool": "read", "callID": "c1",
//!        "state": {"status": "completed",
//!                  "input": {"filePath": "/testbed/pkg/a.py", "offset": 10, "limit": 20},
//!                  "output": "..."}}
//!     ]}
//!   ]
//! }
//! ```
//!
//! The top level may also be the `messages` list itself, and a message may carry `parts`
//! directly. Each tool part becomes one [`ToolCall`] (`tool` lower-cased, `state.input` as
//! arguments, `state.output` — or `state.metadata.output` — as output). `bash` tool calls
//! (`input.command`) become shell actions. Tools interpreted: `read` (`filePath`, `offset`
//! = first line, 1-based, default 1; `limit` default 2000), `grep` (`pattern`, `path`,
//! `include`; output `path:` headers and `  Line N: text` rows), `glob`, `list`, `edit`,
//! `write`, `patch`, `multiedit`, `todowrite`/`todoread`. Parts in status `error` are kept
//! with their error as output.

use serde_json::Value;

use super::json::{Json, messages_of};

use crate::trajectory::{
    RawAction, ShellAction, ToolCall, Trajectory, TrajectoryError, TrajectoryFormat,
};

/// Whether the value has OpenCode's shape: messages with `parts`.
pub(crate) fn looks_like<J: Json>(value: &J) -> bool {
    messages_of(value).is_some_and(|ms| {
        ms.iter()
            .any(|m| m.field("parts").and_then(J::items).is_some())
    })
}

pub(crate) fn parse(value: &Value) -> Result<Trajectory, TrajectoryError> {
    let messages = messages_of(value).ok_or_else(|| TrajectoryError::Malformed {
        format: "opencode".to_owned(),
        detail: "`messages` is missing or not a list".to_owned(),
    })?;
    let mut actions = Vec::new();
    for msg in messages {
        let Some(parts) = msg.get("parts").and_then(Value::as_array) else {
            continue;
        };
        for part in parts {
            if part.get("type").and_then(Value::as_str) != Some("tool") {
                continue;
            }
            let name = part
                .get("tool")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_ascii_lowercase();
            let state = part.get("state");
            let args = state
                .and_then(|s| s.get("input"))
                .cloned()
                .unwrap_or(Value::Null);
            let output = state
                .and_then(|s| {
                    s.get("output")
                        .or_else(|| s.pointer("/metadata/output"))
                        .or_else(|| s.get("error"))
                })
                .and_then(Value::as_str)
                .map(str::to_owned);
            if name == "bash"
                && let Some(command) = args.get("command").and_then(Value::as_str)
            {
                actions.push(RawAction::Shell(ShellAction {
                    command: command.to_owned(),
                    output,
                    returncode: state
                        .and_then(|s| s.pointer("/metadata/exit"))
                        .and_then(Value::as_i64),
                    truncated: false,
                    timed_out: false,
                    head_lines: None,
                }));
                continue;
            }
            actions.push(RawAction::Tool(ToolCall { name, args, output }));
        }
    }
    Ok(Trajectory {
        format: TrajectoryFormat::OpenCode,
        actions,
        rejected: Vec::new(),
        rejected_responses: 0,
        instance_id: value
            .pointer("/info/id")
            .and_then(Value::as_str)
            .map(str::to_owned),
        exit_status: None,
        cost_usd: None,
        model_calls: None,
        tokens: None,
    })
}
