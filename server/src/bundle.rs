//! Reads run bundles from disk or from an upload (a directory, a `.zip` or JSON Lines) within core's limits.
//!
//! Core parses a bundle from memory; this module does the I/O and enforces
//! [`wheelwright_core::bundle::LIMITS`] while reading, before anything is held whole:
//! entries are counted, declared sizes are checked before a zip entry is inflated, and the
//! inflated bytes are capped, so an entry that lies about its size (a zip bomb) stops at the
//! limit. Entry names are checked by core (`..`, absolute paths, backslashes); symbolic
//! links are refused in both directories and zips.

use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

use wheelwright_core::bundle::{Budget, BundleError, LIMITS, Limits, RunBundle};

/// Why a bundle could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{0} is not a run bundle: give a directory, a .zip or a .jsonl file (see docs/formats.md, \"Run bundle\")"
    )]
    Kind(PathBuf),
    #[error(transparent)]
    Bundle(#[from] BundleError),
}

/// Reads the bundle at `path`: a directory, a `.zip` or a `.jsonl` file.
pub fn read_path(path: &Path) -> Result<RunBundle, ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Ok(RunBundle::from_files(read_directory(path, LIMITS)?)?);
    }
    let name = path.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".zip") {
        let file = std::fs::File::open(path).map_err(io)?;
        return Ok(RunBundle::from_files(read_zip(file, LIMITS)?)?);
    }
    if name.ends_with(".jsonl") {
        Budget::new(LIMITS).take(&path.to_string_lossy(), meta.len())?;
        let text = std::fs::read_to_string(path).map_err(io)?;
        return Ok(RunBundle::from_jsonl(&text)?);
    }
    Err(ReadError::Kind(path.to_owned()))
}

/// Reads an uploaded bundle: a zip (told by its magic number) or JSON Lines text. The
/// caller has bounded `bytes` by the request body limit.
pub fn read_bytes(bytes: &[u8]) -> Result<RunBundle, BundleError> {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return RunBundle::from_files(read_zip(std::io::Cursor::new(bytes), LIMITS)?);
    }
    Budget::new(LIMITS).take("the upload", bytes.len() as u64)?;
    let text = std::str::from_utf8(bytes).map_err(|_| {
        BundleError::entry(
            "the upload",
            "is neither a zip archive nor UTF-8 JSON Lines; upload a run bundle as .zip or .jsonl",
        )
    })?;
    RunBundle::from_jsonl(text)
}

/// The entries of a zip archive, within `limits`.
pub fn read_zip(
    reader: impl Read + Seek,
    limits: Limits,
) -> Result<Vec<(String, Vec<u8>)>, BundleError> {
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
    let mut entries = Vec::with_capacity(archive.len());
    for i in 0..archive.len() {
        let entry = archive.by_index(i).map_err(|e| {
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
        if !wheelwright_core::dataset::is_relative_down(&name) {
            return Err(BundleError::entry(
                &name,
                "is not a relative path inside the bundle; entries may not start with / or contain ..",
            ));
        }
        let declared = entry.size();
        budget.take(&name, declared)?;
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
        entries.push((name, bytes));
    }
    Ok(entries)
}

/// Refuses an archive whose central directory (at `start`) names an entry twice, or
/// holds more than `limits.entries` entries.
fn repeated_names(
    reader: &mut (impl Read + Seek),
    start: u64,
    limits: Limits,
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
pub fn read_directory(root: &Path, limits: Limits) -> Result<Vec<(String, Vec<u8>)>, ReadError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| ReadError::Io { path, source }
    };
    let mut budget = Budget::new(limits);
    let mut entries = Vec::new();
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
            } else if meta.is_file() {
                budget.take(&relative, meta.len())?;
                let bytes = std::fs::read(&path).map_err(io(&path))?;
                entries.push((relative, bytes));
            }
        }
    }
    entries.sort();
    Ok(entries)
}
