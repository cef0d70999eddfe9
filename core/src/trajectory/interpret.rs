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
    ActionKind, Category, InterpretedAction, RawAction, ShellAction, ToolCall, Trajectory,
};
use crate::budget::{Cancel, Cancelled};
use crate::workspace::{LineSet, ShownLines, Workspace, normalise_path};

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
            result.interpreted = false;
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
        ambiguous: false,
        command,
    }
}

// ---------------------------------------------------------------------------------------
// Line selections

/// A range requested of a file the workspace does not have (so nothing clips it, D13)
/// counts at most this many lines past its first: `sed -n '1,4294967295p' new.py` or a
/// read with `limit: 4294967295` would otherwise make one action count four billion lines.
/// No real file comes near it; files the workspace has are clipped to their line count.
pub const MAX_UNSEEN_RANGE: u32 = 100_000;

/// The last line counted of a requested range `start..=end` of a file not in the workspace.
fn unseen_end(start: u32, end: u32) -> u32 {
    end.min(start.saturating_add(MAX_UNSEEN_RANGE))
}

/// Which lines of a file a stream carries, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Sel {
    /// Ranges of lines (`None` end: to the end of the file).
    Ranges(Vec<(u32, Option<u32>)>),
    /// The last N lines.
    Tail(u32),
    /// Not known statically: find the printed lines in the file's text.
    Locate,
    /// Nothing is shown (e.g. piped into `wc`).
    Nothing,
}

impl Sel {
    /// What working on this selection costs, in steps: one per range.
    fn weight(&self) -> u64 {
        match self {
            Sel::Ranges(r) => 1 + u64::try_from(r.len()).unwrap_or(u64::MAX),
            _ => 1,
        }
    }

    fn whole() -> Self {
        Sel::Ranges(vec![(1, None)])
    }

    fn is_whole(&self) -> bool {
        matches!(self, Sel::Ranges(r) if r.as_slice() == [(1, None)])
    }

    /// Keeps positions `a..=b` (1-based) of this stream.
    fn slice(&self, a: u32, b: Option<u32>) -> Sel {
        match self {
            Sel::Ranges(ranges) => {
                let mut out = Vec::new();
                let mut pos: u64 = 1; // position of the first line of the current range
                let a64 = u64::from(a.max(1));
                let b64 = b.map(u64::from);
                for &(s, e) in ranges {
                    let len = e.map(|e| u64::from(e.saturating_sub(s)) + 1);
                    let first = pos;
                    let last = len.map(|l| first + l - 1);
                    let lo = a64.max(first);
                    let hi = match (b64, last) {
                        (Some(b), Some(l)) => Some(b.min(l)),
                        (Some(b), None) => Some(b),
                        (None, l) => l,
                    };
                    if hi.is_none_or(|h| lo <= h) {
                        let to_line =
                            |p: u64| u32::try_from(u64::from(s) + p - first).unwrap_or(u32::MAX);
                        out.push((to_line(lo), hi.map(to_line)));
                    }
                    match len {
                        Some(l) => pos += l,
                        None => break,
                    }
                }
                if out.is_empty() {
                    Sel::Nothing
                } else {
                    Sel::Ranges(out)
                }
            }
            Sel::Nothing => Sel::Nothing,
            _ => Sel::Locate,
        }
    }

    fn tail(&self, n: u32) -> Sel {
        match self {
            s if s.is_whole() => Sel::Tail(n),
            Sel::Ranges(r) if r.len() == 1 => match r[0] {
                (s, Some(e)) => Sel::Ranges(vec![(s.max(e.saturating_sub(n) + 1), Some(e))]),
                _ => Sel::Locate,
            },
            Sel::Nothing => Sel::Nothing,
            _ => Sel::Locate,
        }
    }

    /// Lines with a known line count.
    fn lines(&self, count: u32) -> Vec<(u32, u32)> {
        match self {
            Sel::Ranges(r) => r
                .iter()
                .filter_map(|&(s, e)| {
                    let e = e.unwrap_or(count).min(count);
                    (s.max(1) <= e).then_some((s.max(1), e))
                })
                .collect(),
            Sel::Tail(n) => {
                if count == 0 || *n == 0 {
                    Vec::new()
                } else {
                    vec![(count.saturating_sub(*n) + 1, count)]
                }
            }
            _ => Vec::new(),
        }
    }

