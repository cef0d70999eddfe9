//! Interpreting actions: kind, category, files and shown lines (spec section 1, D10–D14).
//!
//! Every action is hostile input: its command, its observation and the workspace files it
//! names. The work on one action is bounded by its own size ([`ACTION_STEPS_PER_BYTE`] per
//! byte of command and observation, plus [`ACTION_STEPS_BASE`]): an action that needs more
//! (a glob over every file written ten thousand times, a grep line of a million dashes) is
//! interpreted as far as its steps go and marked not understood. The workspace files an
//! interpretation reads (line counts, lines, where a printed line sits) are read once per
//! trajectory, not once per action or per printed line.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use serde_json::Value;

use super::shell::{self, Pipeline, RedirectOp, Word};
use super::{
    ActionKind, Category, InterpretedAction, NotUnderstood, RawAction, ShellAction, ToolCall,
    Trajectory,
};
use crate::budget::{Cancel, Cancelled};
use crate::workspace::{LineSet, ShownLines, Workspace, normalise_path};

mod commands;
mod observe;
mod pipeline;
mod reads;
mod search;
mod select;
mod shell_action;
mod tools;

use commands::*;
use observe::*;
use pipeline::*;
use reads::*;
use search::*;
pub use select::MAX_UNSEEN_RANGE;
use select::*;
use shell_action::*;
use tools::*;

/// What an interpretation needs besides the action.
#[derive(Clone, Debug)]
pub struct InterpretOptions<'a> {
    /// W: the files the agent saw (D13 line counts, grep hit location). Optional.
    pub workspace: Option<&'a Workspace>,
    /// The directory every action starts in (`/testbed` for SWE-bench). Paths are reported
    /// relative to it (`.` for itself); paths outside it stay absolute.
    pub workdir: String,
}

impl Default for InterpretOptions<'_> {
    fn default() -> Self {
        Self {
            workspace: None,
            workdir: "/testbed".to_owned(),
        }
    }
}

impl<'a> InterpretOptions<'a> {
    /// Options with a workspace and the SWE-bench working directory `/testbed`.
    pub fn new(workspace: Option<&'a Workspace>) -> Self {
        Self {
            workspace,
            ..Self::default()
        }
    }

    /// Sets the working directory.
    pub fn with_workdir(mut self, workdir: &str) -> Self {
        self.workdir = workdir.to_owned();
        self
    }
}

/// Steps every action may take, whatever its size (a step is one line, one path or one
/// file looked at, or one byte kept): enough for a glob over a repository of tens of
/// thousands of files.
pub const ACTION_STEPS_BASE: u64 = 1 << 16;

/// Steps an action may take per byte of its command and observation. Interpreting a real
/// action takes about one step per line printed.
pub const ACTION_STEPS_PER_BYTE: u64 = 4;

/// Interprets every action of a trajectory, in order.
pub fn interpret_trajectory(
    trajectory: &Trajectory,
    options: &InterpretOptions<'_>,
) -> Vec<InterpretedAction> {
    match interpret_trajectory_with(trajectory, options, &Cancel::never()) {
        Ok(actions) => actions,
        Err(Cancelled) => unreachable!("a Cancel::never() is never raised"),
    }
}

/// [`interpret_trajectory`] that stops with [`Cancelled`] soon after `cancel` is raised
/// (within an action too). The workspace files the actions read are read once for all.
pub fn interpret_trajectory_with(
    trajectory: &Trajectory,
    options: &InterpretOptions<'_>,
    cancel: &Cancel,
) -> Result<Vec<InterpretedAction>, Cancelled> {
    let ctx = Ctx::new(options, cancel);
    let mut out = Vec::with_capacity(trajectory.actions.len());
    for action in &trajectory.actions {
        cancel.check()?;
        out.push(ctx.interpret(action));
        if ctx.cancelled.get() {
            return Err(Cancelled);
        }
    }
    Ok(out)
}

/// Interprets one action (D10–D14).
pub fn interpret_action(action: &RawAction, options: &InterpretOptions<'_>) -> InterpretedAction {
    Ctx::new(options, &Cancel::never()).interpret(action)
}

struct Ctx<'a> {
    ws: Option<&'a Workspace>,
    /// Absolute, normalised (`/testbed`, or `/` for the filesystem root).
    root: String,
    /// Workspace files already read by this trajectory's actions, by path.
    files: RefCell<HashMap<String, Rc<FileLines<'a>>>>,
    /// Steps the current action has left (see [`ACTION_STEPS_BASE`]).
    steps: Cell<u64>,
    /// The current action ran out of steps: what is left of it is not interpreted.
    exhausted: Cell<bool>,
    cancel: &'a Cancel,
    cancelled: Cell<bool>,
}

