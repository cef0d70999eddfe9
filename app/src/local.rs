//! Scoring a run bundle in the browser, before (and whether or not) it is submitted.
//!
//! The bundle is read by core's own readers within the server's upload limits
//! ([`wheelwright_core::bundle::LIMITS`] and `UPLOAD_BYTES`, before scoring), checked against the dataset it names, and scored
//! by the same core functions the server calls, against the dataset's scoring kit
//! (`GET /api/v1/datasets/{name}/{version}/scoring`: the dataset without its hidden tests,
//! and its repository's files). Nothing is sent to the server but that request until the
//! user submits. The result is shown by the run and case views of stored runs
//! ([`LocalRun::detail`], [`LocalRun::case`]), from the turn rows and cases core makes the
//! same way the server makes them.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wheelwright_core::api::{
    CaseFiles, ChainTurns, RunDetail, RunSummary, ScoringKit, SourceFile, TurnDetail,
    TurnObservations, TurnTableRow,
};
use wheelwright_core::archive::{Packing, ZipEntries, jsonl_lines, jsonl_lines_of};
use wheelwright_core::budget::Cancel;
use wheelwright_core::bundle::{Budget, BundleError, LIMITS, UPLOAD_BYTES};
use wheelwright_core::reporeuse::bundle::{
    Gathered, RepoReuseBundle, StreamedTurn, TurnId, check_made_on,
};
use wheelwright_core::reporeuse::dataset::RepoReuseDataset;
use wheelwright_core::reporeuse::scoring::{Dataset, PreparedDataset, RunReport};

/// What the user gave: one file (a `.zip`, `.jsonl` or `.jsonl.gz`) or a directory's files.
pub(crate) enum Picked {
    File(web_sys::File),
    Directory(Vec<web_sys::File>),
}

/// What is sent when the user submits: the file as chosen when it is compressed already
/// (`.zip`, `.jsonl.gz`), else the bundle as gzip-compressed JSON Lines (the server reads
/// all the same way), built a line at a time. Either is within [`UPLOAD_BYTES`], checked
/// before scoring.
#[derive(Clone)]
pub(crate) enum Upload {
    File(web_sys::File),
    Gzip(web_sys::Blob),
}

impl Upload {
    /// The upload as a form body with the bundle in its `bundle` field.
    pub(crate) fn form(&self) -> Result<web_sys::FormData, String> {
        let form = web_sys::FormData::new().map_err(js_error)?;
        match self {
            Self::File(file) => form.append_with_blob_and_filename("bundle", file, &file.name()),
            Self::Gzip(blob) => form.append_with_blob_and_filename("bundle", blob, "run.jsonl.gz"),
        }
        .map_err(js_error)?;
        Ok(form)
    }
}

