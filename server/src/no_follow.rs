//! Files below a directory reached one component at a time and never through a symbolic link: `wheelwright run`'s output folder and the workspaces written into it.
//!
//! `wheelwright run` reads back what earlier turns left in its output folder (`--out`), and
//! anything running as the user may have changed that folder since: the agent is not
//! sandboxed, and a folder may come from elsewhere. A link planted there (as a turn's
//! file, its `files/`, a chain's directory, `bundle/` itself) would put whatever it points
//! at into the next turns' prompts and into the bundle, and a write through one would land
//! outside the folder; a FIFO would block the driver for ever.
//!
//! So every path below the root is walked here a component at a time, each opened
//! relative to the directory before it with `O_NOFOLLOW`: a link anywhere below the root
//! is refused with a message naming it, and since no path is looked up twice, a directory
//! swapped for a link after it was checked cannot redirect a read or a write either. Files
//! are opened with `O_NONBLOCK` and the opened descriptor's type decides, so a FIFO or a
//! device is refused at once, without waiting on it. A file is written new (`O_EXCL`) or
//! renamed into place, and a tree is removed by the same walk. The root itself may be a
//! link: it is the path the user gave.
//!
//! rustix, not std or nix: std cannot open relative to a directory, and nix's `openat`
//! gives a raw descriptor that only `unsafe` code can own, which this workspace forbids;
//! rustix gives `OwnedFd`s and is already built for `tempfile`. cap-std was not taken: its
//! directories follow links that stay inside them, and here no link is followed at all.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

/// Why a path below the root was refused, or could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refused {
    #[error(
        "{0} is a symbolic link; wheelwright never follows links in its output folder: remove it or start a new --out"
    )]
    Link(PathBuf),
    #[error("{path} is {kind}, where {expected} belongs: remove it or start a new --out")]
    Kind {
        path: PathBuf,
        kind: &'static str,
        expected: &'static str,
    },
    #[error(
        "{0} already exists, where wheelwright makes a new one: remove it or start a new --out"
    )]
    Exists(PathBuf),
    #[error("{path} is {size} bytes, over the {limit} bytes a file may have")]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
    #[error("{0} is not UTF-8 text")]
    NotText(PathBuf),
    #[error("{0} is not a relative path of plain names")]
    NotRelative(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What a run's own entry is; links and special files are refused, never a `Kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Dir,
    File,
}

/// A directory whose files are reached only through it, never through a link below it.
pub(crate) struct Tree {
    root: PathBuf,
    fd: OwnedFd,
}

/// How every directory on a walk is opened: the last component must not be a link, and a
/// FIFO there fails (`O_DIRECTORY`) instead of blocking.
const DIR: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC);

/// How a new file is created: never over anything already there, link or not.
const NEW: OFlags = OFlags::WRONLY
    .union(OFlags::CREATE)
    .union(OFlags::EXCL)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

impl Tree {
    /// Opens the directory `root`, creating it and its parents when missing (a link in
    /// `root`'s own path is followed: it is the path the user gave).
    pub(crate) fn create(root: &Path) -> Result<Self, Refused> {
        std::fs::create_dir_all(root).map_err(|source| Refused::Io {
            path: root.to_owned(),
            source,
        })?;
        let flags = DIR.difference(OFlags::NOFOLLOW);
        let fd = rustix::fs::open(root, flags, Mode::empty()).map_err(|e| io(root, e))?;
        Ok(Self {
            root: root.to_owned(),
            fd,
        })
    }

    /// The root's path, as given.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The path of `rel` below the root, for messages and for the agent.
    pub(crate) fn path(&self, rel: &Path) -> PathBuf {
        self.root.join(rel)
    }

