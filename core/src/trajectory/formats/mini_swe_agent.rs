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
use std::collections::{HashMap, VecDeque};

use super::json::{Borrowed, Json, messages_of};
use crate::trajectory::{
    RawAction, Rejected, ShellAction, Tokens, Trajectory, TrajectoryError, TrajectoryFormat,
};

const TIMEOUT_PREFIX: &str = "The last command <command>";

/// Whether a JSON value has the shape of a mini-SWE-agent trajectory.
pub(crate) fn looks_like<J: Json>(value: &J) -> bool {
    messages_of(value).is_some_and(|m| m.iter().any(|m| m.field("role").is_some()))
}

/// The text of a message's `content` (a string, or a list of `{"text": ...}` parts).
///
/// Borrowed when the content is one string: observations are long and read only.
pub(crate) fn content_text<J: Json>(msg: &J) -> Cow<'_, str> {
    let Some(content) = msg.field("content") else {
        return Cow::Borrowed("");
    };
    if let Some(s) = content.as_str() {
        return Cow::Borrowed(s);
    }
    match content.items() {
        Some(parts) => {
            let mut out = String::new();
            for p in parts {
                let t = p
                    .field("text")
                    .and_then(J::as_str)
                    .or_else(|| p.as_str())
                    .unwrap_or("");
                if !out.is_empty() && !t.is_empty() {
                    out.push('\n');
                }
                out.push_str(t);
            }
            Cow::Owned(out)
        }
        None => Cow::Borrowed(""),
    }
}