fn js_error(e: wasm_bindgen::JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

/// A file's path within the folder the user chose (`my-run/metadata.json`): the browser's
/// `webkitRelativePath`, which web-sys does not bind.
pub(crate) fn relative_path(file: &web_sys::File) -> String {
    js_sys::Reflect::get(file, &"webkitRelativePath".into())
        .ok()
        .and_then(|v| v.as_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| file.name())
}

/// The bytes of a file the user chose, read by the browser.
pub(crate) async fn bytes_of(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("{}: cannot be read ({})", file.name(), js_error(e)))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The most work done between two frames while reading a bundle, in milliseconds: past it
/// the page is handed back to the browser, so it keeps drawing (a frame over 200 ms is felt
/// as a freeze; a 209 MB bundle read whole froze the page for 1.6 s).
const SLICE_MS: f64 = 40.0;

/// How much of a chosen file is brought into the page at once: the browser reads the slice
/// off the page's thread, and copying it in takes a few milliseconds.
const FILE_SLICE_BYTES: f64 = 4.0 * 1024.0 * 1024.0;

/// Hands the page back to the browser (as the scorer does between chains,
/// [`next_frame`]) once [`SLICE_MS`] of work has passed since it last did.
pub(crate) struct Pacer {
    since: f64,
}

impl Pacer {
    pub(crate) fn new() -> Self {
        Self { since: now_ms() }
    }

    /// Yields for a frame if this slice of work is spent.
    pub(crate) async fn pace(&mut self) {
        if now_ms() - self.since >= SLICE_MS {
            next_frame().await;
            self.since = now_ms();
        }
    }
}

/// The bytes `from..to` of a file the user chose, read by the browser off the page's thread.
async fn slice_of(file: &web_sys::File, from: f64, to: f64) -> Result<Vec<u8>, String> {
    let cannot = |e| format!("{}: cannot be read ({})", file.name(), js_error(e));
    let slice = file.slice_with_f64_and_f64(from, to).map_err(cannot)?;
    let buffer = JsFuture::from(slice.array_buffer()).await.map_err(cannot)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The bytes of a file the user chose (`first`, its first slice, already read), brought
/// into the page a slice at a time (the file is never held whole outside the page's
/// memory), yielding between slices.
async fn bytes_in_slices(
    file: &web_sys::File,
    first: Vec<u8>,
    pacer: &mut Pacer,
) -> Result<Vec<u8>, String> {
    let size = file.size();
    // The caller has refused a file over the limits, so this is at most 256 MiB.
    let mut bytes = Vec::with_capacity(size as usize);
    bytes.extend_from_slice(&first);
    let mut at = first.len() as f64;
    while at < size {
        let end = (at + FILE_SLICE_BYTES).min(size);
        bytes.extend_from_slice(&slice_of(file, at, end).await?);
        at = end;
        pacer.pace().await;
    }
    Ok(bytes)
}

/// What of a plain JSON Lines file has been brought into the page and not yet read by
/// core's line reader ([`jsonl_lines`]), which reads it through a [`FeedReader`].
struct Feed {
    bytes: Vec<u8>,
    /// Where the reader is in `bytes`.
    at: usize,
    /// The whole file is in.
    ended: bool,
}

impl Feed {
    /// Whether what is unread holds a whole line with something on it: then the reader,
    /// which skips blank lines, reads the next instance without meeting the end of what has
    /// been brought in (which it would take for the end of the file). Also once the unread
    /// part is longer than a line may be: the reader then refuses the line itself.
    fn ready(&self) -> bool {
        let unread = &self.bytes[self.at..];
        if self.ended || unread.len() as u64 > LIMITS.file_bytes + 2 {
            return true;
        }
        let mut content = false;
        for &b in unread {
            if b == b'\n' {
                if content {
                    return true;
                }
            } else if !b.is_ascii_whitespace() {
                content = true;
            }
        }
        false
    }
}

/// Core's line reader's view of a [`Feed`]: the bytes brought in so far.
struct FeedReader(Rc<RefCell<Feed>>);

impl std::io::Read for FeedReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let mut feed = self.0.borrow_mut();
        let at = feed.at;
        let n = out.len().min(feed.bytes.len() - at);
        out[..n].copy_from_slice(&feed.bytes[at..at + n]);
        feed.at += n;
        Ok(n)
    }
}

/// Brings more of `file` into `feed` (from `next`, a slice at a time) until it is ready
/// for the next instance ([`Feed::ready`]); what has been read is let go of.
async fn top_up(feed: &RefCell<Feed>, file: &web_sys::File, next: &mut f64) -> Result<(), String> {
    while !feed.borrow().ready() {
        let end = (*next + FILE_SLICE_BYTES).min(file.size());
        let slice = slice_of(file, *next, end).await?;
        let mut feed = feed.borrow_mut();
        let at = feed.at;
        feed.bytes.drain(..at);
        feed.at = 0;
        feed.bytes.extend_from_slice(&slice);
        feed.ended = end >= file.size();
        *next = end;
    }
    Ok(())
}

/// `blob` gzip-compressed by the browser's own `CompressionStream` (native code, off the
/// page's thread: a 100 MB run takes a fraction of a second). Reached through `Reflect`:
/// web-sys binds it only under its unstable APIs.
async fn gzip(blob: &web_sys::Blob) -> Result<web_sys::Blob, String> {
    let constructor: js_sys::Function =
        js_sys::Reflect::get(&js_sys::global(), &"CompressionStream".into())
            .map_err(js_error)?
            .dyn_into()
            .map_err(|_| {
                "this browser cannot compress the bundle (it has no CompressionStream); compress it yourself and drop the .jsonl.gz or .zip".to_owned()
            })?;
    let pair = js_sys::Reflect::construct(&constructor, &js_sys::Array::of1(&"gzip".into()))
        .map_err(js_error)?;
    let compressed = blob.stream().pipe_through(pair.unchecked_ref());
    let response =
        web_sys::Response::new_with_opt_readable_stream(Some(&compressed)).map_err(js_error)?;
    let out = JsFuture::from(response.blob().map_err(js_error)?)
        .await
        .map_err(js_error)?;
    Ok(out.unchecked_into())
}

