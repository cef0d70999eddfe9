//! RepoReuse's run bundles: one prediction per turn of a chain, read from a directory, a zip or JSON Lines.
//!
//! A RepoReuse instance is one turn of one chain, [`TurnId`], spelled `<chain>/turn-<t>`. Its
//! bundle has the envelope of [`crate::bundle`] and three spellings, all read here from
//! memory (the hosts do the I/O):
//! - a directory or a `.zip` of it, given to [`RepoReuseBundle::from_files`] as (path, bytes):
//!   ```text
//!   metadata.json
//!   chains/<chain>/turn-<t>/files/<path>         e.g. files/solutions/road_audit/distances.py
//!   chains/<chain>/turn-<t>/trajectory.json      optional, or one `*.traj.json`
//!   ```
//!   A zip whose entries all sit under one top-level folder is read as that folder.
//! - JSON Lines, given to [`RepoReuseBundle::from_jsonl`]: the first line `{"metadata": {...}}`,
//!   then one line per turn `{"instance_id": "road-audit/turn-1", "files": {...},
//!   "trajectory": ...}` where the trajectory is its JSON value or its text.
//!
//! Turns of a chain build one workspace, so a path that is a file in one turn of a chain and
//! a directory in another is refused; [`RepoReuseBundle::check_against`] refuses chains and
//! turns the dataset does not have, and [`RepoReuseBundle::to_run`] makes the scorer's input.

use std::collections::BTreeMap;

use crate::bundle::{
    BundleError, DatasetRef, InstanceId, Metadata, Prediction, RunBundle, appears_twice,
    check_entry_name, check_file_path, is_name, jsonl_instances, strip_common_folder, text,
};
use crate::reporeuse::dataset::{Chain, RepoReuseDataset, Turn};
use crate::reporeuse::scoring::{ChainRun, Run, TurnRun};

/// One turn of one chain: RepoReuse's instance. Ordered by chain, then turn.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct TurnId {
    pub chain: String,
    /// 1-based.
    pub turn: usize,
}

impl TurnId {
    pub fn new(chain: impl Into<String>, turn: usize) -> Self {
        Self {
            chain: chain.into(),
            turn,
        }
    }
}

/// `<chain>/turn-<t>`, as bundles and the API spell it.
impl std::fmt::Display for TurnId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/turn-{}", self.chain, self.turn)
    }
}

impl InstanceId for TurnId {
    const FORM: &'static str = "<chain>/turn-<t>";
    const NOUN: &'static str = "turn";
    const ADD: &'static str = "add chains/<chain>/turn-<t>/ directories or instance lines";

    /// Parses `<chain>/turn-<t>` (t >= 1, written without leading zeros).
    fn parse(id: &str) -> Option<Self> {
        let (chain, turn) = id.split_once('/')?;
        let turn: usize = turn.strip_prefix("turn-")?.parse().ok()?;
        (is_name(chain) && turn >= 1 && turn.to_string() == id[chain.len() + 6..])
            .then(|| Self::new(chain, turn))
    }

    /// `<chain>/<turn as 6 digits>`: sorts as (chain, turn) does.
    fn hash_key(&self) -> String {
        format!("{}/{:06}", self.chain, self.turn)
    }

    fn slot(&self) -> (&str, usize) {
        (&self.chain, self.turn)
    }
}

/// A RepoReuse run bundle: predictions keyed by turn.
pub type RepoReuseBundle = RunBundle<TurnId>;

