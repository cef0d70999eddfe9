//! Commands that read lines of a file: head, tail, sed and awk, and the slices they select.

use super::*;

/// Parses a number argument for head/tail: `N`, `+N` (from line N), `-N`.
pub(super) fn parse_count(s: &str) -> Option<(bool, u32)> {
    if let Some(rest) = s.strip_prefix('+') {
        return rest.parse().ok().map(|n| (true, n));
    }
    s.trim_start_matches('-').parse().ok().map(|n| (false, n))
}

pub(super) fn head_tail(ctx: &Ctx<'_>, cwd: &str, is_tail: bool, args: &[Word]) -> Cmd {
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

pub(super) fn apply(sel: &Sel, op: &SliceOp) -> Sel {
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
pub(super) fn sed_script(script: &str) -> SliceOp {
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

pub(super) fn sed(ctx: &Ctx<'_>, cwd: &str, args: &[Word]) -> Cmd {
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
pub(super) fn awk_program(program: &str) -> SliceOp {
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

pub(super) fn awk(ctx: &Ctx<'_>, cwd: &str, args: &[Word]) -> Cmd {
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
