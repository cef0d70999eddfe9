//! Level 1 of SchrodingerRepo: a problem statement rewritten by a language model in two stages (facts, then a new statement from the facts only), with the answers checked and recorded.
//!
//! Stage 1 ([`FACTS_TEMPLATE`]) asks for the statement's facts as a list of `- KIND:
//! fact` lines; stage 2 ([`RESTATE_TEMPLATE`]) asks for a new statement written from those
//! facts alone. Core renders both prompts and checks both answers; the model itself is the
//! caller's `ask` (the command line runs a user's command), so replaying a recorded
//! [`Level1Record`] goes through the same code with the recorded answers and gives the same
//! statement without a model. A bad answer is never an error: it is kept, and
//! [`Restated::diagnostics`] say what is wrong with it, as rules a reader can measure:
//!
//! - the new statement is not empty;
//! - it writes every backticked part of the facts (the code identifiers, calls and error
//!   messages a developer needs) exactly;
//! - outside code (backticks and fenced blocks), it shares no run of [`COPIED_RUN`] words
//!   with the original, so it is not a copy of the original's sentences.
//!
//! ```
//! use wheelwright_core::schrodinger::restate::{FACTS_TEMPLATE, restate};
//! let original = "Calling `parse('')` raises `IndexError` instead of returning an empty list.";
//! let (record, restated) = restate(original, |prompt| {
//!     Ok::<_, ()>(if prompt.template == FACTS_TEMPLATE {
//!         "- input: `parse('')`\n- observed: raises `IndexError`\n- expected: an empty list".to_owned()
//!     } else {
//!         "An empty string given to `parse('')` should give an empty list; it raises `IndexError`.".to_owned()
//!     })
//! })
//! .unwrap();
//! assert_eq!(record.facts.template, FACTS_TEMPLATE);
//! assert!(restated.diagnostics.is_empty(), "{:?}", restated.diagnostics);
//! ```

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::template::fill;

/// The version of stage 1's template (the facts), recorded with its prompt.
pub const FACTS_TEMPLATE: &str = "schrodinger-level1-facts-1";
/// The version of stage 2's template (the new statement), recorded with its prompt.
pub const RESTATE_TEMPLATE: &str = "schrodinger-level1-restate-1";

const FACTS: &str = include_str!("prompts/level1-facts-1.md");
const RESTATE: &str = include_str!("prompts/level1-restate-1.md");

/// The length, in words, of a run of prose the new statement may not share with the
/// original: eight words in a row are a copied clause, not a shared phrase.
pub const COPIED_RUN: usize = 8;

/// Kept here too: level 1 and level 4 name it from this module.
pub use crate::template::Prompt;

/// One stage's exchange with the model, as recorded in the view bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    /// The template's id and version ([`FACTS_TEMPLATE`], [`RESTATE_TEMPLATE`]).
    pub template: String,
    pub prompt: String,
    pub answer: String,
}

/// Level 1's record in the view bundle: both stages, so the view is made again without
/// the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Level1Record {
    pub facts: Exchange,
    pub restatement: Exchange,
}

/// What a fact is about (stage 1's `KIND`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    Expected,
    Observed,
    Input,
    Error,
    Constraint,
}

/// One fact of stage 1's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fact {
    pub kind: FactKind,
    pub text: String,
}

/// Stage 1's answer read: its facts, the backticked parts they write, what was not
/// understood.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Facts {
    pub facts: Vec<Fact>,
    /// Every backticked part of the facts, in first-seen order, once: what stage 2 must keep.
    pub identifiers: Vec<String>,
    pub diagnostics: Vec<String>,
}

/// The new statement and what is wrong with it (empty when nothing is).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Restated {
    pub statement: String,
    pub facts: Facts,
    pub diagnostics: Vec<String>,
}

/// Stage 1's prompt for the problem statement `original`.
pub fn facts_prompt(original: &str) -> Prompt {
    Prompt {
        template: FACTS_TEMPLATE,
        text: fill(FACTS, &[("statement", original.trim())]),
    }
}

/// Stage 2's prompt from stage 1's answer: its fact lines only (anything else the model
/// wrote around them is left out, so the original cannot leak through it).
pub fn restate_prompt(facts: &Facts) -> Prompt {
    let lines: Vec<String> = facts
        .facts
        .iter()
        .map(|f| format!("- {}: {}", kind_name(f.kind), f.text))
        .collect();
    Prompt {
        template: RESTATE_TEMPLATE,
        text: fill(RESTATE, &[("facts", &lines.join("\n"))]),
    }
}

fn kind_name(kind: FactKind) -> &'static str {
    match kind {
        FactKind::Expected => "expected",
        FactKind::Observed => "observed",
        FactKind::Input => "input",
        FactKind::Error => "error",
        FactKind::Constraint => "constraint",
    }
}

