//! Level 4 of SchrodingerRepo: the functions to rewrite (those a golden patch touches, or a seeded choice), the two-stage exchange with a language model for each, and the checks its answers must pass before the repository's tests judge them.
//!
//! Stage 1 ([`REWRITE_TEMPLATE`]) asks for a rewrite of one function with the same
//! behaviour; stage 2 ([`CHECK_TEMPLATE`]) shows the model its rewrite beside the original
//! and asks for `ACCEPT` or a corrected rewrite. Core checks that the final answer parses
//! as Python and defines one function with the original's name, decorators and signature;
//! a rewrite that fails is recorded as rejected with the reason. One that passes is only
//! [`Outcome::Proposed`]: it stands when the repository's tests pass on it (the host runs
//! them). Like level 1, the model is the caller's `ask`, so a record replays without it.
//!
//! ```
//! use std::collections::BTreeMap;
//! use wheelwright_core::schrodinger::rewrites::{Outcome, REWRITE_TEMPLATE, regions, rewrite};
//! let files = BTreeMap::from([("m.py".to_owned(), "def double(x):\n    return x * 2\n".to_owned())]);
//! let region = &regions(&files, None, 0, 1)[0];
//! let record = rewrite(region, |p| {
//!     Ok::<_, ()>(if p.template == REWRITE_TEMPLATE {
//!         "```python\ndef double(x):\n    return x + x\n```".to_owned()
//!     } else {
//!         "ACCEPT".to_owned()
//!     })
//! })
//! .unwrap();
//! assert_eq!(record.outcome, Outcome::Proposed { code: "def double(x):\n    return x + x".to_owned() });
//! ```

use std::collections::{BTreeMap, BTreeSet};

use rand_core::RngCore;
use serde::{Deserialize, Serialize};

use super::restate::{Exchange, Prompt};
use crate::syntax::{self, Field, Kind, NodeId, SyntaxTree};
use crate::template::fill;

/// The version of stage 1's template (the rewrite), recorded with its prompt.
pub const REWRITE_TEMPLATE: &str = "schrodinger-level4-rewrite-1";
/// The version of stage 2's template (the self-check), recorded with its prompt.
pub const CHECK_TEMPLATE: &str = "schrodinger-level4-check-1";

const REWRITE: &str = include_str!("prompts/level4-rewrite-1.md");
const CHECK: &str = include_str!("prompts/level4-check-1.md");

/// One function to rewrite: where it is and its text (decorators included).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    pub path: String,
    /// Its qualified name in the file (`Class.method`, `outer.inner`).
    pub name: String,
    /// 1-based inclusive lines of the definition, decorators included.
    pub start_line: u32,
    pub end_line: u32,
    pub text: String,
    /// Whether another function holds it (then it is rewritten only with its holder).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nested: bool,
}

/// What became of one rewrite.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The answers passed core's checks; the repository's tests decide.
    Proposed {
        code: String,
    },
    /// The repository's tests pass on it: the rewrite stands.
    Accepted {
        code: String,
    },
    Rejected {
        reason: String,
    },
}

/// One function's exchanges with the model and what became of its rewrite, as recorded
/// in the view bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RewriteRecord {
    pub region: Region,
    pub stages: Vec<Exchange>,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// The functions of the repository's non-test Python `files` to rewrite: with a golden
