//! How a run's files and trajectories are kept: deflated once, in parts of at most 1 MiB of text, within per-run limits, and read back a part, a turn or a run at a time.
//!
//! A stored run has one `run_file` row per text (a file the agent left in a turn, or the
//! turn's trajectory) with its size, and the text itself in `run_file_part` rows: the text
//! cut into parts of at most [`PART_BYTES`] (at character boundaries), each deflated on
//! its own. Deflate's window is 32 KiB, so parts cost nothing in size, and they bound
//! what any read holds: the turn case inlines one part of a file at most, a download
//! streams them one by one, and listing runs or turns reads none.
//!
//! What a run may store is bounded twice, before the transaction that stores it
//! ([`StoreLimits`]): its texts' bytes as submitted, and the bytes they take deflated.

use std::collections::BTreeMap;
use std::io::{Read, Write};

use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use futures_util::TryStreamExt;
use wheelwright_core::bundle::{InstanceId, RunBundle};

use super::{PartRow, Store, StoredText};

/// Bytes of text in one stored part, and so the most of a file one read decompresses.
pub const PART_BYTES: usize = 1024 * 1024;

/// What one stored run may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreLimits {
    /// Bytes of all its files and trajectories as submitted (decompressed).
    pub raw_bytes: u64,
    /// Bytes they take once stored (deflated).
    pub stored_bytes: u64,
}

/// The server's limits, core's ([`wheelwright_core::bundle::STORED_TEXT_BYTES`], which the
/// submit page checks too, and [`wheelwright_core::bundle::STORED_DEFLATED_BYTES`]).
pub const STORE_LIMITS: StoreLimits = StoreLimits {
    raw_bytes: wheelwright_core::bundle::STORED_TEXT_BYTES,
    stored_bytes: wheelwright_core::bundle::STORED_DEFLATED_BYTES,
};

/// Why a run was not stored; nothing is stored when one is returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OverLimits {
    #[error(
        "the run's files and trajectories are {size} bytes once decompressed, over the {limit} bytes a stored run may hold; submit fewer or smaller files (the scorer reads the agent's Python files and trajectories)"
    )]
    TooLarge { size: u64, limit: u64 },
    #[error(
        "the run's files and trajectories take {size} bytes compressed, over the {limit} bytes a stored run may take; submit fewer or smaller files (the scorer reads the agent's Python files and trajectories)"
    )]
    TooLargeStored { size: u64, limit: u64 },
}

/// What a stored text is: a file the agent left, or a turn's trajectory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Trajectory,
}

impl Kind {
    /// The value of `run_file.kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::File => "file",
            Self::Trajectory => "trajectory",
        }
    }
}

/// One text of a run, deflated in parts, ready to insert.
#[derive(Debug)]
pub struct PackedText {
    pub chain: String,
    pub turn: usize,
    pub kind: Kind,
    /// The file's path; empty for a trajectory.
    pub path: String,
    /// Bytes of the text.
    pub size: u64,
    pub parts: Vec<Vec<u8>>,
}

/// Every text of a run, deflated.
#[derive(Debug, Default)]
pub struct PackedRun {
    pub texts: Vec<PackedText>,
    /// Bytes of the texts as submitted.
    pub raw_bytes: u64,
    /// Bytes of their deflated parts.
    pub stored_bytes: u64,
}

/// Bytes of all files and trajectories of `bundle` as submitted.
pub fn raw_bytes<I: InstanceId>(bundle: &RunBundle<I>) -> u64 {
    bundle.text_bytes()
}

/// Refuses `bundle` if its texts are over `limits.raw_bytes`: cheap, so checked before
/// the run is scored.
pub fn check_raw<I: InstanceId>(
    bundle: &RunBundle<I>,
    limits: StoreLimits,
) -> Result<(), OverLimits> {
    let size = raw_bytes(bundle);
    if size > limits.raw_bytes {
        return Err(OverLimits::TooLarge {
            size,
            limit: limits.raw_bytes,
        });
    }
    Ok(())
}