    /// The first `k` positions, when the start is known.
    fn first_k(&self, k: u32) -> Vec<(u32, u32)> {
        if k == 0 {
            return Vec::new();
        }
        match self.slice(1, Some(k)) {
            Sel::Ranges(r) => r
                .into_iter()
                .filter_map(|(s, e)| e.map(|e| (s, e)))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The requested lines when every range is bounded.
    fn requested(&self) -> Vec<(u32, u32)> {
        match self {
            Sel::Ranges(r) if r.iter().all(|(_, e)| e.is_some()) => {
                r.iter().filter_map(|&(s, e)| e.map(|e| (s, e))).collect()
            }
            _ => Vec::new(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Commands

#[derive(Clone, Debug)]
struct Operand {
    raw: String,
    path: String,
}

#[derive(Clone, Debug, Default)]
struct GrepSpec {
    numbers: bool,
    multi: bool,
    list_files: bool,
    silent: bool,
    targets: Vec<Operand>,
}

#[derive(Clone, Debug)]
enum Cmd {
    Cd(Option<String>),
    /// A file reader: cat, nl, less, more, head, tail, sed -n, awk with file operands.
    Read {
        files: Vec<Operand>,
        sel: Sel,
        numbered: bool,
    },
    /// A positional filter on stdin (head, tail, sed -n, awk).
    Slice(SliceOp),
    /// A filter that passes lines through (sort, uniq, cat, tee /dev/null, ...).
    Pass,
    /// A filter that shows nothing (wc).
    Count,
    /// grep/rg with files (or recursive), or on stdin when `targets` is empty and not multi.
    Grep(GrepSpec, bool),
    /// find with a name/path pattern.
    FindSearch(Vec<Operand>),
    List(Vec<Operand>),
    Run(Category),
    Edit,
    Other,
    Unknown,
}

#[derive(Clone, Debug)]
enum SliceOp {
    Range(Sel),
    Tail(u32),
    Locate,
}

/// Basename of a command word.
fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_assignment(w: &Word) -> bool {
    let Some((name, _)) = w.text.split_once('=') else {
        return false;
    };
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

fn is_test_file(path: &str) -> bool {
    let name = base(path);
    (name.starts_with("test_") && name.ends_with(".py"))
        || name.ends_with("_test.py")
        || name == "tests.py"
        || name == "runtests.py"
        || path.ends_with("bin/test")
        || name == "test"
}

fn is_python(name: &str) -> bool {
    name == "python"
        || name == "pypy"
        || name == "pypy3"
        || (name.starts_with("python") && name[6..].chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// Strips prefixes that run another command (`timeout 10`, `env X=1`, `nohup`, ...).
fn strip_prefixes(words: &[Word]) -> &[Word] {
    let mut w = words;
    loop {
        while w.first().is_some_and(is_assignment) {
            w = &w[1..];
        }
        let Some(first) = w.first() else { return w };
        match base(&first.text) {
            "time" | "nohup" | "command" | "exec" | "sudo" | "builtin" => w = &w[1..],
            "env" | "nice" | "stdbuf" | "xvfb-run" => {
                w = &w[1..];
                while w
                    .first()
                    .is_some_and(|x| x.text.starts_with('-') || is_assignment(x))
                {
                    w = &w[1..];
                }
            }
            "timeout" => {
                w = &w[1..];
                while w.first().is_some_and(|x| x.text.starts_with('-')) {
                    w = &w[1..];
                }
                if !w.is_empty() {
                    w = &w[1..]; // the duration
                }
            }
            _ => return w,
        }
    }
}

const OTHER_COMMANDS: &[&str] = &[
    "rm",
    "rmdir",
    "cp",
    "mv",
    "mkdir",
    "touch",
    "chmod",
    "chown",
    "ln",
    "echo",
    "printf",
    "git",
    "pip",
    "pip3",
    "wc",
    "which",
    "type",
    "whereis",
    "apt-get",
    "apt",
    "conda",
    "export",
    "set",
    "unset",
    "source",
    ".",
    "true",
    "false",
    ":",
    "sleep",
    "exit",
    "kill",
    "ps",
    "whoami",
    "date",
    "clear",
    "diff",
    "cmp",
    "file",
    "stat",
    "du",
    "df",
    "test",
    "[",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "history",
    "alias",
    "uname",
    "id",
    "hostname",
    "env",
    "locale",
    "ulimit",
    "umask",
    "wait",
    "jobs",
    "md5sum",
    "sha256sum",
    "uv",
    "export",
    "update-alternatives",
    "dpkg",
    "free",
    "nproc",
    "top",
    "lsof",
    "yes",
];

const PROBE_COMMANDS: &[&str] = &[
    "make",
    "sphinx-build",
    "node",
    "npm",
    "npx",
    "bash",
    "sh",
    "zsh",
    "ruby",
    "go",
    "cargo",
    "gcc",
    "g++",
    "cc",
    "clang",
    "java",
    "javac",
    "cmake",
    "pylint",
    "flake8",
    "mypy",
    "ruff",
    "pyflakes",
    "pycodestyle",
    "django-admin",
    "coverage",
    "ipython",
    "jupyter",
    "gdb",
    "valgrind",
    "curl",
    "wget",
    "tar",
    "unzip",
    "gzip",
    "gunzip",
    "sqlite3",
    "isort",
    "black",
    "autopep8",
    "yapf",
    "mpirun",
    "latex",
    "pdflatex",
    "dot",
    "convert",
    "xelatex",
];

const PASS_FILTERS: &[&str] = &[
    "sort", "uniq", "cut", "tr", "column", "less", "more", "fold", "fmt", "rev", "paste", "expand",
    "unexpand", "strings", "jq", "cat", "nl", "tac", "colrm", "iconv", "od", "xxd", "hexdump",
];

/// Operands (non-option words), resolved.
fn operands(ctx: &Ctx<'_>, cwd: &str, words: &[Word]) -> Vec<Operand> {
    let mut out = Vec::new();
    let mut options_done = false;
    for w in words {
        if !options_done && w.text == "--" {
            options_done = true;
            continue;
        }
        if !options_done && w.text.starts_with('-') && w.text.len() > 1 {
            continue;
        }
        push_operand(ctx, cwd, w, &mut out);
    }
    out
}

fn push_operand(ctx: &Ctx<'_>, cwd: &str, w: &Word, out: &mut Vec<Operand>) {
    if w.expands || w.text == "-" || w.text.is_empty() {
        return;
    }
    if w.glob {
        let pattern = ctx.resolve(cwd, &w.text);
        let Some(ws) = ctx.ws else { return };
        if !ctx.spend(1 + u64::try_from(pattern.len() / 64).unwrap_or(u64::MAX)) {
            return;
        }
        let glob = Glob::new(&pattern);
        for (p, _) in ws.files() {
            if !ctx.spend(1) {
                return;
            }
            // A match is kept (twice: as written and as a path), so it costs its length.
            if glob.matches(p) && ctx.spend(2 * u64::try_from(p.len()).unwrap_or(u64::MAX)) {
                out.push(Operand {
                    raw: w.text.clone(),
                    path: p.to_owned(),
                });
            }
        }
        return;
    }
    out.push(Operand {
        raw: w.text.clone(),
        path: ctx.resolve(cwd, &w.text),
    });
}

/// One element of a glob pattern.
#[derive(Debug)]
enum GlobToken {
    /// `*`: any run of characters but `/` (a run of `*` is one).
    Star,
    /// `?`: any character but `/`.
    Any,
    /// `[...]`, `[!...]`, `[^...]`: a listed (or unlisted) character, never `/`. Sorted.
    Set {
        negated: bool,
        chars: Vec<char>,
    },
    Char(char),
}

/// A glob pattern compiled once for matching against every file: `*` and `?` never cross
/// `/`; `[...]` matches any listed character; a `[` without a later `]` is a character.
struct Glob {
    tokens: Vec<GlobToken>,
    /// Characters a match needs at least (one per token but `*`).
    min_len: usize,
    has_star: bool,
}

impl Glob {
    fn new(pattern: &str) -> Self {
        let p: Vec<char> = pattern.chars().collect();
        // The first `]` at or after each position, from one backward pass.
        let mut close = vec![None; p.len() + 1];
        for i in (0..p.len()).rev() {
            close[i] = if p[i] == ']' { Some(i) } else { close[i + 1] };
        }
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < p.len() {
            match p[i] {
                '*' => {
                    if !matches!(tokens.last(), Some(GlobToken::Star)) {
                        tokens.push(GlobToken::Star);
                    }
                    i += 1;
                }
                '?' => {
                    tokens.push(GlobToken::Any);
                    i += 1;
                }
                '[' => match close[i + 1] {
                    Some(end) if end > i + 1 => {
                        let set = &p[i + 1..end];
                        let (negated, set) = match set.first() {
                            Some('!' | '^') => (true, &set[1..]),
                            _ => (false, set),
                        };
                        let mut chars = set.to_vec();
                        chars.sort_unstable();
                        chars.dedup();
                        tokens.push(GlobToken::Set { negated, chars });
                        i = end + 1;
                    }
                    _ => {
                        tokens.push(GlobToken::Char('['));
                        i += 1;
                    }
                },
                c => {
                    tokens.push(GlobToken::Char(c));
                    i += 1;
                }
            }
        }
        let stars = tokens
            .iter()
            .filter(|t| matches!(t, GlobToken::Star))
            .count();
        Glob {
            min_len: tokens.len() - stars,
            has_star: stars > 0,
            tokens,
        }
    }

    /// Whether the token matches one character.
    fn one(token: &GlobToken, c: char) -> bool {
        match token {
            GlobToken::Star => false,
            GlobToken::Any => c != '/',
            GlobToken::Set { negated, chars } => {
                (chars.binary_search(&c).is_ok() != *negated) && c != '/'
            }
            GlobToken::Char(p) => *p == c,
        }
    }

    fn matches(&self, text: &str) -> bool {
        let t: Vec<char> = text.chars().collect();
        if t.len() < self.min_len || (!self.has_star && t.len() != self.min_len) {
            return false;
        }
        let p = &self.tokens;
        let (mut pi, mut ti) = (0usize, 0usize);
        // The last `*` seen and the text position its run would end at next.
        let mut star: Option<(usize, usize)> = None;
        while ti < t.len() {
            if let Some(GlobToken::Star) = p.get(pi) {
                star = Some((pi, ti));
                pi += 1;
                continue;
            }
            if p.get(pi).is_some_and(|token| Self::one(token, t[ti])) {
                pi += 1;
                ti += 1;
                continue;
            }
            match star {
                Some((sp, st)) if t[st] != '/' => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                _ => return false,
            }
        }
        p[pi..].iter().all(|t| matches!(t, GlobToken::Star))
    }
}

/// Parses a number argument for head/tail: `N`, `+N` (from line N), `-N`.
fn parse_count(s: &str) -> Option<(bool, u32)> {
    if let Some(rest) = s.strip_prefix('+') {
        return rest.parse().ok().map(|n| (true, n));
    }
    s.trim_start_matches('-').parse().ok().map(|n| (false, n))
}

fn head_tail(ctx: &Ctx<'_>, cwd: &str, is_tail: bool, args: &[Word]) -> Cmd {
    let mut count: Option<(bool, u32)> = Some((false, 10));
    let mut files = Vec::new();
    let mut i = 0;
    let mut bytes = false;
    while i < args.len() {
        let a = args[i].text.as_str();
        if a == "-n" || a == "--lines" {
            count = args.get(i + 1).and_then(|w| parse_count(&w.text));
            i += 2;
            continue;
        }
        if a == "-c" || a == "--bytes" {
            bytes = true;
            i += 2;
            continue;
        }
        if let Some(v) = a.strip_prefix("--lines=") {
            count = parse_count(v);
        } else if let Some(v) = a.strip_prefix("-n") {
            count = parse_count(v);
        } else if a.starts_with("-c") || a.starts_with("--bytes=") {
            bytes = true;
        } else if a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| c.is_ascii_digit()) {
            count = parse_count(&a[1..]);
        } else if a.starts_with('-') && a.len() > 1 {
            // -q, -v, -f ...
        } else {
            push_operand(ctx, cwd, &args[i], &mut files);
        }
        i += 1;
    }
    let op = match (bytes, count, is_tail) {
        (true, _, _) | (_, None, _) => SliceOp::Locate,
        (false, Some((true, n)), true) => SliceOp::Range(Sel::Ranges(vec![(n.max(1), None)])),
        (false, Some((_, n)), true) => SliceOp::Tail(n),
        (false, Some((_, n)), false) => {
            // `head -n -N` (all but the last N) is located from the output.
            if args.iter().any(|w| w.text.starts_with("-n-")) {
                SliceOp::Locate
            } else {
                SliceOp::Range(Sel::Ranges(vec![(1, Some(n))]))
            }
        }
    };
    if files.is_empty() {
        return Cmd::Slice(op);
    }
    let sel = apply(&Sel::whole(), &op);
    Cmd::Read {
        files,
        sel,
        numbered: false,
    }
}

fn apply(sel: &Sel, op: &SliceOp) -> Sel {
    match op {
        SliceOp::Range(Sel::Ranges(r)) => {
            if sel.is_whole() {
                Sel::Ranges(r.clone())
            } else if r.len() == 1 {
                sel.slice(r[0].0, r[0].1)
            } else {
                Sel::Locate
            }
        }
        SliceOp::Range(other) => other.clone(),
        SliceOp::Tail(n) => sel.tail(*n),
        SliceOp::Locate => {
            if *sel == Sel::Nothing {
                Sel::Nothing
            } else {
                Sel::Locate
            }
        }
    }
}

/// A sed `-n` script: `A,Bp`, `Ap`, `A,$p`, `A,+Np`, `$p`, several joined by `;` or newlines.
fn sed_script(script: &str) -> SliceOp {
    let mut ranges = Vec::new();
    for cmd in script.split([';', '\n']) {
        let cmd = cmd.trim();
        if cmd.is_empty() {
            continue;
        }
        let Some(addr) = cmd.strip_suffix('p') else {
            if cmd.ends_with('q') && cmd[..cmd.len() - 1].chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            return SliceOp::Locate;
        };
        let addr = addr.trim();
        let parse_n = |s: &str| -> Option<u32> { s.trim().parse().ok() };
        let range = match addr.split_once(',') {
            Some((a, b)) => {
                let a = parse_n(a);
                let b = b.trim();
                match a {
                    Some(a) if b == "$" => Some((a, None)),
                    Some(a) => {
                        if let Some(k) = b.strip_prefix('+') {
                            parse_n(k).map(|k| (a, Some(a.saturating_add(k))))
                        } else {
                            parse_n(b).map(|b| (a, Some(b)))
                        }
                    }
                    None => None,
                }
            }
            None if addr == "$" => {
                return if ranges.is_empty() {
                    SliceOp::Tail(1)
                } else {
                    SliceOp::Locate
                };
            }
            None => parse_n(addr).map(|a| (a, Some(a))),
        };
        match range {
            Some(r) => ranges.push(r),
            None => return SliceOp::Locate,
        }
    }
    if ranges.is_empty() {
        SliceOp::Locate
    } else {
        SliceOp::Range(Sel::Ranges(ranges))
    }
}

fn sed(ctx: &Ctx<'_>, cwd: &str, args: &[Word]) -> Cmd {
    let mut quiet = false;
    let mut script: Option<String> = None;
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].text.as_str();
        if a == "-i" || a.starts_with("-i") && !a.starts_with("-in") || a.starts_with("--in-place")
        {
            return Cmd::Edit;
        }
        if a == "-e" || a == "--expression" {
            let s = args.get(i + 1).map(|w| w.text.clone()).unwrap_or_default();
            script = Some(match script {
                Some(prev) => format!("{prev}\n{s}"),
                None => s,
            });
            i += 2;
            continue;
        }
        if a == "-f" {
            return Cmd::Unknown;
        }
        if a.starts_with('-') && a.len() > 1 {
            if a.starts_with("--") {
                quiet |= a == "--quiet" || a == "--silent";
            } else {
                if a.contains('i') {
                    return Cmd::Edit;
                }
                quiet |= a.contains('n');
            }
        } else if script.is_none() {
            script = Some(a.to_owned());
        } else {
            push_operand(ctx, cwd, &args[i], &mut files);
        }
        i += 1;
    }
    let op = if quiet {
        sed_script(script.as_deref().unwrap_or(""))
    } else {
        // Without -n sed prints every line (transformed): a whole read, or a pass filter.
        SliceOp::Range(Sel::whole())
    };
    if files.is_empty() {
        return if quiet { Cmd::Slice(op) } else { Cmd::Pass };
    }
    Cmd::Read {
        files,
        sel: apply(&Sel::whole(), &op),
        numbered: false,
    }
}

/// `awk 'NR>=A && NR<=B'` (and `NR==A`, `>`/`<`); anything else is located.
fn awk_program(program: &str) -> SliceOp {
    if program.contains("||") || !program.contains("NR") {
        return SliceOp::Locate;
    }
    let (mut lo, mut hi): (u32, Option<u32>) = (1, None);
    let mut rest = program;
    while let Some(p) = rest.find("NR") {
        rest = &rest[p + 2..];
        let t = rest.trim_start();
        let (op, after) = if let Some(a) = t.strip_prefix(">=") {
            (">=", a)
        } else if let Some(a) = t.strip_prefix("<=") {
            ("<=", a)
        } else if let Some(a) = t.strip_prefix("==") {
            ("==", a)
        } else if let Some(a) = t.strip_prefix('>') {
            (">", a)
        } else if let Some(a) = t.strip_prefix('<') {
            ("<", a)
        } else {
            return SliceOp::Locate;
        };
        let digits: String = after
            .trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let Ok(n) = digits.parse::<u32>() else {
            return SliceOp::Locate;
        };
        match op {
            ">=" => lo = lo.max(n),
            ">" => lo = lo.max(n.saturating_add(1)),
            "<=" => hi = Some(hi.map_or(n, |h| h.min(n))),
            "<" => hi = Some(hi.map_or(n.saturating_sub(1), |h| h.min(n.saturating_sub(1)))),
            _ => {
                lo = lo.max(n);
                hi = Some(hi.map_or(n, |h| h.min(n)));
            }
        }
    }
    SliceOp::Range(Sel::Ranges(vec![(lo, hi)]))
}

fn awk(ctx: &Ctx<'_>, cwd: &str, args: &[Word]) -> Cmd {
    let mut program: Option<String> = None;
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].text.as_str();
        if a == "-F" || a == "-v" || a == "-f" {
            if a == "-f" {
                return Cmd::Unknown;
            }
            i += 2;
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            i += 1;
            continue;
        }
        if program.is_none() {
            program = Some(a.to_owned());
        } else if !is_assignment(&args[i]) {
            push_operand(ctx, cwd, &args[i], &mut files);
        }
        i += 1;
    }
    let op = awk_program(program.as_deref().unwrap_or(""));
    if files.is_empty() {
        return Cmd::Slice(op);
    }
    Cmd::Read {
        sel: apply(&Sel::whole(), &op),
        files,
        numbered: false,
    }
}

fn grep(ctx: &Ctx<'_>, cwd: &str, name: &str, args: &[Word]) -> Cmd {
    let rg = name == "rg" || name == "ag";
    let mut spec = GrepSpec {
        numbers: name == "ag",
        ..GrepSpec::default()
    };
    let mut recursive = rg;
    let mut with_name: Option<bool> = None;
    let mut pattern_given = false;
    let mut raw_targets: Vec<&Word> = Vec::new();
    let takes_arg_short: &[char] = if rg {
        &[
            'A', 'B', 'C', 'e', 'f', 'g', 't', 'T', 'm', 'M', 'j', 'E', 'r',
        ]
    } else {
        &['A', 'B', 'C', 'e', 'f', 'm', 'd', 'D']
    };
    let mut i = 0;
    let mut options_done = false;
    while i < args.len() {
        let a = args[i].text.as_str();
        if !options_done && a == "--" {
            options_done = true;
            i += 1;
            continue;
        }
        if !options_done && a.starts_with("--") {
            let flag = a.split('=').next().unwrap_or(a);
            match flag {
                "--line-number" => spec.numbers = true,
                "--recursive" | "--dereference-recursive" => recursive = true,
                "--files-with-matches" | "--files-without-match" | "--files" => {
                    spec.list_files = true;
                }
                "--count" | "--quiet" | "--silent" => spec.silent = true,
                "--with-filename" => with_name = Some(true),
                "--no-filename" => with_name = Some(false),
                "--regexp" | "--file" => pattern_given = true,
                _ => {}
            }
            let needs_value = matches!(
                flag,
                "--regexp"
                    | "--file"
                    | "--context"
                    | "--after-context"
                    | "--before-context"
                    | "--max-count"
                    | "--glob"
                    | "--type"
                    | "--type-not"
                    | "--include"
                    | "--exclude"
                    | "--exclude-dir"
            ) && !a.contains('=');
            i += if needs_value { 2 } else { 1 };
            continue;
        }
        if !options_done && a.starts_with('-') && a.len() > 1 {
            let chars: Vec<char> = a[1..].chars().collect();
            let mut skip_next = false;
            for (k, &c) in chars.iter().enumerate() {
                if takes_arg_short.contains(&c) {
                    if c == 'e' || c == 'f' {
                        pattern_given = true;
                    }
                    if k + 1 == chars.len() {
                        skip_next = true;
                    }
                    break;
                }
                match c {
                    'n' => spec.numbers = true,
                    'N' if rg => spec.numbers = false,
                    'r' | 'R' => recursive = true,
                    'l' | 'L' => spec.list_files = true,
                    'c' | 'q' => spec.silent = true,
                    'H' => with_name = Some(true),
                    'h' => with_name = Some(false),
                    _ => {}
                }
            }
            i += if skip_next { 2 } else { 1 };
            continue;
        }
        if !pattern_given {
            pattern_given = true;
        } else {
            raw_targets.push(&args[i]);
        }
        i += 1;
    }
    for w in &raw_targets {
        push_operand(ctx, cwd, w, &mut spec.targets);
    }
    let on_stdin = raw_targets.is_empty() && !recursive;
    if raw_targets.is_empty() && recursive {
        spec.targets.push(Operand {
            raw: ".".to_owned(),
            path: ctx.resolve(cwd, "."),
        });
    }
    let any_dir = spec
        .targets
        .iter()
        .any(|t| t.path == "." || t.raw.ends_with('/') || ctx.is_dir(&t.path));
    spec.multi = with_name.unwrap_or(
        recursive || raw_targets.len() > 1 || any_dir || raw_targets.iter().any(|w| w.glob),
    );
    Cmd::Grep(spec, on_stdin)
}

fn find(ctx: &Ctx<'_>, cwd: &str, args: &[Word]) -> Cmd {
    let mut starts = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i].text;
        if a.starts_with('-') || a == "(" || a == "!" {
            break;
        }
        push_operand(ctx, cwd, &args[i], &mut starts);
        i += 1;
    }
    if starts.is_empty() {
        starts.push(Operand {
            raw: ".".to_owned(),
            path: ctx.resolve(cwd, "."),
        });
    }
    let mut pattern = false;
    let mut negated = false;
    for w in &args[i..] {
        let a = w.text.as_str();
        match a {
            "-not" | "!" => {
                negated = true;
                continue;
            }
            "-name" | "-iname" | "-path" | "-ipath" | "-regex" | "-iregex" | "-wholename"
            | "-iwholename"
                if !negated =>
            {
                pattern = true;
            }
            "-delete" => return Cmd::Other,
            _ => {}
        }
        negated = false;
    }
    if pattern {
        Cmd::FindSearch(starts)
    } else {
        Cmd::List(starts)
    }
}

fn python(args: &[Word]) -> Cmd {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].text.as_str();
        match a {
            "-m" => {
                let module = args.get(i + 1).map_or("", |w| w.text.as_str());
                return match module {
                    "pytest" | "unittest" | "py.test" | "nose" | "tox" => Cmd::Run(Category::Test),
                    "pip" => Cmd::Other,
                    _ => Cmd::Run(Category::Probe),
                };
            }
            "-c" | "-" => return Cmd::Run(Category::Probe),
            "-W" | "-X" => i += 2,
            _ if a.starts_with('-') => i += 1,
            _ => {
                return if is_test_file(a) {
                    Cmd::Run(Category::Test)
                } else {
                    Cmd::Run(Category::Probe)
                };
            }
        }
    }
    Cmd::Run(Category::Probe)
}