/// `patch` (a unified diff), each outermost function whose lines in the original its
/// hunks change; without one, `count` functions drawn under `seed`. In path and line order.
pub fn regions(
    files: &BTreeMap<String, String>,
    patch: Option<&str>,
    seed: u64,
    count: usize,
) -> Vec<Region> {
    let mut all: Vec<Region> = files
        .iter()
        .filter(|(p, _)| p.ends_with(".py") && crate::workspace::why_removed(p).is_none())
        .flat_map(|(p, text)| functions(p, text))
        .collect();
    let Some(patch) = patch else {
        // Without a patch, only functions no other function holds: a nested one is
        // rewritten with its holder, and two rewrites of one span could not both apply.
        all.retain(|r| !r.nested);
        let mut rng = super::words::rng(seed, "rewrites");
        let mut chosen = BTreeSet::new();
        // A partial Fisher-Yates draw: `count` distinct indices.
        let mut indices: Vec<usize> = (0..all.len()).collect();
        for i in 0..count.min(all.len()) {
            let left = (indices.len() - i) as u64;
            let j = i + usize::try_from(rng.next_u64() % left).unwrap_or(0);
            indices.swap(i, j);
            chosen.insert(indices[i]);
        }
        return chosen.into_iter().map(|i| all[i].clone()).collect();
    };
    let changed = changed_lines(patch);
    all.retain(|r| {
        changed.get(&r.path).is_some_and(|ranges| {
            ranges
                .iter()
                .any(|&(start, end)| start <= r.end_line && r.start_line <= end)
        })
    });
    // Outermost only: a nested function is rewritten with the one holding it.
    let mut out: Vec<Region> = Vec::new();
    for r in all {
        let inside = out
            .iter()
            .any(|o| o.path == r.path && o.start_line <= r.start_line && r.end_line <= o.end_line);
        if !inside {
            out.push(r);
        }
    }
    out
}

/// Each function definition of `source` with its qualified name, outer ones first.
fn functions(path: &str, source: &str) -> Vec<Region> {
    let tree = syntax::parse(source);
    let mut out = Vec::new();
    for id in tree.descendants(tree.root()) {
        if tree.kind(id) != Kind::FunctionDefinition {
            continue;
        }
        let mut names = vec![name_of(&tree, id)];
        let mut nested = false;
        let mut at = tree.parent(id);
        while let Some(p) = at {
            match tree.kind(p) {
                Kind::FunctionDefinition => {
                    nested = true;
                    names.push(name_of(&tree, p));
                }
                Kind::ClassDefinition => names.push(name_of(&tree, p)),
                _ => {}
            }
            at = tree.parent(p);
        }
        names.reverse();
        let whole = tree
            .parent(id)
            .filter(|&p| tree.kind(p) == Kind::DecoratedDefinition)
            .unwrap_or(id);
        let span = tree.node(whole).span;
        out.push(Region {
            path: path.to_owned(),
            name: names.join("."),
            start_line: span.start_line,
            end_line: span.end_line,
            text: dedent(&line_text(source, span.start_line, span.end_line)),
            nested,
        });
    }
    out
}

fn name_of(tree: &SyntaxTree<'_>, id: NodeId) -> String {
    tree.child(id, Field::Name)
        .map(|n| tree.text(n).to_owned())
        .unwrap_or_default()
}