    /// The directory `rel`, opened a component at a time; `None` when one is missing,
    /// unless `create`, which makes the missing ones.
    fn dir(&self, rel: &Path, create: bool) -> Result<Option<OwnedFd>, Refused> {
        let mut current: Option<OwnedFd> = None;
        let mut shown = self.root.clone();
        for name in names(rel)? {
            shown.push(name);
            let parent = current.as_ref().unwrap_or(&self.fd);
            let next = match rustix::fs::openat(parent, name, DIR, Mode::empty()) {
                Ok(fd) => fd,
                Err(Errno::NOENT) if create => {
                    match rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o777)) {
                        // Made by someone else meanwhile: opening it says what it is.
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => return Err(io(&shown, e)),
                    }
                    rustix::fs::openat(parent, name, DIR, Mode::empty())
                        .map_err(|e| refusal(parent, name, &shown, e, FileType::Directory))?
                }
                Err(Errno::NOENT) => return Ok(None),
                Err(e) => return Err(refusal(parent, name, &shown, e, FileType::Directory)),
            };
            current = Some(next);
        }
        match current {
            Some(fd) => Ok(Some(fd)),
            None => self.fd.try_clone().map(Some).map_err(|source| Refused::Io {
                path: self.root.clone(),
                source,
            }),
        }
    }

    /// The directory `rel` and those above it, made where missing.
    pub(crate) fn create_dir_all(&self, rel: &Path) -> Result<OwnedFd, Refused> {
        self.dir(rel, true)?.ok_or_else(|| Refused::Io {
            path: self.path(rel),
            source: std::io::ErrorKind::NotFound.into(),
        })
    }

    /// Makes the directory `rel`, which must not exist yet (the directories above it are
    /// made where missing).
    pub(crate) fn create_dir(&self, rel: &Path) -> Result<(), Refused> {
        let (parent_rel, name) = split(rel)?;
        let parent = self.create_dir_all(parent_rel)?;
        let shown = self.path(rel);
        match rustix::fs::mkdirat(&parent, name, Mode::from_raw_mode(0o777)) {
            Ok(()) => Ok(()),
            Err(Errno::EXIST) => Err(existing(&parent, name, &shown)),
            Err(e) => Err(io(&shown, e)),
        }
    }

    /// What `rel` is; `None` when it or a directory above it is missing. A link or a
    /// special file there (or above it) is refused.
    pub(crate) fn kind(&self, rel: &Path) -> Result<Option<Kind>, Refused> {
        let (parent_rel, name) = split(rel)?;
        let Some(parent) = self.dir(parent_rel, false)? else {
            return Ok(None);
        };
        match rustix::fs::statat(&parent, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => classify(FileType::from_raw_mode(stat.st_mode), &self.path(rel)).map(Some),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(io(&self.path(rel), e)),
        }
    }

    /// The entries of the directory `rel` (none when it is missing), each a directory or a
    /// regular file: a link or a special file among them is refused.
    pub(crate) fn entries(&self, rel: &Path) -> Result<Vec<(OsString, Kind)>, Refused> {
        let Some(dir) = self.dir(rel, false)? else {
            return Ok(Vec::new());
        };
        let shown = self.path(rel);
        let mut entries = Vec::new();
        for entry in rustix::fs::Dir::read_from(&dir).map_err(|e| io(&shown, e))? {
            let entry = entry.map_err(|e| io(&shown, e))?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            let kind = match entry.file_type() {
                FileType::Unknown => rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW)
                    .map(|stat| FileType::from_raw_mode(stat.st_mode))
                    .map_err(|e| io(&shown.join(name), e))?,
                known => known,
            };
            entries.push((name.to_owned(), classify(kind, &shown.join(name))?));
        }
        Ok(entries)
    }

    /// Opens the regular file `rel` for reading; `None` when it or a directory above it
    /// is missing. Opening never waits on a FIFO; anything but a regular file is refused.
    pub(crate) fn open(&self, rel: &Path) -> Result<Option<(File, u64)>, Refused> {
        let (parent_rel, name) = split(rel)?;
        let Some(parent) = self.dir(parent_rel, false)? else {
            return Ok(None);
        };
        let shown = self.path(rel);
        // O_NONBLOCK: a FIFO opens at once instead of waiting for a writer (and is then
        // refused); on a regular file it changes nothing.
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&parent, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(e) => return Err(refusal(&parent, name, &shown, e, FileType::RegularFile)),
        };
        // The opened file's own type: what is read is what was checked.
        let stat = rustix::fs::fstat(&fd).map_err(|e| io(&shown, e))?;
        let kind = FileType::from_raw_mode(stat.st_mode);
        if kind != FileType::RegularFile {
            return Err(Refused::Kind {
                path: shown,
                kind: describe(kind),
                expected: describe(FileType::RegularFile),
            });
        }
        Ok(Some((
            File::from(fd),
            u64::try_from(stat.st_size).unwrap_or(0),
        )))
    }

    /// The bytes of the regular file `rel`, at most `limit`; `None` when it is missing.
    pub(crate) fn read(&self, rel: &Path, limit: u64) -> Result<Option<Vec<u8>>, Refused> {
        let Some((file, size)) = self.open(rel)? else {
            return Ok(None);
        };
        let too_large = |size| Refused::TooLarge {
            path: self.path(rel),
            size,
            limit,
        };
        if size > limit {
            return Err(too_large(size));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        // One byte past the limit: a file that grows while it is read cannot exceed it.
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| Refused::Io {
                path: self.path(rel),
                source,
            })?;
        if bytes.len() as u64 > limit {
            return Err(too_large(bytes.len() as u64));
        }
        Ok(Some(bytes))
    }

    /// The text of the regular file `rel`, at most `limit` bytes of UTF-8; `None` when it
    /// is missing.
    pub(crate) fn read_text(&self, rel: &Path, limit: u64) -> Result<Option<String>, Refused> {
        self.read(rel, limit)?
            .map(|bytes| String::from_utf8(bytes).map_err(|_| Refused::NotText(self.path(rel))))
            .transpose()
    }

    /// Creates the file `rel`, which must not exist yet, for writing (the directories
    /// above it are made where missing).
    pub(crate) fn create_new(&self, rel: &Path) -> Result<File, Refused> {
        let (parent_rel, name) = split(rel)?;
        let parent = self.create_dir_all(parent_rel)?;
        let shown = self.path(rel);
        match rustix::fs::openat(&parent, name, NEW, Mode::from_raw_mode(0o666)) {
            Ok(fd) => Ok(File::from(fd)),
            Err(Errno::EXIST) => Err(existing(&parent, name, &shown)),
            Err(e) => Err(refusal(&parent, name, &shown, e, FileType::RegularFile)),
        }
    }

    /// Writes `bytes` to `rel` through a new file renamed over it, so that a reader sees
    /// the old file or the new one; a link or a special file at `rel` is refused.
    pub(crate) fn write(&self, rel: &Path, bytes: &[u8]) -> Result<(), Refused> {
        static TEMPORARY: AtomicU64 = AtomicU64::new(0);
        let (parent_rel, name) = split(rel)?;
        let parent = self.create_dir_all(parent_rel)?;
        let shown = self.path(rel);
        match rustix::fs::statat(&parent, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => {
                if classify(FileType::from_raw_mode(stat.st_mode), &shown)? != Kind::File {
                    return Err(Refused::Kind {
                        path: shown,
                        kind: describe(FileType::Directory),
                        expected: describe(FileType::RegularFile),
                    });
                }
            }
            Err(Errno::NOENT) => {}
            Err(e) => return Err(io(&shown, e)),
        }
        let mut temporary = OsString::from(".");
        temporary.push(name);
        temporary.push(format!(
            ".{}-{}.tmp",
            std::process::id(),
            TEMPORARY.fetch_add(1, Ordering::Relaxed)
        ));
        let fd = rustix::fs::openat(&parent, &temporary, NEW, Mode::from_raw_mode(0o666))
            .map_err(|e| io(&self.path(&parent_rel.join(&temporary)), e))?;
        // The rename replaces whatever is at `rel` by the new file, never writing through it.
        let written = File::from(fd).write_all(bytes).and_then(|()| {
            rustix::fs::renameat(&parent, &temporary, &parent, name).map_err(std::io::Error::from)
        });
        if let Err(source) = written {
            let _ = rustix::fs::unlinkat(&parent, &temporary, AtFlags::empty());
            return Err(Refused::Io {
                path: shown,
                source,
            });
        }
        Ok(())
    }

    /// Moves the directory `from` to `to` in one step (the directories above `to` are made
    /// where missing); `to` must not be there yet, or be an empty directory.
    pub(crate) fn rename(&self, from: &Path, to: &Path) -> Result<(), Refused> {
        let (from_parent_rel, from_name) = split(from)?;
        let (to_parent_rel, to_name) = split(to)?;
        let shown = self.path(from);
        let from_parent = self
            .dir(from_parent_rel, false)?
            .ok_or_else(|| io(&shown, Errno::NOENT))?;
        match rustix::fs::statat(&from_parent, from_name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => expect_dir(FileType::from_raw_mode(stat.st_mode), &shown)?,
            Err(e) => return Err(io(&shown, e)),
        }
        let to_parent = self.create_dir_all(to_parent_rel)?;
        rustix::fs::renameat(&from_parent, from_name, &to_parent, to_name)
            .map_err(|e| io(&self.path(to), e))
    }

    /// Removes the directory `rel` and everything in it, links inside it as links (never
    /// what they point at); `false` when there was none. `rel` itself being a link or a
    /// file is refused.
    pub(crate) fn remove_dir_all(&self, rel: &Path) -> Result<bool, Refused> {
        let (parent_rel, name) = split(rel)?;
        let Some(parent) = self.dir(parent_rel, false)? else {
            return Ok(false);
        };
        let shown = self.path(rel);
        match rustix::fs::statat(&parent, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => expect_dir(FileType::from_raw_mode(stat.st_mode), &shown)?,
            Err(Errno::NOENT) => return Ok(false),
            Err(e) => return Err(io(&shown, e)),
        }
        remove_tree(&parent, name, &shown)?;
        Ok(true)
    }
}