/// Deflates every file and trajectory of `bundle`, stopping as soon as the result is over
/// `limits.stored_bytes`.
pub fn pack<I: InstanceId>(
    bundle: &RunBundle<I>,
    limits: StoreLimits,
) -> Result<PackedRun, OverLimits> {
    check_raw(bundle, limits)?;
    let mut run = PackedRun::default();
    for (id, given) in &bundle.predictions {
        let (chain, turn) = id.slot();
        let files = given
            .files
            .iter()
            .map(|(path, text)| (Kind::File, path.as_str(), text));
        let trajectory = given.trajectory.iter().map(|t| (Kind::Trajectory, "", t));
        for (kind, path, text) in files.chain(trajectory) {
            let parts: Vec<Vec<u8>> = split(text).map(|p| deflate(p.as_bytes())).collect();
            run.raw_bytes += text.len() as u64;
            run.stored_bytes += parts.iter().map(|p| p.len() as u64).sum::<u64>();
            if run.stored_bytes > limits.stored_bytes {
                return Err(OverLimits::TooLargeStored {
                    size: run.stored_bytes,
                    limit: limits.stored_bytes,
                });
            }
            run.texts.push(PackedText {
                chain: chain.to_owned(),
                turn,
                kind,
                path: path.to_owned(),
                size: text.len() as u64,
                parts,
            });
        }
    }
    Ok(run)
}

/// `text` in consecutive parts of at most [`PART_BYTES`], cut at character boundaries so
/// each part is text on its own; an empty text is one empty part.
pub fn split(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        if current.len() <= PART_BYTES {
            rest = None;
            return Some(current);
        }
        let cut = floor_boundary(current, PART_BYTES);
        rest = Some(&current[cut..]);
        Some(&current[..cut])
    })
}

/// The largest character boundary of `text` at or below `at` (and above 0 when `at` is).
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut cut = at.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    cut
}

/// `bytes` deflated (raw deflate, the default level). The fastest level packs real
/// trajectories four times as fast but only 4.1:1 instead of 5.9:1, which would bring a
/// run at the decompressed limit to the stored limit; and it inflates a third slower
/// (docs/performance.md, "Server: stored runs").
pub fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut encoder =
        DeflateEncoder::new(Vec::with_capacity(bytes.len() / 4), Compression::default());
    // Writing to a Vec cannot fail.
    encoder
        .write_all(bytes)
        .and_then(|()| encoder.finish())
        .unwrap_or_default()
}

/// At most `cap` bytes of a stored part, decoded from its `encoding`.
pub fn inflate(encoding: &str, data: &[u8], cap: usize) -> std::io::Result<Vec<u8>> {
    match encoding {
        "identity" => Ok(data[..data.len().min(cap)].to_vec()),
        "deflate" => {
            let mut out = Vec::with_capacity(cap.min(PART_BYTES));
            DeflateDecoder::new(data)
                .take(cap as u64)
                .read_to_end(&mut out)?;
            Ok(out)
        }
        other => Err(std::io::Error::other(format!(
            "unknown part encoding {other:?}"
        ))),
    }
}

/// Part `part` of text `id`, decompressed (`None` past its last part).
pub(crate) async fn part(store: &Store, id: i64, part: i64) -> anyhow::Result<Option<Vec<u8>>> {
    store
        .text_part(id, part)
        .await?
        .map(|p| inflate(&p.encoding, &p.data, usize::MAX))
        .transpose()
        .map_err(Into::into)
}

/// The first `cap` bytes of `text` (fewer if that would cut a character) and whether that
/// is less than the whole. Reads its first part only, so `cap` above [`PART_BYTES`] is
/// treated as [`PART_BYTES`].
pub(crate) async fn prefix(
    store: &Store,
    text: &StoredText,
    cap: usize,
) -> anyhow::Result<(String, bool)> {
    let cap = cap.min(PART_BYTES);
    let Some(first) = store.text_part(text.id, 0).await? else {
        return Ok((String::new(), text.size > 0));
    };
    // A few bytes more than `cap`, so a character cut at `cap` is recognised as such.
    let bytes = inflate(&first.encoding, &first.data, cap + 4)?;
    let valid = match std::str::from_utf8(&bytes) {
        Ok(all) => all,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()])?,
    };
    let shown = &valid[..floor_boundary(valid, cap)];
    let truncated = (shown.len() as u64) < u64::try_from(text.size).unwrap_or(0);
    Ok((shown.to_owned(), truncated))
}

