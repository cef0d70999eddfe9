//! Reads run bundles from disk or from an upload (a directory, a `.zip` or JSON Lines) within core's limits.
//!
//! Core parses a bundle from memory; this module does the I/O and enforces
//! [`wheelwright_core::bundle::LIMITS`] while reading, before anything is held whole:
//! entries are counted, declared sizes are checked before a zip entry is inflated, and the
//! inflated bytes are capped, so an entry that lies about its size (a zip bomb) stops at the
//! limit. Entry names are checked by core (`..`, absolute paths, backslashes); symbolic
//! links are refused in both directories and zips.
//!
//! Only regular files are read, and never more than the limit: a file is opened with
//! `O_NONBLOCK` (so a FIFO cannot block the open) and its opened descriptor's metadata
//! decides, so `run.jsonl -> /dev/zero` or a FIFO named `run.zip` is refused at once
//! instead of read forever or waited on, and a path swapped after the check cannot slip
//! through. Reads stop one byte past the limit, so a file that grows while it is read
//! cannot exceed it either.

use std::fs::File;
use std::io::{BufRead, Read, Seek};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use wheelwright_core::bundle::{Budget, BundleError, BundleLimits, LIMITS, Metadata};
use wheelwright_core::reporeuse::bundle::{RepoReuseBundle, StreamedTurn};

/// Why a bundle could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{0} is not a run bundle: give a directory, a .zip, a .jsonl or a .jsonl.gz file (see docs/formats.md, \"Run bundle\")"
    )]
    Kind(PathBuf),
    #[error(
        "{path} is {kind}, not a regular file; only regular files and directories are read (copy the file itself there)"
    )]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error(transparent)]
    Bundle(#[from] BundleError),
}

/// Reads the bundle at `path` within `limits`: a directory, a `.zip`, or JSON Lines as
/// `.jsonl` or gzip-compressed `.jsonl.gz`, read line by line.
pub fn read_path(path: &Path, limits: BundleLimits) -> Result<RepoReuseBundle, ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_owned(),
        source,
    };
    // stat(2) never blocks, whatever the path names; the file itself is checked once open.
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Ok(RepoReuseBundle::from_files(read_directory(path, limits)?)?);
    }
    let name = path.to_string_lossy().to_ascii_lowercase();
    let entry = path.to_string_lossy();
    if name.ends_with(".zip") {
        let (file, _) = open_regular(path, Follow::Yes)?;
        return Ok(RepoReuseBundle::from_files(read_zip(file, limits)?)?);
    }
    if name.ends_with(".jsonl") {
        let (file, _) = open_regular(path, Follow::Yes)?;
        let lines = jsonl_lines(std::io::BufReader::new(file), &entry, limits);
        return Ok(RepoReuseBundle::from_jsonl_lines(lines)?);
    }
    if name.ends_with(".jsonl.gz") {
        let (file, _) = open_regular(path, Follow::Yes)?;
        let inflated = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file));
        let lines = jsonl_lines(std::io::BufReader::new(inflated), &entry, limits);
        return Ok(RepoReuseBundle::from_jsonl_lines(lines)?);
    }
    Err(ReadError::Kind(path.to_owned()))
}

/// The lines of JSON Lines text read from `reader` (a file, a decompressor, memory), with
/// their 1-based numbers, one at a time and within `limits`: each line is an entry of at
/// most `limits.file_bytes`, and all of them together at most `limits.total_bytes`, so a
/// gzip bomb or a line without end stops at the limit. `source` names the text in messages.
pub fn jsonl_lines<R: BufRead>(
    mut reader: R,
    source: &str,
    limits: BundleLimits,
) -> impl Iterator<Item = Result<(usize, String), BundleError>> + use<R> {
    let source = source.to_owned();
    let mut budget = Budget::new(limits);
    let mut number = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        number += 1;
        let mut line = Vec::new();
        // A line at the limit may still end in `\r\n`; two bytes more tell it from a longer one.
        let read = (&mut reader)
            .take(limits.file_bytes.saturating_add(2))
            .read_until(b'\n', &mut line);
        let result = match read {
            Ok(0) => {
                done = true;
                return None;
            }
            Ok(_) => one_line(line, number, &source, &mut budget),
            Err(e) => Err(BundleError::entry(
                &source,
                format!("cannot be read or decompressed at line {number}: {e}"),
            )),
        };
        done = result.is_err();
        Some(result.map(|text| (number, text)))
    })
}

