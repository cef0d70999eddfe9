//! What each action of a trajectory printed, cut to what a step list shows.

use serde::{Deserialize, Serialize};

use super::{RawAction, Trajectory, unparsed};

/// Most bytes of one action's output a step shows (the whole trajectory is a download).
pub const MAX_SHOWN_OUTPUT: usize = 4 * 1024;

/// What one action printed, as a step list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// 1-based position among the trajectory's actions, as in [`super::ActionRecord`].
    pub index: usize,
    /// The output, cut at [`MAX_SHOWN_OUTPUT`] bytes (`…` marks the cut); `None` when the
    /// harness recorded none.
    pub output: Option<String>,
    /// The whole output's size in bytes.
    pub bytes: u64,
    /// The shell's exit code, when the harness recorded one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returncode: Option<i64>,
    /// The harness itself elided part of the output (before any cut here).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub elided: bool,
    /// The harness killed the command after its time limit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
}

/// Each action's output, in order, cut at `max_bytes`. Example: a trajectory whose first
/// action ran `cat a.py` and printed `x = 1` gives `[Observation { index: 1, output:
/// Some("x = 1"), bytes: 5, .. }]`.
pub fn observations(trajectory: &Trajectory, max_bytes: usize) -> Vec<Observation> {
    trajectory
        .actions
        .iter()
        .enumerate()
        .map(|(i, action)| {
            let (output, returncode, elided, timed_out) = match action {
                RawAction::Shell(shell) => (
                    shell.output.as_deref(),
                    shell.returncode,
                    shell.truncated,
                    shell.timed_out,
                ),
                RawAction::Tool(tool) => (tool.output.as_deref(), None, false, false),
            };
            Observation {
                index: i + 1,
                output: output.map(|o| unparsed::cut(o, max_bytes)),
                bytes: output.map_or(0, |o| u64::try_from(o.len()).unwrap_or(u64::MAX)),
                returncode,
                elided,
                timed_out,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trajectory::parse_trajectory;

    #[test]
    fn each_action_keeps_its_output_cut_at_the_limit() {
        let text = serde_json::json!({
            "format": "generic-1",
            "actions": [
                {"kind": "bash", "command": "cat a.py", "output": "x = 1\ny = 2\n", "returncode": 0},
                {"kind": "bash", "command": "ls", "output": "é".repeat(10), "returncode": 2},
                {"kind": "read", "path": "a.py"},
            ]
        })
        .to_string();
        let trajectory = parse_trajectory(&text).expect("a generic-1 trajectory");
        let got = observations(&trajectory, 5);
        let outputs: Vec<Option<&str>> = got.iter().map(|o| o.output.as_deref()).collect();
        // A cut never splits a character: "é" is two bytes, so five bytes keep two of them.
        assert_eq!(outputs, [Some("x = 1…"), Some("éé…"), None]);
        let sizes: Vec<(usize, u64, Option<i64>)> = got
            .iter()
            .map(|o| (o.index, o.bytes, o.returncode))
            .collect();
        assert_eq!(sizes, [(1, 12, Some(0)), (2, 20, Some(2)), (3, 0, None)]);
    }
}
