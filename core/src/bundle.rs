//! Run bundles: what a participant submits, read from files or JSON Lines and checked against a dataset.
//!
//! A run bundle is one agent's run over a dataset, modelled on SWE-bench's submissions:
//! `metadata` (model, harness, memory setting, date, cost, scaffold version, notes, and the
//! dataset it ran on) and predictions keyed by instance, where a RepoReuse instance is one
//! turn of one chain, `<chain>/turn-<t>`. Each prediction holds the files the agent left in
//! that turn (paths relative to the repository root) and its trajectory as its harness wrote
//! it. Test results are never part of a bundle: the server runs the hidden tests itself.
//!
//! The same bundle has three spellings, all read here from memory (the hosts do the I/O):
//! - a directory or a `.zip` of it, given to [`RunBundle::from_files`] as (path, bytes):
//!   ```text
//!   metadata.json
//!   chains/<chain>/turn-<t>/files/<path>         e.g. files/solutions/road_audit/distances.py
//!   chains/<chain>/turn-<t>/trajectory.json      optional, or one `*.traj.json`
//!   ```
//!   A zip whose entries all sit under one top-level folder is read as that folder.
//! - JSON Lines, given to [`RunBundle::from_jsonl`]: the first line `{"metadata": {...}}`,
//!   then one line per instance `{"instance_id": "road-audit/turn-1", "files": {...},
//!   "trajectory": ...}` where the trajectory is its JSON value or its text.
//!
//! Every limit in [`BundleLimits`] is checked while reading, so a hostile bundle costs at most
//! that much; every error names the entry to fix. Nothing is ever "last one wins": an
//! entry, instance or file given twice is refused, as are control characters in paths,
//! a path that is a file in one turn of a chain and a directory in another, and metadata
//! fields over [`FIELD_CHARS`] (notes: [`NOTES_CHARS`]) or with control characters. Example:
//! ```
//! use wheelwright_core::bundle::RunBundle;
//! let jsonl = r#"{"metadata": {"model": "m", "harness": "h", "memory": "interface", "date": "2026-11-29", "dataset": {"name": "d", "version": "1"}}}
//! {"instance_id": "c/turn-1", "files": {"pkg/a.py": "def f():\n    return 1\n"}}"#;
//! let bundle = RunBundle::from_jsonl(jsonl).unwrap();
//! assert_eq!(bundle.turns[&("c".to_owned(), 1)].files["pkg/a.py"], "def f():\n    return 1\n");
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::reporeuse::dataset::{RepoReuseDataset, is_relative_down};
use crate::reporeuse::scoring::{ChainRun, Run, TurnRun};

/// Size limits of a bundle, checked by every reader (directory, zip, JSON Lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BundleLimits {
    /// Entries (files) in the whole bundle.
    pub entries: usize,
    /// Bytes of one file once decompressed.
    pub file_bytes: u64,
    /// Bytes of all files once decompressed.
    pub total_bytes: u64,
}

/// The limits the server and the command line apply: enough for thousands of turns with
/// their trajectories, small enough that a bundle fits comfortably in memory.
pub const LIMITS: BundleLimits = BundleLimits {
    entries: 20_000,
    file_bytes: 16 * 1024 * 1024,
    total_bytes: 256 * 1024 * 1024,
};

/// The dataset a run was made on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetRef {
    pub name: String,
    pub version: String,
}

/// Who made the run and how (SWE-bench's `metadata`, for agents with memory settings).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    /// The model, as its provider names it (`claude-sonnet-4.5`).
    pub model: String,
    /// The agent scaffold (`mini-SWE-agent`, `OpenCode`).
    pub harness: String,
    /// What the agent kept between turns (the paper's settings: `interface`, `full`,
    /// `none`; any non-empty name is accepted).
    pub memory: String,
    /// When the run was made, `YYYY-MM-DD`.
    pub date: String,
    pub dataset: DatasetRef,
    /// What the run cost in US dollars, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The harness's version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaffold_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// What the agent left in one turn.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnFiles {
    /// Files written or changed in the turn, by path relative to the repository root.
    pub files: BTreeMap<String, String>,
    /// The trajectory's text as the harness wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trajectory: Option<String>,
}

/// A run bundle: metadata and, per (chain, turn), what the agent left.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunBundle {
    pub metadata: Metadata,
    /// By (chain id, 1-based turn).
    pub turns: BTreeMap<(String, usize), TurnFiles>,
}