/// One line of JSON Lines as text, its newline removed, counted against `budget`.
fn one_line(
    mut line: Vec<u8>,
    number: usize,
    source: &str,
    budget: &mut Budget,
) -> Result<String, BundleError> {
    if line.last() == Some(&b'\n') {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
    }
    // Past the limit once its line end is removed: the line never ended in time.
    let limit = budget.limits().file_bytes;
    if line.len() as u64 > limit {
        return Err(BundleError::LineTooLong {
            line: number,
            limit,
        });
    }
    let at = format!("line {number}");
    budget.take(&at, line.len() as u64)?;
    String::from_utf8(line).map_err(|_| BundleError::LineNotUtf8 {
        entry: format!("{source}, {at}"),
    })
}

/// Reads the regular file at `path` (following a symbolic link to one), at most `limit`
/// bytes: what the command line reads a single input file with.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let (file, meta) = open_regular(path, Follow::Yes)?;
    let entry = path.to_string_lossy();
    if meta.len() > limit {
        return Err(BundleError::FileTooLarge {
            entry: entry.into_owned(),
            size: meta.len(),
            limit,
        }
        .into());
    }
    read_bounded(file, path, &entry, meta.len())
}

/// Whether opening may follow a symbolic link at the last component.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Follow {
    Yes,
    No,
}

/// Opens `path` for reading if, once open, it is a regular file; anything else (a FIFO, a
/// device, a socket, a directory) is [`ReadError::NotRegular`].
fn open_regular(path: &Path, follow: Follow) -> Result<(File, std::fs::Metadata), ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_owned(),
        source,
    };
    let mut flags = nix::fcntl::OFlag::O_NONBLOCK;
    if follow == Follow::No {
        flags |= nix::fcntl::OFlag::O_NOFOLLOW;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits())
        .open(path)
        .map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    let kind = meta.file_type();
    let what = if kind.is_file() {
        return Ok((file, meta));
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_char_device() {
        "a character device (such as /dev/zero)"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        "a directory"
    } else {
        "a special file"
    };
    Err(ReadError::NotRegular {
        path: path.to_owned(),
        kind: what,
    })
}

/// All of `file`, whose size `size` was checked against the limits, or an error naming
/// `entry` once it holds more (it grew after the check).
fn read_bounded(file: File, path: &Path, entry: &str, size: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| ReadError::Io {
            path: path.to_owned(),
            source,
        })?;
    if bytes.len() as u64 > size {
        return Err(BundleError::entry(
            entry,
            format!(
                "grew past its size of {size} bytes while it was read; read it once it is complete"
            ),
        )
        .into());
    }
    Ok(bytes)
}

/// Reads an uploaded bundle within [`LIMITS`]: a zip or gzip-compressed JSON Lines (told
/// by their magic numbers), else JSON Lines text. The caller has bounded `bytes` by the
/// request body limit; JSON Lines is read a line at a time, never copied whole.
pub fn read_bytes(bytes: &[u8]) -> Result<RepoReuseBundle, BundleError> {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return RepoReuseBundle::from_files(read_zip(std::io::Cursor::new(bytes), LIMITS)?);
    }
    let not_text = |e: BundleError| match e {
        BundleError::LineNotUtf8 { .. } => BundleError::entry(
            "the upload",
            "is neither a zip archive nor UTF-8 JSON Lines; upload a run bundle as .zip, .jsonl or .jsonl.gz",
        ),
        other => other,
    };
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let inflated = flate2::read::MultiGzDecoder::new(bytes);
        let lines = jsonl_lines(std::io::BufReader::new(inflated), "the upload", LIMITS);
        return RepoReuseBundle::from_jsonl_lines(lines).map_err(not_text);
    }
    RepoReuseBundle::from_jsonl_lines(jsonl_lines(bytes, "the upload", LIMITS)).map_err(not_text)
}

