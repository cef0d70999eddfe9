//! `wheelwright view rewrite`: level 4 of SchrodingerRepo, functions of a repository rewritten by the user's model command into behaviour-preserving variants, kept only when the repository's own tests still pass in the sandbox, recorded in a view bundle and written out as a new repository.
//!
//! Core chooses the functions (those a golden patch touches, or a seeded draw), renders
//! the two stages' prompts and checks the answers ([`rewrites`]); this host asks the model
//! only for a prompt the bundle has no answer to, and judges what core proposes by the
//! tests: first all proposals together, and only when they break a test each one alone
//! (then the ones that pass alone together once more), so a suite runs twice in the usual
//! case. A function the bundle records as decided is replayed as it is, so running the
//! command again on its bundle writes the same repository without the model or the sandbox.
//!
//! The rewritten repository is the base of the other levels: `wheelwright view --repo OUT`
//! makes levels 2 and 3 of it, and a patch recovered from that view applies to OUT.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use serde::Serialize;
use wheelwright_core::hidden_tests::TestOutcome;
use wheelwright_core::schrodinger::restate::Prompt;
use wheelwright_core::schrodinger::rewrites::{
    Level4Record, Outcome, RewriteRecord, apply, regions, rewrite,
};
use wheelwright_core::schrodinger::validity::{Validity, validity};

use super::{Suite, read_or_new_bundle, read_tree, run_suite, write_bundle, write_file};
use crate::cli::groups::ProcessGroups;
use crate::cli::io::emit;
use crate::cli::model::Answers;

/// The largest golden patch read.
const MAX_PATCH: u64 = 16 << 20;
/// How many failing test ids a rejection names.
const NAMED: usize = 5;

/// What `view rewrite` is given.
pub(in crate::cli) struct Rewrite<'a> {
    pub(in crate::cli) repo: &'a Path,
    pub(in crate::cli) out: &'a Path,
    pub(in crate::cli) bundle: &'a Path,
    pub(in crate::cli) model: Option<&'a str>,
    pub(in crate::cli) timeout: Duration,
    pub(in crate::cli) patch: Option<&'a Path>,
    pub(in crate::cli) seed: u64,
    pub(in crate::cli) count: usize,
    pub(in crate::cli) suite: Suite<'a>,
    pub(in crate::cli) config: &'a crate::TestConfig,
    pub(in crate::cli) json: bool,
}

/// One function in the report.
#[derive(Serialize)]
struct Function {
    path: String,
    name: String,
    start_line: u32,
    end_line: u32,
    #[serde(flatten)]
    outcome: Outcome,
}

/// What `view rewrite` reports.
#[derive(Serialize)]
struct Rewritten {
    out: PathBuf,
    bundle: PathBuf,
    functions: Vec<Function>,
    accepted: usize,
    /// Prompts the model answered now, and prompts answered from the bundle.
    asked: usize,
    replayed: usize,
    /// Times the repository's test suite ran in the sandbox (original included).
    suite_runs: usize,
    /// Tests the suite ran on the original; none means the tests could not judge.
    tests: Option<usize>,
}

