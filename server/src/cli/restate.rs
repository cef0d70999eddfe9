//! `wheelwright view restate`: level 1 of SchrodingerRepo, a problem statement rewritten by the user's model command in two stages and recorded in a view bundle, or replayed from it.
//!
//! Core renders the prompts and checks the answers ([`restate`]); this host asks the model
//! ([`Model`]) only for a prompt the bundle has no answer to, so running the command again on
//! a bundle that records both stages gives the same statement without the model. The record
//! is written into the bundle (a new one, or one `wheelwright view` wrote, whose levels gain
//! 1); under level 2 the statement printed is translated into the view's names.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use serde::Serialize;
use wheelwright_core::schrodinger::restate::{Prompt, restate};
use wheelwright_core::schrodinger::translate::Translator;

use super::groups::ProcessGroups;
use super::io::emit;
use super::model::Answers;
use super::view::{read_or_new_bundle, write_bundle};

/// The largest problem statement read.
const MAX_STATEMENT: u64 = 1 << 20;

/// What `view restate` is given.
pub(super) struct Restate<'a> {
    pub(super) statement: &'a Path,
    pub(super) bundle: &'a Path,
    pub(super) model: Option<&'a str>,
    pub(super) timeout: Duration,
    pub(super) out: Option<&'a Path>,
    pub(super) json: bool,
}

/// What `view restate` reports.
#[derive(Serialize)]
struct Restated {
    /// The new statement, in the view's names under level 2.
    statement: String,
    diagnostics: Vec<String>,
    /// Prompts the model answered now, and prompts answered from the bundle.
    asked: usize,
    replayed: usize,
    bundle: PathBuf,
}

/// `wheelwright view restate --statement FILE --bundle FILE [--model CMD]`.
pub(super) fn run(args: &Restate<'_>, groups: &ProcessGroups) -> anyhow::Result<()> {
    let mut original = String::new();
    std::fs::File::open(args.statement)
        .and_then(|f| f.take(MAX_STATEMENT + 1).read_to_string(&mut original))
        .with_context(|| format!("cannot read {} as UTF-8 text", args.statement.display()))?;
    if original.len() as u64 > MAX_STATEMENT {
        bail!(
            "{} is over {} KiB; give a problem statement",
            args.statement.display(),
            MAX_STATEMENT >> 10
        );
    }
    let mut bundle = read_or_new_bundle(args.bundle)?;
    let recorded = bundle.statement.take();
    let mut answers = Answers::new(args.model, args.timeout, groups, args.bundle, args.json);
    let (record, restated) = restate(&original, |prompt: &Prompt| {
        let recorded = recorded.as_ref().and_then(|r| r.answer(prompt));
        answers.answer(recorded, prompt, "the statement")
    })?;
    // Under level 2 the view speaks in the view's names; the record keeps the original's.
    let statement = bundle.namespace.as_ref().map_or_else(
        || restated.statement.clone(),
        |m| Translator::of(m).observation(&restated.statement).text,
    );
    if answers.asked > 0 || recorded.as_ref() != Some(&record) {
        bundle.statement = Some(record);
        if !bundle.levels.contains(&1) {
            bundle.levels.push(1);
            bundle.levels.sort_unstable();
        }
        write_bundle(args.bundle, &bundle)?;
    }
    if let Some(out) = args.out {
        std::fs::write(out, format!("{statement}\n"))
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    let report = Restated {
        statement,
        diagnostics: restated.diagnostics,
        asked: answers.asked,
        replayed: answers.replayed,
        bundle: args.bundle.to_owned(),
    };
    if !args.json {
        for d in &report.diagnostics {
            eprintln!("warning: {d}");
        }
    }
    let print_statement = args.out.is_none();
    emit(args.json, &report, |w, r| {
        if print_statement {
            writeln!(w, "{}", r.statement)?;
        }
        Ok(())
    })
}