/// A directory being emptied by [`remove_tree`]: its name in the directory before it on
/// the stack, and its subdirectories still to empty.
struct Emptying {
    fd: OwnedFd,
    name: OsString,
    shown: PathBuf,
    subdirectories: Vec<OsString>,
}

/// Removes the directory `name` of `parent` and everything in it, a directory at a time
/// (a stack, not recursion: an agent's tree may be deep), each opened with `O_NOFOLLOW`
/// from the one before and every other entry unlinked, links included.
fn remove_tree(parent: &OwnedFd, name: &OsStr, shown: &Path) -> Result<(), Refused> {
    let mut stack = vec![emptying(parent, name, shown)?];
    while let Some(top) = stack.last_mut() {
        if let Some(sub) = top.subdirectories.pop() {
            let next = emptying(&top.fd, &sub, &top.shown.join(&sub))?;
            stack.push(next);
            continue;
        }
        let Some(done) = stack.pop() else { break };
        drop(done.fd);
        let above = stack.last().map_or(parent, |level| &level.fd);
        rustix::fs::unlinkat(above, &done.name, AtFlags::REMOVEDIR)
            .map_err(|e| io(&done.shown, e))?;
    }
    Ok(())
}

/// Opens the directory `name` of `parent`, unlinks everything in it but directories, and
/// lists those.
fn emptying(parent: &OwnedFd, name: &OsStr, shown: &Path) -> Result<Emptying, Refused> {
    let fd = rustix::fs::openat(parent, name, DIR, Mode::empty())
        .map_err(|e| refusal(parent, name, shown, e, FileType::Directory))?;
    let mut subdirectories = Vec::new();
    for entry in rustix::fs::Dir::read_from(&fd).map_err(|e| io(shown, e))? {
        let entry = entry.map_err(|e| io(shown, e))?;
        let entry_name = OsStr::from_bytes(entry.file_name().to_bytes());
        if entry_name == "." || entry_name == ".." {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => rustix::fs::statat(&fd, entry_name, AtFlags::SYMLINK_NOFOLLOW)
                .map(|stat| FileType::from_raw_mode(stat.st_mode))
                .map_err(|e| io(&shown.join(entry_name), e))?,
            known => known,
        };
        if kind == FileType::Directory {
            subdirectories.push(entry_name.to_owned());
        } else {
            rustix::fs::unlinkat(&fd, entry_name, AtFlags::empty())
                .map_err(|e| io(&shown.join(entry_name), e))?;
        }
    }
    Ok(Emptying {
        fd,
        name: name.to_owned(),
        shown: shown.to_owned(),
        subdirectories,
    })
}