/// The entries of a zip archive, within `limits`.
pub fn read_zip(
    reader: impl Read + Seek,
    limits: BundleLimits,
) -> Result<Vec<(String, Vec<u8>)>, BundleError> {
    let mut zip = ZipEntries::open(reader, limits)?;
    let listed = std::mem::take(&mut zip.listed);
    listed.into_iter().map(|entry| zip.read(entry)).collect()
}

/// A zip archive's file entries, listed and counted against the limits before any is
/// inflated, and inflated one at a time on request.
struct ZipEntries<R> {
    archive: zip::ZipArchive<R>,
    /// (index in the archive, name, declared size), in the archive's order.
    listed: Vec<(usize, String, u64)>,
}

impl<R: Read + Seek> ZipEntries<R> {
    fn open(reader: R, limits: BundleLimits) -> Result<Self, BundleError> {
        let unreadable = |e: zip::result::ZipError| {
            BundleError::entry("the archive", format!("is not a readable zip file: {e}"))
        };
        let archive = zip::ZipArchive::new(reader).map_err(unreadable)?;
        // The zip crate keeps one entry per name, the last: a name given twice would lose a
        // copy without a word. The central directory's own names are checked first.
        let start = archive.central_directory_start();
        let mut reader = archive.into_inner();
        repeated_names(&mut reader, start, limits)?;
        let mut archive = zip::ZipArchive::new(reader).map_err(unreadable)?;
        if archive.len() > limits.entries {
            return Err(BundleError::TooManyEntries {
                limit: limits.entries,
            });
        }
        let mut budget = Budget::new(limits);
        let mut listed = Vec::with_capacity(archive.len());
        for i in 0..archive.len() {
            let entry = archive.by_index_raw(i).map_err(|e| {
                BundleError::entry(format!("entry {i}"), format!("cannot be read: {e}"))
            })?;
            let name = entry.name().to_owned();
            if entry.is_dir() {
                continue;
            }
            if entry.is_symlink() {
                return Err(BundleError::entry(
                    &name,
                    "is a symbolic link; put the file itself in the archive",
                ));
            }
            // Check the name before inflating anything: `../` entries are refused unread.
            if !wheelwright_core::workspace::is_relative_down(&name) {
                return Err(BundleError::entry(
                    &name,
                    "is not a relative path inside the bundle; entries may not start with / or contain ..",
                ));
            }
            let declared = entry.size();
            budget.take(&name, declared)?;
            listed.push((i, name, declared));
        }
        Ok(Self { archive, listed })
    }

    /// The entry `(index, name, declared size)` of [`ZipEntries::listed`], inflated, never
    /// past its declared size.
    fn read(
        &mut self,
        (index, name, declared): (usize, String, u64),
    ) -> Result<(String, Vec<u8>), BundleError> {
        let entry = self.archive.by_index(index).map_err(|e| {
            BundleError::entry(format!("entry {index}"), format!("cannot be read: {e}"))
        })?;
        let mut bytes = Vec::with_capacity(usize::try_from(declared.min(1 << 20)).unwrap_or(0));
        entry
            .take(declared.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| BundleError::entry(&name, format!("cannot be decompressed: {e}")))?;
        if bytes.len() as u64 > declared {
            return Err(BundleError::entry(
                &name,
                "inflates to more bytes than its header declares; the archive is corrupt or hostile",
            ));
        }
        Ok((name, bytes))
    }
}

/// Refuses an archive whose central directory (at `start`) names an entry twice, or
/// holds more than `limits.entries` entries.
fn repeated_names(
    reader: &mut (impl Read + Seek),
    start: u64,
    limits: BundleLimits,
) -> Result<(), BundleError> {
    const SIGNATURE: [u8; 4] = *b"PK\x01\x02";
    let corrupt = |e: std::io::Error| {
        BundleError::entry("the archive", format!("is not a readable zip file: {e}"))
    };
    reader
        .seek(std::io::SeekFrom::Start(start))
        .map_err(corrupt)?;
    let mut seen = std::collections::HashSet::new();
    // A central directory record: 46 fixed bytes, then name, extra field and comment.
    let mut fixed = [0u8; 46];
    while reader.read_exact(&mut fixed).is_ok() && fixed[..4] == SIGNATURE {
        let length = |at: usize| usize::from(u16::from_le_bytes([fixed[at], fixed[at + 1]]));
        let mut name = vec![0u8; length(28)];
        reader.read_exact(&mut name).map_err(corrupt)?;
        let skip = i64::try_from(length(30) + length(32)).unwrap_or(i64::MAX);
        reader
            .seek(std::io::SeekFrom::Current(skip))
            .map_err(corrupt)?;
        if seen.len() >= limits.entries {
            return Err(BundleError::TooManyEntries {
                limit: limits.entries,
            });
        }
        if seen.contains(&name) {
            return Err(BundleError::entry(
                String::from_utf8_lossy(&name).escape_debug().to_string(),
                "appears twice in the archive; keep one copy of each entry",
            ));
        }
        seen.insert(name);
    }
    Ok(())
}