/// Lines `start..=end` (1-based) of `source`, without the last newline.
fn line_text(source: &str, start: u32, end: u32) -> String {
    source
        .lines()
        .skip(start.saturating_sub(1) as usize)
        .take((end + 1).saturating_sub(start) as usize)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` with the first line's indentation taken off every line that has it.
fn dedent(text: &str) -> String {
    let indent: String = text
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    text.lines()
        .map(|l| l.strip_prefix(indent.as_str()).unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Per original path (`--- a/PATH`), the old-side line ranges its hunks span.
fn changed_lines(patch: &str) -> BTreeMap<String, Vec<(u32, u32)>> {
    let mut out: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
    let mut path: Option<String> = None;
    for line in patch.lines() {
        if let Some(p) = line.strip_prefix("--- ") {
            path = p.strip_prefix("a/").map(|p| p.trim_end().to_owned());
        } else if let (Some(hunk), Some(p)) = (line.strip_prefix("@@ -"), &path) {
            let old = hunk.split(' ').next().unwrap_or("");
            let (start, len) = old.split_once(',').unwrap_or((old, "1"));
            let (Ok(start), Ok(len)) = (start.parse::<u32>(), len.parse::<u32>()) else {
                continue;
            };
            // A pure insertion (length 0) sits after line `start`.
            let end = start + len.saturating_sub(1);
            out.entry(p.clone())
                .or_default()
                .push((start.max(1), end.max(start)));
        }
    }
    out
}

/// Stage 1's prompt for `region`.
pub fn rewrite_prompt(region: &Region) -> Prompt {
    Prompt {
        template: REWRITE_TEMPLATE,
        text: fill(
            REWRITE,
            &[
                ("name", &region.name),
                ("path", &region.path),
                ("function", &region.text),
            ],
        ),
    }
}

/// Stage 2's prompt: the original `region` beside the `rewrite` stage 1 gave.
pub fn check_prompt(region: &Region, rewrite: &str) -> Prompt {
    Prompt {
        template: CHECK_TEMPLATE,
        text: fill(
            CHECK,
            &[
                ("name", &region.name),
                ("path", &region.path),
                ("function", &region.text),
                ("rewrite", rewrite),
            ],
        ),
    }
}

/// The code of an answer: its first fenced block, or the whole answer without one.
fn code_of(answer: &str) -> String {
    let mut lines = answer
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("```"));
    if lines.next().is_none() {
        return answer.trim_matches('\n').trim_end().to_owned();
    }
    lines
        .take_while(|l| !l.trim_start().starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n")
        .trim_end()
        .to_owned()
}

/// The parts of a definition that must not change: decorators, name, parameters, return
/// annotation, each with its whitespace collapsed.
fn signature(source: &str) -> Result<String, String> {
    let tree = syntax::parse(source);
    if tree.has_syntax_errors() {
        let first = tree
            .diagnostics()
            .first()
            .map(|d| format!(" (line {}: {})", d.line, d.message))
            .unwrap_or_default();
        return Err(format!("it does not parse as Python{first}"));
    }
    let top: Vec<NodeId> = tree.children(tree.root()).collect();
    let [one] = top.as_slice() else {
        return Err(format!(
            "it holds {} top-level statements, not one function",
            top.len()
        ));
    };
    let (def, decorators) = match tree.kind(*one) {
        Kind::DecoratedDefinition => {
            let def = tree
                .child(*one, Field::Definition)
                .ok_or("its decorators decorate nothing")?;
            let decorators: Vec<&str> = tree
                .children(*one)
                .filter(|&c| tree.kind(c) == Kind::Decorator)
                .map(|c| tree.text(c))
                .collect();
            (def, decorators.join("\n"))
        }
        _ => (*one, String::new()),
    };
    if tree.kind(def) != Kind::FunctionDefinition {
        return Err("it is not a function definition".to_owned());
    }
    let part = |f: Field| tree.child(def, f).map_or("", |n| tree.text(n));
    let collapse = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let is_async = tree.text(def).starts_with("async");
    let returns = tree
        .child(def, Field::ReturnType)
        .map(|n| format!(" -> {}", tree.text(n)))
        .unwrap_or_default();
    Ok(collapse(&format!(
        "{decorators} {}def {}{}{returns}",
        if is_async { "async " } else { "" },
        part(Field::Name),
        part(Field::Parameters),
    )))
}

/// `answer` read as a rewrite of `region`: its code when it parses and keeps the
/// signature, else why not.
pub fn read_rewrite(region: &Region, answer: &str) -> Result<String, String> {
    let code = code_of(answer);
    let want = signature(&region.text).map_err(|e| format!("the original: {e}"))?;
    let got = signature(&code)?;
    if got != want {
        return Err(format!(
            "it changes the signature: `{got}` instead of `{want}`"
        ));
    }
    // Compared line by line without trailing blanks: a rewrite that only re-indents or
    // drops blank lines hides nothing.
    let lines = |t: &str| -> Vec<String> {
        t.lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    };
    if lines(&code) == lines(&region.text) {
        return Err("it is the original, unchanged".to_owned());
    }
    Ok(code)
}

/// Both stages for `region`, each prompt answered by `ask` (the model, or a record
/// replayed): the record, its outcome [`Outcome::Proposed`] or [`Outcome::Rejected`].
pub fn rewrite<E>(
    region: &Region,
    mut ask: impl FnMut(&Prompt) -> Result<String, E>,
) -> Result<RewriteRecord, E> {
    let mut stages = Vec::new();
    let mut exchange = |p: Prompt, ask: &mut dyn FnMut(&Prompt) -> Result<String, E>| {
        let answer = ask(&p)?;
        stages.push(Exchange {
            template: p.template.to_owned(),
            prompt: p.text,
            answer: answer.clone(),
        });
        Ok(answer)
    };
    let first = exchange(rewrite_prompt(region), &mut ask)?;
    let outcome = match read_rewrite(region, &first) {
        Err(why) => Outcome::Rejected {
            reason: format!("stage 1's rewrite is refused: {why}"),
        },
        Ok(code) => {
            let second = exchange(check_prompt(region, &code), &mut ask)?;
            if second.trim() == "ACCEPT" {
                Outcome::Proposed { code }
            } else {
                match read_rewrite(region, &second) {
                    Ok(fixed) => Outcome::Proposed { code: fixed },
                    Err(why) => Outcome::Rejected {
                        reason: format!("stage 2's correction is refused: {why}"),
                    },
                }
            }
        }
    };
    Ok(RewriteRecord {
        region: region.clone(),
        stages,
        outcome,
    })
}

/// Level 4's record in the view bundle: how the functions were chosen, and each one's
/// exchanges and fate, so the rewritten repository is made again without the model or the
/// tests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Level4Record {
    /// The golden patch the functions were chosen by, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    /// The seed of the draw when no patch was given.
    pub seed: u64,
    pub functions: Vec<RewriteRecord>,
}

