//! Answers of the public read routes kept as bytes while nothing has been written since, within a bound on entries and bytes.
//!
//! The leaderboard, a run, a turn case and the runs list change only when something is
//! written, yet each request read SQLite, parsed the stored JSON and serialised it again:
//! under 200 clients on one core they waited 21 to 84 ms at the median
//! (`docs/performance.md`, "Server: read routes under 200 clients"). Here each answer is
//! kept with the store's write generation ([`Store::generation`]) loaded before it was
//! built, and served while the generation is unchanged: every committed write moves the
//! generation on, so an answer never outlives a write, and a client that saw its write
//! answered sees it in the next read.
//!
//! Keys are canonical: a route builds one from the values it parsed (never the raw URL),
//! and only answers that are a 200. What is kept is bounded by entries and bytes, the
//! least recently used going first, so a client asking for many distinct pages only
//! evicts; a write empties the whole cache at once.

use std::future::Future;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use hashlink::LinkedHashMap;
use sha2::{Digest, Sha256};

use crate::error::AppError;
use crate::store::Store;

/// Most answers kept at once, whatever their size.
pub(crate) const MAX_ENTRIES: usize = 4096;

/// What an entry is counted as beyond its key and body: the entry, its headers and the
/// recency index, so that many tiny answers are bounded by bytes too.
const ENTRY_OVERHEAD: usize = 512;

/// An answer is kept only when it takes at most this share of the byte bound: one large
/// turn case must not flush every other answer.
const LARGEST_SHARE: usize = 8;

/// Builds of missing answers run one at a time per stripe (keys hashed onto these), so
/// the requests that miss together after a write wait for the first to build the answer
/// and then find it, instead of each building it again.
const BUILD_STRIPES: usize = 64;

/// The cache of read answers (shared by every clone of the state).
pub(crate) struct ReadCache {
    inner: Mutex<Inner>,
    builds: Box<[tokio::sync::Mutex<()>]>,
    max_bytes: usize,
}

struct Inner {
    /// The generation every entry was built at; entries of an older one are dropped.
    generation: u64,
    /// The answers with what each is counted as, least recently used first.
    entries: LinkedHashMap<String, (Arc<Answer>, usize)>,
    /// What the entries are counted as, in bytes ([`Answer::cost`]).
    bytes: usize,
}

/// A kept answer: a 200's headers and body, and the body's tag.
struct Answer {
    headers: HeaderMap,
    body: Bytes,
    /// A weak tag of the body's SHA-256: weak, since the compression layer may send the
    /// same answer in another encoding.
    etag: HeaderValue,
}

impl Answer {
    fn new(mut headers: HeaderMap, body: Bytes) -> Self {
        let digest = Sha256::digest(&body);
        let etag = format!("W/\"{}\"", hex::encode(&digest[..16]));
        let etag = HeaderValue::from_str(&etag).expect("hex is a valid header value");
        headers.remove(header::CONTENT_LENGTH);
        Self {
            headers,
            body,
            etag,
        }
    }

    /// The answer as sent: 304 without a body to a client that has it (`If-None-Match`).
    fn respond(&self, request: &HeaderMap) -> Response {
        let mut response = if has_tag(request, &self.etag) {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            response
        } else {
            let mut response = Response::new(Body::from(self.body.clone()));
            *response.headers_mut() = self.headers.clone();
            response
        };
        response
            .headers_mut()
            .insert(header::ETAG, self.etag.clone());
        response
    }

    fn cost(&self, key: &str) -> usize {
        key.len() + self.body.len() + ENTRY_OVERHEAD
    }
}

/// Whether `If-None-Match` names `etag` (weak comparison, as RFC 9110 asks for it).
fn has_tag(request: &HeaderMap, etag: &HeaderValue) -> bool {
    let ours = etag
        .as_bytes()
        .strip_prefix(b"W/")
        .unwrap_or(etag.as_bytes());
    request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag).as_bytes() == ours)
}

