//! One pipeline planned: what it shows, its kind and category, and the working directory it leaves.

use super::*;

/// What a pipeline prints, to be resolved against the observation.
#[derive(Debug)]
pub(super) enum Shows {
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
pub(super) struct Part {
    pub(super) kind: ActionKind,
    pub(super) category: Category,
    /// Why some command of it was not understood (the first such).
    pub(super) not_understood: Option<NotUnderstood>,
    pub(super) operands: Vec<Operand>,
    pub(super) shows: Shows,
    /// Prints into the observation.
    pub(super) prints: bool,
    pub(super) cwd: String,
}

pub(super) fn plan_pipeline(ctx: &Ctx<'_>, cwd: &mut String, p: &Pipeline) -> Part {
    let mut part = Part {
        kind: ActionKind::Other,
        category: Category::Other,
        not_understood: None,
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
                let reason = match strip_prefixes(&cmd.words).first() {
                    Some(first) if !first.expands => NotUnderstood::unknown_command(&first.text),
                    _ => NotUnderstood::ExpandedCommand,
                };
                part.not_understood.get_or_insert(reason);
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