/// The files under `root`, by `/`-separated path relative to it, within `limits`.
pub fn read_directory(
    root: &Path,
    limits: BundleLimits,
) -> Result<Vec<(String, Vec<u8>)>, ReadError> {
    list_directory(root, limits)?
        .into_iter()
        .map(|file| file.read())
        .collect()
}

/// A regular file of a directory bundle, listed (and counted) before it is read.
struct ListedFile {
    relative: String,
    path: PathBuf,
    size: u64,
}

impl ListedFile {
    /// The file's bytes, no more than the size it was listed (and counted) with.
    fn read(self) -> Result<(String, Vec<u8>), ReadError> {
        // Not following links: one swapped in since the listing is refused.
        let (file, _) = open_regular(&self.path, Follow::No)?;
        let bytes = read_bounded(file, &self.path, &self.relative, self.size)?;
        Ok((self.relative, bytes))
    }
}

/// The regular files under `root`, sorted by relative path, each counted against `limits`
/// with its size; symbolic links are refused.
fn list_directory(root: &Path, limits: BundleLimits) -> Result<Vec<ListedFile>, ReadError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| ReadError::Io { path, source }
    };
    let mut budget = Budget::new(limits);
    let mut files = Vec::new();
    let mut pending = vec![(root.to_owned(), String::new())];
    while let Some((dir, prefix)) = pending.pop() {
        for entry in std::fs::read_dir(&dir).map_err(io(&dir))? {
            let entry = entry.map_err(io(&dir))?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = format!("{prefix}{name}");
            let meta = std::fs::symlink_metadata(&path).map_err(io(&path))?;
            if meta.file_type().is_symlink() {
                return Err(BundleError::entry(
                    &relative,
                    "is a symbolic link; copy the file into the bundle instead",
                )
                .into());
            }
            if meta.is_dir() {
                pending.push((path, format!("{relative}/")));
                continue;
            }
            if !meta.is_file() {
                // A FIFO or device: opening it says what it is, without blocking.
                open_regular(&path, Follow::No)?;
            }
            budget.take(&relative, meta.len())?;
            files.push(ListedFile {
                relative,
                path,
                size: meta.len(),
            });
        }
    }
    files.sort_by(|a, b| a.relative.cmp(&b.relative));
    Ok(files)
}

/// A bundle's metadata and its turns, read one at a time as they are asked for.
pub type TurnStream = Box<dyn Iterator<Item = Result<StreamedTurn, BundleError>> + Send>;