/// Stage 1's answer read: each `- KIND: fact` line (also `* `, any case of `KIND`); other
/// non-empty lines are reported and left out.
pub fn parse_facts(answer: &str) -> Facts {
    let mut out = Facts::default();
    for (n, line) in answer.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let item = line
            .strip_prefix("- ")
            .or_else(|| line.strip_prefix("* "))
            .and_then(|rest| rest.split_once(':'))
            .and_then(|(kind, text)| {
                let kind = match kind.trim().to_ascii_lowercase().as_str() {
                    "expected" => FactKind::Expected,
                    "observed" => FactKind::Observed,
                    "input" => FactKind::Input,
                    "error" => FactKind::Error,
                    "constraint" => FactKind::Constraint,
                    _ => return None,
                };
                Some((kind, text.trim()))
            });
        match item {
            Some((kind, text)) if !text.is_empty() => out.facts.push(Fact {
                kind,
                text: text.to_owned(),
            }),
            _ => out.diagnostics.push(format!(
                "stage 1, line {}: not a `- KIND: fact` line with KIND one of expected, observed, input, error, constraint; left out: {}",
                n + 1,
                crate::hidden_tests::truncate(line, 120)
            )),
        }
    }
    if out.facts.is_empty() {
        out.diagnostics
            .push("stage 1 gave no facts: stage 2 had nothing to write from".to_owned());
    }
    let mut seen = BTreeSet::new();
    for fact in &out.facts {
        for code in code_spans(&fact.text) {
            if seen.insert(code.to_owned()) {
                out.identifiers.push(code.to_owned());
            }
        }
    }
    out
}

/// Stage 2's answer checked against the facts and the original (the rules of the module's
/// summary).
pub fn check_restatement(original: &str, facts: Facts, answer: &str) -> Restated {
    let statement = answer.trim().to_owned();
    let mut diagnostics = Vec::new();
    if statement.is_empty() {
        diagnostics.push("stage 2 gave an empty statement".to_owned());
    }
    for identifier in &facts.identifiers {
        if !statement.contains(identifier.as_str()) {
            diagnostics.push(format!(
                "the new statement does not write `{identifier}`, which the facts give"
            ));
        }
    }
    for run in shared_runs(original, &statement) {
        diagnostics.push(format!(
            "the new statement copies {} words in a row from the original: \"{run}\"",
            run.split(' ').count()
        ));
    }
    Restated {
        statement,
        facts,
        diagnostics,
    }
}

/// Both stages for `original`, each prompt answered by `ask` (the model, or a record
/// replayed); the record of both exchanges and the new statement checked. Only `ask`'s own
/// error stops it.
pub fn restate<E>(
    original: &str,
    mut ask: impl FnMut(&Prompt) -> Result<String, E>,
) -> Result<(Level1Record, Restated), E> {
    let first = facts_prompt(original);
    let facts_answer = ask(&first)?;
    let facts = parse_facts(&facts_answer);
    let second = restate_prompt(&facts);
    let answer = ask(&second)?;
    let mut restated = check_restatement(original, facts, &answer);
    let mut diagnostics = std::mem::take(&mut restated.facts.diagnostics);
    diagnostics.append(&mut restated.diagnostics);
    restated.diagnostics = diagnostics;
    let exchange = |p: Prompt, answer: String| Exchange {
        template: p.template.to_owned(),
        prompt: p.text,
        answer,
    };
    Ok((
        Level1Record {
            facts: exchange(first, facts_answer),
            restatement: exchange(second, answer),
        },
        restated,
    ))
}

impl Level1Record {
    /// The answer recorded for `prompt`: only when both its template and its text are the
    /// ones recorded, so a changed statement or template is asked again, never answered
    /// with another prompt's answer.
    pub fn answer(&self, prompt: &Prompt) -> Option<&str> {
        [&self.facts, &self.restatement]
            .into_iter()
            .find(|e| e.template == prompt.template && e.prompt == prompt.text)
            .map(|e| e.answer.as_str())
    }
}

/// The parts of `text` in single backticks (fenced blocks' markers left out).
fn code_spans(text: &str) -> impl Iterator<Item = &str> {
    text.split('`')
        .enumerate()
        .filter(|(i, s)| i % 2 == 1 && !s.trim().is_empty())
        .map(|(_, s)| s)
}

/// `text`'s prose as lowercased words: fenced code blocks and backticked parts removed
/// (code must be copied exactly; sentences must not), words being runs of letters, digits
/// and apostrophes.
fn prose_words(text: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            for (i, part) in line.split('`').enumerate() {
                if i % 2 == 0 {
                    prose.push_str(part);
                }
                prose.push(' ');
            }
            prose.push('\n');
        }
    }
    prose
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Each longest run of at least [`COPIED_RUN`] prose words of `new` that `original` also
/// writes, in order, joined by spaces.
fn shared_runs(original: &str, new: &str) -> Vec<String> {
    let old = prose_words(original);
    let new = prose_words(new);
    let windows: BTreeSet<&[String]> = old.windows(COPIED_RUN).collect();
    let mut runs = Vec::new();
    let mut i = 0;
    while i + COPIED_RUN <= new.len() {
        if !windows.contains(&new[i..i + COPIED_RUN]) {
            i += 1;
            continue;
        }
        // Extend while the next window is also copied.
        let mut end = i + COPIED_RUN;
        while end < new.len() && windows.contains(&new[end + 1 - COPIED_RUN..=end]) {
            end += 1;
        }
        runs.push(new[i..end].join(" "));
        i = end;
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copied_run_is_reported_once_at_its_full_length() {
        let original = "one two three four five six seven eight nine ten";
        let new = "Zero one two three four five six seven eight nine, and more.";
        assert_eq!(
            shared_runs(original, new),
            vec!["one two three four five six seven eight nine"]
        );
        // Seven words in a row are a shared phrase, not a copy.
        assert!(shared_runs(original, "one two three four five six seven").is_empty());
    }
}
