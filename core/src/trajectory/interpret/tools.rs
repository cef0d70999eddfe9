//! Tool calls (OpenCode-style read, grep, glob, edit tools) interpreted.

use super::*;

pub(super) fn arg_str<'v>(args: &'v Value, keys: &[&str]) -> Option<&'v str> {
    keys.iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
}

pub(super) fn arg_u32(args: &Value, keys: &[&str]) -> Option<u32> {
    keys.iter().find_map(|k| {
        let v = args.get(*k)?;
        v.as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
    })
}

pub(super) const OPENCODE_READ_LIMIT: u32 = 2000;

pub(super) fn interpret_tool(call: &ToolCall, ctx: &Ctx<'_>) -> InterpretedAction {
    let mut result = blank(format!("{}({})", call.name, call.args));
    let root = ctx.root.clone();
    let path_of = |keys: &[&str]| arg_str(&call.args, keys).map(|p| ctx.resolve(&root, p));
    match call.name.as_str() {
        "read" | "view" | "open" => {
            result.kind = ActionKind::Read;
            result.category = Category::Read;
            let Some(path) = path_of(&["filePath", "file_path", "path"]) else {
                result.mark_not_understood(NotUnderstood::missing_argument(&call.name));
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
        _ => result.mark_not_understood(NotUnderstood::unknown_tool(&call.name)),
    }
    result
}

/// OpenCode grep output (`/path/file.py:` headers, `  Line 12: text` rows) or grep's
/// `path:12:text` lines.
pub(super) fn decode_tool_grep(ctx: &Ctx<'_>, out: &str, result: &mut InterpretedAction) {
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