/// Reads the bundle at `path` as [`read_path`] does, but turn by turn, for a host that
/// gathers them into chains and scores each as it comes (`wheelwright score`): a
/// directory's or zip's entries are listed and counted against `limits` first, then read
/// (`metadata.json` first, then in name order) only as the stream is asked for them; JSON
/// Lines is read a line at a time. The metadata is read and checked before this returns.
pub fn stream_path(path: &Path, limits: BundleLimits) -> Result<(Metadata, TurnStream), ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        let files = list_directory(path, limits)?;
        let order = RepoReuseBundle::read_order(files.iter().map(|f| f.relative.as_str()));
        let mut files: Vec<Option<ListedFile>> = files.into_iter().map(Some).collect();
        let entries = order.into_iter().map(move |(at, name)| {
            let file = files[at].take().expect("each entry is read once");
            let (_, bytes) = file.read().map_err(|e| match e {
                ReadError::Bundle(e) => e,
                other => BundleError::entry(&name, format!("cannot be read: {other}")),
            })?;
            Ok((name, bytes))
        });
        let (metadata, turns) = RepoReuseBundle::stream_files(entries)?;
        return Ok((metadata, Box::new(turns)));
    }
    let name = path.to_string_lossy().to_ascii_lowercase();
    let entry = path.to_string_lossy();
    if name.ends_with(".zip") {
        let (file, _) = open_regular(path, Follow::Yes)?;
        let mut zip = ZipEntries::open(std::io::BufReader::new(file), limits)?;
        let listed = std::mem::take(&mut zip.listed);
        let order = RepoReuseBundle::read_order(listed.iter().map(|(_, name, _)| name.as_str()));
        let mut listed: Vec<Option<(usize, String, u64)>> = listed.into_iter().map(Some).collect();
        let entries = order.into_iter().map(move |(at, name)| {
            let entry = listed[at].take().expect("each entry is read once");
            let (_, bytes) = zip.read(entry)?;
            Ok((name, bytes))
        });
        let (metadata, turns) = RepoReuseBundle::stream_files(entries)?;
        return Ok((metadata, Box::new(turns)));
    }
    if name.ends_with(".jsonl") {
        let (file, _) = open_regular(path, Follow::Yes)?;
        let lines = jsonl_lines(std::io::BufReader::new(file), &entry, limits);
        let (metadata, turns) = RepoReuseBundle::stream_jsonl(lines)?;
        return Ok((metadata, Box::new(turns)));
    }
    if name.ends_with(".jsonl.gz") {
        let (file, _) = open_regular(path, Follow::Yes)?;
        let inflated = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file));
        let lines = jsonl_lines(std::io::BufReader::new(inflated), &entry, limits);
        let (metadata, turns) = RepoReuseBundle::stream_jsonl(lines)?;
        return Ok((metadata, Box::new(turns)));
    }
    Err(ReadError::Kind(path.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A case: its name, the text, the line and total limits, and the lines or the words of
    /// the error.
    type Case = (
        &'static str,
        &'static [u8],
        u64,
        u64,
        Result<Vec<String>, String>,
    );

    /// The lines `jsonl_lines` gives for `text` with at most `file_bytes` a line, `total`
    /// bytes in all and 10 lines; an error as its message.
    fn lines(text: &[u8], file_bytes: u64, total: u64) -> Result<Vec<String>, String> {
        let limits = BundleLimits {
            entries: 10,
            file_bytes,
            total_bytes: total,
        };
        jsonl_lines(text, "run.jsonl", limits)
            .map(|line| line.map(|(_, text)| text))
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())
    }

    #[test]
    fn lines_stop_at_their_limits_and_not_a_byte_before() {
        let ok = |lines: &[&str]| Ok(lines.iter().map(|l| (*l).to_owned()).collect());
        let err = |words: &str| Err(words.to_owned());
        let cases: Vec<Case> = vec![
            ("at the limit", b"abcd\nef\n", 4, 100, ok(&["abcd", "ef"])),
            (
                "CRLF, no final newline",
                b"abcd\r\nef",
                4,
                100,
                ok(&["abcd", "ef"]),
            ),
            (
                "one byte over",
                b"abcde\n",
                4,
                100,
                err("line 1 is longer than 4 bytes"),
            ),
            (
                "a later line without end",
                b"ab\nabcdefgh",
                4,
                100,
                err("line 2 is longer than 4 bytes"),
            ),
            (
                "over the total",
                b"abc\nabc\n",
                4,
                5,
                err("more than 5 bytes"),
            ),
            (
                "too many lines",
                b"a\na\na\na\na\na\na\na\na\na\na\n",
                4,
                100,
                err("more than 10 entries"),
            ),
            (
                "not UTF-8",
                b"a\n\xff\n",
                4,
                100,
                err("run.jsonl, line 2: is not UTF-8 text"),
            ),
        ];
        for (name, text, file_bytes, total, want) in cases {
            let got = lines(text, file_bytes, total);
            match (&got, &want) {
                (Err(got), Err(words)) => assert!(got.contains(words.as_str()), "{name}: {got}"),
                _ => assert_eq!(got, want, "{name}"),
            }
        }
    }
}