/// Classifies one simple command (without its redirections).
fn classify(ctx: &Ctx<'_>, cwd: &str, words: &[Word]) -> Cmd {
    let words = strip_prefixes(words);
    let Some(first) = words.first() else {
        return Cmd::Other;
    };
    if first.expands {
        return Cmd::Unknown;
    }
    let name = base(&first.text);
    let args = &words[1..];
    if first.text.contains('/') && !is_python(name) && is_test_file(&first.text) {
        // An executable test path: `bin/test`, `./tests/runtests.py`.
        return Cmd::Run(Category::Test);
    }
    match name {
        "cd" | "pushd" => Cmd::Cd(args.first().filter(|w| !w.expands).map(|w| w.text.clone())),
        "popd" | "pwd" => Cmd::Cd(None),
        "cat" | "nl" | "less" | "more" | "bat" => {
            let files = operands(ctx, cwd, args);
            if files.is_empty() {
                return Cmd::Pass;
            }
            let numbered = name == "nl"
                || (name == "cat"
                    && args.iter().any(|w| {
                        w.text.starts_with('-')
                            && !w.text.starts_with("--")
                            && (w.text.contains('n') || w.text.contains('b'))
                            || w.text == "--number"
                    }));
            // nl's options with separate values (`-b a`, `-w 3`) are not files.
            let files = if name == "nl" {
                let mut out = Vec::new();
                let mut skip = false;
                for w in args {
                    if skip {
                        skip = false;
                        continue;
                    }
                    if matches!(
                        w.text.as_str(),
                        "-b" | "-n" | "-w" | "-s" | "-v" | "-i" | "-l" | "-d"
                    ) {
                        skip = true;
                        continue;
                    }
                    if w.text.starts_with('-') && w.text.len() > 1 {
                        continue;
                    }
                    push_operand(ctx, cwd, w, &mut out);
                }
                if out.is_empty() {
                    return Cmd::Pass;
                }
                out
            } else {
                files
            };
            Cmd::Read {
                files,
                sel: Sel::whole(),
                numbered,
            }
        }
        "head" => head_tail(ctx, cwd, false, args),
        "tail" => head_tail(ctx, cwd, true, args),
        "sed" => sed(ctx, cwd, args),
        "awk" | "gawk" | "mawk" => awk(ctx, cwd, args),
        "grep" | "egrep" | "fgrep" | "rg" | "ag" => grep(ctx, cwd, name, args),
        "find" => find(ctx, cwd, args),
        "ls" | "tree" | "dir" => {
            let mut ops = Vec::new();
            let mut skip = false;
            for w in args {
                if skip {
                    skip = false;
                    continue;
                }
                if name == "tree" && matches!(w.text.as_str(), "-L" | "-I" | "-P") {
                    skip = true;
                    continue;
                }
                if w.text.starts_with('-') && w.text.len() > 1 {
                    continue;
                }
                push_operand(ctx, cwd, w, &mut ops);
            }
            if ops.is_empty() && !args.iter().any(|w| w.glob || w.expands) {
                ops.push(Operand {
                    raw: ".".to_owned(),
                    path: ctx.resolve(cwd, "."),
                });
            }
            Cmd::List(ops)
        }
        "wc" => Cmd::Count,
        "tee" => {
            if args
                .iter()
                .any(|w| !w.text.starts_with('-') && w.text != "/dev/null")
            {
                Cmd::Edit
            } else {
                Cmd::Pass
            }
        }
        "xargs" => {
            // `... | xargs grep -l x`: the command runs on files read from stdin.
            let mut rest = args;
            // `xargs xargs ... cmd` is stripped in a loop, so the one recursive call below
            // never meets `xargs` again: a hostile command cannot deepen the stack.
            loop {
                while rest.first().is_some_and(|w| w.text.starts_with('-')) {
                    let opt = rest[0].text.as_str();
                    let takes = matches!(opt, "-I" | "-n" | "-P" | "-d" | "-L" | "-s" | "-E");
                    rest = &rest[if takes { 2.min(rest.len()) } else { 1 }..];
                }
                match rest.first() {
                    Some(w) if base(&w.text) == "xargs" => rest = &rest[1..],
                    _ => break,
                }
            }
            match rest.first().map(|w| base(&w.text)) {
                None => Cmd::Other,
                Some(n @ ("grep" | "egrep" | "fgrep" | "rg")) => {
                    match grep(ctx, cwd, n, &rest[1..]) {
                        Cmd::Grep(mut spec, _) => {
                            if spec.targets.is_empty() {
                                spec.multi = true;
                            }
                            Cmd::Grep(spec, false)
                        }
                        other => other,
                    }
                }
                Some(_) => classify(ctx, cwd, rest),
            }
        }
        "pytest" | "py.test" | "tox" | "nox" | "runtests.py" => Cmd::Run(Category::Test),
        "patch" => Cmd::Edit,
        "perl" => {
            if args.iter().any(|w| {
                w.text.starts_with('-') && !w.text.starts_with("--") && w.text.contains('i')
            }) {
                Cmd::Edit
            } else {
                Cmd::Run(Category::Probe)
            }
        }
        "git" => {
            let sub = args.iter().find(|w| !w.text.starts_with('-'));
            match sub.map(|w| w.text.as_str()) {
                Some("apply") | Some("am") => Cmd::Edit,
                Some("grep") => {
                    let idx = args
                        .iter()
                        .position(|w| w.text == "grep")
                        .map_or(args.len(), |p| p + 1);
                    match grep(ctx, cwd, "grep", &args[idx..]) {
                        Cmd::Grep(mut spec, _) => {
                            if spec.targets.is_empty() {
                                spec.targets.push(Operand {
                                    raw: ".".to_owned(),
                                    path: ctx.resolve(cwd, "."),
                                });
                            }
                            spec.multi = true;
                            Cmd::Grep(spec, false)
                        }
                        other => other,
                    }
                }
                _ => Cmd::Other,
            }
        }
        n if is_python(n) => python(args),
        n if OTHER_COMMANDS.contains(&n) => Cmd::Other,
        n if PROBE_COMMANDS.contains(&n) => Cmd::Run(Category::Probe),
        n if PASS_FILTERS.contains(&n) => Cmd::Pass,
        _ => {
            if first.text.contains('/') {
                // An executable path: `./tests/runtests.py`, `bin/test`, `./build.sh`.
                if is_test_file(&first.text) {
                    Cmd::Run(Category::Test)
                } else {
                    Cmd::Run(Category::Probe)
                }
            } else {
                Cmd::Unknown
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Parts (one pipeline each)

/// What a pipeline prints, to be resolved against the observation.
#[derive(Debug)]
enum Shows {
    Nothing,
    /// A stream of file lines.
    Read {
        files: Vec<Operand>,
        sel: Sel,
        numbered: bool,
        /// A grep on the stream: its output is the grep's.
        grep: Option<GrepSpec>,
    },
    /// grep output with path prefixes or of known targets.
    Grep(GrepSpec),
}

#[derive(Debug)]
struct Part {
    kind: ActionKind,
    category: Category,
    interpreted: bool,
    operands: Vec<Operand>,
    shows: Shows,
    /// Prints into the observation.
    prints: bool,
    cwd: String,
}

fn plan_pipeline(ctx: &Ctx<'_>, cwd: &mut String, p: &Pipeline) -> Part {
    let mut part = Part {
        kind: ActionKind::Other,
        category: Category::Other,
        interpreted: true,
        operands: Vec::new(),
        shows: Shows::Nothing,
        prints: true,
        cwd: cwd.clone(),
    };
    let bump = |part: &mut Part, k: ActionKind, c: Category| {
        part.kind = part.kind.stronger(k);
        part.category = part.category.stronger(c);
    };
    let mut writes_file = false;
    let mut stdout_away = false;
    let mut silent = true;
    for (idx, cmd) in p.commands.iter().enumerate() {
        let last = idx + 1 == p.commands.len();
        for r in &cmd.redirects {
            if r.op == RedirectOp::Out {
                if r.target != "/dev/null" {
                    writes_file = true;
                }
                if r.redirects_stdout() && last {
                    stdout_away = true;
                }
            }
        }
        let c = classify(ctx, &part.cwd, &cmd.words);
        let stdin_cmd = idx > 0;
        match c {
            Cmd::Cd(dir) => {
                bump(&mut part, ActionKind::Other, Category::Navigate);
                if let Some(d) = dir
                    && d != "-"
                    && !d.starts_with('~')
                {
                    let abs = if d.starts_with('/') {
                        d
                    } else {
                        format!("{}/{d}", part.cwd)
                    };
                    part.cwd = format!("/{}", normalise_path(&abs));
                }
            }
            Cmd::Read {
                files,
                sel,
                numbered,
            } => {
                silent = false;
                bump(&mut part, ActionKind::Read, Category::Read);
                part.operands.extend(files.iter().cloned());
                part.shows = Shows::Read {
                    files,
                    sel,
                    numbered,
                    grep: None,
                };
            }
            Cmd::Slice(op) => {
                if let Shows::Read {
                    sel, grep: None, ..
                } = &mut part.shows
                    && ctx.spend(sel.weight())
                {
                    *sel = apply(sel, &op);
                }
            }
            Cmd::Pass => {
                silent = false;
                if let Shows::Read {
                    sel, grep: None, ..
                } = &mut part.shows
                    && stdin_cmd
                {
                    *sel = apply(sel, &SliceOp::Locate);
                }
            }
            Cmd::Count => {
                part.shows = Shows::Nothing;
            }
            Cmd::Grep(spec, on_stdin) => {
                silent = false;
                bump(&mut part, ActionKind::Search, Category::Search);
                if on_stdin && stdin_cmd {
                    match &mut part.shows {
                        Shows::Read { grep: g @ None, .. } => *g = Some(spec),
                        Shows::Grep(_) => {} // grep on grep output: still the first's format
                        s => *s = Shows::Nothing,
                    }
                } else {
                    part.operands.extend(spec.targets.iter().cloned());
                    part.shows = Shows::Grep(spec);
                }
            }
            Cmd::FindSearch(starts) => {
                silent = false;
                bump(&mut part, ActionKind::Search, Category::Search);
                part.operands.extend(starts);
                part.shows = Shows::Nothing;
            }
            Cmd::List(ops) => {
                silent = false;
                bump(&mut part, ActionKind::List, Category::Navigate);
                part.operands.extend(ops);
                part.shows = Shows::Nothing;
            }
            Cmd::Run(cat) => {
                silent = false;
                bump(&mut part, ActionKind::Run, cat);
                part.shows = Shows::Nothing;
            }
            Cmd::Edit => {
                bump(&mut part, ActionKind::Edit, Category::Edit);
                part.shows = Shows::Nothing;
            }
            Cmd::Other => {
                silent = false;
                bump(&mut part, ActionKind::Other, Category::Other);
                if !stdin_cmd {
                    part.shows = Shows::Nothing;
                }
            }
            Cmd::Unknown => {
                silent = false;
                part.interpreted = false;
                part.shows = Shows::Nothing;
            }
        }
    }
    if writes_file {
        bump(&mut part, ActionKind::Edit, Category::Edit);
    }
    if part.kind == ActionKind::Edit {
        // D12/D14: an edit shows nothing and its operands do not count.
        part.operands.clear();
        part.shows = Shows::Nothing;
    }
    if stdout_away {
        part.shows = Shows::Nothing;
        part.prints = false;
    }
    if silent {
        part.prints = false;
    }
    // `cd` in a pipeline runs in a subshell, but agents only write it first; keep it simple.
    *cwd = part.cwd.clone();
    part
}

// ---------------------------------------------------------------------------------------
// Resolving lines against the observation

struct Obs<'a> {
    output: Option<&'a str>,
    truncated: bool,
    printing_parts: usize,
}

/// Output lines without grep/nl decoration noise.
fn output_lines(output: &str) -> impl Iterator<Item = &str> {
    output.lines()
}

/// `   12\ttext` (nl -ba, cat -n) -> (12, text).
fn nl_number(line: &str) -> Option<(u32, &str)> {
    let t = line.trim_start_matches(' ');
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let n = t[..digits].parse().ok()?;
    let rest = &t[digits..];
    let text = rest
        .strip_prefix('\t')
        .or_else(|| rest.strip_prefix("  "))?;
    Some((n, text))
}

/// `12:text` or `12-text` -> (12, text).
fn grep_number(line: &str) -> Option<(u32, &str)> {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let rest = &line[digits..];
    let text = rest.strip_prefix(':').or_else(|| rest.strip_prefix('-'))?;
    Some((line[..digits].parse().ok()?, text))
}

/// Finds printed lines in a file's text, in order (sequential alignment): the next line
/// equal to the printed one from where the last was found, else the first in the file.
/// Each lookup is a search in the file's index of lines, not a scan of the file.
struct Locator<'a> {
    file: Rc<FileLines<'a>>,
    cursor: usize,
}

impl<'a> FileLines<'a> {
    /// Runs `f` on the index of where each distinct line is (0-based, ascending), built on
    /// first use.
    fn with_positions<R>(&self, f: impl FnOnce(&HashMap<&'a str, Vec<u32>>) -> R) -> R {
        if self.positions.borrow().is_none() {
            let mut positions: HashMap<&'a str, Vec<u32>> = HashMap::new();
            for (i, line) in self.lines.iter().enumerate() {
                positions
                    .entry(line)
                    .or_default()
                    .push(u32::try_from(i).unwrap_or(u32::MAX));
            }
            *self.positions.borrow_mut() = Some(positions);
        }
        let positions = self.positions.borrow();
        match positions.as_ref() {
            Some(positions) => f(positions),
            None => f(&HashMap::new()),
        }
    }
}

impl<'a> Locator<'a> {
    fn new(file: Rc<FileLines<'a>>) -> Self {
        Self { file, cursor: 0 }
    }

    fn find(&mut self, printed: &str) -> Option<u32> {
        if printed.trim().is_empty() {
            // Blank lines are ambiguous; take the next line if it is blank too.
            if self
                .file
                .lines
                .get(self.cursor)
                .is_some_and(|l| l.trim().is_empty())
            {
                self.cursor += 1;
                return u32::try_from(self.cursor).ok();
            }
            return None;
        }
        let cursor = self.cursor;
        let hit = self.file.with_positions(|positions| {
            let at = positions.get(printed)?;
            let next = at.partition_point(|&p| (p as usize) < cursor);
            at.get(next).or(at.first()).map(|&p| p as usize)
        })?;
        self.cursor = hit + 1;
        u32::try_from(hit + 1).ok()
    }
}

struct Resolved {
    shown: ShownLines,
    hit_files: BTreeSet<String>,
    ambiguous: bool,
}

fn resolve_part(ctx: &Ctx<'_>, part: &Part, obs: &Obs<'_>) -> Resolved {
    let mut r = Resolved {
        shown: ShownLines::new(),
        hit_files: BTreeSet::new(),
        ambiguous: false,
    };
    match &part.shows {
        Shows::Nothing => {}
        Shows::Read {
            files,
            sel,
            numbered,
            grep: Some(spec),
        } => {
            // A grep over one file's stream.
            let Some(out) = obs.output else { return r };
            let Some(file) = files.first() else { return r };
            let mut loc = ctx.lines(&file.path).map(Locator::new);
            for line in output_lines(out) {
                if !ctx.spend(1) {
                    break;
                }
                if line == "--" {
                    continue;
                }
                let (gnum, rest) = if spec.numbers {
                    match grep_number(line) {
                        Some((n, t)) => (Some(n), t),
                        None => (None, line),
                    }
                } else {
                    (None, line)
                };
                let n = if *numbered {
                    nl_number(rest).map(|(n, _)| n)
                } else if let (Some(g), true) = (gnum, sel.is_whole()) {
                    Some(g)
                } else {
                    loc.as_mut().and_then(|l| l.find(rest))
                };
                if let Some(n) = n {
                    r.shown.add(&file.path, n);
                }
            }
            if obs.printing_parts > 1 && ctx.text(&file.path).is_none() && r.shown.count() > 0 {
                r.ambiguous = true;
            }
        }
        Shows::Read {
            files,
            sel,
            numbered,
            grep: None,
        } => {
            for f in files {
                if !ctx.spend(sel.weight()) {
                    break;
                }
                if let Some(file_lines) = ctx.lines(&f.path) {
                    if *sel == Sel::Locate {
                        if let Some(out) = obs.output {
                            let mut loc = Locator::new(file_lines);
                            for line in output_lines(out) {
                                if !ctx.spend(1) {
                                    break;
                                }
                                let n = if *numbered {
                                    nl_number(line).map(|(n, _)| n)
                                } else {
                                    loc.find(line)
                                };
                                if let Some(n) = n {
                                    r.shown.add(&f.path, n);
                                }
                            }
                        }
                    } else {
                        let count = u32::try_from(file_lines.lines.len()).unwrap_or(u32::MAX);
                        for (a, b) in sel.lines(count) {
                            r.shown.add_range(&f.path, a, b);
                        }
                    }
                    continue;
                }
                // Not in the workspace: the observation, else the requested range.
                let bounded = sel.requested();
                if let (true, Some(out)) = (*numbered, obs.output) {
                    let requested = LineSet::from(bounded.clone());
                    let mut any = false;
                    for line in output_lines(out) {
                        if !ctx.spend(1) {
                            break;
                        }
                        if let Some((n, _)) = nl_number(line) {
                            let fits = bounded.is_empty() || requested.contains(n);
                            if fits {
                                r.shown.add(&f.path, n);
                                any = true;
                            }
                        }
                    }
                    if any && (obs.printing_parts > 1 || files.len() > 1) {
                        r.ambiguous = true;
                    }
                    continue;
                }
                if obs.printing_parts == 1
                    && files.len() == 1
                    && !obs.truncated
                    && let Some(out) = obs.output
                {
                    let k = u32::try_from(out.lines().count()).unwrap_or(u32::MAX);
                    for (a, b) in sel.first_k(k) {
                        r.shown.add_range(&f.path, a, b);
                    }
                    continue;
                }
                for (a, b) in bounded {
                    r.shown.add_range(&f.path, a, unseen_end(a, b));
                }
            }
        }
        Shows::Grep(spec) => {
            let Some(out) = obs.output else { return r };
            if spec.silent {
                return r;
            }
            if spec.list_files {
                for line in output_lines(out) {
                    if !ctx.spend(1) {
                        break;
                    }
                    let l = line.trim();
                    if !l.is_empty() && !l.contains(": No such file") && !l.starts_with("grep:") {
                        r.hit_files.insert(ctx.resolve(&part.cwd, l));
                    }
                }
                return r;
            }
            decode_grep(ctx, part, spec, out, obs, &mut r);
        }
    }
    r
}

fn decode_grep(
    ctx: &Ctx<'_>,
    part: &Part,
    spec: &GrepSpec,
    out: &str,
    obs: &Obs<'_>,
    r: &mut Resolved,
) {
    let single = (!spec.multi && spec.targets.len() == 1).then(|| spec.targets[0].path.clone());
    // With a single target, a recursive grep may still print bare `12:text` lines.
    let lone = (spec.targets.len() == 1).then(|| spec.targets[0].path.clone());
    let mut locators: BTreeMap<String, Locator<'_>> = BTreeMap::new();
    let mut seen_paths: BTreeSet<String> = BTreeSet::new();
    for line in output_lines(out) {
        if !ctx.spend(1) {
            break;
        }
        if line == "--"
            || line.starts_with("Binary file")
            || line.starts_with("grep: ")
            || line.starts_with("rg: ")
        {
            continue;
        }
        let decoded: Option<(String, Option<u32>, &str)> = match &single {
            Some(file) => {
                if spec.numbers {
                    grep_number(line).map(|(n, t)| (file.clone(), Some(n), t))
                } else {
                    Some((file.clone(), None, line))
                }
            }
            None => split_path_line(ctx, part, spec.numbers, line, &seen_paths).or_else(|| {
                let file = lone.clone()?;
                let (n, t) = grep_number(line)?;
                (spec.numbers && !ctx.is_dir(&file) && file != ".").then_some((file, Some(n), t))
            }),
        };
        let Some((file, n, text)) = decoded else {
            continue;
        };
        seen_paths.insert(file.clone());
        let n = match n {
            Some(n) => {
                // Several printing parts: decoded lines must match the file's text.
                if obs.printing_parts > 1 && single.is_some() {
                    match ctx.lines(&file) {
                        Some(file_lines) => {
                            let idx = usize::try_from(n).unwrap_or(usize::MAX).wrapping_sub(1);
                            if file_lines.lines.get(idx) != Some(&text) {
                                continue;
                            }
                        }
                        None => r.ambiguous = true,
                    }
                }
                Some(n)
            }
            None => match locators.get_mut(&file) {
                Some(locator) => locator.find(text),
                None => match ctx.lines(&file) {
                    Some(file_lines) => locators
                        .entry(file.clone())
                        .or_insert(Locator::new(file_lines))
                        .find(text),
                    None => None,
                },
            },
        };
        r.hit_files.insert(file.clone());
        if let Some(n) = n {
            r.shown.add(&file, n);
        }
    }
}

/// The longest prefix of a grep line tried as a path: Linux's `PATH_MAX`, so no real path
/// is longer.
const MAX_PATH_BYTES: usize = 4096;

/// Separators of one grep line tried as the end of its path. The path ends at the first
/// separator after it, and real paths hold only a few `-` or `:` of their own; a line
/// whose path is not found among them is taken as its first `:`, as when none is found.
const MAX_PATH_TRIES: usize = 64;

/// Splits `path:12:text` / `path-12-text` (with numbers) or `path:text` (without).
fn split_path_line<'l>(
    ctx: &Ctx<'_>,
    part: &Part,
    numbers: bool,
    line: &'l str,
    seen: &BTreeSet<String>,
) -> Option<(String, Option<u32>, &'l str)> {
    let known = |p: &str| {
        let path = ctx.resolve(&part.cwd, p);
        let ok = seen.contains(&path) || ctx.ws.is_some_and(|w| w.contains(&path));
        (ok, path)
    };
    let bytes = line.as_bytes();
    let mut fallback: Option<(String, Option<u32>, &'l str)> = None;
    let mut tries = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        if b != b':' && b != b'-' {
            continue;
        }
        if i == 0 {
            continue;
        }
        if i > MAX_PATH_BYTES || tries == MAX_PATH_TRIES {
            break;
        }
        let prefix = &line[..i];
        if numbers {
            let rest = &line[i + 1..];
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits == 0 || rest.as_bytes().get(digits) != Some(&b) {
                continue;
            }
            let Ok(n) = rest[..digits].parse::<u32>() else {
                continue;
            };
            let text = &rest[digits + 1..];
            tries += 1;
            let (ok, path) = known(prefix);
            if ok {
                return Some((path, Some(n), text));
            }
            if fallback.is_none() && (b == b':' || ctx.ws.is_none()) {
                fallback = Some((path, Some(n), text));
            }
        } else {
            let text = &line[i + 1..];
            tries += 1;
            let (ok, path) = known(prefix);
            if ok {
                return Some((path, None, text));
            }
            if fallback.is_none() && b == b':' {
                fallback = Some((path, None, text));
            }
        }
    }
    fallback
}

// ---------------------------------------------------------------------------------------
// Shell actions

fn interpret_shell(action: &ShellAction, ctx: &Ctx<'_>) -> InterpretedAction {
    let mut result = blank(action.command.clone());
    let pipelines = match shell::parse(&action.command) {
        Ok(p) => p,
        Err(_) => {
            result.interpreted = false;
            return result;
        }
    };
    let mut cwd = ctx.root.clone();
    let parts: Vec<Part> = pipelines
        .iter()
        .map(|p| plan_pipeline(ctx, &mut cwd, p))
        .collect();
    let obs = Obs {
        output: action.output.as_deref(),
        truncated: action.truncated,
        printing_parts: parts.iter().filter(|p| p.prints).count(),
    };
    let missing: Vec<&str> = action
        .output
        .as_deref()
        // Most outputs have neither message: one search of the whole output rules that out
        // before the line-by-line one (the messages hold no newline, so it finds the same).
        .filter(|o| o.contains("No such file") || o.contains("cannot access"))
        .map(|o| {
            o.lines()
                .filter(|l| l.contains("No such file") || l.contains("cannot access"))
                .collect()
        })
        .unwrap_or_default();
    // Checking an operand against the messages reads them all.
    let missing_bytes: usize = missing.iter().map(|l| l.len()).sum();
    let check_cost = u64::try_from(missing.len() + missing_bytes / 64).unwrap_or(u64::MAX);
    for part in &parts {
        result.kind = result.kind.stronger(part.kind);
        result.category = result.category.stronger(part.category);
        result.interpreted &= part.interpreted;
        let res = resolve_part(ctx, part, &obs);
        result.ambiguous |= res.ambiguous;
        let mut dropped = BTreeSet::new();
        for op in &part.operands {
            let failed = !missing.is_empty()
                && ctx.spend(check_cost)
                && missing.iter().any(|l| l.contains(op.raw.as_str()));
            if failed {
                dropped.insert(op.path.clone());
            } else {
                result.files.insert(op.path.clone());
            }
        }
        result.files.extend(res.hit_files);
        for (file, lines) in res.shown.files() {
            if dropped.contains(file) {
                continue;
            }
            result.files.insert(file.to_owned());
            result.shown.add_lines(file, lines);
        }
    }
    result
}

// ---------------------------------------------------------------------------------------
// Tool calls

fn arg_str<'v>(args: &'v Value, keys: &[&str]) -> Option<&'v str> {
    keys.iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
}