/// Refuses `size` bytes to send over [`UPLOAD_BYTES`], saying how to split the run.
fn sendable(size: f64) -> Result<(), String> {
    if size > UPLOAD_BYTES as f64 {
        return Err(BundleError::UploadTooLarge {
            size: size as u64,
            limit: UPLOAD_BYTES,
        }
        .to_string());
    }
    Ok(())
}

/// A plain JSON Lines file (`first`, its first slice, already read) read as core reads an
/// upload (the same bundle and the same errors), a line at a time as its slices come in:
/// the file's text is never held whole beside the bundle read from it.
async fn jsonl_in_slices(
    file: &web_sys::File,
    first: Vec<u8>,
    pacer: &mut Pacer,
) -> Result<RepoReuseBundle, String> {
    let source = file.name();
    let mut next = first.len() as f64;
    let feed = Rc::new(RefCell::new(Feed {
        ended: next >= file.size(),
        bytes: first,
        at: 0,
    }));
    let not_jsonl = |e| {
        match e {
        BundleError::LineNotUtf8 { .. } => BundleError::entry(
            &source,
            "is neither a zip archive nor UTF-8 JSON Lines; give a run bundle as .zip, .jsonl or .jsonl.gz",
        )
        .to_string(),
        other => other.to_string(),
    }
    };
    top_up(&feed, file, &mut next).await?;
    let reader = std::io::BufReader::new(FeedReader(Rc::clone(&feed)));
    let lines = jsonl_lines(reader, &source, LIMITS);
    let (metadata, mut turns) = RepoReuseBundle::stream_jsonl(lines).map_err(not_jsonl)?;
    let mut gathered = Gathered::new(metadata);
    loop {
        top_up(&feed, file, &mut next).await?;
        let Some(turn) = turns.next() else {
            break;
        };
        gathered.add(turn.map_err(not_jsonl)?).map_err(not_jsonl)?;
        pacer.pace().await;
    }
    gathered.finish().map_err(not_jsonl)
}

/// Gathers a streamed bundle's `turns` into the whole bundle a turn at a time, handing the
/// page back between slices of work.
async fn gather(
    metadata: wheelwright_core::bundle::Metadata,
    turns: impl Iterator<Item = Result<StreamedTurn, BundleError>>,
    pacer: &mut Pacer,
) -> Result<RepoReuseBundle, BundleError> {
    let mut gathered = Gathered::new(metadata);
    for turn in turns {
        gathered.add(turn?)?;
        pacer.pace().await;
    }
    gathered.finish()
}

/// A bundle file's bytes read as core reads an upload ([`RepoReuseBundle::from_bytes`]:
/// the same bundle and the same errors), but a turn at a time, handing the page back
/// between slices of work.
async fn bundle_of_bytes(
    bytes: &[u8],
    source: &str,
    pacer: &mut Pacer,
) -> Result<RepoReuseBundle, BundleError> {
    let Some(lines) = jsonl_lines_of(bytes, source, LIMITS) else {
        let mut zip = ZipEntries::open(std::io::Cursor::new(bytes), LIMITS)?;
        let mut listed: Vec<Option<(usize, String, u64)>> = std::mem::take(&mut zip.listed)
            .into_iter()
            .map(Some)
            .collect();
        let order =
            RepoReuseBundle::read_order(listed.iter().flatten().map(|(_, name, _)| name.as_str()));
        let entries = order.into_iter().map(|(at, name)| {
            let entry = listed[at].take().ok_or(BundleError::NoMetadata)?;
            zip.read(entry).map(|(_, bytes)| (name, bytes))
        });
        let (metadata, turns) = RepoReuseBundle::stream_files(entries)?;
        return gather(metadata, turns, pacer).await;
    };
    let not_jsonl = |e| match e {
        BundleError::LineNotUtf8 { .. } => BundleError::entry(
            source,
            "is neither a zip archive nor UTF-8 JSON Lines; give a run bundle as .zip, .jsonl or .jsonl.gz",
        ),
        other => other,
    };
    let (metadata, turns) = RepoReuseBundle::stream_jsonl(lines).map_err(not_jsonl)?;
    gather(metadata, turns, pacer).await.map_err(not_jsonl)
}