/// Why a bundle was refused; each message says which entry to fix and how.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    #[error(
        "the bundle has no metadata.json at its root; add one (see docs/formats.md, \"Run bundle\")"
    )]
    NoMetadata,
    #[error("{entry}: {message}")]
    Entry { entry: String, message: String },
    #[error(
        "the bundle has more than {limit} entries; submit at most {limit} files (one per file the agent left, plus trajectories)"
    )]
    TooManyEntries { limit: usize },
    #[error("{entry} is {size} bytes once decompressed, over the limit of {limit} bytes per file")]
    FileTooLarge {
        entry: String,
        size: u64,
        limit: u64,
    },
    #[error(
        "the bundle holds more than {limit} bytes once decompressed; split the run or drop what the scorer does not read"
    )]
    TooLarge { limit: u64 },
    #[error("the bundle has no turns: add chains/<chain>/turn-<t>/ directories or instance lines")]
    Empty,
}

impl BundleError {
    pub fn entry(entry: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Entry {
            entry: entry.into(),
            message: message.into(),
        }
    }
}

/// Counts entries and bytes against [`BundleLimits`] while a bundle is read.
#[derive(Debug)]
pub struct Budget {
    limits: BundleLimits,
    entries: usize,
    bytes: u64,
}

impl Budget {
    pub fn new(limits: BundleLimits) -> Self {
        Self {
            limits,
            entries: 0,
            bytes: 0,
        }
    }

    /// Accounts for one entry of `size` bytes (decompressed), before it is read.
    pub fn take(&mut self, entry: &str, size: u64) -> Result<(), BundleError> {
        self.entries += 1;
        if self.entries > self.limits.entries {
            return Err(BundleError::TooManyEntries {
                limit: self.limits.entries,
            });
        }
        if size > self.limits.file_bytes {
            return Err(BundleError::FileTooLarge {
                entry: entry.to_owned(),
                size,
                limit: self.limits.file_bytes,
            });
        }
        self.bytes = self.bytes.saturating_add(size);
        if self.bytes > self.limits.total_bytes {
            return Err(BundleError::TooLarge {
                limit: self.limits.total_bytes,
            });
        }
        Ok(())
    }

    pub fn limits(&self) -> BundleLimits {
        self.limits
    }
}

/// A JSON Lines instance.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Instance {
    instance_id: String,
    #[serde(default, deserialize_with = "unique_files")]
    files: BTreeMap<String, String>,
    #[serde(default)]
    trajectory: Option<serde_json::Value>,
}

/// A `files` object that names each path once: JSON allows a key twice, and a map would
/// silently keep only the last, so a second copy of a file is refused instead.
fn unique_files<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<BTreeMap<String, String>, D::Error> {
    struct Files;
    impl<'de> serde::de::Visitor<'de> for Files {
        type Value = BTreeMap<String, String>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object of file path -> text")
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut files = BTreeMap::new();
            while let Some((path, text)) = map.next_entry::<String, String>()? {
                if files.contains_key(&path) {
                    return Err(serde::de::Error::custom(format!(
                        "\"files\" names {path:?} twice; give each file once"
                    )));
                }
                files.insert(path, text);
            }
            Ok(files)
        }
    }
    deserializer.deserialize_map(Files)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MetadataLine {
    metadata: Metadata,
}

/// Parses `<chain>/turn-<t>` into its parts.
pub fn parse_instance_id(id: &str) -> Option<(String, usize)> {
    let (chain, turn) = id.split_once('/')?;
    let turn: usize = turn.strip_prefix("turn-")?.parse().ok()?;
    (is_name(chain) && turn >= 1 && turn.to_string() == id[chain.len() + 6..])
        .then(|| (chain.to_owned(), turn))
}

/// The instance id of a chain's turn.
pub fn instance_id(chain: &str, turn: usize) -> String {
    format!("{chain}/turn-{turn}")
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && s != "."
        && s != ".."
}

/// Longest file path a bundle may name, in bytes.
pub const PATH_BYTES: usize = 512;

fn check_file_path(entry: &str, path: &str) -> Result<(), BundleError> {
    if path.chars().any(char::is_control) {
        return Err(BundleError::entry(
            entry,
            format!(
                "file path {path:?} contains a control character (a NUL, tab, newline, ...); name files with printable characters only"
            ),
        ));
    }
    if path.len() > PATH_BYTES || !is_relative_down(path) || path.ends_with('/') {
        return Err(BundleError::entry(
            entry,
            format!(
                "{path:?} is not a file path relative to the repository root (no leading /, no .. or backslashes, at most {PATH_BYTES} bytes)"
            ),
        ));
    }
    Ok(())
}