fn arg_u32(args: &Value, keys: &[&str]) -> Option<u32> {
    keys.iter().find_map(|k| {
        let v = args.get(*k)?;
        v.as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
    })
}

const OPENCODE_READ_LIMIT: u32 = 2000;

fn interpret_tool(call: &ToolCall, ctx: &Ctx<'_>) -> InterpretedAction {
    let mut result = blank(format!("{}({})", call.name, call.args));
    let root = ctx.root.clone();
    let path_of = |keys: &[&str]| arg_str(&call.args, keys).map(|p| ctx.resolve(&root, p));
    match call.name.as_str() {
        "read" | "view" | "open" => {
            result.kind = ActionKind::Read;
            result.category = Category::Read;
            let Some(path) = path_of(&["filePath", "file_path", "path"]) else {
                result.interpreted = false;
                return result;
            };
            result.files.insert(path.clone());
            let (start, end) = if let Some(s) = arg_u32(&call.args, &["start_line"]) {
                (s.max(1), arg_u32(&call.args, &["end_line"]))
            } else {
                let offset = arg_u32(&call.args, &["offset"]).unwrap_or(1).max(1);
                let limit = arg_u32(&call.args, &["limit"]).unwrap_or(OPENCODE_READ_LIMIT);
                (offset, Some(offset.saturating_add(limit.max(1)) - 1))
            };
            if let Some(count) = ctx.line_count(&path) {
                result
                    .shown
                    .add_range(&path, start, end.unwrap_or(count).min(count));
                return result;
            }
            // Numbers printed by the tool (`00012| text`, `   12\ttext`, `12: text`).
            if let Some(out) = &call.output {
                let mut any = false;
                for line in out.lines() {
                    if !ctx.spend(1) {
                        break;
                    }
                    let t = line.trim_start();
                    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                    if digits == 0 {
                        continue;
                    }
                    let sep = t[digits..].chars().next();
                    if matches!(sep, Some('|' | '\t' | ':' | '→'))
                        && let Ok(n) = t[..digits].parse::<u32>()
                        && n >= start
                        && end.is_none_or(|e| n <= e)
                    {
                        result.shown.add(&path, n);
                        any = true;
                    }
                }
                if any {
                    return result;
                }
            }
            if arg_u32(&call.args, &["end_line", "limit"]).is_some()
                && let Some(e) = end
            {
                result.shown.add_range(&path, start, unseen_end(start, e));
            }
        }
        "grep" | "search" => {
            result.kind = ActionKind::Search;
            result.category = Category::Search;
            let target = path_of(&["path", "dir"]).unwrap_or_else(|| ".".to_owned());
            result.files.insert(target);
            if let Some(out) = &call.output {
                decode_tool_grep(ctx, out, &mut result);
            }
        }
        "glob" | "find" => {
            result.kind = ActionKind::Search;
            result.category = Category::Search;
            result
                .files
                .insert(path_of(&["path", "dir"]).unwrap_or_else(|| ".".to_owned()));
        }
        "list" | "ls" => {
            result.kind = ActionKind::List;
            result.category = Category::Navigate;
            result
                .files
                .insert(path_of(&["path", "dir"]).unwrap_or_else(|| ".".to_owned()));
        }
        "edit" | "write" | "patch" | "multiedit" | "apply_patch" | "create" | "str_replace" => {
            result.kind = ActionKind::Edit;
            result.category = Category::Edit;
        }
        "bash" | "shell" => {
            let command = arg_str(&call.args, &["command", "cmd"]).unwrap_or("");
            let shell = ShellAction {
                command: command.to_owned(),
                output: call.output.clone(),
                ..ShellAction::default()
            };
            return interpret_shell(&shell, ctx);
        }
        "todowrite" | "todoread" | "think" | "task" | "webfetch" | "websearch" => {}
        _ => result.interpreted = false,
    }
    result
}

/// OpenCode grep output (`/path/file.py:` headers, `  Line 12: text` rows) or grep's
/// `path:12:text` lines.
fn decode_tool_grep(ctx: &Ctx<'_>, out: &str, result: &mut InterpretedAction) {
    let mut current: Option<String> = None;
    for line in out.lines() {
        if !ctx.spend(1) {
            break;
        }
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Line ") {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let (Some(file), Ok(n)) = (&current, digits.parse::<u32>()) {
                result.files.insert(file.clone());
                result.shown.add(file, n);
            }
            continue;
        }
        if let Some(p) = t.strip_suffix(':')
            && !p.is_empty()
            && !p.contains(' ')
        {
            current = Some(ctx.resolve(&ctx.root, p));
            continue;
        }
        // `path:12:text`
        let mut it = t.splitn(3, ':');
        if let (Some(p), Some(n), Some(_)) = (it.next(), it.next(), it.next())
            && let Ok(n) = n.parse::<u32>()
            && !p.is_empty()
        {
            let file = ctx.resolve(&ctx.root, p);
            result.files.insert(file.clone());
            result.shown.add(&file, n);
        }
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
