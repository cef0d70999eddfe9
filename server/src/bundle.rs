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
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use wheelwright_core::archive::{ZipEntries, jsonl_lines, zip_entries};
use wheelwright_core::bundle::{Budget, BundleError, BundleLimits, Metadata};
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
        return Ok(RepoReuseBundle::from_files(zip_entries(file, limits)?)?);
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
