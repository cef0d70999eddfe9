//! Reads a bundle's bytes from memory within limits: zip archives and JSON Lines (also gzip-compressed).
//!
//! The server (an upload), the command line (a file) and the browser (a dropped file) read
//! the same bytes the same way, so a bundle the page accepts is one the server accepts.
//! Nothing is held whole before it is counted: a zip's entries are listed and their declared
//! sizes counted against the [`BundleLimits`] before any is inflated, and each is inflated
//! no further than its declared size (a zip bomb stops there); JSON Lines are read a line at
//! a time, each line and all of them together within the limits, so a gzip bomb or a line
//! without end stops at the limit. Entry names are checked (`..`, absolute paths) before
//! anything is inflated; symbolic links and names given twice are refused.

use std::io::{BufRead, Read, Seek};

use crate::bundle::{Budget, BundleError, BundleLimits};
use crate::workspace::is_relative_down;

/// What a bundle's bytes hold, told by their first bytes (magic numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// A zip archive (`PK\x03\x04`, or `PK\x05\x06` for an empty one).
    Zip,
    /// gzip-compressed JSON Lines (`1f 8b`).
    Gzip,
    /// Anything else: read as JSON Lines text.
    Text,
}

impl Packing {
    pub fn of(bytes: &[u8]) -> Self {
        if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            Self::Zip
        } else if bytes.starts_with(&[0x1f, 0x8b]) {
            Self::Gzip
        } else {
            Self::Text
        }
    }
}

/// JSON Lines lines as they are read: each with its 1-based number, or why reading stopped.
pub type Lines<'b> = Box<dyn Iterator<Item = Result<(usize, String), BundleError>> + 'b>;

/// The JSON Lines lines of `bytes` as [`Packing::of`] tells them (gzip-compressed or
/// plain), as [`jsonl_lines`] reads them; `None` for a zip archive.
pub fn jsonl_lines_of<'b>(
    bytes: &'b [u8],
    source: &str,
    limits: BundleLimits,
) -> Option<Lines<'b>> {
    match Packing::of(bytes) {
        Packing::Zip => None,
        Packing::Gzip => {
            let inflated = flate2::read::MultiGzDecoder::new(bytes);
            Some(Box::new(jsonl_lines(
                std::io::BufReader::new(inflated),
                source,
                limits,
            )))
        }
        Packing::Text => Some(Box::new(jsonl_lines(bytes, source, limits))),
    }
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

/// The entries of a zip archive, within `limits`.
pub fn zip_entries(
    reader: impl Read + Seek,
    limits: BundleLimits,
) -> Result<Vec<(String, Vec<u8>)>, BundleError> {
    let mut zip = ZipEntries::open(reader, limits)?;
    let listed = std::mem::take(&mut zip.listed);
    listed.into_iter().map(|entry| zip.read(entry)).collect()
}

/// A zip archive's file entries, listed and counted against the limits before any is
/// inflated, and inflated one at a time on request.
pub struct ZipEntries<R> {
    archive: zip::ZipArchive<R>,
    /// (index in the archive, name, declared size), in the archive's order.
    pub listed: Vec<(usize, String, u64)>,
}

impl<R: Read + Seek> ZipEntries<R> {
    /// Lists the archive's file entries and counts them against `limits`, inflating none.
    pub fn open(reader: R, limits: BundleLimits) -> Result<Self, BundleError> {
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
            if !is_relative_down(&name) {
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
    pub fn read(
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
