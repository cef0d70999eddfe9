//! Run bundles: the envelope a participant submits, metadata plus one prediction per instance.
//!
//! A run bundle is one agent's run over a dataset, modelled on SWE-bench's submissions:
//! `metadata` (model, harness, memory setting, date, cost, scaffold version, notes, and the
//! dataset it ran on) and [`Prediction`]s keyed by the benchmark's instance id
//! ([`InstanceId`]; a RepoReuse instance is one turn of one chain, `<chain>/turn-<t>`, see
//! [`crate::reporeuse::bundle`]). Each prediction holds the files the agent left (paths
//! relative to the repository root) and its trajectory as its harness wrote it. Test results
//! are never part of a bundle: the server runs the hidden tests itself.
//!
//! This module holds what every benchmark's bundle shares: the metadata and its checks, the
//! size limits ([`BundleLimits`], checked while reading, so a hostile bundle costs at most
//! that much), the checks of entry names and file paths, the JSON Lines spelling
//! (`{"metadata": {...}}`, then one line per instance `{"instance_id": ..., "files": {...},
//! "trajectory": ...}`), and the content hash. A benchmark adds its directory layout and
//! the checks its instances need against each other and its dataset. Nothing is ever "last
//! one wins": an entry, instance or file given twice is refused, as are control characters
//! in paths and metadata fields over [`FIELD_CHARS`] (notes: [`NOTES_CHARS`]). Example:
//! ```
//! use wheelwright_core::reporeuse::bundle::{RepoReuseBundle, TurnId};
//! let jsonl = r#"{"metadata": {"model": "m", "harness": "h", "memory": "interface", "date": "2026-11-29", "dataset": {"name": "d", "version": "1"}}}
//! {"instance_id": "c/turn-1", "files": {"pkg/a.py": "def f():\n    return 1\n"}}"#;
//! let bundle = RepoReuseBundle::from_jsonl(jsonl).unwrap();
//! assert_eq!(bundle.predictions[&TurnId::new("c", 1)].files["pkg/a.py"], "def f():\n    return 1\n");
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::workspace::is_relative_down;

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

/// The limits of an upload to the server: a run of a few hundred turns with their
/// trajectories (the paper's runs are 375 turns, about 50 MB of JSON Lines), small enough
/// that a few uploads at once fit comfortably in memory. Each file counts, and in JSON Lines
/// each instance's line.
pub const LIMITS: BundleLimits = BundleLimits {
    entries: 20_000,
    file_bytes: 16 * 1024 * 1024,
    total_bytes: 256 * 1024 * 1024,
};

/// The largest upload as sent (the body of `POST /api/v1/runs`: a `.zip`, `.jsonl.gz` or
/// `.jsonl`), before [`LIMITS`] bound what it holds once decompressed. The submit page
/// checks both before it scores a bundle, and sends what is not compressed yet
/// gzip-compressed, so every bundle it scores is one the server takes (`docs/limits.md`).
/// The server holds a body whole while it reads it: this bounds that, and with its body
/// budget, how many uploads it holds at once.
pub const UPLOAD_BYTES: u64 = 96 * 1024 * 1024;

/// What one stored run may hold: its files and trajectories, as submitted (decompressed,
/// [`RunBundle::text_bytes`]), half of [`LIMITS`]' total (the command line scores more
/// without storing it): enough for 3,000 turns of 40 KiB each. The server refuses more
/// before scoring; the submit page, before it scores.
pub const STORED_TEXT_BYTES: u64 = 128 * 1024 * 1024;

/// What one stored run may take once deflated (the server's disk), a quarter of
/// [`STORED_TEXT_BYTES`]. Only the server can tell exactly (it deflates each text in
/// parts); the page does not check it.
pub const STORED_DEFLATED_BYTES: u64 = 32 * 1024 * 1024;

/// How to make a run over the upload limits fit: what the submit page and the server say
/// beside a refusal.
pub const SPLIT_HINT: &str = "split the run into bundles of whole chains (each bundle's metadata.json the same, each chain's turns in one bundle) and submit each, or score it whole with `wheelwright score`, which reads up to 1 GiB";