/// The whole of `text`, decompressed part by part.
pub(crate) async fn whole(store: &Store, text: &StoredText) -> anyhow::Result<String> {
    let mut bytes = Vec::with_capacity(usize::try_from(text.size).unwrap_or(0));
    let mut next = 0;
    while let Some(part) = part(store, text.id, next).await? {
        bytes.extend_from_slice(&part);
        next += 1;
    }
    String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("stored text {} ({:?}) is not UTF-8", text.id, text.path))
}

/// What one stored turn left.
#[derive(Clone, Debug, Default)]
pub struct TurnTexts {
    pub files: BTreeMap<String, String>,
    pub trajectory: Option<String>,
}

/// Every turn of run `run` with its files, decompressed (and its trajectory when
/// `trajectories`): what scoring again and the hidden tests need. Rows are read one at a
/// time, so only the texts themselves are held; the run limits bound them.
pub async fn run_texts(
    store: &Store,
    run: i64,
    trajectories: bool,
) -> anyhow::Result<BTreeMap<(String, usize), TurnTexts>> {
    texts(store, run, None, trajectories).await
}

/// The files of turns 1..=`turn` of `chain` in run `run`, decompressed: what one turn's
/// hidden tests need (the agent's files of that turn and the earlier ones), and no more.
pub(crate) async fn chain_files(
    store: &Store,
    run: i64,
    chain: &str,
    turn: i64,
) -> anyhow::Result<BTreeMap<(String, usize), TurnTexts>> {
    texts(store, run, Some((chain, turn)), false).await
}

/// The texts of run `run`, of every turn or (`upto`) of one chain's turns up to one.
async fn texts(
    store: &Store,
    run: i64,
    upto: Option<(&str, i64)>,
    trajectories: bool,
) -> anyhow::Result<BTreeMap<(String, usize), TurnTexts>> {
    let mut out = BTreeMap::new();
    for (chain, turn) in store.run_turns(run, upto).await? {
        out.insert((chain, usize::try_from(turn)?), TurnTexts::default());
    }
    let mut rows = store.text_parts(run, upto, trajectories);
    // The text being assembled from its parts, and its bytes so far.
    let mut current: Option<(PartRow, Vec<u8>)> = None;
    let finish = |out: &mut BTreeMap<(String, usize), TurnTexts>,
                  (row, bytes): (PartRow, Vec<u8>)|
     -> anyhow::Result<()> {
        let text = String::from_utf8(bytes)
            .map_err(|_| anyhow::anyhow!("stored text {} ({:?}) is not UTF-8", row.id, row.path))?;
        let turn = out
            .entry((row.chain, usize::try_from(row.turn)?))
            .or_default();
        if row.kind == "trajectory" {
            turn.trajectory = Some(text);
        } else {
            turn.files.insert(row.path, text);
        }
        Ok(())
    };
    while let Some(mut row) = rows.try_next().await? {
        let bytes = inflate(&row.encoding, &row.data, usize::MAX)?;
        row.data = Vec::new();
        match &mut current {
            Some((text, so_far)) if text.id == row.id => so_far.extend_from_slice(&bytes),
            _ => {
                if let Some(done) = current.replace((row, bytes)) {
                    finish(&mut out, done)?;
                }
            }
        }
    }
    if let Some(done) = current.take() {
        finish(&mut out, done)?;
    }
    Ok(out)
}

