//! Commands that search: grep (and rg, ag), find, and the glob patterns they match paths with.

use super::*;

/// One element of a glob pattern.
#[derive(Debug)]
pub(super) enum GlobToken {
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
pub(super) struct Glob {
    pub(super) tokens: Vec<GlobToken>,
    /// Characters a match needs at least (one per token but `*`).
    pub(super) min_len: usize,
    pub(super) has_star: bool,
}

impl Glob {
    pub(super) fn new(pattern: &str) -> Self {
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
    pub(super) fn one(token: &GlobToken, c: char) -> bool {
        match token {
            GlobToken::Star => false,
            GlobToken::Any => c != '/',
            GlobToken::Set { negated, chars } => {
                (chars.binary_search(&c).is_ok() != *negated) && c != '/'
            }
            GlobToken::Char(p) => *p == c,
        }
    }

    pub(super) fn matches(&self, text: &str) -> bool {
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

pub(super) fn grep(ctx: &Ctx<'_>, cwd: &str, name: &str, args: &[Word]) -> Cmd {
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
                "--context" | "--after-context" | "--before-context" => spec.context = true,
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
                    if matches!(c, 'A' | 'B' | 'C') {
                        spec.context = true;
                    }
                    if k + 1 == chars.len() {
                        skip_next = true;
                    }
                    break;
                }
                match c {
                    // `-2`: two lines of context each side.
                    '0'..='9' if !rg => spec.context = true,
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
    // GNU grep names the file of each line when it searches several operands, a directory
    // (a recursive grep with none searches `.`) or is told to (-H); a recursive grep of one
    // file prints no names. An operand the workspace does not hold may be a directory.
    let one_file = raw_targets.len() == 1
        && !raw_targets[0].glob
        && spec
            .targets
            .first()
            .is_some_and(|t| ctx.text(&t.path).is_some());
    spec.multi = with_name.unwrap_or(
        (recursive && !one_file)
            || raw_targets.len() > 1
            || any_dir
            || raw_targets.iter().any(|w| w.glob),
    );
    Cmd::Grep(spec, on_stdin)
}

pub(super) fn find(ctx: &Ctx<'_>, cwd: &str, args: &[Word]) -> Cmd {
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