impl RunBundle<TurnId> {
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
        let mut predictions: BTreeMap<TurnId, Prediction> = BTreeMap::new();
        let mut seen = std::collections::BTreeSet::new();
        for (entry, bytes) in entries {
            check_entry_name(&entry)?;
            if !seen.insert(entry.clone()) {
                return Err(BundleError::entry(
                    &entry,
                    "appears twice in the bundle; keep one copy of each entry",
                ));
            }
            match read_entry(&entry, bytes)? {
                Entry::Metadata(read) => metadata = Some(read),
                Entry::Ignored => {}
                Entry::Turn(key, part) => {
                    part.add_to(&entry, predictions.entry(key).or_default())?
                }
            }
        }
        let metadata = metadata.ok_or(BundleError::NoMetadata)?;
        let bundle = Self {
            metadata,
            predictions,
        };
        bundle.check_metadata()?;
        bundle.check_paths(|id, path| format!("chains/{id}/files/{path}"))?;
        Ok(bundle)
    }

    /// The bundle in its directory spelling (`metadata.json`,
    /// `chains/<chain>/turn-<t>/files/<path>`, `chains/<chain>/turn-<t>/trajectory.json`),
    /// as (path, bytes) in path order: what [`RepoReuseBundle::from_files`] reads back to
    /// the same bundle, and what a harness writes to disk or into a zip.
    pub fn to_files(&self) -> Vec<(String, Vec<u8>)> {
        let metadata = serde_json::to_vec_pretty(&self.metadata).unwrap_or_default();
        let mut files = vec![("metadata.json".to_owned(), metadata)];
        for (TurnId { chain, turn }, prediction) in &self.predictions {
            let dir = format!("chains/{chain}/turn-{turn}");
            for (path, text) in &prediction.files {
                files.push((format!("{dir}/files/{path}"), text.clone().into_bytes()));
            }
            if let Some(trajectory) = &prediction.trajectory {
                files.push((
                    format!("{dir}/trajectory.json"),
                    trajectory.clone().into_bytes(),
                ));
            }
        }
        files.sort();
        files
    }

    /// Reads a bundle from its bytes as they were uploaded or dropped: a zip archive, or
    /// JSON Lines plain or gzip-compressed, told by their first bytes
    /// ([`crate::archive::Packing`]), within `limits`. `source` names the bytes in messages
    /// (`the upload`, a file's name).
    pub fn from_bytes(
        bytes: &[u8],
        source: &str,
        limits: crate::bundle::BundleLimits,
    ) -> Result<Self, BundleError> {
        let Some(lines) = crate::archive::jsonl_lines_of(bytes, source, limits) else {
            let entries = crate::archive::zip_entries(std::io::Cursor::new(bytes), limits)?;
            return Self::from_files(entries);
        };
        Self::from_jsonl_lines(lines).map_err(|e| match e {
            BundleError::LineNotUtf8 { .. } => BundleError::entry(
                source,
                "is neither a zip archive nor UTF-8 JSON Lines; give a run bundle as .zip, .jsonl or .jsonl.gz",
            ),
            other => other,
        })
    }

    /// Reads a bundle from JSON Lines text (see [`crate::bundle`]).
    pub fn from_jsonl(text: &str) -> Result<Self, BundleError> {
        Self::from_jsonl_lines(text.lines().enumerate().map(|(i, line)| Ok((i + 1, line))))
    }

    /// Reads a bundle from JSON Lines given line by line with their 1-based numbers, so a
    /// host can stream a large file or a decompressor without holding its text.
    pub fn from_jsonl_lines<S: AsRef<str>>(
        lines: impl IntoIterator<Item = Result<(usize, S), BundleError>>,
    ) -> Result<Self, BundleError> {
        let (bundle, line_of) = Self::read_jsonl(lines)?;
        bundle.check_paths(|id, path| {
            let line = line_of.get(id).copied().unwrap_or(0);
            format!("line {line} ({id}, file {path:?})")
        })?;
        Ok(bundle)
    }

    /// Reads a directory or zip bundle entry by entry, for a host that scores a run larger
    /// than it wants to hold: `entries` come in [`RepoReuseBundle::read_order`] (so a turn's
    /// entries, and a chain's turns, are next to each other), each counted against the
    /// limits by the host. Gives the checked metadata and the turns, read as they are reached; gather
    /// them with [`RepoReuseBundle::chains`].
    pub fn stream_files<I: Iterator<Item = Result<(String, Vec<u8>), BundleError>>>(
        mut entries: I,
    ) -> Result<(Metadata, FileTurns<I>), BundleError> {
        let metadata = match entries.next().transpose()? {
            Some((name, bytes)) if name == "metadata.json" => match read_entry(&name, bytes)? {
                Entry::Metadata(metadata) => metadata,
                _ => return Err(BundleError::NoMetadata),
            },
            _ => return Err(BundleError::NoMetadata),
        };
        metadata.check()?;
        let turns = FileTurns {
            entries,
            current: None,
            done: false,
        };
        Ok((metadata, turns))
    }

    /// The order [`RepoReuseBundle::stream_files`] wants a directory's or zip's entries in,
    /// as (position in `names`, name relative to the bundle's root, see
    /// [`crate::bundle::common_folder`]): `metadata.json` first, then by name, so that a
    /// turn's entries and a chain's turns come together.
    pub fn read_order<'a>(names: impl Iterator<Item = &'a str> + Clone) -> Vec<(usize, String)> {
        let root = crate::bundle::common_folder(names.clone()).unwrap_or_default();
        let mut order: Vec<(usize, String)> = names
            .enumerate()
            .map(|(at, name)| {
                (
                    at,
                    name.strip_prefix(root.as_str()).unwrap_or(name).to_owned(),
                )
            })
            .collect();
        order.sort_by(|(_, a), (_, b)| {
            (a != "metadata.json", a.as_str()).cmp(&(b != "metadata.json", b.as_str()))
        });
        order
    }

    /// Reads JSON Lines line by line ([`RepoReuseBundle::from_jsonl_lines`]'s input) for a
    /// host that scores a run larger than it wants to hold: the checked metadata and the
    /// turns, each parsed as its line is reached; gather them with [`RepoReuseBundle::chains`].
    pub fn stream_jsonl<S: AsRef<str>>(
        lines: impl IntoIterator<Item = Result<(usize, S), BundleError>>,
    ) -> Result<
        (
            Metadata,
            impl Iterator<Item = Result<StreamedTurn, BundleError>>,
        ),
        BundleError,
    > {
        let (metadata, instances) = jsonl_instances::<TurnId, S>(lines)?;
        let turns = instances.map(|i| i.map(|(line, id, prediction)| (id, prediction, Some(line))));
        Ok((metadata, turns))
    }

    /// A streamed bundle's `turns` gathered into the scorer's chains of `dataset`: each chain
    /// is given as soon as it has every turn the dataset gives it (a bundle whose turns come
    /// chain by chain, as directories, zips and most JSON Lines do, is then held a chain at a
    /// time), the others once the stream ends. Each turn and chain is checked as
    /// [`RepoReuseBundle::check_against`] and the readers check a whole bundle (the metadata,
    /// checked by the stream's constructor, is the host's to check with [`check_made_on`]),
    /// and the chains are what [`RepoReuseBundle::into_run`] would give. The first error
    /// ends the stream.
    pub fn chains<I: Iterator<Item = Result<StreamedTurn, BundleError>>>(
        dataset: &RepoReuseDataset,
        turns: I,
    ) -> ChainStream<'_, I> {
        ChainStream {
            dataset,
            turns,
            pending: BTreeMap::new(),
            given: std::collections::BTreeSet::new(),
            any: false,
            ended: false,
            failed: false,
        }
    }

    /// Refuses a path that is a file in one turn of a chain and a directory in another
    /// (or the same) turn: the workspace of turn t holds the files of turns 1..t, where
    /// `x` and `x/y.py` cannot both exist. `entry` names the offending file for the
    /// message. Paths are compared exactly: `A.py` and `a.py` are two files, as on the
    /// Linux machines that score and test them.
    fn check_paths(&self, entry: impl Fn(&TurnId, &str) -> String) -> Result<(), BundleError> {
        let mut chains: BTreeMap<&str, Vec<(usize, &Prediction)>> = BTreeMap::new();
        for (TurnId { chain, turn }, prediction) in &self.predictions {
            chains.entry(chain).or_default().push((*turn, prediction));
        }
        for (chain, turns) in chains {
            check_chain_paths(chain, &turns, |turn, path| {
                entry(&TurnId::new(chain, turn), path)
            })?;
        }
        Ok(())
    }

    /// Problems that make the bundle unusable with `dataset`: another dataset, a chain or
    /// turn the dataset does not have. Turns the bundle lacks are allowed (they are scored
    /// as missing submissions).
    pub fn check_against(&self, dataset: &RepoReuseDataset) -> Result<(), BundleError> {
        check_made_on(&self.metadata, dataset)?;
        for id in self.predictions.keys() {
            check_turn(dataset, id)?;
        }
        Ok(())
    }

    /// The scorer's input: per chain of `dataset`, in order, the file at each turn's
    /// required module path as the submission and the turn's other files beside it.
    /// Test results are left empty: they come from the server's own test runs.
    pub fn to_run(&self, dataset: &RepoReuseDataset) -> Run {
        run_of(dataset, &last_turns(&self.predictions), |id| {
            self.predictions.get(id).cloned()
        })
    }

    /// [`RepoReuseBundle::to_run`] that moves the bundle's texts into the run instead of
    /// copying them, for a host that needs the bundle no more (`wheelwright test`): the
    /// run is then held once, not twice.
    pub fn into_run(self, dataset: &RepoReuseDataset) -> Run {
        let last = last_turns(&self.predictions);
        let mut predictions = self.predictions;
        run_of(dataset, &last, |id| predictions.remove(id))
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
        mut files: impl FnMut(&Turn) -> BTreeMap<String, String>,
    ) -> Self {
        let mut predictions = BTreeMap::new();
        for chain in &dataset.chains {
            for (i, turn) in chain.turns.iter().enumerate() {
                predictions.insert(
                    TurnId::new(chain.manifest.id.clone(), i + 1),
                    Prediction {
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
            predictions,
        }
    }
}

/// Refuses a run made on another dataset (name and version) than `dataset`.
pub fn check_made_on(metadata: &Metadata, dataset: &RepoReuseDataset) -> Result<(), BundleError> {
    crate::bundle::check_dataset(metadata, &dataset.manifest.name, &dataset.manifest.version)
}

/// Refuses a turn of a chain `dataset` does not have, or past the chain's last turn.
fn check_turn<'d>(dataset: &'d RepoReuseDataset, id: &TurnId) -> Result<&'d Chain, BundleError> {
    let TurnId { chain, turn } = id;
    let Some(spec) = dataset.chains.iter().find(|c| &c.manifest.id == chain) else {
        let known: Vec<&str> = dataset
            .chains
            .iter()
            .map(|c| c.manifest.id.as_str())
            .collect();
        return Err(BundleError::entry(
            id.to_string(),
            format!(
                "the dataset has no chain {chain:?}; its chains are {}",
                known.join(", ")
            ),
        ));
    };
    if *turn > spec.turns.len() {
        return Err(BundleError::entry(
            id.to_string(),
            format!(
                "chain {chain:?} has {} turns in the dataset",
                spec.turns.len()
            ),
        ));
    }
    Ok(spec)
}