/// An entry name of a directory or zip bundle, checked before it is interpreted.
fn check_entry_name(entry: &str) -> Result<(), BundleError> {
    if entry.chars().any(char::is_control) {
        return Err(BundleError::entry(
            entry.escape_debug().to_string(),
            "contains a control character (a NUL, tab, newline, ...); name entries with printable characters only",
        ));
    }
    if !is_relative_down(entry) {
        return Err(BundleError::entry(
            entry,
            "is not a relative path inside the bundle; entries may not start with / or contain ..",
        ));
    }
    Ok(())
}

fn text(entry: &str, bytes: Vec<u8>) -> Result<String, BundleError> {
    String::from_utf8(bytes).map_err(|_| {
        BundleError::entry(
            entry,
            "is not UTF-8 text; the scorer reads Python sources and JSON trajectories only",
        )
    })
}

impl RunBundle {
    /// Reads a bundle from its files (a directory's or a zip's entries): paths use `/`.
    /// The caller has checked sizes with a [`Budget`]; paths are checked here.
    pub fn from_files(
        entries: impl IntoIterator<Item = (String, Vec<u8>)>,
    ) -> Result<Self, BundleError> {
        let mut entries: Vec<(String, Vec<u8>)> = entries
            .into_iter()
            .filter(|(path, _)| !path.ends_with('/'))
            .collect();
        strip_common_folder(&mut entries);
        let mut metadata = None;
        let mut turns: BTreeMap<(String, usize), TurnFiles> = BTreeMap::new();
        let mut seen = std::collections::BTreeSet::new();
        for (entry, bytes) in entries {
            check_entry_name(&entry)?;
            if !seen.insert(entry.clone()) {
                return Err(BundleError::entry(
                    &entry,
                    "appears twice in the bundle; keep one copy of each entry",
                ));
            }
            if entry == "metadata.json" {
                let text = text(&entry, bytes)?;
                metadata = Some(serde_json::from_str::<Metadata>(&text).map_err(|e| {
                    BundleError::entry(&entry, format!("is not valid bundle metadata: {e}"))
                })?);
                continue;
            }
            if entry == "README.md" {
                continue;
            }
            let parts: Vec<&str> = entry.splitn(4, '/').collect();
            let key = match parts.as_slice() {
                ["chains", chain, turn, _] => parse_instance_id(&format!("{chain}/{turn}"))
                    .ok_or_else(|| {
                        BundleError::entry(
                            &entry,
                            "is not under chains/<chain>/turn-<t>/ (t = 1, 2, ...)",
                        )
                    })?,
                _ => {
                    return Err(BundleError::entry(
                        &entry,
                        "is not part of a run bundle: expected metadata.json or chains/<chain>/turn-<t>/{files/...,trajectory.json}",
                    ));
                }
            };
            let rest = parts[3];
            let turn = turns.entry(key).or_default();
            if let Some(path) = rest.strip_prefix("files/") {
                check_file_path(&entry, path)?;
                turn.files.insert(path.to_owned(), text(&entry, bytes)?);
            } else if rest == "trajectory.json"
                || (!rest.contains('/') && rest.ends_with(".traj.json"))
            {
                if turn.trajectory.is_some() {
                    return Err(BundleError::entry(
                        &entry,
                        "is a second trajectory for this turn; keep one trajectory file per turn",
                    ));
                }
                turn.trajectory = Some(text(&entry, bytes)?);
            } else {
                return Err(BundleError::entry(
                    &entry,
                    "is not files/<path> or trajectory.json (or one *.traj.json) of its turn",
                ));
            }
        }
        let metadata = metadata.ok_or(BundleError::NoMetadata)?;
        let bundle = Self { metadata, turns };
        bundle.check_metadata()?;
        bundle
            .check_paths(|chain, turn, path| format!("chains/{chain}/turn-{turn}/files/{path}"))?;
        Ok(bundle)
    }