/// A workspace file's lines, and (built when first needed) where each distinct line is.
struct FileLines<'a> {
    lines: Vec<&'a str>,
    positions: RefCell<Option<HashMap<&'a str, Vec<u32>>>>,
}

impl<'a> Ctx<'a> {
    fn new(options: &InterpretOptions<'a>, cancel: &'a Cancel) -> Self {
        Ctx {
            ws: options.workspace,
            root: format!("/{}", normalise_path(&options.workdir)),
            files: RefCell::new(HashMap::new()),
            steps: Cell::new(0),
            exhausted: Cell::new(false),
            cancel,
            cancelled: Cell::new(false),
        }
    }

    /// Interprets one action within its own step budget.
    fn interpret(&self, action: &RawAction) -> InterpretedAction {
        let bytes = match action {
            RawAction::Shell(s) => s.command.len() + s.output.as_ref().map_or(0, String::len),
            RawAction::Tool(t) => {
                t.name.len() + t.output.as_ref().map_or(0, String::len) + json_size(&t.args)
            }
        };
        let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
        self.steps
            .set(ACTION_STEPS_BASE.saturating_add(bytes.saturating_mul(ACTION_STEPS_PER_BYTE)));
        self.exhausted.set(false);
        let mut result = match action {
            RawAction::Shell(s) => interpret_shell(s, self),
            RawAction::Tool(t) => interpret_tool(t, self),
        };
        if self.exhausted.get() {
            result.mark_not_understood(NotUnderstood::OverBudget);
        }
        result
    }

    /// Takes `n` steps of the current action; `false` once they are spent (or the host
    /// cancelled), and from then on for the rest of the action.
    fn spend(&self, n: u64) -> bool {
        if self.exhausted.get() {
            return false;
        }
        if self.cancel.is_cancelled() {
            self.cancelled.set(true);
            self.exhausted.set(true);
            return false;
        }
        match self.steps.get().checked_sub(n) {
            Some(left) => {
                self.steps.set(left);
                true
            }
            None => {
                self.exhausted.set(true);
                false
            }
        }
    }

    /// Resolves `path` against the absolute directory `cwd` and reports it relative to root.
    fn resolve(&self, cwd: &str, path: &str) -> String {
        let abs = if path.starts_with('/') {
            path.to_owned()
        } else {
            format!("{cwd}/{path}")
        };
        let norm = normalise_path(&abs);
        let root = normalise_path(&self.root);
        if norm == root {
            ".".to_owned()
        } else if root.is_empty() {
            norm
        } else if let Some(rest) = norm.strip_prefix(&format!("{root}/")) {
            rest.to_owned()
        } else {
            format!("/{norm}")
        }
    }

    fn text(&self, file: &str) -> Option<&'a str> {
        self.ws.and_then(|w| w.text(file))
    }

    /// The lines of a workspace file, read once per trajectory.
    fn lines(&self, file: &str) -> Option<Rc<FileLines<'a>>> {
        if let Some(lines) = self.files.borrow().get(file) {
            return Some(Rc::clone(lines));
        }
        let text = self.text(file)?;
        let lines = Rc::new(FileLines {
            lines: text.lines().collect(),
            positions: RefCell::new(None),
        });
        self.files
            .borrow_mut()
            .insert(file.to_owned(), Rc::clone(&lines));
        Some(lines)
    }

    /// Number of lines of a workspace file, counted as editors do.
    fn line_count(&self, file: &str) -> Option<u32> {
        self.lines(file)
            .map(|f| u32::try_from(f.lines.len()).unwrap_or(u32::MAX))
    }

    fn is_dir(&self, file: &str) -> bool {
        self.ws
            .is_some_and(|w| file != "." && w.is_dir(file) && !w.contains(file))
    }
}

/// Roughly the bytes of a JSON value (its strings and keys), without writing it out.
fn json_size(value: &Value) -> usize {
    let mut size = 0usize;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        size = size.saturating_add(match v {
            Value::String(s) => s.len() + 2,
            Value::Array(items) => {
                stack.extend(items);
                2
            }
            Value::Object(map) => {
                for (k, item) in map {
                    size = size.saturating_add(k.len() + 3);
                    stack.push(item);
                }
                2
            }
            _ => 8,
        });
    }
    size
}