/// [`RepoReuseBundle::check_paths`] for the `turns` of one chain, sorted by turn; `entry`
/// names a turn's file for the message.
fn check_chain_paths(
    chain: &str,
    turns: &[(usize, &Prediction)],
    entry: impl Fn(usize, &str) -> String,
) -> Result<(), BundleError> {
    let mut first: BTreeMap<&str, usize> = BTreeMap::new();
    for (turn, prediction) in turns {
        for path in prediction.files.keys() {
            first.entry(path.as_str()).or_insert(*turn);
        }
    }
    for (turn, prediction) in turns {
        for path in prediction.files.keys() {
            let parents = path.match_indices('/').map(|(at, _)| &path[..at]);
            for parent in parents {
                if let Some(other) = first.get(parent) {
                    let where_ = if other == turn {
                        "this turn".to_owned()
                    } else {
                        format!("turn {other} of chain {chain}")
                    };
                    return Err(BundleError::entry(
                        entry(*turn, path),
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

/// A turn of a streamed bundle: its id, its prediction and, in JSON Lines, its line.
pub type StreamedTurn = (TurnId, Prediction, Option<usize>);

/// A whole bundle gathered from a stream's turns ([`RepoReuseBundle::stream_jsonl`],
/// [`RepoReuseBundle::stream_files`]) one at a time, for a host that hands control back
/// between turns (the browser, which must keep drawing while it reads a large bundle): the
/// bundle, and every error, are what [`RepoReuseBundle::from_jsonl_lines`] and
/// [`RepoReuseBundle::from_files`] give for the same input.
pub struct Gathered {
    metadata: Metadata,
    predictions: BTreeMap<TurnId, Prediction>,
    /// The JSON Lines line of each turn, for messages.
    line_of: BTreeMap<TurnId, usize>,
}

impl Gathered {
    /// Starts with the stream's checked metadata.
    pub fn new(metadata: Metadata) -> Self {
        Self {
            metadata,
            predictions: BTreeMap::new(),
            line_of: BTreeMap::new(),
        }
    }

    /// Keeps one turn; a turn given twice is refused.
    pub fn add(&mut self, (id, prediction, line): StreamedTurn) -> Result<(), BundleError> {
        if self.predictions.contains_key(&id) {
            return Err(match line {
                Some(number) => appears_twice(number, &id),
                None => BundleError::entry(
                    format!("chains/{id}/"),
                    "appears twice in the bundle; keep one copy of each entry",
                ),
            });
        }
        if let Some(line) = line {
            self.line_of.insert(id.clone(), line);
        }
        self.predictions.insert(id, prediction);
        Ok(())
    }

    /// The bundle, checked as a whole (not empty, each chain's paths).
    pub fn finish(self) -> Result<RepoReuseBundle, BundleError> {
        let bundle = RunBundle {
            metadata: self.metadata,
            predictions: self.predictions,
        };
        bundle.check_metadata()?;
        let line_of = self.line_of;
        bundle.check_paths(|id, path| match line_of.get(id) {
            Some(line) => format!("line {line} ({id}, file {path:?})"),
            None => format!("chains/{id}/files/{path}"),
        })?;
        Ok(bundle)
    }
}

/// The turns of a directory or zip bundle read entry by entry ([`RepoReuseBundle::stream_files`]).
pub struct FileTurns<I> {
    entries: I,
    /// The turn being gathered: its entries come next to each other.
    current: Option<(TurnId, Prediction)>,
    done: bool,
}

impl<I: Iterator<Item = Result<(String, Vec<u8>), BundleError>>> Iterator for FileTurns<I> {
    type Item = Result<StreamedTurn, BundleError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let Some(entry) = self.entries.next() else {
                self.done = true;
                break;
            };
            let (key, part, name) = match entry.and_then(|(name, bytes)| {
                if name.ends_with('/') {
                    return Ok(None);
                }
                match read_entry(&name, bytes)? {
                    Entry::Turn(key, part) => Ok(Some((key, part, name))),
                    Entry::Ignored => Ok(None),
                    Entry::Metadata(_) => Err(BundleError::entry(
                        name,
                        "appears twice in the bundle; keep one copy of each entry",
                    )),
                }
            }) {
                Ok(Some(turn)) => turn,
                Ok(None) => continue,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            let finished = match &self.current {
                Some((id, _)) if *id != key => self.current.take(),
                _ => None,
            };
            let (_, turn) = self
                .current
                .get_or_insert_with(|| (key, Prediction::default()));
            if let Err(e) = part.add_to(&name, turn) {
                self.done = true;
                return Some(Err(e));
            }
            if let Some((id, prediction)) = finished {
                return Some(Ok((id, prediction, None)));
            }
        }
        let (id, prediction) = self.current.take()?;
        Some(Ok((id, prediction, None)))
    }
}

/// A streamed bundle's turns gathered into the scorer's chains
/// ([`RepoReuseBundle::chains`]).
pub struct ChainStream<'d, I> {
    dataset: &'d RepoReuseDataset,
    turns: I,
    /// Turns of chains not complete yet, by chain and turn.
    pending: BTreeMap<String, BTreeMap<usize, (Prediction, Option<usize>)>>,
    /// Chains already given.
    given: std::collections::BTreeSet<String>,
    /// The stream held a turn.
    any: bool,
    /// `turns` has ended (the pending chains are given now), or failed.
    ended: bool,
    failed: bool,
}

impl<'d, I: Iterator<Item = Result<StreamedTurn, BundleError>>> ChainStream<'d, I> {
    /// Checks one turn against the dataset and the turns before it, and keeps it; gives its
    /// chain once the chain has every turn the dataset gives it.
    fn take(
        &mut self,
        (id, prediction, line): StreamedTurn,
    ) -> Result<Option<(String, ChainRun)>, BundleError> {
        let want = check_turn(self.dataset, &id)?.turns.len();
        let twice = || match line {
            Some(number) => appears_twice(number, &id),
            None => BundleError::entry(
                format!("chains/{id}/"),
                "appears twice in the bundle; keep one copy of each entry",
            ),
        };
        if self.given.contains(&id.chain) {
            return Err(twice());
        }
        let turns = self.pending.entry(id.chain.clone()).or_default();
        if turns.contains_key(&id.turn) {
            return Err(twice());
        }
        turns.insert(id.turn, (prediction, line));
        if turns.len() < want {
            return Ok(None);
        }
        self.finish(id.chain).map(Some)
    }

    /// The pending chain `chain` as the scorer's input, its paths checked.
    fn finish(&mut self, chain: String) -> Result<(String, ChainRun), BundleError> {
        let turns = self.pending.remove(&chain).unwrap_or_default();
        self.given.insert(chain.clone());
        let listed: Vec<(usize, &Prediction)> = turns.iter().map(|(t, (p, _))| (*t, p)).collect();
        check_chain_paths(&chain, &listed, |turn, path| {
            let id = TurnId::new(chain.as_str(), turn);
            match turns.get(&turn).and_then(|(_, line)| *line) {
                Some(line) => format!("line {line} ({id}, file {path:?})"),
                None => format!("chains/{id}/files/{path}"),
            }
        })?;
        let spec = self
            .dataset
            .chains
            .iter()
            .find(|c| c.manifest.id == chain)
            .expect("check_turn found the chain");
        let last = turns.keys().next_back().copied().unwrap_or(0);
        let mut turns = turns;
        let run = chain_run(spec, last, |t| turns.remove(&t).map(|(p, _)| p));
        Ok((chain, run))
    }
}

impl<'d, I: Iterator<Item = Result<StreamedTurn, BundleError>>> Iterator for ChainStream<'d, I> {
    type Item = Result<(String, ChainRun), BundleError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let result = loop {
            if !self.ended {
                match self.turns.next() {
                    Some(Ok(turn)) => {
                        self.any = true;
                        match self.take(turn) {
                            Ok(None) => continue,
                            Ok(Some(chain)) => break Ok(chain),
                            Err(e) => break Err(e),
                        }
                    }
                    Some(Err(e)) => break Err(e),
                    None => {
                        self.ended = true;
                        if !self.any {
                            break Err(BundleError::Empty {
                                noun: TurnId::NOUN,
                                hint: TurnId::ADD,
                            });
                        }
                    }
                }
            }
            let chain = self.pending.keys().next()?.clone();
            break self.finish(chain);
        };
        self.failed = result.is_err();
        Some(result)
    }
}

/// What one entry of a directory or zip bundle is.
enum Entry {
    Metadata(Metadata),
    /// `README.md`: for people, not read.
    Ignored,
    Turn(TurnId, TurnPart),
}

/// A part of a turn's prediction: one of its files, or its trajectory.
enum TurnPart {
    File { path: String, text: String },
    Trajectory(String),
}

impl TurnPart {
    /// Adds the part to `turn`, refusing a file it has already and a second trajectory;
    /// `entry` names the part in messages.
    fn add_to(self, entry: &str, turn: &mut Prediction) -> Result<(), BundleError> {
        match self {
            Self::File { path, text } => {
                if turn.files.contains_key(&path) {
                    return Err(BundleError::entry(
                        entry,
                        "appears twice in the bundle; keep one copy of each entry",
                    ));
                }
                turn.files.insert(path, text);
            }
            Self::Trajectory(text) => {
                if turn.trajectory.is_some() {
                    return Err(BundleError::entry(
                        entry,
                        "is a second trajectory for this turn; keep one trajectory file per turn",
                    ));
                }
                turn.trajectory = Some(text);
            }
        }
        Ok(())
    }
}

/// Reads one entry of a directory or zip bundle, checking its name and text.
fn read_entry(entry: &str, bytes: Vec<u8>) -> Result<Entry, BundleError> {
    check_entry_name(entry)?;
    if entry == "metadata.json" {
        let text = text(entry, bytes)?;
        return serde_json::from_str::<Metadata>(&text)
            .map(Entry::Metadata)
            .map_err(|e| BundleError::entry(entry, format!("is not valid bundle metadata: {e}")));
    }
    if entry == "README.md" {
        return Ok(Entry::Ignored);
    }
    let parts: Vec<&str> = entry.splitn(4, '/').collect();
    let key = match parts.as_slice() {
        ["chains", chain, turn, _] => {
            TurnId::parse(&format!("{chain}/{turn}")).ok_or_else(|| {
                BundleError::entry(
                    entry,
                    "is not under chains/<chain>/turn-<t>/ (t = 1, 2, ...)",
                )
            })?
        }
        _ => {
            return Err(BundleError::entry(
                entry,
                "is not part of a run bundle: expected metadata.json or chains/<chain>/turn-<t>/{files/...,trajectory.json}",
            ));
        }
    };
    let rest = parts[3];
    let part = if let Some(path) = rest.strip_prefix("files/") {
        check_file_path(entry, path)?;
        TurnPart::File {
            path: path.to_owned(),
            text: text(entry, bytes)?,
        }
    } else if rest == "trajectory.json" || (!rest.contains('/') && rest.ends_with(".traj.json")) {
        TurnPart::Trajectory(text(entry, bytes)?)
    } else {
        return Err(BundleError::entry(
            entry,
            "is not files/<path> or trajectory.json (or one *.traj.json) of its turn",
        ));
    };
    Ok(Entry::Turn(key, part))
}

/// The last turn the bundle gives for each chain.
fn last_turns(predictions: &BTreeMap<TurnId, Prediction>) -> BTreeMap<String, usize> {
    let mut last = BTreeMap::new();
    // Keys are sorted by chain, then turn: the last key of a chain has its last turn.
    for id in predictions.keys() {
        last.insert(id.chain.clone(), id.turn);
    }
    last
}

/// The scorer's input: per chain of `dataset` the bundle has (`last` turn given), turns
/// 1..last with the file at each turn's module path as the submission and the others
/// beside it; `take` gives a turn's prediction.
fn run_of(
    dataset: &RepoReuseDataset,
    last: &BTreeMap<String, usize>,
    mut take: impl FnMut(&TurnId) -> Option<Prediction>,
) -> Run {
    let mut chains = BTreeMap::new();
    for chain in &dataset.chains {
        let id = &chain.manifest.id;
        let Some(&last) = last.get(id) else {
            continue;
        };
        let run = chain_run(chain, last, |t| take(&TurnId::new(id.clone(), t)));
        chains.insert(id.clone(), run);
    }
    Run { chains }
}

/// The scorer's input for `chain`: turns 1..`last` (at most the chain's), `take` giving
/// each turn's prediction; the file at a turn's module path is its submission.
fn chain_run(
    chain: &Chain,
    last: usize,
    mut take: impl FnMut(usize) -> Option<Prediction>,
) -> ChainRun {
    let turns = (1..=last.min(chain.turns.len()))
        .map(|t| {
            let (mut files, trajectory) =
                take(t).map_or_else(Default::default, |g| (g.files, g.trajectory));
            let path = &chain.turns[t - 1].manifest.module_path;
            TurnRun {
                submission: files.remove(path),
                other_files: files,
                trajectory: trajectory.map(serde_json::Value::String),
                tests: None,
            }
        })
        .collect();
    ChainRun { turns }
}