    /// Reads a bundle from JSON Lines text (see the module documentation).
    pub fn from_jsonl(text: &str) -> Result<Self, BundleError> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty());
        let (_, first) = lines.next().ok_or(BundleError::NoMetadata)?;
        let metadata = serde_json::from_str::<MetadataLine>(first)
            .map_err(|e| {
                BundleError::entry(
                    "line 1",
                    format!("must be {{\"metadata\": {{...}}}} with the run's metadata: {e}"),
                )
            })?
            .metadata;
        let mut turns = BTreeMap::new();
        let mut line_of = BTreeMap::new();
        for (i, line) in lines {
            let where_ = format!("line {}", i + 1);
            let instance: Instance = serde_json::from_str(line).map_err(|e| {
                BundleError::entry(
                    &where_,
                    format!(
                        "is not an instance {{\"instance_id\", \"files\", \"trajectory\"}}: {e}"
                    ),
                )
            })?;
            let key = parse_instance_id(&instance.instance_id).ok_or_else(|| {
                BundleError::entry(
                    &where_,
                    format!(
                        "instance_id {:?} is not <chain>/turn-<t>",
                        instance.instance_id
                    ),
                )
            })?;
            for path in instance.files.keys() {
                check_file_path(&where_, path)?;
            }
            let trajectory = match instance.trajectory {
                None | Some(serde_json::Value::Null) => None,
                Some(serde_json::Value::String(text)) => Some(text),
                Some(value) => Some(value.to_string()),
            };
            let turn = TurnFiles {
                files: instance.files,
                trajectory,
            };
            if turns.insert(key.clone(), turn).is_some() {
                return Err(BundleError::entry(
                    &where_,
                    format!(
                        "instance {:?} appears twice; give each turn one line",
                        instance.instance_id
                    ),
                ));
            }
            line_of.insert(key, i + 1);
        }
        let bundle = Self { metadata, turns };
        bundle.check_metadata()?;
        bundle.check_paths(|chain, turn, path| {
            let line = line_of.get(&(chain.to_owned(), turn)).copied().unwrap_or(0);
            format!("line {line} ({}, file {path:?})", instance_id(chain, turn))
        })?;
        Ok(bundle)
    }

    /// Refuses a path that is a file in one turn of a chain and a directory in another
    /// (or the same) turn: the workspace of turn t holds the files of turns 1..t, where
    /// `x` and `x/y.py` cannot both exist. `entry` names the offending file for the
    /// message. Paths are compared exactly: `A.py` and `a.py` are two files, as on the
    /// Linux machines that score and test them.
    fn check_paths(&self, entry: impl Fn(&str, usize, &str) -> String) -> Result<(), BundleError> {
        let mut chains: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
        for ((chain, turn), files) in &self.turns {
            let first = chains.entry(chain).or_default();
            for path in files.files.keys() {
                first.entry(path.as_str()).or_insert(*turn);
            }
        }
        for ((chain, turn), files) in &self.turns {
            let first = &chains[chain.as_str()];
            for path in files.files.keys() {
                let parents = path.match_indices('/').map(|(at, _)| &path[..at]);
                for parent in parents {
                    if let Some(other) = first.get(parent) {
                        let where_ = if other == turn {
                            "this turn".to_owned()
                        } else {
                            format!("turn {other} of chain {chain}")
                        };
                        return Err(BundleError::entry(
                            entry(chain, *turn, path),
                            format!(
                                "is inside {parent:?}, which {where_} leaves as a file; a path cannot be a file and a directory in one chain (the workspace of turn t holds turns 1..t)"
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn check_metadata(&self) -> Result<(), BundleError> {
        let m = &self.metadata;
        let bad = |message: String| Err(BundleError::entry("metadata", message));
        let one_line = [
            ("model", Some(&m.model)),
            ("harness", Some(&m.harness)),
            ("memory", Some(&m.memory)),
            ("dataset.name", Some(&m.dataset.name)),
            ("dataset.version", Some(&m.dataset.version)),
            ("scaffold_version", m.scaffold_version.as_ref()),
        ];
        for (field, value) in one_line {
            let Some(value) = value else { continue };
            if value.trim().is_empty() || value.chars().count() > FIELD_CHARS {
                return bad(format!("\"{field}\" must be 1-{FIELD_CHARS} characters"));
            }
            if let Some(c) = value
                .chars()
                .find(|c| c.is_control() || is_bidi_control(*c))
            {
                return bad(format!(
                    "\"{field}\" contains the control character U+{:04X}; write it on one line in printable characters",
                    u32::from(c)
                ));
            }
        }
        if let Some(notes) = &m.notes {
            if notes.chars().count() > NOTES_CHARS {
                return bad(format!(
                    "\"notes\" must be at most {NOTES_CHARS} characters"
                ));
            }
            if let Some(c) = notes
                .chars()
                .find(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
            {
                return bad(format!(
                    "\"notes\" contains the control character U+{:04X}; only line breaks and tabs are allowed",
                    u32::from(c)
                ));
            }
        }
        if !is_date(&m.date) {
            return bad(format!("\"date\" {:?} is not YYYY-MM-DD", m.date));
        }
        if let Some(cost) = m.cost_usd
            && !(cost.is_finite() && cost >= 0.0)
        {
            return bad(format!("\"cost_usd\" {cost} must be a non-negative number"));
        }
        if self.turns.is_empty() {
            return Err(BundleError::Empty);
        }
        Ok(())
    }

    /// Problems that make the bundle unusable with `dataset`: another dataset, a chain or
    /// turn the dataset does not have. Turns the bundle lacks are allowed (they are scored
    /// as missing submissions).
    pub fn check_against(&self, dataset: &RepoReuseDataset) -> Result<(), BundleError> {
        let want = &dataset.manifest;
        let got = &self.metadata.dataset;
        if got.name != want.name || got.version != want.version {
            return Err(BundleError::entry(
                "metadata",
                format!(
                    "the run was made on dataset {} {}, not {} {}; score it against the dataset it names",
                    got.name, got.version, want.name, want.version
                ),
            ));
        }
        for (chain, turn) in self.turns.keys() {
            let Some(spec) = dataset.chains.iter().find(|c| &c.manifest.id == chain) else {
                let known: Vec<&str> = dataset
                    .chains
                    .iter()
                    .map(|c| c.manifest.id.as_str())
                    .collect();
                return Err(BundleError::entry(
                    instance_id(chain, *turn),
                    format!(
                        "the dataset has no chain {chain:?}; its chains are {}",
                        known.join(", ")
                    ),
                ));
            };
            if *turn > spec.turns.len() {
                return Err(BundleError::entry(
                    instance_id(chain, *turn),
                    format!(
                        "chain {chain:?} has {} turns in the dataset",
                        spec.turns.len()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The scorer's input: per chain of `dataset`, in order, the file at each turn's
    /// required module path as the submission and the turn's other files beside it.
    /// Test results are left empty: they come from the server's own test runs.
    pub fn to_run(&self, dataset: &RepoReuseDataset) -> Run {
        let mut chains = BTreeMap::new();
        for chain in &dataset.chains {
            let id = &chain.manifest.id;
            if !self.turns.keys().any(|(c, _)| c == id) {
                continue;
            }
            let last = self
                .turns
                .keys()
                .filter(|(c, _)| c == id)
                .map(|(_, t)| *t)
                .max()
                .unwrap_or(0)
                .min(chain.turns.len());
            let turns = (1..=last)
                .map(|t| {
                    let given = self.turns.get(&(id.clone(), t));
                    let mut files = given.map(|g| g.files.clone()).unwrap_or_default();
                    let path = &chain.turns[t - 1].manifest.module_path;
                    TurnRun {
                        submission: files.remove(path),
                        other_files: files,
                        trajectory: given
                            .and_then(|g| g.trajectory.clone())
                            .map(serde_json::Value::String),
                        tests: None,
                    }
                })
                .collect();
            chains.insert(id.clone(), ChainRun { turns });
        }
        Run { chains }
    }

    /// The `reference` baseline: every turn submits its reference solution at its module
    /// path, as a run made by the dataset itself.
    pub fn reference(dataset: &RepoReuseDataset) -> Self {
        Self::baseline(dataset, "reference", |turn| {
            BTreeMap::from([(turn.manifest.module_path.clone(), turn.reference.clone())])
        })
    }

    /// The `empty` baseline: every turn leaves no file at all.
    pub fn empty(dataset: &RepoReuseDataset) -> Self {
        Self::baseline(dataset, "empty", |_| BTreeMap::new())
    }

    /// A baseline run named `name` whose turns leave the files `files` gives; labelled so
    /// it can never pass for an agent's run (the server stores it with origin `baseline`).
    pub fn baseline(
        dataset: &RepoReuseDataset,
        name: &str,
        mut files: impl FnMut(&crate::reporeuse::dataset::Turn) -> BTreeMap<String, String>,
    ) -> Self {
        let mut turns = BTreeMap::new();
        for chain in &dataset.chains {
            for (i, turn) in chain.turns.iter().enumerate() {
                turns.insert(
                    (chain.manifest.id.clone(), i + 1),
                    TurnFiles {
                        files: files(turn),
                        trajectory: None,
                    },
                );
            }
        }
        Self {
            metadata: Metadata {
                model: format!("{name} baseline"),
                harness: "baseline".to_owned(),
                memory: "none".to_owned(),
                date: "1970-01-01".to_owned(),
                dataset: DatasetRef {
                    name: dataset.manifest.name.clone(),
                    version: dataset.manifest.version.clone(),
                },
                cost_usd: None,
                scaffold_version: Some(crate::SCORER_VERSION.to_owned()),
                notes: Some(format!(
                    "Computed by Wheelwright {} from the dataset itself; not an agent's run.",
                    crate::SCORER_VERSION
                )),
            },
            turns,
        }
    }

    /// The bundle as JSON Lines, the spelling [`RunBundle::from_jsonl`] reads.
    pub fn to_jsonl(&self) -> String {
        let mut out = serde_json::json!({ "metadata": self.metadata }).to_string();
        out.push('\n');
        for ((chain, turn), files) in &self.turns {
            let line = serde_json::json!({
                "instance_id": instance_id(chain, *turn),
                "files": files.files,
                "trajectory": files.trajectory,
            });
            out.push_str(&line.to_string());
            out.push('\n');
        }
        out
    }

    /// SHA-256 over the bundle's canonical JSON: the same run in any spelling (directory,
    /// zip, JSON Lines) has the same hash.
    pub fn content_hash(&self) -> String {
        let canonical = serde_json::to_string(&CanonicalBundle::from(self)).unwrap_or_default();
        hex::encode(Sha256::digest(canonical.as_bytes()))
    }
}

/// The hashed form: turns keyed by instance id, and trajectories that are JSON in compact
/// form with sorted keys (a JSON Lines bundle holds them as values, a directory as text).
#[derive(Serialize)]
struct CanonicalBundle<'a> {
    format: &'static str,
    metadata: &'a Metadata,
    turns: BTreeMap<String, CanonicalTurn<'a>>,
}

#[derive(Serialize)]
struct CanonicalTurn<'a> {
    files: &'a BTreeMap<String, String>,
    trajectory: Option<String>,
}

impl<'a> From<&'a RunBundle> for CanonicalBundle<'a> {
    fn from(bundle: &'a RunBundle) -> Self {
        let canonical_trajectory = |text: &String| {
            serde_json::from_str::<serde_json::Value>(text)
                .map_or_else(|_| text.clone(), |value| value.to_string())
        };
        Self {
            format: "wheelwright-run-bundle-1",
            metadata: &bundle.metadata,
            turns: bundle
                .turns
                .iter()
                .map(|((chain, turn), files)| {
                    let canonical = CanonicalTurn {
                        files: &files.files,
                        trajectory: files.trajectory.as_ref().map(canonical_trajectory),
                    };
                    (format!("{chain}/{turn:06}"), canonical)
                })
                .collect(),
        }
    }
}

/// Longest one-line metadata field (model, harness, memory, dataset name and version,
/// scaffold version), in characters.
pub const FIELD_CHARS: usize = 200;
/// Longest `notes`, in characters.
pub const NOTES_CHARS: usize = 10_000;

/// Unicode's bidirectional embeddings, overrides and isolates: in a one-line name they
/// only serve to make it display as something else.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && (1..=12).contains(&s[5..7].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&s[8..10].parse::<u32>().unwrap_or(0))
}

/// A zip of a folder has every entry, `metadata.json` among them, under that folder: read
/// it as the folder.
fn strip_common_folder(entries: &mut [(String, Vec<u8>)]) {
    if entries.iter().any(|(p, _)| p == "metadata.json") {
        return;
    }
    let Some(first) = entries.first().and_then(|(p, _)| p.split_once('/')) else {
        return;
    };
    let prefix = format!("{}/", first.0);
    let metadata = format!("{prefix}metadata.json");
    if entries.iter().any(|(p, _)| *p == metadata)
        && entries.iter().all(|(p, _)| p.starts_with(&prefix))
    {
        for (path, _) in entries.iter_mut() {
            *path = path[prefix.len()..].to_owned();
        }
    }
}