fn blank(command: String) -> InterpretedAction {
    InterpretedAction {
        kind: ActionKind::Other,
        category: Category::Other,
        files: BTreeSet::new(),
        shown: ShownLines::new(),
        interpreted: true,
        not_understood: None,
        ambiguous: false,
        command,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The glob matcher before patterns were compiled, kept as the model [`Glob`] must
    /// agree with: `*` and `?` never cross `/`; `[...]` matches any listed character.
    fn model_glob_match(pattern: &str, text: &str) -> bool {
        let p: Vec<char> = pattern.chars().collect();
        let t: Vec<char> = text.chars().collect();
        let (mut pi, mut ti) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        while ti < t.len() {
            let step = match p.get(pi) {
                Some('*') => {
                    star = Some((pi, ti));
                    pi += 1;
                    continue;
                }
                Some('?') if t[ti] != '/' => Some(1),
                Some('[') => {
                    let close = p[pi..].iter().position(|&c| c == ']').map(|c| c + pi);
                    match close {
                        Some(end) if end > pi + 1 => {
                            let set = &p[pi + 1..end];
                            let (neg, set) = match set.first() {
                                Some('!' | '^') => (true, &set[1..]),
                                _ => (false, set),
                            };
                            if set.contains(&t[ti]) != neg && t[ti] != '/' {
                                pi = end + 1;
                                ti += 1;
                                continue;
                            }
                            None
                        }
                        _ => (t[ti] == '[').then_some(1),
                    }
                }
                Some(&c) if c == t[ti] => Some(1),
                _ => None,
            };
            match step {
                Some(s) => {
                    pi += s;
                    ti += 1;
                }
                None => match star {
                    Some((sp, st)) if t[st] != '/' => {
                        pi = sp + 1;
                        ti = st + 1;
                        star = Some((sp, st + 1));
                    }
                    _ => return false,
                },
            }
        }
        p[pi..].iter().all(|&c| c == '*')
    }

    #[test]
    fn compiled_globs_match_as_the_model_does() {
        let patterns = [
            "*",
            "**",
            "*.py",
            "pkg/*.py",
            "pkg/**/*.py",
            "*/*",
            "?",
            "??.py",
            "a?c",
            "[ab].py",
            "[!ab].py",
            "[^a]*",
            "[]a].py",
            "[",
            "a[",
            "[a",
            "a[]b",
            "[]",
            "*[",
            "*]*",
            "a*b*c",
            "*a*a*a*b",
            "pkg/*",
            "pkg*",
            "p*/a.py",
            "*/",
            "a**b",
            "[a-c].py",
            "x[!/]y",
            "",
        ];
        let paths = [
            "a.py",
            "b.py",
            "c.py",
            "ab.py",
            "pkg/a.py",
            "pkg/sub/a.py",
            "pkg",
            "]a.py",
            "[",
            "a[",
            "a[]b",
            "abc",
            "aXbYc",
            "aaab",
            "aab",
            "x/y",
            "xzy",
            "a",
            "",
            "[.py",
            "p/a.py",
            "pq/a.py",
            "ab",
            "a/b",
            "é.py",
            "-.py",
        ];
        for pattern in patterns {
            let glob = Glob::new(pattern);
            for path in paths {
                assert_eq!(
                    glob.matches(path),
                    model_glob_match(pattern, path),
                    "{pattern:?} on {path:?}"
                );
            }
        }
    }

    #[test]
    fn a_glob_of_many_stars_matches_in_time_linear_in_the_path() {
        // Runs of `*` are one: this pattern compiles to three tokens.
        let pattern = format!("{}a{}", "*".repeat(100_000), "*".repeat(100_000));
        let glob = Glob::new(&pattern);
        assert_eq!(glob.tokens.len(), 3);
        assert!(glob.matches("xxaxx") && !glob.matches("xx/ax"));
        // A pattern needing more characters than a path has is rejected before matching.
        assert!(!Glob::new(&"?".repeat(100_000)).matches("a.py"));
    }

    #[test]
    fn printed_lines_are_located_as_a_scan_would() {
        // The index answers exactly as a scan from the cursor, then from the top, would.
        let text = "a\nb\na\n\n\nc\na\nb\n";
        let lines: Vec<&str> = text.lines().collect();
        let printed = ["a", "a", "b", "", "", "", "a", "b", "c", "z", "a", "a", "a"];
        let mut located = Locator::new(Rc::new(FileLines {
            lines: lines.clone(),
            positions: RefCell::new(None),
        }));
        let mut cursor = 0usize;
        for line in printed {
            let expected = if line.trim().is_empty() {
                lines.get(cursor).filter(|l| l.trim().is_empty()).map(|_| {
                    cursor += 1;
                    cursor
                })
            } else {
                lines[cursor.min(lines.len())..]
                    .iter()
                    .position(|l| *l == line)
                    .map(|p| p + cursor)
                    .or_else(|| lines.iter().position(|l| *l == line))
                    .map(|hit| {
                        cursor = hit + 1;
                        hit + 1
                    })
            };
            let expected = expected.map(|n| u32::try_from(n).unwrap());
            assert_eq!(located.find(line), expected, "{line:?}");
        }
    }
}