/// Reads the bundle the user picked, within the server's upload limits (core's [`LIMITS`]
/// once decompressed, what a stored run may hold, [`UPLOAD_BYTES`] as sent), all checked
/// before anything is scored: a file is read by core as the server reads an upload; a
/// directory's files are counted against the limits by their sizes before any is read.
/// JSON Lines not compressed yet (a `.jsonl`, a directory's bundle) are compressed here, as
/// they will be sent. Errors name the entry and what is wrong. The page is handed back to
/// the browser between slices of the work, so it keeps drawing whatever the bundle's size.
pub(crate) async fn read_bundle(picked: Picked) -> Result<(RepoReuseBundle, Upload), String> {
    let mut pacer = Pacer::new();
    match picked {
        Picked::File(file) => {
            let size = file.size();
            if size > LIMITS.total_bytes as f64 {
                return Err(BundleError::TooLarge {
                    limit: LIMITS.total_bytes,
                }
                .to_string());
            }
            let first = slice_of(&file, 0.0, FILE_SLICE_BYTES.min(size)).await?;
            // A zip or gzip is sent as it is, so its size is checked before it is read;
            // JSON Lines are sent compressed, checked once compressed.
            let compressed = Packing::of(&first) != Packing::Text;
            if compressed {
                sendable(size)?;
            }
            let bundle = if compressed {
                let bytes = bytes_in_slices(&file, first, &mut pacer).await?;
                bundle_of_bytes(&bytes, &file.name(), &mut pacer)
                    .await
                    .map_err(|e| e.to_string())?
            } else {
                jsonl_in_slices(&file, first, &mut pacer).await?
            };
            bundle.check_storable().map_err(|e| e.to_string())?;
            if compressed {
                return Ok((bundle, Upload::File(file)));
            }
            let gzipped = gzip(&file).await?;
            sendable(gzipped.size())?;
            Ok((bundle, Upload::Gzip(gzipped)))
        }
        Picked::Directory(files) => {
            let mut budget = Budget::new(LIMITS);
            for file in &files {
                // The browser knows each size before reading: a bundle over the limits is
                // refused unread, as the server refuses a zip by its declared sizes.
                let size = file.size() as u64;
                budget
                    .take(&relative_path(file), size)
                    .map_err(|e| e.to_string())?;
            }
            let names: Vec<String> = files.iter().map(relative_path).collect();
            let order = RepoReuseBundle::read_order(names.iter().map(String::as_str));
            let mut entries = Vec::with_capacity(files.len());
            for (at, name) in order {
                entries.push(Ok((name, bytes_of(&files[at]).await?)));
                pacer.pace().await;
            }
            let (metadata, turns) =
                RepoReuseBundle::stream_files(entries.into_iter()).map_err(|e| e.to_string())?;
            let bundle = gather(metadata, turns, &mut pacer)
                .await
                .map_err(|e| e.to_string())?;
            bundle.check_storable().map_err(|e| e.to_string())?;
            // The upload, a line at a time: the browser joins the lines into one blob and
            // compresses it.
            let lines = js_sys::Array::new();
            for line in bundle.jsonl_lines() {
                lines.push(&wasm_bindgen::JsValue::from_str(&line));
                pacer.pace().await;
            }
            let jsonl = web_sys::Blob::new_with_str_sequence(&lines).map_err(js_error)?;
            let gzipped = gzip(&jsonl).await?;
            sendable(gzipped.size())?;
            Ok((bundle, Upload::Gzip(gzipped)))
        }
    }
}