impl Level4Record {
    /// The recorded answer to `prompt`: only one given to exactly this prompt of this
    /// template, so a changed function or template is asked again.
    pub fn answer(&self, prompt: &Prompt) -> Option<&str> {
        self.functions
            .iter()
            .flat_map(|f| &f.stages)
            .find(|e| e.template == prompt.template && e.prompt == prompt.text)
            .map(|e| e.answer.as_str())
    }

    /// The record of `region` once the tests decided it (or core refused it): replayed
    /// as it is, without the model or the sandbox.
    pub fn decided(&self, region: &Region) -> Option<&RewriteRecord> {
        self.functions
            .iter()
            .find(|f| &f.region == region && !matches!(f.outcome, Outcome::Proposed { .. }))
    }
}

/// `files` with the code of each of `records` that is not rejected in place of its
/// function, indented as the original was; an error naming the function when its file no
/// longer holds it where the record says (the repository changed since).
pub fn apply<'r>(
    files: &BTreeMap<String, String>,
    records: impl IntoIterator<Item = &'r RewriteRecord>,
) -> Result<BTreeMap<String, String>, String> {
    let mut by_file: BTreeMap<&str, Vec<(&Region, &str)>> = BTreeMap::new();
    for r in records {
        let code = match &r.outcome {
            Outcome::Proposed { code } | Outcome::Accepted { code } => code.as_str(),
            Outcome::Rejected { .. } => continue,
        };
        by_file
            .entry(&r.region.path)
            .or_default()
            .push((&r.region, code));
    }
    let mut out = files.clone();
    for (path, mut edits) in by_file {
        let Some(source) = files.get(path) else {
            return Err(format!("{path} is not in the repository"));
        };
        let mut lines: Vec<String> = source.split_inclusive('\n').map(str::to_owned).collect();
        // Last first: an edit then never moves the lines of one still to come.
        edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start_line));
        for (region, code) in edits {
            let (start, end) = (region.start_line as usize, region.end_line as usize);
            let held = (start >= 1 && end <= lines.len() && start <= end)
                .then(|| lines[start - 1..end].concat());
            let Some(held) = held.filter(|h| dedent(h.trim_end_matches('\n')) == region.text)
            else {
                return Err(format!(
                    "{path} no longer holds {} at lines {start}-{end}; make the rewrites again",
                    region.name
                ));
            };
            let indent: String = held
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect();
            let ending = if held.ends_with('\n') { "\n" } else { "" };
            let new = code
                .lines()
                .map(|l| {
                    if l.is_empty() {
                        String::new()
                    } else {
                        format!("{indent}{l}")
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
                + ending;
            lines.splice(start - 1..end, [new]);
        }
        out.insert(path.to_owned(), lines.concat());
    }
    Ok(out)
}