/// The components of `rel`, which must all be plain names.
fn names(rel: &Path) -> Result<Vec<&OsStr>, Refused> {
    rel.components()
        .map(|component| match component {
            Component::Normal(name) => Ok(name),
            _ => Err(Refused::NotRelative(rel.to_owned())),
        })
        .collect()
}

/// `rel`'s directory and its last component (checked to be plain names).
fn split(rel: &Path) -> Result<(&Path, &OsStr), Refused> {
    names(rel)?;
    match (rel.parent(), rel.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(Refused::NotRelative(rel.to_owned())),
    }
}

/// A run's own entry of type `kind` at `shown`: a directory or a regular file, anything
/// else refused.
fn classify(kind: FileType, shown: &Path) -> Result<Kind, Refused> {
    match kind {
        FileType::Directory => Ok(Kind::Dir),
        FileType::RegularFile => Ok(Kind::File),
        FileType::Symlink => Err(Refused::Link(shown.to_owned())),
        other => Err(Refused::Kind {
            path: shown.to_owned(),
            kind: describe(other),
            expected: "a directory or a regular file",
        }),
    }
}

/// Refuses anything at `shown` but a directory.
fn expect_dir(kind: FileType, shown: &Path) -> Result<(), Refused> {
    match classify(kind, shown)? {
        Kind::Dir => Ok(()),
        Kind::File => Err(Refused::Kind {
            path: shown.to_owned(),
            kind: describe(kind),
            expected: describe(FileType::Directory),
        }),
    }
}