/// A dataset fetched and indexed in this page: its kit and W0 indexed once, kept for the
/// page's life so a second bundle of the same dataset is scored at once.
pub(crate) struct Indexed {
    pub(crate) kit: ScoringKit,
    prepared: PreparedDataset<'static>,
    /// How W0's index was made: `None` when loaded from the server's saved index, else why
    /// that was not used and the page parsed the repository itself.
    pub(crate) built_because: Option<String>,
    /// How long fetching and indexing took, in milliseconds.
    pub(crate) fetch_ms: f64,
    pub(crate) index_ms: f64,
}

thread_local! {
    /// The datasets indexed so far, by name and version.
    static INDEXED: RefCell<BTreeMap<(String, String), Rc<Indexed>>> = RefCell::default();
}

/// Milliseconds since the page started, from the browser's clock.
pub(crate) fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Hands the page back to the browser for a frame, so what changed is drawn (the scoring
/// itself runs on the page's one thread).
pub(crate) async fn next_frame() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// The dataset `name` `version`, fetched (`GET .../scoring`, gzip-compressed, revalidated
/// with its content hash) and indexed, or the one this page indexed before.
///
/// The repository's index comes saved from the server (`GET .../scoring/index`, fetched
/// beside the kit): loading it is a tenth of parsing every file in this one thread. Core
/// loads it only if it is of exactly the kit's files and this build; otherwise, or if it
/// cannot be fetched, the page parses the repository itself, and says so.
///
/// `fetched` is called once the kit is here, before indexing begins (the page's stage
/// label follows what it is doing).
pub(crate) async fn indexed(
    name: &str,
    version: &str,
    fetched: impl FnOnce(),
) -> Result<Rc<Indexed>, String> {
    let key = (name.to_owned(), version.to_owned());
    if let Some(found) = INDEXED.with(|i| i.borrow().get(&key).cloned()) {
        return Ok(found);
    }
    let start = now_ms();
    // Most datasets have one repository, whose index is fetched beside the kit; one of
    // several repositories asks for each index by id once the kit names them.
    let (kit, only) = futures_util::join!(
        crate::api::scoring_kit(name, version),
        crate::api::saved_index(name, version, None)
    );
    let kit = kit.map_err(|e| e.to_string())?;
    let mut indexes = BTreeMap::new();
    if let (Some(id), 1) = (kit.repositories.keys().next(), kit.repositories.len()) {
        indexes.insert(id.clone(), only);
    } else {
        for id in kit.repositories.keys() {
            indexes.insert(
                id.clone(),
                crate::api::saved_index(name, version, Some(id)).await,
            );
        }
    }
    let fetched_at = now_ms();
    fetched();
    next_frame().await;
    // The prepared dataset owns the scorer's dataset, kept for the page's life.
    let dataset: Dataset = kit.dataset.to_score_dataset(kit.repositories.clone());
    let mut saved = BTreeMap::new();
    let mut built_because = None;
    for (id, index) in indexes {
        match index {
            Ok(bytes) => {
                saved.insert(id, bytes);
            }
            Err(e) => {
                built_because = Some(format!(
                    "the server's saved index of {id} was not fetched ({e})"
                ));
            }
        }
    }
    let (prepared, refused) =
        PreparedDataset::with_saved_indexes(dataset, &saved, &Cancel::never())
            .map_err(|e| format!("the dataset cannot be scored: {e}"))?;
    if let Some(why) = refused.into_values().next() {
        built_because = Some(why.to_string());
    }
    let indexed = Rc::new(Indexed {
        kit,
        prepared,
        built_because,
        fetch_ms: fetched_at - start,
        index_ms: now_ms() - fetched_at,
    });
    INDEXED.with(|i| i.borrow_mut().insert(key, Rc::clone(&indexed)));
    Ok(indexed)
}

/// A run's report as the page scored it, and how long each chain's scoring took.
pub(crate) struct Scored {
    pub(crate) report: RunReport,
    /// Milliseconds of scoring per chain, in order (the frames the page is handed back
    /// between chains are not counted).
    pub(crate) chain_ms: Vec<f64>,
    /// Milliseconds of the scorer's own work in all: the chains and the run's summary,
    /// without the frames between chains (what the user waits for is [`Waited`]).
    pub(crate) score_ms: f64,
}

/// What the user waited for, by the page's clock: measured once the scored run's view is
/// built, so it holds the frames handed back between chains and building the view, which
/// [`Scored::score_ms`] leaves out (2.04 s of scoring was 2.85 s of waiting).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Waited {
    /// From the start of scoring to the view shown.
    pub(crate) score_ms: f64,
    /// From the bundle dropped to the view shown: reading, fetching, indexing and all.
    pub(crate) total_ms: f64,
}

