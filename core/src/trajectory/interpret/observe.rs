//! Resolving a planned part against the observation: the lines a command actually printed.

use super::*;

pub(super) struct Obs<'a> {
    pub(super) output: Option<&'a str>,
    pub(super) truncated: bool,
    pub(super) head_lines: Option<u32>,
    pub(super) printing_parts: usize,
}

/// Output lines without grep/nl decoration noise.
pub(super) fn output_lines(output: &str) -> impl Iterator<Item = &str> {
    output.lines()
}

/// `   12\ttext` (nl -ba, cat -n) -> (12, text).
pub(super) fn nl_number(line: &str) -> Option<(u32, &str)> {
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
pub(super) fn grep_number(line: &str) -> Option<(u32, &str)> {
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
pub(super) struct Locator<'a> {
    pub(super) file: Rc<FileLines<'a>>,
    pub(super) cursor: usize,
}

impl<'a> FileLines<'a> {
    /// Runs `f` on the index of where each distinct line is (0-based, ascending), built on
    /// first use.
    pub(super) fn with_positions<R>(&self, f: impl FnOnce(&HashMap<&'a str, Vec<u32>>) -> R) -> R {
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
    pub(super) fn new(file: Rc<FileLines<'a>>) -> Self {
        Self { file, cursor: 0 }
    }

    pub(super) fn find(&mut self, printed: &str) -> Option<u32> {
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

/// Places of a context group tried before it is located line by line instead.
const MAX_BLOCK_TRIES: usize = 64;

impl Locator<'_> {
    /// Finds a grep context group (consecutive lines of the file, printed between `--`
    /// separators) as a block: the first place at or after the cursor, else from the start,
    /// where the file holds all its lines in a row; the first line's number. Blank context
    /// lines are placed by their neighbours this way, which line by line they cannot be.
    /// Each place tried spends the group's length through `spend`.
    pub(super) fn find_block(
        &mut self,
        printed: &[&str],
        spend: &dyn Fn(u64) -> bool,
    ) -> Option<u32> {
        let anchor = printed.iter().position(|l| !l.trim().is_empty())?;
        let cursor = self.cursor;
        let file = Rc::clone(&self.file);
        let cost = u64::try_from(printed.len()).unwrap_or(u64::MAX);
        let start = file.with_positions(|positions| {
            let at = positions.get(printed[anchor])?;
            let next = at.partition_point(|&p| (p as usize) < cursor);
            at[next..]
                .iter()
                .chain(&at[..next])
                .filter_map(|&p| (p as usize).checked_sub(anchor))
                .take(MAX_BLOCK_TRIES)
                .take_while(|_| spend(cost))
                .find(|&start| {
                    printed
                        .iter()
                        .enumerate()
                        .all(|(j, l)| file.lines.get(start + j) == Some(l))
                })
        })?;
        self.cursor = start + printed.len();
        u32::try_from(start + 1).ok()
    }
}

pub(super) struct Resolved {
    pub(super) shown: ShownLines,
    pub(super) hit_files: BTreeSet<String>,
    pub(super) ambiguous: bool,
}

pub(super) fn resolve_part(ctx: &Ctx<'_>, part: &Part, obs: &Obs<'_>) -> Resolved {
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
            // Context output of the file's own lines: placed a group at a time, as
            // `decode_grep` places them.
            let grouped = spec.context && !spec.numbers && !*numbered;
            let mut group: Vec<&str> = Vec::new();
            for line in output_lines(out).chain(grouped.then_some("--")) {
                if !ctx.spend(1) {
                    break;
                }
                if line == "--" {
                    if let Some(l) = loc.as_mut() {
                        for n in place_group(ctx, l, &group) {
                            r.shown.add(&file.path, n);
                        }
                    }
                    group.clear();
                    continue;
                }
                if grouped {
                    group.push(line);
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
                // The count of output lines; of a truncated output, the lines that begin
                // in its head (the tail's cannot be numbered: how many lines the harness
                // elided is not known).
                let printed = match (obs.truncated, obs.output) {
                    (false, Some(out)) => {
                        Some(u32::try_from(out.lines().count()).unwrap_or(u32::MAX))
                    }
                    (true, Some(_)) => obs.head_lines,
                    (_, None) => None,
                };
                if obs.printing_parts == 1
                    && files.len() == 1
                    && let Some(k) = printed
                {
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

pub(super) fn decode_grep(
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
    // Context output without numbers: the lines of the group under way, each with its
    // file, located together when the group ends (at `--`, at a change of file, at the end).
    let grouped = spec.context && !spec.numbers;
    let mut group: Vec<(String, &str)> = Vec::new();
    for line in output_lines(out).chain(grouped.then_some("--")) {
        if !ctx.spend(1) {
            break;
        }
        if grouped && line == "--" {
            locate_group(ctx, &mut locators, &mut group, r);
            continue;
        }
        if line == "--"
            || line.starts_with("Binary file")
            || line.starts_with("grep: ")
            || line.starts_with("rg: ")
            || (single.is_none() && is_tool_message(line))
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
            None => split_path_line(ctx, part, spec.numbers, line, &seen_paths)
                .filter(|(path, _, text)| {
                    names_a_searched_file(ctx, lone.as_deref(), path, text, obs)
                })
                .or_else(|| {
                    let file = lone.clone().filter(|f| !ctx.is_dir(f) && f != ".")?;
                    if !spec.numbers {
                        // `grep -r PAT FILE` of a file the workspace does not hold: GNU
                        // grep names no file for one file operand, so the line is text.
                        return ctx.text(&file).is_none().then_some((file, None, line));
                    }
                    let (n, t) = grep_number(line)?;
                    Some((file, Some(n), t))
                }),
        };
        let Some((file, n, text)) = decoded else {
            continue;
        };
        seen_paths.insert(file.clone());
        // Grouped output carries no numbers (`n` is `None`).
        if grouped {
            if group.last().is_some_and(|(f, _)| *f != file) {
                locate_group(ctx, &mut locators, &mut group, r);
            }
            r.hit_files.insert(file.clone());
            group.push((file, text));
            continue;
        }
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

/// Whether a `path:text` reading of a grep line can be what grep printed: grep names only
/// the files it searched, so with one operand `X` only `X` or a path under `X/` (a name
/// elsewhere is the text of a file grep did not name, `note: k:v`); never a directory the
/// workspace holds; and, where another part of the command printed too (`ls -R && grep -r`),
/// not a `dir:` line with nothing after it that names no file the workspace holds (a
/// listing's header, not a match of an empty line).
fn names_a_searched_file(
    ctx: &Ctx<'_>,
    lone: Option<&str>,
    path: &str,
    text: &str,
    obs: &Obs<'_>,
) -> bool {
    let under_operand = lone.is_none_or(|operand| {
        operand == "."
            || path == operand
            || path
                .strip_prefix(operand)
                .is_some_and(|rest| rest.starts_with('/'))
    });
    let listing_header = obs.printing_parts > 1 && text.is_empty() && ctx.text(path).is_none();
    under_operand && !ctx.is_dir(path) && !listing_header
}

/// Tools whose messages on stderr (merged into the observation by the harness) begin with
/// their name and `: `, as `xargs: grep: terminated by signal 13` does.
const TOOLS_WITH_MESSAGES: [&str; 12] = [
    "xargs", "find", "ls", "cat", "head", "tail", "sed", "sort", "awk", "egrep", "fgrep", "bash",
];

/// Whether a line of a grep's output that names files is a tool's message instead. A
/// `path:text` line only looks like one for a file named like a tool, in the working
/// directory, whose matched text starts with a space.
fn is_tool_message(line: &str) -> bool {
    line.split_once(": ")
        .is_some_and(|(head, _)| TOOLS_WITH_MESSAGES.contains(&head))
}

/// Locates a grep context group of one file (see [`Locator::find_block`]), line by line
/// when the file does not hold it as a block, and empties it.
fn locate_group<'a>(
    ctx: &Ctx<'a>,
    locators: &mut BTreeMap<String, Locator<'a>>,
    group: &mut Vec<(String, &str)>,
    r: &mut Resolved,
) {
    let Some((file, _)) = group.first() else {
        return;
    };
    let file = file.clone();
    let locator = match locators.get_mut(&file) {
        Some(locator) => Some(locator),
        None => ctx
            .lines(&file)
            .map(|lines| locators.entry(file.clone()).or_insert(Locator::new(lines))),
    };
    if let Some(locator) = locator {
        let texts: Vec<&str> = group.iter().map(|&(_, t)| t).collect();
        for n in place_group(ctx, locator, &texts) {
            r.shown.add(&file, n);
        }
    }
    group.clear();
}

/// The lines of a context group: as a block ([`Locator::find_block`]), else line by line.
fn place_group(ctx: &Ctx<'_>, locator: &mut Locator<'_>, texts: &[&str]) -> Vec<u32> {
    match locator.find_block(texts, &|n| ctx.spend(n)) {
        Some(first) => (0..texts.len())
            .map(|j| first.saturating_add(u32::try_from(j).unwrap_or(u32::MAX)))
            .collect(),
        None => texts.iter().filter_map(|t| locator.find(t)).collect(),
    }
}

/// The longest prefix of a grep line tried as a path: Linux's `PATH_MAX`, so no real path
/// is longer.
pub(super) const MAX_PATH_BYTES: usize = 4096;

/// Separators of one grep line tried as the end of its path. The path ends at the first
/// separator after it, and real paths hold only a few `-` or `:` of their own; a line
/// whose path is not found among them is taken as its first `:`, as when none is found.
pub(super) const MAX_PATH_TRIES: usize = 64;

/// Splits `path:12:text` / `path-12-text` (with numbers) or `path:text` (without).
pub(super) fn split_path_line<'l>(
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