/// Why opening `name` in `parent` (shown as `shown`) as a `wanted` failed with `e`: a link
/// or the wrong kind of file is named as such, anything else is the system's error.
fn refusal(parent: &OwnedFd, name: &OsStr, shown: &Path, e: Errno, wanted: FileType) -> Refused {
    // ELOOP for a link under O_NOFOLLOW (EMLINK on FreeBSD), ENOTDIR, ENXIO for a socket:
    // what is there says more than the error number.
    match rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => match FileType::from_raw_mode(stat.st_mode) {
            FileType::Symlink => Refused::Link(shown.to_owned()),
            kind if kind != wanted => Refused::Kind {
                path: shown.to_owned(),
                kind: describe(kind),
                expected: describe(wanted),
            },
            _ => io(shown, e),
        },
        Err(_) => io(shown, e),
    }
}

/// Why `name` of `parent`, which already exists, cannot be made anew.
fn existing(parent: &OwnedFd, name: &OsStr, shown: &Path) -> Refused {
    match rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::Symlink => {
            Refused::Link(shown.to_owned())
        }
        _ => Refused::Exists(shown.to_owned()),
    }
}

fn io(path: &Path, e: Errno) -> Refused {
    Refused::Io {
        path: path.to_owned(),
        source: e.into(),
    }
}