/// Scores `bundle` against `indexed` a chain at a time, handing the page back between
/// chains; `progress` gets (turns done, turns in all) after each.
///
/// Each chain's input is copied from the bundle as it is scored (never the whole run at
/// once: copying a 200 MB run took a frame of its own), and the dataset's chains the run
/// lacks (hundreds, for a partial run of a paper-scale dataset) are scored as missing a
/// slice at a time, not all in the report's one frame.
pub(crate) async fn score(
    indexed: &Indexed,
    bundle: &RepoReuseBundle,
    progress: impl Fn(usize, usize),
) -> Result<Scored, String> {
    let dataset = &indexed.kit.dataset;
    let start = now_ms();
    check_made_on(&bundle.metadata, dataset).map_err(|e| e.to_string())?;
    // Checked turn by turn as `check_against` checks them, and gathered into the scorer's
    // chains as `to_run` makes them.
    let turns = bundle
        .predictions
        .iter()
        .map(|(id, prediction)| Ok((id.clone(), prediction.clone(), None)));
    let mut chains = RepoReuseBundle::chains(dataset, turns);
    let mut scoring = indexed.prepared.chain_by_chain();
    let cancel = Cancel::never();
    // "0 of N turns" is drawn before the first chain, so no earlier stage's label stays up
    // while the first chain is scored.
    let (done, total) = scoring.turns();
    progress(done, total);
    next_frame().await;
    let mut chain_ms = Vec::new();
    let mut working = now_ms() - start;
    loop {
        let began = now_ms();
        let Some(chain) = chains.next() else {
            break;
        };
        let (id, chain) = chain.map_err(|e| e.to_string())?;
        scoring
            .add(&id, &chain, &cancel)
            .map_err(|e| e.to_string())?;
        drop(chain);
        let took = now_ms() - began;
        chain_ms.push(took);
        working += took;
        let (done, total) = scoring.turns();
        progress(done, total);
        next_frame().await;
    }
    let cancelled = |_| "the scoring was cancelled".to_owned();
    let mut pacer = Pacer::new();
    loop {
        let began = now_ms();
        let more = scoring.add_next_missing(&cancel).map_err(cancelled)?;
        working += now_ms() - began;
        if !more {
            break;
        }
        let (done, total) = scoring.turns();
        progress(done, total);
        pacer.pace().await;
    }
    let began = now_ms();
    let report = scoring.finish(&cancel).map_err(cancelled)?;
    Ok(Scored {
        report,
        chain_ms,
        score_ms: working + (now_ms() - began),
    })
}

/// A run scored in this page: what the run and case views show, and what is submitted.
pub(crate) struct LocalRun {
    pub(crate) bundle: RepoReuseBundle,
    pub(crate) upload: Upload,
    pub(crate) report: RunReport,
    pub(crate) indexed: Rc<Indexed>,
    /// The bundle's name as the user gave it.
    pub(crate) name: String,
    /// Milliseconds of the scorer's own work in all, and per chain.
    pub(crate) score_ms: f64,
    pub(crate) chain_ms: Vec<f64>,
    /// What the user waited for, once the view is shown (`None` until then).
    pub(crate) waited: std::cell::Cell<Option<Waited>>,
}

