//! A shell action interpreted: each pipeline planned, resolved and merged.

use super::*;

pub(super) fn interpret_shell(action: &ShellAction, ctx: &Ctx<'_>) -> InterpretedAction {
    let mut result = blank(action.command.clone());
    let pipelines = match shell::parse(&action.command) {
        Ok(p) => p,
        Err(e) => {
            result.mark_not_understood(match e {
                shell::ShellError::Control => NotUnderstood::ShellControl,
                shell::ShellError::Unterminated => NotUnderstood::ShellUnterminated,
                shell::ShellError::Syntax => NotUnderstood::ShellSyntax,
            });
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
        head_lines: action.head_lines,
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
        if let Some(reason) = &part.not_understood {
            result.mark_not_understood(reason.clone());
        }
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