/// A file type in words, as the errors say it.
fn describe(kind: FileType) -> &'static str {
    match kind {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a directory",
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a FIFO (named pipe)",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Socket => "a socket",
        FileType::Unknown => "a special file",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree in a new temporary directory, beside a directory `outside` holding `kept.txt`.
    fn tree() -> (tempfile::TempDir, Tree, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("kept.txt"), "kept").unwrap();
        let tree = Tree::create(&tmp.path().join("root")).unwrap();
        (tmp, tree, outside)
    }

    #[test]
    fn removing_a_tree_removes_the_links_in_it_not_what_they_point_at() {
        let (_tmp, tree, outside) = tree();
        tree.create_new(Path::new("a/b/file.txt")).unwrap();
        std::os::unix::fs::symlink(&outside, tree.path(Path::new("a/b/dir-link"))).unwrap();
        std::os::unix::fs::symlink(
            outside.join("kept.txt"),
            tree.path(Path::new("a/file-link")),
        )
        .unwrap();
        // A deep tree too: it is emptied a directory at a time, from a stack.
        let deep: PathBuf = std::iter::repeat_n("d", 200).collect();
        tree.create_dir_all(&Path::new("a").join(&deep)).unwrap();
        assert!(tree.remove_dir_all(Path::new("a")).unwrap());
        assert!(!tree.path(Path::new("a")).exists());
        assert_eq!(
            std::fs::read_to_string(outside.join("kept.txt")).unwrap(),
            "kept"
        );
        assert!(!tree.remove_dir_all(Path::new("a")).unwrap());
    }

    #[test]
    fn a_link_anywhere_on_the_way_is_refused_for_every_use() {
        let (_tmp, tree, outside) = tree();
        std::os::unix::fs::symlink(&outside, tree.path(Path::new("linked"))).unwrap();
        let through = Path::new("linked/kept.txt");
        let refused: Vec<Refused> = vec![
            tree.read(through, 100).unwrap_err(),
            tree.kind(through).unwrap_err(),
            tree.write(through, b"overwritten").unwrap_err(),
            tree.create_new(Path::new("linked/new.txt")).unwrap_err(),
            tree.create_dir(Path::new("linked/new")).unwrap_err(),
            tree.remove_dir_all(Path::new("linked")).unwrap_err(),
            tree.entries(Path::new("linked")).unwrap_err(),
        ];
        for e in refused {
            assert!(
                matches!(&e, Refused::Link(path) if path.ends_with("root/linked")),
                "{e}"
            );
        }
        // A link as the last component: written over by rename only if it is not one.
        std::os::unix::fs::symlink(outside.join("kept.txt"), tree.path(Path::new("file"))).unwrap();
        assert!(matches!(
            tree.write(Path::new("file"), b"overwritten"),
            Err(Refused::Link(_))
        ));
        assert!(matches!(
            tree.open(Path::new("file")),
            Err(Refused::Link(_))
        ));
        assert_eq!(
            std::fs::read_to_string(outside.join("kept.txt")).unwrap(),
            "kept"
        );
        assert!(outside.exists() && tree.path(Path::new("linked")).is_symlink());
    }

    #[test]
    fn a_fifo_is_refused_at_once_and_a_regular_file_is_replaced() {
        let (_tmp, tree, _) = tree();
        let fifo = tree.path(Path::new("pipe"));
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        // No writer: without O_NONBLOCK the open would wait for ever.
        let e = tree.read(Path::new("pipe"), 100).unwrap_err();
        assert!(e.to_string().contains("is a FIFO (named pipe)"), "{e}");
        assert!(matches!(
            tree.kind(Path::new("pipe")),
            Err(Refused::Kind { .. })
        ));

        tree.write(Path::new("a/file.json"), b"one").unwrap();
        tree.write(Path::new("a/file.json"), b"two").unwrap();
        assert_eq!(
            tree.read_text(Path::new("a/file.json"), 100)
                .unwrap()
                .as_deref(),
            Some("two")
        );
        assert_eq!(
            tree.entries(Path::new("a")).unwrap(),
            vec![(OsString::from("file.json"), Kind::File)],
            "the temporary file was renamed away"
        );
        assert!(matches!(
            tree.read(Path::new("a/file.json"), 2),
            Err(Refused::TooLarge { size: 3, .. })
        ));
        assert!(tree.read(Path::new("a/missing"), 2).unwrap().is_none());
        assert!(tree.read(Path::new("missing/file"), 2).unwrap().is_none());
        assert!(matches!(
            tree.create_new(Path::new("a/file.json")),
            Err(Refused::Exists(_))
        ));
        assert!(matches!(
            tree.read(Path::new("../escape"), 2),
            Err(Refused::NotRelative(_))
        ));
    }
}