/// Parses a mini-SWE-agent trajectory; `v11` selects the `mini-swe-agent-1.1` rules.
pub(crate) fn parse<J: Json>(value: &J, v11: bool) -> Result<Trajectory, TrajectoryError> {
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
                || m.field("tool_calls").is_some_and(|t| !t.is_null())
                || matches!(role(m), "tool" | "exit")
        });
    let mut actions: Vec<RawAction> = Vec::new();
    let mut rejected: Vec<Rejected> = Vec::new();
    // Actions of the latest assistant message still waiting for observations.
    let mut waiting = Waiting::default();
    let mut last_was_rejected = false;
    for (message, msg) in messages.iter().enumerate() {
        let reject = |rejected: &mut Vec<Rejected>, actions: &[RawAction]| {
            rejected.push(Rejected {
                message,
                after_action: actions.len(),
            });
        };
        match role(msg) {
            "assistant" => {
                waiting.clear();
                let found = assistant_actions(msg, &fence, structured);
                match found {
                    Some(cmds) => {
                        last_was_rejected = false;
                        for (command, id) in cmds {
                            waiting.push(actions.len(), id);
                            actions.push(RawAction::Shell(ShellAction {
                                command,
                                ..ShellAction::default()
                            }));
                        }
                    }
                    None => {
                        reject(&mut rejected, &actions);
                        last_was_rejected = true;
                    }
                }
            }
            "tool" => {
                let id = msg.field("tool_call_id").and_then(J::as_str);
                if let Some(idx) = waiting.take(id) {
                    attach(&mut actions, idx, msg);
                }
            }
            "user" => {
                let interrupt = extra(msg, "interrupt_type").and_then(J::as_str);
                if interrupt == Some("FormatError") {
                    if !last_was_rejected {
                        reject(&mut rejected, &actions);
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
                if is_obs && let Some(idx) = waiting.take(None) {
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
        rejected_responses: rejected.len(),
        rejected,
        instance_id: value
            .field("instance_id")
            .and_then(J::as_str)
            .map(str::to_owned),
        exit_status: value
            .field("info")
            .and_then(|info| info.field("exit_status"))
            .and_then(J::as_str)
            .map(str::to_owned),
        cost_usd: model_stat(value, "instance_cost")
            .and_then(J::as_f64)
            .filter(|cost| cost.is_finite() && *cost >= 0.0),
        model_calls: model_stat(value, "api_calls")
            .and_then(J::as_i64)
            .and_then(|n| u64::try_from(n).ok()),
        tokens: tokens(messages),
    })
}

/// The tokens of every assistant message's `extra.response.usage` (OpenAI's
/// `prompt_tokens`/`completion_tokens` or Anthropic's `input_tokens`/`output_tokens`),
/// summed; `None` when no message has a usage.
fn tokens<J: Json>(messages: &[J]) -> Option<Tokens> {
    let count = |usage: &J, keys: [&str; 2]| {
        keys.iter()
            .find_map(|k| usage.field(k).and_then(J::as_i64))
            .and_then(|n| u64::try_from(n).ok())
    };
    let mut total: Option<Tokens> = None;
    for usage in messages
        .iter()
        .filter(|m| role(*m) == "assistant")
        .filter_map(|m| extra(m, "response")?.field("usage"))
    {
        let input = count(usage, ["prompt_tokens", "input_tokens"]);
        let output = count(usage, ["completion_tokens", "output_tokens"]);
        if input.is_none() && output.is_none() {
            continue;
        }
        let sum = total.get_or_insert_with(Tokens::default);
        sum.input = sum.input.saturating_add(input.unwrap_or(0));
        sum.output = sum.output.saturating_add(output.unwrap_or(0));
    }
    total
}

/// The actions of the latest assistant message still waiting for their observations, in
/// order. An observation takes the first one with its `tool_call_id`, else the first one;
/// both in O(1) amortised, so a message with thousands of calls answered in any order
/// costs what it holds (a list scanned and shifted per observation was quadratic).
#[derive(Default)]
struct Waiting {
    /// Index into the actions of each waiting slot, in order; `None` once taken.
    slots: Vec<Option<usize>>,
    /// The first slot not taken.
    head: usize,
    /// The slots of each call id, in order (taken ones are skipped when met).
    by_id: HashMap<String, VecDeque<usize>>,
}

impl Waiting {
    fn clear(&mut self) {
        self.slots.clear();
        self.head = 0;
        self.by_id.clear();
    }

    fn push(&mut self, action: usize, id: Option<String>) {
        if let Some(id) = id {
            self.by_id
                .entry(id)
                .or_default()
                .push_back(self.slots.len());
        }
        self.slots.push(Some(action));
    }

    /// Takes the first waiting action with call id `id`, else the first waiting one.
    fn take(&mut self, id: Option<&str>) -> Option<usize> {
        if let Some(slots) = id.and_then(|id| self.by_id.get_mut(id)) {
            while let Some(slot) = slots.pop_front() {
                if let Some(action) = self.slots[slot].take() {
                    return Some(action);
                }
            }
        }
        while self.head < self.slots.len() {
            let slot = self.head;
            self.head += 1;
            if let Some(action) = self.slots[slot].take() {
                return Some(action);
            }
        }
        None
    }
}

/// `msg.extra.<key>`, as `msg.pointer("/extra/<key>")` finds it but without building and
/// unescaping a pointer for every message.
fn extra<'v, J: Json>(msg: &'v J, key: &str) -> Option<&'v J> {
    msg.field("extra").and_then(|e| e.field(key))
}

fn role<J: Json>(msg: &J) -> &str {
    msg.field("role").and_then(J::as_str).unwrap_or("")
}

/// The fence word: `mswea_bash_command` when the system prompt shows that fence, else `bash`.
fn fence_word<J: Json>(messages: &[J]) -> String {
    let uses_mswea = messages
        .iter()
        .filter(|&m| role(m) == "system")
        .any(|m| content_text(m).contains("```mswea_bash_command"));
    if uses_mswea {
        "mswea_bash_command".to_owned()
    } else {
        "bash".to_owned()
    }
}

/// The commands of an assistant message, or `None` when the harness rejected it.
fn assistant_actions<J: Json>(
    msg: &J,
    fence: &str,
    structured: bool,
) -> Option<Vec<(String, Option<String>)>> {
    if structured {
        if let Some(list) = extra(msg, "actions").and_then(J::items) {
            let cmds: Vec<_> = list
                .iter()
                .filter_map(|a| {
                    let command = a
                        .field("command")
                        .and_then(J::as_str)
                        .or_else(|| a.as_str())?;
                    let id = a
                        .field("tool_call_id")
                        .and_then(J::as_str)
                        .map(str::to_owned);
                    Some((command.to_owned(), id))
                })
                .collect();
            return if cmds.is_empty() { None } else { Some(cmds) };
        }
        if let Some(calls) = msg.field("tool_calls").and_then(J::items) {
            let cmds: Vec<_> = calls
                .iter()
                .filter_map(|c| {
                    let args = c.field("function")?.field("arguments")?;
                    // The arguments are an object, or the JSON text of one.
                    let command = match args.as_str() {
                        Some(text) => {
                            let parsed: Borrowed<'_> = serde_json::from_str(text).ok()?;
                            parsed.field("command")?.as_str()?.to_owned()
                        }
                        None => args.field("command")?.as_str()?.to_owned(),
                    };
                    let id = c.field("id").and_then(J::as_str).map(str::to_owned);
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
///
/// Linear in the text: the closing fence is searched for once per opening fence at most
/// (see below), and a search that found nothing is never repeated from further on.
pub(crate) fn fenced_blocks(text: &str, fence: &str) -> Vec<String> {
    let open = format!("```{fence}");
    let mut out = Vec::new();
    let mut pos = 0usize;
    let mut closes = Closes::new(text);
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
        // Greedy `\s*`: the last newline first. If no closing fence follows it, an earlier
        // newline can only find one that starts on the last newline itself (everything
        // between is whitespace), which the next-to-last newline, tried next, then takes.
        let matched = newlines.last().and_then(|&last| {
            if let Some(end) = closes.next_from(last + 1) {
                return Some((last + 1, end));
            }
            let closes_on_last = last + 1 == after + ws_len && text[last + 1..].starts_with("```");
            match newlines.len().checked_sub(2) {
                Some(i) if closes_on_last => Some((newlines[i] + 1, last)),
                _ => None,
            }
        });
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

/// Where the next closing fence (`\n```) is, from any position: the last answer is reused
/// for a position it still answers, and a position with none after it rules out every
/// later one, so searches of one text cost about its length together.
struct Closes<'t> {
    text: &'t str,
    /// The last search: from where, and the fence it found (`None`: none after `from`).
    last: Option<(usize, Option<usize>)>,
}

impl<'t> Closes<'t> {
    fn new(text: &'t str) -> Self {
        Closes { text, last: None }
    }

    fn next_from(&mut self, from: usize) -> Option<usize> {
        match self.last {
            Some((start, None)) if from >= start => return None,
            Some((start, Some(at))) if start <= from && from <= at => return Some(at),
            _ => {}
        }
        let found = self
            .text
            .get(from..)
            .and_then(|t| t.find("\n```"))
            .map(|rel| from + rel);
        self.last = Some((from, found));
        found
    }
}

/// Attaches an observation message to action `idx`.
fn attach<J: Json>(actions: &mut [RawAction], idx: usize, msg: &J) {
    let text = content_text(msg);
    let Some(RawAction::Shell(a)) = actions.get_mut(idx) else {
        return;
    };
    let obs = parse_observation(&text);
    a.output = obs.output;
    a.returncode = obs.returncode;
    a.truncated = obs.truncated;
    a.head_lines = obs.head_lines;
    a.timed_out = obs.timed_out;
    if a.output.is_none() {
        a.output = extra(msg, "raw_output")
            .and_then(J::as_str)
            .map(str::to_owned)
            .or_else(|| Some(text.into_owned()));
    }
    if a.returncode.is_none() {
        a.returncode = extra(msg, "returncode").and_then(J::as_i64);
    }
}

/// An observation's parts.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Observation {
    pub(crate) output: Option<String>,
    pub(crate) returncode: Option<i64>,
    pub(crate) truncated: bool,
    pub(crate) head_lines: Option<u32>,
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

/// A head or tail without the newlines the template puts around it
/// (`<output_head>\n{{ output[:5000] }}\n</output_head>`).
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
        obs.head_lines = Some(u32::try_from(head.lines().count()).unwrap_or(u32::MAX));
        obs.output = Some(format!("{head}\n{tail}"));
    } else if let Some(out) = tags.between(6, 7) {
        // The template is `<output>\n{{ output -}}</output>`: the newline after the tag is
        // the template's, every one before `</output>` is the command's (a last blank line
        // of a file is one of them).
        obs.output = Some(out.strip_prefix('\n').unwrap_or(out).to_owned());
    }
    obs
}

/// `info.model_stats.<key>`, where mini-SWE-agent records what the run cost.
fn model_stat<'v, J: Json>(value: &'v J, key: &str) -> Option<&'v J> {
    value.field("info")?.field("model_stats")?.field(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fenced_blocks` before its searches were shared, kept as the model it must agree with.
    fn model_fenced_blocks(text: &str, fence: &str) -> Vec<String> {
        let open = format!("```{fence}");
        let mut out = Vec::new();
        let mut pos = 0usize;
        while let Some(rel) = text.get(pos..).and_then(|t| t.find(&open)) {
            let after = pos + rel + open.len();
            let rest = &text[after..];
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
            for &nl in newlines.iter().rev() {
                let body_start = nl + 1;
                if let Some(end_rel) = text.get(body_start..).and_then(|t| t.find("\n```")) {
                    matched = Some((body_start, body_start + end_rel));
                    break;
                }
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

    #[test]
    fn fenced_blocks_match_the_model() {
        let texts = [
            "```bash\nls\n```",
            "```bash\n\n```",
            "```bash\n```",
            "```bash \n \n```\n",
            "```bash\n\n\n```x",
            "```bash\n  \n```bash\nls\n```",
            "a ```bash\ncat a\n``` b ```bash\ncat b\n```",
            "```bash x```bash\n\n",
            "```bash\n\n\n",
            "```bash\nunclosed",
            "```bash\n```bash\n```bash\n```",
            "```bash\t\n\t```\n```",
            "no fence",
            "```bashful\nx\n```",
            "```bash\r\nls\r\n```",
        ];
        for text in texts {
            assert_eq!(
                fenced_blocks(text, "bash"),
                model_fenced_blocks(text, "bash"),
                "{text:?}"
            );
        }
        // Many unclosed fences: each search from further on is answered at once.
        let many = "```bash x".repeat(10_000);
        assert!(fenced_blocks(&many, "bash").is_empty());
        let newlines = format!("```bash{}", "\n".repeat(10_000));
        assert_eq!(
            fenced_blocks(&newlines, "bash"),
            model_fenced_blocks(&newlines, "bash")
        );
    }

    #[test]
    fn observations_take_their_call_or_the_first_waiting_action() {
        let mut waiting = Waiting::default();
        for (action, id) in [(0, Some("a")), (1, None), (2, Some("b")), (3, Some("a"))] {
            waiting.push(action, id.map(str::to_owned));
        }
        assert_eq!(waiting.take(Some("b")), Some(2));
        assert_eq!(waiting.take(Some("a")), Some(0));
        assert_eq!(
            waiting.take(Some("zzz")),
            Some(1),
            "unknown id: the first waiting"
        );
        assert_eq!(
            waiting.take(Some("b")),
            Some(3),
            "b is done: the first waiting"
        );
        assert_eq!(waiting.take(None), None);
        waiting.clear();
        waiting.push(7, Some("a".to_owned()));
        assert_eq!(waiting.take(None), Some(7));
        assert_eq!(waiting.take(Some("a")), None);
    }
}