/// The limits of the command line, which reads its user's own bundles: a whole paper's
/// 3,000 turns with trajectories (about 400 MB) and twice that, still bounded so that a zip
/// bomb stops at 1 GiB.
pub const COMMAND_LINE_LIMITS: BundleLimits = BundleLimits {
    entries: 200_000,
    file_bytes: 64 * 1024 * 1024,
    total_bytes: 1024 * 1024 * 1024,
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

impl Metadata {
    /// Refuses fields that are empty, too long or hold control characters (one-line fields:
    /// any; `notes`: any but line breaks and tabs), a date that is not `YYYY-MM-DD`, and a
    /// negative or non-finite cost.
    pub fn check(&self) -> Result<(), BundleError> {
        let m = self;
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
        Ok(())
    }
}

/// What the agent left for one instance (in RepoReuse, one turn).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prediction {
    /// Files written or changed, by path relative to the repository root.
    pub files: BTreeMap<String, String>,
    /// The trajectory's text as the harness wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trajectory: Option<String>,
}

/// A benchmark's instance id, as bundles spell it and as predictions are keyed.
pub trait InstanceId: Clone + Ord + std::fmt::Display + Sized {
    /// How an id is written, for messages (`<chain>/turn-<t>`).
    const FORM: &'static str;
    /// What one instance is called in messages (`turn`).
    const NOUN: &'static str;
    /// How to add an instance to a bundle that has none, for messages.
    const ADD: &'static str;
    /// The id `text` spells, if it spells one.
    fn parse(text: &str) -> Option<Self>;
    /// The id's key in the content hash, sorted as the ids are.
    fn hash_key(&self) -> String;
    /// The instance as a (group, step) pair, the shape every benchmark's runs are stored
    /// and tested in: a RepoReuse turn is (chain, turn); a ReCUBE instance is a group of
    /// one step, (id, 1).
    fn slot(&self) -> (&str, usize);
}

/// A run bundle: metadata and, per instance, what the agent left.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunBundle<Id: InstanceId> {
    pub metadata: Metadata,
    pub predictions: BTreeMap<Id, Prediction>,
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
    #[error(
        "the bundle is {size} bytes as sent (compressed), larger than the upload limit of {limit} bytes; {}",
        SPLIT_HINT
    )]
    UploadTooLarge { size: u64, limit: u64 },
    #[error(
        "the run's files and trajectories are {size} bytes, over the {limit} bytes a stored run may hold; {}",
        SPLIT_HINT
    )]
    StoredTooLarge { size: u64, limit: u64 },
    #[error(
        "line {line} is longer than {limit} bytes once decompressed; one instance's line (its files and trajectory) may hold at most {limit} bytes"
    )]
    LineTooLong { line: usize, limit: u64 },
    /// `hint` says how the benchmark's bundles list their instances.
    #[error("the bundle has no {noun}s: {hint}")]
    Empty {
        noun: &'static str,
        hint: &'static str,
    },
    /// A JSON Lines line (`entry` names the text and the line) that is not UTF-8: a host
    /// that does not know what it was given (an upload) can then say so instead.
    #[error("{entry}: is not UTF-8 text; a .jsonl bundle is JSON Lines (see docs/formats.md)")]
    LineNotUtf8 { entry: String },
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

/// The metadata of JSON Lines text (its first non-blank line, checked) and an iterator over
/// its instances, each parsed from its line as it is reached: `(line number, id,
/// prediction)`. Blank lines are skipped. The iterator does not know the instances seen
/// before: refusing one given twice ([`appears_twice`]) is the caller's.
pub(crate) fn jsonl_instances<Id: InstanceId, S: AsRef<str>>(
    lines: impl IntoIterator<Item = Result<(usize, S), BundleError>>,
) -> Result<(Metadata, impl Iterator<Item = LineInstance<Id>>), BundleError> {
    let mut lines = lines.into_iter().filter(|line| {
        line.as_ref()
            .map_or(true, |(_, text)| !text.as_ref().trim().is_empty())
    });
    let (_, first) = lines.next().ok_or(BundleError::NoMetadata)??;
    let metadata = serde_json::from_str::<MetadataLine>(first.as_ref())
        .map_err(|e| {
            BundleError::entry(
                "line 1",
                format!("must be {{\"metadata\": {{...}}}} with the run's metadata: {e}"),
            )
        })?
        .metadata;
    metadata.check()?;
    let instances = lines.map(|line| {
        let (number, line) = line?;
        let (id, prediction) = instance_line(number, line.as_ref())?;
        Ok((number, id, prediction))
    });
    Ok((metadata, instances))
}

