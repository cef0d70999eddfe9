//! mini-SWE-agent trajectories: `mini-swe-agent-1` (text actions) and `mini-swe-agent-1.1` (v2).
//!
//! Accepted shapes:
//! - `{"trajectory_format": "mini-swe-agent-1", "messages": [...], "info": {...}, "instance_id": ...}`
//!   or a bare JSON list of messages (the shape of mini-SWE-agent's own test fixtures).
//!   Each message is `{"role": "system"|"user"|"assistant", "content": str | [{"text": str}]}`.
//!   D9: an action is an assistant message with exactly one fenced block matching
//!   ```` ```bash\s*\n(.*?)\n``` ```` (the fence word is `mswea_bash_command` instead of
//!   `bash` when the system prompt uses that fence); zero or several blocks is a rejected
//!   response. The observation is the next user message when it starts with `<returncode>`
//!   or is the timeout notice (`The last command <command>... timed out ...`).
//! - `{"trajectory_format": "mini-swe-agent-1.1", ...}` (mini-SWE-agent v2): an assistant
//!   message's actions are `extra.actions` (`[{"command": str, "tool_call_id"?: str}]`), else
//!   its OpenAI-style `tool_calls` (`function.arguments` holding `{"command": ...}`), else its
//!   fenced block as above. Observations are `role: "tool"` messages (matched by
//!   `tool_call_id`, else in order) or `role: "user"` messages with `extra.raw_output` or a
//!   `<returncode>` text. A `user` message with `extra.interrupt_type: "FormatError"` is a
//!   rejected response; a `role: "exit"` message ends the trajectory.

use std::borrow::Cow;

use serde_json::Value;

use super::{RawAction, ShellAction, Trajectory, TrajectoryError, TrajectoryFormat};

const TIMEOUT_PREFIX: &str = "The last command <command>";

/// Whether a JSON value has the shape of a mini-SWE-agent trajectory.
pub(crate) fn looks_like(value: &Value) -> bool {
    messages_of(value).is_some_and(|m| m.iter().any(|m| m.get("role").is_some()))
}

fn messages_of(value: &Value) -> Option<&Vec<Value>> {
    match value {
        Value::Array(a) => Some(a),
        Value::Object(o) => o.get("messages").and_then(Value::as_array),
        _ => None,
    }
}

/// The text of a message's `content` (a string, or a list of `{"text": ...}` parts).
///
/// Borrowed when the content is one string: observations are long and read only.
pub(crate) fn content_text(msg: &Value) -> Cow<'_, str> {
    match msg.get("content") {
        Some(Value::String(s)) => Cow::Borrowed(s),
        Some(Value::Array(parts)) => {
            let mut out = String::new();
            for p in parts {
                let t = p
                    .get("text")
                    .and_then(Value::as_str)
                    .or_else(|| p.as_str())
                    .unwrap_or("");
                if !out.is_empty() && !t.is_empty() {
                    out.push('\n');
                }
                out.push_str(t);
            }
            Cow::Owned(out)
        }
        _ => Cow::Borrowed(""),
    }
}

