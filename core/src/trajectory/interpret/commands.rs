//! Shell commands classified: what each command of a pipeline is (the reads and searches
//! are in `reads.rs` and `search.rs`), their operands, and the commands known to show nothing.

use super::*;

#[derive(Clone, Debug)]
pub(super) struct Operand {
    pub(super) raw: String,
    pub(super) path: String,
}

#[derive(Clone, Debug, Default)]
pub(super) struct GrepSpec {
    pub(super) numbers: bool,
    /// Context lines asked for (-A, -B, -C, -NUM): the output comes in groups of
    /// consecutive lines, separated by `--`.
    pub(super) context: bool,
    pub(super) multi: bool,
    pub(super) list_files: bool,
    pub(super) silent: bool,
    pub(super) targets: Vec<Operand>,
}

#[derive(Clone, Debug)]
pub(super) enum Cmd {
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
pub(super) enum SliceOp {
    Range(Sel),
    Tail(u32),
    Locate,
}

/// Basename of a command word.
pub(super) fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

pub(super) fn is_assignment(w: &Word) -> bool {
    let Some((name, _)) = w.text.split_once('=') else {
        return false;
    };
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

pub(super) fn is_test_file(path: &str) -> bool {
    let name = base(path);
    (name.starts_with("test_") && name.ends_with(".py"))
        || name.ends_with("_test.py")
        || name == "tests.py"
        || name == "runtests.py"
        || path.ends_with("bin/test")
        || name == "test"
}

pub(super) fn is_python(name: &str) -> bool {
    name == "python"
        || name == "pypy"
        || name == "pypy3"
        || (name.starts_with("python") && name[6..].chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// Strips prefixes that run another command (`timeout 10`, `env X=1`, `nohup`, ...).
pub(super) fn strip_prefixes(words: &[Word]) -> &[Word] {
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

pub(super) const OTHER_COMMANDS: &[&str] = &[
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

pub(super) const PROBE_COMMANDS: &[&str] = &[
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

pub(super) const PASS_FILTERS: &[&str] = &[
    "sort", "uniq", "cut", "tr", "column", "less", "more", "fold", "fmt", "rev", "paste", "expand",
    "unexpand", "strings", "jq", "cat", "nl", "tac", "colrm", "iconv", "od", "xxd", "hexdump",
];

/// Operands (non-option words), resolved.
pub(super) fn operands(ctx: &Ctx<'_>, cwd: &str, words: &[Word]) -> Vec<Operand> {
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

pub(super) fn push_operand(ctx: &Ctx<'_>, cwd: &str, w: &Word, out: &mut Vec<Operand>) {
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

pub(super) fn python(args: &[Word]) -> Cmd {
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
pub(super) fn classify(ctx: &Ctx<'_>, cwd: &str, words: &[Word]) -> Cmd {
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