/// An instance of JSON Lines as [`jsonl_instances`] gives it: its line number, id and
/// prediction, or why its line was refused.
pub(crate) type LineInstance<Id> = Result<(usize, Id, Prediction), BundleError>;

/// The id and prediction of the instance on line `number` of JSON Lines.
fn instance_line<Id: InstanceId>(
    number: usize,
    line: &str,
) -> Result<(Id, Prediction), BundleError> {
    let where_ = format!("line {number}");
    let instance: Instance = serde_json::from_str(line).map_err(|e| {
        BundleError::entry(
            &where_,
            format!("is not an instance {{\"instance_id\", \"files\", \"trajectory\"}}: {e}"),
        )
    })?;
    let key = Id::parse(&instance.instance_id).ok_or_else(|| {
        BundleError::entry(
            &where_,
            format!("instance_id {:?} is not {}", instance.instance_id, Id::FORM),
        )
    })?;
    for path in instance.files.keys() {
        check_file_path(&where_, path)?;
    }
    // A string holds the trajectory's text; any other value is the text itself.
    let trajectory = match instance.trajectory {
        None => None,
        Some(raw) if raw.get().starts_with('"') => {
            Some(serde_json::from_str::<String>(raw.get()).map_err(|e| {
                BundleError::entry(&where_, format!("\"trajectory\" is not a string: {e}"))
            })?)
        }
        Some(raw) => Some(String::from(Box::<str>::from(raw))),
    };
    let prediction = Prediction {
        files: instance.files,
        trajectory,
    };
    Ok((key, prediction))
}

/// The error for an instance given a second time, on line `number`.
pub(crate) fn appears_twice<Id: InstanceId>(number: usize, id: &Id) -> BundleError {
    BundleError::entry(
        format!("line {number}"),
        format!(
            "instance {:?} appears twice; give each {} one line",
            id.to_string(),
            Id::NOUN
        ),
    )
}

/// A JSON Lines instance.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Instance {
    instance_id: String,
    #[serde(default, deserialize_with = "unique_files")]
    files: BTreeMap<String, String>,
    /// Kept as the text it was sent as: the scorer parses it, once.
    #[serde(default)]
    trajectory: Option<Box<serde_json::value::RawValue>>,
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

/// Refuses a run made on another dataset (name and version) than `name` `version`.
pub(crate) fn check_dataset(
    metadata: &Metadata,
    name: &str,
    version: &str,
) -> Result<(), BundleError> {
    let got = &metadata.dataset;
    if got.name != name || got.version != version {
        return Err(BundleError::entry(
            "metadata",
            format!(
                "the run was made on dataset {} {}, not {name} {version}; score it against the dataset it names",
                got.name, got.version
            ),
        ));
    }
    Ok(())
}

pub(crate) fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && s != "."
        && s != ".."
}

/// Longest file path a bundle may name, in bytes.
pub const PATH_BYTES: usize = 512;