/// `wheelwright view rewrite --repo DIR --out DIR --bundle FILE [--model CMD] [--patch FILE]`.
pub(in crate::cli) fn run(args: &Rewrite<'_>, groups: &ProcessGroups) -> anyhow::Result<()> {
    if args.out.exists()
        && std::fs::read_dir(args.out)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        bail!(
            "{} exists and is not empty; give a new directory for the rewritten repository",
            args.out.display()
        );
    }
    if args.bundle.starts_with(args.out) {
        bail!(
            "the bundle {} would be inside the rewritten repository, where an agent could read the originals; put it elsewhere",
            args.bundle.display()
        );
    }
    let patch = args.patch.map(read_patch).transpose()?;
    let tree = read_tree(args.repo)?;
    let mut bundle = read_or_new_bundle(args.bundle)?;
    let recorded = bundle.rewrites.take();
    let chosen = regions(&tree.texts, patch.as_deref(), args.seed, args.count);
    if chosen.is_empty() {
        bail!(match patch {
            Some(_) => "the patch changes no function of the repository's non-test Python files; give the patch of this repository".to_owned(),
            None => format!("{} has no function to rewrite outside its tests", args.repo.display()),
        });
    }
    let mut answers = Answers::new(args.model, args.timeout, groups, args.bundle, args.json);
    let mut records = Vec::new();
    for region in &chosen {
        if let Some(decided) = recorded.as_ref().and_then(|r| r.decided(region)) {
            answers.replayed += decided.stages.len();
            records.push(decided.clone());
            continue;
        }
        let what = format!("{} ({})", region.name, region.path);
        let record = rewrite(region, |prompt: &Prompt| {
            let recorded = recorded.as_ref().and_then(|r| r.answer(prompt));
            answers.answer(recorded, prompt, &what)
        })?;
        records.push(record);
    }
    let mut judged = Judged::default();
    if records
        .iter()
        .any(|r| matches!(r.outcome, Outcome::Proposed { .. }))
    {
        judged = judge(args, &tree, &mut records)?;
    }
    let files = apply(&tree.texts, &records).map_err(|e| anyhow::anyhow!(e))?;
    std::fs::create_dir_all(args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    for (path, text) in &files {
        write_file(args.out, path, text.as_bytes())?;
    }
    for (path, bytes) in &tree.binaries {
        write_file(args.out, path, bytes)?;
    }
    bundle.rewrites = Some(Level4Record {
        patch,
        seed: args.seed,
        functions: records.clone(),
    });
    if !bundle.levels.contains(&4) {
        bundle.levels.push(4);
        bundle.levels.sort_unstable();
    }
    write_bundle(args.bundle, &bundle)?;
    let report = Rewritten {
        out: args.out.to_owned(),
        bundle: args.bundle.to_owned(),
        accepted: records
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Accepted { .. }))
            .count(),
        functions: records
            .into_iter()
            .map(|r| Function {
                path: r.region.path,
                name: r.region.name,
                start_line: r.region.start_line,
                end_line: r.region.end_line,
                outcome: r.outcome,
            })
            .collect(),
        asked: answers.asked,
        replayed: answers.replayed,
        suite_runs: judged.suite_runs,
        tests: judged.tests,
    };
    emit(args.json, &report, |w, r| {
        writeln!(
            w,
            "{} of {} functions rewritten; the repository is in {}, the record in {}",
            r.accepted,
            r.functions.len(),
            r.out.display(),
            r.bundle.display()
        )?;
        for f in &r.functions {
            let fate = match &f.outcome {
                Outcome::Accepted { .. } => "rewritten".to_owned(),
                Outcome::Proposed { .. } => "proposed".to_owned(),
                Outcome::Rejected { reason } => format!("kept: {reason}"),
            };
            writeln!(
                w,
                "  {}:{}-{} {}: {fate}",
                f.path, f.start_line, f.end_line, f.name
            )?;
        }
        Ok(())
    })
}

fn read_patch(path: &Path) -> anyhow::Result<String> {
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_PATCH + 1).read_to_string(&mut text))
        .with_context(|| format!("cannot read {} as UTF-8 text", path.display()))?;
    if text.len() as u64 > MAX_PATCH {
        bail!(
            "{} is over {} MiB; give the golden patch only",
            path.display(),
            MAX_PATCH >> 20
        );
    }
    Ok(text)
}

/// How the tests judged.
#[derive(Default)]
struct Judged {
    suite_runs: usize,
    tests: Option<usize>,
}

/// Why the tests refuse a set of rewrites, naming the first tests that decide it.
fn refusal(v: &Validity) -> String {
    let name = |what: &str, ids: &[String]| {
        (!ids.is_empty()).then(|| {
            let shown: Vec<&str> = ids.iter().take(NAMED).map(String::as_str).collect();
            let more = ids.len().saturating_sub(NAMED);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!("{what} {}{more}", shown.join(", "))
        })
    };
    let parts: Vec<String> = [
        name("it breaks", &v.broken),
        name("it makes pass", &v.fixed),
        name("it stops", &v.missing),
    ]
    .into_iter()
    .flatten()
    .collect();
    format!("the repository's tests judge it: {}", parts.join("; "))
}