impl ReadCache {
    /// A cache of at most `max_bytes` (keys, bodies and [`ENTRY_OVERHEAD`] each) and
    /// [`MAX_ENTRIES`] answers.
    pub(crate) fn new(max_bytes: usize) -> Self {
        Self {
            inner: Mutex::new(Inner {
                generation: 0,
                entries: LinkedHashMap::new(),
                bytes: 0,
            }),
            builds: (0..BUILD_STRIPES)
                .map(|_| tokio::sync::Mutex::new(()))
                .collect(),
            max_bytes,
        }
    }

    /// The answer of `key`: kept, or built by `build` and kept when it is a 200 that fits.
    ///
    /// The generation is loaded before anything is read, so what `build` reads is at least
    /// as new as every write it counts; a request that waited for another's build loads it
    /// again, and takes the answer built at that generation or a newer one.
    pub(crate) async fn serve<F, Fut>(
        &self,
        store: &Store,
        key: String,
        request: &HeaderMap,
        build: F,
    ) -> Result<Response, AppError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Response, AppError>>,
    {
        if let Some(answer) = self.get(store.generation(), &key) {
            return Ok(answer.respond(request));
        }
        let _turn = self.builds[stripe(&key)].lock().await;
        let generation = store.generation();
        if let Some(answer) = self.get(generation, &key) {
            return Ok(answer.respond(request));
        }
        let response = build().await?;
        if response.status() != StatusCode::OK {
            return Ok(response);
        }
        let (parts, body) = response.into_parts();
        // These routes' bodies are whole in memory already (JSON, CSV of a page).
        let body = axum::body::to_bytes(body, usize::MAX)
            .await
            .map_err(|e| AppError::Internal(anyhow::anyhow!("reading an answer: {e}")))?;
        let answer = Arc::new(Answer::new(parts.headers, body));
        self.insert(generation, key, Arc::clone(&answer));
        Ok(answer.respond(request))
    }

    /// The entries, locked; at `generation` (entries of an older one are dropped first).
    /// `None` when `generation` is older than the cache's: the caller's answer may be
    /// built, not kept.
    fn at(&self, generation: u64) -> Option<MutexGuard<'_, Inner>> {
        // A panic elsewhere while the lock was held leaves nothing half done that matters:
        // at worst an entry's bytes are miscounted until the next write empties the cache.
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if generation > inner.generation {
            inner.entries.clear();
            inner.bytes = 0;
            inner.generation = generation;
        }
        (generation == inner.generation).then_some(inner)
    }

    fn get(&self, generation: u64, key: &str) -> Option<Arc<Answer>> {
        let mut inner = self.at(generation)?;
        let (answer, _) = inner.entries.to_back(key)?;
        Some(Arc::clone(answer))
    }

    fn insert(&self, generation: u64, key: String, answer: Arc<Answer>) {
        let cost = answer.cost(&key);
        if cost > self.max_bytes / LARGEST_SHARE {
            return;
        }
        let Some(mut guard) = self.at(generation) else {
            return;
        };
        let inner = &mut *guard;
        if let Some((_, old)) = inner.entries.remove(&key) {
            inner.bytes -= old;
        }
        inner.bytes += cost;
        inner.entries.insert(key, (answer, cost));
        while inner.bytes > self.max_bytes || inner.entries.len() > MAX_ENTRIES {
            let Some((_, (_, evicted))) = inner.entries.pop_front() else {
                break;
            };
            inner.bytes -= evicted;
        }
    }

    /// How many answers are kept and what they are counted as, in bytes.
    pub(crate) fn usage(&self) -> (usize, usize) {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        (inner.entries.len(), inner.bytes)
    }
}

/// The build stripe of `key`.
fn stripe(key: &str) -> usize {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut hasher);
    (hasher.finish() % BUILD_STRIPES as u64) as usize
}