pub(crate) fn check_file_path(entry: &str, path: &str) -> Result<(), BundleError> {
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
pub(crate) fn check_entry_name(entry: &str) -> Result<(), BundleError> {
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

pub(crate) fn text(entry: &str, bytes: Vec<u8>) -> Result<String, BundleError> {
    String::from_utf8(bytes).map_err(|_| {
        BundleError::entry(
            entry,
            "is not UTF-8 text; the scorer reads Python sources and JSON trajectories only",
        )
    })
}

impl<Id: InstanceId> RunBundle<Id> {
    /// Bytes of all its files and trajectories, as submitted: what a stored run may hold at
    /// most [`STORED_TEXT_BYTES`] of.
    pub fn text_bytes(&self) -> u64 {
        self.predictions
            .values()
            .flat_map(|t| t.files.values().chain(&t.trajectory))
            .map(|text| text.len() as u64)
            .sum()
    }

    /// Refuses a bundle whose texts are over [`STORED_TEXT_BYTES`]: the server would not
    /// store it.
    pub fn check_storable(&self) -> Result<(), BundleError> {
        let size = self.text_bytes();
        if size > STORED_TEXT_BYTES {
            return Err(BundleError::StoredTooLarge {
                size,
                limit: STORED_TEXT_BYTES,
            });
        }
        Ok(())
    }

    /// Reads a bundle from JSON Lines text (see the module documentation), with the line
    /// each instance was given on; the benchmark checks its instances against each other.
    ///
    /// `lines` are the text's lines with their 1-based numbers, as the host reads them (from
    /// memory, a file or a decompressor); each is parsed and dropped in turn, so the text is
    /// never held whole. A line the host could not read is its error.
    pub(crate) fn read_jsonl<S: AsRef<str>>(
        lines: impl IntoIterator<Item = Result<(usize, S), BundleError>>,
    ) -> Result<(Self, BTreeMap<Id, usize>), BundleError> {
        let (metadata, instances) = jsonl_instances::<Id, S>(lines)?;
        let mut predictions = BTreeMap::new();
        let mut line_of = BTreeMap::new();
        for instance in instances {
            let (number, key, prediction) = instance?;
            if predictions.contains_key(&key) {
                return Err(appears_twice(number, &key));
            }
            predictions.insert(key.clone(), prediction);
            line_of.insert(key, number);
        }
        let bundle = Self {
            metadata,
            predictions,
        };
        bundle.check_metadata()?;
        Ok((bundle, line_of))
    }

    pub(crate) fn check_metadata(&self) -> Result<(), BundleError> {
        self.metadata.check()?;
        if self.predictions.is_empty() {
            return Err(BundleError::Empty {
                noun: Id::NOUN,
                hint: Id::ADD,
            });
        }
        Ok(())
    }

    /// The bundle as JSON Lines, the spelling [`RunBundle::from_jsonl`] reads.
    pub fn to_jsonl(&self) -> String {
        self.jsonl_lines().collect()
    }

    /// [`RunBundle::to_jsonl`]'s text a line at a time (each with its `\n`), for a host
    /// that builds it in pieces.
    pub fn jsonl_lines(&self) -> impl Iterator<Item = String> + '_ {
        let metadata = serde_json::json!({ "metadata": self.metadata }).to_string();
        std::iter::once(metadata)
            .chain(self.predictions.iter().map(|(id, files)| {
                serde_json::json!({
                    "instance_id": id.to_string(),
                    "files": files.files,
                    "trajectory": files.trajectory,
                })
                .to_string()
            }))
            .map(|mut line| {
                line.push('\n');
                line
            })
    }

    /// SHA-256 over the bundle's canonical JSON: the same run in any spelling (directory,
    /// zip, JSON Lines) has the same hash.
    pub fn content_hash(&self) -> String {
        let canonical = serde_json::to_string(&CanonicalBundle::from(self)).unwrap_or_default();
        hex::encode(Sha256::digest(canonical.as_bytes()))
    }
}

/// The hashed form: predictions keyed by [`InstanceId::hash_key`] (the field is still called
/// `turns`, so that hashes stay what they were), and trajectories that are JSON in compact
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

impl<'a, Id: InstanceId> From<&'a RunBundle<Id>> for CanonicalBundle<'a> {
    fn from(bundle: &'a RunBundle<Id>) -> Self {
        let canonical_trajectory = |text: &String| {
            serde_json::from_str::<serde_json::Value>(text)
                .map_or_else(|_| text.clone(), |value| value.to_string())
        };
        Self {
            format: "wheelwright-run-bundle-1",
            metadata: &bundle.metadata,
            turns: bundle
                .predictions
                .iter()
                .map(|(id, files)| {
                    let canonical = CanonicalTurn {
                        files: &files.files,
                        trajectory: files.trajectory.as_ref().map(canonical_trajectory),
                    };
                    (id.hash_key(), canonical)
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
pub(crate) fn strip_common_folder(entries: &mut [(String, Vec<u8>)]) {
    if let Some(prefix) = common_folder(entries.iter().map(|(p, _)| p.as_str())) {
        for (path, _) in entries.iter_mut() {
            *path = path[prefix.len()..].to_owned();
        }
    }
}

/// The folder (`name/`) that every entry of `names` sits under, `metadata.json` among
/// them, when there is no `metadata.json` at the root: a bundle's entries are read
/// relative to it (see [`crate::reporeuse::bundle`]).
pub fn common_folder<'a>(names: impl Iterator<Item = &'a str> + Clone) -> Option<String> {
    if names.clone().any(|p| p == "metadata.json") {
        return None;
    }
    let (first, _) = names.clone().next()?.split_once('/')?;
    let prefix = format!("{first}/");
    let metadata = format!("{prefix}metadata.json");
    let mut all = names.clone();
    (names.clone().any(|p| p == metadata) && all.all(|p| p.starts_with(&prefix))).then_some(prefix)
}