/// Parses a mini-SWE-agent trajectory; `v11` selects the `mini-swe-agent-1.1` rules.
pub(crate) fn parse(value: &Value, v11: bool) -> Result<Trajectory, TrajectoryError> {
    let name = if v11 {
        "mini-swe-agent-1.1"
    } else {
        "mini-swe-agent-1"
    };
    let messages = messages_of(value).ok_or_else(|| TrajectoryError::Malformed {
        format: name.to_owned(),
        detail: "`messages` is missing or not a list".to_owned(),
    })?;
    let fence = fence_word(messages);
    let structured = v11
        || messages.iter().any(|m| {
            extra(m, "actions").is_some()
                || m.get("tool_calls").is_some_and(|t| !t.is_null())
                || matches!(role(m), "tool" | "exit")
        });
    let mut actions: Vec<RawAction> = Vec::new();
    let mut rejected = 0usize;
    // Actions of the latest assistant message still waiting for observations:
    // (index into `actions`, tool_call_id).
    let mut waiting: Vec<(usize, Option<String>)> = Vec::new();
    let mut last_was_rejected = false;
    for msg in messages {
        match role(msg) {
            "assistant" => {
                waiting.clear();
                let found = assistant_actions(msg, &fence, structured);
                match found {
                    Some(cmds) => {
                        last_was_rejected = false;
                        for (command, id) in cmds {
                            waiting.push((actions.len(), id));
                            actions.push(RawAction::Shell(ShellAction {
                                command,
                                ..ShellAction::default()
                            }));
                        }
                    }
                    None => {
                        rejected += 1;
                        last_was_rejected = true;
                    }
                }
            }
            "tool" => {
                let id = msg
                    .get("tool_call_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let pos = match &id {
                    Some(id) => waiting
                        .iter()
                        .position(|(_, w)| w.as_deref() == Some(id.as_str())),
                    None => None,
                }
                .or(if waiting.is_empty() { None } else { Some(0) });
                if let Some(p) = pos {
                    let (idx, _) = waiting.remove(p);
                    attach(&mut actions, idx, msg);
                }
            }
            "user" => {
                let interrupt = extra(msg, "interrupt_type").and_then(Value::as_str);
                if interrupt == Some("FormatError") {
                    if !last_was_rejected {
                        rejected += 1;
                    }
                    last_was_rejected = false;
                    waiting.clear();
                    continue;
                }
                last_was_rejected = false;
                let text = content_text(msg);
                let is_obs = text.starts_with("<returncode>")
                    || text.starts_with(TIMEOUT_PREFIX)
                    || (structured && extra(msg, "raw_output").is_some());
                if is_obs && !waiting.is_empty() {
                    let (idx, _) = waiting.remove(0);
                    attach(&mut actions, idx, msg);
                } else {
                    waiting.clear();
                }
            }
            "exit" => break,
            _ => {}
        }
    }
    // 1.1 when asked for, or when some message has the structured (v2) shape.
    let format = if structured {
        TrajectoryFormat::MiniSweAgent11
    } else {
        TrajectoryFormat::MiniSweAgent1
    };
    Ok(Trajectory {
        format,
        actions,
        rejected_responses: rejected,
        instance_id: value
            .get("instance_id")
            .and_then(Value::as_str)
            .map(str::to_owned),
        exit_status: value
            .pointer("/info/exit_status")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// `msg.extra.<key>`, as `msg.pointer("/extra/<key>")` finds it but without building and
/// unescaping a pointer for every message.
fn extra<'v>(msg: &'v Value, key: &str) -> Option<&'v Value> {
    msg.get("extra").and_then(|e| e.get(key))
}

fn role(msg: &Value) -> &str {
    msg.get("role").and_then(Value::as_str).unwrap_or("")
}

/// The fence word: `mswea_bash_command` when the system prompt shows that fence, else `bash`.
fn fence_word(messages: &[Value]) -> String {
    let uses_mswea = messages
        .iter()
        .filter(|m| role(m) == "system")
        .any(|m| content_text(m).contains("```mswea_bash_command"));
    if uses_mswea {
        "mswea_bash_command".to_owned()
    } else {
        "bash".to_owned()
    }
}

/// The commands of an assistant message, or `None` when the harness rejected it.
fn assistant_actions(
    msg: &Value,
    fence: &str,
    structured: bool,
) -> Option<Vec<(String, Option<String>)>> {
    if structured {
        if let Some(list) = extra(msg, "actions").and_then(Value::as_array) {
            let cmds: Vec<_> = list
                .iter()
                .filter_map(|a| {
                    let command = a
                        .get("command")
                        .and_then(Value::as_str)
                        .or_else(|| a.as_str())?;
                    let id = a
                        .get("tool_call_id")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    Some((command.to_owned(), id))
                })
                .collect();
            return if cmds.is_empty() { None } else { Some(cmds) };
        }
        if let Some(calls) = msg.get("tool_calls").and_then(Value::as_array) {
            let cmds: Vec<_> = calls
                .iter()
                .filter_map(|c| {
                    let args = c.pointer("/function/arguments")?;
                    let parsed: Value = match args {
                        Value::String(s) => serde_json::from_str(s).ok()?,
                        other => other.clone(),
                    };
                    let command = parsed.get("command")?.as_str()?.to_owned();
                    let id = c.get("id").and_then(Value::as_str).map(str::to_owned);
                    Some((command, id))
                })
                .collect();
            if !cmds.is_empty() {
                return Some(cmds);
            }
        }
    }
    let blocks = fenced_blocks(&content_text(msg), fence);
    if blocks.len() == 1 {
        blocks
            .into_iter()
            .next()
            .map(|b| vec![(b.trim().to_owned(), None)])
    } else {
        None
    }
}

/// All matches of the regex ```` ```FENCE\s*\n(.*?)\n``` ```` (DOTALL, non-overlapping), as
/// Python's `re.findall` returns them.
pub(crate) fn fenced_blocks(text: &str, fence: &str) -> Vec<String> {
    let open = format!("```{fence}");
    let mut out = Vec::new();
    let mut pos = 0usize;
    while let Some(rel) = text.get(pos..).and_then(|t| t.find(&open)) {
        let after = pos + rel + open.len();
        let rest = &text[after..];
        // The whitespace run after the fence word; `\s*\n` must end on one of its newlines.
        let ws_len: usize = rest
            .char_indices()
            .find(|(_, c)| !c.is_whitespace())
            .map_or(rest.len(), |(i, _)| i);
        let newlines: Vec<usize> = rest[..ws_len]
            .char_indices()
            .filter(|(_, c)| *c == '\n')
            .map(|(i, _)| after + i)
            .collect();
        let mut matched = None;
        // Greedy `\s*`: try the last newline first, then backtrack.
        for &nl in newlines.iter().rev() {
            let body_start = nl + 1;
            if let Some(end_rel) = text.get(body_start..).and_then(|t| t.find("\n```")) {
                matched = Some((body_start, body_start + end_rel));
                break;
            }
            // `.*?` can also be empty when the closing fence's newline is this newline's
            // successor; covered by the search above starting at body_start.
        }
        match matched {
            Some((s, e)) => {
                out.push(text[s..e].to_owned());
                pos = e + 4;
            }
            None => pos = after,
        }
    }
    out
}

/// Attaches an observation message to action `idx`.
fn attach(actions: &mut [RawAction], idx: usize, msg: &Value) {
    let text = content_text(msg);
    let Some(RawAction::Shell(a)) = actions.get_mut(idx) else {
        return;
    };
    let obs = parse_observation(&text);
    a.output = obs.output;
    a.returncode = obs.returncode;
    a.truncated = obs.truncated;
    a.timed_out = obs.timed_out;
    if a.output.is_none() {
        a.output = extra(msg, "raw_output")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| Some(text.into_owned()));
    }
    if a.returncode.is_none() {
        a.returncode = extra(msg, "returncode").and_then(Value::as_i64);
    }
}