/// Deflates the texts a migration moved over as they were (`identity` parts), one text
/// per transaction: re-run at every start, it converts what is left and then finds
/// nothing to do. A text's parts are replaced in one transaction, so it is never lost or
/// half converted.
pub(crate) async fn upgrade(store: &Store) -> anyhow::Result<()> {
    let mut converted = 0usize;
    loop {
        let ids = store.identity_texts(64).await?;
        if ids.is_empty() {
            break;
        }
        for id in ids {
            store
                .repack_text(id, |parts| {
                    let mut bytes = Vec::new();
                    for part in parts {
                        bytes.extend(inflate(&part.encoding, &part.data, usize::MAX)?);
                    }
                    Ok(match std::str::from_utf8(&bytes) {
                        Ok(text) => split(text).map(|p| deflate(p.as_bytes())).collect(),
                        // Not text (it cannot be: it came from a JSON string): kept byte for byte.
                        Err(_) => bytes.chunks(PART_BYTES).map(deflate).collect(),
                    })
                })
                .await?;
            converted += 1;
        }
    }
    if converted > 0 {
        tracing::info!(
            texts = converted,
            "stored run files deflated (moved from an older version)"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_split_into_parts_at_character_boundaries_and_come_back_whole() {
        let a = |n: usize| "a".repeat(n);
        let cases: Vec<(&str, String, Vec<usize>)> = vec![
            ("empty", String::new(), vec![0]),
            ("short", "def f():\n".to_owned(), vec![9]),
            ("one part exactly", a(PART_BYTES), vec![PART_BYTES]),
            ("one byte over", a(PART_BYTES + 1), vec![PART_BYTES, 1]),
            (
                "a two-byte character across the cut",
                format!("a{}", "é".repeat(PART_BYTES / 2)),
                vec![PART_BYTES - 1, 2],
            ),
            (
                "three parts",
                a(2 * PART_BYTES + 5),
                vec![PART_BYTES, PART_BYTES, 5],
            ),
        ];
        for (name, text, sizes) in cases {
            let parts: Vec<&str> = split(&text).collect();
            assert_eq!(
                parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
                sizes,
                "{name}"
            );
            let back: Vec<u8> = parts
                .iter()
                .flat_map(|p| inflate("deflate", &deflate(p.as_bytes()), usize::MAX).unwrap())
                .collect();
            assert_eq!(back, text.as_bytes(), "{name}");
        }
        assert_eq!(inflate("identity", b"abcdef", 4).unwrap(), b"abcd");
        assert!(inflate("zstd", b"", 1).is_err());
    }

    #[test]
    fn a_run_over_either_limit_is_refused_before_anything_is_stored() {
        let jsonl = format!(
            "{}\n{}\n",
            r#"{"metadata": {"model": "m", "harness": "h", "memory": "none", "date": "2026-12-01", "dataset": {"name": "d", "version": "1"}}}"#,
            serde_json::json!({"instance_id": "c/turn-1", "files": {"a.txt": "a".repeat(600), "b.txt": "xyz"}, "trajectory": "t".repeat(400)})
        );
        let bundle =
            wheelwright_core::reporeuse::bundle::RepoReuseBundle::from_jsonl(&jsonl).unwrap();
        assert_eq!(raw_bytes(&bundle), 1003);
        let limits = |raw_bytes, stored_bytes| StoreLimits {
            raw_bytes,
            stored_bytes,
        };
        assert_eq!(
            pack(&bundle, limits(1002, 1 << 20)).unwrap_err(),
            OverLimits::TooLarge {
                size: 1003,
                limit: 1002
            }
        );
        assert!(matches!(
            pack(&bundle, limits(1003, 10)),
            Err(OverLimits::TooLargeStored { limit: 10, .. })
        ));
        let packed = pack(&bundle, limits(1003, 1 << 20)).unwrap();
        assert_eq!((packed.raw_bytes, packed.texts.len()), (1003, 3));
        assert!(packed.stored_bytes < 100, "{} bytes", packed.stored_bytes);
        let kinds: Vec<(Kind, &str, u64)> = packed
            .texts
            .iter()
            .map(|t| (t.kind, t.path.as_str(), t.size))
            .collect();
        assert_eq!(
            kinds,
            [
                (Kind::File, "a.txt", 600),
                (Kind::File, "b.txt", 3),
                (Kind::Trajectory, "", 400)
            ]
        );
    }
}
