//! `wheelwright dataset walk`: RepoReuse's pipeline, step 2, a guided walk over a repository's callable map that chooses one turn's evidence, asked of the user's model command and recorded, or replayed from the record.
//!
//! Core walks ([`walk`]): it renders each hop's prompt, judges each answer and keeps the
//! record; this host reads the inputs, asks the model command ([`Answers`], its process
//! group killed on Ctrl-C) and writes the record to `--out`. When `--out` already holds the
//! walk of the same chain and turn, its answers are replayed and no model is asked, so a
//! dataset's walks can be checked again from their records alone.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use serde::de::DeserializeOwned;
use wheelwright_core::reporeuse::callable_map::{CALLABLE_MAP_FORMAT, CallableMap};
use wheelwright_core::reporeuse::dataset::{ChainManifest, TurnManifest};
use wheelwright_core::reporeuse::walk::{WalkInput, WalkRecord, walk};
use wheelwright_core::template::Prompt;

use super::dataset_map::{MapSource, read_repository};
use super::groups::ProcessGroups;
use super::io::emit;
use super::model::Answers;

/// The largest input file read: a map of networkx is under 4 MiB.
const MAX_INPUT_BYTES: u64 = 64 << 20;

/// What `dataset walk` is given.
pub(super) struct Walk<'a> {
    /// The map `dataset map --out` wrote.
    pub(super) map: &'a Path,
    /// The repository the map was made of.
    pub(super) source: &'a MapSource,
    pub(super) python: &'a Path,
    pub(super) cache_dir: Option<PathBuf>,
    /// The chain's `chain.json`.
    pub(super) chain: &'a Path,
    pub(super) turn: usize,
    /// Where the earlier turns' manifests are (turn 2 on).
    pub(super) earlier: Option<&'a Path>,
    pub(super) seed: u64,
    pub(super) start: Option<&'a str>,
    pub(super) model: Option<&'a str>,
    pub(super) timeout: Duration,
    pub(super) out: &'a Path,
    pub(super) json: bool,
}

/// `wheelwright dataset walk`: the record to `out`, and on standard output the record as
/// JSON with `json`, else a summary.
pub(super) fn run(args: &Walk<'_>, groups: &ProcessGroups) -> anyhow::Result<()> {
    let map: CallableMap = read_json(args.map, "a callable map (wheelwright dataset map --out)")?;
    if map.format != CALLABLE_MAP_FORMAT {
        bail!(
            "{} is a callable map of format {}, not {CALLABLE_MAP_FORMAT}; make it again with wheelwright dataset map --out",
            args.map.display(),
            map.format
        );
    }
    let files = read_repository(args.source, args.python, args.cache_dir.clone())?;
    // A map of another repository (or version) would cut the wrong lines as source.
    if let Some(c) = map.callables.iter().find(|c| !files.contains_key(&c.path)) {
        bail!(
            "the map names {} (of {}), which the repository does not hold; give the map of this repository (wheelwright dataset map)",
            c.path,
            c.qualified_name
        );
    }
    let chain: ChainManifest =
        read_json(args.chain, "a chain.json (docs/formats.md, \"Dataset\")")?;
    let earlier = earlier_turns(args.earlier, args.turn)?;
    let recorded = recorded(args.out, &chain, args.turn)?;
    // Said even under --json (standard output stays the record): why no model is asked.
    if recorded.is_some() {
        eprintln!(
            "replaying the walk recorded in {} (no model is asked)",
            args.out.display()
        );
    }
    let input = WalkInput {
        map: &map,
        files: &files,
        chain: &chain,
        turn: args.turn,
        earlier: &earlier,
        seed: args.seed,
        start: args.start,
    };
    // The record names the model by its program only: its arguments may hold keys.
    let model = args
        .model
        .and_then(|m| m.split_whitespace().next())
        .unwrap_or_default();
    let mut answers = Answers::new(args.model, args.timeout, groups, args.out, args.json);
    let mut asked = 0;
    let record = walk(&input, model, recorded.as_ref(), |prompt: &Prompt| {
        asked += 1;
        let what = format!("turn {} of chain {} (prompt {asked})", args.turn, chain.id);
        answers.answer(None, prompt, &what)
    })?;
    if recorded.as_ref() != Some(&record) {
        let text = serde_json::to_string_pretty(&record)? + "\n";
        std::fs::write(args.out, text)
            .with_context(|| format!("cannot write {}", args.out.display()))?;
    }
    emit(args.json, &record, summary)
}

/// A JSON file read as `T` (`what` says what it should be).
fn read_json<T: DeserializeOwned>(path: &Path, what: &str) -> anyhow::Result<T> {
    let bytes = crate::bundle::read_regular(path, MAX_INPUT_BYTES)
        .with_context(|| format!("cannot read {}; give {what}", path.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("{} is not {what}", path.display()))
}

/// The manifests of turns 1 to `turn - 1` under `dir`: each `turn-<t>/turn.json` (a
/// dataset's chain directory) or else `turn-<t>.json`.
fn earlier_turns(dir: Option<&Path>, turn: usize) -> anyhow::Result<Vec<TurnManifest>> {
    if turn < 2 {
        return Ok(Vec::new());
    }
    let Some(dir) = dir else {
        bail!(
            "turn {turn} starts from the earlier turns' repository targets; give --earlier DIR, a chain's directory (turn-<t>/turn.json) or a directory of turn-<t>.json files"
        );
    };
    (1..turn)
        .map(|t| {
            let nested = dir.join(format!("turn-{t}")).join("turn.json");
            let path = if nested.is_file() {
                nested
            } else {
                dir.join(format!("turn-{t}.json"))
            };
            if !path.is_file() {
                bail!(
                    "{} holds neither turn-{t}/turn.json nor turn-{t}.json; give --earlier the directory of every earlier turn's manifest",
                    dir.display()
                );
            }
            read_json(&path, "a turn.json (docs/formats.md, \"Dataset\")")
        })
        .collect()
}

/// The record `out` holds for this chain and turn, if any; an error when it holds
/// something else (it is not overwritten).
fn recorded(out: &Path, chain: &ChainManifest, turn: usize) -> anyhow::Result<Option<WalkRecord>> {
    if !out.exists() {
        return Ok(None);
    }
    let record: WalkRecord = read_json(
        out,
        "a walk record (remove it, or give another --out, to walk again)",
    )?;
    if record.chain != chain.id || record.turn != turn {
        bail!(
            "{} holds the walk of chain {} turn {}, not of chain {} turn {}; give another --out",
            out.display(),
            record.chain,
            record.turn,
            chain.id,
            turn
        );
    }
    Ok(Some(record))
}

/// Where the walk started, what it kept and why.
fn summary(out: &mut impl Write, record: &WalkRecord) -> std::io::Result<()> {
    writeln!(
        out,
        "chain {} turn {}: {} hops from {}",
        record.chain,
        record.turn,
        record.hops.len(),
        record.start
    )?;
    if let Some(injected) = &record.injected {
        writeln!(out, "injected: {injected}")?;
    }
    writeln!(out, "evidence:")?;
    for e in &record.evidence {
        writeln!(out, "  {e}")?;
    }
    writeln!(out, "goal: {}", record.goal)
}