/// Runs the suite on the original, then on the proposals, and turns each proposal into
/// accepted or rejected.
fn judge(
    args: &Rewrite<'_>,
    tree: &super::Tree,
    records: &mut [RewriteRecord],
) -> anyhow::Result<Judged> {
    let say = |what: &str| {
        if !args.json {
            eprintln!("{what}");
        }
    };
    say("building the test environment (once per set of requirements)");
    let requirements: Vec<&str> = args.suite.requirements.iter().map(String::as_str).collect();
    let env = wheelwright_sandbox::ensure_env(&args.config.env_root, &[], &requirements, |_| {})?;
    let sandbox = args
        .config
        .sandbox()
        .map_err(|e| anyhow::anyhow!("no sandbox: {e}"))?;
    let pythonpath = args.suite.pythonpath.join(":");
    let mut judged = Judged::default();
    let mut run =
        |texts: &BTreeMap<String, String>| -> anyhow::Result<BTreeMap<String, TestOutcome>> {
            judged.suite_runs += 1;
            let mut files: Vec<(String, Vec<u8>)> = texts
                .iter()
                .map(|(p, t)| (p.clone(), t.as_bytes().to_vec()))
                .collect();
            files.extend(tree.binaries.iter().map(|(p, b)| (p.clone(), b.clone())));
            run_suite(
                &*sandbox,
                &env,
                files,
                args.suite.tests,
                &pythonpath,
                args.config.turn_timeout,
            )
        };
    say("running the repository's tests on the original");
    let before = run(&tree.texts)?;
    if !before.values().any(|o| *o == TestOutcome::Passed) {
        bail!(
            "no test of {} passes on the original, so none can judge a rewrite; give the tests with --tests and their requirements with --requirement",
            args.repo.display()
        );
    }
    let mut try_set = |indices: &[usize], records: &[RewriteRecord]| -> anyhow::Result<Validity> {
        let set: Vec<&RewriteRecord> = indices.iter().map(|&i| &records[i]).collect();
        let texts = apply(&tree.texts, set).map_err(|e| anyhow::anyhow!(e))?;
        Ok(validity(&before, &run(&texts)?))
    };
    let proposed: Vec<usize> = (0..records.len())
        .filter(|&i| matches!(records[i].outcome, Outcome::Proposed { .. }))
        .collect();
    say(&format!(
        "running the repository's tests with the {} proposed rewrites",
        proposed.len()
    ));
    let together = try_set(&proposed, records)?;
    let mut accepted = Vec::new();
    if together.valid {
        accepted.clone_from(&proposed);
    } else if proposed.len() == 1 {
        reject(&mut records[proposed[0]], refusal(&together));
    } else {
        for &i in &proposed {
            say(&format!(
                "running the repository's tests with {} alone",
                records[i].region.name
            ));
            let alone = try_set(&[i], records)?;
            if alone.valid {
                accepted.push(i);
            } else {
                reject(&mut records[i], refusal(&alone));
            }
        }
        if accepted.len() > 1 {
            say("running the repository's tests with the rewrites that pass alone");
            let kept = try_set(&accepted, records)?;
            if !kept.valid {
                let why = format!(
                    "each of these rewrites alone keeps the tests, together they do not; {}",
                    refusal(&kept)
                );
                for &i in &accepted {
                    reject(&mut records[i], why.clone());
                }
                accepted.clear();
            }
        }
    }
    for i in accepted {
        if let Outcome::Proposed { code } = &records[i].outcome {
            records[i].outcome = Outcome::Accepted { code: code.clone() };
        }
    }
    judged.tests = Some(before.len());
    Ok(judged)
}

fn reject(record: &mut RewriteRecord, reason: String) {
    record.outcome = Outcome::Rejected { reason };
}