/// An observation's parts.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Observation {
    pub(crate) output: Option<String>,
    pub(crate) returncode: Option<i64>,
    pub(crate) truncated: bool,
    pub(crate) timed_out: bool,
}

/// The tags of an observation, in the order of [`Tags`]'s positions.
const TAGS: [&str; 8] = [
    "<returncode>",
    "</returncode>",
    "<output_head>",
    "</output_head>",
    "<output_tail>",
    "</output_tail>",
    "<output>",
    "</output>",
];

/// The first and last position of each of [`TAGS`] in an observation.
///
/// Observations are long (whole file listings), so they are scanned once, from `<` to `<`,
/// instead of once per tag and direction; every tag starts with its only `<`, so
/// occurrences never overlap and the positions are those `find` and `rfind` give.
struct Tags<'a> {
    text: &'a str,
    first: [Option<usize>; 8],
    last: [Option<usize>; 8],
}

impl<'a> Tags<'a> {
    fn scan(text: &'a str) -> Self {
        let mut tags = Tags {
            text,
            first: [None; 8],
            last: [None; 8],
        };
        for (i, _) in text.match_indices('<') {
            let rest = &text[i..];
            if let Some(k) = TAGS.iter().position(|tag| rest.starts_with(tag)) {
                tags.first[k].get_or_insert(i);
                tags.last[k] = Some(i);
            }
        }
        tags
    }

    /// The text from the first `open` tag to the last `close` tag after it (`open` and
    /// `close` index [`TAGS`]), as `text[find(open)..][..rfind(close)]`.
    fn between(&self, open: usize, close: usize) -> Option<&'a str> {
        let s = self.first[open]? + TAGS[open].len();
        let e = self.last[close].filter(|&e| e >= s)?;
        self.text.get(s..e)
    }
}

fn trim_one_newline(s: &str) -> &str {
    let s = s.strip_prefix('\n').unwrap_or(s);
    s.strip_suffix('\n').unwrap_or(s)
}

/// Splits mini-SWE-agent's observation template: `<returncode>N</returncode>`, then
/// `<output>...</output>` or `<output_head>...</output_head><elided_chars>...<output_tail>...`.
pub(crate) fn parse_observation(text: &str) -> Observation {
    let mut obs = Observation {
        timed_out: text.starts_with(TIMEOUT_PREFIX),
        ..Observation::default()
    };
    let tags = Tags::scan(text);
    obs.returncode = tags
        .between(0, 1)
        .and_then(|r| r.trim().parse::<i64>().ok());
    if let (Some(head), Some(tail)) = (tags.between(2, 3), tags.between(4, 5)) {
        obs.truncated = true;
        let head = trim_one_newline(head);
        let tail = trim_one_newline(tail);
        obs.output = Some(format!("{head}\n{tail}"));
    } else if let Some(out) = tags.between(6, 7) {
        obs.output = Some(trim_one_newline(out).to_owned());
    }
    obs
}