impl LocalRun {
    /// The run as a stored run's page shows it (id 0, origin `local`).
    pub(crate) fn detail(&self) -> RunDetail {
        let m = &self.bundle.metadata;
        let manifest = &self.indexed.kit.dataset.manifest;
        let value = |v: serde_json::Result<serde_json::Value>| v.unwrap_or_default();
        let overall = serde_json::from_value(value(serde_json::to_value(&self.report.overall)))
            .unwrap_or_default();
        let mut chains: Vec<ChainTurns> = Vec::new();
        for row in &self.report.turns {
            match chains.last_mut() {
                Some(last) if last.chain == row.chain => last.turn_count += 1,
                _ => chains.push(ChainTurns {
                    chain: row.chain.clone(),
                    turn_count: 1,
                }),
            }
        }
        RunDetail {
            summary: RunSummary {
                id: 0,
                origin: "local".to_owned(),
                baseline: None,
                benchmark: manifest.benchmark.id().to_owned(),
                dataset_name: manifest.name.clone(),
                dataset_version: manifest.version.clone(),
                dataset_sha256: self.indexed.kit.content_sha256.clone(),
                model: m.model.clone(),
                harness: m.harness.clone(),
                memory: m.memory.clone(),
                run_date: m.date.clone(),
                cost_usd: m.cost_usd,
                scaffold_version: m.scaffold_version.clone(),
                notes: m.notes.clone(),
                scorer_version: self.report.scorer_version.clone(),
                grammar_version: wheelwright_core::syntax::GRAMMAR_VERSION.to_owned(),
                chain_count: i64::try_from(self.report.chains).unwrap_or(0),
                turn_count: i64::try_from(self.report.turns.len()).unwrap_or(0),
                created_at: String::new(),
                overall,
            },
            series: value(serde_json::to_value(&self.report.series)),
            diagnostics: self
                .report
                .diagnostics
                .iter()
                .map(|d| value(serde_json::to_value(d)))
                .collect(),
            unparsed: Some(self.report.unparsed.clone()),
            chains,
        }
    }

    /// Every turn's row, as the run's turn table shows it.
    pub(crate) fn rows(&self) -> Vec<TurnTableRow> {
        self.report.turns.iter().map(TurnTableRow::from).collect()
    }

    /// The agent's files of turn `turn` of `chain` by path (none for turn 0, or a turn the
    /// bundle has not).
    pub(crate) fn files(&self, chain: &str, turn: usize) -> BTreeMap<String, String> {
        self.bundle
            .predictions
            .get(&TurnId::new(chain, turn))
            .map(|p| p.files.clone().into_iter().collect())
            .unwrap_or_default()
    }

    /// What each action of the turn's trajectory printed; `None` without a trajectory.
    pub(crate) fn observations(&self, chain: &str, turn: usize) -> Option<TurnObservations> {
        let prediction = self.bundle.predictions.get(&TurnId::new(chain, turn))?;
        prediction.trajectory.as_deref().map(TurnObservations::of)
    }

    /// Turn `turn` of chain `chain` as its case page shows it; `None` when the run has no
    /// such turn.
    pub(crate) fn case(&self, chain: &str, turn: usize) -> Option<TurnDetail> {
        let row = self
            .report
            .turns
            .iter()
            .find(|r| r.chain == chain && r.turn == turn)?;
        let dataset: &RepoReuseDataset = &self.indexed.kit.dataset;
        let spec = dataset
            .chains
            .iter()
            .find(|c| c.manifest.id == chain)?
            .turns
            .get(turn.checked_sub(1)?)?;
        let module_path = spec.manifest.module_path.clone();
        let prediction = self.bundle.predictions.get(&TurnId::new(chain, turn));
        let file = |path: &str, text: Option<&String>| SourceFile {
            path: path.to_owned(),
            bytes: text.map_or(0, |t| t.len() as u64),
            text: text.cloned(),
            truncated: false,
        };
        let files = prediction.map(|p| &p.files);
        let other_files: Vec<SourceFile> = files
            .into_iter()
            .flatten()
            .filter(|(path, _)| **path != module_path)
            .map(|(path, text)| file(path, Some(text)))
            .collect();
        let case = CaseFiles {
            run: 0,
            chain: chain.to_owned(),
            turn: i64::try_from(turn).ok()?,
            title: spec.manifest.title.clone(),
            requirement: spec.requirement.clone(),
            submission: file(&module_path, files.and_then(|f| f.get(&module_path))),
            other_file_count: i64::try_from(other_files.len()).ok()?,
            other_files,
            reference: file(&module_path, Some(&spec.reference)),
            trajectory_bytes: prediction
                .and_then(|p| p.trajectory.as_ref())
                .map(|t| t.len() as u64),
        };
        TurnDetail::from_scored(serde_json::to_value(row).ok()?, case).ok()
    }
}
